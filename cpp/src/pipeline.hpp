// Internal: pieces shared by the one-call pipelines (fit_kmeans, fit_vcgmm):
// the coreset step, the seeding step and progress formatting.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "parallel.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/common.hpp"
#include "vcgmm/kmeans.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"

namespace vcgmm {
namespace detail {

/// printf-style line for a Logger (no-op without one).
inline void log_line(const Logger& log, const char* format, ...) {
  if (!log) return;
  char line[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  log(line);
}

/// The points an algorithm is fitted on: either a view of all of X (no copy)
/// or a coreset gathered into its own (n_prime, d) array.
template <typename T>
class FitData {
 public:
  /// All points of `data`, no copy.
  explicit FitData(const DataView<T>& data) : view_(data) {}

  /// A lightweight coreset of `n_prime` points drawn from `data`; indices and
  /// weights are written to the caller's buffers when given.
  FitData(const DataView<T>& data, index_t n_prime, std::uint64_t seed, int n_threads,
          index_t* indices_out, double* weights_out, CoresetStats* stats)
      : indices_(indices_out ? 0 : n_prime), weights_(n_prime) {
    index_t* idx = indices_out ? indices_out : indices_.data();
    LightweightCoresetParams p;
    p.n_prime = n_prime;
    p.seed = seed;
    p.n_threads = n_threads;
    *stats = lightweight_coreset(data, p, idx, weights_.data());
    if (weights_out) std::memcpy(weights_out, weights_.data(), sizeof(double) * n_prime);
    const index_t d = data.d;
    rows_.resize(static_cast<size_t>(n_prime * d));
    parallel_for(n_chunks(n_prime, 1024), n_threads, [&](index_t t) {
      const index_t k1 = std::min(n_prime, (t + 1) * 1024);
      for (index_t k = t * 1024; k < k1; ++k) {
        std::memcpy(rows_.data() + k * d, data.row(idx[k]), sizeof(T) * d);
      }
    }, 1024.0 * d);
    view_.x = rows_.data();
    view_.n = n_prime;
    view_.d = d;
    view_.w = weights_.data();
  }

  const DataView<T>& view() const { return view_; }

 private:
  DataView<T> view_;
  std::vector<index_t> indices_;
  std::vector<double> weights_;
  std::vector<T> rows_;
};

/// Seeds C centers on `data` with the chosen method (not `given`).
template <typename T>
SeedingStats seed_centers(const DataView<T>& data, KMeansInit init, index_t C, int chain_length,
                          int n_local_trials, std::uint64_t seed, int n_threads, T* centers) {
  if (init == KMeansInit::afkmc2) {
    Afkmc2Params p;
    p.n_clusters = C;
    p.chain_length = chain_length;
    p.seed = seed;
    p.n_threads = n_threads;
    return afkmc2(data, p, centers, nullptr);
  }
  KMeansPlusPlusParams p;
  p.n_clusters = C;
  p.n_local_trials = n_local_trials;
  p.seed = seed;
  p.n_threads = n_threads;
  return kmeans_plusplus(data, p, centers, nullptr);
}

}  // namespace detail
}  // namespace vcgmm
