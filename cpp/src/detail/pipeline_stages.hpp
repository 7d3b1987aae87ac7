// Internal: the stages every one-call pipeline runs around its iterations
// (see vcgmm/pipeline.hpp): coreset, seeding, evaluation on all points.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "detail/assign.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/unchecked.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm {
namespace detail {

/// The points an algorithm is fitted on: either a view of all of X (no copy)
/// or a coreset gathered into its own (coreset_size, d) array.
template <typename T>
class FitData {
 public:
  /// All points of `data`, no copy.
  explicit FitData(const DataView<T>& data) : view_(data) {}

  /// A lightweight coreset of `size` points drawn from `data`; indices and
  /// weights are written to the caller's buffers when given.
  FitData(const DataView<T>& data, index_t size, const RunOptions& run, index_t* indices_out,
          double* weights_out, CoresetStats* stats)
      : indices_(indices_out ? 0 : size), weights_(size) {
    index_t* idx = indices_out ? indices_out : indices_.data();
    *stats = detail::lightweight_coreset(data, size, run, idx, weights_.data());
    if (weights_out) std::memcpy(weights_out, weights_.data(), sizeof(double) * size);
    const index_t d = data.d;
    rows_.resize(static_cast<size_t>(size * d));
    parallel_for(n_chunks(size, 1024), run.n_threads, [&](index_t t) {
      const index_t k1 = std::min(size, (t + 1) * 1024);
      for (index_t k = t * 1024; k < k1; ++k) {
        std::memcpy(rows_.data() + k * d, data.row(idx[k]), sizeof(T) * d);
      }
    }, 1024.0 * d);
    view_.x = rows_.data();
    view_.n = size;
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
SeedingStats seed_centers(const DataView<T>& data, index_t C, const SeedingParams& seeding,
                          const RunOptions& run, T* centers) {
  if (seeding.method == SeedingMethod::afkmc2) {
    return detail::afkmc2(data, C, seeding.afkmc2, run, centers, nullptr);
  }
  return detail::kmeans_plusplus(data, C, seeding.kmeans_plusplus, run, centers, nullptr);
}

/// The stages before the iterations: the coreset (if any) and the seeding
/// (unless the centers are given) into buffers.centers. Returns the points to
/// fit; adds the phases' costs to `costs`.
template <typename T>
std::unique_ptr<FitData<T>> prepare_fit(const DataView<T>& data, const PipelineParams& p,
                                        const FitBuffers<T>& buffers, const char* name,
                                        PhaseCosts* costs) {
  std::unique_ptr<FitData<T>> fit_data;
  if (p.coreset_size > 0) {
    CoresetStats cs;
    fit_data = std::make_unique<FitData<T>>(data, p.coreset_size, p.run, buffers.coreset_indices,
                                            buffers.coreset_weights, &cs);
    *costs += cs;
    log_line(p.run.log, "%s coreset: %lld of %lld points (%.2f s)", name,
             static_cast<long long>(p.coreset_size), static_cast<long long>(data.n),
             cs.timings.coreset);
  } else {
    fit_data = std::make_unique<FitData<T>>(data);
  }
  if (p.seeding.method == SeedingMethod::given) {
    std::memcpy(buffers.centers, buffers.init_centers, sizeof(T) * p.n_clusters * data.d);
  } else {
    const SeedingStats ss =
        seed_centers(fit_data->view(), p.n_clusters, p.seeding, p.run, buffers.centers);
    *costs += ss;
    log_line(p.run.log, "%s seeding: %s, %lld centers (%.2f s)", name,
             p.seeding.method == SeedingMethod::afkmc2 ? "AFK-MC2" : "k-means++",
             static_cast<long long>(p.n_clusters), ss.timings.seeding);
  }
  return fit_data;
}

/// The stage after the iterations: exact labels and the quantization error
/// of all points, when asked for (p.evaluate, or a labels buffer); its own
/// phase, not algorithm cost. Returns the inertia, NaN when not evaluated.
template <typename T>
double evaluate_fit(const DataView<T>& data, const PipelineParams& p, const FitBuffers<T>& buffers,
                    const char* name, PhaseCosts* costs) {
  if (!p.evaluate && !buffers.labels) return NAN;
  Stopwatch clock;
  std::int32_t* labels = buffers.labels;
  if (labels) std::fill(labels, labels + data.n, -1);
  const double q = detail::assign_nearest(data, buffers.centers, p.n_clusters, labels, nullptr,
                                          p.run.n_threads)
                       .objective;
  costs->n_distance_evals.evaluation = data.n * p.n_clusters;
  costs->timings.evaluation = clock.seconds();
  log_line(p.run.log, "%s evaluation: quantization error (inertia) %.8g on %lld points (%.2f s)",
           name, q, static_cast<long long>(data.n), costs->timings.evaluation);
  return q;
}

/// A whole pipeline around `iterate`: coreset and seeding (prepare_fit),
/// then `result = iterate(points to fit)` -- the algorithm's own iterations,
/// starting from buffers.centers and leaving the final centers there, with
/// its result type's `iterations` phase filled -- then the evaluation on all
/// points (evaluate_fit). The phases' costs are added to the result. The
/// points to fit (a coreset copy) are released before the evaluation.
template <typename Result, typename T, typename Iterate>
Result run_pipeline(const DataView<T>& data, const PipelineParams& p, const FitBuffers<T>& buffers,
                    const char* name, Iterate&& iterate) {
  PhaseCosts stages;
  Result result;
  {
    const std::unique_ptr<FitData<T>> fit_data = prepare_fit(data, p, buffers, name, &stages);
    iterate(fit_data->view(), &result);
  }
  result.inertia = evaluate_fit(data, p, buffers, name, &stages);
  result += stages;
  return result;
}

}  // namespace detail
}  // namespace vcgmm
