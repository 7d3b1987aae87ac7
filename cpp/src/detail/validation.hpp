// Internal: precondition checks of the public entry points. They throw
// vcgmm::InvalidArgument with a message naming the argument; the Python layer
// validates first with friendlier messages, so these guard C++ callers.
// Each public entry point runs them once; the detail:: kernels it calls do
// not (see unchecked.hpp). Here: the generic checks (data, centers, cluster
// count). Each params struct has one checker in its family's checks.hpp
// (blocks/, kmeans/, vcgmm/, stochastic/, kernel_kmeans/, approximate/),
// used by its building block and by every pipeline that embeds it.
#pragma once

#include <cmath>
#include <string>

#include "vcgmm/common.hpp"

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

}  // namespace detail
}  // namespace vcgmm
