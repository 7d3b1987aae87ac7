#include "vcgmm/lloyd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include "blocked_distances.hpp"
#include "parallel.hpp"
#include "validation.hpp"
#include "vcgmm/assignment.hpp"

namespace vcgmm {

namespace {

constexpr index_t kClustersPerTask = 16;

/// Points of each cluster in ascending index order (a counting sort).
struct ClusterPartition {
  std::vector<index_t> offsets;  // (C + 1,)
  std::vector<index_t> order;    // (n,)

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

/// Moves empty clusters onto the points farthest from their centers.
index_t relocate_empty_clusters(const ClusterPartition& part, const double* min_d2, index_t n,
                                index_t C, std::int32_t* labels) {
  std::vector<index_t> empty;
  for (index_t c = 0; c < C; ++c) {
    if (part.size(c) == 0) empty.push_back(c);
  }
  if (empty.empty()) return 0;
  const index_t k = std::min<index_t>(static_cast<index_t>(empty.size()), n);
  std::vector<index_t> far(n);
  std::iota(far.begin(), far.end(), index_t(0));
  std::partial_sort(far.begin(), far.begin() + k, far.end(), [&](index_t a, index_t b) {
    return min_d2[a] > min_d2[b] || (min_d2[a] == min_d2[b] && a < b);
  });
  index_t moved = 0;
  for (index_t e = 0; e < k; ++e) {
    const index_t p = far[e];
    if (!(min_d2[p] > 0.0)) break;  // remaining points sit on their centers
    labels[p] = static_cast<std::int32_t>(empty[e]);
    ++moved;
  }
  return moved;
}

}  // namespace

template <typename T>
LloydResult lloyd(const DataView<T>& data, index_t n_clusters, const LloydParams& params,
                  T* centers) {
  detail::Stopwatch clock;
  detail::require_data(data, "lloyd");
  detail::require_clusters(n_clusters, data.n, "lloyd");
  detail::require(centers != nullptr, "lloyd: centers is a null pointer");
  detail::require(params.max_iter >= 1, "lloyd: max_iter must be >= 1");
  detail::require(params.tol >= 0.0 && std::isfinite(params.tol), "lloyd: tol must be >= 0");
  const index_t n = data.n, d = data.d, C = n_clusters;

  LloydResult result;
  std::vector<std::int32_t> labels(n, -1);
  std::vector<double> min_d2(n);
  ClusterPartition part;
  const index_t n_tasks = detail::n_chunks(C, kClustersPerTask);

  for (int it = 1; it <= params.max_iter; ++it) {
    detail::check_interrupt();
    const AssignmentStats stats =
        assign_nearest(data, centers, C, labels.data(), min_d2.data(), params.n_threads);
    result.n_distance_evals += n * C;
    const double Q = stats.objective;
    const double previous = result.objective.empty() ? NAN : result.objective.back();
    result.objective.push_back(Q);

    part.build(labels.data(), n, C);
    index_t moved = 0;
    if (params.relocate_empty) {
      moved = relocate_empty_clusters(part, min_d2.data(), n, C, labels.data());
      if (moved > 0) part.build(labels.data(), n, C);
      result.n_relocated += moved;
    }

    // Weighted means, cluster by cluster, points in index order, in double.
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t task) {
      const index_t c0 = task * kClustersPerTask, c1 = std::min(C, c0 + kClustersPerTask);
      detail::Vector<double> acc(d);
      for (index_t c = c0; c < c1; ++c) {
        if (part.size(c) == 0) continue;  // empty: keeps its center
        acc.setZero();
        double wsum = 0.0;
        for (index_t k = part.offsets[c]; k < part.offsets[c + 1]; ++k) {
          const index_t i = part.order[k];
          const double wi = data.weight(i);
          acc += wi * detail::ConstVectorMap<T>(data.row(i), d).template cast<double>();
          wsum += wi;
        }
        detail::VectorMap<T>(centers + c * d, d) = (acc / wsum).template cast<T>();
      }
    }, 2.0 * kClustersPerTask * d * static_cast<double>(n) / static_cast<double>(C));
    result.n_iter = it;

    const double rel_change = std::abs(previous - Q) / Q;
    const bool fixed_point = stats.n_changed == 0 && moved == 0;
    const bool small_change = it > 1 && (std::abs(previous - Q) <= params.tol * Q);
    if (params.log) {
      char change[32] = "-";
      if (it > 1) std::snprintf(change, sizeof change, "%.3g", rel_change);
      char line[192];
      std::snprintf(line, sizeof line,
                    "lloyd iter %4d  objective %.8g  rel. change %s  changed %lld  relocated %lld  (%.2f s)",
                    it, Q, change, static_cast<long long>(stats.n_changed),
                    static_cast<long long>(moved), clock.seconds());
      params.log(line);
    }
    if (fixed_point || small_change) {
      result.converged = true;
      break;
    }
  }
  result.seconds = clock.seconds();
  return result;
}

template LloydResult lloyd<float>(const DataView<float>&, index_t, const LloydParams&, float*);
template LloydResult lloyd<double>(const DataView<double>&, index_t, const LloydParams&, double*);

}  // namespace vcgmm
