// The module-wide state of the binding layer: the cancel generation, the
// interrupt callback the core polls, the error translation.
#include <Python.h>

#include "bindings.hpp"
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

}  // namespace

void install_module_hooks() {
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const vcgmm::InvalidArgument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  vcgmm::set_interrupt_callback(&python_interrupt_requested);
}

}  // namespace vcgmm_python
