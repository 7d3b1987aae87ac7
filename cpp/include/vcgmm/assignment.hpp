// vcgmm: exact nearest-center assignment and quantization error at large C.
//
// The kernel behind Lloyd iterations, predict(), labels_ and every quality
// measurement of the library: the quantization error
// Q = sum_n w_n min_c ||x_n - c||^2 (Hirschberger, Forster & Luecke, arXiv
// 2018 / IEEE TPAMI 2022, eq. 14).
//
// Algorithm: blocks of 256 rows against tiles of 512 centers, one matrix
// product per pair using ||x||^2 - 2 x.c + ||c||^2 to find the nearest center,
// then the exact squared distance to that center recomputed directly and
// accumulated in double (so Q never suffers the expansion's cancellation and
// is never negative).
//
// Cost: O(n C d) flops, n C distance evaluations (C = n_centers); memory: the
// outputs plus one 256 x 512 tile per thread.
// Determinism: no random draws; rows are processed in parallel and sums are
// combined in block order, so the result does not depend on the thread count.
// Use when: you need exact labels or Q against all centers.
// Do not use for: labelling many points at C in the thousands when a few
// near-nearest labels are acceptable (approximate_assignment.hpp; vc-GMM's
// E-step searches only G^2 candidates).
#pragma once

#include <cstdint>

#include "vcgmm/common.hpp"

namespace vcgmm {

struct AssignmentStats {
  /// sum_i w_i ||x_i - c_{labels[i]}||^2, exact (double accumulation).
  double objective = 0.0;
  /// Rows whose new label differs from the value labels[i] held on input.
  index_t n_changed = 0;
};

/// Assigns every row of `data` to its nearest center.
///
/// @param data       IN  (n, d) points and optional weights (finite, >= 0: a point
///                    of weight 0 is labelled but adds nothing to the objective)
/// @param centers    IN  (n_centers, d) row-major
/// @param n_centers  IN  number of centers, >= 1
/// @param labels     IN/OUT (n,) int32 or nullptr: on output the index of the
///                   nearest center (ties: the lowest index); on input the
///                   previous labels, used only to count changes
/// @param min_d2     OUT (n,) or nullptr: exact squared distance to that center
/// @param n_threads  threads (<= 0: OpenMP's default)
template <typename T>
AssignmentStats assign_nearest(const DataView<T>& data, const T* centers, index_t n_centers,
                               std::int32_t* labels, double* min_d2, int n_threads);

/// Weighted quantization error sum_i w_i min_c ||x_i - c||^2 (exact, double).
/// Arguments as assign_nearest.
template <typename T>
double quantization_error(const DataView<T>& data, const T* centers, index_t n_centers,
                          int n_threads);

extern template AssignmentStats assign_nearest<float>(const DataView<float>&, const float*, index_t,
                                                      std::int32_t*, double*, int);
extern template AssignmentStats assign_nearest<double>(const DataView<double>&, const double*,
                                                       index_t, std::int32_t*, double*, int);
extern template double quantization_error<float>(const DataView<float>&, const float*, index_t, int);
extern template double quantization_error<double>(const DataView<double>&, const double*, index_t,
                                                  int);

}  // namespace vcgmm
