#include "detail/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#if defined(__GLIBCXX__) || defined(_LIBCPP_VERSION)
#include <cxxabi.h>
#define VCGMM_HAVE_FORCED_UNWIND 1
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <sys/resource.h>
#define VCGMM_HAVE_ATFORK 1
#endif

namespace vcgmm {

namespace {
std::atomic<InterruptCallback> g_interrupt_callback{nullptr};

// Fork safety. GNU OpenMP's thread pool does not survive fork(): a child
// process that enters a parallel region after its parent started the pool
// waits forever for threads that do not exist. So a child forked after the
// pool started runs every region on one thread (results do not depend on
// the thread count, only the time does).
std::atomic<bool> g_pool_started{false};
std::atomic<bool> g_forked_after_pool{false};

#ifdef VCGMM_HAVE_ATFORK
void on_fork_child() { g_forked_after_pool.store(g_pool_started.load()); }
[[maybe_unused]] const int g_atfork_registered = pthread_atfork(nullptr, nullptr, &on_fork_child);
#endif

// The region trace (benchmarks): written only by the thread that started it.
std::atomic<bool> g_trace_on{false};
std::thread::id g_trace_thread;
std::vector<RegionTrace> g_trace;
thread_local int t_region_depth = 0;

bool tracing_this_thread() {
  return g_trace_on.load(std::memory_order_relaxed) &&
         std::this_thread::get_id() == g_trace_thread;
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void start_region_trace() {
  g_trace.clear();
  g_trace_thread = std::this_thread::get_id();
  g_trace_on.store(true);
}

std::vector<RegionTrace> stop_region_trace() {
  g_trace_on.store(false);
  return std::exchange(g_trace, {});
}

bool single_threaded_after_fork() { return g_forked_after_pool.load(); }

int default_threads() { return detail::resolve_threads(0); }

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

void note_pool_started() {
  if (!g_pool_started.load(std::memory_order_relaxed)) g_pool_started.store(true);
}

int max_threads() {
  // More threads than 4 per core only add stacks and switches; and every
  // thread reserves a stack, so under an address-space limit (ulimit -v)
  // OpenMP could fail to start them and end the process (it cannot report
  // the failure). Stacks are capped at a quarter of that limit.
  static const int cap = [] {
    const unsigned hw = std::thread::hardware_concurrency();
    double n = 4.0 * std::max(1u, hw);
#ifdef VCGMM_HAVE_ATFORK
    rlimit as{}, stack{};
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
      double stack_bytes = 8.0 * 1024 * 1024;  // glibc's default thread stack
      if (getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY)
        stack_bytes = std::max(stack_bytes, static_cast<double>(stack.rlim_cur));
      n = std::min(n, static_cast<double>(as.rlim_cur) / 4.0 / stack_bytes);
    }
#endif
    return n < 1.0 ? 1 : static_cast<int>(std::min(n, 1e6));
  }();
  return cap;
}

int resolve_threads(int n_threads) {
  // A traced run starts no threads: the algorithms size their work for
  // n_threads as given, beyond this machine's cap.
  if (n_threads > 0 && tracing_this_thread()) return n_threads;
#ifdef _OPENMP
  if (g_forked_after_pool.load(std::memory_order_relaxed)) return 1;
  int n = n_threads > 0 ? n_threads : omp_get_max_threads();
  return std::max(1, std::min(n, max_threads()));
#else
  (void)n_threads;
  return 1;
#endif
}

RegionToken open_region_trace(double worth) {
  RegionToken token;
  if (!tracing_this_thread()) return token;
  token.traced = true;
  if (t_region_depth++ == 0) {
    g_trace.push_back(RegionTrace{steady_seconds(), 0.0, worth, {}});
    token.record = &g_trace.back();
  }
  return token;
}

void close_region_trace(const RegionToken& token) {
  if (!token.traced) return;
  --t_region_depth;
  if (token.record) token.record->end = steady_seconds();
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
#ifdef VCGMM_HAVE_FORCED_UNWIND
  } catch (abi::__forced_unwind&) {
    // A thread being cancelled (pthread_exit, as Python does to a daemon
    // thread taking the GIL at exit) must unwind: swallowing it aborts.
    throw;
#endif
  } catch (...) {
    return true;  // a failing callback stops the computation
  }
}

}  // namespace detail
}  // namespace vcgmm
