#include "vcgmm/kmeans_plusplus.hpp"

#include <algorithm>
#include <cstring>
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
/// Centers per task of the center-to-center distances.
constexpr index_t kCentersPerTask = 64;

/// One D^2-sampling run: the distances to the nearest chosen center, their
/// chunk sums (the potential), the draws.
///
/// Exact acceleration by the triangle inequality: every row keeps its
/// nearest chosen center a(x) and d(x) = ||x - a(x)||^2. A new point y with
/// ||y - a(x)||^2 >= 4 d(x) is no nearer to x than a(x) (||x - y|| >=
/// ||y - a|| - ||x - a|| >= sqrt(d(x))), so x's distance to y is not
/// computed. The rows are still visited in order, in the same chunks, and
/// summed as without the test. The evaluations counted are the algorithm's
/// (n per center and candidate), as for AFK-MC^2's screen (cost_model.rst).
template <typename T>
class DSquaredSampling {
 public:
  DSquaredSampling(const DataView<T>& data, const RunOptions& run, const T* centers,
                   bool use_bounds)
      : data_(data), run_(run), centers_(centers), use_bounds_(use_bounds),
        n_tasks_(n_chunks(data.n, kChunk)),
        rng_(run.seed, Stream::kmeans_plusplus), w_chunk_(chunk_weight_sums(data, kChunk)),
        pot_chunk_(n_tasks_, 0.0) {}

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

  /// Takes center k (row k of the centers, chosen already) into the
  /// distances and the potential (one pass).
  void add_center(index_t k, SeedingStats* stats) {
    const index_t n = data_.n, d = data_.d;
    const T* c = centers_ + k * d;
    if (k == 0) {
      min_d2_.assign(n, std::numeric_limits<double>::infinity());
      nearest_.assign(n, 0);
      center_distance_pass(data_, c, kChunk, run_.n_threads, pot_chunk_.data(),
                           [&](index_t i, double di) { return min_d2_[i] = di; }, stats);
      return;
    }
    // ||c - a||^2 for every earlier center a: best_of's, when c is its
    // winner, else computed here
    std::vector<double> cc;
    if (static_cast<index_t>(winner_cc_.size()) == k &&
        std::memcmp(winner_row_.data(), c, sizeof(T) * d) == 0) {
      cc.swap(winner_cc_);
    } else {
      cc = center_distances(&c, 1, k);
    }
    winner_cc_.clear();
    parallel_for(n_tasks_, run_.n_threads, [&](index_t t) {
      const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
      double s = 0.0;
      for (index_t i = r0; i < r1; ++i) {
        double& di = min_d2_[i];
        if (!use_bounds_ || cc[nearest_[i]] < 4.0 * di) {
          const double dc = static_cast<double>(squared_distance(data_.row(i), c, d));
          if (dc < di) {
            di = dc;
            nearest_[i] = k;
          }
        }
        s += data_.weight(i) * di;
      }
      pot_chunk_[t] = s;
    }, 3.0 * kChunk * d);
    stats->n_distance_evals.seeding += n;
  }

  /// Greedy step with centers 0..k-1 taken in: of L candidates, the one
  /// whose addition leaves the smallest potential (one pass over X for all).
  index_t best_of(index_t k, index_t L, SeedingStats* stats) {
    const index_t n = data_.n, d = data_.d;
    std::vector<index_t> cand(L);
    std::vector<const T*> rows(L);
    for (index_t l = 0; l < L; ++l) {
      cand[l] = draw_candidate();
      rows[l] = data_.row(cand[l]);
    }
    // (k, L): row a holds the candidates' squared distances to center a
    const std::vector<double> cc = center_distances(rows.data(), L, k);
    std::vector<double> nearest_cand(k);
    for (index_t a = 0; a < k; ++a) {
      nearest_cand[a] = *std::min_element(cc.begin() + a * L, cc.begin() + (a + 1) * L);
    }
    cand_pot_chunk_.assign(n_tasks_ * L, 0.0);
    parallel_for(n_tasks_, run_.n_threads, [&](index_t t) {
      const index_t r0 = t * kChunk, r1 = std::min(n, r0 + kChunk);
      double* pot = cand_pot_chunk_.data() + t * L;
      double base = 0.0;  // the rows that no candidate takes
      for (index_t i = r0; i < r1; ++i) {
        const double w = data_.weight(i), d0 = min_d2_[i], reach = 4.0 * d0;
        const index_t a = nearest_[i];
        if (use_bounds_ && nearest_cand[a] >= reach) {  // no candidate is nearer than a
          base += w * d0;
          continue;
        }
        const double* bound = cc.data() + a * L;
        for (index_t l = 0; l < L; ++l) {
          double di = d0;
          if (!use_bounds_ || bound[l] < reach) {
            di = std::min(d0, static_cast<double>(squared_distance(data_.row(i), rows[l], d)));
          }
          pot[l] += w * di;
        }
      }
      for (index_t l = 0; l < L; ++l) pot[l] += base;
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
    winner_cc_.resize(k);
    for (index_t a = 0; a < k; ++a) winner_cc_[a] = cc[a * L + best];
    winner_row_.assign(rows[best], rows[best] + d);
    return cand[best];
  }

 private:
  /// (k, m) row-major: the squared distances from center a to the m points.
  std::vector<double> center_distances(const T* const* pts, index_t m, index_t k) const {
    const index_t d = data_.d;
    std::vector<double> cc(k * m);
    parallel_for(n_chunks(k, kCentersPerTask), run_.n_threads, [&](index_t t) {
      const index_t a1 = std::min(k, (t + 1) * kCentersPerTask);
      for (index_t a = t * kCentersPerTask; a < a1; ++a) {
        for (index_t l = 0; l < m; ++l) {
          cc[a * m + l] = static_cast<double>(squared_distance(pts[l], centers_ + a * d, d));
        }
      }
    }, 3.0 * kCentersPerTask * d * m);
    return cc;
  }

  const DataView<T>& data_;
  const RunOptions& run_;
  const T* centers_;  // the chosen centers; row k is written before add_center(k)
  bool use_bounds_;   // false: every distance computed (the reference loop)
  index_t n_tasks_;
  Rng rng_;
  std::vector<double> w_chunk_;         // sum of w per chunk
  std::vector<double> pot_chunk_;       // sum of w min_d2 per chunk
  std::vector<double> min_d2_;          // squared distance to the nearest chosen center
  std::vector<index_t> nearest_;        // that center
  std::vector<double> cand_pot_chunk_;  // (n_tasks, L) potentials after each candidate
  std::vector<double> winner_cc_;       // best_of's winner: squared distances to the centers
  std::vector<T> winner_row_;           // and its coordinates
};

}  // namespace

template <typename T>
SeedingStats kmeans_plusplus(const DataView<T>& data, index_t n_clusters,
                             const KMeansPlusPlusParams& params, const RunOptions& run,
                             T* centers, index_t* indices) {
  return timed_seeding([&](SeedingStats* stats) {
    const index_t L = local_trials(params, n_clusters);
    DSquaredSampling<T> sampling(data, run, centers, params.use_bounds);
    take_center(data, 0, sampling.draw_by_weight(), centers, indices);
    if (n_clusters > 1) sampling.add_center(0, stats);
    for (index_t k = 1; k < n_clusters; ++k) {
      check_interrupt();
      take_center(data, k, L == 1 ? sampling.draw_candidate() : sampling.best_of(k, L, stats),
                  centers, indices);
      if (k + 1 < n_clusters) sampling.add_center(k, stats);
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
