// Internal: the stages every one-call pipeline runs around its iterations
// (see vcgmm/pipeline.hpp): coreset, seeding, evaluation on all points.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "detail/assign.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/sampling.hpp"
#include "detail/unchecked.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm {
namespace detail {

/// Copies the rows rows[0..k) of `data` into out (k, d) and, when `data` has
/// weights and w_out is given, their weights into w_out (k,).
template <typename T>
void gather_rows(const DataView<T>& data, const index_t* rows, index_t k, int n_threads, T* out,
                 double* w_out = nullptr) {
  const index_t d = data.d;
  parallel_for(n_chunks(k, 1024), n_threads, [&](index_t t) {
    const index_t k1 = std::min(k, (t + 1) * 1024);
    for (index_t r = t * 1024; r < k1; ++r) {
      std::memcpy(out + r * d, data.row(rows[r]), sizeof(T) * d);
      if (data.w && w_out) w_out[r] = data.w[rows[r]];
    }
  }, 1024.0 * d);
}

/// Means of at least this many bytes outgrow a processor's last-level cache:
/// vc-GMM's coreset rows are then ordered by cell (coreset_locality_cells).
/// Below it the measured gains were smaller, and the order still changes
/// every fit's trajectory (docs/user_guide/performance.rst).
constexpr double kLocalityBytes = 32.0 * 1024 * 1024;

/// The cells by which vc-GMM orders its coreset's rows (FitData), 0 for none:
/// ceil(sqrt(C)) when the C means of d values of type T take at least
/// kLocalityBytes. A point's E-step and M-step touch the rows of its nearby
/// means; with the rows in coreset order those are random rows of the
/// (C, d) means, from memory when the means outgrow the cache. Consecutive
/// points of one cell share most of them.
template <typename T>
index_t coreset_locality_cells(index_t C, index_t d) {
  const double bytes = static_cast<double>(C) * static_cast<double>(d) * sizeof(T);
  if (bytes < kLocalityBytes) return 0;
  return static_cast<index_t>(std::ceil(std::sqrt(static_cast<double>(C))));
}

/// The points an algorithm is fitted on: either a view of all of X (no copy)
/// or a subset of its rows gathered into its own (size, d) array: a
/// lightweight coreset (with the coreset weights) or given rows (with their
/// sample weights).
template <typename T>
class FitData {
 public:
  /// All points of `data`, no copy.
  explicit FitData(const DataView<T>& data) : view_(data) {}

  /// A lightweight coreset of `size` points drawn from `data`; indices and
  /// weights are written to the caller's buffers when given (in the
  /// coreset's order). With `cells` > 0 the rows to fit (and their weights)
  /// are ordered by their nearest of `cells` evenly strided coreset rows
  /// (ties: the lower; a stable order within a cell; part of the coreset's
  /// cost): see coreset_locality_cells.
  FitData(const DataView<T>& data, index_t size, const RunOptions& run, index_t* indices_out,
          double* weights_out, CoresetStats* stats, index_t cells = 0)
      : indices_(indices_out ? 0 : size), weights_(size) {
    index_t* idx = indices_out ? indices_out : indices_.data();
    *stats = detail::lightweight_coreset(data, size, run, idx, weights_.data());
    if (weights_out) std::memcpy(weights_out, weights_.data(), sizeof(double) * size);
    gather(data, idx, size, run.n_threads, nullptr);
    if (cells > 0 && cells < size) order_by_cell(data, idx, cells, run.n_threads, stats);
  }

  /// The rows `rows` of `data` (with their sample weights, if any).
  FitData(const DataView<T>& data, const std::vector<index_t>& rows, int n_threads) {
    if (data.w) weights_.resize(rows.size());
    gather(data, rows.data(), static_cast<index_t>(rows.size()), n_threads,
           data.w ? weights_.data() : nullptr);
  }

  const DataView<T>& view() const { return view_; }

 private:
  // Re-gathers the coreset's rows (indices idx) ordered by cell.
  void order_by_cell(const DataView<T>& data, const index_t* idx, index_t cells, int n_threads,
                     CoresetStats* stats) {
    const Stopwatch clock;
    const index_t size = view_.n, d = view_.d;
    std::vector<T> at(static_cast<std::size_t>(cells * d));
    for (index_t a = 0; a < cells; ++a) {
      std::memcpy(at.data() + a * d, view_.row((a * size) / cells), sizeof(T) * d);
    }
    std::vector<std::int32_t> cell(static_cast<std::size_t>(size));
    detail::assign_nearest(view_, at.data(), cells, cell.data(), nullptr, n_threads);
    ClusterPartition by_cell;  // ascending within a cell: a stable order
    by_cell.build(cell.data(), size, cells);
    std::vector<index_t> rows(static_cast<std::size_t>(size));
    std::vector<double> weights(static_cast<std::size_t>(size));
    for (index_t k = 0; k < size; ++k) {
      rows[k] = idx[by_cell.order[k]];
      weights[k] = weights_[by_cell.order[k]];
    }
    weights_.swap(weights);
    gather(data, rows.data(), size, n_threads, nullptr);
    stats->n_distance_evals.coreset += size * cells;
    stats->timings.coreset += clock.seconds();
  }

  // Gathers the rows (and their sample weights into w_out, when given).
  void gather(const DataView<T>& data, const index_t* idx, index_t size, int n_threads,
              double* w_out) {
    const index_t d = data.d;
    rows_.resize(static_cast<size_t>(size * d));
    gather_rows(data, idx, size, n_threads, rows_.data(), w_out);
    view_.x = rows_.data();
    view_.n = size;
    view_.d = d;
    view_.w = weights_.empty() ? nullptr : weights_.data();
  }

  DataView<T> view_;
  std::vector<index_t> indices_;
  std::vector<double> weights_;
  std::vector<T> rows_;
};

/// The rows a pipeline's D^2 seeding (k-means++, AFK-MC^2) runs on, given
/// the points fitted; an empty list means all of them.
template <typename T>
using SeedingRows = std::function<std::vector<index_t>(const DataView<T>&)>;

/// C distinct rows of `data` drawn uniformly (SeedingMethod::random).
template <typename T>
SeedingStats random_rows(const DataView<T>& data, index_t C, const RunOptions& run, T* centers) {
  Stopwatch clock;
  const std::vector<index_t> rows = random_permutation_prefix(data.n, C, run.seed);
  for (index_t c = 0; c < C; ++c) {
    std::memcpy(centers + c * data.d, data.row(rows[c]), sizeof(T) * data.d);
  }
  SeedingStats stats;
  stats.timings.seeding = clock.seconds();
  return stats;
}

/// Seeds C centers on `data` with the chosen method (not `given`).
template <typename T>
SeedingStats seed_centers(const DataView<T>& data, index_t C, const SeedingParams& seeding,
                          const RunOptions& run, T* centers) {
  switch (resolve_seeding(seeding.method, C)) {
    case SeedingMethod::afkmc2:
      return detail::afkmc2(data, C, seeding.afkmc2, run, centers, nullptr);
    case SeedingMethod::random:
      return random_rows(data, C, run, centers);
    default:
      return detail::kmeans_plusplus(data, C, seeding.kmeans_plusplus, run, centers, nullptr);
  }
}

inline const char* seeding_name(SeedingMethod method) {
  switch (method) {
    case SeedingMethod::afkmc2: return "AFK-MC2";
    case SeedingMethod::random: return "random rows";
    case SeedingMethod::given: return "given";
    default: return "k-means++";
  }
}

/// The stages before the iterations: the coreset (if any) and the seeding
/// (unless the centers are given) into buffers.centers. Returns the points to
/// fit; adds the phases' costs to `costs`.
template <typename T>
std::unique_ptr<FitData<T>> prepare_fit(const DataView<T>& data, const PipelineParams& p,
                                        const FitBuffers<T>& buffers, const char* name,
                                        PhaseCosts* costs, const SeedingRows<T>& seeding_rows,
                                        index_t locality_cells) {
  std::unique_ptr<FitData<T>> fit_data;
  if (p.coreset_size > 0) {
    CoresetStats cs;
    fit_data = std::make_unique<FitData<T>>(data, p.coreset_size, p.run, buffers.coreset_indices,
                                            buffers.coreset_weights, &cs, locality_cells);
    *costs += cs;
    log_line(p.run.log, "%s coreset: %lld of %lld points (%.2f s)", name,
             static_cast<long long>(p.coreset_size), static_cast<long long>(data.n),
             cs.timings.coreset);
    report_progress(p.run, name, "coreset", 0, NAN, cs.timings.coreset,
                    cs.n_distance_evals.coreset);
  } else {
    fit_data = std::make_unique<FitData<T>>(data);
  }
  if (p.seeding.method == SeedingMethod::given) {
    std::memcpy(buffers.centers, buffers.init_centers, sizeof(T) * p.n_clusters * data.d);
  } else {
    const SeedingMethod method = resolve_seeding(p.seeding.method, p.n_clusters);
    const bool d2 = method == SeedingMethod::kmeans_plusplus || method == SeedingMethod::afkmc2;
    std::vector<index_t> rows;
    if (d2 && seeding_rows) rows = seeding_rows(fit_data->view());
    const std::unique_ptr<FitData<T>> sample =
        rows.empty() ? nullptr : std::make_unique<FitData<T>>(fit_data->view(), rows, p.run.n_threads);
    const DataView<T>& on = sample ? sample->view() : fit_data->view();
    const SeedingStats ss = seed_centers(on, p.n_clusters, p.seeding, p.run, buffers.centers);
    *costs += ss;
    log_line(p.run.log, "%s seeding: %s, %lld centers on %lld points (%.2f s)", name,
             seeding_name(method), static_cast<long long>(p.n_clusters),
             static_cast<long long>(on.n), ss.timings.seeding);
    report_progress(p.run, name, "seeding", 0, NAN, ss.timings.seeding,
                    ss.n_distance_evals.seeding);
  }
  return fit_data;
}

/// The stage after the iterations: exact labels and the quantization error
/// of all points, when asked for (p.evaluate, or a labels buffer); its own
/// phase, not algorithm cost. `start`, when given, holds a label of every
/// point (n values) near its nearest center (the algorithm's last assignment):
/// the same result then often costs far less (assign_nearest_from). Returns
/// the inertia, NaN when not evaluated.
template <typename T>
double evaluate_fit(const DataView<T>& data, const PipelineParams& p, const FitBuffers<T>& buffers,
                    const char* name, PhaseCosts* costs, const std::int32_t* start = nullptr) {
  if (!p.evaluate && !buffers.labels) return NAN;
  Stopwatch clock;
  std::int32_t* labels = buffers.labels;
  if (labels) std::fill(labels, labels + data.n, -1);
  AssignmentStats stats;
  std::int64_t evals = 0;
  detail::assign_nearest_from_or_scan(data, buffers.centers, p.n_clusters, start, labels,
                                      nullptr, p.run.n_threads, &stats, &evals);
  const double q = stats.objective;
  costs->n_distance_evals.evaluation = evals;
  costs->timings.evaluation = clock.seconds();
  log_line(p.run.log, "%s evaluation: quantization error (inertia) %.8g on %lld points (%.2f s)",
           name, q, static_cast<long long>(data.n), costs->timings.evaluation);
  report_progress(p.run, name, "evaluation", 0, q, costs->timings.evaluation,
                  costs->n_distance_evals.evaluation);
  return q;
}

/// A whole pipeline around `iterate`: coreset and seeding (prepare_fit; a
/// D^2 seeding runs on the rows `seeding_rows` picks, when given),
/// the coreset's rows ordered by `locality_cells` cells when > 0 (FitData),
/// then `result = iterate(points to fit)` -- the algorithm's own iterations,
/// starting from buffers.centers and leaving the final centers there, with
/// its result type's `iterations` phase filled -- then the evaluation on all
/// points (evaluate_fit, from the labels `iterate` left in *start, if
/// given). The phases' costs are added to the result. The
/// points to fit (a coreset copy) are released before the evaluation.
template <typename Result, typename T, typename Iterate>
Result run_pipeline(const DataView<T>& data, const PipelineParams& p, const FitBuffers<T>& buffers,
                    const char* name, Iterate&& iterate, const SeedingRows<T>& seeding_rows = {},
                    index_t locality_cells = 0, const std::vector<std::int32_t>* start = nullptr) {
  PhaseCosts stages;
  Result result;
  {
    const std::unique_ptr<FitData<T>> fit_data =
        prepare_fit(data, p, buffers, name, &stages, seeding_rows, locality_cells);
    iterate(fit_data->view(), &result);
  }
  const bool warm = start && static_cast<index_t>(start->size()) == data.n;
  result.inertia = evaluate_fit(data, p, buffers, name, &stages, warm ? start->data() : nullptr);
  result += stages;
  return result;
}

}  // namespace detail
}  // namespace vcgmm
