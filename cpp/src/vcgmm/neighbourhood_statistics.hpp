// Internal (variational loop): the statistics behind the neighbourhood update.
//
// For each cluster c, over the points n whose winner c_o(n) is c (the set
// I_c), and for every other candidate c~ of their search spaces S(n), the sum
// and count of the Euclidean distances ||y_n - mu_c~||; the score of c~ is
// their mean. After an E-step, G_c = c followed by the G - 1 candidates of
// smallest score (never seen = infinitely far); a cluster that won no point
// keeps its G_c.
//
// The E-step writes each point's search space and distances into a buffer of
// one block of points (at most kMaxBlockPoints, so no O(N G^2) buffer is ever
// held); after each block, fold_block adds the block to the statistics of the
// winners: clusters in parallel, each cluster's points in index order (so the
// sums do not depend on the thread count).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/scratch_pool.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

class NeighbourhoodStatistics {
 public:
  static constexpr index_t kMaxBlockPoints = 65536;              // points per E-step block
  static constexpr index_t kClustersPerTask = kBalancedClustersPerTask;  // fold and update
  static constexpr index_t kBlockBufferEntries = index_t(1) << 22;  // candidates buffered per block

  /// G < C (with G == C the loop needs no neighbourhoods).
  NeighbourhoodStatistics(index_t N, index_t C, int G, bool plus1)
      : C_(C), G_(G), stride_(static_cast<index_t>(G) * G + (plus1 ? 1 : 0)), stats_(C), won_(C),
        positions_(C, -1), search_flags_(C, 0) {
    block_points_ = std::clamp<index_t>(kBlockBufferEntries / stride_, kEStepPointsPerTask,
                                        kMaxBlockPoints);
    block_points_ -= block_points_ % kEStepPointsPerTask;
    block_points_ = std::min(block_points_, N);
    cand_.resize(block_points_ * stride_);
    dist_.resize(block_points_ * stride_);
    count_.resize(block_points_);
    winner_.resize(block_points_);
  }

  /// Points per block of the E-step (a multiple of kEStepPointsPerTask, or N).
  index_t block_points() const { return block_points_; }
  /// Most candidates of one search space: G^2 (+1).
  index_t stride() const { return stride_; }
  /// (C,) flags for the E-step's collection of S(n), all 0 between points.
  ScratchPool<std::uint8_t>& search_flags() { return search_flags_; }

  /// Before the first block of an E-step.
  void begin_estep() { std::fill(won_.begin(), won_.end(), 0); }

  /// The search space of the point in block slot `slot`: m candidates and
  /// their squared distances, and its winner.
  void record(index_t slot, const std::int32_t* cand, const double* d2, index_t m,
              std::int32_t winner) {
    std::int32_t* bc = &cand_[slot * stride_];
    float* bd = &dist_[slot * stride_];
    for (index_t j = 0; j < m; ++j) {
      bc[j] = cand[j];
      bd[j] = static_cast<float>(std::sqrt(d2[j]));
    }
    count_[slot] = static_cast<std::int32_t>(m);
    winner_[slot] = winner;
  }

  /// Adds the `nb` recorded points of the block to their winners' statistics.
  void fold_block(index_t nb, int n_threads) {
    part_.build(winner_.data(), nb, C_);
    parallel_for(n_chunks(C_, kClustersPerTask), n_threads, [&](index_t t) {
      // candidate -> index in the cluster's list, all -1 between clusters,
      // from the pool (a per-task array cost O(C) per task: O(C^2) a block).
      ScratchPool<std::int32_t>::Lease pos(positions_);
      const index_t c0 = t * kClustersPerTask, c1 = std::min(C_, c0 + kClustersPerTask);
      for (index_t c = c0; c < c1; ++c) {
        if (part_.size(c) == 0) continue;
        won_[c] = 1;
        fold_cluster(c, pos.data());
      }
      // (The work per candidate entry, a position lookup and a running sum,
      // costs as much as ~80 flops of the E-step's distances; with a smaller
      // estimate parallel_for ran this fold on one thread at N' = 2^14.)
    }, 80.0 * kClustersPerTask * stride_ *
           (static_cast<double>(nb) / static_cast<double>(C_) + 4.0));
  }

  /// G_c = c followed by the G - 1 candidates of smallest mean distance, for
  /// every cluster that won a point in this E-step; clears the statistics.
  void update_neighbourhoods(std::int32_t* Gc, int n_threads) {
    parallel_for(n_chunks(C_, kClustersPerTask), n_threads, [&](index_t t) {
      const index_t c0 = t * kClustersPerTask, c1 = std::min(C_, c0 + kClustersPerTask);
      // The G - 1 smallest (score, candidate) pairs so far, ascending (ties:
      // lower candidate): a running insertion, as G is small (a partial sort
      // of each list cost ~10% of an iteration at C = 2^18).
      std::vector<std::pair<double, std::int32_t>> best(static_cast<std::size_t>(G_));
      for (index_t c = c0; c < c1; ++c) {
        std::vector<Entry>& list = stats_[c];
        if (!won_[c]) continue;  // no point won by c: G_c stays
        const int keep = G_ - 1;
        int kept = 0;
        for (const Entry& st : list) {
          const std::pair<double, std::int32_t> e(st.sum / st.count, st.candidate);
          if (kept == keep && (keep == 0 || !(e < best[keep - 1]))) continue;
          int pos = kept < keep ? kept++ : keep - 1;
          while (pos > 0 && e < best[pos - 1]) {
            best[pos] = best[pos - 1];
            --pos;
          }
          best[pos] = e;
        }
        std::int32_t* gc = Gc + c * G_;
        gc[0] = static_cast<std::int32_t>(c);
        for (int g = 0; g < kept; ++g) gc[1 + g] = best[g].second;
        // (kept < G - 1 cannot happen: the winner's search space holds >= G clusters.)
        list.clear();
      }
      // (~400 flops' worth per entry of a cluster's list, timed as above.)
    }, 400.0 * kClustersPerTask * stride_);
  }

 private:
  /// Running sum and count of the Euclidean distances from the points won by
  /// one cluster to one candidate cluster.
  struct Entry {
    std::int32_t candidate;
    std::int32_t count;
    double sum;
  };

  // Adds the block's points won by c; `pos` (C,) is all -1 on entry and on
  // exit (also when push_back throws: the array goes back to the pool).
  void fold_cluster(index_t c, std::int32_t* pos) {
    std::vector<Entry>& list = stats_[c];
    struct Clear {  // pos back to all -1 on every way out
      std::vector<Entry>& list;
      std::int32_t* pos;
      ~Clear() {
        for (const Entry& st : list) pos[st.candidate] = -1;
      }
    } clear{list, pos};
    for (std::size_t i = 0; i < list.size(); ++i) pos[list[i].candidate] = static_cast<std::int32_t>(i);
    for (index_t k = part_.offsets[c]; k < part_.offsets[c + 1]; ++k) {
      const index_t s = part_.order[k];
      const std::int32_t* bc = &cand_[s * stride_];
      const float* bd = &dist_[s * stride_];
      for (std::int32_t j = 0; j < count_[s]; ++j) {
        const std::int32_t cand = bc[j];
        if (cand == c) continue;
        if (pos[cand] < 0) {
          list.push_back({cand, 1, static_cast<double>(bd[j])});
          pos[cand] = static_cast<std::int32_t>(list.size() - 1);
        } else {
          Entry& st = list[pos[cand]];
          ++st.count;
          st.sum += static_cast<double>(bd[j]);
        }
      }
    }
  }

  index_t C_;
  int G_;
  index_t stride_;
  index_t block_points_ = 0;
  std::vector<std::vector<Entry>> stats_;  // (C,) one list per winning cluster
  std::vector<char> won_;                  // (C,) cluster won a point in this E-step
  // The current block's search spaces: candidates, Euclidean distances, counts, winners.
  std::vector<std::int32_t> cand_;
  std::vector<float> dist_;
  std::vector<std::int32_t> count_;
  std::vector<std::int32_t> winner_;
  ClusterPartition part_;
  ScratchPool<std::int32_t> positions_;     // fold_cluster's (C,) positions
  ScratchPool<std::uint8_t> search_flags_;  // the E-step's (C,) flags
};

}  // namespace detail
}  // namespace vcgmm
