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

/// scikit-learn's early stop of MiniBatchKMeans: feeds one batch's
/// objective per unit weight into the exponentially weighted average
/// (smoothing 2 b / (n + 1), at most 1); true: no new minimum for `patience`
/// batches in a row, stop now.
inline bool early_stop(MbatchStream* s, int patience, double batch_objective) {
  if (patience <= 0) return false;
  const double alpha =
      std::min(1.0, 2.0 * static_cast<double>(s->result.batch_size) /
                        (static_cast<double>(s->n) + 1.0));
  s->smoothed = s->started ? s->smoothed * (1.0 - alpha) + batch_objective * alpha
                           : batch_objective;
  s->started = true;
  if (s->smoothed < s->best) {
    s->best = s->smoothed;
    s->without_improvement = 0;
    return false;
  }
  return ++s->without_improvement >= patience;
}

template <typename T>
MbatchStepStats step(const DataView<T>& batch, index_t C, T* centers, double* counts,
                     std::int32_t* labels, int n_threads, bool spherical, LearningRate rate) {
  const index_t b = batch.n, d = batch.d;
  std::vector<std::int32_t> own(labels ? 0 : b);
  std::int32_t* lab = labels ? labels : own.data();
  std::fill(lab, lab + b, -1);
  MbatchStepStats stats;
  stats.objective = detail::assign_nearest(batch, centers, C, lab, nullptr, n_threads).objective;
  stats.n_distance_evals = b * C;
  ClusterPartition part;
  part.build(lab, b, C);
  double w_batch = 0.0;  // beta's denominator
  if (rate == LearningRate::beta) {
    for (index_t i = 0; i < b; ++i) w_batch += batch.weight(i);
  }
  // sklearn: c = S / v with S = v c + (this batch's sum), Sculley's running
  // mean; beta: c <- (1 - alpha) c + alpha (this batch's mean), alpha =
  // sqrt(its weight / the batch's).
  for_each_cluster_sum(batch, part, C, n_threads, [&](index_t c, const double* acc, double wsum) {
    const double v = counts[c], v_new = v + wsum;
    T* center = centers + c * d;
    std::vector<T> before(spherical ? d : 0);
    if (spherical) std::copy(center, center + d, before.begin());
    if (rate == LearningRate::beta) {
      if (!(wsum > 0.0)) return;  // only rows of weight 0: no step
      const double alpha = std::sqrt(wsum / w_batch);
      for (index_t k = 0; k < d; ++k) {
        center[k] = static_cast<T>((1.0 - alpha) * static_cast<double>(center[k]) +
                                   alpha * (acc[k] / wsum));
      }
    } else {
      for (index_t k = 0; k < d; ++k) {
        center[k] = static_cast<T>((v * static_cast<double>(center[k]) + acc[k]) / v_new);
      }
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

/// A batch's rows, gathered into their own array.
template <typename T>
struct Batch {
  Batch(index_t b, index_t d, bool weighted)
      : rows(b), x(static_cast<size_t>(b * d)), w(weighted ? b : 0),
        view{x.data(), b, d, weighted ? w.data() : nullptr} {}
  std::vector<index_t> rows;
  std::vector<T> x;
  std::vector<double> w;
  DataView<T> view;
};

/// Batch t: b rows of `src` drawn by mbatch_batch_rows(src.n, b, seed, t),
/// one step, the reassignment, the early stop. The one loop body of
/// fit_mbatch and of the streaming fit. Sets s->stopped when the fit ends.
template <typename T>
void run_batch(const DataView<T>& src, std::int64_t t, const MbatchParams& params,
               const RunOptions& run, T* centers, MbatchStream* s, Batch<T>* batch,
               double seconds_before, const Stopwatch& clock) {
  MbatchResult& result = s->result;
  const index_t b = result.batch_size, C = s->n_clusters;
  mbatch_batch_rows(src.n, b, run.seed, t, batch->rows.data());
  gather_rows(src, batch->rows.data(), b, run.n_threads, batch->x.data(), batch->w.data());
  const MbatchStepStats st = step(batch->view, C, centers, result.counts.data(), nullptr,
                                  run.n_threads, params.spherical, params.learning_rate);
  s->rows_since_reassign += b;
  if (params.reassignment_ratio > 0.0 && s->rows_since_reassign >= 10 * C) {
    s->rows_since_reassign = 0;
    result.n_reassigned += reassign_rare_centers(batch->view, C, params.reassignment_ratio,
                                                 run.seed, t, centers, result.counts.data());
  }
  double w_batch = static_cast<double>(b);
  if (src.w) {
    w_batch = 0.0;
    for (double w : batch->w) w_batch += w;
  }
  result.objective.push_back(st.objective * (s->total_weight / w_batch));
  result.seconds.push_back(seconds_before + clock.seconds());
  result.n_distance_evals.iterations += st.n_distance_evals;
  result.n_iter += 1;
  log_line(run.log, "mbatch iter %5d  batch objective (scaled) %.8g  (%.2f s)", result.n_iter,
           result.objective.back(), result.seconds.back());
  if (report_progress(run, "mbatch", "iterations", result.n_iter, result.objective.back(),
                      result.seconds.back(), result.n_distance_evals.iterations)) {
    s->stopped = true;
    return;
  }
  if (early_stop(s, params.max_no_improvement, st.objective / w_batch)) {
    result.converged = true;
    s->stopped = true;
  }
}

template <typename T>
MbatchResult iterate(const DataView<T>& data, index_t C, const MbatchParams& params,
                     const RunOptions& run, T* centers) {
  Stopwatch clock;
  double w_total = 0.0;
  for (index_t i = 0; i < data.n; ++i) w_total += data.weight(i);
  MbatchStream s = mbatch_stream_start(data.n, w_total, C, params);
  Batch<T> batch(s.result.batch_size, data.d, data.w != nullptr);
  for (int it = 1; it <= params.max_iter && !s.stopped; ++it) {
    check_interrupt();
    run_batch(data, it, params, run, centers, &s, &batch, 0.0, clock);
  }
  s.result.timings.iterations = clock.seconds();
  return s.result;
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
                            bool spherical, LearningRate rate) {
  detail::require_data(batch, "mbatch_step");
  detail::require_centers(centers, n_clusters, "mbatch_step");
  detail::require(counts != nullptr, "mbatch_step: counts is a null pointer");
  for (index_t c = 0; c < n_clusters; ++c) {
    detail::require(counts[c] > 0.0 && counts[c] < 1e300,
                    "mbatch_step: counts must be finite and > 0");
  }
  return detail::step(batch, n_clusters, centers, counts, labels, n_threads, spherical, rate);
}

MbatchStream mbatch_stream_start(index_t n, double total_weight, index_t n_clusters,
                                 const MbatchParams& params) {
  detail::require(n >= 1 && n_clusters >= 1,
                  "mbatch_stream_start: need n >= 1 and n_clusters >= 1");
  detail::require(std::isfinite(total_weight) && total_weight > 0.0,
                  "mbatch_stream_start: total_weight must be finite and > 0");
  detail::require_mbatch_params(params, n, "mbatch_stream_start");
  MbatchStream s;
  s.n = n;
  s.total_weight = total_weight;
  s.n_clusters = n_clusters;
  s.result.batch_size = detail::batch_size_of(params, n);
  s.result.counts.assign(n_clusters, 1.0);  // Alg. 2: the initial center is one sample
  s.best = std::numeric_limits<double>::infinity();
  return s;
}

std::vector<index_t> mbatch_stream_seeding_rows(index_t n, const MbatchKMeansParams& params) {
  const index_t C = params.n_clusters;
  detail::require(n >= 1 && C >= 1 && C <= n,
                  "mbatch_stream_seeding_rows: need 1 <= n_clusters <= n");
  const SeedingMethod method = resolve_seeding(params.seeding.method, C);
  detail::require(method != SeedingMethod::given,
                  "mbatch_stream_seeding_rows: the centers are given, nothing to seed");
  if (method == SeedingMethod::random) {
    return detail::random_permutation_prefix(n, C, params.run.seed);
  }
  const index_t b = detail::batch_size_of(params.mbatch, n);
  const index_t m = std::min(n, detail::kSeedingRowsPerRow * std::max(b, C));
  if (m >= n) {
    std::vector<index_t> all(n);
    for (index_t i = 0; i < n; ++i) all[i] = i;
    return all;
  }
  return detail::random_permutation_prefix(n, m, params.run.seed, detail::Stream::seeding_sample);
}

template <typename T>
SeedingStats mbatch_stream_seed(const DataView<T>& rows, const MbatchKMeansParams& params,
                                T* centers) {
  detail::require_data(rows, "mbatch_stream_seed");
  const index_t C = params.n_clusters;
  detail::require(centers != nullptr, "mbatch_stream_seed: centers is a null pointer");
  detail::require(C >= 1 && C <= rows.n, "mbatch_stream_seed: need 1 <= n_clusters <= rows");
  const SeedingMethod method = resolve_seeding(params.seeding.method, C);
  detail::require(method != SeedingMethod::given,
                  "mbatch_stream_seed: the centers are given, nothing to seed");
  if (method == SeedingMethod::random) {  // the rows are the centers, in order
    detail::require(rows.n == C, "mbatch_stream_seed: \"random\" takes exactly C rows");
    std::copy(rows.x, rows.x + C * rows.d, centers);
    return SeedingStats{};
  }
  const SeedingStats ss = detail::seed_centers(rows, C, params.seeding, params.run, centers);
  detail::log_line(params.run.log, "mbatch seeding: %s, %lld centers on %lld points (%.2f s)",
                   detail::seeding_name(method), static_cast<long long>(C),
                   static_cast<long long>(rows.n), ss.timings.seeding);
  detail::report_progress(params.run, "mbatch", "seeding", 0, NAN, ss.timings.seeding,
                          ss.n_distance_evals.seeding);
  return ss;
}

void mbatch_stream_plan(const index_t* chunk_rows, index_t n_chunks, std::uint64_t seed,
                        std::int64_t first_iteration, index_t n_batches,
                        std::int32_t* chunk_of_batch) {
  detail::require(chunk_rows != nullptr && chunk_of_batch != nullptr && n_chunks >= 1 &&
                      first_iteration >= 1 && n_batches >= 0,
                  "mbatch_stream_plan: need chunks, first_iteration >= 1 and outputs");
  std::vector<index_t> ends(n_chunks);
  index_t n = 0;
  for (index_t k = 0; k < n_chunks; ++k) {
    detail::require(chunk_rows[k] >= 0, "mbatch_stream_plan: chunk rows must be >= 0");
    n += chunk_rows[k];
    ends[k] = n;
  }
  detail::require(n >= 1, "mbatch_stream_plan: the chunks have no rows");
  for (index_t j = 0; j < n_batches; ++j) {
    detail::Rng rng(seed, detail::Stream::mbatch_chunk,
                    static_cast<std::uint64_t>(first_iteration + j));
    const index_t row = static_cast<index_t>(rng.below(static_cast<std::uint64_t>(n)));
    chunk_of_batch[j] = static_cast<std::int32_t>(
        std::upper_bound(ends.begin(), ends.end(), row) - ends.begin());
  }
}

template <typename T>
void mbatch_stream_batches(const DataView<T>& chunk, const std::int64_t* iterations,
                           index_t n_batches, const MbatchParams& params, const RunOptions& run,
                           T* centers, MbatchStream* state) {
  detail::require(state != nullptr && state->n >= 1 && state->n_clusters >= 1 &&
                      static_cast<index_t>(state->result.counts.size()) == state->n_clusters,
                  "mbatch_stream_batches: the state must come from mbatch_stream_start");
  detail::require_data(chunk, "mbatch_stream_batches");
  detail::require_centers(centers, state->n_clusters, "mbatch_stream_batches");
  detail::require(iterations != nullptr || n_batches == 0,
                  "mbatch_stream_batches: iterations is a null pointer");
  for (index_t j = 0; j < n_batches; ++j) {
    detail::require(iterations[j] >= 1, "mbatch_stream_batches: batch numbers must be >= 1");
  }
  detail::Stopwatch clock;
  const double before = state->result.timings.iterations;
  detail::Batch<T> batch(state->result.batch_size, chunk.d, chunk.w != nullptr);
  for (index_t j = 0; j < n_batches && !state->stopped; ++j) {
    detail::check_interrupt();
    detail::run_batch(chunk, iterations[j], params, run, centers, state, &batch, before, clock);
  }
  state->result.timings.iterations = before + clock.seconds();
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
                                            std::int32_t*, int, bool, LearningRate);
template MbatchStepStats mbatch_step<double>(const DataView<double>&, index_t, double*, double*,
                                             std::int32_t*, int, bool, LearningRate);
template SeedingStats mbatch_stream_seed<float>(const DataView<float>&, const MbatchKMeansParams&,
                                                float*);
template SeedingStats mbatch_stream_seed<double>(const DataView<double>&,
                                                 const MbatchKMeansParams&, double*);
template void mbatch_stream_batches<float>(const DataView<float>&, const std::int64_t*, index_t,
                                           const MbatchParams&, const RunOptions&, float*,
                                           MbatchStream*);
template void mbatch_stream_batches<double>(const DataView<double>&, const std::int64_t*, index_t,
                                            const MbatchParams&, const RunOptions&, double*,
                                            MbatchStream*);

}  // namespace vcgmm
