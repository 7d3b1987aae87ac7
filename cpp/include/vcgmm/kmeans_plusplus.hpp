// vcgmm: k-means++ seeding (D^2 sampling).
//
// Paper: Arthur & Vassilvitskii, "k-means++: the advantages of careful
// seeding", SODA 2007; the seeding of the "k-means++" baseline of vc-GMM's
// Table 1 (Hirschberger, Forster & Luecke, arXiv 2018 / IEEE TPAMI 2022).
//
// The first center is drawn with probability proportional to w(x); every next
// one with probability proportional to w(x) min_c d(x, c)^2 over the centers
// chosen so far. With n_local_trials = L > 1, L candidates are drawn per step
// and the one that lowers the potential sum_x w(x) min_c d(x, c)^2 most is
// kept (scikit-learn's "greedy k-means++"). The default, L = 0, means
// L = 2 + floor(ln C), as scikit-learn: on well-separated clusters plain D^2
// sampling (L = 1, the papers' baseline) leaves clusters split and merged that
// Lloyd cannot repair (bench/users_data.py).
// When every point already coincides with a center (C > distinct points) the
// next center is drawn by weight alone.
//
// Cost: (C - 1) n distance evaluations for L = 1 and (C - 1)(L + 1) n for
// L > 1 (counted as the algorithm's), plus L C^2 / 2 between centers; memory
// O(n). Most are skipped in practice: each row keeps its nearest center a so
// far, and a new center or candidate y does not compute its distance to the
// row when ||y - a||^2 >= 4 d(x, a)^2 (the triangle inequality: y is no
// nearer). Exact: the chosen centers are those of the loop without the test.
// Determinism: each step is one pass over X, parallel over fixed chunks of
// rows; draws come from one stream keyed by the seed and chunk sums are
// combined in order, so the result does not depend on threads.
// Use when: the seeding must be the classic one (baselines, small data).
// Do not use for: large n and large C together; use AFK-MC^2 (afkmc2.hpp).
#pragma once

#include <cmath>
#include <cstdint>

#include "vcgmm/common.hpp"

namespace vcgmm {

struct KMeansPlusPlusParams {
  /// Candidates per step L >= 1 (1: plain D^2 sampling, the papers'), or 0:
  /// 2 + floor(ln C) (local_trials() resolves it).
  int n_local_trials = 0;
  /// Skip the distances that the triangle inequality rules out (the same
  /// centers, faster); false computes every one (the reference loop).
  bool use_bounds = true;
};

/// The candidates per step that `params` asks for with C clusters.
inline int local_trials(const KMeansPlusPlusParams& params, index_t n_clusters) {
  if (params.n_local_trials > 0) return params.n_local_trials;
  return 2 + static_cast<int>(std::log(static_cast<double>(n_clusters)));
}

/// Chooses C centers among the rows of X by (weighted) D^2 sampling.
///
/// @param data        IN  (n, d) points and optional weights
/// @param n_clusters  IN  C, 1 <= C <= n
/// @param centers     OUT (C, d) row-major: the chosen rows
/// @param indices     OUT (C,) their row indices, or nullptr
template <typename T>
SeedingStats kmeans_plusplus(const DataView<T>& data, index_t n_clusters,
                             const KMeansPlusPlusParams& params, const RunOptions& run,
                             T* centers, index_t* indices);

extern template SeedingStats kmeans_plusplus<float>(const DataView<float>&, index_t,
                                                    const KMeansPlusPlusParams&, const RunOptions&,
                                                    float*, index_t*);
extern template SeedingStats kmeans_plusplus<double>(const DataView<double>&, index_t,
                                                     const KMeansPlusPlusParams&,
                                                     const RunOptions&, double*, index_t*);

}  // namespace vcgmm
