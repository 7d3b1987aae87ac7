// vcgmm: AFK-MC^2 seeding (assumption-free k-MC^2).
//
// Paper: Bachem, Lucic, Hassani & Krause, "Fast and provably good seedings
// for k-means", NIPS 2016; the seeding of LWCS, var-GMM-S and vc-GMM
// (Hirschberger, Forster & Luecke, arXiv 2018 / IEEE TPAMI 2022).
//
// c1 is drawn with probability proportional to w(x). The proposal
//   q(x) = 1/2 w(x) d(x, c1)^2 / sum w d^2 + 1/2 w(x) / sum w
// is built once (one O(n d) pass and a cumulative table). Each further center
// is the final state of a Markov chain of length m (chain_length): start at
// x ~ q, then for each of m - 1 candidates y ~ q accept with probability
//   min(1, (w(y) d_y q(x)) / (w(x) d_x q(y))),
// d_. being the squared distance to the nearest center chosen so far; a
// state with d_x = 0 is always left. The chain approximates D^2 sampling
// without a pass over the data per center. The candidates of 64 consecutive
// centers are drawn first (the proposal is fixed) and their exact squared
// distances to the centers chosen before come from one blocked nearest-center
// pass (assignment.hpp). From 64 chosen centers on, those distances (and the
// comparisons with the centers chosen within the round) come from a
// principal-subspace screen (bounds from the projections onto the data's
// leading axes; only centers the bounds cannot rule out are measured in full,
// in double): the same distances, so the same centers, fewer coordinates read.
// The chosen centers' projections sit in the leaves of a k-d tree whose
// splits come from a sample of the data (about 256 centers per leaf); a
// candidate reads the leaves its bounds cannot rule out, near ones first, so
// its search follows the centers near it rather than all chosen so far.
//
// Cost: O(n d + m C^2 d) without a screen (data of fewer than 16 features,
// or no small leading subspace, or screen_dims = 0); with it, the searches
// grow with C like the number of leaves each candidate reads (the measured
// exponent: docs/user_guide/performance.rst). n + m C (C - 1) / 2 distance
// evaluations for C >= 2 (none for C = 1: no proposal is needed) are
// counted whatever the screen skips; memory O(n + C ks).
// Determinism: draws come from a stream keyed by the seed and the chain
// decisions run in order: the result depends neither on the thread count nor
// on screen_dims.
// Use when: seeding many clusters on large data or a coreset (weights =
// coreset weights). Do not use for: tiny chain lengths on data whose D^2
// distribution is far from the proposal (raise m; the papers use m = 2..20,
// Bachem et al. default to 200), or where the classic seeding is required
// (kmeans_plusplus.hpp).
#pragma once

#include <cstdint>

#include "vcgmm/common.hpp"

namespace vcgmm {

struct Afkmc2Params {
  int chain_length = 20;  ///< Markov chain length m >= 1 (1 initial state + m - 1 proposals)
  /// Dimensions of the subspace screen of the candidates' nearest-center
  /// distances: -1 chooses from the data's spectrum (none when d < 16 or no
  /// small subspace holds most of the variance), 0 turns it off, k in
  /// [1, d) fixes it. The result is the same for every value; only the time is not.
  int screen_dims = -1;
};

/// The fewest coordinates of a center one chain comparison reads on data of
/// d features with these params: d without a screen (screen_dims == 0, or
/// automatic below 16 features), min(d, screen_dims) when fixed, the smallest
/// automatic screen (8 axes) otherwise. A lower bound for cost estimates (the
/// automatic screen may take more axes, or none on data without a small
/// leading subspace).
index_t afkmc2_min_screen_coordinates(index_t d, const Afkmc2Params& params);

/// Chooses C centers among the rows of X by AFK-MC^2.
///
/// @param data        IN  (n, d) points and optional weights
/// @param n_clusters  IN  C, 1 <= C <= n
/// @param centers     OUT (C, d) row-major: the chosen rows
/// @param indices     OUT (C,) their row indices, or nullptr
template <typename T>
SeedingStats afkmc2(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                    const RunOptions& run, T* centers, index_t* indices);

extern template SeedingStats afkmc2<float>(const DataView<float>&, index_t, const Afkmc2Params&,
                                           const RunOptions&, float*, index_t*);
extern template SeedingStats afkmc2<double>(const DataView<double>&, index_t, const Afkmc2Params&,
                                            const RunOptions&, double*, index_t*);

}  // namespace vcgmm
