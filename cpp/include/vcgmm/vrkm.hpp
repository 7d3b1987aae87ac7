// vcgmm: variance-reduced k-means (VRKM and VRKM++).
//
// Paper: Zhao, Ming, Liu, Zhu, Zhao & Yin, "Large-scale k-means clustering
// via variance reduction", Neurocomputing 2018 (Alg. 2, 3 and 4).
//
// Model: k-means, minimising sum_i w_i min_j ||x_i - c(j)||^2. Epoch e:
//   1. full pass: every row's nearest center of C~ (the blocked scan), giving
//      the reference labels a_ref(i), the partition X_j and the exact
//      Q(C~) (the objective trace); an empty cluster moves onto one of the
//      points farthest from their centers (relocate_empty, as Lloyd's loop;
//      not in the paper: at learning rates near 1 its updates can empty most
//      clusters); stop when |Q_{e-1} - Q_e| <= tol Q_e and none moved;
//   2. position correction: C_0 = C~new = the partition's weighted means
//      (VRKM++, eq. 8), or C~ - grad f~(C~) (VRKM, Alg. 2; the gradient from
//      the partition's sums): the same centers up to rounding; an empty
//      cluster keeps its center;
//   3. T single-row updates with the constant learning rate eta: draw i
//      (uniformly; with sample weights, proportionally to w_i), find its
//      nearest center a of C_t; if a != a_ref(i):
//         c_a   -= eta (c_a - x_i)
//         c_ref += eta (c~new_ref - x_i)
//      (VRKM also subtracts eta grad f~(C~new) from every center: zero at the
//      means up to rounding, O(C d) per update -- the cost VRKM++ saves);
//      if a == a_ref(i): c_a += eta (c~new_a - c_a) (update_rule = svrg:
//      Alg. 3/4 as written, whose test compares center vectors, x{C_t} !=
//      x{C~new}: the SVRG step, also the authors' code), or no change
//      (label_change: a step only when the label changed);
//   4. C~ = C_T.
// Defaults: T = n, eta = C / n (the paper's conservative choice), k-means++
// seeding. VRKM and VRKM++ produce the same iterates up to rounding (the
// paper's equivalence), VRKM at a higher cost. The inner loop is sequential
// as in the paper unless block_size > 1.
//
// Cost per epoch: n C + T C distance evaluations (full pass + inner loop);
// the inner loop's per-row search runs at vector (not matrix-product) speed
// unless blocked. Memory O(n) (labels) + O(C d), plus O(min(B, T) d) when
// blocked; the epoch's draws are produced in pieces, whatever T.
// Determinism: epoch e's draws come from the stream keyed by (seed, e);
// results never depend on the thread count.
// Use when: reproducing the paper, or k-means with a cheap per-row search.
// Do not use for: beating a matrix-product Lloyd at moderate C (the
// stochastic loop cannot use matrix products unless blocked; lloyd.hpp,
// nested_minibatch.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm {

enum class VrkmVariant {
  vrkm_plus_plus,  ///< Alg. 4: position correction by the partition means
  vrkm,            ///< Alg. 3: by the batch gradient, added at every update
};

enum class VrkmUpdateRule {
  svrg,          ///< Alg. 3/4 as written (and the authors' code): pull c_a towards c~new_a
  label_change,  ///< no change when the label equals the reference label
};

struct VrkmParams {
  VrkmVariant variant = VrkmVariant::vrkm_plus_plus;
  double learning_rate = 0.0;  ///< eta in (0, 1]; 0: C / n (the paper's)
  index_t epoch_size = 0;      ///< T >= 1 updates per epoch; 0: n
  int max_epochs = 100;        ///< epochs (inner loops), >= 1
  double tol = 1e-4;           ///< relative change of Q between epochs that stops (>= 0)
  VrkmUpdateRule update_rule = VrkmUpdateRule::svrg;
  /// 1: the paper's sequential inner loop (each draw searches all C centers,
  /// O(C d), one thread). B > 1 (not in the paper): the nearest centers of B
  /// draws come from one matrix product against the centers at the block's
  /// start (all threads), the updates are then applied in draw order; labels
  /// may go stale within a block (eta is small, so centers move little): the
  /// result differs from the sequential loop's within noise. A block beyond
  /// the epoch size is the epoch.
  index_t block_size = 1;
  /// Empty clusters of a full pass move onto the farthest points (not in the
  /// paper; false: the paper's loop, an empty cluster keeps its center).
  bool relocate_empty = true;
};

/// VRKM / VRKM++ as a pipeline (default seeding: k-means++; the paper starts
/// from random rows).
struct VrkmKMeansParams : PipelineParams {
  VrkmParams vrkm;
  VrkmKMeansParams() {
    seeding.method = SeedingMethod::kmeans_plusplus;
    evaluate = true;
  }
};

/// Phase `iterations` of the costs: n C + T C distance evaluations per epoch.
struct VrkmResult : IterationResult {
  double learning_rate = 0.0;      ///< eta used
  index_t epoch_size = 0;          ///< T used
  std::vector<double> objective;   ///< per epoch: exact Q of the centers at its start (the
                                   ///< initial centers first), from the full pass
  std::vector<double> seconds;     ///< per epoch: when those centers were reached (0 for the
                                   ///< initial ones), seconds since the iterations started
  std::vector<std::int64_t> n_updates;  ///< per epoch: inner steps that moved centers
  double full_pass_seconds = 0.0;  ///< time of the full passes (matrix products)
  double correction_seconds = 0.0; ///< time of the position corrections
  double inner_loop_seconds = 0.0; ///< time of the inner loops
  index_t n_relocated = 0;         ///< empty clusters relocated, summed over epochs
};

/// The iterations' result, the costs of every phase and the inertia on all points.
struct VrkmKMeansResult : VrkmResult, EvaluationResult {};

/// Fits C centers by VRKM or VRKM++.
///
/// @param data     IN  (n, d) points and optional weights
/// @param params   IN  see VrkmKMeansParams
/// @param buffers  IN/OUT init_centers (IN, when seeding.method == given),
///                 centers (OUT, required), labels, coreset_indices,
///                 coreset_weights (OUT, optional)
template <typename T>
VrkmKMeansResult fit_vrkm(const DataView<T>& data, const VrkmKMeansParams& params,
                          const FitBuffers<T>& buffers);

/// The rows the inner loop of epoch e >= 1 draws (T rows of [0, n); with
/// weights w (n,), proportionally to them) under `seed`.
///
/// @param rows OUT (epoch_size,)
void vrkm_epoch_rows(index_t n, const double* w, index_t epoch_size, std::uint64_t seed,
                     std::int64_t epoch, index_t* rows);

extern template VrkmKMeansResult fit_vrkm<float>(const DataView<float>&, const VrkmKMeansParams&,
                                                 const FitBuffers<float>&);
extern template VrkmKMeansResult fit_vrkm<double>(const DataView<double>&,
                                                  const VrkmKMeansParams&,
                                                  const FitBuffers<double>&);

}  // namespace vcgmm
