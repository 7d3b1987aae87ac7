#include "vcgmm/kmeans_plusplus.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/unchecked.hpp"
#include "detail/validation.hpp"

namespace vcgmm {

namespace detail {

template <typename T>
SeedingStats kmeans_plusplus(const DataView<T>& data, index_t n_clusters,
                             const KMeansPlusPlusParams& params, const RunOptions& run,
                             T* centers, index_t* indices) {
  constexpr index_t kChunk = kSeedingChunk;
  Stopwatch clock;
  const index_t n = data.n, d = data.d, C = n_clusters;
  const index_t L = params.n_local_trials;
  const index_t n_tasks = n_chunks(n, kChunk);
  Rng rng(run.seed, Stream::kmeans_plusplus);
  SeedingStats stats;

  std::vector<double> w_chunk(n_tasks, 0.0);
  for (index_t t = 0; t < n_tasks; ++t) {
    const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
    if (!data.w) {
      w_chunk[t] = static_cast<double>(r1 - r0);
    } else {
      for (index_t i = r0; i < r1; ++i) w_chunk[t] += data.w[i];
    }
  }
  auto by_weight = [&](index_t i) { return data.weight(i); };

  auto take = [&](index_t k, index_t row) {
    std::memcpy(centers + k * d, data.row(row), sizeof(T) * d);
    if (indices) indices[k] = row;
  };
  take(0, sample_by_chunks(rng.uniform(), w_chunk, kChunk, n, by_weight));
  if (C == 1) {
    stats.timings.seeding = clock.seconds();
    return stats;
  }

  // min_d2[i]: squared distance of x_i to its nearest chosen center;
  // pot_chunk[t]: sum of w min_d2 over chunk t.
  std::vector<double> min_d2(n, std::numeric_limits<double>::infinity());
  std::vector<double> pot_chunk(n_tasks, 0.0);
  auto add_center = [&](const T* c) {
    parallel_for(n_tasks, run.n_threads, [&](index_t t) {
      const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
      double pot = 0.0;
      for (index_t i = r0; i < r1; ++i) {
        const double di = static_cast<double>(squared_distance(data.row(i), c, d));
        if (di < min_d2[i]) min_d2[i] = di;
        pot += data.weight(i) * min_d2[i];
      }
      pot_chunk[t] = pot;
    }, 3.0 * kChunk * d);
    stats.n_distance_evals.seeding += n;
  };
  auto by_potential = [&](index_t i) { return data.weight(i) * min_d2[i]; };
  auto draw_candidate = [&]() -> index_t {
    double total = 0.0;
    for (double p : pot_chunk) total += p;
    if (!(total > 0.0)) {  // every point sits on a center: draw by weight
      return sample_by_chunks(rng.uniform(), w_chunk, kChunk, n, by_weight);
    }
    return sample_by_chunks(rng.uniform(), pot_chunk, kChunk, n, by_potential);
  };

  add_center(centers);
  std::vector<index_t> cand(L);
  std::vector<double> cand_pot_chunk(L > 1 ? n_tasks * L : 0);
  for (index_t k = 1; k < C; ++k) {
    check_interrupt();
    index_t chosen;
    if (L == 1) {
      chosen = draw_candidate();
    } else {
      for (index_t l = 0; l < L; ++l) cand[l] = draw_candidate();
      // Potential after adding each candidate, in one pass over X.
      parallel_for(n_tasks, run.n_threads, [&](index_t t) {
        const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
        for (index_t l = 0; l < L; ++l) {
          const T* c = data.row(cand[l]);
          double pot = 0.0;
          for (index_t i = r0; i < r1; ++i) {
            const double di = static_cast<double>(squared_distance(data.row(i), c, d));
            pot += data.weight(i) * std::min(min_d2[i], di);
          }
          cand_pot_chunk[t * L + l] = pot;
        }
      }, 3.0 * kChunk * d * L);
      stats.n_distance_evals.seeding += L * n;
      index_t best = 0;
      double best_pot = std::numeric_limits<double>::infinity();
      for (index_t l = 0; l < L; ++l) {
        double pot = 0.0;
        for (index_t t = 0; t < n_tasks; ++t) pot += cand_pot_chunk[t * L + l];
        if (pot < best_pot) {
          best_pot = pot;
          best = l;
        }
      }
      chosen = cand[best];
    }
    take(k, chosen);
    if (k + 1 < C) add_center(centers + k * d);
  }
  stats.timings.seeding = clock.seconds();
  return stats;
}

template SeedingStats kmeans_plusplus<float>(const DataView<float>&, index_t,
                                             const KMeansPlusPlusParams&, const RunOptions&,
                                             float*, index_t*);
template SeedingStats kmeans_plusplus<double>(const DataView<double>&, index_t,
                                              const KMeansPlusPlusParams&, const RunOptions&,
                                              double*, index_t*);

}  // namespace detail

template <typename T>
SeedingStats kmeans_plusplus(const DataView<T>& data, index_t n_clusters,
                             const KMeansPlusPlusParams& params, const RunOptions& run,
                             T* centers, index_t* indices) {
  detail::require_data(data, "kmeans_plusplus");
  detail::require_clusters(n_clusters, data.n, "kmeans_plusplus");
  detail::require(params.n_local_trials >= 1, "kmeans_plusplus: n_local_trials must be >= 1");
  detail::require(centers != nullptr, "kmeans_plusplus: centers is a null pointer");
  return detail::kmeans_plusplus(data, n_clusters, params, run, centers, indices);
}

template SeedingStats kmeans_plusplus<float>(const DataView<float>&, index_t,
                                             const KMeansPlusPlusParams&, const RunOptions&,
                                             float*, index_t*);
template SeedingStats kmeans_plusplus<double>(const DataView<double>&, index_t,
                                              const KMeansPlusPlusParams&, const RunOptions&,
                                              double*, index_t*);

}  // namespace vcgmm
