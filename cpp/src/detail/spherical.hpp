// Spherical k-means (Dhillon & Modha, "Concept decompositions for large
// sparse text data using clustering", Machine Learning 2001): on rows of unit
// length, every updated center is rescaled to unit length. Shared by Lloyd
// (LloydParams::spherical), mbatch and nmbatch (their `spherical` flags).
#pragma once

#include <cmath>

#include "detail/distance_kernels.hpp"

namespace vcgmm {
namespace detail {

/// Rescales the d values at `center` to unit Euclidean length (computed in
/// double). Returns false, leaving them as they are, when their norm is zero
/// or not finite: the caller then keeps the center's previous position.
template <typename T>
bool scale_to_unit_length(T* center, index_t d) {
  VectorMap<T> row(center, d);
  const double norm = row.template cast<double>().norm();
  if (!(norm > 0.0 && std::isfinite(norm))) return false;
  row = (row.template cast<double>() / norm).template cast<T>();
  return true;
}

}  // namespace detail
}  // namespace vcgmm
