// vcgmm: the k-means pipelines of the papers' baselines, in one call.
//
//   "k-means++" (000_bd19523839359b5b.txt, Table 1): D^2 seeding + Lloyd on
//       the full data (coreset_size = 0, init = kmeans_plusplus);
//   "LWCS": lightweight coreset of size N' + AFK-MC^2 seeding on the coreset +
//       weighted Lloyd on the coreset (coreset_size = N', init = afkmc2).
// Any other combination works too (e.g. AFK-MC^2 on the full data, or given
// initial centers).
//
// Phases and their costs are reported separately: coreset, seeding, Lloyd
// iterations, and the evaluation on the full data (final labels and the
// quantization error, "inertia"), which is not part of the algorithm's cost.
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {

enum class KMeansInit {
  kmeans_plusplus,  ///< D^2 sampling (kmeans_plusplus.hpp)
  afkmc2,           ///< AFK-MC^2 (afkmc2.hpp)
  given,            ///< the caller's centers
};

struct KMeansParams {
  index_t n_clusters = 8;                     ///< C >= 1
  KMeansInit init = KMeansInit::kmeans_plusplus;
  index_t coreset_size = 0;                   ///< N' >= C: fit on a lightweight coreset; 0: on all points
  int chain_length = 20;                      ///< AFK-MC^2 chain length m
  int n_local_trials = 1;                     ///< k-means++ candidates per step (1: plain D^2)
  int max_iter = 300;                         ///< Lloyd iterations at most
  double tol = 1e-4;                          ///< Lloyd: relative change of the objective
  bool relocate_empty = true;                 ///< Lloyd: move empty clusters onto far points
  bool evaluate = true;                       ///< compute inertia (and labels, if asked) on all points
  std::uint64_t seed = 0;                     ///< random seed (coreset, seeding)
  int n_threads = 0;                          ///< threads (<= 0: OpenMP's default)
  Logger log;                                 ///< progress lines, or empty
};

struct KMeansResult {
  std::vector<double> objective;  ///< Lloyd objective per iteration (on the coreset if one is used)
  int n_iter = 0;
  bool converged = false;
  index_t n_relocated = 0;        ///< empty clusters relocated
  double inertia = 0.0;           ///< sum_i w_i min_c ||x_i - c||^2 on all points (if evaluate)
  DistanceCounts n_distance_evals;
  PhaseTimes seconds;
};

/// Fits C centers.
///
/// @param data             IN  (n, d) points and optional weights
/// @param init_centers     IN  (C, d) when params.init == given, else ignored (may be nullptr)
/// @param centers          OUT (C, d) final centers
/// @param labels           OUT (n,) nearest final center of every point, or nullptr
///                         (computed only with params.evaluate)
/// @param coreset_indices  OUT (coreset_size,) or nullptr
/// @param coreset_weights  OUT (coreset_size,) or nullptr
template <typename T>
KMeansResult fit_kmeans(const DataView<T>& data, const KMeansParams& params,
                        const nondeduced_t<T>* init_centers, nondeduced_t<T>* centers,
                        std::int32_t* labels, index_t* coreset_indices,
                        double* coreset_weights);

extern template KMeansResult fit_kmeans<float>(const DataView<float>&, const KMeansParams&,
                                               const float*, float*, std::int32_t*, index_t*,
                                               double*);
extern template KMeansResult fit_kmeans<double>(const DataView<double>&, const KMeansParams&,
                                                const double*, double*, std::int32_t*, index_t*,
                                                double*);

}  // namespace vcgmm
