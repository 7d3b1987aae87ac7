// Internal: the points of each cluster, in ascending point order (a counting
// sort of the labels). Lloyd's update and the variational loop's
// neighbourhood statistics visit each cluster's points this way, one cluster
// per thread at a time, so their sums never depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

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

}  // namespace detail
}  // namespace vcgmm
