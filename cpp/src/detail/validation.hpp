// Internal: precondition checks of the public entry points. They throw
// vcgmm::InvalidArgument with a message naming the argument; the Python layer
// validates first with friendlier messages, so these guard C++ callers.
// Each public entry point runs them once; the detail:: kernels it calls do
// not (see unchecked.hpp). Each params struct has one checker here, used by
// its building block and by every pipeline that embeds it.
#pragma once

#include <cmath>
#include <string>

#include "vcgmm/common.hpp"
#include "vcgmm/lloyd.hpp"
#include "vcgmm/minibatch.hpp"
#include "vcgmm/nested_minibatch.hpp"
#include "vcgmm/pipeline.hpp"
#include "vcgmm/variational_gmm.hpp"
#include "vcgmm/vrkm.hpp"

namespace vcgmm {
namespace detail {

[[noreturn]] inline void invalid_argument(const std::string& message) {
  throw InvalidArgument(message);
}

inline void require(bool condition, const std::string& message) {
  if (!condition) invalid_argument(message);
}

/// Shape, pointer and weight checks (weights: finite and > 0; with
/// allow_zero_weights, finite and >= 0: the evaluation entry points, where a
/// point of weight 0 only adds 0 to the objective). The fitting entry points
/// refuse zero weights: the Python layer drops those rows before fitting
/// (a point of weight 0 does not exist), see python/vcgmm/_validation.py.
/// X's values are not scanned: finiteness of X is a documented precondition.
template <typename T>
void require_data(const DataView<T>& data, const char* where, bool allow_zero_weights = false) {
  const std::string w(where);
  require(data.n >= 1, w + ": X must have at least one row (n >= 1)");
  require(data.d >= 1, w + ": X must have at least one column (d >= 1)");
  require(data.x != nullptr, w + ": X is a null pointer");
  if (data.w) {
    for (index_t i = 0; i < data.n; ++i) {
      const double wi = data.w[i];
      if (allow_zero_weights && wi == 0.0) continue;
      if (!(std::isfinite(wi) && wi > 0.0)) {
        invalid_argument(w + ": sample_weight[" + std::to_string(i) +
                         (allow_zero_weights ? "] is not a finite non-negative number"
                                             : "] is not a finite positive number"));
      }
    }
  }
}

inline void require_centers(const void* centers, index_t n_centers, const char* where) {
  const std::string w(where);
  require(n_centers >= 1, w + ": need at least one center");
  require(centers != nullptr, w + ": centers is a null pointer");
}

inline void require_clusters(index_t n_clusters, index_t n, const char* where) {
  const std::string w(where);
  require(n_clusters >= 1, w + ": n_clusters must be >= 1, got " + std::to_string(n_clusters));
  require(n_clusters <= n, w + ": n_clusters (" + std::to_string(n_clusters) +
                               ") exceeds the number of points (" + std::to_string(n) + ")");
  require(n_clusters <= 2147483647LL, w + ": n_clusters must fit in int32");
}

inline void require_lloyd_params(const LloydParams& p, const char* where) {
  const std::string w(where);
  require(p.max_iter >= 1, w + ": max_iter must be >= 1");
  require(p.tol >= 0.0 && std::isfinite(p.tol), w + ": tol must be >= 0");
}

inline void require_variational_params(const VariationalGmmParams& p, const char* where) {
  const std::string w(where);
  require(p.G >= 1, w + ": G must be >= 1");
  require(p.n_init_estep >= 0, w + ": n_init_estep must be >= 0");
  require(p.max_iter >= 1, w + ": max_iter must be >= 1");
  require(p.refine >= 0, w + ": refine must be >= 0");
  require(p.refine_search == RefineSearch::restricted ||
              p.refine_search == RefineSearch::approximate ||
              p.refine_search == RefineSearch::exact,
          w + ": refine_search must be restricted, approximate or exact");
  require(p.tol >= 0.0 && std::isfinite(p.tol), w + ": tol must be >= 0");
  require(p.covariance_type == CovarianceType::shared ||
              p.covariance_type == CovarianceType::spherical,
          w + ": covariance_type must be shared or spherical");
  require(p.variance_floor >= 0.0 && std::isfinite(p.variance_floor),
          w + ": variance_floor must be finite and >= 0");
}

/// n_fit: the points fitted (n, or the coreset size).
inline void require_mbatch_params(const MbatchParams& p, index_t n_fit, const char* where) {
  const std::string w(where);
  require(p.batch_size >= 0 && p.batch_size <= n_fit,
          w + ": batch_size must be 0 (default) or in [1, " + std::to_string(n_fit) +
              "] (the points fitted), got " + std::to_string(p.batch_size));
  require(p.max_iter >= 1, w + ": max_iter must be >= 1");
}

inline void require_nmbatch_params(const NmbatchParams& p, index_t n_fit, index_t C, const char* where) {
  const std::string w(where);
  require(p.batch_size == 0 || (p.batch_size >= C && p.batch_size <= n_fit),
          w + ": batch_size must be 0 (default) or in [n_clusters, " + std::to_string(n_fit) +
              "], got " + std::to_string(p.batch_size));
  require(p.rho > 0.0, w + ": rho must be > 0 (+infinity allowed)");
  require(p.max_iter >= 1, w + ": max_iter must be >= 1");
  require(p.time_budget >= 0.0 && std::isfinite(p.time_budget),
          w + ": time_budget must be >= 0 seconds (0: none)");
  require(p.n_groups >= 0, w + ": n_groups must be 0 (automatic) or >= 1");
  require(p.bounds_memory > 0.0, w + ": bounds_memory must be > 0 bytes");
}

inline void require_vrkm_params(const VrkmParams& p, const char* where) {
  const std::string w(where);
  require(p.learning_rate == 0.0 || (p.learning_rate > 0.0 && p.learning_rate <= 1.0),
          w + ": learning_rate must be in (0, 1] (0: C / n)");
  require(p.epoch_size >= 0, w + ": epoch_size must be >= 1 (0: n)");
  require(p.max_epochs >= 1, w + ": max_epochs must be >= 1");
  require(p.tol >= 0.0 && std::isfinite(p.tol), w + ": tol must be >= 0");
  require(p.block_size >= 1, w + ": block_size must be >= 1");
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
  require(p.seeding.afkmc2.chain_length >= 1, w + ": chain_length must be >= 1");
  require(p.seeding.kmeans_plusplus.n_local_trials >= 1, w + ": n_local_trials must be >= 1");
}

}  // namespace detail
}  // namespace vcgmm
