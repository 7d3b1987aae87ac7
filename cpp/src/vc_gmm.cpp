#include "vcgmm/vc_gmm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "parallel.hpp"
#include "pipeline.hpp"
#include "validation.hpp"
#include "vcgmm/assignment.hpp"
#include "vcgmm/variational_gmm.hpp"

namespace vcgmm {

template <typename T>
VcgmmResult fit_vcgmm(const DataView<T>& data, const VcgmmParams& params,
                      const nondeduced_t<T>* init_means, nondeduced_t<T>* means,
                      std::int32_t* labels, index_t* coreset_indices,
                      double* coreset_weights) {
  detail::require_data(data, "fit_vcgmm");
  detail::require_clusters(params.n_components, data.n, "fit_vcgmm");
  detail::require(means != nullptr, "fit_vcgmm: means is a null pointer");
  detail::require(params.coreset_size == 0 || params.coreset_size >= params.n_components,
                  "fit_vcgmm: coreset_size must be 0 (var-GMM-S) or >= n_components");
  detail::require(params.init != KMeansInit::given || init_means != nullptr,
                  "fit_vcgmm: init == given needs init_means");
  // Checked up front so that bad parameters never waste a coreset or a seeding.
  detail::require(params.G >= 1, "fit_vcgmm: G must be >= 1");
  detail::require(params.n_init_estep >= 0, "fit_vcgmm: n_init_estep must be >= 0");
  detail::require(params.max_iter >= 1, "fit_vcgmm: max_iter must be >= 1");
  detail::require(params.tol >= 0.0 && std::isfinite(params.tol), "fit_vcgmm: tol must be >= 0");
  detail::require(params.chain_length >= 1, "fit_vcgmm: chain_length must be >= 1");
  detail::require(params.n_local_trials >= 1, "fit_vcgmm: n_local_trials must be >= 1");
  const index_t C = params.n_components, d = data.d;
  VcgmmResult result;
  const char* name = params.coreset_size > 0 ? "vc-GMM" : "var-GMM-S";

  std::unique_ptr<detail::FitData<T>> fit_data;
  if (params.coreset_size > 0) {
    CoresetStats cs;
    fit_data = std::make_unique<detail::FitData<T>>(data, params.coreset_size, params.seed,
                                                    params.n_threads, coreset_indices,
                                                    coreset_weights, &cs);
    result.n_distance_evals.coreset = cs.n_distance_evals;
    result.seconds.coreset = cs.seconds;
    detail::log_line(params.log, "%s coreset: %lld of %lld points (%.2f s)", name,
                     static_cast<long long>(params.coreset_size), static_cast<long long>(data.n),
                     cs.seconds);
  } else {
    fit_data = std::make_unique<detail::FitData<T>>(data);
  }
  const DataView<T>& fit = fit_data->view();

  if (params.init == KMeansInit::given) {
    std::memcpy(means, init_means, sizeof(T) * C * d);
  } else {
    const SeedingStats ss =
        detail::seed_centers(fit, params.init, C, params.chain_length, params.n_local_trials,
                             params.seed, params.n_threads, means);
    result.n_distance_evals.seeding = ss.n_distance_evals;
    result.seconds.seeding = ss.seconds;
    detail::log_line(params.log, "%s seeding: %s, %lld centers (%.2f s)", name,
                     params.init == KMeansInit::afkmc2 ? "AFK-MC2" : "k-means++",
                     static_cast<long long>(C), ss.seconds);
  }

  VariationalGmmParams vp;
  vp.G = params.G;
  vp.plus1 = params.plus1;
  vp.n_init_estep = params.n_init_estep;
  vp.tol = params.tol;
  vp.max_iter = params.max_iter;
  vp.seed = params.seed;
  vp.n_threads = params.n_threads;
  vp.log = params.log;
  {
    detail::Stopwatch clock;
    VariationalGmm<T> em(fit, C, means, vp);
    VariationalGmmResult r = em.fit();
    std::memcpy(means, em.means(), sizeof(T) * C * d);
    result.sigma2 = r.sigma2;
    result.free_energy = std::move(r.free_energy);
    result.estep_distance_evals = std::move(r.estep_distance_evals);
    result.n_iter = r.n_iter;
    result.converged = r.converged;
    result.n_distance_evals.iterations = r.n_distance_evals;
    result.seconds.iterations = clock.seconds();
  }
  fit_data.reset();

  if (params.evaluate || labels) {
    detail::Stopwatch clock;
    if (labels) std::fill(labels, labels + data.n, -1);
    result.inertia = assign_nearest(data, means, C, labels, nullptr, params.n_threads).objective;
    result.n_distance_evals.evaluation = data.n * C;
    result.seconds.evaluation = clock.seconds();
    detail::log_line(params.log, "evaluation: quantization error %.8g on %lld points (%.2f s)",
                     result.inertia, static_cast<long long>(data.n), result.seconds.evaluation);
  } else {
    result.inertia = NAN;
  }
  return result;
}

template VcgmmResult fit_vcgmm<float>(const DataView<float>&, const VcgmmParams&, const float*,
                                      float*, std::int32_t*, index_t*, double*);
template VcgmmResult fit_vcgmm<double>(const DataView<double>&, const VcgmmParams&,
                                       const double*, double*, std::int32_t*, index_t*, double*);

}  // namespace vcgmm
