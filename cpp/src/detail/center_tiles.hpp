// Internal: centers prepared for blocked point-to-center distances.
//
// Distances of a block of rows to all centers come out of one matrix product
// per (row block, center tile) using
//     ||x - c||^2 = ||x||^2 - 2 x.c + ||c||^2,
// like scikit-learn's Lloyd and faiss' exhaustive search do. The tile sizes
// keep the product's output (kRowBlock x kCenterTile) in L2 cache. The row
// term ||x||^2 does not change an argmin over centers, so visitors receive the
// "partial" distances p = ||c||^2 - 2 x.c and add ||x||^2 where they need it.
// The scan over all rows (threads, candidates, reduction) is blocked_scan.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "detail/distance_kernels.hpp"

namespace vcgmm {
namespace detail {

/// tile[:nrows, :width] += -2 xs shifted[j0 : j0 + width]^T, for `tile` an
/// aligned row-major (CenterTiles::kMaxRowBlock, CenterTiles::kCenterTile)
/// buffer and `xs` an aligned row-major (nrows, d) block: the matrix product
/// of every blocked distance scan. Defined once (tile_product.cpp) for float
/// and double: Eigen's product is the costliest code to compile.
template <typename T>
void add_tile_product(T* tile, const T* xs, index_t nrows, index_t d,
                      const RowMatrix<T>& shifted, index_t j0, index_t width);

/// Centers prepared for blocked distance computations.
///
/// Distances are translation invariant, so both the rows and the centers are
/// shifted by s, the coordinate-wise median of (up to 512 of) the centers, before the
/// product: for data far from the origin (relative to their spread) the
/// expansion would otherwise cancel catastrophically in float32 (||x||^2 ~
/// 1e6 swallowing differences ~ 1). The median, unlike the mean, stays with
/// the bulk of the centers when a few lie far away.
template <typename T>
class CenterTiles {
 public:
  /// Rows per block: 256, fewer for very wide rows (d > 4096), so that a
  /// thread's copy of a block stays within kMaxScratchElements. Depends on d
  /// only (task boundaries never depend on the thread count).
  static constexpr index_t kMaxRowBlock = 256;
  static constexpr index_t kCenterTile = 512;
  /// Tiles are computed with a width that is a multiple of this (padding
  /// with zero centers that are never reported): Eigen computes leftover
  /// columns with another kernel that rounds x.c differently.
  static constexpr index_t kColumnMultiple = 16;

  /// The centers are rows 0..c-1 of `centers`, or, if `rows` is given,
  /// rows rows[0..c-1] of it (a gathered subset; center(j) is then
  /// centers + rows[j] d, and `rows` must outlive the tiles).
  CenterTiles(const T* centers, index_t c, index_t d, const std::int32_t* rows = nullptr)
      : centers_(centers),
        rows_(rows),
        c_(c),
        d_(d),
        row_block_(row_block_for(d)),
        shifted_(RowMatrix<T>::Zero(round_up(c), d)),
        shift_(d),
        norms_(c),
        zeros_(d, T(0)) {
    const auto at = [&](index_t i, index_t j) { return center(i)[j]; };
    // The median of at most 512 evenly strided centers: as robust, and cheap
    // enough to rebuild often (AFK-MC^2 builds one per round).
    const index_t step = (c + 511) / 512;
    std::vector<T> column;
    column.reserve(c / step + 1);
    for (index_t j = 0; j < d; ++j) {
      column.clear();
      for (index_t i = 0; i < c; i += step) column.push_back(at(i, j));
      const auto mid = column.begin() + static_cast<std::ptrdiff_t>(column.size() / 2);
      std::nth_element(column.begin(), mid, column.end());
      shift_[j] = *mid;
    }
    if (rows_) {
      for (index_t i = 0; i < c; ++i) {
        shifted_.row(i) = ConstRowMap<T>(center(i), 1, d) - shift_.transpose();
      }
    } else {
      shifted_.topRows(c) = ConstRowMap<T>(centers, c, d).rowwise() - shift_.transpose();
    }
    for (index_t j = 0; j < c; ++j) norms_[j] = shifted_.row(j).squaredNorm();
  }

  index_t size() const { return c_; }
  index_t row_block() const { return row_block_; }
  /// row_block() of tiles of d columns.
  static index_t row_block_for(index_t d) {
    return std::clamp<index_t>(kMaxScratchElements / d, 1, kMaxRowBlock);
  }
  index_t dim() const { return d_; }
  const T* center(index_t j) const {
    return centers_ + (rows_ ? static_cast<index_t>(rows_[j]) : j) * d_;
  }
  /// The shift s (d values) and ||c_j - s||^2, for callers that turn partial
  /// distances back into distances (nmbatch's bounds).
  const T* shift() const { return shift_.data(); }
  T shifted_norm2(index_t j) const { return norms_[j]; }
  /// ||x - s||^2 of one row x (d values), accumulated in double: what a
  /// visitor adds to a partial distance to recover ||x - c||^2.
  double row_shifted_norm2(const T* x) const {
    return squared_distance_exact(x, shift_.data(), d_);
  }

  /// Rounding band of the partial distances of a row with ||x - s||^2 = xs2
  /// whose nearest center so far has partial distance `best`: the partial
  /// distance of c rounds by about gamma (||c - s||^2 + 2 ||x - s|| ||c - s||)
  /// with gamma ~ sqrt(d) eps (d eps worst case), and a center within the
  /// band of the best has ||c - s|| <= ||x - s|| + ||x - c|| ~ ||x - s|| + sqrt(d2_best).
  /// r = 2 ||x - s|| + sqrt(d2_best) bounds both norms, so the band
  /// 2 (sqrt(d) + 2) eps r^2 covers the rounding with a margin of a few. (A
  /// band 6x wider overflowed the candidate list in 7% of the rows of the
  /// image patches at C = 4000, each then scanning all centers exactly.)
  T band(double xs2, T best) const {
    const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
    const double gamma = 2.0 * (std::sqrt(static_cast<double>(d_)) + 2.0) * eps;
    const double r = reach(xs2, best);
    return static_cast<T>(gamma * r * r + std::numeric_limits<T>::min());
  }

  /// Bound on |(p + xs2) - ||x - c||^2| for the partial distance p of the
  /// center c (a row's nearest so far, p = `best`): the worst-case rounding
  /// of the shifted copies and of the expansion's sums, (d + 4) eps r^2 with
  /// r as in band(), twice the worst case. Unlike the band it may compare
  /// estimates made against different tiles (another shift, another xs2).
  double estimate_error(double xs2, T best) const {
    const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
    const double r = reach(xs2, best);
    return (static_cast<double>(d_) + 4.0) * eps * r * r;
  }

  /// For the rows `x` (nrows <= row_block(), row-major (nrows, d)) calls
  ///   visit(j0, ncols, p, ld)
  /// once per center tile [j0, j0 + ncols), where p(i, j) = p[i * ld + j] is
  /// ||c_{j0+j} - s||^2 - 2 (x_i - s).(c_{j0+j} - s) = ||x_i - c_{j0+j}||^2 - ||x_i - s||^2
  /// for the shift s. Tiles come in increasing j0.
  ///
  /// If `shifted_norm2` is given, ||x_i - s||^2 of every row is written to it
  /// (computed from the shifted copy) before the first tile.
  template <typename Visit>
  void for_each_tile(const T* x, index_t nrows, Visit&& visit, T* shifted_norm2 = nullptr) const {
    scan_tiles</*kScattered=*/false>([&](index_t i) { return x + i * d_; }, nrows,
                                     std::forward<Visit>(visit), shifted_norm2);
  }

  /// for_each_tile for rows scattered in memory: row i is row(i) (d values),
  /// read once into the shifted block (no gathered copy first).
  template <typename Row, typename Visit>
  void for_each_tile_of(Row&& row, index_t nrows, Visit&& visit,
                        T* shifted_norm2 = nullptr) const {
    scan_tiles</*kScattered=*/true>(std::forward<Row>(row), nrows, std::forward<Visit>(visit),
                                    shifted_norm2);
  }

 private:
  template <bool kScattered, typename Row, typename Visit>
  void scan_tiles(Row&& row, index_t nrows, Visit&& visit, T* shifted_norm2) const {
    constexpr index_t ld = kCenterTile;
    AlignedRowMap<T> ip(scratch_buffer<T, 0>(kMaxRowBlock * kCenterTile), kMaxRowBlock,
                        kCenterTile);
    AlignedRowMap<T> xs(scratch_buffer<T, 1>(row_block_ * d_), nrows, d_);
    const T* s = shift_.data();
    // Scattered rows are fetched a few rows ahead.
    constexpr index_t kAhead = kScattered ? 4 : 0;
    const auto fetch = [&](index_t i) { prefetch_bytes(row(i), d_ * sizeof(T)); };
    for (index_t i = 0; i < std::min(kAhead, nrows); ++i) fetch(i);
    for (index_t i = 0; i < nrows; ++i) {
      if (i + kAhead < nrows) fetch(i + kAhead);
      const T* x = row(i);
      T* out = xs.data() + i * d_;
      for (index_t j = 0; j < d_; ++j) out[j] = x[j] - s[j];
      if (shifted_norm2) shifted_norm2[i] = squared_distance(out, zeros_.data(), d_);
    }
    for (index_t j0 = 0; j0 < c_; j0 += kCenterTile) {
      const index_t ncols = std::min(kCenterTile, c_ - j0);
      const index_t width = round_up(ncols);
      // Start from ||c - s||^2 and let the product accumulate onto it
      // ("dst = alpha A B" would first zero the whole tile, then add).
      const T* cn = norms_.data() + j0;
      for (index_t i = 0; i < nrows; ++i) {
        T* out = ip.data() + i * ld;
        std::copy(cn, cn + ncols, out);
        std::fill(out + ncols, out + width, T(0));
      }
      add_tile_product(ip.data(), xs.data(), nrows, d_, shifted_, j0, width);
      visit(j0, ncols, static_cast<const T*>(ip.data()), ld);
    }
  }

  // r = 2 ||x - s|| + sqrt(d2_best) of band(): bounds ||x - s|| + ||c - s||
  // for every center c within the band of the best.
  static double reach(double xs2, T best) {
    return 2.0 * std::sqrt(xs2) + std::sqrt(std::max(0.0, static_cast<double>(best) + xs2));
  }
  static index_t round_up(index_t n) {
    return (n + kColumnMultiple - 1) / kColumnMultiple * kColumnMultiple;
  }
  const T* centers_;
  const std::int32_t* rows_;
  index_t c_;
  index_t d_;
  index_t row_block_;
  RowMatrix<T> shifted_;
  Vector<T> shift_;
  std::vector<T> norms_;
  std::vector<T> zeros_;
};

}  // namespace detail
}  // namespace vcgmm
