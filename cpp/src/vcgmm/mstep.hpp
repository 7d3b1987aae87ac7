// Internal (variational loop): the M-step accumulator.
//
// Every task owns a contiguous range of clusters and scans all points in
// order, accumulating the (point, cluster) pairs of its own clusters
// (for_each_owned_pair). So each cluster's sums are taken in ascending point
// order on one thread (results do not depend on the thread count, whatever
// the ownership), the rows stream sequentially, and the accumulators exist
// once (no per-thread C x D copies).
//
// Per cluster: mass m_c, first moment about ybar and the weighted sum of
// ||y - ybar||^2 (precomputed per point), so that
//   sum_n w s ||y_n - mu_c||^2 = sum w s ||y_n - ybar||^2 - m_c ||mu_c - ybar||^2
// gives sigma^2 without another pass over the distances. Centering on ybar
// keeps that difference well conditioned for data far from 0 and the means
// of constant data exact.
#pragma once

#include <algorithm>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/huge_pages.hpp"
#include "detail/parallel.hpp"
#include "vcgmm/data_moments.hpp"
#include "vcgmm/truncation_sets.hpp"

namespace vcgmm {
namespace detail {

/// Calls f(c, n, ws) for every pair (n, c = K(n)[g]) of `sets` with
/// ws = w_n s_g(n) != 0: every task owns a contiguous range of clusters and
/// scans all points in order, so each cluster's pairs come in ascending n on
/// one thread (sums over them do not depend on the thread count).
/// `work_per_pair` (flops) sizes the thread count.
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

/// The M-step's (C, D) double accumulator, kept by the loop between M-steps:
/// its rows are cleared when first added to, so an M-step costs no O(C D)
/// clearing (nor, after the first, page faults) beyond the clusters with mass.
using MStepAccumulator = std::vector<double, HugePageAllocator<double>>;

/// New means (a cluster of zero mass keeps its mean) from the
/// responsibilities in `sets`; returns sum_n sum_{c in K(n)} w s ||y_n - mu_c||^2
/// with the new means. `acc` is the accumulator (any contents; resized to
/// C x D). Optional (C,) outputs: every cluster's mass m_c and its own
/// sum_n w s ||y_n - mu_c||^2 (0 for zero mass).
template <typename T>
double m_step(const DataView<T>& data, const TruncationSets& sets, const DataMoments& moments,
              int n_threads, T* means, MStepAccumulator& acc, double* cluster_mass = nullptr,
              double* cluster_sq = nullptr) {
  const index_t D = data.d, C = sets.C;
  // (C, D) sums of w s (y_n - ybar), scattered into at random rows: on huge
  // pages at large C (see huge_pages.hpp). Row c is valid once mass[c] > 0
  // (every added w s is > 0), and only such rows are read below.
  acc.resize(static_cast<std::size_t>(C * D));
  std::vector<double> mass(C, 0.0), second(C, 0.0);
  for_each_owned_pair(data, sets, n_threads, 4.0 * D, [&](std::int32_t c, index_t n, double ws) {
    if (mass[c] == 0.0) std::fill_n(acc.data() + c * D, D, 0.0);  // first addition
    add_scaled_difference_to_double(acc.data() + c * D, ws, data.row(n), moments.ybar.data(), D);
    mass[c] += ws;
    second[c] += ws * moments.yc2[n];
  });

  const index_t n_tasks = n_chunks(C, kEMClustersPerTask);
  std::vector<double> task_var(n_tasks, 0.0);
  parallel_for(n_tasks, n_threads, [&](index_t t) {
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
  }, 4.0 * kEMClustersPerTask * D);
  double var = 0.0;
  for (double v : task_var) var += v;
  return var;
}

/// For the given means (unchanged), per cluster: the mass m_c and
/// sum_n w s ||y_n - mu_c||^2 from the responsibilities in `sets`; returns
/// their sum over the clusters. Ownership and order as in m_step (results do
/// not depend on the thread count).
template <typename T>
double spread_about_means(const DataView<T>& data, const TruncationSets& sets, int n_threads,
                          const T* means, double* cluster_mass, double* cluster_sq) {
  const index_t D = data.d, C = sets.C;
  std::fill_n(cluster_mass, C, 0.0);
  std::fill_n(cluster_sq, C, 0.0);
  for_each_owned_pair(data, sets, n_threads, 3.0 * D, [&](std::int32_t c, index_t n, double ws) {
    cluster_mass[c] += ws;
    cluster_sq[c] += ws * squared_distance_exact(data.row(n), means + c * D, D);
  });
  double total = 0.0;
  for (index_t c = 0; c < C; ++c) total += cluster_sq[c];
  return total;
}

}  // namespace detail
}  // namespace vcgmm
