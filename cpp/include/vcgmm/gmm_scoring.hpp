// vcgmm: exact scoring of the isotropic GMMs of vc-GMM and var-GMM-S.
//
// Two models, one overload each:
//  - shared (the papers' model: Hirschberger, Forster & Luecke, arXiv 2018 /
//    IEEE TPAMI 2022, eq. 1): p(x) = 1/C sum_c N(x; mu_c, sigma^2 I);
//  - spherical (the var-GMM papers' model family, Forster & Luecke, AISTATS
//    2018; VcgmmParams covariance "spherical"):
//    p(x) = sum_c pi_c N(x; mu_c, sigma_c^2 I), one variance and one mixing
//    weight per component.
// Every function evaluates all C components for every point with the blocked
// GEMM distances of assignment.hpp (no (n, C) array is formed); the distances
// that decide the result (the most probable component, the k kept
// components) are recomputed directly in double, so the expansion's
// cancellation does not reach the log-likelihood's leading term.
//
// Cost: O(n C d) flops and n C exponentials; memory: outputs plus one tile per
// thread.
// Determinism: no random draws; results do not depend on the thread count.
// Use when: scoring (log-likelihood, BIC/AIC, ranking n_init runs) and
// posteriors of a fitted mixture. Do not use for: labelling at large C (use
// the nearest-center assignment, assignment.hpp, or approximate_assignment.hpp).
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

/// Spherical components: per-sample log-likelihood log sum_c pi_c N(x_n; mu_c,
/// sigma_c^2 I) (weights in `data` are ignored).
///
/// @param means     IN  (C, d) row-major
/// @param variances IN  (C,) sigma_c^2, finite and > 0
/// @param weights   IN  (C,) pi_c, finite, >= 0, summing to 1 (within 1e-6);
///                      a component of weight 0 has probability 0
/// @param out       OUT (n,)
template <typename T>
void gmm_log_likelihood(const DataView<T>& data, const T* means, index_t n_components,
                        const double* variances, const double* weights, double* out,
                        int n_threads);

/// Spherical components: the k most probable components of every sample
/// (largest pi_c N(x; mu_c, sigma_c^2 I) first) and their posteriors
/// renormalized over those k. With k = n_components these are the exact
/// posteriors of all components. The k kept are chosen by the blocked
/// distances and then ranked by exact ones (ties: lowest index); unlike the
/// shared overload's exact k nearest, a component whose probability equals
/// the k-th's to within the blocked distances' rounding (relative ~1e-6 in
/// float32) may be kept in its place.
///
/// @param variances, weights IN (C,) as in gmm_log_likelihood
/// @param indices          OUT (n, k) int32
/// @param responsibilities OUT (n, k), rows sum to 1
template <typename T>
void gmm_truncated_posteriors(const DataView<T>& data, const T* means, index_t n_components,
                              const double* variances, const double* weights, int k,
                              std::int32_t* indices, double* responsibilities, int n_threads);

extern template void gmm_log_likelihood<float>(const DataView<float>&, const float*, index_t,
                                               double, double*, int);
extern template void gmm_log_likelihood<double>(const DataView<double>&, const double*, index_t,
                                                double, double*, int);
extern template void gmm_truncated_posteriors<float>(const DataView<float>&, const float*, index_t,
                                                     double, int, std::int32_t*, double*, int);
extern template void gmm_truncated_posteriors<double>(const DataView<double>&, const double*,
                                                      index_t, double, int, std::int32_t*, double*,
                                                      int);
extern template void gmm_log_likelihood<float>(const DataView<float>&, const float*, index_t,
                                               const double*, const double*, double*, int);
extern template void gmm_log_likelihood<double>(const DataView<double>&, const double*, index_t,
                                                const double*, const double*, double*, int);
extern template void gmm_truncated_posteriors<float>(const DataView<float>&, const float*, index_t,
                                                     const double*, const double*, int,
                                                     std::int32_t*, double*, int);
extern template void gmm_truncated_posteriors<double>(const DataView<double>&, const double*,
                                                      index_t, const double*, const double*, int,
                                                      std::int32_t*, double*, int);

}  // namespace vcgmm
