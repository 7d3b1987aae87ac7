// Internal: the stages shared by the one-call pipelines (fit_kmeans,
// fit_vcgmm): parameter checks, coreset, seeding, evaluation on all points,
// and progress formatting.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "parallel.hpp"
#include "validation.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/assignment.hpp"
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

/// What the shared stages of a pipeline need to know.
struct StageSettings {
  const char* name;           ///< algorithm name for progress lines and errors
  index_t n_clusters;
  index_t coreset_size;       ///< 0: all points
  KMeansInit init;
  int chain_length;
  int n_local_trials;
  std::uint64_t seed;
  int n_threads;
  const Logger* log;
};

/// The checks every pipeline makes before spending work on a coreset or a
/// seeding (the iteration parameters are checked by the caller likewise).
template <typename T>
void require_stage_settings(const DataView<T>& data, const StageSettings& s, const void* init_centers,
                            const void* centers) {
  const std::string name(s.name);
  require_data(data, s.name);
  require_clusters(s.n_clusters, data.n, s.name);
  require(centers != nullptr, name + ": the output centers are a null pointer");
  require(s.coreset_size == 0 || s.coreset_size >= s.n_clusters,
          name + ": coreset_size must be 0 (all points) or >= the number of clusters");
  require(s.init != KMeansInit::given || init_centers != nullptr,
          name + ": init == given needs init_centers (the initial centers)");
  require(s.chain_length >= 1, name + ": chain_length must be >= 1");
  require(s.n_local_trials >= 1, name + ": n_local_trials must be >= 1");
}

/// The stages before the iterations: the coreset (if any) and the seeding
/// (unless the centers are given). Returns the points to fit; fills the
/// phases' distance counts and times.
template <typename T>
std::unique_ptr<FitData<T>> prepare_fit(const DataView<T>& data, const StageSettings& s,
                                        const T* init_centers, T* centers,
                                        index_t* coreset_indices, double* coreset_weights,
                                        DistanceCounts* counts, PhaseTimes* times) {
  std::unique_ptr<FitData<T>> fit_data;
  if (s.coreset_size > 0) {
    CoresetStats cs;
    fit_data = std::make_unique<FitData<T>>(data, s.coreset_size, s.seed, s.n_threads,
                                            coreset_indices, coreset_weights, &cs);
    counts->coreset = cs.n_distance_evals;
    times->coreset = cs.seconds;
    log_line(*s.log, "%s coreset: %lld of %lld points (%.2f s)", s.name,
             static_cast<long long>(s.coreset_size), static_cast<long long>(data.n), cs.seconds);
  } else {
    fit_data = std::make_unique<FitData<T>>(data);
  }
  if (s.init == KMeansInit::given) {
    std::memcpy(centers, init_centers, sizeof(T) * s.n_clusters * data.d);
  } else {
    const SeedingStats ss = seed_centers(fit_data->view(), s.init, s.n_clusters, s.chain_length,
                                         s.n_local_trials, s.seed, s.n_threads, centers);
    counts->seeding = ss.n_distance_evals;
    times->seeding = ss.seconds;
    log_line(*s.log, "%s seeding: %s, %lld centers (%.2f s)", s.name,
             s.init == KMeansInit::afkmc2 ? "AFK-MC2" : "k-means++",
             static_cast<long long>(s.n_clusters), ss.seconds);
  }
  return fit_data;
}

/// The stage after the iterations: exact labels (if asked) and the
/// quantization error of all points; its own phase, not algorithm cost.
template <typename T>
double evaluate_fit(const DataView<T>& data, const StageSettings& s, const T* centers,
                    std::int32_t* labels, DistanceCounts* counts, PhaseTimes* times) {
  Stopwatch clock;
  if (labels) std::fill(labels, labels + data.n, -1);
  const double q =
      assign_nearest(data, centers, s.n_clusters, labels, nullptr, s.n_threads).objective;
  counts->evaluation = data.n * s.n_clusters;
  times->evaluation = clock.seconds();
  log_line(*s.log, "%s evaluation: quantization error (inertia) %.8g on %lld points (%.2f s)", s.name, q,
           static_cast<long long>(data.n), times->evaluation);
  return q;
}

}  // namespace detail
}  // namespace vcgmm
