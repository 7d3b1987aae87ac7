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
#include <cmath>
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

/// acc[j] += a * x[j] for j < d, in double (a plain loop: the compiler
/// vectorizes the conversion and the FMA; the order per element is fixed).
template <typename T>
inline void add_scaled_to_double(double* acc, double a, const T* x, index_t d) {
  for (index_t j = 0; j < d; ++j) acc[j] += a * static_cast<double>(x[j]);
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

/// Centers prepared for blocked distance computations.
///
/// Distances are translation invariant, so both the rows and the centers are
/// shifted by the centers' mean before the product: for data far from the
/// origin (relative to their spread) the expansion would otherwise cancel
/// catastrophically in float32 (||x||^2 ~ 1e6 swallowing differences ~ 1).
template <typename T>
class CenterTiles {
 public:
  static constexpr index_t kRowBlock = 256;
  static constexpr index_t kCenterTile = 512;
  /// Tiles are computed with a width that is a multiple of this (padding
  /// with zero centers that are never reported): Eigen computes leftover
  /// columns with another kernel that rounds x.c differently, and then exact
  /// duplicates of a center would no longer tie (ties must go to the lowest
  /// index).
  static constexpr index_t kColumnMultiple = 16;

  CenterTiles(const T* centers, index_t c, index_t d)
      : centers_(centers),
        c_(c),
        d_(d),
        shifted_(RowMatrix<T>::Zero(round_up(c), d)),
        shift_(d),
        norms_(c) {
    ConstRowMap<T> cm(centers, c, d);
    shift_ = cm.template cast<double>().colwise().mean().transpose().template cast<T>();
    shifted_.topRows(c) = cm.rowwise() - shift_.transpose();
    for (index_t j = 0; j < c; ++j) norms_[j] = shifted_.row(j).squaredNorm();
    max_norm_ = std::sqrt(static_cast<double>(*std::max_element(norms_.begin(), norms_.end())));
  }

  index_t size() const { return c_; }
  index_t dim() const { return d_; }
  const T* center(index_t j) const { return centers_ + j * d_; }

  /// Bound on the rounding error of the partial distances of a row x:
  /// values within it of the row's minimum may be the true nearest center and
  /// are resolved exactly (see NearestCandidates). A dot product of length d
  /// rounds by about sqrt(d) eps |x||c| in practice (d eps worst case); the
  /// margin is generous because a wider band only costs a few exact checks.
  T tolerance(const T* x) const {
    const double xs = (ConstVectorMap<T>(x, d_).template cast<double>() -
                       shift_.template cast<double>())
                          .norm();
    const double scale = xs + max_norm_;
    const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
    return static_cast<T>(4.0 * (std::sqrt(static_cast<double>(d_)) + 4.0) * eps * scale * scale);
  }

  /// For the rows `x` (nrows <= kRowBlock, row-major (nrows, d)) calls
  ///   visit(j0, ncols, p, ld)
  /// once per center tile [j0, j0 + ncols), where p(i, j) = p[i * ld + j] is
  /// ||c_{j0+j} - s||^2 - 2 (x_i - s).(c_{j0+j} - s) = ||x_i - c_{j0+j}||^2 - ||x_i - s||^2
  /// for the shift s. Tiles come in increasing j0.
  template <typename Visit>
  void for_each_tile(const T* x, index_t nrows, Visit&& visit) const {
    RowMatrix<T>& ip = scratch_matrix<T, 0>(kRowBlock, kCenterTile);
    RowMatrix<T>& xs = scratch_matrix<T, 1>(kRowBlock, d_);
    const index_t ld = ip.cols();
    xs.topLeftCorner(nrows, d_) = ConstRowMap<T>(x, nrows, d_).rowwise() - shift_.transpose();
    const auto xb = xs.topLeftCorner(nrows, d_);
    for (index_t j0 = 0; j0 < c_; j0 += kCenterTile) {
      const index_t ncols = std::min(kCenterTile, c_ - j0);
      const index_t width = round_up(ncols);
      auto out = ip.topLeftCorner(nrows, width);
      out.noalias() = T(-2) * (xb * shifted_.middleRows(j0, width).transpose());
      const T* cn = norms_.data() + j0;
      for (index_t i = 0; i < nrows; ++i) {
        T* row = ip.data() + i * ld;
        for (index_t j = 0; j < ncols; ++j) row[j] += cn[j];
      }
      visit(j0, ncols, static_cast<const T*>(ip.data()), ld);
    }
  }

 private:
  static index_t round_up(index_t n) {
    return (n + kColumnMultiple - 1) / kColumnMultiple * kColumnMultiple;
  }
  const T* centers_;
  index_t c_;
  index_t d_;
  RowMatrix<T> shifted_;
  Vector<T> shift_;
  std::vector<T> norms_;
  double max_norm_ = 0.0;
};

/// The nearest center of one row, exactly: every center whose partial
/// distance lies within the rounding tolerance of the row's minimum is kept,
/// and the candidates are then compared by their exact squared distances in
/// double (ties: the lowest index). Exact duplicates and mathematically tied
/// centers therefore resolve to the lowest index whatever the GEMM rounds.
template <typename T>
struct NearestCandidates {
  static constexpr int kMax = 8;
  T best;
  T tol;
  int count;
  bool overflow;  // more than kMax candidates: resolve() scans all centers
  std::int32_t index[kMax];
  T value[kMax];

  void reset(T tolerance) {
    best = std::numeric_limits<T>::infinity();
    tol = tolerance;
    count = 0;
    overflow = false;
  }

  /// Offers the row segment p[0..n) of centers j0.. (called in increasing j0).
  void offer(index_t j0, const T* p, index_t n) {
    const T tile_min = ConstVectorMap<T>(p, n).minCoeff();
    if (!(tile_min <= best + tol)) return;  // nothing here can win
    if (tile_min < best) {
      best = tile_min;
      int kept = 0;  // drop candidates that fell out of the band
      for (int k = 0; k < count; ++k) {
        if (value[k] <= best + tol) {
          index[kept] = index[k];
          value[kept] = value[k];
          ++kept;
        }
      }
      count = kept;
    }
    const T threshold = best + tol;
    for (index_t j = 0; j < n; ++j) {
      if (p[j] <= threshold) {
        if (count < kMax) {
          index[count] = static_cast<std::int32_t>(j0 + j);
          value[count] = p[j];
          ++count;
        } else {
          overflow = true;
        }
      }
    }
  }

  /// The nearest center and its exact squared distance (double).
  std::int32_t resolve(const T* x, const CenterTiles<T>& tiles, double* d2_out) const {
    std::int32_t best_index = 0;
    double best_d2 = std::numeric_limits<double>::infinity();
    if (overflow) {
      for (index_t j = 0; j < tiles.size(); ++j) {
        const double dj = squared_distance_exact(x, tiles.center(j), tiles.dim());
        if (dj < best_d2) {
          best_d2 = dj;
          best_index = static_cast<std::int32_t>(j);
        }
      }
    } else {
      for (int k = 0; k < count; ++k) {  // indices ascend: strict < keeps the lowest
        const double dj = squared_distance_exact(x, tiles.center(index[k]), tiles.dim());
        if (dj < best_d2) {
          best_d2 = dj;
          best_index = index[k];
        }
      }
    }
    *d2_out = best_d2;
    return best_index;
  }
};

}  // namespace detail
}  // namespace vcgmm
