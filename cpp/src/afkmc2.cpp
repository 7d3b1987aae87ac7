#include "vcgmm/afkmc2.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "blocked_distances.hpp"
#include "parallel.hpp"
#include "random.hpp"
#include "sampling.hpp"
#include "validation.hpp"

namespace vcgmm {

namespace {
constexpr index_t kChunk = 16384;       // rows per task of the proposal pass
constexpr index_t kCenterBlock = 256;   // centers per task of a chain step
}  // namespace

template <typename T>
SeedingStats afkmc2(const DataView<T>& data, const Afkmc2Params& params, T* centers,
                    index_t* indices) {
  detail::Stopwatch clock;
  detail::require_data(data, "afkmc2");
  detail::require_clusters(params.n_clusters, data.n, "afkmc2");
  detail::require(params.chain_length >= 1, "afkmc2: chain_length must be >= 1");
  detail::require(centers != nullptr, "afkmc2: centers is a null pointer");
  const index_t n = data.n, d = data.d, C = params.n_clusters, m = params.chain_length;
  detail::Rng rng(params.seed, detail::Stream::afkmc2);
  SeedingStats stats;

  auto take = [&](index_t k, index_t row) {
    std::memcpy(centers + k * d, data.row(row), sizeof(T) * d);
    if (indices) indices[k] = row;
  };

  // First center by weight.
  const detail::CumulativeTable by_weight(n, [&](index_t i) { return data.weight(i); });
  take(0, by_weight.sample(rng.uniform()));
  if (C == 1) {
    stats.seconds = clock.seconds();
    return stats;
  }

  // Proposal q(x) from the distances to c1 (one pass).
  std::vector<double> q(n);
  const index_t n_tasks = detail::n_chunks(n, kChunk);
  std::vector<double> part(n_tasks);
  detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
    const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      q[i] = static_cast<double>(detail::squared_distance(data.row(i), centers, d));
      s += data.weight(i) * q[i];
    }
    part[t] = s;
  });
  stats.n_distance_evals += n;
  double wd2_total = 0.0;
  for (double s : part) wd2_total += s;
  const double w_total = by_weight.total();
  for (index_t i = 0; i < n; ++i) {
    const double wi = data.weight(i);
    q[i] = wd2_total > 0.0 ? 0.5 * wi * q[i] / wd2_total + 0.5 * wi / w_total : wi / w_total;
  }
  const detail::CumulativeTable proposal(n, [&](index_t i) { return q[i]; });

  std::vector<index_t> cand(m);
  std::vector<double> accept_u(m);
  std::vector<T> cand_rows(m * d);
  std::vector<double> cand_d2(m);
  std::vector<double> block_min;
  for (index_t k = 1; k < C; ++k) {
    detail::check_interrupt();
    for (index_t j = 0; j < m; ++j) {
      cand[j] = proposal.sample(rng.uniform());
      accept_u[j] = rng.uniform();
      std::memcpy(cand_rows.data() + j * d, data.row(cand[j]), sizeof(T) * d);
    }
    // Squared distance of every candidate to its nearest chosen center:
    // per block of centers a partial min, then the min over blocks.
    const index_t n_blocks = detail::n_chunks(k, kCenterBlock);
    block_min.assign(n_blocks * m, std::numeric_limits<double>::infinity());
    auto block_task = [&](index_t b) {
      const index_t c0 = b * kCenterBlock, c1 = std::min(k, c0 + kCenterBlock);
      for (index_t j = 0; j < m; ++j) {
        const T* y = cand_rows.data() + j * d;
        double best = std::numeric_limits<double>::infinity();
        for (index_t c = c0; c < c1; ++c) {
          best = std::min(best, static_cast<double>(detail::squared_distance(y, centers + c * d, d)));
        }
        block_min[b * m + j] = best;
      }
    };
    if (n_blocks == 1) {
      block_task(0);
    } else {
      detail::parallel_for(n_blocks, params.n_threads, block_task);
    }
    for (index_t j = 0; j < m; ++j) {
      double best = block_min[j];
      for (index_t b = 1; b < n_blocks; ++b) best = std::min(best, block_min[b * m + j]);
      cand_d2[j] = best;
    }
    stats.n_distance_evals += m * k;

    // The chain: state x, proposals y; accept with min(1, pi(y) q(x) / (pi(x) q(y))),
    // pi = w d^2 (target), compared without division.
    index_t x = 0;
    for (index_t j = 1; j < m; ++j) {
      const double px = data.weight(cand[x]) * cand_d2[x];
      const double py = data.weight(cand[j]) * cand_d2[j];
      if (px == 0.0 || accept_u[j] * px * q[cand[j]] < py * q[cand[x]]) x = j;
    }
    take(k, cand[x]);
  }
  stats.seconds = clock.seconds();
  return stats;
}

template SeedingStats afkmc2<float>(const DataView<float>&, const Afkmc2Params&, float*, index_t*);
template SeedingStats afkmc2<double>(const DataView<double>&, const Afkmc2Params&, double*,
                                     index_t*);

}  // namespace vcgmm
