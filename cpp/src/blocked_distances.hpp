// Internal: Eigen types and the blocked point-to-center distance engine.
//
// Distances of a block of rows to all centers come out of one matrix product
// per (row block, center tile) using
//     ||x - c||^2 = ||x||^2 - 2 x.c + ||c||^2,
// like scikit-learn's Lloyd and faiss' exhaustive search do. The tile sizes
// keep the product's output (kRowBlock x kCenterTile) in L2 cache. The row
// term ||x||^2 does not change an argmin over centers, so visitors receive the
// "partial" distances p = ||c||^2 - 2 x.c and add ||x||^2 where they need it.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstRowMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using RowMap = Eigen::Map<RowMatrix<T>>;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T>
using ConstVectorMap = Eigen::Map<const Vector<T>>;
template <typename T>
using VectorMap = Eigen::Map<Vector<T>>;

/// ||a - b||^2 for two rows of length d, computed in T (vectorized).
template <typename T>
inline T squared_distance(const T* a, const T* b, index_t d) {
  return (ConstVectorMap<T>(a, d) - ConstVectorMap<T>(b, d)).squaredNorm();
}

/// ||a - b||^2 accumulated in double: the exact value used for quality
/// measurements (quantization error, inertia), immune to the cancellation of
/// the GEMM expansion.
template <typename T>
inline double squared_distance_exact(const T* a, const T* b, index_t d) {
  return (ConstVectorMap<T>(a, d).template cast<double>() -
          ConstVectorMap<T>(b, d).template cast<double>())
      .squaredNorm();
}

/// A per-thread scratch matrix reused across calls (no allocation per task).
template <typename T, int Tag = 0>
RowMatrix<T>& scratch_matrix(index_t rows, index_t cols) {
  thread_local RowMatrix<T> m;
  if (m.rows() < rows || m.cols() < cols) {
    m.resize(std::max<index_t>(rows, m.rows()), std::max<index_t>(cols, m.cols()));
  }
  return m;
}

/// Centers prepared for blocked distance computations: the row-major
/// (c, d) array and the squared norms of its rows.
template <typename T>
class CenterTiles {
 public:
  static constexpr index_t kRowBlock = 256;
  static constexpr index_t kCenterTile = 512;

  CenterTiles(const T* centers, index_t c, index_t d) : centers_(centers), c_(c), d_(d), norms_(c) {
    for (index_t j = 0; j < c; ++j) {
      norms_[j] = ConstVectorMap<T>(centers + j * d, d).squaredNorm();
    }
  }

  index_t size() const { return c_; }
  index_t dim() const { return d_; }
  const T* center(index_t j) const { return centers_ + j * d_; }
  const T* norms() const { return norms_.data(); }

  /// For the rows `x` (nrows <= kRowBlock, row-major (nrows, d)) calls
  ///   visit(j0, ncols, p, ld)
  /// once per center tile [j0, j0 + ncols), where p(i, j) = p[i * ld + j] is
  /// ||c_{j0+j}||^2 - 2 x_i.c_{j0+j}. Tiles come in increasing j0.
  template <typename Visit>
  void for_each_tile(const T* x, index_t nrows, Visit&& visit) const {
    RowMatrix<T>& ip = scratch_matrix<T>(kRowBlock, kCenterTile);
    const index_t ld = ip.cols();
    ConstRowMap<T> xb(x, nrows, d_);
    for (index_t j0 = 0; j0 < c_; j0 += kCenterTile) {
      const index_t ncols = std::min(kCenterTile, c_ - j0);
      ConstRowMap<T> ct(centers_ + j0 * d_, ncols, d_);
      auto out = ip.topLeftCorner(nrows, ncols);
      out.noalias() = T(-2) * (xb * ct.transpose());
      const T* cn = norms_.data() + j0;
      for (index_t i = 0; i < nrows; ++i) {
        T* row = ip.data() + i * ld;
        for (index_t j = 0; j < ncols; ++j) row[j] += cn[j];
      }
      visit(j0, ncols, static_cast<const T*>(ip.data()), ld);
    }
  }

 private:
  const T* centers_;
  index_t c_;
  index_t d_;
  std::vector<T> norms_;
};

/// Index of the first minimum of p[0..n) and the minimum (vectorized min,
/// then a scan for its first position).
template <typename T>
inline index_t argmin_row(const T* p, index_t n, T* min_out) {
  const T m = ConstVectorMap<T>(p, n).minCoeff();
  index_t j = 0;
  while (j < n && !(p[j] == m)) ++j;
  *min_out = m;
  return j < n ? j : 0;  // j == n only if the row holds NaN
}

}  // namespace detail
}  // namespace vcgmm
