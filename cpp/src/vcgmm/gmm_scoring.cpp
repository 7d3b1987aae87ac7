#include "vcgmm/gmm_scoring.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

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

/// Spherical components: the energy of component c at x is
///   e_c(x) = ||x - mu_c||^2 / (2 sigma_c^2) + D/2 log(2 pi sigma_c^2) - log pi_c
///          = -log(pi_c N(x; mu_c, sigma_c^2 I)),
/// +infinity for pi_c = 0. scale_c = 1 / (2 sigma_c^2) and offset_c are
/// precomputed once per call. Tiles give partial distances p = ||x - c||^2 -
/// ||x - s||^2 (center_tiles.hpp), so a handler computes ||x - s||^2 of its
/// row exactly at the first tile (j0 == 0) and adds it back.
struct SphericalComponents {
  std::vector<double> scale, offset;

  SphericalComponents(const double* variances, const double* weights, index_t C, index_t d) {
    scale.resize(C);
    offset.resize(C);
    for (index_t c = 0; c < C; ++c) {
      scale[c] = 0.5 / variances[c];
      offset[c] = weights[c] > 0.0 ? 0.5 * static_cast<double>(d) *
                                             std::log(2.0 * detail::kPi * variances[c]) -
                                         std::log(weights[c])
                                   : std::numeric_limits<double>::infinity();
    }
  }
  double energy(double d2, index_t c) const { return d2 * scale[c] + offset[c]; }
  /// From a tile's partial distance p of a row with ||x - s||^2 = xs2.
  template <typename T>
  double tile_energy(T p, double xs2, index_t c) const {
    return energy(std::max(0.0, static_cast<double>(p) + xs2), c);
  }
  /// From the exact distance between row x and center c.
  template <typename T>
  double exact_energy(const T* x, const detail::CenterTiles<T>& tiles, index_t c) const {
    return energy(detail::squared_distance_exact(x, tiles.center(c), tiles.dim()), c);
  }
};

/// log p(x) for spherical components: one pass over the tiles with an online
/// log-sum-exp of -e_c (running minimum energy, rescaled when it drops); the
/// energy of the most probable component is then recomputed from the exact
/// distance for the leading term.
template <typename T>
struct SphericalLogLikelihoodHandler {
  using Partial = detail::NoPartial;
  static constexpr index_t kRows = detail::CenterTiles<T>::kMaxRowBlock;
  struct Block {
    double xs2[kRows] = {};
    double emin[kRows] = {};
    double sum[kRows] = {};
    std::int32_t best[kRows] = {};
  };
  static constexpr bool kVisitsTiles = true;

  const DataView<T>& data;
  const detail::CenterTiles<T>& tiles;
  const SphericalComponents& comp;
  double* out;

  void tile(Block& b, index_t row, index_t i, index_t j0, const T* p, index_t n, T, T) const {
    if (j0 == 0) {
      b.xs2[i] = tiles.row_shifted_norm2(data.row(row));
      b.emin[i] = std::numeric_limits<double>::infinity();
      b.sum[i] = 0.0;
      b.best[i] = -1;
    }
    const double xs2 = b.xs2[i];
    double emin = b.emin[i], sum = b.sum[i];
    std::int32_t best = b.best[i];
    for (index_t j = 0; j < n; ++j) {
      const index_t c = j0 + j;
      const double e = comp.tile_energy(p[j], xs2, c);
      if (e == std::numeric_limits<double>::infinity()) continue;  // pi_c = 0
      if (e < emin) {
        if (sum > 0.0) sum *= std::exp(e - emin);
        emin = e;
        best = static_cast<std::int32_t>(c);
      }
      sum += std::exp(emin - e);
    }
    b.emin[i] = emin;
    b.sum[i] = sum;
    b.best[i] = best;
  }
  void row(Block& b, Partial&, index_t row, index_t i, const std::int32_t*, const double*,
           int) const {
    out[row] = -comp.exact_energy(data.row(row), tiles, b.best[i]) + std::log(b.sum[i]);
  }
};

/// The k most probable spherical components and their posteriors
/// renormalized over those k. During the scan a row's outputs hold its k
/// lowest energies so far (sorted; ties: lowest index) by the tiles'
/// distances; at the end those k energies are recomputed from exact
/// distances, re-sorted and turned into posteriors. With k = C every
/// component is kept in index order and sorted once at the end.
template <typename T>
struct SphericalPosteriorHandler {
  using Partial = detail::NoPartial;
  static constexpr index_t kRows = detail::CenterTiles<T>::kMaxRowBlock;
  struct Block {
    double xs2[kRows] = {};
    int kept[kRows] = {};
    std::vector<std::pair<double, std::int32_t>> ranked;
  };
  static constexpr bool kVisitsTiles = true;

  const DataView<T>& data;
  const detail::CenterTiles<T>& tiles;
  const SphericalComponents& comp;
  int k;
  std::int32_t* indices;
  double* responsibilities;

  void tile(Block& b, index_t row, index_t i, index_t j0, const T* p, index_t n, T, T) const {
    if (j0 == 0) {
      b.xs2[i] = tiles.row_shifted_norm2(data.row(row));
      b.kept[i] = 0;
    }
    const double xs2 = b.xs2[i];
    std::int32_t* kn = indices + row * k;
    double* en = responsibilities + row * k;
    const index_t C = tiles.size();
    if (k == C) {  // all of them: no selection during the scan
      for (index_t j = 0; j < n; ++j) {
        kn[j0 + j] = static_cast<std::int32_t>(j0 + j);
        en[j0 + j] = comp.tile_energy(p[j], xs2, j0 + j);
      }
      return;
    }
    int kept = b.kept[i];
    for (index_t j = 0; j < n; ++j) {
      const index_t c = j0 + j;
      const double e = comp.tile_energy(p[j], xs2, c);
      // Ties go to the lower index, which came first: only a strictly lower
      // energy displaces a kept one.
      if (kept == k && !(e < en[k - 1])) continue;
      int pos = kept < k ? kept++ : k - 1;
      while (pos > 0 && e < en[pos - 1]) {
        en[pos] = en[pos - 1];
        kn[pos] = kn[pos - 1];
        --pos;
      }
      en[pos] = e;
      kn[pos] = static_cast<std::int32_t>(c);
    }
    b.kept[i] = kept;
  }
  void row(Block& b, Partial&, index_t row, index_t, const std::int32_t*, const double*,
           int) const {
    std::int32_t* kn = indices + row * k;
    double* resp = responsibilities + row * k;
    auto& ranked = b.ranked;
    ranked.clear();
    for (int g = 0; g < k; ++g) {
      const std::int32_t c = kn[g];
      ranked.emplace_back(comp.exact_energy(data.row(row), tiles, c), c);
    }
    std::sort(ranked.begin(), ranked.end());  // energy, then index
    const double e0 = ranked[0].first;
    double s = 0.0;
    for (int g = 0; g < k; ++g) {
      kn[g] = ranked[g].second;
      resp[g] = std::exp(e0 - ranked[g].first);  // 0 for pi_c = 0
      s += resp[g];
    }
    for (int g = 0; g < k; ++g) resp[g] /= s;
  }
};

template <typename T>
void require_spherical_args(const DataView<T>& data, const T* means, index_t C,
                            const double* variances, const double* weights, const char* where) {
  detail::require_data(data, where);
  detail::require_centers(means, C, where);
  const std::string w(where);
  detail::require(variances != nullptr && weights != nullptr,
                  w + ": variances or weights is a null pointer");
  double total = 0.0;
  for (index_t c = 0; c < C; ++c) {
    detail::require(std::isfinite(variances[c]) && variances[c] > 0.0,
                    w + ": every variance must be finite and > 0");
    detail::require(std::isfinite(weights[c]) && weights[c] >= 0.0,
                    w + ": every weight must be finite and >= 0");
    total += weights[c];
  }
  detail::require(std::abs(total - 1.0) <= 1e-6, w + ": the weights must sum to 1");
}

}  // namespace

template <typename T>
void gmm_log_likelihood(const DataView<T>& data, const T* means, index_t C,
                        const double* variances, const double* weights, double* out,
                        int n_threads) {
  require_spherical_args(data, means, C, variances, weights, "gmm_log_likelihood");
  detail::require(out != nullptr, "gmm_log_likelihood: out is a null pointer");
  const detail::CenterTiles<T> tiles(means, C, data.d);
  const SphericalComponents comp(variances, weights, C, data.d);
  const SphericalLogLikelihoodHandler<T> handler{data, tiles, comp, out};
  detail::scan_nearest(data, tiles, 1, handler, n_threads, 2.0 * (data.d + 12));
}

template <typename T>
void gmm_truncated_posteriors(const DataView<T>& data, const T* means, index_t C,
                              const double* variances, const double* weights, int k,
                              std::int32_t* indices, double* responsibilities, int n_threads) {
  require_spherical_args(data, means, C, variances, weights, "gmm_truncated_posteriors");
  detail::require(k >= 1 && k <= C, "gmm_truncated_posteriors: k must be in [1, n_components]");
  detail::require(indices != nullptr && responsibilities != nullptr,
                  "gmm_truncated_posteriors: output is a null pointer");
  const detail::CenterTiles<T> tiles(means, C, data.d);
  const SphericalComponents comp(variances, weights, C, data.d);
  const SphericalPosteriorHandler<T> handler{data, tiles, comp, k, indices, responsibilities};
  detail::scan_nearest(data, tiles, 1, handler, n_threads, 2.0 * (data.d + 12));
}

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
template void gmm_log_likelihood<float>(const DataView<float>&, const float*, index_t,
                                        const double*, const double*, double*, int);
template void gmm_log_likelihood<double>(const DataView<double>&, const double*, index_t,
                                         const double*, const double*, double*, int);
template void gmm_truncated_posteriors<float>(const DataView<float>&, const float*, index_t,
                                              const double*, const double*, int, std::int32_t*,
                                              double*, int);
template void gmm_truncated_posteriors<double>(const DataView<double>&, const double*, index_t,
                                               const double*, const double*, int, std::int32_t*,
                                               double*, int);

}  // namespace vcgmm
