// Internal (variational loop): the M-step accumulator.
//
// With few clusters (point_task_m_step) the M-step is parallel over fixed
// ranges of points (kMStepPointsPerTask): each task sums its clusters' pairs
// in ascending point order into one partial sum per cluster, and the
// partials are added into the (C, D) accumulator in task order, parallel
// over clusters; each row is read once per M-step. With many clusters a
// range's partials would be nearly one per pair, so each cluster sums its
// own pairs in ascending point order instead (for_each_pair_in_cluster_order:
// an owner scan on up to 2 threads, the pairs bucketed by cluster on more;
// the same sums either way). The path depends on the sizes only, and the
// results never on the thread count.
//
// Per cluster: mass m_c, first moment about ybar and the weighted sum of
// ||y - ybar||^2 (precomputed per point), so that
//   sum_n w s ||y_n - mu_c||^2 = sum w s ||y_n - ybar||^2 - m_c ||mu_c - ybar||^2
// gives sigma^2 without another pass over the distances. Centering on ybar
// keeps that difference well conditioned for data far from 0 and the means
// of constant data exact.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/huge_pages.hpp"
#include "detail/parallel.hpp"
#include "vcgmm/data_moments.hpp"
#include "vcgmm/truncation_sets.hpp"

namespace vcgmm {
namespace detail {

/// Pairs ahead whose data row the bucketed visit prefetches (its rows come
/// in no memory order).
constexpr index_t kPrefetchPairs = 12;

template <typename T>
inline void prefetch_row(const DataView<T>& data, index_t n) {
  prefetch_bytes(data.row(n), static_cast<std::size_t>(data.d) * sizeof(T));
}

/// Calls f(c, n, ws) for every pair (n, c = K(n)[g]) of `sets` with
/// ws = w_n s_g(n) != 0, each cluster's pairs in ascending n on one thread
/// (sums over them do not depend on the thread count). The pairs are first
/// bucketed by cluster (a counting sort over fixed point ranges, taken in
/// range order), then visited in fixed tasks of clusters: every pair is read
/// once, whatever the number of threads. `work_per_pair` (flops) sizes the
/// thread count.
template <typename T, class F>
void for_each_pair_by_cluster(const DataView<T>& data, const TruncationSets& sets, int n_threads,
                              double work_per_pair, F&& f) {
  const index_t N = data.n, C = sets.C;
  const int G = sets.G;
  // Point ranges for the counting sort: at most 32, and at most 2^22 / C
  // (the counts take ranges x C entries), each >= kMStepPointsPerTask points.
  // (No size changes the results: a cluster's pairs come in point order.)
  const index_t max_ranges = std::clamp<index_t>((index_t(1) << 22) / C, 1, 32);
  const index_t range = std::max(kMStepPointsPerTask, (N + max_ranges - 1) / max_ranges);
  const index_t n_ranges = n_chunks(N, range);
  // count[t * C + c]: pairs of cluster c in range t, then the slot of its
  // first. Its rows and the pairs are first written inside the tasks (no
  // serial zeroing or page faults on one thread).
  std::unique_ptr<index_t[]> count(new index_t[static_cast<size_t>(n_ranges * C)]);
  auto pairs_of_range = [&](index_t t, auto&& g_fn) {
    const index_t n1 = std::min(N, (t + 1) * range);
    for (index_t n = t * range; n < n1; ++n) {
      const std::int32_t* kn = sets.k_of(n);
      const double* rn = sets.resp_of(n);
      const double wn = data.weight(n);
      for (int g = 0; g < G; ++g) {
        const double ws = wn * rn[g];
        if (ws != 0.0) g_fn(kn[g], n, ws);
      }
    }
  };
  // (Work per pair in flops of the E-step's distances, as timed: the count
  // reads K(n) and the responsibilities, the scatter writes at random.)
  parallel_for(n_ranges, n_threads, [&](index_t t) {
    index_t* cnt = &count[t * C];
    std::fill_n(cnt, C, index_t(0));
    pairs_of_range(t, [&](std::int32_t c, index_t, double) { ++cnt[c]; });
  }, 16.0 * range * G);
  // each_cluster(g, work): g(c) for every cluster, in fixed tasks of clusters
  // (work: flops per cluster).
  const index_t per_task = std::clamp<index_t>(C / 256, 1, kBalancedClustersPerTask);
  const index_t n_cluster_tasks = n_chunks(C, per_task);
  auto each_cluster = [&](auto&& g, double work) {
    parallel_for(n_cluster_tasks, n_threads, [&](index_t ct) {
      const index_t c1 = std::min(C, (ct + 1) * per_task);
      for (index_t c = ct * per_task; c < c1; ++c) g(c);
    }, work * per_task);
  };
  // count[t * C + c] becomes the slot of range t's first pair of cluster c
  // within the cluster's pairs, start[c] the first slot of cluster c (its
  // ranges' pairs follow in order).
  std::vector<index_t> start(static_cast<size_t>(C + 1), 0);
  each_cluster([&](index_t c) {
    index_t total = 0;
    for (index_t t = 0; t < n_ranges; ++t) {
      const index_t v = count[t * C + c];
      count[t * C + c] = total;
      total += v;
    }
    start[c + 1] = total;
  }, 2.0 * n_ranges);
  for (index_t c = 0; c < C; ++c) start[c + 1] += start[c];
  // The pairs (n, ws) grouped by cluster, ascending n within each.
  struct Pair {
    index_t n;
    double ws;
  };
  std::unique_ptr<Pair[]> pair(new Pair[static_cast<size_t>(start[C])]);
  parallel_for(n_ranges, n_threads, [&](index_t t) {
    index_t* next = &count[t * C];
    pairs_of_range(t, [&](std::int32_t c, index_t n, double ws) {
      pair[start[c] + next[c]++] = {n, ws};
    });
  }, 100.0 * range * G);
  each_cluster([&](index_t c) {
    for (index_t s = start[c]; s < start[c + 1]; ++s) {
      if (s + kPrefetchPairs < start[C]) prefetch_row(data, pair[s + kPrefetchPairs].n);
      f(static_cast<std::int32_t>(c), pair[s].n, pair[s].ws);
    }
  }, work_per_pair * static_cast<double>(start[C]) / static_cast<double>(C));
}

/// for_each_pair_by_cluster's contract by an owner scan: every task owns a
/// contiguous range of clusters and scans all points in order, reading a
/// row once per owner of its clusters and every point's K(n) once per owner.
template <typename T, class F>
void for_each_owned_pair(const DataView<T>& data, const TruncationSets& sets, int n_threads,
                         double work_per_pair, F&& f) {
  const index_t N = data.n, C = sets.C;
  const int G = sets.G;
  const int n_owners = static_cast<int>(std::min<index_t>(resolve_threads(n_threads), C));
  parallel_for(n_owners, n_owners, [&](index_t owner) {
    const std::int32_t c0 = static_cast<std::int32_t>(C * owner / n_owners);
    const std::int32_t c1 = static_cast<std::int32_t>(C * (owner + 1) / n_owners);
    for (index_t n = 0; n < N; ++n) {
      if ((n & 16383) == 16383) check_interrupt_in_task();  // one task scans all points
      const std::int32_t* kn = sets.k_of(n);
      const double* rn = sets.resp_of(n);
      const double wn = data.weight(n);
      for (int g = 0; g < G; ++g) {
        const std::int32_t c = kn[g];
        if (c < c0 || c >= c1) continue;
        const double ws = wn * rn[g];
        if (ws == 0.0) continue;
        f(c, n, ws);
      }
    }
  }, work_per_pair * static_cast<double>(N) * G / n_owners);
}

/// Calls f(c, n, ws) for every pair (n, c = K(n)[g]) of `sets` with
/// ws = w_n s_g(n) != 0, each cluster's pairs in ascending n on one thread,
/// so sums over them are the same whichever way and on however many
/// threads: on up to 2 threads by the owner scan (no bucketing pass; a row
/// is read at most twice), on more by bucketing (the owner scan's work
/// grows with the owners; bench/results/vcgmm_threads/).
template <typename T, class F>
void for_each_pair_in_cluster_order(const DataView<T>& data, const TruncationSets& sets,
                                    int n_threads, double work_per_pair, F&& f) {
  if (resolve_threads(n_threads) <= 2) {
    for_each_owned_pair(data, sets, n_threads, work_per_pair, f);
  } else {
    for_each_pair_by_cluster(data, sets, n_threads, work_per_pair, f);
  }
}

/// The M-step's (C, D) double accumulator, kept by the loop between M-steps:
/// its rows are cleared when first added to, so an M-step costs no O(C D)
/// clearing (nor, after the first, page faults) beyond the clusters with mass.
using MStepAccumulator = std::vector<double, HugePageAllocator<double>>;

/// Bytes of partial sums held at once (tasks are summed in waves).
constexpr double kMStepPartialBytes = 64.0 * 1024 * 1024;

/// One task's partial sums: per cluster it touches (slot j, in order of
/// first touch), the sums of its pairs in ascending point order.
struct MStepPartial {
  std::vector<std::pair<std::int32_t, std::int32_t>> order;  // (cluster, slot) by cluster
  std::vector<double> sum;  // (slots, D): sum w s (y_n - ybar)
  std::vector<double> mass, second;
};

/// Task t's pairs (n, c = K(n)[g], ws = w_n s_g(n) != 0) summed per cluster,
/// in point order; `slot_of` (C entries, all -1) is the cluster -> slot map
/// (left all -1 again).
template <typename T>
void m_step_partial(const DataView<T>& data, const TruncationSets& sets,
                    const DataMoments& moments, index_t t, std::vector<std::int32_t>& slot_of,
                    MStepPartial* out) {
  const index_t N = data.n, D = data.d;
  const int G = sets.G;
  const index_t n0 = t * kMStepPointsPerTask, n1 = std::min(N, n0 + kMStepPointsPerTask);
  std::vector<std::int32_t> touched;  // clusters in order of first touch (= slot)
  struct Reset {  // slot_of back to all -1, also when an exception leaves
    std::vector<std::int32_t>& map;
    const std::vector<std::int32_t>& keys;
    ~Reset() {
      for (std::int32_t c : keys) map[c] = -1;
    }
  } reset{slot_of, touched};
  std::vector<double> sum, mass, second;
  sum.swap(out->sum);  // reuse the capacity
  sum.clear();
  mass.clear();
  second.clear();
  for (index_t n = n0; n < n1; ++n) {
    const std::int32_t* kn = sets.k_of(n);
    const double* rn = sets.resp_of(n);
    const double wn = data.weight(n);
    for (int g = 0; g < G; ++g) {
      const double ws = wn * rn[g];
      if (ws == 0.0) continue;
      const std::int32_t c = kn[g];
      std::int32_t slot = slot_of[c];
      if (slot < 0) {
        slot = slot_of[c] = static_cast<std::int32_t>(touched.size());
        touched.push_back(c);
        sum.resize(touched.size() * D, 0.0);
        mass.push_back(0.0);
        second.push_back(0.0);
      }
      add_scaled_difference_to_double(sum.data() + slot * D, ws, data.row(n),
                                      moments.ybar.data(), D);
      mass[slot] += ws;
      second[slot] += ws * moments.yc2[n];
    }
  }
  // the merge visits them by ascending cluster
  out->order.resize(touched.size());
  for (size_t j = 0; j < touched.size(); ++j) {
    out->order[j] = {touched[j], static_cast<std::int32_t>(j)};
  }
  std::sort(out->order.begin(), out->order.end());
  out->sum.swap(sum);
  out->mass.swap(mass);
  out->second.swap(second);
}

/// Whether the M-step sums over point ranges (few clusters: a range's
/// partial sums are few beside its pairs) or per cluster over its pairs
/// (many clusters: nearly one partial per pair). Depends on the sizes only.
inline bool point_task_m_step(index_t C, int G) {
  return 8 * C <= kMStepPointsPerTask * G;
}

/// New means (a cluster of zero mass keeps its mean) from the
/// responsibilities in `sets`; returns sum_n sum_{c in K(n)} w s ||y_n - mu_c||^2
/// with the new means. `acc` is the accumulator (any contents; resized to
/// C x D). Optional (C,) outputs: every cluster's mass m_c and its own
/// sum_n w s ||y_n - mu_c||^2 (0 for zero mass).
template <typename T>
double m_step(const DataView<T>& data, const TruncationSets& sets, const DataMoments& moments,
              int n_threads, T* means, MStepAccumulator& acc, double* cluster_mass = nullptr,
              double* cluster_sq = nullptr) {
  const index_t N = data.n, D = data.d, C = sets.C;
  const int G = sets.G;
  // (C, D) sums of w s (y_n - ybar): on huge pages at large C (see
  // huge_pages.hpp). Row c is valid once mass[c] > 0 (every partial's mass
  // is > 0), and only such rows are read below.
  acc.resize(static_cast<std::size_t>(C * D));
  std::vector<double> mass(C, 0.0), second(C, 0.0);
  const index_t n_cluster_tasks = n_chunks(C, kEMClustersPerTask);
  if (!point_task_m_step(C, G)) {
    for_each_pair_in_cluster_order(data, sets, n_threads, 4.0 * D,
                                   [&](std::int32_t c, index_t n, double ws) {
      if (mass[c] == 0.0) std::fill_n(acc.data() + c * D, D, 0.0);  // first addition
      add_scaled_difference_to_double(acc.data() + c * D, ws, data.row(n), moments.ybar.data(),
                                      D);
      mass[c] += ws;
      second[c] += ws * moments.yc2[n];
    });
  } else {
    const index_t n_tasks = n_chunks(N, kMStepPointsPerTask);
    // Tasks per wave: as many as the threads can use, within the memory bound
    // (the sums do not depend on it).
    const double task_bytes =
        8.0 * static_cast<double>(D + 3) *
        static_cast<double>(std::min<index_t>(C, kMStepPointsPerTask * G));
    const index_t wave = std::max<index_t>(
        1, std::min<index_t>(4 * static_cast<index_t>(resolve_threads(n_threads)),
                             static_cast<index_t>(kMStepPartialBytes / task_bytes)));
    std::vector<MStepPartial> partials(static_cast<size_t>(std::min(wave, n_tasks)));
    for (index_t t0 = 0; t0 < n_tasks; t0 += wave) {
      const index_t t1 = std::min(n_tasks, t0 + wave);
      parallel_for(t1 - t0, n_threads, [&](index_t j) {
        // the cluster -> slot map of this thread (all -1 between tasks)
        thread_local std::vector<std::int32_t> slot_of;
        if (static_cast<index_t>(slot_of.size()) < C) slot_of.assign(C, -1);
        m_step_partial(data, sets, moments, t0 + j, slot_of, &partials[j]);
      }, 4.0 * kMStepPointsPerTask * G * D);
      // add the wave's partials in task order, parallel over clusters
      constexpr index_t kPer = kBalancedClustersPerTask;
      parallel_for(n_chunks(C, kPer), n_threads, [&](index_t ct) {
        const std::int32_t c0 = static_cast<std::int32_t>(ct * kPer);
        const std::int32_t c1 = static_cast<std::int32_t>(std::min(C, (ct + 1) * kPer));
        for (index_t j = 0; j < t1 - t0; ++j) {
          const MStepPartial& p = partials[j];
          auto it = std::lower_bound(p.order.begin(), p.order.end(),
                                     std::pair<std::int32_t, std::int32_t>(c0, -1));
          for (; it != p.order.end() && it->first < c1; ++it) {
            const std::int32_t c = it->first, slot = it->second;
            double* row = acc.data() + c * D;
            const double* part = p.sum.data() + slot * D;
            if (mass[c] == 0.0) {
              std::copy(part, part + D, row);  // first addition
            } else {
              for (index_t k = 0; k < D; ++k) row[k] += part[k];
            }
            mass[c] += p.mass[slot];
            second[c] += p.second[slot];
          }
        }
      }, 6.0 * kPer * D * static_cast<double>(t1 - t0));
    }
  }

  std::vector<double> task_var(n_cluster_tasks, 0.0);
  parallel_for(n_cluster_tasks, n_threads, [&](index_t t) {
    const index_t c0 = t * kEMClustersPerTask, c1 = std::min(C, c0 + kEMClustersPerTask);
    double var = 0.0;
    for (index_t c = c0; c < c1; ++c) {
      if (cluster_mass) cluster_mass[c] = mass[c];
      if (cluster_sq) cluster_sq[c] = 0.0;
      if (!(mass[c] > 0.0)) continue;  // zero mass: the mean stays
      VectorMap<double> mu(acc.data() + c * D, D);
      mu /= mass[c];  // mu_c - ybar
      VectorMap<T>(&means[c * D], D) = (mu + moments.ybar).template cast<T>();
      const double sq = std::max(0.0, second[c] - mass[c] * mu.squaredNorm());
      if (cluster_sq) cluster_sq[c] = sq;
      var += sq;
    }
    task_var[t] = var;
  }, 12.0 * kEMClustersPerTask * D);  // (timed: the means' rows are read at random)
  double var = 0.0;
  for (double v : task_var) var += v;
  return var;
}

/// For the given means (unchanged), per cluster: the mass m_c and
/// sum_n w s ||y_n - mu_c||^2 from the responsibilities in `sets`; returns
/// their sum over the clusters, per cluster over its pairs whatever C (it
/// runs once per fit; results do not depend on the thread count).
template <typename T>
double spread_about_means(const DataView<T>& data, const TruncationSets& sets, int n_threads,
                          const T* means, double* cluster_mass, double* cluster_sq) {
  const index_t D = data.d, C = sets.C;
  std::fill_n(cluster_mass, C, 0.0);
  std::fill_n(cluster_sq, C, 0.0);
  for_each_pair_in_cluster_order(data, sets, n_threads, 3.0 * D,
                                 [&](std::int32_t c, index_t n, double ws) {
    cluster_mass[c] += ws;
    cluster_sq[c] += ws * squared_distance_exact(data.row(n), means + c * D, D);
  });
  double total = 0.0;
  for (index_t c = 0; c < C; ++c) total += cluster_sq[c];
  return total;
}

}  // namespace detail
}  // namespace vcgmm
