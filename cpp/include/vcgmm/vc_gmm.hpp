// vcgmm: vc-GMM and var-GMM-S in one call -- the headline algorithm.
//
// Paper: Hirschberger, Forster & Luecke, "Accelerated training of large-scale
// Gaussian mixtures by a merger of sublinear approaches", arXiv 2018; extended
// in IEEE TPAMI 2022 (Alg. 1). var-GMM-S: Forster & Luecke, AISTATS 2018.
//
//   vc-GMM    = lightweight coreset of N' points (lightweight_coreset.hpp;
//               when the C means take >= 32 MiB, its rows fitted in the order
//               of their nearest of ceil(sqrt(C)) evenly strided coreset rows,
//               so that consecutive points reuse nearby means in cache; the
//               coreset is reported in its own order)
//             + AFK-MC^2 seeding on the coreset (afkmc2.hpp; by default
//               greedy k-means++ up to kAutoSeedingMaxClusters clusters)
//             + the truncated variational EM loop on the coreset with the
//               coreset weights (variational_gmm.hpp);
//   var-GMM-S = the same seeding and loop on all N points with the sample
//               weights (coreset_size = 0). One implementation, not two.
// The model: C isotropic Gaussians (means + one shared variance by default).
//
// Cost: O(N D) for the coreset (+ O(N' sqrt(C) D) for its order), O(N' D +
// m C^2 D) for AFK-MC^2 (O(N' C L D) for k-means++ with L candidates per step),
// O(N' G^2 D) per EM iteration -- independent of N and, per iteration, of C.
// The optional evaluation (labels and quantization error on the full data)
// costs O(N C D) and is reported as its own phase. Memory: O(N) for the
// coreset, then that of variational_gmm.hpp on the N' points.
// Determinism: every stage draws from streams keyed by run.seed (pipeline.hpp);
// results do not depend on the thread count.
// Use when: many clusters (C in the hundreds and more) on large data, an
// approximate GMM / k-means solution fast. Do not use for: small C or small
// data, where exact EM or Lloyd is cheap (kmeans.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"
#include "vcgmm/pipeline.hpp"
#include "vcgmm/variational_gmm.hpp"

namespace vcgmm {

/// vc-GMM (coreset_size > 0) or var-GMM-S (coreset_size == 0): PipelineParams
/// plus the variational loop. n_clusters is the number of components C.
struct VcgmmParams : PipelineParams {
  VariationalGmmParams em;
  /// Hard (Lloyd) steps on ALL n points after the loop on the coreset and its
  /// refinement (>= 0; 0: the papers' vc-GMM): every point's nearest mean by
  /// the cell index (approximate_assignment.hpp, probing 4 cells in the
  /// first step, 1 or 2 where a sample of the rows finds as near labels with
  /// them, and 2 in later ones; the previous step's label where nearer,
  /// so no step raises the error; a later step takes every point's exact
  /// nearest mean instead, walking out from its previous label, where that
  /// is estimated to cost less: well-separated clusters), every mean to the
  /// weighted mean of its points, then a round of split-merge moves on all
  /// points (em.split_merge; without it empty clusters onto the farthest
  /// points first); then the variances are refitted on the coreset (see
  /// RefineSearch). About
  /// O(n sqrt(C) d) per step (the coarse centers plus the probed cells of
  /// about sqrt(C) means each), the refinement phase's time and
  /// evaluations. Ignored without a coreset (coreset_size = 0: the refinement
  /// already runs on all points). Why: a coreset of a few points per cluster
  /// places the means for the coreset, not for the data; one step on all
  /// points lowered the error on every kind of data measured for a few
  /// percent more time (docs/user_guide/parameters.rst).
  int data_steps = 1;
  /// automatic: greedy k-means++ at up to kAutoSeedingMaxClusters clusters,
  /// AFK-MC^2 above (the papers: afkmc2 at every C).
  VcgmmParams() { seeding.method = SeedingMethod::automatic; }
};

/// The loop's result (free-energy trace on the coreset, sigma^2, effective
/// G), the costs of every phase, and the inertia on all points.
struct VcgmmResult : VariationalGmmResult, EvaluationResult {
  /// Weighted quantization error on all n points of every data step's
  /// labels, with the means before that step's update.
  std::vector<double> data_step_objective;
  /// Empty clusters moved in every data step: given a half of a split
  /// (split_merge), or onto far points.
  std::vector<index_t> data_step_relocated;
  /// Split-merge pairs moved after every data step (split_merge).
  std::vector<index_t> data_step_split_merges;
  /// Empty clusters left empty (their means stay) in every data step: every
  /// other point sits on its mean, so the data have fewer distinct points
  /// than clusters.
  std::vector<index_t> data_step_left_empty;
};

/// Fits C isotropic Gaussians (means + one shared variance).
///
/// @param data     IN  (n, d) points and optional weights
/// @param params   IN  see VcgmmParams
/// @param buffers  IN/OUT init_centers (IN, when seeding.method == given),
///                 centers (OUT, required: the means), labels,
///                 coreset_indices, coreset_weights (OUT, optional)
template <typename T>
VcgmmResult fit_vcgmm(const DataView<T>& data, const VcgmmParams& params,
                      const FitBuffers<T>& buffers);

extern template VcgmmResult fit_vcgmm<float>(const DataView<float>&, const VcgmmParams&,
                                             const FitBuffers<float>&);
extern template VcgmmResult fit_vcgmm<double>(const DataView<double>&, const VcgmmParams&,
                                              const FitBuffers<double>&);

}  // namespace vcgmm
