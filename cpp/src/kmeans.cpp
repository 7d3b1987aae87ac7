#include "vcgmm/kmeans.hpp"

#include <memory>

#include "detail/parallel.hpp"
#include "detail/pipeline_stages.hpp"
#include "detail/unchecked.hpp"
#include "detail/validation.hpp"

namespace vcgmm {

template <typename T>
KMeansResult fit_kmeans(const DataView<T>& data, const KMeansParams& params,
                        const FitBuffers<T>& buffers) {
  // Everything is checked up front, so bad parameters never waste a coreset
  // or a seeding.
  detail::require_pipeline(data, params, buffers, "fit_kmeans");
  detail::require_lloyd_params(params.lloyd, "fit_kmeans");
  PhaseCosts stages;
  KMeansResult result;
  {
    const std::unique_ptr<detail::FitData<T>> fit_data =
        detail::prepare_fit(data, params, buffers, "k-means", &stages);
    static_cast<LloydResult&>(result) = detail::lloyd(fit_data->view(), params.n_clusters,
                                                      params.lloyd, params.run, buffers.centers);
  }
  result.inertia = detail::evaluate_fit(data, params, buffers, "k-means", &stages);
  result += stages;
  return result;
}

template KMeansResult fit_kmeans<float>(const DataView<float>&, const KMeansParams&,
                                        const FitBuffers<float>&);
template KMeansResult fit_kmeans<double>(const DataView<double>&, const KMeansParams&,
                                         const FitBuffers<double>&);

}  // namespace vcgmm
