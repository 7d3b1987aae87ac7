// Internal: argument checks of the vc-GMM family (variational EM).
#pragma once

#include <cmath>
#include <string>

#include "detail/validation.hpp"
#include "vcgmm/variational_gmm.hpp"

namespace vcgmm {
namespace detail {

inline void require_variational_params(const VariationalGmmParams& p, const char* where) {
  const std::string w(where);
  require(p.G >= 1, w + ": G must be >= 1");
  require(p.n_init_estep >= 0, w + ": n_init_estep must be >= 0");
  require(p.shared_m_steps >= 0, w + ": shared_m_steps must be >= 0");
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

}  // namespace detail
}  // namespace vcgmm
