// Internal: threads, exception capture and interruption for OpenMP regions.
//
// Determinism contract of the whole library: work is split into tasks whose
// boundaries depend only on the problem size (never on the thread count);
// every task writes only to outputs it owns (per-task partial sums, its own
// rows), and partial results are combined afterwards in task order on one
// thread. Random numbers come from streams keyed by (seed, purpose, task),
// never by thread. Hence 1 thread and 8 threads give bit-identical results.
#pragma once

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <vector>

#include "vcgmm/common.hpp"
#include "vcgmm/interrupt.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace vcgmm {
namespace detail {

// Task sizes. Part of the determinism contract: changing one changes the
// order of floating-point sums (and the random streams keyed by task), so
// results change with it -- but never with the number of threads.

/// Rows per task of the streaming passes over all points (means, coreset
/// masses, AFK-MC^2's proposal).
constexpr index_t kStreamChunk = 16384;
/// Rows per task of k-means++'s passes (one per center: smaller tasks).
constexpr index_t kSeedingChunk = 4096;
/// Clusters per task of the per-cluster sums (Lloyd's update, mbatch, VRKM++).
constexpr index_t kLloydClustersPerTask = 16;
/// Points per task of the variational E-step (also keys the "+1" streams).
constexpr index_t kEStepPointsPerTask = 512;
/// Clusters per task of the variational neighbourhood update and M-step.
constexpr index_t kEMClustersPerTask = 64;
/// Points per task of the variational M-step's partial sums (mstep.hpp).
constexpr index_t kMStepPointsPerTask = 4096;
/// Clusters per task of the per-cluster passes that sum nothing across
/// clusters (the neighbourhood fold and update, the M-step's merge and its
/// bucketed pairs): not part of the contract, any size gives the same
/// results; small tasks balance the clusters' unequal work on many threads.
constexpr index_t kBalancedClustersPerTask = 16;
// (The blocked scan's row blocks and center tiles, 256 x 512, live with
// CenterTiles in center_tiles.hpp.)

/// Number of threads to use: n_threads if positive, else OpenMP's default
/// (never changes global OpenMP state), at most max_threads(). Always 1
/// without OpenMP.
int resolve_threads(int n_threads);

/// The most threads a region starts: 4 per core, and fewer under an
/// address-space limit (their stacks within a quarter of it).
int max_threads();

/// Records that an OpenMP thread pool exists (see single_threaded_after_fork).
void note_pool_started();

/// Calls the interrupt callback if at least ~100 ms passed since the last
/// call on this thread; returns true when the computation should stop.
/// Must only be called from the thread that called into the library.
bool interrupt_requested();

/// A region while start_region_trace is on for the calling thread: it runs
/// its tasks on that thread (`traced`, whatever its thread count, so the
/// algorithms take the paths of that count), and an outermost region is
/// recorded (`record`). Pairs with close_region_trace on every way out.
struct RegionToken {
  RegionTrace* record = nullptr;
  bool traced = false;
};
RegionToken open_region_trace(double worth);
void close_region_trace(const RegionToken& token);

/// Throws vcgmm::Interrupted when interrupt_requested().
inline void check_interrupt() {
  if (interrupt_requested()) throw Interrupted();
}

/// Inside a task of parallel_for: on the calling thread (thread 0 of the
/// region), polls the interrupt callback and throws Interrupted (captured by
/// parallel_for and rethrown after the region); on other threads does
/// nothing. For tasks that run long on their own (e.g. one task's scan of
/// all centers).
inline void check_interrupt_in_task() {
#ifdef _OPENMP
  if (omp_in_parallel() && omp_get_thread_num() != 0) return;
#endif
  check_interrupt();
}

/// Work (roughly: floating point operations) below which a thread is not
/// worth waking: a parallel region costs microseconds when the cores are
/// free, but can cost a scheduler time slice (milliseconds) when another
/// process holds one, so small regions run on the calling thread.
constexpr double kMinWorkPerThread = 2e6;

/// Runs f(task) for every task in [0, n_tasks) on up to n_threads threads.
///
/// `work_per_task` (roughly in flops) caps the thread count at
/// total work / kMinWorkPerThread; the default never caps.
///
/// Tasks are handed out dynamically, so f must only write task-owned outputs
/// (see the determinism contract above). The first exception thrown by any
/// task is captured and rethrown after the region (nothing escapes a parallel
/// region); the remaining tasks are skipped. The calling thread polls the
/// interrupt callback between its tasks and throws vcgmm::Interrupted after
/// the region when asked to stop.
template <class F>
void parallel_for(index_t n_tasks, int n_threads, F&& f, double work_per_task = 1e300) {
  if (n_tasks <= 0) return;
  int nt = resolve_threads(n_threads);
  if (nt > n_tasks) nt = static_cast<int>(n_tasks);
  const double worth = static_cast<double>(n_tasks) * work_per_task / kMinWorkPerThread;
  if (worth < nt) nt = worth < 1.0 ? 1 : static_cast<int>(worth);

  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  bool interrupted = false;  // written by the calling thread only

  auto run_task = [&](index_t task) {
    if (stop.load(std::memory_order_relaxed)) return;
    try {
      f(task);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      stop.store(true, std::memory_order_relaxed);
    }
  };

  const RegionToken trace = open_region_trace(worth);
#ifdef _OPENMP
  if (nt > 1 && !trace.traced) {
    note_pool_started();
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (index_t task = 0; task < n_tasks; ++task) {
      if (omp_get_thread_num() == 0 && !interrupted && interrupt_requested()) {
        interrupted = true;
        stop.store(true, std::memory_order_relaxed);
      }
      run_task(task);
    }
  } else
#endif
  {
    for (index_t task = 0; task < n_tasks; ++task) {
      if (interrupt_requested()) {
        interrupted = true;
        break;
      }
      if (trace.record) {
        const auto t0 = std::chrono::steady_clock::now();
        run_task(task);
        trace.record->task_seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      } else {
        run_task(task);
      }
      if (stop.load(std::memory_order_relaxed)) break;
    }
  }
  close_region_trace(trace);
  if (error) std::rethrow_exception(error);
  if (interrupted) throw Interrupted();
}

/// Number of tasks of `chunk` items covering n items.
inline index_t n_chunks(index_t n, index_t chunk) { return (n + chunk - 1) / chunk; }

/// Seconds elapsed on the steady clock since construction.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace detail
}  // namespace vcgmm
