#include "vcgmm/vc_gmm.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

#include "blocks/checks.hpp"
#include "detail/parallel.hpp"
#include "detail/pipeline_stages.hpp"
#include "vcgmm/checks.hpp"
#include "vcgmm/variational_loop.hpp"

namespace vcgmm {

template <typename T>
VcgmmResult fit_vcgmm(const DataView<T>& data, const VcgmmParams& params,
                      const FitBuffers<T>& buffers) {
  // Everything is checked up front, so bad parameters never waste a coreset
  // or a seeding.
  detail::require_pipeline(data, params, buffers, "fit_vcgmm");
  detail::require_variational_params(params.em, "fit_vcgmm");
  detail::require(params.data_steps >= 0, "fit_vcgmm: data_steps must be >= 0");
  const char* name = params.coreset_size > 0 ? "vc-GMM" : "var-GMM-S";
  std::vector<std::int32_t> last_labels;  // the last data step's: the evaluation starts there
  return detail::run_pipeline<VcgmmResult>(
      data, params, buffers, name, [&](const DataView<T>& fit, VcgmmResult* result) {
        detail::Stopwatch clock;  // the loop's set-up (data moments, initial sets) is EM time too
        detail::VariationalLoop<T> em(fit, params.n_clusters, buffers.centers, params.em,
                                      params.run);
        static_cast<VariationalGmmResult&>(*result) =
            em.fit(&data, params.coreset_size > 0 ? params.data_steps : 0);
        result->data_step_objective = em.data_step_objective();
        result->data_step_relocated = em.data_step_relocated();
        result->data_step_left_empty = em.data_step_left_empty();
        result->data_step_split_merges = em.data_step_split_merges();
        std::memcpy(buffers.centers, em.means(), sizeof(T) * params.n_clusters * data.d);
        last_labels = em.take_data_labels();
        // Set-up + EM (the refinement phase is timed by the loop itself).
        result->timings.iterations = clock.seconds() - result->timings.refinement;
      }, {}, detail::coreset_locality_cells<T>(params.n_clusters, data.d), &last_labels);
}

template VcgmmResult fit_vcgmm<float>(const DataView<float>&, const VcgmmParams&,
                                      const FitBuffers<float>&);
template VcgmmResult fit_vcgmm<double>(const DataView<double>&, const VcgmmParams&,
                                       const FitBuffers<double>&);

}  // namespace vcgmm
