// k-means: Lloyd's iterations (params, result, the step from given centers)
// and the fit_kmeans pipeline.
#include <algorithm>

#include "bindings.hpp"
#include "vcgmm/kmeans.hpp"
#include "vcgmm/lloyd.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

/// (centers, result): Lloyd from a copy of init_centers.
template <typename T>
py::tuple lloyd(const CArray<T>& X, const OptWeights& w, const CArray<T>& init_centers,
                const vcgmm::LloydParams& params, const vcgmm::RunOptions& run) {
  const auto data = data_view(X, w);
  const index_t C =
      rows_matching(X, init_centers, "centers must have shape (n_clusters, n_features)");
  CArray<T> centers({C, data.d});
  std::copy(init_centers.data(), init_centers.data() + C * data.d, centers.mutable_data());
  T* c = centers.mutable_data();
  vcgmm::LloydResult r = without_gil([&] { return vcgmm::lloyd(data, C, params, run, c); });
  return py::make_tuple(centers, r);
}

template <typename T>
void bind_typed(py::module_& m) {
  m.def("lloyd", &lloyd<T>, py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("init_centers").noconvert(), py::arg("params"), py::arg("run"));
  def_pipeline(m, "fit_kmeans", &vcgmm::fit_kmeans<T>);
}

}  // namespace

void bind_kmeans(py::module_& m) {
  params_class<vcgmm::LloydParams>(m, "LloydParams")
      .def_readwrite("max_iter", &vcgmm::LloydParams::max_iter)
      .def_readwrite("tol", &vcgmm::LloydParams::tol)
      .def_readwrite("relocate_empty", &vcgmm::LloydParams::relocate_empty)
      .def_readwrite("spherical", &vcgmm::LloydParams::spherical);
  params_class<vcgmm::KMeansParams, vcgmm::PipelineParams>(m, "KMeansParams")
      .def_readwrite("lloyd", &vcgmm::KMeansParams::lloyd);
  auto lloyd_result = result_class<vcgmm::LloydResult, vcgmm::IterationResult>(m, "LloydResult");
  vector_property(lloyd_result, "objective", &vcgmm::LloydResult::objective);
  lloyd_result.def_readonly("n_relocated", &vcgmm::LloydResult::n_relocated);
  result_class<vcgmm::KMeansResult, vcgmm::LloydResult>(m, "KMeansResult")
      .def_readonly("inertia", &vcgmm::KMeansResult::inertia);
  bind_typed<float>(m);
  bind_typed<double>(m);
}

}  // namespace vcgmm_python
