#include "detail/parallel.hpp"

#include <atomic>
#include <chrono>

namespace vcgmm {

namespace {
std::atomic<InterruptCallback> g_interrupt_callback{nullptr};
}  // namespace

void set_interrupt_callback(InterruptCallback callback) { g_interrupt_callback.store(callback); }

InterruptCallback interrupt_callback() { return g_interrupt_callback.load(); }

const char* version() { return VCGMM_VERSION_STRING; }

bool have_openmp() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

const char* compiled_arch() { return VCGMM_ARCH_NAME; }

namespace detail {

int resolve_threads(int n_threads) {
#ifdef _OPENMP
  if (n_threads > 0) return n_threads;
  int n = omp_get_max_threads();
  return n > 0 ? n : 1;
#else
  (void)n_threads;
  return 1;
#endif
}

bool interrupt_requested() {
  // The clock is read on every call (cheap); the callback, which may take the
  // Python GIL, only every 100 ms per calling thread.
  using clock = std::chrono::steady_clock;
  thread_local clock::time_point last_poll = clock::now();
  InterruptCallback callback = g_interrupt_callback.load(std::memory_order_relaxed);
  if (!callback) return false;
  const clock::time_point now = clock::now();
  if (now - last_poll < std::chrono::milliseconds(100)) return false;
  last_poll = now;
  try {
    return callback();
  } catch (...) {
    return true;
  }
}

}  // namespace detail
}  // namespace vcgmm
