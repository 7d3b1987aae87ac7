// vcgmm: mini-batch k-means (mbatch).
//
// Paper: Sculley, "Web-scale k-means clustering", WWW 2010, as the baseline
// "mbatch" of Newling & Fleuret, "Nested mini-batch k-means", NIPS 2016
// (Alg. 4 with Alg. 2 and 3).
//
// Model: k-means, minimising sum_i w_i min_j ||x_i - c(j)||^2. State: the
// centers c(j) and per-center counts v(j), the total weight of every
// assignment ever made to j plus 1 for the initial center (Alg. 2: the
// initial center counts as one sample of weight 1). One iteration: draw b
// rows uniformly with replacement (weights enter the sums, not the draws, as
// in scikit-learn); assign each to its nearest center (exact, the blocked
// matrix-product scan, centers fixed during the batch); then for every
// center c(j) <- (v(j) c(j) + sum_{i -> j} w_i x_i) / (v(j) + sum_{i -> j} w_i),
// which is Sculley's c = S / v with the per-center learning rate 1 / v
// (sums in double). mbatch has no convergence test: it runs max_iter
// batches (`converged` stays false).
//
// Incremental use (scikit-learn's partial_fit): mbatch_step() is one
// iteration on a batch the caller gives, with the state (centers, counts) in
// caller-owned arrays; fit_mbatch is exactly mbatch_step on the rows
// mbatch_batch_rows draws, so feeding those rows to mbatch_step reproduces
// a fit bit for bit.
//
// Cost per iteration: b C distance evaluations, O(b C d) flops; memory
// O(b d + C d) (the batch is gathered into its own array).
// Determinism: batch t is drawn from the stream keyed by (seed, t) (see
// mbatch_batch_rows); the assignment and the per-center sums never depend on
// the thread count.
// Use when: a quick k-means of very redundant data (each batch costs b C d,
// independent of n). Do not use for: a converged k-means solution (the
// centers keep fluctuating with the batches; nested_minibatch.hpp converges
// to a Lloyd fixed point at a fraction of Lloyd's cost).
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm {

/// MbatchParams::batch_size 0: min(this, n). With the early stop, of the
/// sizes measured (1024, 2048, 5000) the one that beats scikit-learn's
/// MiniBatchKMeans in error and time on every data set of
/// bench/users_data.py; the paper's b is 5000.
inline constexpr index_t kMbatchDefaultBatch = 2048;

struct MbatchParams {
  index_t batch_size = 0;  ///< b, 1 <= b <= n (rows fitted); 0: min(2048, n) (the paper's b: 5000)
  int max_iter = 100;      ///< batches, >= 1
  /// Spherical mini-batch k-means (for rows of unit length, the cosine
  /// metric): every updated center is rescaled to unit length (a center
  /// whose update has norm zero keeps its previous position).
  bool spherical = false;
  /// Centers updated by fewer than this fraction of the most updated one's
  /// weight move onto rows of the current batch (drawn by weight, without
  /// replacement, at most b/2), after every 10 C rows drawn; their count
  /// becomes the smallest kept count (scikit-learn's MiniBatchKMeans rule).
  /// Without it, centers seeded where the data are sparse stay there and the
  /// fit ends with clusters empty. 0: never (Sculley's and the paper's mbatch).
  double reassignment_ratio = 0.01;
  /// Early stop (scikit-learn's rule): stop once the exponentially weighted
  /// average of the batch objective per unit weight (smoothing 2 b / (n + 1),
  /// at most 1) has not reached a new minimum for this many batches in a row
  /// (converged). 0: always run max_iter batches (Sculley's and the paper's).
  int max_no_improvement = 10;
  /// sklearn: Sculley's per-center running mean (his, scikit-learn's and
  /// paper 002's mbatch); beta: alpha = sqrt(b_j / b), the rate paper 003
  /// tests on non-kernel mini-batch k-means (common.hpp). Counts accumulate
  /// with either (reassignment_ratio compares them).
  LearningRate learning_rate = LearningRate::sklearn;
};

/// mbatch as a pipeline: PipelineParams plus the iterations. A D^2 seeding
/// (k-means++, AFK-MC^2) runs on min(n, 3 max(b, C)) distinct rows drawn
/// uniformly (as scikit-learn's init_size); "random" picks C distinct rows of all data
/// (Sculley's and the paper's initialisation: on well-separated clusters it
/// leaves some split and others merged, bench/users_data.py).
struct MbatchKMeansParams : PipelineParams {
  MbatchParams mbatch;
  MbatchKMeansParams() {
    seeding.method = SeedingMethod::kmeans_plusplus;
    evaluate = true;
  }
};

/// Phase `iterations` of the costs: b C distance evaluations per iteration.
struct MbatchResult : IterationResult {
  index_t batch_size = 0;          ///< b used
  std::vector<double> objective;   ///< per iteration: the batch's weighted quantization error
                                   ///< (before its update) scaled to the total weight fitted,
                                   ///< an estimate of Q
  std::vector<double> seconds;     ///< per iteration: seconds since the iterations started
  std::vector<double> counts;      ///< (C,) the final v(j): with the centers, the state that
                                   ///< mbatch_step continues from
  index_t n_reassigned = 0;        ///< centers moved by MbatchParams::reassignment_ratio
  // converged: stopped by MbatchParams::max_no_improvement
};

/// The iterations' result, the costs of every phase and the inertia on all points.
struct MbatchKMeansResult : MbatchResult, EvaluationResult {};

/// Fits C centers by mini-batch k-means.
///
/// @param data     IN  (n, d) points and optional weights
/// @param params   IN  see MbatchKMeansParams
/// @param buffers  IN/OUT init_centers (IN, when seeding.method == given),
///                 centers (OUT, required), labels, coreset_indices,
///                 coreset_weights (OUT, optional)
template <typename T>
MbatchKMeansResult fit_mbatch(const DataView<T>& data, const MbatchKMeansParams& params,
                              const FitBuffers<T>& buffers);

/// What one mbatch_step did.
struct MbatchStepStats {
  double objective = 0.0;           ///< sum_i w_i min_j ||x_i - c(j)||^2 over the batch, before the update
  std::int64_t n_distance_evals = 0;  ///< b C
};

/// One mbatch iteration on the given batch (scikit-learn's partial_fit).
///
/// @param batch       IN  (b, d) rows and optional weights
/// @param n_clusters  IN  C >= 1
/// @param centers     IN/OUT (C, d) the centers
/// @param counts      IN/OUT (C,) v(j) > 0 (start with ones: Alg. 2)
/// @param labels      OUT (b,) nearest center (before the update) of every row, or nullptr
/// @param spherical   IN  rescale the updated centers to unit length (MbatchParams::spherical)
/// @param rate        IN  the step (MbatchParams::learning_rate)
template <typename T>
MbatchStepStats mbatch_step(const DataView<T>& batch, index_t n_clusters, T* centers,
                            double* counts, std::int32_t* labels, int n_threads,
                            bool spherical = false, LearningRate rate = LearningRate::sklearn);

/// The rows fit_mbatch draws in iteration t >= 1 (b rows of [0, n), uniform,
/// with replacement) under `seed`.
///
/// @param rows OUT (batch_size,)
void mbatch_batch_rows(index_t n, index_t batch_size, std::uint64_t seed, std::int64_t iteration,
                       index_t* rows);

// ---------------------------------------------------------------------------
// Streaming: fit_mbatch over data in chunks the caller reads one at a time
// (files, a zarr array, Dask blocks), so that the data are never in memory
// together. The caller owns the state (MbatchStream) and, once it knows
// every chunk's rows n_k (n = sum n_k):
//   1. mbatch_stream_start;
//   2. mbatch_stream_seeding_rows, gathers those rows of the concatenated
//      chunks (in that order, with their weights), mbatch_stream_seed;
//   3. per pass, mbatch_stream_plan for the next ceil(n / b) batches (at
//      most max_iter in all), then mbatch_stream_batches on every chunk
//      that has batches (each chunk read once per pass), until
//      MbatchStream::stopped or max_iter batches.
// Batch t draws its b rows uniformly, with replacement, from ONE chunk, the
// chunk picked with probability n_k / n from the stream keyed by (seed, t):
// every row is equally likely, as in fit_mbatch, and with a single chunk
// the result is fit_mbatch's bit for bit (same seeding rows, batches, early
// stop, reassignment). Rows of weight 0 must be left out by the caller (as
// fit_mbatch's callers do). Cost: fit_mbatch's, plus one read of each
// chunk that has batches per pass.
// Determinism: a batch depends on (seed, t) and the chunk it reads only;
// never on the thread count or on how the caller times its reads.

/// The state of a streaming fit, carried from call to call.
struct MbatchStream {
  index_t n = 0;               ///< rows fitted, over all chunks
  double total_weight = 0.0;   ///< their weight
  index_t n_clusters = 0;      ///< C
  MbatchResult result;         ///< batch_size, counts (the v(j)), objective, seconds, n_iter,
                               ///< converged, n_reassigned, costs: grows with every batch
  bool stopped = false;        ///< early stop (result.converged) or the progress callback
  // Early stop and reassignment (see MbatchParams).
  index_t rows_since_reassign = 0;
  double smoothed = 0.0;
  double best = 0.0;
  int without_improvement = 0;
  bool started = false;
};

/// The state before the first batch: b = MbatchParams::batch_size or
/// min(2048, n), counts all 1 (Alg. 2).
MbatchStream mbatch_stream_start(index_t n, double total_weight, index_t n_clusters,
                                 const MbatchParams& params);

/// The rows (of the concatenated chunks, in [0, n)) the seeding runs on, in
/// fit_mbatch's order: for a D^2 seeding min(n, 3 max(b, C)) distinct rows
/// (all rows when that is n), for "random" the C rows that become the centers.
/// Not for SeedingMethod::given (the caller has the centers).
std::vector<index_t> mbatch_stream_seeding_rows(index_t n, const MbatchKMeansParams& params);

/// The initial centers from the gathered seeding rows (fit_mbatch's seeding).
///
/// @param rows     IN  the rows mbatch_stream_seeding_rows named, in its order, with weights
/// @param params   IN  seeding, n_clusters, run (seed, threads, log, progress)
/// @param centers  OUT (C, d)
template <typename T>
SeedingStats mbatch_stream_seed(const DataView<T>& rows, const MbatchKMeansParams& params,
                                T* centers);

/// The chunk each of the batches t = first_iteration .. first_iteration +
/// n_batches - 1 draws from.
///
/// @param chunk_rows      IN  (n_chunks,) rows of each chunk (>= 0, sum >= 1)
/// @param chunk_of_batch  OUT (n_batches,)
void mbatch_stream_plan(const index_t* chunk_rows, index_t n_chunks, std::uint64_t seed,
                        std::int64_t first_iteration, index_t n_batches,
                        std::int32_t* chunk_of_batch);

/// Runs the batches `iterations` (in that order) on one chunk; stops early
/// when the state says so (MbatchStream::stopped).
///
/// @param chunk       IN  (n_k, d) the chunk's rows and optional weights (all > 0)
/// @param iterations  IN  (n_batches,) batch numbers t >= 1 that mbatch_stream_plan gave this chunk
/// @param params      IN  the iterations' parameters (max_iter is the caller's to enforce)
/// @param run         IN  seed, threads, log, progress
/// @param centers     IN/OUT (C, d)
/// @param state       IN/OUT see MbatchStream
template <typename T>
void mbatch_stream_batches(const DataView<T>& chunk, const std::int64_t* iterations,
                           index_t n_batches, const MbatchParams& params, const RunOptions& run,
                           T* centers, MbatchStream* state);

extern template MbatchKMeansResult fit_mbatch<float>(const DataView<float>&,
                                                     const MbatchKMeansParams&,
                                                     const FitBuffers<float>&);
extern template MbatchKMeansResult fit_mbatch<double>(const DataView<double>&,
                                                      const MbatchKMeansParams&,
                                                      const FitBuffers<double>&);
extern template MbatchStepStats mbatch_step<float>(const DataView<float>&, index_t, float*,
                                                   double*, std::int32_t*, int, bool,
                                                   LearningRate);
extern template MbatchStepStats mbatch_step<double>(const DataView<double>&, index_t, double*,
                                                    double*, std::int32_t*, int, bool,
                                                    LearningRate);
extern template SeedingStats mbatch_stream_seed<float>(const DataView<float>&,
                                                       const MbatchKMeansParams&, float*);
extern template SeedingStats mbatch_stream_seed<double>(const DataView<double>&,
                                                        const MbatchKMeansParams&, double*);
extern template void mbatch_stream_batches<float>(const DataView<float>&, const std::int64_t*,
                                                  index_t, const MbatchParams&,
                                                  const RunOptions&, float*, MbatchStream*);
extern template void mbatch_stream_batches<double>(const DataView<double>&, const std::int64_t*,
                                                   index_t, const MbatchParams&,
                                                   const RunOptions&, double*, MbatchStream*);

}  // namespace vcgmm
