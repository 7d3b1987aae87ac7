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
  detail::require_data(data, "fit_kmeans");
  detail::require_clusters(params.n_clusters, data.n, "fit_kmeans");
  detail::require(centers != nullptr, "fit_kmeans: centers is a null pointer");
  detail::require(params.coreset_size == 0 || params.coreset_size >= params.n_clusters,
                  "fit_kmeans: coreset_size must be 0 (no coreset) or >= n_clusters");
  detail::require(params.init != KMeansInit::given || init_centers != nullptr,
                  "fit_kmeans: init == given needs init_centers");
  // Checked up front so that bad parameters never waste a coreset or a seeding.
  detail::require(params.max_iter >= 1, "fit_kmeans: max_iter must be >= 1");
  detail::require(params.tol >= 0.0 && std::isfinite(params.tol), "fit_kmeans: tol must be >= 0");
  detail::require(params.chain_length >= 1, "fit_kmeans: chain_length must be >= 1");
  detail::require(params.n_local_trials >= 1, "fit_kmeans: n_local_trials must be >= 1");
  const index_t C = params.n_clusters, d = data.d;
  KMeansResult result;

  // Coreset (or all points).
  std::unique_ptr<detail::FitData<T>> fit_data;
  if (params.coreset_size > 0) {
    CoresetStats cs;
    fit_data = std::make_unique<detail::FitData<T>>(data, params.coreset_size, params.seed,
                                                    params.n_threads, coreset_indices,
                                                    coreset_weights, &cs);
    result.n_distance_evals.coreset = cs.n_distance_evals;
    result.seconds.coreset = cs.seconds;
    detail::log_line(params.log, "coreset: %lld of %lld points (%.2f s)",
                     static_cast<long long>(params.coreset_size), static_cast<long long>(data.n),
                     cs.seconds);
  } else {
    fit_data = std::make_unique<detail::FitData<T>>(data);
  }
  const DataView<T>& fit = fit_data->view();

  // Seeding.
  if (params.init == KMeansInit::given) {
    std::memcpy(centers, init_centers, sizeof(T) * C * d);
  } else {
    const SeedingStats ss =
        detail::seed_centers(fit, params.init, C, params.chain_length, params.n_local_trials,
                             params.seed, params.n_threads, centers);
    result.n_distance_evals.seeding = ss.n_distance_evals;
    result.seconds.seeding = ss.seconds;
    detail::log_line(params.log, "seeding: %s, %lld centers (%.2f s)",
                     params.init == KMeansInit::afkmc2 ? "AFK-MC2" : "k-means++",
                     static_cast<long long>(C), ss.seconds);
  }

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
  if (params.evaluate) {
    detail::Stopwatch clock;
    if (labels) std::fill(labels, labels + data.n, -1);
    result.inertia = assign_nearest(data, centers, C, labels, nullptr, params.n_threads).objective;
    result.n_distance_evals.evaluation = data.n * C;
    result.seconds.evaluation = clock.seconds();
    detail::log_line(params.log, "evaluation: inertia %.8g on %lld points (%.2f s)", result.inertia,
                     static_cast<long long>(data.n), result.seconds.evaluation);
  } else {
    result.inertia = NAN;
  }
  return result;
}

template KMeansResult fit_kmeans<float>(const DataView<float>&, const KMeansParams&, const float*,
                                        float*, std::int32_t*, index_t*, double*);
template KMeansResult fit_kmeans<double>(const DataView<double>&, const KMeansParams&,
                                         const double*, double*, std::int32_t*, index_t*, double*);

}  // namespace vcgmm
