#include "vcgmm/minibatch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "blocks/checks.hpp"
#include "detail/assign.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/pipeline_stages.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/spherical.hpp"
#include "detail/validation.hpp"
#include "stochastic/checks.hpp"

namespace vcgmm {

namespace detail {

namespace {

/// b: MbatchParams::batch_size, or for 0 min(kMbatchDefaultBatch, n).
index_t batch_size_of(const MbatchParams& p, index_t n) {
  return p.batch_size > 0 ? p.batch_size : std::min(kMbatchDefaultBatch, n);
}

/// scikit-learn's init_size: a D^2 seeding runs on 3 b rows, and on at least
/// 3 rows per cluster.
constexpr index_t kSeedingRowsPerRow = 3;

/// scikit-learn's early stop of MiniBatchKMeans: an exponentially weighted
/// average of the batch objective per unit weight, smoothing 2 b / (n + 1)
/// (at most 1); stop after `patience` batches without a new minimum.
class EarlyStop {
 public:
  EarlyStop(int patience, index_t b, index_t n)
      : patience_(patience),
        alpha_(std::min(1.0, 2.0 * static_cast<double>(b) / (static_cast<double>(n) + 1.0))) {}

  /// Feeds one batch's objective per unit weight; true: stop now.
  bool stop(double batch_objective) {
    if (patience_ <= 0) return false;
    ewa_ = first_ ? batch_objective : ewa_ * (1.0 - alpha_) + batch_objective * alpha_;
    first_ = false;
    if (ewa_ < best_) {
      best_ = ewa_;
      without_ = 0;
      return false;
    }
    return ++without_ >= patience_;
  }

 private:
  int patience_;
  double alpha_;
  double ewa_ = 0.0;
  double best_ = std::numeric_limits<double>::infinity();
  int without_ = 0;
  bool first_ = true;
};

template <typename T>
MbatchStepStats step(const DataView<T>& batch, index_t C, T* centers, double* counts,
                     std::int32_t* labels, int n_threads, bool spherical) {
  const index_t b = batch.n, d = batch.d;
  std::vector<std::int32_t> own(labels ? 0 : b);
  std::int32_t* lab = labels ? labels : own.data();
  std::fill(lab, lab + b, -1);
  MbatchStepStats stats;
  stats.objective = detail::assign_nearest(batch, centers, C, lab, nullptr, n_threads).objective;
  stats.n_distance_evals = b * C;
  ClusterPartition part;
  part.build(lab, b, C);
  // c = S / v with S = v c + (this batch's sum): Sculley's running mean.
  for_each_cluster_sum(batch, part, C, n_threads, [&](index_t c, const double* acc, double wsum) {
    const double v = counts[c], v_new = v + wsum;
    T* center = centers + c * d;
    std::vector<T> before(spherical ? d : 0);
    if (spherical) std::copy(center, center + d, before.begin());
    for (index_t k = 0; k < d; ++k) {
      center[k] = static_cast<T>((v * static_cast<double>(center[k]) + acc[k]) / v_new);
    }
    if (spherical && !scale_to_unit_length(center, d)) {
      std::copy(before.begin(), before.end(), center);
    }
    counts[c] = v_new;
  });
  return stats;
}

/// Moves the centers whose count is below `ratio` times the largest onto rows
/// of `batch` (MbatchParams::reassignment_ratio). Rows are drawn by weight
/// without replacement (the largest keys u^(1/w), Efraimidis & Spirakis) from
/// the stream keyed by (seed, iteration). Returns the centers moved.
template <typename T>
index_t reassign_rare_centers(const DataView<T>& batch, index_t C, double ratio,
                              std::uint64_t seed, std::int64_t iteration, T* centers,
                              double* counts) {
  const index_t b = batch.n, d = batch.d;
  const double most = *std::max_element(counts, counts + C);
  std::vector<index_t> rare;
  for (index_t c = 0; c < C; ++c) {
    if (counts[c] < ratio * most) rare.push_back(c);
  }
  if (rare.empty()) return 0;
  // At most half a batch, the rarest first (ties: lower index).
  std::stable_sort(rare.begin(), rare.end(),
                   [&](index_t a, index_t c) { return counts[a] < counts[c]; });
  Rng rng(seed, Stream::mbatch_reassign, static_cast<std::uint64_t>(iteration));
  std::vector<std::pair<double, index_t>> keys;
  keys.reserve(b);
  for (index_t i = 0; i < b; ++i) {
    const double u = rng.uniform(), w = batch.weight(i);
    if (w > 0.0) keys.emplace_back(std::log(u > 0.0 ? u : 0x1.0p-60) / w, i);
  }
  const index_t k = std::min<index_t>({static_cast<index_t>(rare.size()), b / 2,
                                       static_cast<index_t>(keys.size())});
  if (k == 0) return 0;
  std::partial_sort(keys.begin(), keys.begin() + k, keys.end(),
                    [](const auto& a, const auto& c) {
                      return a.first > c.first || (a.first == c.first && a.second < c.second);
                    });
  std::vector<char> moved(C, 0);
  for (index_t e = 0; e < k; ++e) {
    const T* row = batch.x + keys[e].second * d;
    std::copy(row, row + d, centers + rare[e] * d);
    moved[rare[e]] = 1;
  }
  double least_kept = most;
  for (index_t c = 0; c < C; ++c) {
    if (!moved[c]) least_kept = std::min(least_kept, counts[c]);
  }
  for (index_t c = 0; c < C; ++c) {
    if (moved[c]) counts[c] = least_kept;
  }
  return k;
}

template <typename T>
MbatchResult iterate(const DataView<T>& data, index_t C, const MbatchParams& params,
                     const RunOptions& run, T* centers) {
  Stopwatch clock;
  MbatchResult result;
  const index_t n = data.n, d = data.d;
  const index_t b = batch_size_of(params, n);
  result.batch_size = b;
  double w_total = 0.0;
  for (index_t i = 0; i < n; ++i) w_total += data.weight(i);
  std::vector<double> counts(C, 1.0);  // Alg. 2: the initial center is one sample
  std::vector<index_t> rows(b);
  std::vector<T> xb(static_cast<size_t>(b * d));
  std::vector<double> wb(data.w ? b : 0);
  DataView<T> batch{xb.data(), b, d, data.w ? wb.data() : nullptr};
  index_t rows_since_reassign = 0;
  EarlyStop early(params.max_no_improvement, b, n);
  for (int it = 1; it <= params.max_iter; ++it) {
    check_interrupt();
    mbatch_batch_rows(n, b, run.seed, it, rows.data());
    gather_rows(data, rows.data(), b, run.n_threads, xb.data(), wb.data());
    const MbatchStepStats st = step(batch, C, centers, counts.data(), nullptr, run.n_threads,
                                        params.spherical);
    rows_since_reassign += b;
    if (params.reassignment_ratio > 0.0 && rows_since_reassign >= 10 * C) {
      rows_since_reassign = 0;
      result.n_reassigned += reassign_rare_centers(batch, C, params.reassignment_ratio, run.seed,
                                                   it, centers, counts.data());
    }
    double w_batch = static_cast<double>(b);
    if (data.w) {
      w_batch = 0.0;
      for (double w : wb) w_batch += w;
    }
    result.objective.push_back(st.objective * (w_total / w_batch));
    result.seconds.push_back(clock.seconds());
    result.n_distance_evals.iterations += st.n_distance_evals;
    result.n_iter = it;
    log_line(run.log, "mbatch iter %5d  batch objective (scaled) %.8g  (%.2f s)", it,
             result.objective.back(), result.seconds.back());
    if (report_progress(run, "mbatch", "iterations", it, result.objective.back(),
                        result.seconds.back(), result.n_distance_evals.iterations)) {
      break;
    }
    if (early.stop(st.objective / w_batch)) {
      result.converged = true;
      break;
    }
  }
  result.counts = counts;
  result.timings.iterations = clock.seconds();
  return result;
}


}  // namespace

}  // namespace detail

void mbatch_batch_rows(index_t n, index_t batch_size, std::uint64_t seed, std::int64_t iteration,
                       index_t* rows) {
  detail::require(n >= 1 && batch_size >= 1 && rows != nullptr,
                  "mbatch_batch_rows: need n >= 1, batch_size >= 1 and an output");
  detail::Rng rng(seed, detail::Stream::mbatch, static_cast<std::uint64_t>(iteration));
  for (index_t k = 0; k < batch_size; ++k) {
    rows[k] = static_cast<index_t>(rng.below(static_cast<std::uint64_t>(n)));
  }
}

template <typename T>
MbatchStepStats mbatch_step(const DataView<T>& batch, index_t n_clusters, T* centers,
                            double* counts, std::int32_t* labels, int n_threads,
                            bool spherical) {
  detail::require_data(batch, "mbatch_step");
  detail::require_centers(centers, n_clusters, "mbatch_step");
  detail::require(counts != nullptr, "mbatch_step: counts is a null pointer");
  for (index_t c = 0; c < n_clusters; ++c) {
    detail::require(counts[c] > 0.0 && counts[c] < 1e300,
                    "mbatch_step: counts must be finite and > 0");
  }
  return detail::step(batch, n_clusters, centers, counts, labels, n_threads, spherical);
}

template <typename T>
MbatchKMeansResult fit_mbatch(const DataView<T>& data, const MbatchKMeansParams& params,
                              const FitBuffers<T>& buffers) {
  detail::require_pipeline(data, params, buffers, "fit_mbatch");
  const index_t n_fit = params.coreset_size > 0 ? params.coreset_size : data.n;
  detail::require_mbatch_params(params.mbatch, n_fit, "fit_mbatch");
  const index_t b = detail::batch_size_of(params.mbatch, n_fit);
  const detail::SeedingRows<T> seeding_rows = [&](const DataView<T>& fit) {
    const index_t m = std::min(fit.n, detail::kSeedingRowsPerRow *
                                          std::max(b, params.n_clusters));
    if (m >= fit.n) return std::vector<index_t>();
    return detail::random_permutation_prefix(fit.n, m, params.run.seed,
                                             detail::Stream::seeding_sample);
  };
  return detail::run_pipeline<MbatchKMeansResult>(
      data, params, buffers, "mbatch",
      [&](const DataView<T>& fit, MbatchKMeansResult* result) {
        static_cast<MbatchResult&>(*result) =
            detail::iterate(fit, params.n_clusters, params.mbatch, params.run, buffers.centers);
      },
      seeding_rows);
}

template MbatchKMeansResult fit_mbatch<float>(const DataView<float>&, const MbatchKMeansParams&,
                                              const FitBuffers<float>&);
template MbatchKMeansResult fit_mbatch<double>(const DataView<double>&,
                                               const MbatchKMeansParams&,
                                               const FitBuffers<double>&);
template MbatchStepStats mbatch_step<float>(const DataView<float>&, index_t, float*, double*,
                                            std::int32_t*, int, bool);
template MbatchStepStats mbatch_step<double>(const DataView<double>&, index_t, double*, double*,
                                             std::int32_t*, int, bool);

}  // namespace vcgmm
