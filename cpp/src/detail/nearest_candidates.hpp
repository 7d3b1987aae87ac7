// Internal: the exact k nearest centers of one row from blocked partial
// distances (see center_tiles.hpp), robust to the expansion's rounding.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "detail/center_tiles.hpp"

namespace vcgmm {
namespace detail {

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
  /// Beyond this k the k-th smallest is found once per k insertions (room for
  /// 2k candidates), not after each: O(1) amortised instead of O(k) per
  /// candidate (a k-nn graph asks for thousands of neighbours).
  static constexpr int kEagerMaxK = 16;

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
    lazy_ = k > kEagerMaxK;
    capacity_ = (lazy_ ? 2 * k : k) + kExtra;
    if (static_cast<int>(index_.size()) < capacity_) {
      index_.resize(capacity_);
      value_.resize(capacity_);
    }
  }

  /// Smallest partial distance seen so far.
  T best() const { return best_; }

  /// With k = 1: whether the nearest is known without ranking (a single
  /// candidate within the band), then center only(), whose squared distance
  /// lies within tiles.estimate_error(xs2, best()) of best() + xs2.
  bool settled() const { return k_ == 1 && count_ == 1 && !overflow_; }
  std::int32_t only() const { return index_[0]; }
  double estimate() const { return static_cast<double>(best_) + xs2_; }
  double estimate_error() const { return tiles_->estimate_error(xs2_, best_); }

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
          if (lazy_) update_kth();
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
        } else if (count_ >= k_ && !lazy_) {
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
    if (settled()) {  // the common case: no near-tie
      index_out[0] = index_[0];
      d2_out[0] = squared_distance_exact(x_, tiles_->center(index_[0]), tiles_->dim());
      return 1;
    }
    if (lazy_ && count_ >= k_) update_kth();  // kth_ is only an upper bound until here
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
  // kth_ = the k-th smallest value kept (infinity while fewer than k); when
  // lazy_, an upper bound of it (a looser band keeps more, never fewer).
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
  bool lazy_ = false;
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
