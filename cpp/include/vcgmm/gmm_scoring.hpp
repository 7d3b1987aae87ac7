// vcgmm: exact scoring of the isotropic, equal-weight GMM of vc-GMM.
//
// The model of 000_bd19523839359b5b.txt, eq. 1:
//   p(x) = 1/C sum_c N(x; mu_c, sigma^2 I).
// Both functions evaluate all C components for every point with the blocked
// GEMM distances of assignment.hpp (no (n, C) array is formed); the distances
// that decide the result (the nearest component, the k kept components) are
// recomputed directly in double, so the expansion's cancellation does not
// reach the log-likelihood's leading term.
//
// Cost: O(n C d) flops and n C exponentials; memory: outputs plus one tile per
// thread. Results do not depend on the thread count.
#pragma once

#include <cstdint>

#include "vcgmm/common.hpp"

namespace vcgmm {

/// Per-sample log-likelihood log p(x_n) (weights in `data` are ignored).
///
/// @param means  IN  (C, d) row-major
/// @param sigma2 IN  shared variance > 0
/// @param out    OUT (n,)
template <typename T>
void gmm_log_likelihood(const DataView<T>& data, const T* means, index_t n_components,
                        double sigma2, double* out, int n_threads);

/// The k most probable components of every sample (its k nearest means,
/// nearest first; ties: lowest index) and their posteriors renormalized over
/// those k (the truncated posterior of eq. 6 with K(n) = the k nearest).
///
/// @param indices        OUT (n, k) int32
/// @param responsibilities OUT (n, k), rows sum to 1
template <typename T>
void gmm_truncated_posteriors(const DataView<T>& data, const T* means, index_t n_components,
                              double sigma2, int k, std::int32_t* indices,
                              double* responsibilities, int n_threads);

extern template void gmm_log_likelihood<float>(const DataView<float>&, const float*, index_t,
                                               double, double*, int);
extern template void gmm_log_likelihood<double>(const DataView<double>&, const double*, index_t,
                                                double, double*, int);
extern template void gmm_truncated_posteriors<float>(const DataView<float>&, const float*, index_t,
                                                     double, int, std::int32_t*, double*, int);
extern template void gmm_truncated_posteriors<double>(const DataView<double>&, const double*,
                                                      index_t, double, int, std::int32_t*, double*,
                                                      int);

}  // namespace vcgmm
