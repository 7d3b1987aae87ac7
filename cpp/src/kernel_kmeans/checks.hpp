// Internal: argument checks of the kernel k-means family.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "detail/parallel.hpp"
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

/// Largest squared norm of the rows, in double (0 for no rows).
template <typename T>
double max_squared_norm(const T* x, index_t n, index_t d, int n_threads) {
  std::vector<double> part(n_chunks(n, kStreamChunk), 0.0);
  parallel_for(static_cast<index_t>(part.size()), n_threads, [&](index_t t) {
    const index_t r1 = std::min(n, (t + 1) * kStreamChunk);
    for (index_t i = t * kStreamChunk; i < r1; ++i) {
      double s = 0.0;
      for (index_t c = 0; c < d; ++c) s += static_cast<double>(x[i * d + c]) * x[i * d + c];
      part[t] = std::max(part[t], s);
    }
  }, 2.0 * kStreamChunk * d);
  return part.empty() ? 0.0 : *std::max_element(part.begin(), part.end());
}

/// Polynomial and linear kernel values are computed in T: refuse a kernel
/// whose values can come near T's overflow. By Cauchy-Schwarz they are at
/// most (gamma max||x||^2 + |coef0|)^degree in magnitude; the margin covers
/// the sums K(x,x) - 2 <phi(x), C> + <C, C> over convex weights. Compared in
/// the log domain, so the test itself cannot overflow.
template <typename T>
void require_kernel_range(const KernelParams& k, double max_sq_norm, const std::string& w) {
  if (k.type != KernelType::polynomial && k.type != KernelType::linear) return;
  const bool poly = k.type == KernelType::polynomial;
  const double base = poly ? k.gamma * max_sq_norm + std::abs(k.coef0) : max_sq_norm;
  const double degree = poly ? static_cast<double>(k.degree) : 1.0;
  const double log10_bound = degree * std::log10(base);
  const double log10_limit = std::log10(static_cast<double>(std::numeric_limits<T>::max()) / 64.0);
  if (log10_bound <= log10_limit) return;  // also false for NaN
  char msg[640];
  const char* type = sizeof(T) == 4 ? "float32" : "float64";
  if (poly) {
    std::snprintf(msg, sizeof msg,
                  ": the polynomial kernel (gamma <x, y> + coef0)^degree reaches about 1e%.0f "
                  "on these data (gamma %.4g, coef0 %.4g, degree %d, largest ||x||^2 %.4g), "
                  "beyond what %s holds (about 1e%.0f, with a margin of 64): rescale X (e.g. "
                  "divide it by its largest norm), lower gamma or degree%s",
                  log10_bound, k.gamma, k.coef0, k.degree, max_sq_norm, type, log10_limit,
                  sizeof(T) == 4 ? ", or use float64" : "");
  } else {
    std::snprintf(msg, sizeof msg,
                  ": the linear kernel <x, y> reaches about 1e%.0f on these data (largest "
                  "||x||^2 %.4g), beyond what %s holds (about 1e%.0f, with a margin of 64): "
                  "rescale X%s",
                  log10_bound, max_sq_norm, type, log10_limit,
                  sizeof(T) == 4 ? ", or use float64" : "");
  }
  invalid_argument(w + msg);
}

/// X of kernel k-means: weights (if any) finite and > 0; square for a
/// precomputed kernel.
template <typename T>
void require_kernel_data(const DataView<T>& data, const KernelParams& k, const std::string& w) {
  require_data(data, w.c_str());
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
