// Internal (variational loop): how many cells the first data step's index
// search probes (VariationalLoop::data_step).
//
// Where the means' cells hold each point's nearest mean (well-separated
// clusters with many means each), one probe finds the labels that more
// probes find, for a fraction of the search; where they do not (image
// patches: no separated clusters), fewer probes leave labels farther and the
// fit's error higher. Which case holds is measured, not guessed: an evenly
// spaced sample of the rows is searched with every count, and the fewest
// probes whose labels are as near as the most's on all but a small fraction
// of it are kept.
// Cost: the sample's searches, under a few percent of the step where it runs
// (rows >= kProbeSampleMinRatio x the sample). Deterministic: the sample
// depends on the row count only, and every search's result is independent
// of the threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "detail/random.hpp"
#include "vcgmm/approximate_assignment.hpp"

namespace vcgmm {
namespace detail {

/// Rows of the sample, one from each of as many equal blocks of the rows.
constexpr index_t kProbeSampleRows = 8192;
/// The sample runs on data of at least this many times its rows (below, the
/// count is max_probes).
constexpr index_t kProbeSampleMinRatio = 16;
/// A count is kept when at most this fraction of the sample gets a farther
/// label than with max_probes. Why this bound: a data step's labels only
/// move the means, and later steps relabel; it separates the blobs, where
/// one probe left the fit's error unchanged, from the image patches, where
/// it raised it (the shares measured: docs/user_guide/performance.rst).
constexpr double kProbeSampleFarther = 0.02;

/// The fewest probes (1, 2, then max_probes) for `index` to search `data`
/// with: the first count whose labels on the sample are at most as far as
/// max_probes's on all but kProbeSampleFarther of its rows. Leaves the index
/// probing max_probes; adds the sample searches' distance evaluations to
/// *evals.
template <typename T>
int fewest_agreeing_probes(const DataView<T>& data, CenterCellIndex<T>& index, int max_probes,
                           int n_threads, std::int64_t* evals) {
  const index_t N = data.n, D = data.d;
  index.set_n_probe(max_probes);
  if (N < kProbeSampleMinRatio * kProbeSampleRows || index.n_probe() <= 1) return max_probes;
  const index_t n = kProbeSampleRows;
  std::vector<T> rows(static_cast<std::size_t>(n) * D);
  // One row of each of n equal blocks, at a position hashed from the block's
  // number: evenly spread over sorted data, and not in step with a period
  // of the rows (a stride would be).
  const index_t block = N / n;
  for (index_t i = 0; i < n; ++i) {
    const index_t r = i * block + static_cast<index_t>(mix64(static_cast<std::uint64_t>(i)) %
                                                       static_cast<std::uint64_t>(block));
    std::copy_n(data.row(r), D, rows.data() + i * D);
  }
  const DataView<T> sample{rows.data(), n, D, nullptr};
  std::vector<double> most(n), d2(n);
  *evals += index.assign(sample, nullptr, most.data(), n_threads).search_distance_evals;
  int chosen = max_probes;
  for (int k = 1; k < max_probes && chosen == max_probes; k *= 2) {
    index.set_n_probe(k);
    *evals += index.assign(sample, nullptr, d2.data(), n_threads).search_distance_evals;
    index_t farther = 0;
    for (index_t i = 0; i < n; ++i) farther += d2[i] > most[i];
    if (static_cast<double>(farther) <= kProbeSampleFarther * static_cast<double>(n)) chosen = k;
  }
  index.set_n_probe(max_probes);
  return chosen;
}

}  // namespace detail
}  // namespace vcgmm
