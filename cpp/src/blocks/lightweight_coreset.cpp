#include "vcgmm/lightweight_coreset.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/unchecked.hpp"
#include "detail/validation.hpp"
#include "detail/weighted_moments.hpp"

namespace vcgmm {

namespace detail {

namespace {

/// The sampling distribution q(x) = a w(x) + b w(x) d(x, mu)^2 of the
/// coreset, from the two passes over the data, and its mass per chunk.
struct CoresetDistribution {
  double a = 0.0, b = 0.0;
  std::vector<double> d2;           // (n,) d(x, mu)^2
  std::vector<double> chunk_start;  // (n_chunks + 1,) prefix of the chunk masses
  double total() const { return chunk_start.back(); }
};

template <typename T>
CoresetDistribution coreset_distribution(const DataView<T>& data, int n_threads) {
  const index_t n = data.n, d = data.d;
  const index_t n_tasks = n_chunks(n, kStreamChunk);
  // Pass 1: weighted mean.
  const WeightedMean pass1 = weighted_mean(data, n_threads);
  const Vector<T> mu_t = pass1.mean.template cast<T>();
  // Pass 2: d(x, mu)^2 per point and per-chunk sums of w d^2.
  CoresetDistribution q;
  q.d2.resize(n);
  std::vector<double> part_wd2(n_tasks);
  parallel_for(n_tasks, n_threads, [&](index_t t) {
    const index_t r0 = t * kStreamChunk, r1 = std::min(n, r0 + kStreamChunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      q.d2[i] = static_cast<double>(squared_distance(data.row(i), mu_t.data(), d));
      s += data.weight(i) * q.d2[i];
    }
    part_wd2[t] = s;
  }, 3.0 * kStreamChunk * d);
  double wd2_total = 0.0;
  for (index_t t = 0; t < n_tasks; ++t) wd2_total += part_wd2[t];
  // All points at mu -> uniform-by-weight.
  q.a = wd2_total > 0.0 ? 0.5 / pass1.w_total : 1.0 / pass1.w_total;
  q.b = wd2_total > 0.0 ? 0.5 / wd2_total : 0.0;
  q.chunk_start.assign(n_tasks + 1, 0.0);
  for (index_t t = 0; t < n_tasks; ++t) {
    q.chunk_start[t + 1] = q.chunk_start[t] + q.a * pass1.chunk_weight[t] + q.b * part_wd2[t];
  }
  return q;
}

/// m i.i.d. draws from q (see resolve_sorted_uniforms), each chunk resolving
/// the uniforms falling into its mass.
template <typename T>
void draw_coreset(const DataView<T>& data, const CoresetDistribution& q, index_t m,
                  const RunOptions& run, index_t* indices, double* weights) {
  auto qi_of = [&](index_t i) { return data.weight(i) * (q.a + q.b * q.d2[i]); };
  Rng rng(run.seed, Stream::coreset);
  const std::vector<double> u = sorted_uniforms(m, q.total(), rng);
  resolve_sorted_uniforms(
      data.n, kStreamChunk, q.chunk_start, u, run.n_threads, qi_of,
      [&](index_t i, double qi) { return data.weight(i) / (static_cast<double>(m) * qi); },
      indices, weights);
}

}  // namespace

template <typename T>
CoresetStats lightweight_coreset(const DataView<T>& data, index_t coreset_size,
                                 const RunOptions& run, index_t* indices, double* weights) {
  Stopwatch clock;
  const CoresetDistribution q = coreset_distribution(data, run.n_threads);
  draw_coreset(data, q, coreset_size, run, indices, weights);
  CoresetStats stats;
  stats.n_distance_evals.coreset = data.n;
  stats.timings.coreset = clock.seconds();
  return stats;
}

template CoresetStats lightweight_coreset<float>(const DataView<float>&, index_t,
                                                 const RunOptions&, index_t*, double*);
template CoresetStats lightweight_coreset<double>(const DataView<double>&, index_t,
                                                  const RunOptions&, index_t*, double*);

}  // namespace detail

template <typename T>
CoresetStats lightweight_coreset(const DataView<T>& data, index_t coreset_size,
                                 const RunOptions& run, index_t* indices, double* weights) {
  detail::require_data(data, "lightweight_coreset");
  detail::require(coreset_size >= 1, "lightweight_coreset: coreset_size must be >= 1");
  detail::require(indices != nullptr && weights != nullptr,
                  "lightweight_coreset: output buffers are null");
  return detail::lightweight_coreset(data, coreset_size, run, indices, weights);
}

template CoresetStats lightweight_coreset<float>(const DataView<float>&, index_t,
                                                 const RunOptions&, index_t*, double*);
template CoresetStats lightweight_coreset<double>(const DataView<double>&, index_t,
                                                  const RunOptions&, index_t*, double*);

}  // namespace vcgmm
