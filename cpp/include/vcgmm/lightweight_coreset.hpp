// vcgmm: lightweight coresets (LWCS).
//
// Paper: Bachem, Lucic, Krause, "Scalable k-means clustering via lightweight
// coresets", KDD 2018; as used by vc-GMM (000_bd19523839359b5b.txt, Sec. 3)
// and specified in ALGORITHMS.md section 1.
//
//   mu   = weighted mean of X
//   q(x) = 1/2 w(x)/sum(w) + 1/2 w(x) d(x, mu)^2 / sum_x' w(x') d(x', mu)^2
//   draw m = n_prime indices i.i.d. (with replacement) from q;
//   each draw gets the weight gamma = w(x) / (m q(x)).
// sum(gamma) is an unbiased estimate of sum(w), and sum(gamma f(x)) of
// sum(w f(x)) for any f. If all points coincide with mu, q = w / sum(w).
//
// Cost: two passes over X, O(n d), n distance evaluations (to mu); memory
// O(n) doubles (d(x, mu)^2) plus the output. The draws are made by inverting
// the cumulative distribution with m sorted uniforms, chunk by chunk in
// parallel; indices come out sorted (duplicates adjacent), and the result does
// not depend on the thread count.
// Use when: n is large and a weighted sample of a few thousand to a few
// hundred thousand points should stand in for X (k-means, vc-GMM).
// Do not use for: tiny n_prime relative to the number of clusters.
#pragma once

#include <cstdint>

#include "vcgmm/common.hpp"

namespace vcgmm {

struct LightweightCoresetParams {
  index_t n_prime = 0;       ///< coreset size m >= 1 (number of i.i.d. draws)
  std::uint64_t seed = 0;    ///< random seed
  int n_threads = 0;         ///< threads (<= 0: OpenMP's default)
};

struct CoresetStats {
  std::int64_t n_distance_evals = 0;  ///< n (one distance to the mean per point)
  double seconds = 0.0;               ///< wall time
};

/// Draws a lightweight coreset of `params.n_prime` points.
///
/// @param data     IN  (n, d) points, optional weights w > 0
/// @param indices  OUT (n_prime,) row indices into X, sorted ascending
/// @param weights  OUT (n_prime,) coreset weights gamma
template <typename T>
CoresetStats lightweight_coreset(const DataView<T>& data, const LightweightCoresetParams& params,
                                 index_t* indices, double* weights);

extern template CoresetStats lightweight_coreset<float>(const DataView<float>&,
                                                        const LightweightCoresetParams&, index_t*,
                                                        double*);
extern template CoresetStats lightweight_coreset<double>(const DataView<double>&,
                                                         const LightweightCoresetParams&, index_t*,
                                                         double*);

}  // namespace vcgmm
