#include "vcgmm/afkmc2.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "detail/assign.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/unchecked.hpp"
#include "detail/validation.hpp"

namespace vcgmm {

namespace detail {

namespace {
constexpr index_t kRound = 64;  // centers chosen per round (see below)
}  // namespace

template <typename T>
SeedingStats afkmc2(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                    const RunOptions& run, T* centers, index_t* indices) {
  constexpr index_t kChunk = kStreamChunk;
  Stopwatch clock;
  const index_t n = data.n, d = data.d, C = n_clusters, m = params.chain_length;
  Rng rng(run.seed, Stream::afkmc2);
  SeedingStats stats;

  auto take = [&](index_t k, index_t row) {
    std::memcpy(centers + k * d, data.row(row), sizeof(T) * d);
    if (indices) indices[k] = row;
  };

  // First center by weight.
  const CumulativeTable by_weight(n, [&](index_t i) { return data.weight(i); });
  take(0, by_weight.sample(rng.uniform()));
  if (C == 1) {
    stats.timings.seeding = clock.seconds();
    return stats;
  }

  // Proposal q(x) from the distances to c1 (one pass).
  std::vector<double> q(n);
  const index_t n_tasks = n_chunks(n, kChunk);
  std::vector<double> part(n_tasks);
  parallel_for(n_tasks, run.n_threads, [&](index_t t) {
    const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      q[i] = static_cast<double>(squared_distance(data.row(i), centers, d));
      s += data.weight(i) * q[i];
    }
    part[t] = s;
  }, static_cast<double>(kChunk * d * 3));
  stats.n_distance_evals.seeding += n;
  double wd2_total = 0.0;
  for (double s : part) wd2_total += s;
  const double w_total = by_weight.total();
  for (index_t i = 0; i < n; ++i) {
    const double wi = data.weight(i);
    q[i] = wd2_total > 0.0 ? 0.5 * wi * q[i] / wd2_total + 0.5 * wi / w_total : wi / w_total;
  }
  const CumulativeTable proposal(n, [&](index_t i) { return q[i]; });

  // Centers are chosen in rounds of kRound (64 x m candidates: enough
  // 256-row blocks for the threads): the candidates of a whole round
  // are drawn first (the proposal does not change) and their distances to
  // every center chosen before the round come from one blocked, exact
  // nearest-center pass; within the round only the few centers chosen since
  // are added. One parallel region per round instead of one per center.
  std::vector<index_t> cand;
  std::vector<double> accept_u;
  std::vector<T> cand_rows;
  std::vector<double> cand_d2;
  for (index_t k0 = 1; k0 < C; k0 += kRound) {
    check_interrupt();
    const index_t k1 = std::min(C, k0 + kRound);
    const index_t n_cand = (k1 - k0) * m;
    cand.resize(n_cand);
    accept_u.resize(n_cand);
    cand_rows.resize(n_cand * d);
    cand_d2.resize(n_cand);
    for (index_t j = 0; j < n_cand; ++j) {
      cand[j] = proposal.sample(rng.uniform());
      accept_u[j] = rng.uniform();
      std::memcpy(cand_rows.data() + j * d, data.row(cand[j]), sizeof(T) * d);
    }
    const DataView<T> cand_view{cand_rows.data(), n_cand, d, nullptr};
    detail::assign_nearest(cand_view, centers, k0, nullptr, cand_d2.data(), run.n_threads);

    for (index_t k = k0; k < k1; ++k) {
      const index_t base = (k - k0) * m;
      for (index_t j = 0; j < m; ++j) {  // centers chosen earlier in this round
        const T* y = cand_rows.data() + (base + j) * d;
        for (index_t c = k0; c < k; ++c) {
          cand_d2[base + j] =
              std::min(cand_d2[base + j], squared_distance_exact(y, centers + c * d, d));
        }
      }
      stats.n_distance_evals.seeding += m * k;
      // The chain: state x, proposals y; accept with min(1, pi(y) q(x) / (pi(x) q(y))),
      // pi = w d^2 (target), compared without division.
      index_t x = base;
      for (index_t j = base + 1; j < base + m; ++j) {
        const double px = data.weight(cand[x]) * cand_d2[x];
        const double py = data.weight(cand[j]) * cand_d2[j];
        if (px == 0.0 || accept_u[j] * px * q[cand[j]] < py * q[cand[x]]) x = j;
      }
      take(k, cand[x]);
    }
  }
  stats.timings.seeding = clock.seconds();
  return stats;
}

template SeedingStats afkmc2<float>(const DataView<float>&, index_t, const Afkmc2Params&,
                                    const RunOptions&, float*, index_t*);
template SeedingStats afkmc2<double>(const DataView<double>&, index_t, const Afkmc2Params&,
                                     const RunOptions&, double*, index_t*);

}  // namespace detail

template <typename T>
SeedingStats afkmc2(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                    const RunOptions& run, T* centers, index_t* indices) {
  detail::require_data(data, "afkmc2");
  detail::require_clusters(n_clusters, data.n, "afkmc2");
  detail::require(params.chain_length >= 1, "afkmc2: chain_length must be >= 1");
  detail::require(centers != nullptr, "afkmc2: centers is a null pointer");
  return detail::afkmc2(data, n_clusters, params, run, centers, indices);
}

template SeedingStats afkmc2<float>(const DataView<float>&, index_t, const Afkmc2Params&,
                                    const RunOptions&, float*, index_t*);
template SeedingStats afkmc2<double>(const DataView<double>&, index_t, const Afkmc2Params&,
                                     const RunOptions&, double*, index_t*);

}  // namespace vcgmm
