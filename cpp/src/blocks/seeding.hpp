// Internal: what the seedings (k-means++, AFK-MC^2) share: taking a row as a
// center, the pass of weighted squared distances to one new center, the
// timed frame of a run, and their explicit instantiations.
#pragma once

#include <algorithm>
#include <cstring>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

/// Center k <- row `row` of the data (and indices[k] <- row, when given).
template <typename T>
void take_center(const DataView<T>& data, index_t k, index_t row, T* centers, index_t* indices) {
  std::memcpy(centers + k * data.d, data.row(row), sizeof(T) * data.d);
  if (indices) indices[k] = row;
}

/// One pass over the rows in chunks of `chunk` rows (one task each):
/// d_i = d^2(x_i, c) in double, handed to keep(i, d_i), which stores it and
/// returns the row's distance to weigh; chunk_sums[t] = the sum over chunk t
/// of w_i keep(i, d_i), in row order. Counts n seeding evaluations.
template <typename T, typename Keep>
void center_distance_pass(const DataView<T>& data, const T* c, index_t chunk, int n_threads,
                          double* chunk_sums, Keep&& keep, SeedingStats* stats) {
  const index_t n = data.n, d = data.d;
  parallel_for(n_chunks(n, chunk), n_threads, [&](index_t t) {
    const index_t r0 = t * chunk, r1 = std::min(n, r0 + chunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      const double di = static_cast<double>(squared_distance(data.row(i), c, d));
      s += data.weight(i) * keep(i, di);
    }
    chunk_sums[t] = s;
  }, 3.0 * chunk * d);
  stats->n_distance_evals.seeding += n;
}

/// Runs choose(&stats), which picks the centers and counts its evaluations,
/// and times it as phase `seeding`.
template <typename Choose>
SeedingStats timed_seeding(Choose&& choose) {
  Stopwatch clock;
  SeedingStats stats;
  choose(&stats);
  stats.timings.seeding = clock.seconds();
  return stats;
}

}  // namespace detail
}  // namespace vcgmm

/// Explicit instantiations (float, double) of the seeding `fn` with
/// parameters `Params`: the checked entry point and its detail:: counterpart.
/// Use inside namespace vcgmm.
#define VCGMM_INSTANTIATE_SEEDING_T(fn, Params, T)                                          \
  template SeedingStats fn<T>(const DataView<T>&, index_t, const Params&, const RunOptions&, \
                              T*, index_t*);                                                \
  template SeedingStats detail::fn<T>(const DataView<T>&, index_t, const Params&,           \
                                      const RunOptions&, T*, index_t*);
#define VCGMM_INSTANTIATE_SEEDING(fn, Params)      \
  VCGMM_INSTANTIATE_SEEDING_T(fn, Params, float) \
  VCGMM_INSTANTIATE_SEEDING_T(fn, Params, double)
