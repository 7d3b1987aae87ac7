// Internal: the normaliser of the isotropic, equal-weight Gaussian mixture of
// vc-GMM (000_bd19523839359b5b.txt, eq. 1 and 10), shared by the variational
// loop and the exact scoring.
#pragma once

#include <cmath>

#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

constexpr double kPi = 3.14159265358979323846;

/// log C + D/2 log(2 pi sigma^2): minus the log of the weight-times-normaliser
/// of one component, 1/C (2 pi sigma^2)^(-D/2).
inline double log_gaussian_normaliser(index_t n_components, index_t d, double sigma2) {
  return std::log(static_cast<double>(n_components)) +
         0.5 * static_cast<double>(d) * std::log(2.0 * kPi * sigma2);
}

}  // namespace detail
}  // namespace vcgmm
