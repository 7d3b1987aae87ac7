// vcgmm._cpu: what the running CPU (and OS) support, compiled for the x86-64
// baseline so that it imports anywhere. The loader asks it before importing
// any copy of the core, which may be built for wider instructions only.
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace {

py::dict cpu_features() {
  bool avx2 = false, avx512 = false;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#endif
  py::dict features;
  features["avx2"] = avx2;
  features["avx512"] = avx512;
  return features;
}

}  // namespace

PYBIND11_MODULE(_cpu, m) {
  m.doc() = "The running CPU's instruction sets (private; see vcgmm.show_build())";
  m.def("cpu_features", &cpu_features, "Instruction sets the running CPU (and OS) support.");
}
