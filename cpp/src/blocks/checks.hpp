// Internal: argument checks of the building blocks every pipeline runs
// (coreset, seeding).
#pragma once

#include <string>

#include "detail/validation.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm {
namespace detail {

inline void require_kmeans_plusplus_params(const KMeansPlusPlusParams& p, const char* where) {
  require(p.n_local_trials >= 0, std::string(where) + ": n_local_trials must be >= 1 (or 0: 2 + ln C)");
}

/// The chain; screen_dims depends on d and is checked by afkmc2() itself.
inline void require_afkmc2_params(const Afkmc2Params& p, const char* where) {
  require(p.chain_length >= 1, std::string(where) + ": chain_length must be >= 1");
}

/// The checks every pipeline makes before spending work on a coreset or a
/// seeding (the iterations' own parameters are checked by the pipeline too).
template <typename T>
void require_pipeline(const DataView<T>& data, const PipelineParams& p,
                      const FitBuffers<T>& buffers, const char* where) {
  const std::string w(where);
  require_data(data, where);
  require_clusters(p.n_clusters, data.n, where);
  require(buffers.centers != nullptr, w + ": the output centers are a null pointer");
  require(p.coreset_size == 0 || p.coreset_size >= p.n_clusters,
          w + ": coreset_size must be 0 (all points) or >= the number of clusters");
  require(p.seeding.method != SeedingMethod::given || buffers.init_centers != nullptr,
          w + ": seeding.method == given needs init_centers (the initial centers)");
  require_afkmc2_params(p.seeding.afkmc2, where);
  require_kmeans_plusplus_params(p.seeding.kmeans_plusplus, where);
}

}  // namespace detail
}  // namespace vcgmm
