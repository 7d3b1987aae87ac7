#include "vcgmm/kmeans_plusplus.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "blocks/checks.hpp"
#include "blocks/seeding.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/unchecked.hpp"

namespace vcgmm {

namespace detail {

namespace {

constexpr index_t kChunk = kSeedingChunk;

/// One D^2-sampling run: the distances to the nearest chosen center, their
/// chunk sums (the potential), the draws.
template <typename T>
class DSquaredSampling {
 public:
  DSquaredSampling(const DataView<T>& data, const RunOptions& run)
      : data_(data), run_(run), n_tasks_(n_chunks(data.n, kChunk)), rng_(run.seed, Stream::kmeans_plusplus),
        w_chunk_(n_tasks_, 0.0), pot_chunk_(n_tasks_, 0.0) {
    for (index_t t = 0; t < n_tasks_; ++t) {
      const index_t r0 = t * kChunk, r1 = std::min(data.n, r0 + kChunk);
      if (!data.w) {
        w_chunk_[t] = static_cast<double>(r1 - r0);
      } else {
        for (index_t i = r0; i < r1; ++i) w_chunk_[t] += data.w[i];
      }
    }
  }

  /// A row drawn with probability proportional to its weight.
  index_t draw_by_weight() {
    return sample_by_chunks(rng_.uniform(), w_chunk_, kChunk, data_.n,
                            [&](index_t i) { return data_.weight(i); });
  }

  /// A row drawn with probability proportional to w min_c d^2 (by weight
  /// when every point sits on a center).
  index_t draw_candidate() {
    double total = 0.0;
    for (double p : pot_chunk_) total += p;
    if (!(total > 0.0)) return draw_by_weight();
    return sample_by_chunks(rng_.uniform(), pot_chunk_, kChunk, data_.n,
                            [&](index_t i) { return data_.weight(i) * min_d2_[i]; });
  }

  /// Takes center c into the distances and the potential (one pass).
  void add_center(const T* c, SeedingStats* stats) {
    if (min_d2_.empty()) min_d2_.assign(data_.n, std::numeric_limits<double>::infinity());
    center_distance_pass(data_, c, kChunk, run_.n_threads, pot_chunk_.data(),
                         [&](index_t i, double di) {
                           if (di < min_d2_[i]) min_d2_[i] = di;
                           return min_d2_[i];
                         },
                         stats);
  }

  /// Greedy step: of L candidates, the one whose addition leaves the
  /// smallest potential (one pass over X for all of them).
  index_t best_of(index_t L, SeedingStats* stats) {
    const index_t n = data_.n, d = data_.d;
    std::vector<index_t> cand(L);
    for (index_t l = 0; l < L; ++l) cand[l] = draw_candidate();
    cand_pot_chunk_.resize(n_tasks_ * L);
    parallel_for(n_tasks_, run_.n_threads, [&](index_t t) {
      const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
      for (index_t l = 0; l < L; ++l) {
        const T* c = data_.row(cand[l]);
        double pot = 0.0;
        for (index_t i = r0; i < r1; ++i) {
          const double di = static_cast<double>(squared_distance(data_.row(i), c, d));
          pot += data_.weight(i) * std::min(min_d2_[i], di);
        }
        cand_pot_chunk_[t * L + l] = pot;
      }
    }, 3.0 * kChunk * d * L);
    stats->n_distance_evals.seeding += L * n;
    index_t best = 0;
    double best_pot = std::numeric_limits<double>::infinity();
    for (index_t l = 0; l < L; ++l) {
      double pot = 0.0;
      for (index_t t = 0; t < n_tasks_; ++t) pot += cand_pot_chunk_[t * L + l];
      if (pot < best_pot) {
        best_pot = pot;
        best = l;
      }
    }
    return cand[best];
  }

 private:
  const DataView<T>& data_;
  const RunOptions& run_;
  index_t n_tasks_;
  Rng rng_;
  std::vector<double> w_chunk_;        // sum of w per chunk
  std::vector<double> pot_chunk_;      // sum of w min_d2 per chunk
  std::vector<double> min_d2_;         // squared distance to the nearest chosen center
  std::vector<double> cand_pot_chunk_; // (n_tasks, L) potentials after each candidate
};

}  // namespace

template <typename T>
SeedingStats kmeans_plusplus(const DataView<T>& data, index_t n_clusters,
                             const KMeansPlusPlusParams& params, const RunOptions& run,
                             T* centers, index_t* indices) {
  return timed_seeding([&](SeedingStats* stats) {
    const index_t d = data.d, L = local_trials(params, n_clusters);
    DSquaredSampling<T> sampling(data, run);
    take_center(data, 0, sampling.draw_by_weight(), centers, indices);
    if (n_clusters > 1) sampling.add_center(centers, stats);
    for (index_t k = 1; k < n_clusters; ++k) {
      check_interrupt();
      take_center(data, k, L == 1 ? sampling.draw_candidate() : sampling.best_of(L, stats),
                  centers, indices);
      if (k + 1 < n_clusters) sampling.add_center(centers + k * d, stats);
    }
  });
}

}  // namespace detail

template <typename T>
SeedingStats kmeans_plusplus(const DataView<T>& data, index_t n_clusters,
                             const KMeansPlusPlusParams& params, const RunOptions& run,
                             T* centers, index_t* indices) {
  detail::require_data(data, "kmeans_plusplus");
  detail::require_clusters(n_clusters, data.n, "kmeans_plusplus");
  detail::require_kmeans_plusplus_params(params, "kmeans_plusplus");
  detail::require(centers != nullptr, "kmeans_plusplus: centers is a null pointer");
  return detail::kmeans_plusplus(data, n_clusters, params, run, centers, indices);
}

VCGMM_INSTANTIATE_SEEDING(kmeans_plusplus, KMeansPlusPlusParams)

}  // namespace vcgmm
