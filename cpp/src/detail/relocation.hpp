// Internal: empty clusters moved onto far points, the step Lloyd's loop
// (kmeans/lloyd.cpp, relocate_empty) and vc-GMM's hard refinement after EM
// (vcgmm/variational_gmm.cpp) share, and the rounding size of a squared distance
// below which a point counts as sitting on its center.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/partition.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

/// Whether some cluster of `part` has no point.
inline bool has_empty_cluster(const ClusterPartition& part, index_t C) {
  for (index_t c = 0; c < C; ++c) {
    if (part.size(c) == 0) return true;
  }
  return false;
}

/// Up to k of the n points farthest from their centers (largest min_d2
/// first, ties: lower index), none within rounding distance (d2_floor) of its
/// center: such a point already has a center, and moving one onto it gains
/// nothing.
inline std::vector<index_t> farthest_points(const double* min_d2, index_t n, index_t k,
                                            double d2_floor) {
  k = std::min(k, n);
  if (k <= 0) return {};
  std::vector<index_t> far(n);
  std::iota(far.begin(), far.end(), index_t(0));
  std::partial_sort(far.begin(), far.begin() + k, far.end(), [&](index_t a, index_t b) {
    return min_d2[a] > min_d2[b] || (min_d2[a] == min_d2[b] && a < b);
  });
  index_t kept = 0;
  while (kept < k && min_d2[far[kept]] > d2_floor) ++kept;  // the rest sit on their centers
  far.resize(kept);
  return far;
}

/// Moves every empty cluster of `part` onto one of the points farthest from
/// their centers (farthest_points) by setting that point's label. Returns the
/// number of clusters moved (the caller rebuilds `part`).
inline index_t relocate_empty_clusters(const ClusterPartition& part, const double* min_d2,
                                       index_t n, index_t C, double d2_floor,
                                       std::int32_t* labels) {
  std::vector<index_t> empty;
  for (index_t c = 0; c < C; ++c) {
    if (part.size(c) == 0) empty.push_back(c);
  }
  if (empty.empty()) return 0;
  const std::vector<index_t> far =
      farthest_points(min_d2, n, static_cast<index_t>(empty.size()), d2_floor);
  for (std::size_t e = 0; e < far.size(); ++e) labels[far[e]] = static_cast<std::int32_t>(empty[e]);
  return static_cast<index_t>(far.size());
}

/// Rounding size of a squared distance to centers that are means rounded to
/// T: a point that coincides with its center mathematically lies up to
/// ~eps |x| away, so (8 eps)^2 times the largest squared center norm (the
/// centers are means of the points: their magnitude without a pass over the
/// data).
template <typename T>
double rounding_floor(const T* centers, index_t C, index_t d) {
  const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
  double m = 0.0;
  for (index_t c = 0; c < C; ++c) {
    m = std::max(m, ConstVectorMap<T>(centers + c * d, d).template cast<double>().squaredNorm());
  }
  return (8.0 * eps) * (8.0 * eps) * m;
}

}  // namespace detail
}  // namespace vcgmm
