// One extension module per instruction-set level (_core, _core_avx2,
// _core_avx512): the same bindings, linked against the core compiled for that
// level. VCGMM_MODULE_NAME is set by python/CMakeLists.txt.
#include "_core_bindings.hpp"

PYBIND11_MODULE(VCGMM_MODULE_NAME, m) { vcgmm_python::bind_all(m); }
