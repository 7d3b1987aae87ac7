#include "vcgmm/lloyd.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "detail/assign.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/relocation.hpp"
#include "detail/spherical.hpp"
#include "detail/unchecked.hpp"
#include "detail/validation.hpp"
#include "kmeans/checks.hpp"

namespace vcgmm {

namespace detail {

namespace {

/// Spherical k-means: every center rescaled to unit length (in double); a
/// center of norm zero (its points cancel out) keeps its previous direction.
template <typename T>
void normalise_centers(index_t C, index_t d, const T* previous, T* centers) {
  for (index_t c = 0; c < C; ++c) {
    if (!scale_to_unit_length(centers + c * d, d)) {
      std::copy(previous + c * d, previous + (c + 1) * d, centers + c * d);
    }
  }
}

}  // namespace

template <typename T>
LloydResult lloyd(const DataView<T>& data, index_t n_clusters, const LloydParams& params,
                  const RunOptions& run, T* centers, std::vector<std::int32_t>* last_labels) {
  Stopwatch clock;
  const index_t n = data.n, C = n_clusters;
  LloydResult result;
  std::vector<std::int32_t> labels(n, -1);
  std::vector<double> min_d2(n);
  ClusterPartition part;
  std::vector<T> before_update;  // spherical: the centers before the update
  // Changes of Q below w_total times the rounding size of a squared distance
  // (rounding_floor) are rounding noise, not progress (data with fewer
  // distinct points than clusters would otherwise never converge: Q goes from
  // 0 to 1e-32 and relocations fire forever).
  double w_total = 0.0;
  for (index_t i = 0; i < n; ++i) w_total += data.weight(i);
  double d2_floor = rounding_floor(centers, C, data.d);

  // From the second iteration on, the assignment walks out from each point's
  // last label (assign_nearest_from: the scan's result bit for bit, for far
  // fewer distances on clustered data). Where it declines, the next tries
  // wait 4, 8, 16, ... iterations: a decline costs the center pairs' product
  // (C / n of a scan), and data where it does not pay rarely change.
  int warm_wait = 4, warm_skip = 0;
  detail::WarmLists<T> lists;  // the warm pass's lists, kept from one iteration to the next
  for (int it = 1; it <= params.max_iter; ++it) {
    check_interrupt();
    const bool try_warm = it > 1 && warm_skip == 0;
    if (warm_skip > 0) --warm_skip;
    AssignmentStats stats;
    std::int64_t evals = 0;
    const bool warm = detail::assign_nearest_from_or_scan(
        data, centers, C, try_warm ? labels.data() : nullptr, labels.data(), min_d2.data(),
        run.n_threads, &stats, &evals, &lists);
    if (try_warm && !warm) {
      warm_skip = warm_wait;
      warm_wait *= 2;
    }
    result.n_distance_evals.iterations += evals;
    const double Q = stats.objective;
    const double previous = result.objective.empty() ? NAN : result.objective.back();
    result.objective.push_back(Q);

    part.build(labels.data(), n, C);
    index_t moved = 0;
    if (params.relocate_empty) {
      moved = relocate_empty_clusters(part, min_d2.data(), n, C, d2_floor, labels.data());
      if (moved > 0) part.build(labels.data(), n, C);
      result.n_relocated += moved;
    }
    if (params.spherical) before_update.assign(centers, centers + C * data.d);
    cluster_means(data, part, C, run.n_threads, centers);
    if (params.spherical) normalise_centers(C, data.d, before_update.data(), centers);
    result.n_iter = it;
    const double q_floor = d2_floor * w_total;  // d2_floor of the centers Q was measured with
    d2_floor = rounding_floor(centers, C, data.d);

    const double rel_change = std::abs(previous - Q) / Q;
    const bool fixed_point = stats.n_changed == 0 && moved == 0;
    const bool small_change =
        it > 1 && (std::abs(previous - Q) <= std::max(params.tol * Q, q_floor));
    char change[32] = "-";
    if (it > 1) std::snprintf(change, sizeof change, "%.3g", rel_change);
    log_line(run.log,
             "lloyd iter %4d  objective %.8g  rel. change %s  changed %lld  relocated %lld  (%.2f s)",
             it, Q, change, static_cast<long long>(stats.n_changed), static_cast<long long>(moved),
             clock.seconds());
    const bool stop = report_progress(run, "lloyd", "iterations", it, Q, clock.seconds(),
                                      result.n_distance_evals.iterations);
    if (fixed_point || small_change) {
      result.converged = true;
      break;
    }
    if (stop) break;
  }
  result.timings.iterations = clock.seconds();
  if (last_labels) *last_labels = std::move(labels);
  return result;
}

template LloydResult lloyd<float>(const DataView<float>&, index_t, const LloydParams&,
                                  const RunOptions&, float*, std::vector<std::int32_t>*);
template LloydResult lloyd<double>(const DataView<double>&, index_t, const LloydParams&,
                                   const RunOptions&, double*, std::vector<std::int32_t>*);

}  // namespace detail

template <typename T>
LloydResult lloyd(const DataView<T>& data, index_t n_clusters, const LloydParams& params,
                  const RunOptions& run, T* centers) {
  detail::require_data(data, "lloyd");
  detail::require_clusters(n_clusters, data.n, "lloyd");
  detail::require(centers != nullptr, "lloyd: centers is a null pointer");
  detail::require_lloyd_params(params, "lloyd");
  return detail::lloyd(data, n_clusters, params, run, centers);
}

template LloydResult lloyd<float>(const DataView<float>&, index_t, const LloydParams&,
                                  const RunOptions&, float*);
template LloydResult lloyd<double>(const DataView<double>&, index_t, const LloydParams&,
                                   const RunOptions&, double*);

}  // namespace vcgmm
