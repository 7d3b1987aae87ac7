// Internal: the one blocked scan of points against all centers.
//
// Every exact pass over (points x all centers) goes through scan_nearest:
// assignment and the quantization error, Lloyd, the pipelines' evaluation,
// the GMM's log-likelihood and top-k posteriors, and every later algorithm
// that needs all C distances of some points. It owns what those passes share
// (the model is faiss' exhaustive_L2sqr_blas with its result handlers):
//
//  - the tiling: tasks of CenterTiles::row_block() consecutive rows (fixed
//    boundaries, see the determinism contract in parallel.hpp), one matrix
//    product per (row block, center tile);
//  - the per-row candidates: the exact k nearest centers of every row
//    (NearestCandidates, robust to the expansion's rounding), kept in
//    thread-local storage reused across calls;
//  - the ordered reduction: every task accumulates into its own Partial, and
//    the partials are added in task order after the parallel region, so the
//    result does not depend on the thread count.
//
// A handler says what to do with the rows. It provides
//
//   struct Partial { Partial& operator+=(const Partial&); };  // per-task sums
//   struct Block { ... };        // per-task scratch (default-constructible)
//   static constexpr bool kVisitsTiles;
//   void tile(Block&, index_t row, index_t i, index_t j0, const T* p, index_t n,
//             T best_before, T best_after) const;   // only if kVisitsTiles
//   void row(Block&, Partial&, index_t row, index_t i, const std::int32_t* idx,
//            const double* d2, int found) const;
//
// where `tile` sees row `row` of the data (row i of its block) against
// centers [j0, j0 + n) as
// partial distances p (see CenterTiles) with the smallest partial distance of
// the row before and after this tile, and `row` receives the row's k nearest
// centers (nearest first; ties: lowest index) and their exact squared
// distances in double. Handlers write only row-indexed outputs, their Block
// and their Partial.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "detail/center_tiles.hpp"
#include "detail/nearest_candidates.hpp"
#include "detail/parallel.hpp"

namespace vcgmm {
namespace detail {

/// The scan of scan_nearest over `n_rows` rows: row i of the scan is data
/// row rows[i], or row i itself when `rows` is nullptr (then read in place).
/// Tasks are blocks of row_block() consecutive scan rows; the handler sees
/// data row indices.
template <typename T, class Handler>
typename Handler::Partial scan_nearest_rows(const DataView<T>& data, const index_t* rows,
                                            index_t n_rows, const CenterTiles<T>& tiles, int k,
                                            const Handler& handler, int n_threads,
                                            double flops_per_pair) {
  using Partial = typename Handler::Partial;
  constexpr index_t kMaxRowBlock = CenterTiles<T>::kMaxRowBlock;
  const index_t row_block = tiles.row_block();
  const index_t n_tasks = n_chunks(n_rows, row_block);
  std::vector<Partial> partials(n_tasks);
  const auto row_of = [rows](index_t i) { return rows ? rows[i] : i; };

  parallel_for(n_tasks, n_threads, [&](index_t task) {
    const index_t r0 = task * row_block;
    const index_t nrows = std::min(row_block, n_rows - r0);
    thread_local std::vector<NearestCandidates<T>> near(kMaxRowBlock);
    thread_local std::vector<std::int32_t> idx;
    thread_local std::vector<double> d2;
    T xs2[kMaxRowBlock];
    typename Handler::Block block{};
    bool started = false;
    const auto visit = [&](index_t j0, index_t ncols, const T* p, index_t ld) {
      check_interrupt_in_task();  // one task scans all centers: long when they are many
      if (!started) {  // xs2 is known once the first tile is computed
        for (index_t i = 0; i < nrows; ++i) {
          near[i].reset(tiles, data.row(row_of(r0 + i)), k, xs2[i]);
        }
        started = true;
      }
      for (index_t i = 0; i < nrows; ++i) {
        const T* row = p + i * ld;
        if constexpr (Handler::kVisitsTiles) {
          const T before = near[i].best();
          near[i].offer(j0, row, ncols);
          handler.tile(block, row_of(r0 + i), i, j0, row, ncols, before, near[i].best());
        } else {
          near[i].offer(j0, row, ncols);
        }
      }
    };
    if (rows) {
      tiles.for_each_tile_of([&](index_t i) { return data.row(rows[r0 + i]); }, nrows, visit,
                             xs2);
    } else {
      tiles.for_each_tile(data.row(r0), nrows, visit, xs2);
    }
    idx.resize(k);
    d2.resize(k);
    Partial partial{};  // stored once: the tasks' slots share cache lines
    for (index_t i = 0; i < nrows; ++i) {
      // many candidates per row are ranked in double: worth a check each
      if (k > NearestCandidates<T>::kEagerMaxK) check_interrupt_in_task();
      const int found = near[i].resolve(idx.data(), d2.data());
      handler.row(block, partial, row_of(r0 + i), i, idx.data(), d2.data(), found);
    }
    partials[task] = partial;
  }, flops_per_pair * static_cast<double>(row_block) * static_cast<double>(tiles.size()));

  Partial total{};
  for (const Partial& p : partials) total += p;
  return total;
}

/// Scans every row of `data` against all centers of `tiles`, keeping the k
/// nearest (1 <= k <= number of centers); returns the handler's partials
/// summed in task order. `flops_per_pair` is the work per (row, center) pair
/// (2 d for the product, plus what the handler adds), for the thread count.
template <typename T, class Handler>
typename Handler::Partial scan_nearest(const DataView<T>& data, const CenterTiles<T>& tiles, int k,
                                       const Handler& handler, int n_threads,
                                       double flops_per_pair) {
  return scan_nearest_rows(data, static_cast<const index_t*>(nullptr), data.n, tiles, k, handler,
                           n_threads, flops_per_pair);
}

/// A Partial for handlers that reduce nothing.
struct NoPartial {
  NoPartial& operator+=(const NoPartial&) { return *this; }
};

/// A Block for handlers that need no per-task scratch.
struct NoBlock {};

}  // namespace detail
}  // namespace vcgmm
