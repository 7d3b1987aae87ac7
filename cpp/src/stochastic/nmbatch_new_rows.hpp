// Internal (nmbatch): the rows entering the batch. Their nearest centers come
// out of the blocked scan (all C distances, one matrix product per tile), and
// so do their bounds: ||x - c||^2 = p + ||x - s||^2 for the partial distance
// p of the tile, lowered by a rigorous bound of the product's rounding,
// gamma (||x - s|| + ||c - s||)^2 (a dot product of length d in T errs by at
// most d eps |a| |b|; the shift's rounding adds a few eps).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "detail/blocked_scan.hpp"
#include "stochastic/nmbatch_bounds.hpp"

namespace vcgmm {
namespace detail {
namespace nmbatch {

enum class Kind { none, elkan, yinyang };

/// Handler of the scan over the new rows (gathered, in batch order).
template <typename T, Kind K>
struct NewRowsHandler {
  using Partial = NoPartial;
  struct Block {
    double xs[CenterTiles<T>::kMaxRowBlock];  // ||x - s|| per row
    std::vector<float> min1, min2;            // Yinyang: two smallest bounds per (row, group)
    std::vector<std::int32_t> arg1;           // and the center of the smallest
  };
  static constexpr bool kVisitsTiles = K != Kind::none;

  const DataView<T>& rows;
  const CenterTiles<T>& tiles;
  const double* cs;          // (C,) ||c_j - s||
  double gamma;              // rounding of a squared distance per (||x - s|| + ||c - s||)^2
  index_t pos0;              // batch position of rows.row(0)
  std::int32_t* labels;      // by position
  double* d2;                // by position
  float* bounds;             // by position: C (elkan) or G (yinyang) per row
  const Groups* groups;      // yinyang

  float lower_bound(double p, double xs, index_t j) const {
    const double e = xs + cs[j];
    const double lb2 = p + xs * xs - gamma * e * e;
    return lb2 > 0.0 ? round_down(std::sqrt(lb2)) : 0.0f;
  }

  void tile(Block& b, index_t row, index_t i, index_t j0, const T* p, index_t n, T, T) const {
    const index_t C = tiles.size();
    if (j0 == 0) {
      b.xs[i] = std::sqrt(tiles.row_shifted_norm2(rows.row(row)));
    }
    const double xs = b.xs[i];
    if constexpr (K == Kind::elkan) {
      float* l = bounds + (pos0 + row) * C + j0;
      for (index_t j = 0; j < n; ++j) l[j] = lower_bound(static_cast<double>(p[j]), xs, j0 + j);
    } else if constexpr (K == Kind::yinyang) {
      const index_t G = groups->size();
      if (b.min1.empty()) {
        b.min1.resize(CenterTiles<T>::kMaxRowBlock * G);
        b.min2.resize(CenterTiles<T>::kMaxRowBlock * G);
        b.arg1.resize(CenterTiles<T>::kMaxRowBlock * G);
      }
      float* m1 = b.min1.data() + i * G;
      float* m2 = b.min2.data() + i * G;
      std::int32_t* a1 = b.arg1.data() + i * G;
      if (j0 == 0) {
        std::fill(m1, m1 + G, kNoBound);
        std::fill(m2, m2 + G, kNoBound);
        std::fill(a1, a1 + G, -1);
      }
      for (index_t j = 0; j < n; ++j) {
        const float l = lower_bound(static_cast<double>(p[j]), xs, j0 + j);
        const std::int32_t g = groups->group_of[j0 + j];
        if (l < m1[g]) {
          m2[g] = m1[g];
          m1[g] = l;
          a1[g] = static_cast<std::int32_t>(j0 + j);
        } else if (l < m2[g]) {
          m2[g] = l;
        }
      }
    }
  }

  void row(Block& b, Partial&, index_t row, index_t i, const std::int32_t* idx, const double* dd,
           int) const {
    const index_t k = pos0 + row;
    labels[k] = idx[0];
    d2[k] = dd[0];
    if constexpr (K == Kind::yinyang) {
      // The group bound covers the group's centers other than the assigned one.
      const index_t G = groups->size();
      float* lg = bounds + k * G;
      for (index_t g = 0; g < G; ++g) {
        lg[g] = b.arg1[i * G + g] == idx[0] ? b.min2[i * G + g] : b.min1[i * G + g];
      }
    }
  }
};

/// Assigns the new rows (nearest center, squared distance) and initialises
/// their bounds; returns the distances computed (n C).
template <typename T, Kind K>
std::int64_t assign_new_rows(const DataView<T>& rows, const T* centers, index_t C,
                             index_t pos0, std::int32_t* labels, double* d2, float* bounds,
                             const Groups* groups, int n_threads) {
  const CenterTiles<T> tiles(centers, C, rows.d);
  std::vector<double> cs(C);
  for (index_t j = 0; j < C; ++j) cs[j] = std::sqrt(static_cast<double>(tiles.shifted_norm2(j)));
  const double gamma =
      2.0 * static_cast<double>(rows.d + 8) * static_cast<double>(std::numeric_limits<T>::epsilon());
  const NewRowsHandler<T, K> handler{rows, tiles, cs.data(), gamma, pos0, labels, d2, bounds,
                                     groups};
  scan_nearest(rows, tiles, 1, handler, n_threads, 2.0 * rows.d + (K == Kind::none ? 0.0 : 20.0));
  return rows.n * C;
}

}  // namespace nmbatch
}  // namespace detail
}  // namespace vcgmm
