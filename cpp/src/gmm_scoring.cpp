#include "vcgmm/gmm_scoring.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "detail/blocked_scan.hpp"
#include "detail/gaussian.hpp"
#include "detail/validation.hpp"

namespace vcgmm {

namespace {

template <typename T>
void require_scoring_args(const DataView<T>& data, const T* means, index_t C, double sigma2,
                          const char* where) {
  detail::require_data(data, where);
  detail::require_centers(means, C, where);
  detail::require(std::isfinite(sigma2) && sigma2 > 0.0,
                  std::string(where) + ": sigma2 must be finite and > 0");
}

/// log p(x) by one pass over the tiles with an online log-sum-exp: per row
/// the running minimum partial distance pmin and sum_c exp(-(p_c - pmin) /
/// (2 sigma^2)), rescaled whenever pmin drops. The nearest mean's distance is
/// then recomputed exactly for the leading term.
template <typename T>
struct LogLikelihoodHandler {
  using Partial = detail::NoPartial;
  struct Block {
    double sum[detail::CenterTiles<T>::kMaxRowBlock] = {};
  };
  static constexpr bool kVisitsTiles = true;

  double scale;     // 1 / (2 sigma^2)
  double log_norm;  // log C + D/2 log(2 pi sigma^2)
  double* out;

  void tile(Block& b, index_t, index_t i, index_t, const T* p, index_t n, T before,
            T after) const {
    const double pmin = static_cast<double>(after);
    if (after < before && b.sum[i] > 0.0) {
      b.sum[i] *= std::exp(-(static_cast<double>(before) - pmin) * scale);
    }
    double s = 0.0;
    for (index_t j = 0; j < n; ++j) s += std::exp(-(static_cast<double>(p[j]) - pmin) * scale);
    b.sum[i] += s;
  }
  void row(Block& b, Partial&, index_t row, index_t i, const std::int32_t*, const double* d2,
           int) const {
    out[row] = -d2[0] * scale + std::log(b.sum[i]) - log_norm;
  }
};

/// The k nearest means and their posteriors renormalized over those k.
template <typename T>
struct TruncatedPosteriorHandler {
  using Partial = detail::NoPartial;
  using Block = detail::NoBlock;
  static constexpr bool kVisitsTiles = false;

  double scale;
  int k;
  std::int32_t* indices;
  double* responsibilities;

  void row(Block&, Partial&, index_t row, index_t, const std::int32_t* idx, const double* d2,
           int) const {
    std::int32_t* out_idx = indices + row * k;
    double* resp = responsibilities + row * k;
    double s = 0.0;
    for (int g = 0; g < k; ++g) {
      out_idx[g] = idx[g];
      resp[g] = std::exp(-(d2[g] - d2[0]) * scale);
      s += resp[g];
    }
    for (int g = 0; g < k; ++g) resp[g] /= s;
  }
};

}  // namespace

template <typename T>
void gmm_log_likelihood(const DataView<T>& data, const T* means, index_t C, double sigma2,
                        double* out, int n_threads) {
  require_scoring_args(data, means, C, sigma2, "gmm_log_likelihood");
  detail::require(out != nullptr, "gmm_log_likelihood: out is a null pointer");
  const detail::CenterTiles<T> tiles(means, C, data.d);
  const LogLikelihoodHandler<T> handler{0.5 / sigma2,
                                        detail::log_gaussian_normaliser(C, data.d, sigma2), out};
  detail::scan_nearest(data, tiles, 1, handler, n_threads, 2.0 * (data.d + 10));
}

template <typename T>
void gmm_truncated_posteriors(const DataView<T>& data, const T* means, index_t C, double sigma2,
                              int k, std::int32_t* indices, double* responsibilities,
                              int n_threads) {
  require_scoring_args(data, means, C, sigma2, "gmm_truncated_posteriors");
  detail::require(k >= 1 && k <= C, "gmm_truncated_posteriors: k must be in [1, n_components]");
  detail::require(indices != nullptr && responsibilities != nullptr,
                  "gmm_truncated_posteriors: output is a null pointer");
  const detail::CenterTiles<T> tiles(means, C, data.d);
  const TruncatedPosteriorHandler<T> handler{0.5 / sigma2, k, indices, responsibilities};
  detail::scan_nearest(data, tiles, k, handler, n_threads, 2.0 * (data.d + 2));
}

template void gmm_log_likelihood<float>(const DataView<float>&, const float*, index_t, double,
                                        double*, int);
template void gmm_log_likelihood<double>(const DataView<double>&, const double*, index_t, double,
                                         double*, int);
template void gmm_truncated_posteriors<float>(const DataView<float>&, const float*, index_t, double,
                                              int, std::int32_t*, double*, int);
template void gmm_truncated_posteriors<double>(const DataView<double>&, const double*, index_t,
                                               double, int, std::int32_t*, double*, int);

}  // namespace vcgmm
