// Internal (variational loop): split-merge moves after the hard refinement
// steps after EM and after the data steps (VariationalGmmParams::split_merge).
//
// On a hard partition whose means sit at the weighted means of their points
// (after a refinement step's M-step), merging cluster r into cluster q raises
// the weighted squared error by exactly m_r m_q / (m_r + m_q) ||mu_r - mu_q||^2
// (Ward's cost; m = the clusters' weights), and splitting cluster s by a few
// 2-means iterations lowers it by gain_s (for a cluster of more than
// kSplitSamplePoints points, a sample's gain scaled to its weight). The
// cheapest merges are paired with the largest gains, every cluster in at most
// one pair, while gain_s exceeds kSplitMergeMargin x cost_r: mu_q moves to the
// merged mean, mu_s and mu_r to the two halves of s. The pairs are disjoint, so
// the error at the new means (with r's points given to q and s's to the nearer
// half) is the old error minus the sum of (gain - cost) (an estimate where a
// split was sampled): the next step starts lower.
// Why: EM and Lloyd move means only locally; where a seeding put two means in
// one well-separated cluster and one mean between two clusters, they never
// recover (make_blobs with C = its number of centers).
//
// Empty clusters (no point chose them) are merges that cost nothing: each
// takes a half of one of the largest splits, one per cluster and round. Why
// not the farthest points, as Lloyd's loop relocates: the farthest points
// crowd where one mean serves a whole well-separated cluster far away from
// it, and every empty cluster would land in that one cluster.
//
// Cost: O(n d) per move round (a few passes over every cluster's points) plus
// the merge costs: O(C G d) over the neighbourhoods G_c (all clusters with
// G == C) and O(C (C / cells) d) over the other means of each mean's cell.
// Deterministic: clusters and cells are visited in fixed tasks, each
// cluster's points in index order, and the pairing is serial.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "vcgmm/truncation_sets.hpp"

namespace vcgmm {
namespace detail {

/// A pair moves only when the split gains this many times the merge's cost:
/// both are exact for the partition, but the next steps relabel the points
/// around the three moved means, and on data without separated clusters
/// marginal pairs end no lower than Lloyd's steps alone.
constexpr double kSplitMergeMargin = 4.0;
/// 2-means iterations of a split (from the farthest point and its mirror image).
constexpr int kSplitIterations = 3;
/// A split sees every k-th point of a larger cluster (in index order), about
/// this many, and its gain is that sample's scaled to the cluster's weight.
/// Why: on all points (the data steps) the passes of the few clusters at
/// small C would cost more than the step.
constexpr index_t kSplitSamplePoints = 1024;
/// The gains pass keeps every cluster's two halves (2 C d values of the
/// means' type) when they take at most this many bytes; the moves then copy
/// a chosen split's halves instead of running it again. Why: the clusters
/// split are the largest, and after a step that left many clusters empty
/// running their splits again cost as much as the gains pass.
constexpr double kSplitHalvesBytes = 128.0 * 1024 * 1024;

namespace split_merge_parts {

/// Scratch of one task: the two centers of a split and their sums.
struct SplitScratch {
  std::vector<double> a, b, sa, sb, u;
  explicit SplitScratch(index_t d) : a(d), b(d), sa(d), sb(d), u(d) {}
};

/// s.u = b - a; returns (||b||^2 - ||a||^2) / 2: a point x is nearer b than
/// a iff x . u exceeds it, one dot product instead of two distances.
inline double split_direction(SplitScratch& s) {
  double half_gap = 0.0;
  for (std::size_t j = 0; j < s.u.size(); ++j) {
    s.u[j] = s.b[j] - s.a[j];
    half_gap += s.b[j] * s.b[j] - s.a[j] * s.a[j];
  }
  return 0.5 * half_gap;
}

/// 2-means on cluster c's points (positive weights only; a sample of about
/// kSplitSamplePoints of a larger cluster), from its point farthest from
/// its mean (ties: the first) and that point's mirror image through the
/// mean: the fall of the weighted squared error when every point goes to the
/// nearer of the two centers (left in s.a, s.b; exact up to that many
/// points, the sample's fall times mass / sampled mass beyond), or 0 when the
/// cluster cannot split.
template <typename T>
double split_gain(const DataView<T>& data, const ClusterPartition& part, index_t c, const T* mean,
                  SplitScratch& s) {
  const index_t d = data.d, k0 = part.offsets[c], k1 = part.offsets[c + 1];
  for (index_t j = 0; j < d; ++j) s.a[j] = static_cast<double>(mean[j]);
  const index_t stride = std::max<index_t>(
      1, (k1 - k0 + kSplitSamplePoints - 1) / kSplitSamplePoints);
  double sse = 0.0, far_d2 = 0.0, mass = 0.0, sampled = 0.0;
  index_t far = -1, positive = 0;
  for (index_t k = k0; k < k1; ++k) {
    const index_t i = part.order[k];
    const double w = data.weight(i);
    if (!(w > 0.0)) continue;
    mass += w;
    if ((k - k0) % stride != 0) continue;
    if (k + kPartitionRowsAhead * stride < k1) {
      prefetch_bytes(data.row(part.order[k + kPartitionRowsAhead * stride]),
                     static_cast<std::size_t>(d) * sizeof(T));
    }
    sampled += w;
    ++positive;
    const double d2 = squared_distance_in_double(data.row(i), s.a.data(), d);
    sse += w * d2;
    if (d2 > far_d2) {
      far_d2 = d2;
      far = i;
    }
  }
  if (positive < 2 || far < 0) return 0.0;
  // From the farthest point and its mirror image through the mean: the first
  // split is the hyperplane through the mean across that direction. From the
  // mean and the farthest point instead, in many dimensions a cluster
  // without separated parts lost little more than that one point.
  for (index_t j = 0; j < d; ++j) {
    s.b[j] = static_cast<double>(data.row(far)[j]);
    s.a[j] = 2.0 * s.a[j] - s.b[j];
  }
  for (int it = 0; it < kSplitIterations; ++it) {
    std::fill(s.sa.begin(), s.sa.end(), 0.0);
    std::fill(s.sb.begin(), s.sb.end(), 0.0);
    double wa = 0.0, wb = 0.0;
    const double half_gap = split_direction(s);
    for (index_t k = k0; k < k1; k += stride) {
      const index_t i = part.order[k];
      const double w = data.weight(i);
      if (!(w > 0.0)) continue;
      const T* x = data.row(i);
      if (dot_in_double(x, s.u.data(), d) > half_gap) {
        add_scaled_to_double(s.sb.data(), w, x, d);
        wb += w;
      } else {
        add_scaled_to_double(s.sa.data(), w, x, d);
        wa += w;
      }
    }
    if (!(wa > 0.0) || !(wb > 0.0)) return 0.0;
    for (index_t j = 0; j < d; ++j) {
      s.a[j] = s.sa[j] / wa;
      s.b[j] = s.sb[j] / wb;
    }
  }
  // ||x - b||^2 = ||x - a||^2 - 2 (x . u - half_gap)
  double split = 0.0;
  const double half_gap = split_direction(s);
  for (index_t k = k0; k < k1; k += stride) {
    const index_t i = part.order[k];
    const double w = data.weight(i);
    if (!(w > 0.0)) continue;
    const T* x = data.row(i);
    const double da = squared_distance_in_double(x, s.a.data(), d);
    split += w * std::min(da, da - 2.0 * (dot_in_double(x, s.u.data(), d) - half_gap));
  }
  const double gain = std::max(0.0, sse - split);
  return stride == 1 ? gain : gain * (mass / sampled);
}

}  // namespace split_merge_parts

/// Makes cluster `c`, just moved next to cluster `l` (a split's second half,
/// or an empty cluster relocated onto a point of l), l's first neighbour and
/// gives it l's neighbourhood: G_c = (c, l, G_l without c), G_l = (l, c, the
/// same). Its old G_c lies where c no longer is. No-op with G == C or G < 2.
inline void place_next_to(TruncationSets& sets, index_t c, index_t l) {
  if (sets.full || sets.G < 2 || c == l) return;
  const int G = sets.G;
  std::int32_t* gl = &sets.Gc[l * G];
  std::int32_t* gc = &sets.Gc[c * G];
  int k = 2;
  for (int g = 1; g < G && k < G; ++g) {
    if (gl[g] != c) gc[k++] = gl[g];
  }
  for (int g = 2; g < k; ++g) gl[g] = gc[g];
  gl[1] = gc[0] = static_cast<std::int32_t>(c);
  gc[1] = static_cast<std::int32_t>(l);
}

/// What one split-merge round did.
struct SplitMergeStats {
  /// One applied move: r merged into q (q = -1: r was empty), then s split
  /// into s and r.
  struct Pair {
    index_t r, s;
    std::int32_t q;
  };
  index_t moves = 0;       ///< pairs (merge r into q, split s) applied
  index_t relocated = 0;   ///< empty clusters given a half of a split
  double net_gain = 0.0;   ///< sum of (gain_s - cost_r): the fall of the weighted error
  std::vector<index_t> empty_left;  ///< empty clusters no split was left for
  std::vector<Pair> pairs;          ///< the moves, empty clusters' first
};

/// One round of split-merge moves on the hard partition `part` of `data` (every
/// cluster's mean in `means` at the weighted mean of its points, an empty
/// cluster's anywhere); merge candidates of c: G_c, every cluster whose G holds
/// c (all clusters when sets.full), and, with cell_of ((C,) a cell per mean, -1
/// for none: the cells of the refinement's index), the other means of c's cell.
/// The neighbourhoods alone miss a mean's nearest other mean where no search
/// space held both (well-separated clusters). Moves the means of the paired
/// clusters in place, and the two halves of a split next to each other
/// (place_next_to: the next round and the E-step's search then see them side by
/// side).
template <typename T>
SplitMergeStats split_merge(const DataView<T>& data, const ClusterPartition& part,
                            TruncationSets& sets, T* means, int n_threads,
                            const std::int32_t* cell_of = nullptr) {
  using split_merge_parts::SplitScratch;
  using split_merge_parts::split_gain;
  const index_t C = sets.C, d = data.d;
  const double points_per_cluster = static_cast<double>(data.n) / static_cast<double>(C);
  std::vector<double> mass(C, 0.0), gain(C, 0.0), cost(C, 0.0);
  std::vector<std::int32_t> partner(C, -1);
  // (C, 2, d): cluster c's halves as the moves write them, where c can split
  // (gain > 0, as every chosen split has); written by the gains pass only.
  const bool keep_halves = 2.0 * static_cast<double>(C) * static_cast<double>(d) * sizeof(T) <=
                           kSplitHalvesBytes;
  std::unique_ptr<T[]> halves(keep_halves ? new T[static_cast<std::size_t>(2 * C * d)] : nullptr);
  const index_t n_tasks = n_chunks(C, kLloydClustersPerTask);
  parallel_for(n_tasks, n_threads, [&](index_t task) {
    const index_t c0 = task * kLloydClustersPerTask, c1 = std::min(C, c0 + kLloydClustersPerTask);
    SplitScratch s(d);
    for (index_t c = c0; c < c1; ++c) {
      double m = 0.0;
      for (index_t k = part.offsets[c]; k < part.offsets[c + 1]; ++k) {
        m += data.weight(part.order[k]);
      }
      mass[c] = m;
      gain[c] = split_gain(data, part, c, means + c * d, s);
      if (keep_halves && gain[c] > 0.0) {
        T* h = &halves[static_cast<std::size_t>(2 * c * d)];
        for (index_t j = 0; j < d; ++j) {
          h[j] = static_cast<T>(s.a[j]);
          h[d + j] = static_cast<T>(s.b[j]);
        }
      }
    }
  }, 6.0 * (kSplitIterations + 2) * kLloydClustersPerTask * points_per_cluster * d);

  // Ward's cost of merging c and q (either way round); none with an empty
  // cluster (it is no merge: the empty ones are paired first, below).
  auto merge_cost = [&](index_t c, index_t q) {
    if (part.size(c) == 0 || part.size(q) == 0) return std::numeric_limits<double>::infinity();
    const double m = mass[c] + mass[q];
    return m > 0.0 ? mass[c] * mass[q] / m * squared_distance_exact(means + c * d, means + q * d, d)
                   : 0.0;
  };
  // Merge costs of the candidate pairs (c, q in G_c), both ways; every
  // cluster's cheapest (ties: the lower index).
  const index_t n_candidates = sets.full ? C : sets.G;
  std::vector<double> pair_cost(C * n_candidates);
  auto candidate = [&](index_t c, index_t g) {
    return sets.full ? static_cast<std::int32_t>(g) : sets.g_of(c)[g];
  };
  parallel_for(n_tasks, n_threads, [&](index_t task) {
    const index_t c0 = task * kLloydClustersPerTask, c1 = std::min(C, c0 + kLloydClustersPerTask);
    for (index_t c = c0; c < c1; ++c) {
      for (index_t g = 0; g < n_candidates; ++g) {
        const std::int32_t q = candidate(c, g);
        pair_cost[c * n_candidates + g] = q == c ? 0.0 : merge_cost(c, q);
      }
    }
  }, 3.0 * kLloydClustersPerTask * n_candidates * d);
  std::fill(cost.begin(), cost.end(), std::numeric_limits<double>::infinity());
  auto offer = [&](index_t c, std::int32_t q, double cq) {
    if (cq < cost[c] || (cq == cost[c] && q < partner[c])) {
      cost[c] = cq;
      partner[c] = q;
    }
  };
  for (index_t c = 0; c < C; ++c) {
    for (index_t g = 0; g < n_candidates; ++g) {
      const std::int32_t q = candidate(c, g);
      if (q == c) continue;
      offer(c, q, pair_cost[c * n_candidates + g]);
      offer(q, static_cast<std::int32_t>(c), pair_cost[c * n_candidates + g]);
    }
  }
  if (cell_of != nullptr && !sets.full) {
    // The means of every cell (ascending; group 0: means without a cell),
    // then every pair of a cell, both ways, in one task per cell (a mean is
    // in one cell: no shared writes).
    std::vector<std::int32_t> group(C);
    std::int32_t n_groups = 1;
    for (index_t c = 0; c < C; ++c) {
      group[c] = cell_of[c] + 1;
      n_groups = std::max(n_groups, group[c] + 1);
    }
    ClusterPartition cells;
    cells.build(group.data(), C, n_groups);
    std::vector<double> cell_cost(C, std::numeric_limits<double>::infinity());
    std::vector<std::int32_t> cell_partner(C, -1);
    const index_t n_cells = n_groups - 1;
    parallel_for(n_cells, n_threads, [&](index_t a) {
      const index_t k0 = cells.offsets[a + 1], k1 = cells.offsets[a + 2];
      for (index_t i = k0; i < k1; ++i) {
        const index_t c = cells.order[i];
        for (index_t j = i + 1; j < k1; ++j) {
          const index_t q = cells.order[j];
          const double cq = merge_cost(c, q);
          if (cq < cell_cost[c]) {  // q ascending: ties keep the lower index
            cell_cost[c] = cq;
            cell_partner[c] = static_cast<std::int32_t>(q);
          }
          if (cq < cell_cost[q] || (cq == cell_cost[q] && c < cell_partner[q])) {
            cell_cost[q] = cq;
            cell_partner[q] = static_cast<std::int32_t>(c);
          }
        }
      }
    }, 3.0 * d * static_cast<double>(C) / std::max<index_t>(n_cells, 1) *
           static_cast<double>(C) / std::max<index_t>(n_cells, 1));
    for (index_t c = 0; c < C; ++c) {
      if (cell_partner[c] >= 0) offer(c, cell_partner[c], cell_cost[c]);
    }
  }

  // Pairs: the cheapest merges with the largest gains, each cluster once.
  std::vector<index_t> by_cost(C), by_gain(C);
  std::iota(by_cost.begin(), by_cost.end(), 0);
  std::iota(by_gain.begin(), by_gain.end(), 0);
  std::sort(by_cost.begin(), by_cost.end(), [&](index_t x, index_t y) {
    return cost[x] < cost[y] || (cost[x] == cost[y] && x < y);
  });
  std::sort(by_gain.begin(), by_gain.end(), [&](index_t x, index_t y) {
    return gain[x] > gain[y] || (gain[x] == gain[y] && x < y);
  });
  std::vector<std::uint8_t> used(C, 0);
  SplitMergeStats stats;
  std::vector<SplitMergeStats::Pair>& pairs = stats.pairs;
  index_t next = 0;  // by_gain before it: used
  // The largest gain of a cluster not used, not r and not q (C: none left).
  auto largest_gain = [&](index_t r, std::int32_t q) {
    while (next < C && used[by_gain[next]]) ++next;
    index_t j = next;
    while (j < C && (used[by_gain[j]] || by_gain[j] == r || by_gain[j] == q)) ++j;
    return j;
  };
  for (index_t r = 0; r < C; ++r) {
    if (part.size(r) != 0) continue;
    used[r] = 1;
    const index_t j = largest_gain(r, -1);
    if (j >= C || !(gain[by_gain[j]] > 0.0)) {
      stats.empty_left.push_back(r);
      continue;
    }
    used[by_gain[j]] = 1;
    pairs.push_back({r, by_gain[j], -1});
    stats.net_gain += gain[by_gain[j]];
    ++stats.relocated;
  }
  for (const index_t r : by_cost) {
    const std::int32_t q = partner[r];
    if (q < 0 || used[r] || used[q]) continue;
    const index_t j = largest_gain(r, q);
    if (j >= C) break;
    const index_t s = by_gain[j];
    if (!(gain[s] > kSplitMergeMargin * cost[r])) break;
    used[r] = used[q] = used[s] = 1;
    pairs.push_back({r, s, q});
    stats.net_gain += gain[s] - cost[r];
    ++stats.moves;
  }

  // The moves (disjoint clusters): q to the merged mean, s and r to the halves of s.
  parallel_for(static_cast<index_t>(pairs.size()), n_threads, [&](index_t p) {
    const SplitMergeStats::Pair& pr = pairs[p];
    const double m = pr.q < 0 ? 0.0 : mass[pr.r] + mass[pr.q];
    if (m > 0.0) {
      T* mq = means + static_cast<index_t>(pr.q) * d;
      const T* mr = means + pr.r * d;
      for (index_t j = 0; j < d; ++j) {
        mq[j] = static_cast<T>((mass[pr.r] * static_cast<double>(mr[j]) +
                                mass[pr.q] * static_cast<double>(mq[j])) / m);
      }
    }
    if (keep_halves) {
      const T* h = &halves[static_cast<std::size_t>(2 * pr.s * d)];
      std::copy_n(h, d, means + pr.s * d);
      std::copy_n(h + d, d, means + pr.r * d);
    } else {  // the split again (deterministic: the same halves)
      SplitScratch s(d);
      split_gain(data, part, pr.s, means + pr.s * d, s);
      for (index_t j = 0; j < d; ++j) {
        means[pr.s * d + j] = static_cast<T>(s.a[j]);
        means[pr.r * d + j] = static_cast<T>(s.b[j]);
      }
    }
    place_next_to(sets, pr.r, pr.s);
  }, (keep_halves ? 6.0 : 6.0 * (kSplitIterations + 2) * points_per_cluster) * d);
  return stats;
}

}  // namespace detail
}  // namespace vcgmm
