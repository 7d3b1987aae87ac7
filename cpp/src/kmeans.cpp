#include "vcgmm/kmeans.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>
#include <memory>

#include "parallel.hpp"
#include "pipeline.hpp"
#include "validation.hpp"
#include "vcgmm/assignment.hpp"
#include "vcgmm/lloyd.hpp"

namespace vcgmm {

template <typename T>
KMeansResult fit_kmeans(const DataView<T>& data, const KMeansParams& params,
                        const nondeduced_t<T>* init_centers, nondeduced_t<T>* centers,
                        std::int32_t* labels, index_t* coreset_indices,
                        double* coreset_weights) {
  const detail::StageSettings stages{"k-means",           params.n_clusters,
                                     params.coreset_size, params.init,
                                     params.chain_length, params.n_local_trials,
                                     params.seed,         params.n_threads,
                                     &params.log};
  detail::require_stage_settings(data, stages, init_centers, centers);
  // Checked up front so that bad parameters never waste a coreset or a seeding.
  detail::require(params.max_iter >= 1, "fit_kmeans: max_iter must be >= 1");
  detail::require(params.tol >= 0.0 && std::isfinite(params.tol), "fit_kmeans: tol must be >= 0");
  const index_t C = params.n_clusters;
  KMeansResult result;
  std::unique_ptr<detail::FitData<T>> fit_data =
      detail::prepare_fit(data, stages, init_centers, centers, coreset_indices, coreset_weights,
                          &result.n_distance_evals, &result.seconds);
  const DataView<T>& fit = fit_data->view();

  // Lloyd.
  LloydParams lp;
  lp.max_iter = params.max_iter;
  lp.tol = params.tol;
  lp.relocate_empty = params.relocate_empty;
  lp.n_threads = params.n_threads;
  lp.log = params.log;
  LloydResult lr = lloyd(fit, C, lp, centers);
  result.objective = std::move(lr.objective);
  result.n_iter = lr.n_iter;
  result.converged = lr.converged;
  result.n_relocated = lr.n_relocated;
  result.n_distance_evals.iterations = lr.n_distance_evals;
  result.seconds.iterations = lr.seconds;
  fit_data.reset();

  // Evaluation on all points.
  result.inertia = params.evaluate ? detail::evaluate_fit(data, stages, centers, labels,
                                                          &result.n_distance_evals, &result.seconds)
                                   : NAN;
  return result;
}

template KMeansResult fit_kmeans<float>(const DataView<float>&, const KMeansParams&, const float*,
                                        float*, std::int32_t*, index_t*, double*);
template KMeansResult fit_kmeans<double>(const DataView<double>&, const KMeansParams&,
                                         const double*, double*, std::int32_t*, index_t*, double*);

}  // namespace vcgmm
