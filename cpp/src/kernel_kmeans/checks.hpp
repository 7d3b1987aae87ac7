// Internal: argument checks of the kernel k-means family.
#pragma once

#include <cmath>
#include <string>

#include "detail/validation.hpp"
#include "vcgmm/kernel_kmeans.hpp"

namespace vcgmm {
namespace detail {

/// Kernels with a gamma (> 0 once resolved).
inline bool uses_gamma(KernelType t) {
  return t == KernelType::rbf || t == KernelType::laplacian || t == KernelType::polynomial;
}

/// The kernel's parameters; resolved: gamma must be set (> 0) where used.
inline void require_kernel(const KernelParams& k, bool resolved, const std::string& w) {
  require(std::isfinite(k.gamma) && k.gamma >= 0.0, w + ": gamma must be >= 0 (0: auto)");
  if (resolved && uses_gamma(k.type)) {
    require(k.gamma > 0.0, w + ": gamma must be > 0 (the fitted kernel's)");
  }
  require(k.degree >= 1, w + ": degree must be >= 1");
  require(std::isfinite(k.coef0), w + ": coef0 must be finite");
}

/// X of kernel k-means: no sample weights; square for a precomputed kernel.
template <typename T>
void require_kernel_data(const DataView<T>& data, const KernelParams& k, const std::string& w) {
  require(data.n >= 1, w + ": X must have at least one row (n >= 1)");
  require(data.d >= 1, w + ": X must have at least one column (d >= 1)");
  require(data.x != nullptr, w + ": X is a null pointer");
  require(data.w == nullptr, w + ": sample weights are not supported by kernel k-means");
  if (k.type == KernelType::precomputed) {
    require(data.d == data.n, w + ": a precomputed kernel must be square (n, n), got (" +
                                  std::to_string(data.n) + ", " + std::to_string(data.d) + ")");
  }
}

/// fit_kernel_kmeans's checks: X, the kernel (gamma may still be 0: auto),
/// the params and the given initial rows (init, when not null).
template <typename T>
void require_kernel_kmeans_fit(const DataView<T>& data, const KernelKMeansParams& p,
                               const index_t* init, const std::string& w) {
  require_kernel_data(data, p.kernel, w);
  require_kernel(p.kernel, false, w);
  require_clusters(p.n_clusters, data.n, w.c_str());
  if (p.algorithm != KernelKMeansAlgorithm::full) {
    require(p.batch_size >= 1 && p.batch_size <= data.n,
            w + ": batch_size must be in [1, n] (n = " + std::to_string(data.n) + "), got " +
                std::to_string(p.batch_size));
  }
  require(p.tau >= 1, w + ": tau must be >= 1");
  require(p.max_iter >= 1, w + ": max_iter must be >= 1");
  require(std::isfinite(p.tol) && p.tol >= 0.0, w + ": tol must be >= 0");
  if (init) {
    for (index_t j = 0; j < p.n_clusters; ++j) {
      require(init[j] >= 0 && init[j] < data.n,
              w + ": init index " + std::to_string(init[j]) + " is not a row of X");
    }
  }
}

}  // namespace detail
}  // namespace vcgmm
