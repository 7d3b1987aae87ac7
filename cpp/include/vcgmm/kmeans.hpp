// vcgmm: the k-means pipelines of the papers' baselines, in one call.
//
// Papers: the baselines of vc-GMM's Table 1 (Hirschberger, Forster & Luecke,
// arXiv 2018 / IEEE TPAMI 2022):
//   "k-means++" (Arthur & Vassilvitskii, SODA 2007): D^2 seeding + Lloyd on
//       the full data (coreset_size = 0, seeding.method = kmeans_plusplus);
//   "LWCS" (Bachem, Lucic & Krause, KDD 2018): lightweight coreset of size
//       N' + AFK-MC^2 seeding on the coreset + weighted Lloyd on the coreset
//       (coreset_size = N', seeding.method = afkmc2).
// Any other combination works too (e.g. AFK-MC^2 on the full data, or given
// initial centers).
//
// Cost: the stages of pipeline.hpp, each reported separately: coreset O(n d),
// seeding (kmeans_plusplus.hpp, afkmc2.hpp), O(N C d) per Lloyd iteration on
// the N points fitted (n, or N' on a coreset; later iterations often far
// less, lloyd.hpp), and the evaluation on the full data (final labels and the
// quantization error, "inertia"), O(n C d), which is not part of the
// algorithm's cost (without a coreset it starts from Lloyd's last labels and
// often costs far less). Memory O(n) plus the buffers.
// Determinism: as pipeline.hpp: the same run.seed gives the same centers on
// any thread count.
// Use when: a k-means solution by the classic algorithms, or a baseline.
// Do not use for: large n and C on all points (every Lloyd iteration costs
// n C d): use the LWCS configuration, nested_minibatch.hpp or vc_gmm.hpp.
#pragma once

#include <cstdint>

#include "vcgmm/common.hpp"
#include "vcgmm/lloyd.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm {

/// The k-means pipeline: PipelineParams (clusters, coreset, seeding,
/// evaluation, run options) plus the Lloyd iterations.
struct KMeansParams : PipelineParams {
  LloydParams lloyd;
  KMeansParams() {
    seeding.method = SeedingMethod::kmeans_plusplus;  // the papers' "k-means++" baseline
    evaluate = true;
  }
};

/// Lloyd's result on the points fitted (objective trace on the coreset if one
/// is used), the costs of every phase, and the inertia on all points.
struct KMeansResult : LloydResult, EvaluationResult {};

/// Fits C centers.
///
/// @param data     IN  (n, d) points and optional weights
/// @param params   IN  see KMeansParams
/// @param buffers  IN/OUT init_centers (IN, when seeding.method == given),
///                 centers (OUT, required), labels, coreset_indices,
///                 coreset_weights (OUT, optional)
template <typename T>
KMeansResult fit_kmeans(const DataView<T>& data, const KMeansParams& params,
                        const FitBuffers<T>& buffers);

extern template KMeansResult fit_kmeans<float>(const DataView<float>&, const KMeansParams&,
                                               const FitBuffers<float>&);
extern template KMeansResult fit_kmeans<double>(const DataView<double>&, const KMeansParams&,
                                                const FitBuffers<double>&);

}  // namespace vcgmm
