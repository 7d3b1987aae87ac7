// Internal: argument checks of the k-means family (Lloyd).
#pragma once

#include <cmath>
#include <string>

#include "detail/validation.hpp"
#include "vcgmm/lloyd.hpp"

namespace vcgmm {
namespace detail {

inline void require_lloyd_params(const LloydParams& p, const char* where) {
  const std::string w(where);
  require(p.max_iter >= 1, w + ": max_iter must be >= 1");
  require(p.tol >= 0.0 && std::isfinite(p.tol), w + ": tol must be >= 0");
}

}  // namespace detail
}  // namespace vcgmm
