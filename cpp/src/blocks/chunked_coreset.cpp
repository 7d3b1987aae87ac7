#include "vcgmm/chunked_coreset.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/validation.hpp"
#include "detail/weighted_moments.hpp"

namespace vcgmm {

namespace {

using detail::kStreamChunk;
using detail::n_chunks;
using detail::require;

/// Shape, pointer and weight checks of one chunk; unlike require_data, an
/// empty chunk (n = 0) is allowed.
template <typename T>
void require_chunk(const DataView<T>& chunk, const char* where) {
  const std::string w(where);
  require(chunk.n >= 0, w + ": the chunk has a negative number of rows");
  require(chunk.d >= 1, w + ": the chunk must have at least one column (d >= 1)");
  if (chunk.n == 0) return;
  // Zero weights allowed: a row of weight 0 has no q-mass, so it is never
  // drawn; a chunk of total weight 0 holds no points (see its moments).
  detail::require_data(chunk, where, /*allow_zero_weights=*/true);
}

}  // namespace

template <typename T>
ChunkMoments coreset_chunk_moments(const DataView<T>& chunk, const RunOptions& run, double* mean) {
  require_chunk(chunk, "coreset_chunk_moments");
  require(mean != nullptr, "coreset_chunk_moments: the output mean is a null pointer");
  detail::Stopwatch clock;
  ChunkMoments out;
  const index_t n = chunk.n, d = chunk.d;
  std::fill(mean, mean + d, 0.0);
  if (n == 0) return out;
  const detail::WeightedMean wm = detail::weighted_mean(chunk, run.n_threads);
  out.n_distance_evals.coreset = n;
  if (!(wm.w_total > 0.0)) {  // every weight 0: no points (mean 0, scatter 0, weight 0)
    out.timings.coreset = clock.seconds();
    return out;
  }
  std::copy(wm.mean.data(), wm.mean.data() + d, mean);
  // The scatter about the chunk's mean, with the kernel (and the rounding of
  // the mean to T) that step 3 uses for the distances to the global mean.
  const detail::Vector<T> mean_t = wm.mean.template cast<T>();
  const index_t n_tasks = n_chunks(n, kStreamChunk);
  std::vector<double> part(n_tasks);
  detail::parallel_for(n_tasks, run.n_threads, [&](index_t t) {
    const index_t r0 = t * kStreamChunk, r1 = std::min(n, r0 + kStreamChunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      s += chunk.weight(i) *
           static_cast<double>(detail::squared_distance(chunk.row(i), mean_t.data(), d));
    }
    part[t] = s;
  }, 3.0 * kStreamChunk * d);
  for (index_t t = 0; t < n_tasks; ++t) out.scatter += part[t];
  out.weight = wm.w_total;
  out.n_distance_evals.coreset = n;
  out.timings.coreset = clock.seconds();
  return out;
}

CoresetPlan plan_chunked_coreset(index_t n_chunks_total, index_t d, const double* chunk_weight,
                                 const double* chunk_mean, const double* chunk_scatter,
                                 index_t coreset_size, const RunOptions& run, double* mean,
                                 double* chunk_mass, index_t* chunk_draws) {
  const index_t K = n_chunks_total;
  require(K >= 1, "plan_chunked_coreset: need at least one chunk");
  require(d >= 1, "plan_chunked_coreset: d must be >= 1");
  require(coreset_size >= 1, "plan_chunked_coreset: coreset_size must be >= 1");
  require(chunk_weight && chunk_mean && chunk_scatter && mean && chunk_mass && chunk_draws,
          "plan_chunked_coreset: a buffer is a null pointer");
  double w_total = 0.0;
  for (index_t c = 0; c < K; ++c) {
    const std::string at = "plan_chunked_coreset: chunk " + std::to_string(c);
    require(std::isfinite(chunk_weight[c]) && chunk_weight[c] >= 0.0,
            at + ": its weight must be finite and >= 0");
    require(std::isfinite(chunk_scatter[c]) && chunk_scatter[c] >= 0.0,
            at + ": its scatter must be finite and >= 0");
    if (chunk_weight[c] > 0.0) {
      for (index_t j = 0; j < d; ++j) {
        require(std::isfinite(chunk_mean[c * d + j]), at + ": its mean is not finite");
      }
    }
    w_total += chunk_weight[c];
  }
  require(w_total > 0.0 && std::isfinite(w_total),
          "plan_chunked_coreset: the chunks hold no points (total weight 0)");

  // mu, in chunk order.
  std::fill(mean, mean + d, 0.0);
  for (index_t c = 0; c < K; ++c) {
    if (chunk_weight[c] <= 0.0) continue;
    for (index_t j = 0; j < d; ++j) mean[j] += chunk_weight[c] * chunk_mean[c * d + j];
  }
  for (index_t j = 0; j < d; ++j) mean[j] /= w_total;
  // Each chunk's sum of w d(x, mu)^2, about its own mean (parallel axes).
  std::vector<double> wd2(K, 0.0);
  double wd2_total = 0.0;
  for (index_t c = 0; c < K; ++c) {
    if (chunk_weight[c] <= 0.0) continue;
    double shift = 0.0;
    for (index_t j = 0; j < d; ++j) {
      const double diff = chunk_mean[c * d + j] - mean[j];
      shift += diff * diff;
    }
    wd2[c] = chunk_scatter[c] + chunk_weight[c] * shift;
    wd2_total += wd2[c];
  }
  CoresetPlan plan;
  // All points at mu -> uniform-by-weight (as lightweight_coreset).
  plan.a = wd2_total > 0.0 ? 0.5 / w_total : 1.0 / w_total;
  plan.b = wd2_total > 0.0 ? 0.5 / wd2_total : 0.0;
  std::vector<double> start(K + 1, 0.0);
  for (index_t c = 0; c < K; ++c) {
    chunk_mass[c] = plan.a * chunk_weight[c] + plan.b * wd2[c];
    start[c + 1] = start[c] + chunk_mass[c];
  }
  plan.total_mass = start[K];

  // The multinomial split: m sorted uniforms on [0, total), counted per
  // chunk interval [start[c], start[c + 1]) (empty for a chunk of mass 0).
  detail::Rng rng(run.seed, detail::Stream::coreset_split);
  const std::vector<double> u = detail::sorted_uniforms(coreset_size, plan.total_mass, rng);
  std::fill(chunk_draws, chunk_draws + K, index_t(0));
  index_t c = 0;
  for (const double uk : u) {
    while (c + 1 < K && !(uk < start[c + 1])) ++c;
    ++chunk_draws[c];
  }
  return plan;
}

template <typename T>
CoresetStats draw_coreset_chunk(const DataView<T>& chunk, index_t chunk_id, const double* mean,
                                const CoresetPlan& plan, double chunk_mass, index_t chunk_draws,
                                index_t coreset_size, const RunOptions& run, index_t* indices,
                                double* weights) {
  require_chunk(chunk, "draw_coreset_chunk");
  require(chunk_id >= 0, "draw_coreset_chunk: chunk_id must be >= 0");
  require(coreset_size >= 1, "draw_coreset_chunk: coreset_size must be >= 1");
  require(chunk_draws >= 0 && chunk_draws <= coreset_size,
          "draw_coreset_chunk: chunk_draws must be in [0, coreset_size]");
  CoresetStats stats;
  if (chunk_draws == 0) return stats;
  require(chunk.n >= 1, "draw_coreset_chunk: draws from an empty chunk");
  require(mean != nullptr && indices != nullptr && weights != nullptr,
          "draw_coreset_chunk: a buffer is a null pointer");
  require(std::isfinite(chunk_mass) && chunk_mass > 0.0 && std::isfinite(plan.total_mass) &&
              plan.total_mass >= chunk_mass && plan.a > 0.0 && plan.b >= 0.0,
          "draw_coreset_chunk: the plan is not one of plan_chunked_coreset");
  detail::Stopwatch clock;
  const index_t n = chunk.n, d = chunk.d;
  detail::Vector<T> mu_t(d);
  for (index_t j = 0; j < d; ++j) mu_t[j] = static_cast<T>(mean[j]);
  // d(x, mu)^2 per row and the q-mass of every row block.
  const index_t n_tasks = n_chunks(n, kStreamChunk);
  std::vector<double> d2(n), block_mass(n_tasks);
  detail::parallel_for(n_tasks, run.n_threads, [&](index_t t) {
    const index_t r0 = t * kStreamChunk, r1 = std::min(n, r0 + kStreamChunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      d2[i] = static_cast<double>(detail::squared_distance(chunk.row(i), mu_t.data(), d));
      s += chunk.weight(i) * (plan.a + plan.b * d2[i]);
    }
    block_mass[t] = s;
  }, 3.0 * kStreamChunk * d);
  std::vector<double> block_start(n_tasks + 1, 0.0);
  for (index_t t = 0; t < n_tasks; ++t) block_start[t + 1] = block_start[t] + block_mass[t];
  const double local_mass = block_start[n_tasks];
  require(local_mass > 0.0, "draw_coreset_chunk: the chunk has no q-mass (not the chunk of step 1?)");

  // A draw of row i had probability (M_c / M) (q_i / local_mass).
  const double factor = plan.total_mass * local_mass /
                        (static_cast<double>(coreset_size) * chunk_mass);
  auto qi_of = [&](index_t i) { return chunk.weight(i) * (plan.a + plan.b * d2[i]); };
  detail::Rng rng(run.seed, detail::Stream::coreset_chunk, static_cast<std::uint64_t>(chunk_id));
  const std::vector<double> u = detail::sorted_uniforms(chunk_draws, local_mass, rng);
  detail::resolve_sorted_uniforms(
      n, kStreamChunk, block_start, u, run.n_threads, qi_of,
      [&](index_t i, double qi) { return chunk.weight(i) * factor / qi; }, indices, weights);
  stats.n_distance_evals.coreset = n;
  stats.timings.coreset = clock.seconds();
  return stats;
}

template ChunkMoments coreset_chunk_moments<float>(const DataView<float>&, const RunOptions&,
                                                   double*);
template ChunkMoments coreset_chunk_moments<double>(const DataView<double>&, const RunOptions&,
                                                    double*);
template CoresetStats draw_coreset_chunk<float>(const DataView<float>&, index_t, const double*,
                                                const CoresetPlan&, double, index_t, index_t,
                                                const RunOptions&, index_t*, double*);
template CoresetStats draw_coreset_chunk<double>(const DataView<double>&, index_t, const double*,
                                                 const CoresetPlan&, double, index_t, index_t,
                                                 const RunOptions&, index_t*, double*);

}  // namespace vcgmm
