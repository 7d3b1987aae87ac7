// Internal: exact nearest-center assignment without argument checks (the
// public assign_nearest in assignment.hpp checks, then calls this; the
// algorithms call this directly on arguments they already checked).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/blocked_scan.hpp"
#include "detail/partition.hpp"
#include "vcgmm/assignment.hpp"

namespace vcgmm {
namespace detail {

/// w d2, rounded as a product before it enters a sum. The scan and
/// assign_nearest_from sum the same terms in the same order, bit for bit,
/// only if neither site lets the compiler fuse w * d2 + sum into one FMA
/// (it may at one site and not at the other); the empty asm makes the
/// product a value of its own.
inline double weighted_term(double w, double d2) {
  double term = w * d2;
#if defined(__GNUC__) || defined(__clang__)
  asm("" : "+m"(term));
#endif
  return term;
}

template <typename T>
struct AssignHandler {
  struct Partial {
    double objective = 0.0;
    index_t n_changed = 0;
    Partial& operator+=(const Partial& o) {
      objective += o.objective;
      n_changed += o.n_changed;
      return *this;
    }
  };
  using Block = NoBlock;
  static constexpr bool kVisitsTiles = false;

  const DataView<T>& data;
  std::int32_t* labels;  // IN/OUT or nullptr
  double* min_d2;        // OUT or nullptr

  void row(Block&, Partial& part, index_t row, index_t, const std::int32_t* idx, const double* d2,
           int) const {
    part.objective += weighted_term(data.weight(row), d2[0]);
    if (min_d2) min_d2[row] = d2[0];
    if (labels) {
      part.n_changed += labels[row] != idx[0];
      labels[row] = idx[0];
    }
  }
};

/// See vcgmm::assign_nearest (assignment.hpp); arguments are not checked.
template <typename T>
AssignmentStats assign_nearest(const DataView<T>& data, const T* centers, index_t n_centers,
                               std::int32_t* labels, double* min_d2, int n_threads) {
  const CenterTiles<T> tiles(centers, n_centers, data.d);
  const AssignHandler<T> handler{data, labels, min_d2};
  const auto total = scan_nearest(data, tiles, 1, handler, n_threads, 2.0 * data.d);
  AssignmentStats stats;
  stats.objective = total.objective;
  stats.n_changed = total.n_changed;
  return stats;
}

/// The warm-started exact assignment's choices.
struct WarmAssignConstants {
  /// Below this many points per center, the center pairs cost as much as
  /// the scan they would save.
  static constexpr index_t kMinPointsPerCenter = 8;
  /// A pair a walk measures (a float lower bound, then double where it
  /// cannot decide) costs about this many pairs of the blocked scan's
  /// matrix product: the means' rows come in list order, not in tiles.
  static constexpr double kDirectPairCost = 12.0;
  /// The warm path runs when its estimated cost is below this fraction of
  /// the scan's.
  static constexpr double kMaxCostFraction = 0.5;
  /// Each center lists at most its nearest kListEntriesPerPoint n / C
  /// centers (the lists' memory: a few entries per point), or kMinListLength
  /// if more; and no more than a walk may measure: C / (2 kDirectPairCost)
  /// pairs, beyond which scanning the point is cheaper (by the measurements
  /// on the patches, half the modelled break-even).
  static constexpr index_t kMinListLength = 64;
  static constexpr index_t kListEntriesPerPoint = 4;
  /// Points per task of the per-point passes (in cluster order).
  static constexpr index_t kPointsPerTask = 2048;
  /// Relative slack on every bound (covers the rounding of distances
  /// computed in double, whatever d).
  static constexpr double kSlack = 1e-6;
};

/// assign_nearest warm-started from labels `start` (any values in [0, C),
/// e.g. an approximate assignment or the labels of the centers before their
/// last update): the same labels, squared distances, objective and change
/// count, bit for bit, for a fraction of the scan's O(n C d) when most start
/// labels are near the nearest center. Returns false, having written
/// nothing, when the bounds would not pay: the estimated cost, in pairs of
/// the scan, exceeds `max_cost` (< 0: kMaxCostFraction of the scan's n C;
/// the center pairs' C^2 alone are checked first, before any distance); the
/// caller then scans (assign_nearest) or searches otherwise. `labels` may be
/// `start` (Lloyd's loop): it is written only at the end, and the change
/// count is taken against its old values.
///
/// By the triangle inequality, a center c_j with ||c_j - c_a|| >
/// ||x - c_a|| + ||x - c_best|| is farther from x than c_best, so a point of
/// start label a only measures the centers near c_a (Elkan's lemma, here
/// once rather than per iteration). Steps:
///  1. u_i = ||x_i - c_start(i)||^2 exactly; R_a = max over a's points;
///  2. every center a lists the centers within 2 sqrt(R_a) of it, its
///     nearest L at most (see WarmAssignConstants), sorted by exact
///     distance; one blocked matrix product over the center pairs selects
///     them (with its worst-case rounding, four times over, as margin; a
///     row's candidates are trimmed to the L smallest estimates as they
///     come), and `covered_a` bounds the distance of every center not listed;
///  3. every point walks its start center's list, measuring exactly, until
///     the list's distance exceeds b = sqrt(u_i) + sqrt(best so far);
///  4. the points with b > covered_a (a center not listed could be nearer),
///     or whose walk would cost more than their scan, are scanned against
///     all centers, as assign_nearest does. (b = covered_a is covered: b
///     carries the slack, so a center that could be nearer lies strictly
///     inside b; the farthest point of a cluster has b = 2 sqrt(R_a).)
/// Every center not measured is strictly farther than the result, so ties
/// resolve to the lowest index as in the scan; the objective is summed over
/// the scan's row blocks in the same order.
template <typename T>
bool assign_nearest_from(const DataView<T>& data, const T* centers, index_t C,
                         const std::int32_t* start, std::int32_t* labels, double* min_d2,
                         int n_threads, AssignmentStats* stats, std::int64_t* n_evals,
                         double max_cost = -1.0) {
  using K = WarmAssignConstants;
  const index_t N = data.n, d = data.d;
  if (C < 2 || N < K::kMinPointsPerCenter * C) return false;
  // The center pairs' product alone, in the scan's pairs.
  const double pairs_cost = static_cast<double>(C) * static_cast<double>(C);
  const double budget = max_cost >= 0.0 ? max_cost
                       : K::kMaxCostFraction * static_cast<double>(N) * static_cast<double>(C);
  if (pairs_cost > budget) return false;
  const double up = 1.0 + K::kSlack;
  ClusterPartition part;
  part.build(start, N, C);
  const index_t point_tasks = n_chunks(N, K::kPointsPerTask);

  // 1. The start distances (in row order: the rows stream, and each point
  // reads one center either way) and each start cluster's largest.
  std::vector<double> d2(N);
  parallel_for(point_tasks, n_threads, [&](index_t t) {
    const index_t k1 = std::min(N, (t + 1) * K::kPointsPerTask);
    for (index_t i = t * K::kPointsPerTask; i < k1; ++i) {
      d2[i] = squared_distance_exact(data.row(i), centers + start[i] * d, d);
    }
  }, 3.0 * K::kPointsPerTask * d);
  std::vector<double> reach(C, 0.0);  // 2 sqrt(R_a), with slack
  constexpr index_t kCentersPerTask = 1024;
  parallel_for(n_chunks(C, kCentersPerTask), n_threads, [&](index_t t) {
    const index_t a1 = std::min(C, (t + 1) * kCentersPerTask);
    for (index_t a = t * kCentersPerTask; a < a1; ++a) {
      double r = 0.0;
      for (index_t k = part.offsets[a]; k < part.offsets[a + 1]; ++k) {
        r = std::max(r, d2[part.order[k]]);
      }
      reach[a] = 2.0 * std::sqrt(r) * up;
    }
  }, 2.0 * static_cast<double>(N) / static_cast<double>(C) * kCentersPerTask);

  // 2. The lists.
  const CenterTiles<T> tiles(centers, C, d);
  const index_t block = tiles.row_block();
  // A walk longer than this costs more than scanning the point: the point
  // is scanned instead.
  const index_t max_walk = std::max<index_t>(1, static_cast<index_t>(C / (2.0 * K::kDirectPairCost)));
  const index_t L = std::min(C - 1, std::max(K::kMinListLength,
                                             std::min(max_walk, K::kListEntriesPerPoint * N / C)));
  struct Near {
    double dist;
    std::int32_t j;
    bool operator<(const Near& o) const { return dist < o.dist || (dist == o.dist && j < o.j); }
  };
  std::vector<std::vector<Near>> near(C);
  std::vector<double> covered(C);
  double max_norm = 0.0;
  for (index_t j = 0; j < C; ++j) {
    max_norm = std::max(max_norm, static_cast<double>(tiles.shifted_norm2(j)));
  }
  max_norm = std::sqrt(max_norm);
  const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
  // Bound on |p + xs2 - ||c_a - c_j||^2| for any j, four times the worst
  // case: (d + 4) eps (||c_a - s|| + ||c_j - s||)^2 (CenterTiles::estimate_error).
  const auto margin = [rounding = 4.0 * (static_cast<double>(d) + 4.0) * eps,
                       max_norm](double xn) { return rounding * (xn + max_norm) * (xn + max_norm); };
  parallel_for(n_chunks(C, block), n_threads, [&](index_t t) {
    const index_t a0 = t * block, rows = std::min(block, C - a0);
    T xs2[CenterTiles<T>::kMaxRowBlock];
    // Per row, the candidates with the smallest estimates: trimmed to the L
    // smallest whenever they reach 2 L, `cut` the smallest estimate dropped
    // (later candidates at or above it are dropped at once).
    thread_local std::vector<std::vector<std::pair<double, std::int32_t>>> within;
    within.resize(CenterTiles<T>::kMaxRowBlock);
    double cut[CenterTiles<T>::kMaxRowBlock];
    for (index_t i = 0; i < rows; ++i) {
      within[i].clear();
      cut[i] = std::numeric_limits<double>::infinity();
    }
    const auto trim = [&](index_t i) {
      std::vector<std::pair<double, std::int32_t>>& w = within[i];
      std::nth_element(w.begin(), w.begin() + L, w.end());
      cut[i] = std::min(cut[i], w[L].first);
      w.resize(L);
    };
    tiles.for_each_tile(centers + a0 * d, rows, [&](index_t j0, index_t ncols, const T* p,
                                                     index_t ld) {
      check_interrupt_in_task();
      for (index_t i = 0; i < rows; ++i) {
        const index_t a = a0 + i;
        const double xn = std::sqrt(static_cast<double>(xs2[i]));
        // a partial distance above this bound is a center beyond reach
        const double bound = reach[a] * reach[a] + margin(xn) - static_cast<double>(xs2[i]);
        const T* row = p + i * ld;
        constexpr index_t kChunk = 64;
        for (index_t c0 = 0; c0 < ncols; c0 += kChunk) {
          const index_t c1 = std::min(ncols, c0 + kChunk);
          int hits = 0;  // an integer sum of comparisons vectorizes
          for (index_t c = c0; c < c1; ++c) hits += static_cast<double>(row[c]) <= bound;
          if (hits == 0) continue;
          for (index_t c = c0; c < c1; ++c) {
            if (!(static_cast<double>(row[c]) <= bound) || j0 + c == a) continue;
            const double estimate = static_cast<double>(row[c]) + static_cast<double>(xs2[i]);
            if (estimate >= cut[i]) continue;
            within[i].emplace_back(estimate, static_cast<std::int32_t>(j0 + c));
          }
          if (static_cast<index_t>(within[i].size()) >= 2 * L) trim(i);
        }
      }
    }, xs2);
    for (index_t i = 0; i < rows; ++i) {
      const index_t a = a0 + i;
      std::vector<std::pair<double, std::int32_t>>& w = within[i];
      covered[a] = reach[a];  // every center not within reach is farther
      if (static_cast<index_t>(w.size()) > L) trim(i);
      if (cut[i] < std::numeric_limits<double>::infinity()) {  // and every one dropped
        const double xn = std::sqrt(static_cast<double>(xs2[i]));
        const double beyond = cut[i] - margin(xn);
        covered[a] = std::min(covered[a], std::sqrt(std::max(0.0, beyond)));
      }
      near[a].reserve(w.size());
      for (const auto& e : w) {
        const double dist = std::sqrt(squared_distance_exact(centers + a * d, centers + e.second * d, d));
        if (dist <= reach[a]) near[a].push_back({dist, e.second});
      }
      std::sort(near[a].begin(), near[a].end());
    }
  }, 2.0 * static_cast<double>(block) * static_cast<double>(C) * d);

  // The cost estimate, from the bounds at the start: the center pairs, and
  // per point a walk's pairs, or C for a point its list may not cover.
  // (Per-task sums and counts are kept in locals and stored once: tasks'
  // slots share cache lines, and a store per point made the threads fight
  // over them.)
  std::vector<double> cost(point_tasks, 0.0);
  parallel_for(point_tasks, n_threads, [&](index_t t) {
    const index_t k1 = std::min(N, (t + 1) * K::kPointsPerTask);
    double task_cost = 0.0;
    for (index_t k = t * K::kPointsPerTask; k < k1; ++k) {
      const index_t i = part.order[k];
      const double b = 2.0 * std::sqrt(d2[i]) * up;
      if (b > covered[start[i]]) {
        task_cost += static_cast<double>(C);
        continue;
      }
      const std::vector<Near>& list = near[start[i]];
      const Near last{b, std::numeric_limits<std::int32_t>::max()};
      const index_t walk = std::upper_bound(list.begin(), list.end(), last) - list.begin();
      task_cost += walk > max_walk ? static_cast<double>(C)
                                   : K::kDirectPairCost * static_cast<double>(walk);
    }
    cost[t] = task_cost;
  }, 20.0 * K::kPointsPerTask);
  double estimate = pairs_cost;
  for (const double c : cost) estimate += c;
  if (estimate > budget) return false;

  // 3. The walks, in row order: the rows stream from memory, and the lists
  // and the centers they name (C rows, far fewer than n) stay in cache. (In
  // cluster order, where a task's points share their lists, every row was a
  // read at random: slower wherever the data outgrow the caches.)
  const double lower = float_distance_lower_factor(d);
  std::vector<std::int32_t> found(N);
  std::vector<char> uncovered(N, 0);
  std::vector<std::int64_t> walked(point_tasks, 0);
  parallel_for(point_tasks, n_threads, [&](index_t t) {
    check_interrupt_in_task();
    std::int64_t task_walked = 0;
    const index_t k1 = std::min(N, (t + 1) * K::kPointsPerTask);
    for (index_t i = t * K::kPointsPerTask; i < k1; ++i) {
      const T* x = data.row(i);
      const double from = std::sqrt(d2[i]);
      double best = d2[i];
      double limit = 2.0 * from * up;  // (from + sqrt(best)) (1 + slack)
      std::int32_t arg = start[i];
      const std::vector<Near>& list = near[start[i]];
      const std::size_t m = list.size();
      std::size_t e = 0;
      for (; e < m && list[e].dist <= limit; ++e) {
        if (static_cast<index_t>(e) == max_walk) break;  // cheaper to scan it
        if (e + 1 < m) prefetch_bytes(centers + list[e + 1].j * d, sizeof(T) * d);
        const T* c = centers + list[e].j * d;
        ++task_walked;
        // In float, a lower bound first: most centers measured are farther.
        if (std::is_same_v<T, float> && lower * squared_distance(x, c, d) > best) continue;
        const double dj = squared_distance_exact(x, c, d);
        if (dj < best || (dj == best && list[e].j < arg)) {
          best = dj;
          arg = list[e].j;
          limit = (from + std::sqrt(best)) * up;
        }
      }
      d2[i] = best;
      found[i] = arg;
      uncovered[i] = limit > covered[start[i]] ||
                     (static_cast<index_t>(e) == max_walk && e < m && list[e].dist <= limit);
    }
    walked[t] = task_walked;
  }, 3.0 * d * K::kDirectPairCost * static_cast<double>(K::kPointsPerTask));

  // 4. The points not covered, scanned (in index order).
  std::vector<index_t> rest;
  for (index_t i = 0; i < N; ++i) {
    if (uncovered[i]) rest.push_back(i);
  }
  if (!rest.empty()) {
    // (its sums are dropped: the objective is summed below in row order)
    scan_nearest_rows(data, rest.data(), static_cast<index_t>(rest.size()), tiles, 1,
                      AssignHandler<T>{data, found.data(), d2.data()}, n_threads, 2.0 * d);
  }

  // The scan's outputs and its sums, over its row blocks in order.
  AssignmentStats total;
  for (index_t r0 = 0; r0 < N; r0 += block) {
    double objective = 0.0;
    for (index_t i = r0; i < std::min(N, r0 + block); ++i) {
      objective += weighted_term(data.weight(i), d2[i]);
      if (labels) total.n_changed += labels[i] != found[i];
    }
    total.objective += objective;
  }
  if (labels) std::copy(found.begin(), found.end(), labels);
  if (min_d2) std::copy(d2.begin(), d2.end(), min_d2);
  *stats = total;
  std::int64_t measured = N + static_cast<std::int64_t>(C) * C +
                          static_cast<std::int64_t>(rest.size()) * C;
  for (index_t a = 0; a < C; ++a) measured += static_cast<std::int64_t>(near[a].size());
  for (const std::int64_t w : walked) measured += w;
  *n_evals = measured;
  return true;
}

/// The exact assignment: assign_nearest_from `start` where it is given and
/// its bounds pay, else the scan (assign_nearest, n C evaluations). The same
/// outputs either way; returns whether the search started from `start`.
template <typename T>
bool assign_nearest_from_or_scan(const DataView<T>& data, const T* centers, index_t C,
                                 const std::int32_t* start, std::int32_t* labels, double* min_d2,
                                 int n_threads, AssignmentStats* stats, std::int64_t* n_evals) {
  if (start && detail::assign_nearest_from(data, centers, C, start, labels, min_d2, n_threads,
                                           stats, n_evals)) {
    return true;
  }
  *stats = detail::assign_nearest(data, centers, C, labels, min_d2, n_threads);
  *n_evals = data.n * C;
  return false;
}

}  // namespace detail
}  // namespace vcgmm
