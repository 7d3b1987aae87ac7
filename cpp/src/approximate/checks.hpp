// Internal: argument checks of approximate assignment (both indexes).
#pragma once

#include <string>

#include "detail/validation.hpp"
#include "vcgmm/approximate_assignment.hpp"

namespace vcgmm {
namespace detail {

/// The parameters both methods share (and the method's name).
inline void require_approximate_params(const ApproximateAssignmentParams& params,
                                       const char* where) {
  const std::string w(where);
  require(params.method == ApproximateMethod::gemm || params.method == ApproximateMethod::graph,
          w + ": unknown method");
  require(params.graph_degree >= 1, w + ": graph_degree must be >= 1");
  require(params.n_starts >= 1, w + ": n_starts must be >= 1");
  require(params.beam_width >= 1, w + ": beam_width must be >= 1");
  require(params.coarse_size >= 0, w + ": coarse_size must be >= 0");
  require(params.n_probe >= 1, w + ": n_probe must be >= 1");
  require(params.probe_ratio >= 1.0,  // NaN fails too
          w + ": probe_ratio must be >= 1 (or infinity)");
  require(params.coarse_iter >= 0, w + ": coarse_iter must be >= 0");
  require(params.screen_dims >= -1, w + ": screen_dims must be >= -1 (-1: automatic, 0: off)");
}

/// The query checks both indexes' assign() make: X valid (zero weights
/// allowed) and as wide as the centers.
template <typename T>
void require_query(const DataView<T>& data, index_t d, const char* where) {
  require_data(data, where, /*allow_zero_weights=*/true);
  require(data.d == d, std::string(where) + ": X has " + std::to_string(data.d) +
                           " columns, the centers " + std::to_string(d));
}

}  // namespace detail
}  // namespace vcgmm
