#include "vcgmm/kmeans.hpp"

#include <cstdint>
#include <vector>

#include "blocks/checks.hpp"
#include "detail/pipeline_stages.hpp"
#include "detail/unchecked.hpp"
#include "kmeans/checks.hpp"

namespace vcgmm {

template <typename T>
KMeansResult fit_kmeans(const DataView<T>& data, const KMeansParams& params,
                        const FitBuffers<T>& buffers) {
  // Everything is checked up front, so bad parameters never waste a coreset
  // or a seeding.
  detail::require_pipeline(data, params, buffers, "fit_kmeans");
  detail::require_lloyd_params(params.lloyd, "fit_kmeans");
  // Fitted on all points (no coreset), Lloyd's last labels start the
  // evaluation's search (run_pipeline uses them where they cover all points).
  std::vector<std::int32_t> last_labels;
  return detail::run_pipeline<KMeansResult>(
      data, params, buffers, "k-means",
      [&](const DataView<T>& fit, KMeansResult* result) {
        static_cast<LloydResult&>(*result) = detail::lloyd(
            fit, params.n_clusters, params.lloyd, params.run, buffers.centers, &last_labels);
      },
      {}, 0, &last_labels);
}

template KMeansResult fit_kmeans<float>(const DataView<float>&, const KMeansParams&,
                                        const FitBuffers<float>&);
template KMeansResult fit_kmeans<double>(const DataView<double>&, const KMeansParams&,
                                         const FitBuffers<double>&);

}  // namespace vcgmm
