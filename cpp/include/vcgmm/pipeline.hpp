// vcgmm: the parameters, buffers and result every one-call pipeline shares.
//
// A pipeline (fit_kmeans, fit_vcgmm, fit_mbatch, fit_nmbatch, fit_vrkm) runs
// the same stages around its own iterations:
//
//   1. coreset    (optional) a lightweight coreset of `coreset_size` weighted
//                 points stands in for X (lightweight_coreset.hpp);
//   2. seeding    k-means++, AFK-MC^2 or the caller's centers, on the points
//                 fitted (kmeans_plusplus.hpp, afkmc2.hpp);
//   3. iterations the algorithm itself (Lloyd, truncated variational EM, ...);
//   4. evaluation (optional) exact labels and quantization error of ALL n
//                 points with the final centers (assignment.hpp), reported as
//                 its own phase: it is not part of the algorithm's cost.
//
// Each algorithm's params struct derives from PipelineParams and adds one
// nested struct of its own (KMeansParams::lloyd, VcgmmParams::em), the way
// faiss' Clustering derives from ClusteringParameters: a parameter has one
// home, and nothing is copied between structs.
//
// Cost: the stages' own (see their headers); the evaluation adds O(n C d)
// and n C distance evaluations. Memory: the caller's buffers plus the stages'.
// Determinism: every stage draws from its own stream keyed by run.seed; the
// result does not depend on run.n_threads.
// Use when / not: see each algorithm's header; this one only declares types.
#pragma once

#include <cmath>
#include <cstdint>

#include "vcgmm/afkmc2.hpp"
#include "vcgmm/common.hpp"
#include "vcgmm/kmeans_plusplus.hpp"

namespace vcgmm {

enum class SeedingMethod {
  kmeans_plusplus,  ///< D^2 sampling (kmeans_plusplus.hpp)
  afkmc2,           ///< AFK-MC^2 (afkmc2.hpp)
  given,            ///< the caller's centers (FitBuffers::init_centers)
  random,           ///< C distinct rows drawn uniformly (weights ignored): the
                    ///< initialisation of Sculley's mbatch and of nmbatch (its
                    ///< first C samples after the shuffle); no distance evaluations
  automatic,        ///< kmeans_plusplus up to kAutoSeedingMaxClusters, afkmc2 above
                    ///< (resolve_seeding)
};

/// Largest C for which SeedingMethod::automatic means k-means++. k-means++ on
/// N' points costs N' C L evaluations (C^2 with the default coreset of ~64 C
/// points), AFK-MC^2 about m C^2 / 2: k-means++ seeds better at a few hundred
/// clusters and costs several EM loops at thousands (docs/user_guide/parameters.rst).
constexpr index_t kAutoSeedingMaxClusters = 500;

/// The method `method` stands for with C clusters (automatic resolved).
inline SeedingMethod resolve_seeding(SeedingMethod method, index_t n_clusters) {
  if (method != SeedingMethod::automatic) return method;
  return n_clusters <= kAutoSeedingMaxClusters ? SeedingMethod::kmeans_plusplus
                                               : SeedingMethod::afkmc2;
}

struct SeedingParams {
  SeedingMethod method = SeedingMethod::afkmc2;
  KMeansPlusPlusParams kmeans_plusplus;  ///< used when method == kmeans_plusplus
  Afkmc2Params afkmc2;                   ///< used when method == afkmc2
};

struct PipelineParams {
  index_t n_clusters = 8;     ///< C >= 1 (the mixture's n_components)
  index_t coreset_size = 0;   ///< N' >= C: fit on a lightweight coreset; 0: on all points
  SeedingParams seeding;
  bool evaluate = false;      ///< inertia on all points (always done when labels are asked for)
  RunOptions run;             ///< seed, threads, progress
};

/// The caller-owned buffers of a pipeline. Only `centers` is required.
template <typename T>
struct FitBuffers {
  const T* init_centers = nullptr;      ///< IN  (C, d) when seeding.method == given
  T* centers = nullptr;                 ///< OUT (C, d) the final centers
  std::int32_t* labels = nullptr;       ///< OUT (n,) exact nearest final center of every point, or nullptr
  index_t* coreset_indices = nullptr;   ///< OUT (coreset_size,) or nullptr
  double* coreset_weights = nullptr;    ///< OUT (coreset_size,) or nullptr
};

/// What every pipeline reports besides its iterations' own results.
struct EvaluationResult {
  /// sum_i w_i min_c ||x_i - c||^2 over all n points with the final centers,
  /// when evaluated (params.evaluate or labels asked for); NaN otherwise.
  double inertia = NAN;
};

}  // namespace vcgmm
