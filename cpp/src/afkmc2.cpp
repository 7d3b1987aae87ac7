#include "vcgmm/afkmc2.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
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

constexpr index_t kRound = 64;  // centers chosen per round at most (see choose_round)
// Candidate rows buffered per round at most (64 MB of doubles): long chains
// on wide data get rounds of fewer centers. The result does not depend on
// the round size (same draws in the same order, exact distances either way).
constexpr index_t kMaxRoundElements = index_t(1) << 23;

/// One AFK-MC^2 run: the proposal, the chains, the chosen centers.
template <typename T>
class Afkmc2Seeding {
 public:
  Afkmc2Seeding(const DataView<T>& data, index_t chain_length, const RunOptions& run, T* centers,
                index_t* indices)
      : data_(data), m_(chain_length), run_(run), centers_(centers), indices_(indices),
        rng_(run.seed, Stream::afkmc2) {}

  /// The first center, drawn by weight; with C >= 2 then the proposal.
  void start(bool more, SeedingStats* stats) {
    const CumulativeTable by_weight(data_.n, [&](index_t i) { return data_.weight(i); });
    take(0, by_weight.sample(rng_.uniform()));
    if (more) build_proposal(by_weight.total(), stats);
  }

  /// Centers are chosen in rounds of kRound (64 x m candidates: enough
  /// 256-row blocks for the threads): the candidates of a whole round are
  /// drawn first (the proposal does not change) and their distances to every
  /// center chosen before the round come from one blocked, exact
  /// nearest-center pass; within the round only the few centers chosen since
  /// are added. One parallel region per round instead of one per center.
  void choose_round(index_t k0, index_t k1, SeedingStats* stats) {
    const index_t d = data_.d, m = m_, n_cand = (k1 - k0) * m;
    cand_.resize(n_cand);
    accept_u_.resize(n_cand);
    cand_rows_.resize(n_cand * d);
    cand_d2_.resize(n_cand);
    for (index_t j = 0; j < n_cand; ++j) {
      cand_[j] = proposal_->sample(rng_.uniform());
      accept_u_[j] = rng_.uniform();
      std::memcpy(cand_rows_.data() + j * d, data_.row(cand_[j]), sizeof(T) * d);
    }
    const DataView<T> cand_view{cand_rows_.data(), n_cand, d, nullptr};
    detail::assign_nearest(cand_view, centers_, k0, nullptr, cand_d2_.data(), run_.n_threads);
    for (index_t k = k0; k < k1; ++k) {
      const index_t base = (k - k0) * m;
      for (index_t j = 0; j < m; ++j) {  // centers chosen earlier in this round
        const T* y = cand_rows_.data() + (base + j) * d;
        for (index_t c = k0; c < k; ++c) {
          cand_d2_[base + j] =
              std::min(cand_d2_[base + j], squared_distance_exact(y, centers_ + c * d, d));
        }
      }
      stats->n_distance_evals.seeding += m * k;
      take(k, cand_[run_chain(base)]);
    }
  }

 private:
  // Proposal q(x) from the distances to c1 (one pass).
  void build_proposal(double w_total, SeedingStats* stats) {
    const index_t n = data_.n, d = data_.d;
    q_.resize(n);
    const index_t n_tasks = n_chunks(n, kStreamChunk);
    std::vector<double> part(n_tasks);
    parallel_for(n_tasks, run_.n_threads, [&](index_t t) {
      const index_t r0 = t * kStreamChunk, r1 = std::min(n, r0 + kStreamChunk);
      double s = 0.0;
      for (index_t i = r0; i < r1; ++i) {
        q_[i] = static_cast<double>(squared_distance(data_.row(i), centers_, d));
        s += data_.weight(i) * q_[i];
      }
      part[t] = s;
    }, static_cast<double>(kStreamChunk * d * 3));
    stats->n_distance_evals.seeding += n;
    double wd2_total = 0.0;
    for (double s : part) wd2_total += s;
    for (index_t i = 0; i < n; ++i) {
      const double wi = data_.weight(i);
      q_[i] = wd2_total > 0.0 ? 0.5 * wi * q_[i] / wd2_total + 0.5 * wi / w_total : wi / w_total;
    }
    proposal_ = std::make_unique<CumulativeTable>(n, [&](index_t i) { return q_[i]; });
  }

  // The chain over candidates [base, base + m): state x, proposals y; accept
  // with min(1, pi(y) q(x) / (pi(x) q(y))), pi = w d^2 (the target),
  // compared without division. Returns the final state.
  index_t run_chain(index_t base) const {
    index_t x = base;
    for (index_t j = base + 1; j < base + m_; ++j) {
      const double px = data_.weight(cand_[x]) * cand_d2_[x];
      const double py = data_.weight(cand_[j]) * cand_d2_[j];
      if (px == 0.0 || accept_u_[j] * px * q_[cand_[j]] < py * q_[cand_[x]]) x = j;
    }
    return x;
  }

  void take(index_t k, index_t row) {
    std::memcpy(centers_ + k * data_.d, data_.row(row), sizeof(T) * data_.d);
    if (indices_) indices_[k] = row;
  }

  const DataView<T>& data_;
  index_t m_;
  const RunOptions& run_;
  T* centers_;
  index_t* indices_;
  Rng rng_;
  std::vector<double> q_;
  std::unique_ptr<CumulativeTable> proposal_;
  std::vector<index_t> cand_;
  std::vector<double> accept_u_;
  std::vector<T> cand_rows_;
  std::vector<double> cand_d2_;
};

}  // namespace

template <typename T>
SeedingStats afkmc2(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                    const RunOptions& run, T* centers, index_t* indices) {
  Stopwatch clock;
  SeedingStats stats;
  Afkmc2Seeding<T> seeding(data, params.chain_length, run, centers, indices);
  seeding.start(n_clusters > 1, &stats);
  const index_t round = std::clamp<index_t>(
      kMaxRoundElements / (static_cast<index_t>(params.chain_length) * data.d), 1, kRound);
  for (index_t k0 = 1; k0 < n_clusters; k0 += round) {
    check_interrupt();
    seeding.choose_round(k0, std::min(n_clusters, k0 + round), &stats);
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
