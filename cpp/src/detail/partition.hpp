// Internal: the points of each cluster, in ascending point order (a counting
// sort of the labels), and the per-cluster weighted sums over them. Lloyd's
// update, mbatch, VRKM++ and the variational loop's neighbourhood statistics
// visit each cluster's points this way, one cluster per thread at a time, so
// their sums never depend on the thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

/// Rows ahead that a visit in cluster order prefetches: its rows come in no
/// memory order, so each would otherwise wait for memory.
constexpr index_t kPartitionRowsAhead = 4;

struct ClusterPartition {
  std::vector<index_t> offsets;  // (C + 1,): cluster c holds order[offsets[c] .. offsets[c + 1])
  std::vector<index_t> order;    // (n,): point indices grouped by cluster, ascending within each

  /// labels: (n,) values in [0, C).
  void build(const std::int32_t* labels, index_t n, index_t C) {
    offsets.assign(C + 1, 0);
    for (index_t i = 0; i < n; ++i) ++offsets[labels[i] + 1];
    for (index_t c = 0; c < C; ++c) offsets[c + 1] += offsets[c];
    order.resize(n);
    std::vector<index_t> next(offsets.begin(), offsets.end() - 1);
    for (index_t i = 0; i < n; ++i) order[next[labels[i]]++] = i;
  }
  index_t size(index_t c) const { return offsets[c + 1] - offsets[c]; }
};

/// For every non-empty cluster c of `part` calls store(c, acc, wsum) with
/// acc = sum_i w_i x_i (double, d values) and wsum = sum_i w_i over its
/// points, accumulated in point order; clusters in parallel (tasks of
/// kLloydClustersPerTask clusters), each on one thread, so the sums never
/// depend on the thread count and no per-thread (C, d) accumulator exists.
/// `store` may write only cluster c's outputs. Lloyd's update, mbatch's
/// step and VRKM++'s position correction are all this pass.
template <typename T, typename Store>
void for_each_cluster_sum(const DataView<T>& data, const ClusterPartition& part, index_t C,
                          int n_threads, Store&& store) {
  const index_t d = data.d;
  const index_t n = static_cast<index_t>(part.order.size());
  parallel_for(n_chunks(C, kLloydClustersPerTask), n_threads, [&](index_t task) {
    const index_t c0 = task * kLloydClustersPerTask;
    const index_t c1 = std::min(C, c0 + kLloydClustersPerTask);
    Vector<double> acc(d);
    const index_t end = part.offsets[c1];
    for (index_t c = c0; c < c1; ++c) {
      if (part.size(c) == 0) continue;
      acc.setZero();
      double wsum = 0.0;
      for (index_t k = part.offsets[c]; k < part.offsets[c + 1]; ++k) {
        if (k + kPartitionRowsAhead < end) {
          prefetch_bytes(data.row(part.order[k + kPartitionRowsAhead]),
                         static_cast<std::size_t>(d) * sizeof(T));
        }
        const index_t i = part.order[k];
        const double wi = data.weight(i);
        add_scaled_to_double(acc.data(), wi, data.row(i), d);
        wsum += wi;
      }
      store(c, static_cast<const double*>(acc.data()), wsum);
    }
  }, 2.0 * kLloydClustersPerTask * d * static_cast<double>(n) / static_cast<double>(C));
}

/// Every non-empty cluster's center to the weighted mean of its points (in
/// double, points in index order, cast to T); an empty cluster keeps its
/// center. Lloyd's update and vc-GMM's data steps.
template <typename T>
void cluster_means(const DataView<T>& data, const ClusterPartition& part, index_t C,
                   int n_threads, T* centers) {
  const index_t d = data.d;
  for_each_cluster_sum(data, part, C, n_threads, [&](index_t c, const double* acc, double wsum) {
    VectorMap<T>(centers + c * d, d) = (ConstVectorMap<double>(acc, d) / wsum).template cast<T>();
  });
}

}  // namespace detail
}  // namespace vcgmm
