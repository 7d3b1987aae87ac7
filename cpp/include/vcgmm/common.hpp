// vcgmm: shared types of the public C++ API.
//
// Conventions used by every algorithm header:
//  - data are dense row-major arrays: X of shape (n, d) is `x[i * d + j]`;
//  - T is float or double (both explicitly instantiated in the library);
//  - sample weights are double, positive, optional (nullptr = all ones);
//  - cluster ids are int32, point indices are int64 (index_t);
//  - outputs with a size known before the call are written into caller-owned
//    buffers (so the Python binding can allocate them before releasing the
//    GIL); variable-sized outputs (traces) live in the returned result struct;
//  - parameters are plain structs with documented defaults, one per algorithm,
//    composed of the shared ones below (RunOptions) and in pipeline.hpp
//    (PipelineParams, SeedingParams); how to run (seed, threads, progress) is
//    always a RunOptions, never repeated per algorithm;
//  - every result reports its cost per phase (PhaseCosts: distance
//    evaluations and wall time);
//  - public functions check their arguments once (vcgmm::InvalidArgument);
//    the internal kernels they call do not re-check. A Ctrl-C observed through
//    the interrupt callback throws vcgmm::Interrupted.
//
// Determinism: `n_threads <= 0` means "all threads OpenMP would use by
// default". Results never depend on the thread count: work is split into
// tasks of fixed boundaries, sums are combined in task order, and random
// draws come from streams keyed by RunOptions::seed and their purpose, never
// by thread (docs/user_guide/determinism.rst).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vcgmm {

/// Index of a data point (row of X). Signed, 64 bit: N may exceed 2^31.
using index_t = std::int64_t;

/// Read-only view of a weighted data set: X of shape (n, d), row-major, and
/// optional sample weights w of shape (n,).
template <typename T>
struct DataView {
  const T* x = nullptr;       ///< (n, d) row-major
  index_t n = 0;              ///< number of points
  index_t d = 0;              ///< number of features
  /// (n,) weights > 0 (>= 0 for assign_nearest / quantization_error), or
  /// nullptr for unit weights
  const double* w = nullptr;

  const T* row(index_t i) const { return x + i * d; }
  double weight(index_t i) const { return w ? w[i] : 1.0; }
};

/// Thrown for arguments that violate a documented precondition.
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Thrown when the interrupt callback (see interrupt.hpp) asked to stop.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("vcgmm: computation interrupted") {}
};

/// Receives one line of progress text per phase / iteration (verbose mode).
/// Called only from the thread that called the algorithm, never concurrently.
using Logger = std::function<void(const std::string&)>;

/// One structured progress report (see ProgressCallback).
struct ProgressRecord {
  const char* algorithm = "";  ///< "lloyd", "vc-gmm", "mbatch", "nmbatch", "vrkm", "kernel-kmeans"
  const char* phase = "";      ///< "coreset", "seeding", "iterations", "refinement", "evaluation"
  int iteration = 0;           ///< 1-based iteration (VRKM: epoch) in "iterations"/"refinement"; 0 at a phase's end
  double objective = 0.0;      ///< the algorithm's objective after it (NaN if the phase has none)
  double seconds = 0.0;        ///< wall time since the phase started
  std::int64_t distance_evals = 0;  ///< distance (kernel) evaluations of the phase so far
};

/// Receives a ProgressRecord after every iteration of an algorithm's main loop
/// and at the end of the coreset, seeding and evaluation phases, on the
/// calling thread, never concurrently. Returning true after an iteration stops
/// the loop there: the result is that of the iterations done, with
/// converged = false. The return value at a phase's end is ignored.
/// `objective` is each loop's own: Lloyd, nmbatch and vc-GMM's refinement
/// report the quantization error of the iteration's assignment, mbatch its
/// batch's (scaled to the data's weight), VRKM the full-data one measured at
/// the start of the epoch, vc-GMM's EM its free energy, kernel k-means its
/// (batch) objective.
using ProgressCallback = std::function<bool(const ProgressRecord&)>;

/// The step of a mini-batch update (mbatch, kernel k-means): center j, which
/// won b_j of the batch's b points (weighted: their weights' sums), moves by
/// C_j <- (1 - alpha) C_j + alpha mean(its batch points).
enum class LearningRate {
  beta,     ///< alpha = sqrt(b_j / b) (Schwartzman, ICLR 2023)
  sklearn,  ///< alpha = b_j / (points assigned to j so far, this batch included) (Sculley 2010)
};

/// How to run an algorithm: its random seed, its threads and where its
/// progress goes. Every public function takes one.
struct RunOptions {
  std::uint64_t seed = 0;  ///< random seed (the same seed gives the same result on any thread count)
  int n_threads = 0;       ///< threads (<= 0: OpenMP's default); at most 4 per CPU, fewer under ulimit -v
  Logger log;              ///< progress lines, or empty
  ProgressCallback progress;  ///< structured progress (and a way to stop), or empty
};

/// One value per phase of a fit, summed by += when a pipeline adds up the
/// phases it ran.
template <typename V>
struct PerPhase {
  V coreset{};     ///< lightweight-coreset construction
  V seeding{};     ///< k-means++ / AFK-MC^2
  V iterations{};  ///< Lloyd assignments / variational E-steps
  V refinement{};  ///< hard refinement steps after EM (vc-GMM's `refine`)
  V evaluation{};  ///< final labels and quantization error on the full data
  /// The algorithm itself: coreset + seeding + iterations + refinement.
  V algorithm() const { return coreset + seeding + iterations + refinement; }
  PerPhase& operator+=(const PerPhase& o) {
    coreset += o.coreset;
    seeding += o.seeding;
    iterations += o.iterations;
    refinement += o.refinement;
    evaluation += o.evaluation;
    return *this;
  }
};

/// Distance evaluations per phase, counted the way the papers count them: one
/// d(x, c) between a point and a center is one evaluation, also when it comes
/// out of a matrix product. Evaluating the final labels/quality on the full
/// data is reported separately (it is not part of the algorithm's cost).
using DistanceCounts = PerPhase<std::int64_t>;

/// Wall time per phase, in seconds (steady clock).
using PhaseTimes = PerPhase<double>;

/// What every result reports: its cost per phase. A building block fills its
/// own phase (a coreset `coreset`, a seeding `seeding`, Lloyd or EM
/// `iterations`); a pipeline adds up the phases it ran.
struct PhaseCosts {
  DistanceCounts n_distance_evals;
  PhaseTimes timings;  ///< wall time per phase, in seconds (steady clock)
  PhaseCosts& operator+=(const PhaseCosts& o) {
    n_distance_evals += o.n_distance_evals;
    timings += o.timings;
    return *this;
  }
};

/// The result of an iterative algorithm (Lloyd, EM).
struct IterationResult : PhaseCosts {
  int n_iter = 0;          ///< iterations run
  bool converged = false;  ///< stopped by its convergence rule (not by max_iter)
};

/// Cost of a seeding run (k-means++ or AFK-MC^2): phase `seeding`.
struct SeedingStats : PhaseCosts {};

/// True in a process forked (fork() without exec) from a parent that had
/// started OpenMP threads: OpenMP's thread pool does not survive fork, so
/// there every computation runs on one thread (same results, more time).
bool single_threaded_after_fork();

/// The threads `n_threads <= 0` stands for: OpenMP's default (OMP_NUM_THREADS
/// if set, else the CPUs this process may use); 1 after fork (see above) and
/// without OpenMP.
int default_threads();

/// One parallel region of a run on one thread, as recorded for replay
/// (benchmarks: bench/vcgmm_threads.py --replay schedules the tasks on p
/// threads the way the region would hand them out).
struct RegionTrace {
  double start = 0.0;  ///< steady-clock seconds at entry
  double end = 0.0;    ///< and at exit
  /// The region's work over the least worth a thread (the thread cap before
  /// rounding: min(p, tasks, worth) threads would run it, 1 below 1).
  double worth = 0.0;
  std::vector<double> task_seconds;  ///< (tasks,) each task's wall time, in task order
};

/// Starts recording the outermost parallel regions on the calling thread;
/// clears an earlier record. While on, every region called from this thread
/// runs its tasks on it one after the other, whatever n_threads says (the
/// algorithms still choose the paths of that thread count, beyond this
/// machine's cap on threads; results are the same bits), and each task costs
/// two clock reads. Benchmarks only; start and stop between calls into the
/// library.
void start_region_trace();

/// Stops recording and returns the regions in the order they ran.
std::vector<RegionTrace> stop_region_trace();

/// The number of the n values x[0..n) outside [-limit, limit] (NaN and
/// infinities count), one pass on n_threads threads (<= 0: the default). The
/// data check of callers that validate values before computing with them:
/// the Python layer's finiteness and magnitude test of X and the centers,
/// without a copy and without waking a BLAS library's threads. Defined for
/// float and double.
template <typename T>
index_t count_outside(const T* x, index_t n, double limit, int n_threads = 0);

/// Library version "major.minor.patch" (from CMakeLists.txt).
const char* version();

/// True when the library was compiled with OpenMP (multithreading available).
bool have_openmp();

/// Name of the instruction-set level this library was compiled for
/// ("generic", "avx2", "avx512" or "native").
const char* compiled_arch();

}  // namespace vcgmm
