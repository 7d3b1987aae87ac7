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

#if defined(__GNUC__) || defined(__clang__)
/// 64-byte vectors (GCC/Clang vector extensions): compiled to AVX-512, AVX2
/// or SSE2 instructions by each build, with the same lane layout everywhere.
template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float V __attribute__((vector_size(64)));
  typedef float H __attribute__((vector_size(32)));
  static constexpr int n = 16;
};
template <>
struct Lanes<double> {
  typedef double V __attribute__((vector_size(64)));
  typedef double H __attribute__((vector_size(32)));
  static constexpr int n = 8;
};

/// Sum of the lanes by halving, in registers (a fixed tree, not a serial chain).
inline float sum_lanes16(Lanes<float>::V v) {
  typedef float V8 __attribute__((vector_size(32)));
  typedef float V4 __attribute__((vector_size(16)));
  const V8 a = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7) +
               __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
  const V4 b = __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
  return (b[0] + b[2]) + (b[1] + b[3]);
}
inline double sum_lanes8(Lanes<double>::V v) {
  typedef double V4 __attribute__((vector_size(32)));
  typedef double V2 __attribute__((vector_size(16)));
  const V4 a = __builtin_shufflevector(v, v, 0, 1, 2, 3) + __builtin_shufflevector(v, v, 4, 5, 6, 7);
  const V2 b = __builtin_shufflevector(a, a, 0, 1) + __builtin_shufflevector(a, a, 2, 3);
  return b[0] + b[1];
}
template <typename T>
inline T sum_lanes(const typename Lanes<T>::V& v);
template <>
inline float sum_lanes<float>(const Lanes<float>::V& v) {
  return sum_lanes16(v);
}
template <>
inline double sum_lanes<double>(const Lanes<double>::V& v) {
  return sum_lanes8(v);
}

/// ||a - b||^2 for two rows of length d, computed in T: 64-byte lanes over
/// the leading multiple of the lane count, then the tail; summed in a fixed
/// order (independent of alignment and of the instruction set's width).
template <typename T>
inline T squared_distance(const T* a, const T* b, index_t d) {
  using V = typename Lanes<T>::V;
  using H = typename Lanes<T>::H;
  constexpr index_t L = Lanes<T>::n;
  V acc = {};
  index_t k = 0;
  for (; k + L <= d; k += L) {
    V va, vb;
    __builtin_memcpy(&va, a + k, sizeof(V));
    __builtin_memcpy(&vb, b + k, sizeof(V));
    const V t = va - vb;
    acc += t * t;
  }
  T sum = sum_lanes<T>(acc);
  if (k + L / 2 <= d) {  // one half-width step of the tail
    H ha, hb;
    __builtin_memcpy(&ha, a + k, sizeof(H));
    __builtin_memcpy(&hb, b + k, sizeof(H));
    const H t = ha - hb;
    const H t2 = t * t;
    T part = T(0);
    for (int i = 0; i < L / 2; ++i) part += t2[i];
    sum += part;
    k += L / 2;
  }
  T tail[4] = {T(0), T(0), T(0), T(0)};
  for (index_t j = 0; k < d; ++k, ++j) {
    const T t = a[k] - b[k];
    tail[j & 3] += t * t;
  }
  return sum + ((tail[0] + tail[1]) + (tail[2] + tail[3]));
}
#else
/// ||a - b||^2 for two rows of length d, computed in T (vectorized).
template <typename T>
inline T squared_distance(const T* a, const T* b, index_t d) {
  return (ConstVectorMap<T>(a, d) - ConstVectorMap<T>(b, d)).squaredNorm();
}
#endif

/// ||a - b||^2 accumulated in double: the exact value used for quality
/// measurements (quantization error, inertia), immune to the cancellation of
/// the GEMM expansion. Fixed summation order, like squared_distance.
template <typename T>
inline double squared_distance_exact(const T* a, const T* b, index_t d) {
#if defined(__GNUC__) || defined(__clang__)
  typedef double V8 __attribute__((vector_size(64)));
  typedef T In8 __attribute__((vector_size(8 * sizeof(T))));
  V8 acc = {};
  index_t k = 0;
  for (; k + 8 <= d; k += 8) {
    In8 va, vb;
    __builtin_memcpy(&va, a + k, sizeof(In8));
    __builtin_memcpy(&vb, b + k, sizeof(In8));
    const V8 t = __builtin_convertvector(va, V8) - __builtin_convertvector(vb, V8);
    acc += t * t;
  }
  double tail = 0.0;
  for (; k < d; ++k) {
    const double t = static_cast<double>(a[k]) - static_cast<double>(b[k]);
    tail += t * t;
  }
  return sum_lanes8(acc) + tail;
#else
  return (ConstVectorMap<T>(a, d).template cast<double>() -
          ConstVectorMap<T>(b, d).template cast<double>())
      .squaredNorm();
#endif
}

/// acc[j] += a * x[j] for j < d, in double (a plain loop: the compiler
/// vectorizes the conversion and the FMA; the order per element is fixed).
template <typename T>
inline void add_scaled_to_double(double* acc, double a, const T* x, index_t d) {
  for (index_t j = 0; j < d; ++j) acc[j] += a * static_cast<double>(x[j]);
}

/// acc[j] += a * (x[j] - center[j]) for j < d, in double (vectorized like
/// add_scaled_to_double). Accumulating about a center (the data mean) keeps
/// means of constant data exact and second moments well conditioned.
template <typename T>
inline void add_scaled_difference_to_double(double* acc, double a, const T* x, const double* center,
                                            index_t d) {
  for (index_t j = 0; j < d; ++j) acc[j] += a * (static_cast<double>(x[j]) - center[j]);
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
/// shifted by s, the coordinate-wise median of (up to 512 of) the centers, before the
/// product: for data far from the origin (relative to their spread) the
/// expansion would otherwise cancel catastrophically in float32 (||x||^2 ~
/// 1e6 swallowing differences ~ 1). The median, unlike the mean, stays with
/// the bulk of the centers when a few lie far away.
template <typename T>
class CenterTiles {
 public:
  static constexpr index_t kRowBlock = 256;
  static constexpr index_t kCenterTile = 512;
  /// Tiles are computed with a width that is a multiple of this (padding
  /// with zero centers that are never reported): Eigen computes leftover
  /// columns with another kernel that rounds x.c differently.
  static constexpr index_t kColumnMultiple = 16;

  CenterTiles(const T* centers, index_t c, index_t d)
      : centers_(centers),
        c_(c),
        d_(d),
        shifted_(RowMatrix<T>::Zero(round_up(c), d)),
        shift_(d),
        norms_(c),
        zeros_(d, T(0)) {
    ConstRowMap<T> cm(centers, c, d);
    // The median of at most 512 evenly strided centers: as robust, and cheap
    // enough to rebuild often (AFK-MC^2 builds one per round).
    const index_t step = (c + 511) / 512;
    std::vector<T> column;
    column.reserve(c / step + 1);
    for (index_t j = 0; j < d; ++j) {
      column.clear();
      for (index_t i = 0; i < c; i += step) column.push_back(cm(i, j));
      const auto mid = column.begin() + static_cast<std::ptrdiff_t>(column.size() / 2);
      std::nth_element(column.begin(), mid, column.end());
      shift_[j] = *mid;
    }
    shifted_.topRows(c) = cm.rowwise() - shift_.transpose();
    for (index_t j = 0; j < c; ++j) norms_[j] = shifted_.row(j).squaredNorm();
  }

  index_t size() const { return c_; }
  index_t dim() const { return d_; }
  const T* center(index_t j) const { return centers_ + j * d_; }

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
    const double xs = std::sqrt(xs2);
    const double db = std::sqrt(std::max(0.0, static_cast<double>(best) + xs2));
    const double r = 2.0 * xs + db;
    return static_cast<T>(gamma * r * r + std::numeric_limits<T>::min());
  }

  /// For the rows `x` (nrows <= kRowBlock, row-major (nrows, d)) calls
  ///   visit(j0, ncols, p, ld)
  /// once per center tile [j0, j0 + ncols), where p(i, j) = p[i * ld + j] is
  /// ||c_{j0+j} - s||^2 - 2 (x_i - s).(c_{j0+j} - s) = ||x_i - c_{j0+j}||^2 - ||x_i - s||^2
  /// for the shift s. Tiles come in increasing j0.
  ///
  /// If `shifted_norm2` is given, ||x_i - s||^2 of every row is written to it
  /// (computed from the shifted copy) before the first tile.
  template <typename Visit>
  void for_each_tile(const T* x, index_t nrows, Visit&& visit, T* shifted_norm2 = nullptr) const {
    RowMatrix<T>& ip = scratch_matrix<T, 0>(kRowBlock, kCenterTile);
    RowMatrix<T>& xs = scratch_matrix<T, 1>(kRowBlock, d_);
    const index_t ld = ip.cols();
    xs.topLeftCorner(nrows, d_) = ConstRowMap<T>(x, nrows, d_).rowwise() - shift_.transpose();
    if (shifted_norm2) {
      const index_t xld = xs.cols();
      for (index_t i = 0; i < nrows; ++i) {
        const T* r = xs.data() + i * xld;
        shifted_norm2[i] = squared_distance(r, zeros_.data(), d_);
      }
    }
    const auto xb = xs.topLeftCorner(nrows, d_);
    for (index_t j0 = 0; j0 < c_; j0 += kCenterTile) {
      const index_t ncols = std::min(kCenterTile, c_ - j0);
      const index_t width = round_up(ncols);
      // Start from ||c - s||^2 and let the product accumulate onto it
      // ("dst = alpha A B" would first zero the whole tile, then add).
      const T* cn = norms_.data() + j0;
      for (index_t i = 0; i < nrows; ++i) {
        T* row = ip.data() + i * ld;
        std::copy(cn, cn + ncols, row);
        std::fill(row + ncols, row + width, T(0));
      }
      auto out = ip.topLeftCorner(nrows, width);
      out.noalias() += T(-2) * (xb * shifted_.middleRows(j0, width).transpose());
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
  std::vector<T> zeros_;
};

/// The k nearest centers of one row, exactly: every center whose partial
/// distance lies within the rounding band of the k-th smallest seen so far is
/// kept, and the candidates are then ranked by their exact squared distances
/// in double (ties: the lowest index). So exact duplicates and mathematically
/// tied centers resolve to the lowest index whatever the GEMM rounds, and a
/// rounding error can never swap a true neighbour for a wrong one.
/// k = 1 is the nearest center (assignment, labels, quantization error).
template <typename T>
class NearestCandidates {
 public:
  static constexpr int kExtra = 24;  // room for near-ties beyond k

  /// Starts a row x with ||x - s||^2 = xs2 (see CenterTiles::for_each_tile).
  void reset(const CenterTiles<T>& tiles, const T* x, int k, T xs2) {
    tiles_ = &tiles;
    x_ = x;
    k_ = k;
    xs2_ = static_cast<double>(xs2);
    count_ = 0;
    overflow_ = false;
    best_ = std::numeric_limits<T>::infinity();
    kth_ = std::numeric_limits<T>::infinity();
    capacity_ = k + kExtra;
    if (static_cast<int>(index_.size()) < capacity_) {
      index_.resize(capacity_);
      value_.resize(capacity_);
    }
  }

  /// Smallest partial distance seen so far.
  T best() const { return best_; }

  /// Offers the row segment p[0..n) of centers j0.. (called in increasing j0).
  void offer(index_t j0, const T* p, index_t n) {
    const T tile_min = ConstVectorMap<T>(p, n).minCoeff();
    if (tile_min < best_) best_ = tile_min;
    // With k = 1 the k-th smallest after this tile is at most tile_min.
    T kth = k_ == 1 ? std::min(kth_, tile_min) : kth_;
    T threshold = kth + tiles_->band(xs2_, best_);
    if (!(tile_min <= threshold)) return;  // nothing here can be among the k nearest
    constexpr index_t kChunk = 64;
    for (index_t c0 = 0; c0 < n; c0 += kChunk) {
      const index_t c1 = std::min(n, c0 + kChunk);
      // Counting hits (an integer sum of comparisons) vectorizes; a boolean
      // "any" did not. Chunks without candidates are skipped.
      int hits = 0;
      for (index_t j = c0; j < c1; ++j) hits += p[j] <= threshold;
      if (hits == 0) continue;
      for (index_t j = c0; j < c1; ++j) {
        if (!(p[j] <= threshold)) continue;
        if (count_ == capacity_) {
          compact();
          if (count_ == capacity_) {
            overflow_ = true;  // too many near-ties: resolve() scans all centers
            continue;
          }
        }
        index_[count_] = static_cast<std::int32_t>(j0 + j);
        value_[count_] = p[j];
        ++count_;
        if (k_ == 1) {
          kth_ = std::min(kth_, p[j]);
        } else if (count_ >= k_) {
          update_kth();
        }
        kth = k_ == 1 ? std::min(kth_, tile_min) : kth_;
        threshold = kth + tiles_->band(xs2_, best_);
      }
    }
  }

  /// Writes the k nearest centers (nearest first) and their exact squared
  /// distances; returns the number written (min(k, C)).
  int resolve(std::int32_t* index_out, double* d2_out) {
    if (k_ == 1 && count_ == 1 && !overflow_) {  // the common case: no near-tie
      index_out[0] = index_[0];
      d2_out[0] = squared_distance_exact(x_, tiles_->center(index_[0]), tiles_->dim());
      return 1;
    }
    std::vector<std::pair<double, std::int32_t>>& ranked = ranked_;
    ranked.clear();
    if (overflow_) {
      for (index_t j = 0; j < tiles_->size(); ++j) {
        ranked.emplace_back(squared_distance_exact(x_, tiles_->center(j), tiles_->dim()),
                            static_cast<std::int32_t>(j));
      }
    } else {
      const T threshold = kth_ + tiles_->band(xs2_, best_);
      for (int i = 0; i < count_; ++i) {
        if (!(value_[i] <= threshold)) continue;
        ranked.emplace_back(squared_distance_exact(x_, tiles_->center(index_[i]), tiles_->dim()),
                            index_[i]);
      }
    }
    const int k = std::min<int>(k_, static_cast<int>(ranked.size()));
    std::partial_sort(ranked.begin(), ranked.begin() + k, ranked.end());
    for (int i = 0; i < k; ++i) {
      index_out[i] = ranked[i].second;
      d2_out[i] = ranked[i].first;
    }
    return k;
  }

 private:
  // kth_ = the k-th smallest value kept (infinity while fewer than k).
  void update_kth() {
    scratch_.assign(value_.begin(), value_.begin() + count_);
    std::nth_element(scratch_.begin(), scratch_.begin() + (k_ - 1), scratch_.end());
    kth_ = scratch_[k_ - 1];
  }
  // Drops the candidates that fell out of the band.
  void compact() {
    const T threshold = kth_ + tiles_->band(xs2_, best_);
    int kept = 0;
    for (int i = 0; i < count_; ++i) {
      if (value_[i] <= threshold) {
        index_[kept] = index_[i];
        value_[kept] = value_[i];
        ++kept;
      }
    }
    count_ = kept;
  }

  const CenterTiles<T>* tiles_ = nullptr;
  const T* x_ = nullptr;
  int k_ = 1;
  int count_ = 0;
  int capacity_ = 0;
  bool overflow_ = false;
  double xs2_ = 0.0;
  T best_ = std::numeric_limits<T>::infinity();
  T kth_ = std::numeric_limits<T>::infinity();
  std::vector<std::int32_t> index_;
  std::vector<T> value_;
  std::vector<T> scratch_;
  std::vector<std::pair<double, std::int32_t>> ranked_;
};

}  // namespace detail
}  // namespace vcgmm
