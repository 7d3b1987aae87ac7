#include "vcgmm/assignment.hpp"

#include <vector>

#include "blocked_distances.hpp"
#include "parallel.hpp"
#include "validation.hpp"

namespace vcgmm {

template <typename T>
AssignmentStats assign_nearest(const DataView<T>& data, const T* centers, index_t n_centers,
                               std::int32_t* labels, double* min_d2, int n_threads) {
  detail::require_data(data, "assign_nearest");
  detail::require_centers(centers, n_centers, "assign_nearest");
  using Tiles = detail::CenterTiles<T>;
  const Tiles tiles(centers, n_centers, data.d);
  const index_t n_tasks = detail::n_chunks(data.n, Tiles::kRowBlock);
  std::vector<double> task_objective(n_tasks, 0.0);
  std::vector<index_t> task_changed(n_tasks, 0);

  detail::parallel_for(n_tasks, n_threads, [&](index_t task) {
    const index_t r0 = task * Tiles::kRowBlock;
    const index_t nrows = std::min(Tiles::kRowBlock, data.n - r0);
    thread_local std::vector<detail::NearestCandidates<T>> near(Tiles::kRowBlock);
    T xs2[Tiles::kRowBlock];
    bool started = false;
    tiles.for_each_tile(data.row(r0), nrows, [&](index_t j0, index_t ncols, const T* p, index_t ld) {
      if (!started) {
        for (index_t i = 0; i < nrows; ++i) near[i].reset(tiles, data.row(r0 + i), 1, xs2[i]);
        started = true;
      }
      for (index_t i = 0; i < nrows; ++i) near[i].offer(j0, p + i * ld, ncols);
    }, xs2);
    double objective = 0.0;
    index_t changed = 0;
    for (index_t i = 0; i < nrows; ++i) {
      const index_t row = r0 + i;
      double d2 = 0.0;
      std::int32_t best = 0;
      near[i].resolve(&best, &d2);
      objective += data.weight(row) * d2;
      if (min_d2) min_d2[row] = d2;
      if (labels) {
        changed += labels[row] != best;
        labels[row] = best;
      }
    }
    task_objective[task] = objective;
    task_changed[task] = changed;
  }, 2.0 * Tiles::kRowBlock * n_centers * data.d);

  AssignmentStats stats;
  for (index_t t = 0; t < n_tasks; ++t) {
    stats.objective += task_objective[t];
    stats.n_changed += task_changed[t];
  }
  return stats;
}

template <typename T>
double quantization_error(const DataView<T>& data, const T* centers, index_t n_centers,
                          int n_threads) {
  return assign_nearest(data, centers, n_centers, nullptr, nullptr, n_threads).objective;
}

template AssignmentStats assign_nearest<float>(const DataView<float>&, const float*, index_t,
                                               std::int32_t*, double*, int);
template AssignmentStats assign_nearest<double>(const DataView<double>&, const double*, index_t,
                                                std::int32_t*, double*, int);
template double quantization_error<float>(const DataView<float>&, const float*, index_t, int);
template double quantization_error<double>(const DataView<double>&, const double*, index_t, int);

}  // namespace vcgmm
