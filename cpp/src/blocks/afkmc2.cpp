#include "vcgmm/afkmc2.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "blocks/checks.hpp"
#include "blocks/seeding.hpp"
#include "detail/assign.hpp"
#include "detail/center_tree.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/subspace_screen.hpp"
#include "detail/unchecked.hpp"

namespace vcgmm {

namespace detail {

namespace {

constexpr index_t kRound = 64;  // centers chosen per round at most (see choose_round)
// Candidate rows buffered per round at most (64 MB of doubles): long chains
// on wide data get rounds of fewer centers. The result does not depend on
// the round size (same draws in the same order, exact distances either way).
constexpr index_t kMaxRoundElements = index_t(1) << 23;
constexpr index_t kMinScreened = 64;     // centers before which the blocked pass is used
constexpr index_t kScreenSample = 4096;  // rows the screen's axes and mean come from
// Chosen centers per leaf of the screen's tree (about; the leaves come from
// a sample of the data): a candidate's search reads the leaves near it, so
// its cost follows the centers near it, not all centers chosen.
constexpr index_t kLeafCenters = 256;
// Axes per step of a leaf's bounds (and of the tree's boxes): a panel of
// centers stops once all are ruled out.
constexpr index_t kStep = 8;
// From this many centers on, the automatic screen takes the widest
// automatic width (at most d / 2): the nearest center is then close enough
// that the leading axes alone leave many centers to measure in full, and
// the stepped bounds make the extra axes cheap (docs: performance page).
constexpr index_t kWideScreenClusters = index_t(1) << 15;

/// One AFK-MC^2 run: the proposal, the chains, the chosen centers.
template <typename T>
class Afkmc2Seeding {
 public:
  Afkmc2Seeding(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                const RunOptions& run, T* centers, index_t* indices)
      : data_(data), n_clusters_(n_clusters), m_(params.chain_length),
        screen_dims_(params.screen_dims), run_(run), centers_(centers), indices_(indices),
        rng_(run.seed, Stream::afkmc2) {}

  /// The first center, drawn by weight; with C >= 2 then the proposal.
  void start(bool more, SeedingStats* stats) {
    const CumulativeTable by_weight(data_.n, [&](index_t i) { return data_.weight(i); });
    if (more && screen_dims_ != 0 && n_clusters_ > kMinScreened) {
      using Screen = SubspaceScreen<T>;
      // Axes and mean from a strided sample of the rows (O(sample d), not
      // O(n d)); each center is covered by the rounding margin when chosen.
      const index_t d = data_.d, s = std::min(data_.n, kScreenSample);
      const std::vector<T> sample = strided_rows(s);
      screen_ = SubspaceScreen<T>(sample.data(), s, d, screen_dims_, run_.n_threads);
      const index_t wide = std::min(Screen::kMaxAutoDims, d / 2);
      if (screen_dims_ < 0 && n_clusters_ >= kWideScreenClusters && screen_.dims() > 0 &&
          screen_.dims() < wide) {
        screen_ = SubspaceScreen<T>(sample.data(), s, d, wide, run_.n_threads);
      }
      if (screen_.dims() > 0) {
        center_proj_.resize(static_cast<std::size_t>(n_clusters_) * screen_.dims());
        build_tree();
      }
    }
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
    draw_u_.resize(n_cand);
    for (index_t j = 0; j < n_cand; ++j) {  // the stream in order; the lookups in parallel
      draw_u_[j] = rng_.uniform();
      accept_u_[j] = rng_.uniform();
    }
    const bool screened = screen_.dims() > 0 && k0 >= kMinScreened;
    if (screened) {
      screened_nearest(k0, n_cand);  // draws the candidates too (one region)
    } else {
      constexpr index_t kDrawTask = 64;
      parallel_for(n_chunks(n_cand, kDrawTask), run_.n_threads, [&](index_t task) {
        draw(task * kDrawTask, std::min(n_cand, (task + 1) * kDrawTask));
      }, kDrawTask * kDrawWork);
      const DataView<T> cand_view{cand_rows_.data(), n_cand, d, nullptr};
      detail::assign_nearest(cand_view, centers_, k0, nullptr, cand_d2_.data(), run_.n_threads);
    }
    if (screened) {  // the round's candidates packed for the screen's bounds
      cand_packed_.clear();
      cand_width_ = screen_.pack(cand_proj_.data(), nullptr, n_cand, cand_packed_);
      round_bound_.resize(cand_width_);
    }
    for (index_t k = k0; k < k1; ++k) {
      const index_t base = (k - k0) * m;
      if (!screened) {
        for (index_t j = 0; j < m; ++j) {  // centers chosen earlier in this round
          const T* y = cand_rows_.data() + (base + j) * d;
          double& best = cand_d2_[base + j];
          for (index_t c = k0; c < k; ++c) {
            const double dist = squared_distance_exact(y, centers_ + c * d, d);
            if (dist < best) best = dist;
          }
        }
      }
      stats->n_distance_evals.seeding += m * k;
      take(k, cand_[run_chain(base)]);
      if (screened) fold_center(k, base + m, n_cand);
    }
  }

 private:
  // The center k just taken, into the distances of candidates [j0, n) (the
  // later chains of the round): the bounds of all of them in one pass over
  // the packed candidates, then the exact distance where a bound is within
  // the candidate's limit. Each candidate meets the round's centers in the
  // order they are taken, as a loop over them per chain would, with the
  // same skips (a bound summed in full exceeds a limit exactly when some
  // partial sum of it does): the same distances.
  void fold_center(index_t k, index_t j0, index_t n) {
    if (j0 >= n) return;
    const index_t d = data_.d;
    screen_.bounds(cand_packed_.data(), cand_width_, center_proj_.data() + k * screen_.dims(),
                   round_bound_.data(), j0);
    const T* ck = centers_ + k * d;
    for (index_t j = j0; j < n; ++j) {
      if (round_bound_[j] > cand_limit_[j]) continue;
      const double dist = squared_distance_exact(cand_rows_.data() + j * d, ck, d);
      if (dist < cand_d2_[j]) {
        cand_d2_[j] = dist;
        cand_limit_[j] = screen_.threshold(dist, cand_norm_[j]);
      }
    }
  }

  // (Work per candidate drawn, in flops of the E-step's distances, as timed:
  // the proposal's search and a row fetched at random, not d + 64.)
  static constexpr double kDrawWork = 3500.0;

  // Candidates [j0, j1) of the round: their rows from the proposal.
  void draw(index_t j0, index_t j1) {
    const index_t d = data_.d;
    for (index_t j = j0; j < j1; ++j) {
      cand_[j] = proposal_->sample(draw_u_[j]);
      std::memcpy(cand_rows_.data() + j * d, data_.row(cand_[j]), sizeof(T) * d);
    }
  }

  // Proposal q(x) from the distances to c1 (one pass).
  void build_proposal(double w_total, SeedingStats* stats) {
    const index_t n = data_.n;
    q_.resize(n);
    std::vector<double> part(n_chunks(n, kStreamChunk));
    center_distance_pass(data_, centers_, kStreamChunk, run_.n_threads, part.data(),
                         [&](index_t i, double di) { return q_[i] = di; }, stats);
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
    take_center(data_, k, row, centers_, indices_);
    if (screen_.dims() > 0) {
      screen_.cover(centers_ + k * data_.d);
      proj_scratch_.resize(data_.d);
      screen_.project(centers_ + k * data_.d, 1, proj_scratch_.data(),
                      center_proj_.data() + k * screen_.dims());
      tree_.insert(static_cast<std::int32_t>(k), center_proj_.data() + k * screen_.dims());
    }
  }

  // s rows of the data at a stride of n / s, row-major (s <= n).
  std::vector<T> strided_rows(index_t s) const {
    const index_t d = data_.d;
    std::vector<T> rows(s * d);
    for (index_t i = 0; i < s; ++i) {
      std::memcpy(rows.data() + i * d, data_.row(i * data_.n / s), sizeof(T) * d);
    }
    return rows;
  }

  // The screen's tree (center_tree.hpp): splits from the projections of
  // a strided sample of about one row per center (at least the screen's
  // sample), about kLeafCenters centers per leaf.
  void build_tree() {
    const index_t d = data_.d, ks = screen_.dims();
    const index_t s = std::min(data_.n, std::max(kScreenSample, n_clusters_));
    const std::vector<T> rows = strided_rows(s);
    std::vector<T> proj(s * ks), scratch(s * d);
    screen_.project(rows.data(), s, scratch.data(), proj.data());
    tree_ = CenterTree<T>(proj.data(), s, ks, std::max<index_t>(1, n_clusters_ / kLeafCenters),
                          std::min(ks, kStep));
  }

  // cand_d2_[j] = the exact squared distance of candidate j to its nearest
  // center among [0, k0), by the subspace screen (subspace_screen.hpp) over
  // the leaves of the tree that its bounds cannot rule out: the same values
  // as the blocked pass (the nearest center is always measured in double),
  // fewer coordinates touched, and far fewer bounds than centers at large C.
  // Each task first draws its candidates and projects them (each row alone:
  // the same projections in any task), and ends with each one's limit for
  // fold_center (the threshold of its distance).
  void screened_nearest(index_t k0, index_t n_cand) {
    const index_t d = data_.d, ks = screen_.dims();
    cand_proj_.resize(n_cand * ks);
    cand_norm_.resize(n_cand);
    cand_limit_.resize(n_cand);
    using Screen = SubspaceScreen<T>;
    constexpr index_t kTask = 32;
    parallel_for(n_chunks(n_cand, kTask), run_.n_threads, [&](index_t task) {
      thread_local std::vector<T> bound;
      thread_local std::vector<std::int32_t> survivors;
      thread_local std::vector<index_t> stack;
      const index_t j0 = task * kTask, j1 = std::min(n_cand, j0 + kTask);
      draw(j0, j1);
      screen_.project(cand_rows_.data() + j0 * d, j1 - j0, scratch_buffer<T, 4>(kTask * d),
                      cand_proj_.data() + j0 * ks, cand_norm_.data() + j0);
      for (index_t j = j0; j < j1; ++j) {
        const T* x = cand_rows_.data() + j * d;
        const T* px = cand_proj_.data() + j * ks;
        const double xn = cand_norm_[j];
        double best = std::numeric_limits<double>::infinity();
        std::int32_t winner = -1;
        tree_.search(
            px, [&] { return static_cast<double>(screen_.threshold(best, xn)); },
            [&](const typename CenterTree<T>::Leaf& leaf) {
              const auto s = static_cast<index_t>(leaf.ids.size());
              if (s == 0) return;
              const index_t w = Screen::padded(s);
              if (static_cast<index_t>(bound.size()) < w) bound.resize(w);
              if (static_cast<index_t>(survivors.size()) < w) survivors.resize(w);
              const T limit = screen_.threshold(best, xn);
              for (index_t p0 = 0; p0 < w; p0 += Screen::kLanes) {
                screen_.bounds_until(leaf.packed.data() + p0 * ks, Screen::kLanes, px, limit,
                                     kStep, bound.data() + p0);
              }
              const std::int32_t* ids = leaf.ids.data();
              if (winner < 0) {  // the first leaf: its nearest by bound sets the limit
                const index_t t0 = Screen::first_smallest(bound.data(), w, s);
                best = squared_distance_exact(x, centers_ + ids[t0] * d, d);
                winner = ids[t0];
              }
              screen_.lower_nearest(
                  x, xn, bound.data(), s, survivors.data(), best, winner,
                  [&](index_t t) { return centers_ + static_cast<index_t>(ids[t]) * d; },
                  [&](index_t t) { return ids[t]; });
            },
            stack);
        cand_d2_[j] = best;
        cand_limit_[j] = screen_.threshold(best, xn);
      }
    }, kTask * (kDrawWork + 2.0 * d * ks + 3.0 * k0 * ks));
  }

  const DataView<T>& data_;
  index_t n_clusters_;
  index_t m_;
  index_t screen_dims_;
  const RunOptions& run_;
  T* centers_;
  index_t* indices_;
  Rng rng_;
  std::vector<double> q_;
  std::unique_ptr<CumulativeTable> proposal_;
  std::vector<index_t> cand_;
  std::vector<double> draw_u_, accept_u_;
  std::vector<T> cand_rows_;
  std::vector<double> cand_d2_;
  SubspaceScreen<T> screen_;          // dims() == 0: every pass blocked (no screening)
  std::vector<T> center_proj_;        // (C, ks) projections of the chosen centers
  CenterTree<T> tree_;                // the chosen centers' projections (build_tree)
  std::vector<T> cand_proj_, proj_scratch_;  // (proj_scratch_: take's)
  std::vector<T> cand_packed_, cand_limit_, round_bound_;  // fold_center's
  index_t cand_width_ = 0;
  std::vector<double> cand_norm_;
};

}  // namespace

template <typename T>
SeedingStats afkmc2(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                    const RunOptions& run, T* centers, index_t* indices) {
  return timed_seeding([&](SeedingStats* stats) {
    Afkmc2Seeding<T> seeding(data, n_clusters, params, run, centers, indices);
    seeding.start(n_clusters > 1, stats);
    const index_t round = std::clamp<index_t>(
        kMaxRoundElements / (static_cast<index_t>(params.chain_length) * data.d), 1, kRound);
    for (index_t k0 = 1; k0 < n_clusters; k0 += round) {
      check_interrupt();
      seeding.choose_round(k0, std::min(n_clusters, k0 + round), stats);
    }
  });
}

}  // namespace detail

template <typename T>
SeedingStats afkmc2(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                    const RunOptions& run, T* centers, index_t* indices) {
  detail::require_data(data, "afkmc2");
  detail::require_clusters(n_clusters, data.n, "afkmc2");
  detail::require_afkmc2_params(params, "afkmc2");
  detail::require(
      params.screen_dims >= -1 && (params.screen_dims < data.d || params.screen_dims == 0),
      "afkmc2: screen_dims must be -1 (automatic), 0 (off) or in [1, d)");
  detail::require(centers != nullptr, "afkmc2: centers is a null pointer");
  return detail::afkmc2(data, n_clusters, params, run, centers, indices);
}

VCGMM_INSTANTIATE_SEEDING(afkmc2, Afkmc2Params)

index_t afkmc2_min_screen_coordinates(index_t d, const Afkmc2Params& params) {
  using Screen = detail::SubspaceScreen<float>;  // its constants do not depend on T
  if (params.screen_dims > 0) return std::min<index_t>(d, params.screen_dims);
  if (params.screen_dims == 0 || d < Screen::kMinAutoFeatures) return d;
  return std::min<index_t>(d, Screen::kAutoDimsStep);
}

}  // namespace vcgmm
