#include "vcgmm/lightweight_coreset.hpp"

#include <algorithm>
#include <vector>

#include "blocked_distances.hpp"
#include "parallel.hpp"
#include "random.hpp"
#include "validation.hpp"

namespace vcgmm {

namespace {
// Rows per task of the streaming passes. Fixed, so sums do not depend on threads.
constexpr index_t kChunk = 16384;
}  // namespace

template <typename T>
CoresetStats lightweight_coreset(const DataView<T>& data, const LightweightCoresetParams& params,
                                 index_t* indices, double* weights) {
  detail::Stopwatch clock;
  detail::require_data(data, "lightweight_coreset");
  detail::require(params.n_prime >= 1, "lightweight_coreset: n_prime must be >= 1");
  detail::require(indices != nullptr && weights != nullptr,
                  "lightweight_coreset: output buffers are null");
  const index_t n = data.n, d = data.d, m = params.n_prime;
  const index_t n_tasks = detail::n_chunks(n, kChunk);

  // Pass 1: weighted mean (per-chunk partial sums, combined in chunk order).
  detail::RowMatrix<double> part_sum(n_tasks, d);
  std::vector<double> part_w(n_tasks);
  detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
    const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
    // Plain row loops (no vectorized reductions over the weights), so the
    // summation order never depends on the arrays' memory alignment.
    detail::Vector<double> acc = detail::Vector<double>::Zero(d);
    double wsum = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      const double wi = data.weight(i);
      detail::add_scaled_to_double(acc.data(), wi, data.row(i), d);
      wsum += wi;
    }
    part_sum.row(t) = acc.transpose();
    part_w[t] = wsum;
  }, 2.0 * kChunk * d);
  detail::Vector<double> mu = detail::Vector<double>::Zero(d);
  double w_total = 0.0;
  for (index_t t = 0; t < n_tasks; ++t) {
    mu += part_sum.row(t).transpose();
    w_total += part_w[t];
  }
  mu /= w_total;
  const detail::Vector<T> mu_t = mu.template cast<T>();

  // Pass 2: d(x, mu)^2 per point and per-chunk sums of w d^2.
  std::vector<double> d2(n);
  std::vector<double> part_wd2(n_tasks);
  detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
    const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      d2[i] = static_cast<double>(detail::squared_distance(data.row(i), mu_t.data(), d));
      s += data.weight(i) * d2[i];
    }
    part_wd2[t] = s;
  }, 3.0 * kChunk * d);
  double wd2_total = 0.0;
  for (index_t t = 0; t < n_tasks; ++t) wd2_total += part_wd2[t];

  // q(x) = a w(x) + b w(x) d2(x); all points at mu -> uniform-by-weight.
  const double a = wd2_total > 0.0 ? 0.5 / w_total : 1.0 / w_total;
  const double b = wd2_total > 0.0 ? 0.5 / wd2_total : 0.0;
  auto q = [&](index_t i) { return data.weight(i) * (a + b * d2[i]); };

  // Chunk masses and their prefix (the top level of the inversion).
  std::vector<double> chunk_start(n_tasks + 1, 0.0);
  for (index_t t = 0; t < n_tasks; ++t) {
    chunk_start[t + 1] = chunk_start[t] + a * part_w[t] + b * part_wd2[t];
  }
  const double total = chunk_start[n_tasks];

  // m i.i.d. uniforms on [0, total), sorted: inverting the CDF with sorted
  // uniforms gives the same multiset of draws as m independent inversions.
  std::vector<double> u(m);
  {
    detail::Rng rng(params.seed, detail::Stream::coreset);
    for (index_t k = 0; k < m; ++k) u[k] = rng.uniform() * total;
    std::sort(u.begin(), u.end());
  }
  // Each chunk resolves the uniforms falling into its mass interval.
  std::vector<index_t> first_draw(n_tasks + 1);
  for (index_t t = 0; t <= n_tasks; ++t) {
    first_draw[t] = t == n_tasks ? m
                                 : std::lower_bound(u.begin(), u.end(), chunk_start[t]) - u.begin();
  }
  detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
    index_t k = first_draw[t];
    const index_t k_end = first_draw[t + 1];
    if (k == k_end) return;
    const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
    double cum = chunk_start[t];
    index_t last_positive = r0;
    for (index_t i = r0; i < r1 && k < k_end; ++i) {
      const double qi = q(i);
      if (qi <= 0.0) continue;
      last_positive = i;
      cum += qi;
      while (k < k_end && u[k] < cum) {
        indices[k] = i;
        weights[k] = data.weight(i) / (static_cast<double>(m) * qi);
        ++k;
      }
    }
    // Rounding may leave the last uniforms just above the chunk's running sum.
    for (; k < k_end; ++k) {
      indices[k] = last_positive;
      weights[k] = data.weight(last_positive) / (static_cast<double>(m) * q(last_positive));
    }
  }, 10.0 * kChunk);

  CoresetStats stats;
  stats.n_distance_evals = n;
  stats.seconds = clock.seconds();
  return stats;
}

template CoresetStats lightweight_coreset<float>(const DataView<float>&,
                                                 const LightweightCoresetParams&, index_t*, double*);
template CoresetStats lightweight_coreset<double>(const DataView<double>&,
                                                  const LightweightCoresetParams&, index_t*,
                                                  double*);

}  // namespace vcgmm
