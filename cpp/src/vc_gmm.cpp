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
  const char* name = params.coreset_size > 0 ? "vc-GMM" : "var-GMM-S";
  const detail::StageSettings stages{name,          params.n_components, params.coreset_size,
                                     params.init,   params.chain_length, params.n_local_trials,
                                     params.seed,   params.n_threads,    &params.log};
  detail::require_stage_settings(data, stages, init_means, means);
  // Checked up front so that bad parameters never waste a coreset or a seeding.
  detail::require(params.G >= 1, "fit_vcgmm: G must be >= 1");
  detail::require(params.n_init_estep >= 0, "fit_vcgmm: n_init_estep must be >= 0");
  detail::require(params.max_iter >= 1, "fit_vcgmm: max_iter must be >= 1");
  detail::require(params.tol >= 0.0 && std::isfinite(params.tol), "fit_vcgmm: tol must be >= 0");
  const index_t C = params.n_components, d = data.d;
  VcgmmResult result;
  std::unique_ptr<detail::FitData<T>> fit_data =
      detail::prepare_fit(data, stages, init_means, means, coreset_indices, coreset_weights,
                          &result.n_distance_evals, &result.seconds);
  const DataView<T>& fit = fit_data->view();

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

  result.inertia = (params.evaluate || labels)
                       ? detail::evaluate_fit(data, stages, means, labels,
                                              &result.n_distance_evals, &result.seconds)
                       : NAN;
  return result;
}

template VcgmmResult fit_vcgmm<float>(const DataView<float>&, const VcgmmParams&, const float*,
                                      float*, std::int32_t*, index_t*, double*);
template VcgmmResult fit_vcgmm<double>(const DataView<double>&, const VcgmmParams&,
                                       const double*, double*, std::int32_t*, index_t*, double*);

}  // namespace vcgmm
