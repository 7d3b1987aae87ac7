// vcgmm: lightweight coresets (LWCS).
//
// Paper: Bachem, Lucic & Krause, "Scalable k-means clustering via lightweight
// coresets", KDD 2018; the coreset of vc-GMM (Hirschberger, Forster & Luecke,
// arXiv 2018 / IEEE TPAMI 2022, Sec. 3).
//
//   mu   = weighted mean of X
//   q(x) = 1/2 w(x)/sum(w) + 1/2 w(x) d(x, mu)^2 / sum_x' w(x') d(x', mu)^2
//   draw m = coreset_size indices i.i.d. (with replacement) from q;
//   each draw gets the weight gamma = w(x) / (m q(x)).
// sum(gamma) is an unbiased estimate of sum(w), and sum(gamma f(x)) of
// sum(w f(x)) for any f. If all points coincide with mu, q = w / sum(w).
//
// Cost: two passes over X, O(n d), n distance evaluations (to mu); memory
// O(n) doubles (d(x, mu)^2) plus the output.
// Determinism: the draws invert the cumulative distribution with m sorted
// uniforms from a stream keyed by the seed, chunk by chunk in parallel;
// indices come out sorted (duplicates adjacent), and the result does not
// depend on the thread count.
// Use when: n is large and a weighted sample of a few thousand to a few
// hundred thousand points should stand in for X (k-means, vc-GMM); for data
// in chunks or out of core, chunked_coreset.hpp.
// Do not use for: a coreset_size tiny relative to the number of clusters
// (fit on all points instead).
#pragma once

#include <cstdint>

#include "vcgmm/common.hpp"

namespace vcgmm {

/// Cost of a coreset construction: phase `coreset` (n distance evaluations,
/// one to the mean per point).
struct CoresetStats : PhaseCosts {};

/// Draws a lightweight coreset of `coreset_size` points.
///
/// @param data          IN  (n, d) points, optional weights w > 0
/// @param coreset_size  IN  m >= 1, the number of i.i.d. draws
/// @param indices       OUT (m,) row indices into X, sorted ascending
/// @param weights       OUT (m,) coreset weights gamma
template <typename T>
CoresetStats lightweight_coreset(const DataView<T>& data, index_t coreset_size,
                                 const RunOptions& run, index_t* indices, double* weights);

extern template CoresetStats lightweight_coreset<float>(const DataView<float>&, index_t,
                                                        const RunOptions&, index_t*, double*);
extern template CoresetStats lightweight_coreset<double>(const DataView<double>&, index_t,
                                                         const RunOptions&, index_t*, double*);

}  // namespace vcgmm
