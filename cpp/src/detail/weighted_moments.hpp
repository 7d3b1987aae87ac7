// Internal: the weighted mean of all points, in fixed chunks of rows.
//
// Shared by the lightweight coreset (its first pass) and the variational
// loop (its data moments). Per-chunk partial sums are combined in chunk
// order, so the result does not depend on the thread count; the per-chunk
// weights are kept for callers that need them (the coreset's chunk masses).
#pragma once

#include <algorithm>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"

namespace vcgmm {
namespace detail {

struct WeightedMean {
  Vector<double> mean;              // (d,)
  double w_total = 0.0;             // sum of the weights
  std::vector<double> chunk_weight; // (n_chunks(n, kStreamChunk),) sum of the weights per chunk
};

template <typename T>
WeightedMean weighted_mean(const DataView<T>& data, int n_threads) {
  const index_t n = data.n, d = data.d;
  const index_t n_tasks = n_chunks(n, kStreamChunk);
  RowMatrix<double> part_sum(n_tasks, d);
  WeightedMean result;
  result.chunk_weight.resize(n_tasks);
  parallel_for(n_tasks, n_threads, [&](index_t t) {
    const index_t r0 = t * kStreamChunk, r1 = std::min(n, r0 + kStreamChunk);
    // Plain row loops (no vectorized reductions over the weights), so the
    // summation order never depends on the arrays' memory alignment.
    Vector<double> acc = Vector<double>::Zero(d);
    double wsum = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      const double wi = data.weight(i);
      add_scaled_to_double(acc.data(), wi, data.row(i), d);
      wsum += wi;
    }
    part_sum.row(t) = acc.transpose();
    result.chunk_weight[t] = wsum;
  }, 2.0 * kStreamChunk * d);
  result.mean = Vector<double>::Zero(d);
  for (index_t t = 0; t < n_tasks; ++t) {
    result.mean += part_sum.row(t).transpose();
    result.w_total += result.chunk_weight[t];
  }
  result.mean /= result.w_total;
  return result;
}

}  // namespace detail
}  // namespace vcgmm
