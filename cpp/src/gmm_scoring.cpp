#include "vcgmm/gmm_scoring.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "blocked_distances.hpp"
#include "parallel.hpp"
#include "validation.hpp"

namespace vcgmm {

namespace {
constexpr double kPi = 3.14159265358979323846;

void require_sigma2(double sigma2, const char* where) {
  detail::require(std::isfinite(sigma2) && sigma2 > 0.0,
                  std::string(where) + ": sigma2 must be finite and > 0");
}
}  // namespace

template <typename T>
void gmm_log_likelihood(const DataView<T>& data, const T* means, index_t C, double sigma2,
                        double* out, int n_threads) {
  detail::require_data(data, "gmm_log_likelihood");
  detail::require_centers(means, C, "gmm_log_likelihood");
  require_sigma2(sigma2, "gmm_log_likelihood");
  detail::require(out != nullptr, "gmm_log_likelihood: out is a null pointer");
  using Tiles = detail::CenterTiles<T>;
  const Tiles tiles(means, C, data.d);
  const double scale = 0.5 / sigma2;
  const double log_norm = std::log(static_cast<double>(C)) +
                          0.5 * static_cast<double>(data.d) * std::log(2.0 * kPi * sigma2);
  const index_t n_tasks = detail::n_chunks(data.n, Tiles::kRowBlock);

  detail::parallel_for(n_tasks, n_threads, [&](index_t task) {
    const index_t r0 = task * Tiles::kRowBlock;
    const index_t nrows = std::min(Tiles::kRowBlock, data.n - r0);
    // One pass over the tiles with an online log-sum-exp: per row the running
    // minimum partial distance pmin and sum_c exp(-(p_c - pmin) / (2 sigma^2)),
    // rescaled whenever pmin drops. The nearest mean's distance is then
    // recomputed exactly for the leading term.
    // One pass over the tiles with an online log-sum-exp: per row the running
    // minimum partial distance pmin and sum_c exp(-(p_c - pmin) / (2 sigma^2)),
    // rescaled whenever pmin drops. The nearest mean's distance is then
    // recomputed exactly for the leading term.
    thread_local std::vector<detail::NearestCandidates<T>> near(Tiles::kRowBlock);
    double sum[Tiles::kRowBlock];
    T xs2[Tiles::kRowBlock];
    bool started = false;
    std::fill(sum, sum + nrows, 0.0);
    tiles.for_each_tile(data.row(r0), nrows, [&](index_t j0, index_t ncols, const T* p, index_t ld) {
      if (!started) {
        for (index_t i = 0; i < nrows; ++i) near[i].reset(tiles, data.row(r0 + i), 1, xs2[i]);
        started = true;
      }
      for (index_t i = 0; i < nrows; ++i) {
        const T* row = p + i * ld;
        const T old_best = near[i].best();
        near[i].offer(j0, row, ncols);
        const double pmin = static_cast<double>(near[i].best());
        if (near[i].best() < old_best && sum[i] > 0.0) {
          sum[i] *= std::exp(-(static_cast<double>(old_best) - pmin) * scale);
        }
        double s = 0.0;
        for (index_t j = 0; j < ncols; ++j) {
          s += std::exp(-(static_cast<double>(row[j]) - pmin) * scale);
        }
        sum[i] += s;
      }
    }, xs2);
    for (index_t i = 0; i < nrows; ++i) {
      const index_t row = r0 + i;
      double dmin = 0.0;
      std::int32_t nearest = 0;
      near[i].resolve(&nearest, &dmin);
      out[row] = -dmin * scale + std::log(sum[i]) - log_norm;
    }
  }, 2.0 * Tiles::kRowBlock * C * (data.d + 10));
}

template <typename T>
void gmm_truncated_posteriors(const DataView<T>& data, const T* means, index_t C, double sigma2,
                              int k, std::int32_t* indices, double* responsibilities,
                              int n_threads) {
  detail::require_data(data, "gmm_truncated_posteriors");
  detail::require_centers(means, C, "gmm_truncated_posteriors");
  require_sigma2(sigma2, "gmm_truncated_posteriors");
  detail::require(k >= 1 && k <= C, "gmm_truncated_posteriors: k must be in [1, n_components]");
  detail::require(indices != nullptr && responsibilities != nullptr,
                  "gmm_truncated_posteriors: output is a null pointer");
  using Tiles = detail::CenterTiles<T>;
  const Tiles tiles(means, C, data.d);
  const double scale = 0.5 / sigma2;
  const index_t n_tasks = detail::n_chunks(data.n, Tiles::kRowBlock);

  detail::parallel_for(n_tasks, n_threads, [&](index_t task) {
    const index_t r0 = task * Tiles::kRowBlock;
    const index_t nrows = std::min(Tiles::kRowBlock, data.n - r0);
    thread_local std::vector<detail::NearestCandidates<T>> near(Tiles::kRowBlock);
    T xs2[Tiles::kRowBlock];
    bool started = false;
    tiles.for_each_tile(data.row(r0), nrows, [&](index_t j0, index_t ncols, const T* p, index_t ld) {
      if (!started) {
        for (index_t i = 0; i < nrows; ++i) near[i].reset(tiles, data.row(r0 + i), k, xs2[i]);
        started = true;
      }
      for (index_t i = 0; i < nrows; ++i) near[i].offer(j0, p + i * ld, ncols);
    }, xs2);
    std::vector<double> d2(k);
    for (index_t i = 0; i < nrows; ++i) {
      const index_t row = r0 + i;
      std::int32_t* idx = indices + row * k;
      double* resp = responsibilities + row * k;
      near[i].resolve(idx, d2.data());
      double s = 0.0;
      for (int g = 0; g < k; ++g) {
        resp[g] = std::exp(-(d2[g] - d2[0]) * scale);
        s += resp[g];
      }
      for (int g = 0; g < k; ++g) resp[g] /= s;
    }
  }, 2.0 * Tiles::kRowBlock * C * (data.d + 2));
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
