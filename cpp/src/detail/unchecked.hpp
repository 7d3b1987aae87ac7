// Internal: the building blocks without argument checks.
//
// Every public entry point checks its arguments once and then calls its
// counterpart here; pipelines and algorithms that call building blocks on
// arguments they have already checked call these directly, so no check (and
// no O(n) scan of the weights) runs twice in one fit. Defined and explicitly
// instantiated (float, double) in each building block's .cpp file.
#pragma once

#include <cstdint>

#include "vcgmm/afkmc2.hpp"
#include "vcgmm/common.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"
#include "vcgmm/lloyd.hpp"

namespace vcgmm {
namespace detail {

template <typename T>
CoresetStats lightweight_coreset(const DataView<T>& data, index_t coreset_size,
                                 const RunOptions& run, index_t* indices, double* weights);

template <typename T>
SeedingStats kmeans_plusplus(const DataView<T>& data, index_t n_clusters,
                             const KMeansPlusPlusParams& params, const RunOptions& run,
                             T* centers, index_t* indices);

template <typename T>
SeedingStats afkmc2(const DataView<T>& data, index_t n_clusters, const Afkmc2Params& params,
                    const RunOptions& run, T* centers, index_t* indices);

/// `last_labels`, when given, receives the last iteration's labels (n
/// values, against the centers before their last update): a start near the
/// final centers' labels for the pipeline's evaluation.
template <typename T>
LloydResult lloyd(const DataView<T>& data, index_t n_clusters, const LloydParams& params,
                  const RunOptions& run, T* centers,
                  std::vector<std::int32_t>* last_labels = nullptr);

}  // namespace detail
}  // namespace vcgmm
