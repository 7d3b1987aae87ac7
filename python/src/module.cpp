// One extension module per instruction-set level (_core, _core_avx2,
// _core_avx512): the same bindings, linked against the core compiled for that
// level. VCGMM_MODULE_NAME is set by python/CMakeLists.txt.
#include "bindings.hpp"

PYBIND11_MODULE(VCGMM_MODULE_NAME, m) {
  namespace vp = vcgmm_python;
  m.doc() = "vcgmm's compiled core (private; use the vcgmm package)";
  vp::install_module_hooks();
  // Dependency order: a family's classes before the families that name them.
  vp::bind_common(m);
  vp::bind_blocks(m);
  vp::bind_approximate(m);
  vp::bind_kmeans(m);
  vp::bind_vcgmm(m);
  vp::bind_stochastic(m);
  vp::bind_kernel_kmeans(m);
}
