// Internal: kernel values in blocks, and inner products with centers that
// are weighted sums of data points.
//
// A kernel k-means pass computes, for query rows x and centers
// C_j = sum_p a_jp phi(s_p) over support points s_p, the inner products
// <phi(x), C_j> = sum_p a_jp K(x, s_p). The support points are the columns of
// the kernel block; SupportTiles produces the block tile by tile (rows x 512
// columns, in a per-thread buffer): rbf through CenterTiles' GEMM expansion
// ||x||^2 - 2 x.s + ||s||^2 (shifted for accuracy), polynomial/linear through
// a GEMM of x.s, laplacian by a direct L1 loop, precomputed by reading the
// caller's kernel rows. ColumnTerms says which centers each column feeds.
// inner_products runs the rows in tasks of fixed row blocks (determinism
// contract of parallel.hpp); accumulate_block is one such block, serial, for
// callers already inside a task.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "detail/center_tiles.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "vcgmm/kernel_kmeans.hpp"

namespace vcgmm {
namespace detail {

/// A kernel with its parameters resolved (gamma > 0 where it is used).
template <typename T>
class KernelFunction {
 public:
  KernelFunction(const KernelParams& p, index_t d) : p_(p), d_(d) {}

  KernelType type() const { return p_.type; }
  bool precomputed() const { return p_.type == KernelType::precomputed; }
  const KernelParams& params() const { return p_; }
  index_t dim() const { return d_; }

  /// K(x, y) of two rows of length d; precomputed: x is a kernel row and
  /// y_index the column (y is ignored).
  double pair(const T* x, const T* y, index_t y_index) const {
    switch (p_.type) {
      case KernelType::rbf:
        return std::exp(-p_.gamma * static_cast<double>(squared_distance(x, y, d_)));
      case KernelType::laplacian:
        return std::exp(-p_.gamma * static_cast<double>(l1_distance(x, y)));
      case KernelType::polynomial:
        return power(p_.gamma * static_cast<double>(dot(x, y)) + p_.coef0);
      case KernelType::linear:
        return static_cast<double>(dot(x, y));
      case KernelType::precomputed:
        return static_cast<double>(x[y_index]);
    }
    return 0.0;
  }

  /// K(x, x); precomputed needs x's own column index.
  double self(const T* x, index_t x_index) const {
    switch (p_.type) {
      case KernelType::rbf:
      case KernelType::laplacian:
        return 1.0;
      default:
        return pair(x, x, x_index);
    }
  }

  /// Turns n raw values in place into kernel values: rbf squared distances,
  /// laplacian L1 distances, polynomial/linear dot products.
  void transform(T* v, index_t n) const {
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> a(v, n);
    switch (p_.type) {
      case KernelType::rbf:
        // Negative values are the expansion's rounding: the distance is 0.
        a = (a.max(T(0)) * static_cast<T>(-p_.gamma)).exp();
        break;
      case KernelType::laplacian:
        a = (a * static_cast<T>(-p_.gamma)).exp();
        break;
      case KernelType::polynomial: {
        const T g = static_cast<T>(p_.gamma), c = static_cast<T>(p_.coef0);
        for (index_t i = 0; i < n; ++i) {
          const T base = g * v[i] + c;
          T r = base;
          for (int k = 1; k < p_.degree; ++k) r *= base;
          v[i] = r;
        }
        break;
      }
      default:
        break;
    }
  }

  /// sum_k |x_k - y_k| in T, fixed order.
  T l1_distance(const T* x, const T* y) const {
    T acc[4] = {T(0), T(0), T(0), T(0)};
    index_t k = 0;
    for (; k + 4 <= d_; k += 4) {
      for (int l = 0; l < 4; ++l) acc[l] += std::abs(x[k + l] - y[k + l]);
    }
    for (int l = 0; k < d_; ++k, ++l) acc[l] += std::abs(x[k] - y[k]);
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }

 private:
  T dot(const T* x, const T* y) const {
    return ConstVectorMap<T>(x, d_).dot(ConstVectorMap<T>(y, d_));
  }
  double power(double base) const {
    double r = base;
    for (int k = 1; k < p_.degree; ++k) r *= base;
    return r;
  }

  KernelParams p_;
  index_t d_;
};

/// The support points of a set of centers, as columns of kernel blocks.
template <typename T>
class SupportTiles {
 public:
  static constexpr index_t kTile = CenterTiles<T>::kCenterTile;
  static constexpr index_t kMaxRowBlock = CenterTiles<T>::kMaxRowBlock;

  /// rows: (m, d) row-major coordinates of the support points (not owned;
  /// must outlive this object; ignored for precomputed); cols: (m,) their
  /// column indices in the kernel rows (precomputed only; not owned).
  SupportTiles(const KernelFunction<T>& kernel, const T* rows, const index_t* cols, index_t m)
      : kernel_(kernel), rows_(rows), cols_(cols), m_(m), d_(kernel.dim()) {
    if (kernel_.type() == KernelType::rbf && m_ > 0) {
      rbf_ = std::make_unique<CenterTiles<T>>(rows_, m_, d_);
    }
  }

  index_t size() const { return m_; }
  const KernelFunction<T>& kernel() const { return kernel_; }

  /// Query rows per block: 256, fewer for very wide rows (they are gathered
  /// into a per-thread buffer). Depends on d only.
  index_t row_block() const {
    if (kernel_.precomputed()) return kMaxRowBlock;
    return std::clamp<index_t>(kMaxScratchElements / std::max<index_t>(d_, 1), 1, kMaxRowBlock);
  }

  /// For query rows q[0..nrows) (nrows <= row_block(); precomputed: kernel
  /// rows) calls visit(j0, ncols, K, ld) per tile of columns [j0, j0 + ncols),
  /// with K[i * ld + j] = K(q_i, s_{j0 + j}); tiles in increasing j0.
  template <typename Visit>
  void for_each_tile(const T* const* q, index_t nrows, Visit&& visit) const {
    if (m_ == 0 || nrows == 0) return;
    T* tile = scratch_buffer<T, 3>(kMaxRowBlock * kTile);
    if (kernel_.precomputed()) {
      for (index_t j0 = 0; j0 < m_; j0 += kTile) {
        const index_t nc = std::min(kTile, m_ - j0);
        for (index_t i = 0; i < nrows; ++i) {
          T* out = tile + i * kTile;
          const T* row = q[i];
          for (index_t j = 0; j < nc; ++j) out[j] = row[cols_[j0 + j]];
        }
        visit(j0, nc, static_cast<const T*>(tile), kTile);
      }
      return;
    }
    const T* x = contiguous(q, nrows);
    switch (kernel_.type()) {
      case KernelType::rbf: {
        T xs2[kMaxRowBlock];
        rbf_->for_each_tile(x, nrows, [&](index_t j0, index_t nc, const T* p, index_t ld) {
          for (index_t i = 0; i < nrows; ++i) {
            T* out = tile + i * kTile;
            const T* pi = p + i * ld;
            for (index_t j = 0; j < nc; ++j) out[j] = pi[j] + xs2[i];
            kernel_.transform(out, nc);
          }
          visit(j0, nc, static_cast<const T*>(tile), kTile);
        }, xs2);
        break;
      }
      case KernelType::polynomial:
      case KernelType::linear: {
        ConstRowMap<T> xm(x, nrows, d_);
        ConstRowMap<T> sm(rows_, m_, d_);
        for (index_t j0 = 0; j0 < m_; j0 += kTile) {
          const index_t nc = std::min(kTile, m_ - j0);
          Eigen::Map<RowMatrix<T>, 0, Eigen::OuterStride<>> out(tile, nrows, nc,
                                                                 Eigen::OuterStride<>(kTile));
          out.noalias() = xm * sm.middleRows(j0, nc).transpose();
          for (index_t i = 0; i < nrows; ++i) kernel_.transform(tile + i * kTile, nc);
          visit(j0, nc, static_cast<const T*>(tile), kTile);
        }
        break;
      }
      case KernelType::laplacian: {
        for (index_t j0 = 0; j0 < m_; j0 += kTile) {
          const index_t nc = std::min(kTile, m_ - j0);
          for (index_t i = 0; i < nrows; ++i) {
            T* out = tile + i * kTile;
            for (index_t j = 0; j < nc; ++j) {
              out[j] = kernel_.l1_distance(x + i * d_, rows_ + (j0 + j) * d_);
            }
            kernel_.transform(out, nc);
          }
          visit(j0, nc, static_cast<const T*>(tile), kTile);
        }
        break;
      }
      default:
        break;
    }
  }

 private:
  /// The rows as one (nrows, d) array: q itself when its rows are
  /// consecutive, else a per-thread copy.
  const T* contiguous(const T* const* q, index_t nrows) const {
    bool consecutive = true;
    for (index_t i = 1; i < nrows && consecutive; ++i) consecutive = q[i] == q[0] + i * d_;
    if (consecutive) return q[0];
    T* buf = scratch_buffer<T, 2>(kMaxRowBlock * d_);
    for (index_t i = 0; i < nrows; ++i) std::copy(q[i], q[i] + d_, buf + i * d_);
    return buf;
  }

  const KernelFunction<T>& kernel_;
  const T* rows_;
  const index_t* cols_;
  index_t m_;
  index_t d_;
  std::unique_ptr<CenterTiles<T>> rbf_;
};

/// Which center each support column feeds: the columns of center j are
/// [start[j], start[j + 1]) (the centers' points side by side, so a point
/// shared by two centers is two columns), column p with coefficient coef[p].
struct CenterColumns {
  std::vector<index_t> start{0};
  std::vector<double> coef;

  index_t centers() const { return static_cast<index_t>(start.size()) - 1; }
  index_t columns() const { return start.back(); }
};

/// out[i * k + j] += <phi(q_i), C_j> for one block of rows (serial; nrows <=
/// S.row_block()); per (row, center) the tiles are summed in increasing order.
template <typename T>
void accumulate_block(const SupportTiles<T>& S, const CenterColumns& cols, index_t k,
                      const T* const* q, index_t nrows, double* out) {
  index_t first = 0;  // the first center whose columns reach into the tile
  S.for_each_tile(q, nrows, [&](index_t j0, index_t nc, const T* K, index_t ld) {
    const index_t j1 = j0 + nc;
    while (first < k && cols.start[first + 1] <= j0) ++first;
    for (index_t c = first; c < k && cols.start[c] < j1; ++c) {
      const index_t a = std::max(cols.start[c], j0), e = std::min(cols.start[c + 1], j1);
      if (a >= e) continue;
      const double* coef = cols.coef.data() + a;
      for (index_t i = 0; i < nrows; ++i) {
        out[i * k + c] += dot_in_double(K + i * ld + (a - j0), coef, e - a);
      }
    }
  });
}

/// Work of one kernel value (flops, roughly), for the thread count.
inline double kernel_value_flops(const KernelParams& p, index_t d) {
  return 2.0 * static_cast<double>(d) + (p.type == KernelType::precomputed ? 2.0 : 20.0);
}

/// out (n, k), overwritten: out[i * k + j] = <phi(x_i), C_j> for the rows
/// x_i = row_of(i), i < n, in tasks of S.row_block() rows.
template <typename T, typename RowOf>
void inner_products(const SupportTiles<T>& S, const CenterColumns& cols, index_t k, index_t n,
                    RowOf&& row_of, int n_threads, double* out) {
  std::fill(out, out + n * k, 0.0);
  if (S.size() == 0) return;
  const index_t rb = S.row_block();
  parallel_for(n_chunks(n, rb), n_threads, [&](index_t task) {
    const index_t r0 = task * rb, nrows = std::min(rb, n - r0);
    const T* q[SupportTiles<T>::kMaxRowBlock];
    for (index_t i = 0; i < nrows; ++i) q[i] = row_of(r0 + i);
    accumulate_block(S, cols, k, q, nrows, out + r0 * k);
  }, static_cast<double>(rb) * static_cast<double>(S.size()) *
         kernel_value_flops(S.kernel().params(), S.kernel().dim()));
}

}  // namespace detail
}  // namespace vcgmm
