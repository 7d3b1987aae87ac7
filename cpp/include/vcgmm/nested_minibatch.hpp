// vcgmm: nested mini-batch k-means with distance bounds (nmbatch).
//
// Paper: Newling & Fleuret, "Nested mini-batch k-means", NIPS 2016 (Alg. 5
// with Alg. 1); grouped bounds: Ding et al., "Yinyang k-means", ICML 2015.
//
// Model: k-means, minimising sum_i w_i min_j ||x_i - c(j)||^2. The rows are
// shuffled once (nmbatch_sample_order); mini-batch M_t = the first b_t rows
// of that order, b_1 = b0, b_{t+1} in {b_t, min(2 b_t, n)}. Iteration t:
//   - reused rows (M_{t-1}): remove the row's old contribution, reassign it
//     by Alg. 1 -- the distance to its current center first, then every
//     other center j unless a lower bound l(i, j) on ||x_i - c(j)|| already
//     exceeds the best distance found -- and add its new contribution (one
//     sample, one vote: a row contributes only its latest assignment);
//   - new rows (M_t \ M_{t-1}): all C distances (the blocked matrix-product
//     scan, which also initialises their bounds), assign, add;
//   - c(j) = S(j) / v(j) (weighted sums over the rows of M_t assigned to j;
//     an empty cluster keeps its center); p(j) = ||c_new(j) - c_old(j)||;
//     every bound of a reused row drops by the p of its centers;
//   - double the batch when min_j sigma_C(j) / p(j) > rho (see rho);
//   - stop when M_t is all n rows, no row was new and no assignment changed
//     (a fixed point of Lloyd), after max_iter iterations, or when
//     time_budget seconds have passed.
// Ties go to the lowest center index. The bounds (NmbatchBounds) only skip
// distances: every choice gives the same centers and labels bit for bit.
//
// Cost: the first iterations cost b0 C d; later ones one distance per reused
// row plus what the bounds do not skip (counted: n_distance_evals.iterations
// computed, n_skipped ruled out by a bound), plus O(b_t C) (elkan) or
// O(b_t G) (yinyang) bound updates. Memory: the order (8 n bytes), labels and
// distances (12 n), the bounds (NmbatchBounds), O(C d) for centers and sums.
// Determinism: the order and the grouping come from streams keyed by the
// seed; rows are processed in tasks of fixed size, their sums in row order:
// results never depend on the thread count (a time budget that stops the run
// makes the result depend on the machine's speed).
// Use when: k-means of large, redundant data, to a Lloyd-quality result at a
// fraction of Lloyd's cost. Do not use for: small data (Lloyd is as fast,
// lloyd.hpp) or very high C with little memory (yinyang then skips less).
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm {

/// Distance bounds: float32, rounded so that they stay rigorous lower bounds
/// of the distances as computed. They only skip distances, never change a
/// result. automatic: elkan when n C 4 bytes fit in bounds_memory, else
/// yinyang with min(ceil(C / 10), bounds_memory / (4 n)) groups (at least 1;
/// Ding et al. use C / 10): 1.1 M rows at C = 4000 take 400 groups, about
/// 1.7 GiB of bounds.
enum class NmbatchBounds {
  automatic,  ///< elkan if it fits bounds_memory, else yinyang
  elkan,      ///< C bounds per row (Alg. 1; n C floats)
  /// One bound per group of centers (grouped by 5 Lloyd iterations on the
  /// initial centers); a group is searched only when its bound fails, then
  /// center by center with Ding et al.'s local test.
  yinyang,
  none,       ///< no bound test (every distance computed; the paper's test deactivated)
};

/// When nmbatch doubles its batch: ratio(j) = spread(j) / p(j), p(j) = how far
/// center j moved (+infinity when it did not).
enum class NmbatchDoubling {
  /// The paper's Alg. 5: min_j ratio(j) > rho, spread = sigma_C(j) (the
  /// standard error of the center, see rho; +infinity with < 2 rows).
  paper,
  /// The authors' code (eakmeans, gbmse_should_double): the median over the
  /// clusters of ratio(j) > rho, spread = sqrt(sse(j) / v(j)) (the rms
  /// distance of the rows to their center: sqrt(v) times sigma_C).
  median,
};

struct NmbatchParams {
  index_t batch_size = 0;       ///< b0 in [C, n]; 0: max(C, min(5000, n)) (the paper's b0)
  /// Doubling threshold, > 0 (+infinity allowed): the batch doubles when
  /// min_j sigma_C(j) / p(j) > rho, sigma_C(j)^2 = sse(j) / (v(j) (n_eff(j) - 1)),
  /// sse(j) = sum w d^2 of the rows assigned to j, n_eff = v^2 / sum w^2 (so
  /// unweighted the paper's v(j) (v(j) - 1)). A center that did not move, or with
  /// fewer than two rows, has ratio +infinity: rho = +infinity doubles only
  /// once no center moves (the batch converged: Sec. 3.2's "slow" scheme).
  double rho = 100.0;
  NmbatchDoubling doubling = NmbatchDoubling::paper;  ///< the doubling test (see rho)
  int max_iter = 1000;          ///< iterations, >= 1
  double time_budget = 0.0;     ///< seconds of iterations, >= 0 (0: no limit)
  NmbatchBounds bounds = NmbatchBounds::automatic;
  int n_groups = 0;             ///< Yinyang groups >= 1 (clamped to C); 0: automatic
  double bounds_memory = 2147483648.0;  ///< bytes the automatic choice may spend on bounds
  /// Spherical nmbatch (for rows of unit length, the cosine metric): every
  /// center S / v is rescaled to unit length before its move p(j) is taken,
  /// so the bounds stay exact (a center of norm zero keeps its position).
  bool spherical = false;
};

/// nmbatch as a pipeline. Seeding: "random" takes the first C rows of the
/// order (the paper's initialisation); a D^2 seeding (k-means++, AFK-MC^2)
/// runs on the first batch M_1.
struct NmbatchKMeansParams : PipelineParams {
  NmbatchParams nmbatch;
  NmbatchKMeansParams() {
    seeding.method = SeedingMethod::random;
    evaluate = true;
  }
};

/// Phase `iterations` of the costs: the distances computed (the skipped
/// ones are n_skipped).
struct NmbatchResult : IterationResult {
  NmbatchBounds bounds = NmbatchBounds::none;  ///< the bounds used (never automatic)
  int n_groups = 0;                ///< bounds per row (C for elkan, 0 for none)
  double bounds_bytes = 0.0;       ///< memory of the bounds for all n rows
  index_t batch_size = 0;          ///< b0 used
  std::int64_t n_skipped = 0;      ///< (row, center) distances ruled out by a bound
  std::vector<double> objective;   ///< per iteration: sum w d^2 over M_t (each row to its new
                                   ///< center, before the update) scaled to the total weight
  std::vector<double> seconds;     ///< per iteration: seconds since the iterations started
  std::vector<index_t> batch_sizes;             ///< per iteration: b_t
  std::vector<std::int64_t> computed;           ///< per iteration: distances computed
  std::vector<std::int64_t> skipped;            ///< per iteration: distances skipped
  std::vector<index_t> n_changed;               ///< per iteration: reused rows reassigned
};

/// The iterations' result, the costs of every phase and the inertia on all points.
struct NmbatchKMeansResult : NmbatchResult, EvaluationResult {};

/// Fits C centers by nmbatch.
///
/// @param data     IN  (n, d) points and optional weights
/// @param params   IN  see NmbatchKMeansParams
/// @param buffers  IN/OUT init_centers (IN, when seeding.method == given),
///                 centers (OUT, required), labels, coreset_indices,
///                 coreset_weights (OUT, optional)
template <typename T>
NmbatchKMeansResult fit_nmbatch(const DataView<T>& data, const NmbatchKMeansParams& params,
                                const FitBuffers<T>& buffers);

/// The order in which fit_nmbatch visits the n rows fitted under `seed`
/// (M_t = its first b_t entries).
///
/// @param order OUT (n,)
void nmbatch_sample_order(index_t n, std::uint64_t seed, index_t* order);

extern template NmbatchKMeansResult fit_nmbatch<float>(const DataView<float>&,
                                                       const NmbatchKMeansParams&,
                                                       const FitBuffers<float>&);
extern template NmbatchKMeansResult fit_nmbatch<double>(const DataView<double>&,
                                                        const NmbatchKMeansParams&,
                                                        const FitBuffers<double>&);

}  // namespace vcgmm
