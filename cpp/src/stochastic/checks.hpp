// Internal: argument checks of the stochastic family (mbatch, nmbatch, VRKM).
#pragma once

#include <cmath>
#include <string>

#include "detail/validation.hpp"
#include "vcgmm/minibatch.hpp"
#include "vcgmm/nested_minibatch.hpp"
#include "vcgmm/vrkm.hpp"

namespace vcgmm {
namespace detail {

/// n_fit: the points fitted (n, or the coreset size).
inline void require_mbatch_params(const MbatchParams& p, index_t n_fit, const char* where) {
  const std::string w(where);
  require(p.batch_size >= 0 && p.batch_size <= n_fit,
          w + ": batch_size must be 0 (default) or in [1, " + std::to_string(n_fit) +
              "] (the points fitted), got " + std::to_string(p.batch_size));
  require(p.max_iter >= 1, w + ": max_iter must be >= 1");
  require(p.reassignment_ratio >= 0.0 && p.reassignment_ratio <= 1.0,
          w + ": reassignment_ratio must be in [0, 1]");
  require(p.max_no_improvement >= 0, w + ": max_no_improvement must be >= 0");
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

}  // namespace detail
}  // namespace vcgmm
