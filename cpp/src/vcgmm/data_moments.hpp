// Internal (variational loop): the moments of the (weighted) data the M-step
// and the sigma^2 floor need, computed once per loop.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/weighted_moments.hpp"

namespace vcgmm {
namespace detail {

struct DataMoments {
  double w_total = 0.0;       // sum of the weights
  Vector<double> ybar;        // (D,) weighted mean
  std::vector<double> yc2;    // (N,) ||y_n - ybar||^2
  double sigma2_floor = 0.0;  // smallest sigma^2 the loop allows
  double variance = 0.0;      // weighted variance per feature, sum w ||y - ybar||^2 / (D sum w)
};

/// Weighted mean, ||y - ybar||^2 (for the M-step's variance) and the floor of
/// sigma^2 relative to the data variance.
template <typename T>
DataMoments data_moments(const DataView<T>& data, int n_threads) {
  const index_t N = data.n, D = data.d;
  WeightedMean mean = weighted_mean(data, n_threads);
  DataMoments m;
  m.w_total = mean.w_total;
  m.ybar = std::move(mean.mean);
  m.yc2.resize(N);
  const index_t n_tasks = n_chunks(N, kStreamChunk);
  std::vector<double> part_var(n_tasks);
  parallel_for(n_tasks, n_threads, [&](index_t t) {
    const index_t r0 = t * kStreamChunk, r1 = std::min(N, r0 + kStreamChunk);
    double s = 0.0;
    for (index_t i = r0; i < r1; ++i) {
      m.yc2[i] = (ConstVectorMap<T>(data.row(i), D).template cast<double>() - m.ybar).squaredNorm();
      s += data.weight(i) * m.yc2[i];
    }
    part_var[t] = s;
  }, 3.0 * kStreamChunk * D);
  double var = 0.0;
  for (double s : part_var) var += s;
  var /= (m.w_total * static_cast<double>(D));
  // sigma^2 floor: 1e-12 of the data variance, but not below the squared
  // resolution of T at the data's magnitude (a variance smaller than that
  // is rounding noise; this keeps degenerate, e.g. constant, data finite).
  const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
  const double mean_square = var + m.ybar.squaredNorm() / static_cast<double>(D);
  m.sigma2_floor = std::max({1e-12 * var, (16.0 * eps) * (16.0 * eps) * mean_square, 1e-300});
  m.variance = var;
  return m;
}

}  // namespace detail
}  // namespace vcgmm
