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

/// An entry of a center's list (assign_nearest_from): the exact distance
/// to center j.
struct WarmNear {
  double dist;
  std::int32_t j;
  bool operator<(const WarmNear& o) const { return dist < o.dist || (dist == o.dist && j < o.j); }
};

/// What assign_nearest_from leaves for its next call on the same C and d
/// (Lloyd's iterations, vc-GMM's data steps): every center's list, the
/// distance within which it holds every other center, and the centers it
/// was built for. The next call keeps the list of a center that moved
/// little while it still covers the center's reach, adding the centers that
/// moved far, and builds the other rows again.
template <typename T>
struct WarmLists {
  std::vector<T> centers;                 // (C, d) when the lists were built
  std::vector<std::vector<WarmNear>> near;
  std::vector<double> covered;
};

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
/// count is taken against its old values. `lists` (IN/OUT, optional; see
/// WarmLists) carries the lists from one call to the next.
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
///     come), and `covered_a`, the nearest estimate not listed less the
///     margin, bounds the distance of every center not listed. With `lists`
///     of an earlier call, a center that moved less than half the median
///     room (old covered_a - reach - move) keeps its old list where that
///     room exceeds the others' largest such move m, with covered_a less
///     its move and m: the product then covers only the other rows, and the
///     kept rows against the centers that moved more;
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
                         double max_cost = -1.0, WarmLists<T>* lists = nullptr) {
  using K = WarmAssignConstants;
  const index_t N = data.n, d = data.d;
  if (C < 2 || N < K::kMinPointsPerCenter * C) return false;
  const double budget = max_cost >= 0.0 ? max_cost
                       : K::kMaxCostFraction * static_cast<double>(N) * static_cast<double>(C);
  // Without lists to keep, the center pairs' product alone, in the scan's pairs.
  const bool reusable = lists != nullptr && static_cast<index_t>(lists->near.size()) == C &&
                        static_cast<index_t>(lists->centers.size()) == C * d;
  if (!reusable && static_cast<double>(C) * static_cast<double>(C) > budget) return false;
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

  // 2. The lists: built by the center pairs' product for the rows in
  // `build` (every row, unless `lists` holds lists to keep), kept from
  // `lists` for the rows in `kept`, which then add the centers in `far`.
  // A walk longer than max_walk costs more than scanning the point: the
  // point is scanned instead.
  const index_t max_walk = std::max<index_t>(1, static_cast<index_t>(C / (2.0 * K::kDirectPairCost)));
  const index_t L = std::min(C - 1, std::max(K::kMinListLength,
                                             std::min(max_walk, K::kListEntriesPerPoint * N / C)));
  using Near = WarmNear;
  std::vector<std::vector<Near>> near(C);
  std::vector<double> covered(C);
  std::vector<std::int32_t> build, kept, far;
  std::vector<double> move;   // each center's move since its kept list was built
  std::vector<char> is_far;
  double far_move = 0.0;      // the largest move of a center not in `far`
  if (reusable) {
    // The room a center's old list leaves: what it covered, less the
    // center's reach and move.
    move.resize(C);
    std::vector<double> room(C);
    parallel_for(n_chunks(C, kCentersPerTask), n_threads, [&](index_t t) {
      const index_t a1 = std::min(C, (t + 1) * kCentersPerTask);
      for (index_t a = t * kCentersPerTask; a < a1; ++a) {
        const T* then = &lists->centers[a * d];
        move[a] = std::sqrt(squared_distance_exact(centers + a * d, then, d)) * up;
        room[a] = lists->covered[a] - reach[a] - move[a];
      }
    }, 3.0 * d * kCentersPerTask);
    // Centers that moved more than half the median room are far: every
    // kept list measures them; a row is kept where its room exceeds the
    // largest move of the others (then no other center can have come within
    // its reach unseen).
    std::vector<double> sorted = room;
    std::nth_element(sorted.begin(), sorted.begin() + C / 2, sorted.end());
    const double tau = 0.5 * sorted[C / 2];
    is_far.assign(C, 0);
    for (index_t j = 0; j < C; ++j) {
      if (move[j] > tau) {
        is_far[j] = 1;
        far.push_back(static_cast<std::int32_t>(j));
      } else {
        far_move = std::max(far_move, move[j]);
      }
    }
    for (index_t a = 0; a < C; ++a) {
      const bool keep = move[a] <= tau && room[a] >= far_move;
      (keep ? kept : build).push_back(static_cast<std::int32_t>(a));
    }
  } else {
    build.resize(C);
    for (index_t a = 0; a < C; ++a) build[a] = static_cast<std::int32_t>(a);
  }
  const index_t n_build = static_cast<index_t>(build.size());
  const index_t n_kept = static_cast<index_t>(kept.size());
  const index_t n_far = static_cast<index_t>(far.size());
  const double pairs_cost = static_cast<double>(n_build) * static_cast<double>(C) +
                            static_cast<double>(n_kept) * static_cast<double>(n_far);
  if (pairs_cost > budget) return false;

  const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
  // Bound on |p + xs2 - ||c_a - c_j||^2| for the centers of `tiles`, four
  // times the worst case: (d + 4) eps (||c_a - s|| + ||c_j - s||)^2
  // (CenterTiles::estimate_error).
  const auto margin_of = [&](const CenterTiles<T>& tiles) {
    double max_norm = 0.0;
    for (index_t j = 0; j < tiles.size(); ++j) {
      max_norm = std::max(max_norm, static_cast<double>(tiles.shifted_norm2(j)));
    }
    max_norm = std::sqrt(max_norm);
    return [rounding = 4.0 * (static_cast<double>(d) + 4.0) * eps, max_norm](double xn) {
      return rounding * (xn + max_norm) * (xn + max_norm);
    };
  };
  // The largest T at most `bound`: v > below(bound) exactly when double(v) > bound.
  const auto below = [](double bound) {
    T b = static_cast<T>(bound);
    if (static_cast<double>(b) > bound) b = std::nextafter(b, -std::numeric_limits<T>::infinity());
    return b;
  };

  // The rows built: every center within reach of c_a (its nearest L at most)
  // is listed, and `covered` is the nearest estimate beyond, less the margin.
  if (n_build > 0) {
    const CenterTiles<T> tiles(centers, C, d);
    const index_t block = tiles.row_block();
    const auto margin = margin_of(tiles);
    parallel_for(n_chunks(n_build, block), n_threads, [&](index_t t) {
      const index_t r0 = t * block, rows = std::min(block, n_build - r0);
      T xs2[CenterTiles<T>::kMaxRowBlock];
      // Per row, the candidates with the smallest estimates: trimmed to the L
      // smallest whenever they reach 2 L, `cut` the smallest estimate dropped
      // (later candidates at or above it are dropped at once); `beyond` the
      // smallest partial distance above the row's bound.
      thread_local std::vector<std::vector<std::pair<double, std::int32_t>>> within;
      within.resize(CenterTiles<T>::kMaxRowBlock);
      double cut[CenterTiles<T>::kMaxRowBlock];
      T beyond[CenterTiles<T>::kMaxRowBlock];
      for (index_t i = 0; i < rows; ++i) {
        within[i].clear();
        cut[i] = std::numeric_limits<double>::infinity();
        beyond[i] = std::numeric_limits<T>::infinity();
      }
      const auto trim = [&](index_t i) {
        std::vector<std::pair<double, std::int32_t>>& w = within[i];
        std::nth_element(w.begin(), w.begin() + L, w.end());
        cut[i] = std::min(cut[i], w[L].first);
        w.resize(L);
      };
      tiles.for_each_tile_of([&](index_t i) { return centers + build[r0 + i] * d; }, rows,
                             [&](index_t j0, index_t ncols, const T* p, index_t ld) {
        check_interrupt_in_task();
        for (index_t i = 0; i < rows; ++i) {
          const index_t a = build[r0 + i];
          const double xn = std::sqrt(static_cast<double>(xs2[i]));
          // a partial distance above this bound is a center beyond reach
          const double bound = reach[a] * reach[a] + margin(xn) - static_cast<double>(xs2[i]);
          const T* row = p + i * ld;
          const T over = below(bound);
          // The smallest partial distance above the bound, in lanes (a
          // minimum carried through the loop does not vectorize), in the
          // same pass as the count of those within; not once the row was
          // trimmed (its cut, within the bound, is then what it covers).
          constexpr index_t kLanes = 16, kChunk = 64;
          T lane[kLanes];
          std::fill(lane, lane + kLanes, beyond[i]);
          for (index_t c0 = 0; c0 < ncols; c0 += kChunk) {
            const index_t c1 = std::min(ncols, c0 + kChunk);
            const bool track = !(cut[i] < std::numeric_limits<double>::infinity());
            int hits = 0;  // an integer sum of comparisons vectorizes
            if (track && c1 - c0 == kChunk) {
              for (index_t q = c0; q < c1; q += kLanes) {
                for (index_t l = 0; l < kLanes; ++l) {
                  const T v = row[q + l];
                  hits += v <= over;
                  lane[l] = v > over && v < lane[l] ? v : lane[l];
                }
              }
            } else {
              for (index_t c = c0; c < c1; ++c) hits += row[c] <= over;
              for (index_t c = c0; track && c < c1; ++c) {
                if (row[c] > over && row[c] < lane[0]) lane[0] = row[c];
              }
            }
            if (hits == 0) continue;
            for (index_t c = c0; c < c1; ++c) {
              if (!(row[c] <= over) || j0 + c == a) continue;
              const double estimate = static_cast<double>(row[c]) + static_cast<double>(xs2[i]);
              if (estimate >= cut[i]) continue;
              within[i].emplace_back(estimate, static_cast<std::int32_t>(j0 + c));
            }
            if (static_cast<index_t>(within[i].size()) >= 2 * L) trim(i);
          }
          beyond[i] = *std::min_element(lane, lane + kLanes);
        }
      }, xs2);
      for (index_t i = 0; i < rows; ++i) {
        const index_t a = build[r0 + i];
        std::vector<std::pair<double, std::int32_t>>& w = within[i];
        if (static_cast<index_t>(w.size()) > L) trim(i);
        // every center not listed was dropped (estimate >= cut) or lies beyond
        const double xn = std::sqrt(static_cast<double>(xs2[i]));
        const double first_out = std::min(
            cut[i], static_cast<double>(beyond[i]) + static_cast<double>(xs2[i]));
        covered[a] = first_out < std::numeric_limits<double>::infinity()
                         ? std::sqrt(std::max(0.0, first_out - margin(xn)))
                         : std::numeric_limits<double>::infinity();
        near[a].clear();
        near[a].reserve(w.size());
        for (const auto& e : w) {
          near[a].push_back(
              {std::sqrt(squared_distance_exact(centers + a * d, centers + e.second * d, d)),
               e.second});
        }
      }
    }, 2.0 * static_cast<double>(block) * static_cast<double>(C) * d);
  }

  // The rows kept: the old list's centers that did not move far, measured
  // again, and every far center within what the list now covers.
  if (n_kept > 0) {
    parallel_for(n_chunks(n_kept, kCentersPerTask), n_threads, [&](index_t t) {
      const index_t r1 = std::min(n_kept, (t + 1) * kCentersPerTask);
      for (index_t r = t * kCentersPerTask; r < r1; ++r) {
        const index_t a = kept[r];
        covered[a] = lists->covered[a] - move[a] - far_move;
        near[a].clear();
        for (const Near& e : lists->near[a]) {
          if (is_far[e.j]) continue;
          near[a].push_back(
              {std::sqrt(squared_distance_exact(centers + a * d, centers + e.j * d, d)), e.j});
        }
      }
    }, 3.0 * d * 16.0 * kCentersPerTask);
    if (n_far > 0) {
      const CenterTiles<T> far_tiles(centers, n_far, d, far.data());
      const index_t block = far_tiles.row_block();
      const auto margin = margin_of(far_tiles);
      parallel_for(n_chunks(n_kept, block), n_threads, [&](index_t t) {
        const index_t r0 = t * block, rows = std::min(block, n_kept - r0);
        T xs2[CenterTiles<T>::kMaxRowBlock];
        far_tiles.for_each_tile_of([&](index_t i) { return centers + kept[r0 + i] * d; }, rows,
                                   [&](index_t j0, index_t ncols, const T* p, index_t ld) {
          for (index_t i = 0; i < rows; ++i) {
            const index_t a = kept[r0 + i];
            const double xn = std::sqrt(static_cast<double>(xs2[i]));
            const double bound =
                covered[a] * covered[a] + margin(xn) - static_cast<double>(xs2[i]);
            const T* row = p + i * ld;
            for (index_t c = 0; c < ncols; ++c) {
              if (!(static_cast<double>(row[c]) <= bound)) continue;
              const std::int32_t j = far[j0 + c];
              if (j == a) continue;
              const double dist =
                  std::sqrt(squared_distance_exact(centers + a * d, centers + j * d, d));
              if (dist <= covered[a]) near[a].push_back({dist, j});
            }
          }
        }, xs2);
      }, 2.0 * static_cast<double>(block) * static_cast<double>(n_far) * d);
    }
  }
  parallel_for(n_chunks(C, kCentersPerTask), n_threads, [&](index_t t) {
    const index_t a1 = std::min(C, (t + 1) * kCentersPerTask);
    for (index_t a = t * kCentersPerTask; a < a1; ++a) std::sort(near[a].begin(), near[a].end());
  }, 64.0 * kCentersPerTask);

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
    const CenterTiles<T> tiles(centers, C, d);
    scan_nearest_rows(data, rest.data(), static_cast<index_t>(rest.size()), tiles, 1,
                      AssignHandler<T>{data, found.data(), d2.data()}, n_threads, 2.0 * d);
  }

  // The scan's outputs and its sums, over its row blocks in order.
  const index_t block = CenterTiles<T>::row_block_for(d);
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
  std::int64_t measured = N + static_cast<std::int64_t>(n_build) * C +
                          static_cast<std::int64_t>(n_kept) * n_far +
                          static_cast<std::int64_t>(rest.size()) * C;
  for (index_t a = 0; a < C; ++a) measured += static_cast<std::int64_t>(near[a].size());
  for (const std::int64_t w : walked) measured += w;
  *n_evals = measured;
  if (lists) {
    lists->centers.assign(centers, centers + C * d);
    lists->near = std::move(near);
    lists->covered = std::move(covered);
  }
  return true;
}

/// The exact assignment: assign_nearest_from `start` where it is given and
/// its bounds pay, else the scan (assign_nearest, n C evaluations). The same
/// outputs either way; returns whether the search started from `start`.
/// `lists`: see assign_nearest_from.
template <typename T>
bool assign_nearest_from_or_scan(const DataView<T>& data, const T* centers, index_t C,
                                 const std::int32_t* start, std::int32_t* labels, double* min_d2,
                                 int n_threads, AssignmentStats* stats, std::int64_t* n_evals,
                                 WarmLists<T>* lists = nullptr) {
  if (start && detail::assign_nearest_from(data, centers, C, start, labels, min_d2, n_threads,
                                           stats, n_evals, -1.0, lists)) {
    return true;
  }
  *stats = detail::assign_nearest(data, centers, C, labels, min_d2, n_threads);
  *n_evals = data.n * C;
  return false;
}

}  // namespace detail
}  // namespace vcgmm
