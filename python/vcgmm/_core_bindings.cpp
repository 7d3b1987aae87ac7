// Module-wide bindings: build information, CPU features, error translation,
// interruption. The algorithm bindings live in _core_bind_*.cpp.
#include <Python.h>

#include "_core_bindings.hpp"
#include "vcgmm/interrupt.hpp"


namespace vcgmm_python {

std::atomic<std::uint64_t> g_cancel_generation{0};
thread_local std::uint64_t t_call_generation = 0;

namespace {

// Called by the core about every 100 ms from the thread that called it: takes
// the GIL and lets Python run its signal handlers (Ctrl-C raises
// KeyboardInterrupt, which stays pending until the binding rethrows it).
bool python_interrupt_requested() {
  return call_python_from_core([]() -> bool {
    if (g_cancel_generation.load() != t_call_generation) return true;  // cancel_all()
    py::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
  });
}

py::dict cpu_features() {
  py::dict features;
  bool avx2 = false, avx512 = false;
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
#endif
  features["avx2"] = avx2;
  features["avx512"] = avx512;
  return features;
}

// count_outside over a contiguous float32/float64 array of any shape (no
// copy: other dtypes and layouts do not match and raise TypeError).
template <typename T>
std::int64_t count_outside_array(
    const py::array_t<T, py::array::c_style>& x, double limit) {
  const T* data = x.data();
  const vcgmm::index_t n = static_cast<vcgmm::index_t>(x.size());
  return static_cast<std::int64_t>(
      without_gil([&] { return vcgmm::count_outside(data, n, limit, 0); }));
}

}  // namespace

void bind_all(py::module_& m) {
  m.doc() = "vcgmm's compiled core (private; use the vcgmm package)";

  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const vcgmm::InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  vcgmm::set_interrupt_callback(&python_interrupt_requested);

  m.def("version", &vcgmm::version, "Library version.");
  m.def("have_openmp", &vcgmm::have_openmp, "True when compiled with OpenMP.");
  m.def("compiled_arch", &vcgmm::compiled_arch, "Instruction-set level of this module.");
  m.def("cpu_features", &cpu_features, "Instruction sets the running CPU (and OS) support.");
  m.def("default_threads", &vcgmm::default_threads,
        "Threads n_threads=None stands for (OpenMP's default).");
  m.def("count_outside", &count_outside_array<float>, py::arg("x").noconvert(),
        py::arg("limit"),
        "Values of a C-contiguous float32 array outside [-limit, limit] (NaN counts).");
  m.def("count_outside", &count_outside_array<double>, py::arg("x").noconvert(),
        py::arg("limit"),
        "Values of a C-contiguous float64 array outside [-limit, limit] (NaN counts).");
  m.def("cancel_all", [] { ++g_cancel_generation; },
        "Stop every computation running in any thread at its next interrupt check.");
  m.def("single_threaded_after_fork", &vcgmm::single_threaded_after_fork,
        "True in a child forked after OpenMP threads started: computations run on one thread.");

  bind_params(m);
  bind_kmeans(m);
  bind_vcgmm(m);
  bind_minibatch(m);
  bind_kernel_kmeans(m);
}

}  // namespace vcgmm_python
