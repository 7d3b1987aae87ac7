// The approximate assignment: its params, its stats and its reusable indexes
// over fixed centers (one class per dtype).
#include <memory>

#include "bindings.hpp"
#include "vcgmm/approximate_assignment.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

const NameTable<vcgmm::ApproximateMethod> kApproximateMethods[] = {
    {"gemm", vcgmm::ApproximateMethod::gemm},
    {"graph", vcgmm::ApproximateMethod::graph},
};

/// An approximate-assignment index over fixed centers (CenterCellIndex or
/// CenterGraphIndex, by params.method), built once and reused by assign():
/// Python's vcgmm.ApproximateIndex keeps one per dtype, and the estimators'
/// predict(X, exact=False) keeps theirs between calls. assign() is const and
/// may run from several Python threads at once (the indexes' scratch is per
/// thread).
template <typename T>
class ApproximateIndexBinding {
 public:
  ApproximateIndexBinding(const CArray<T>& centers, const vcgmm::ApproximateAssignmentParams& params,
                          int n_threads) {
    if (centers.ndim() != 2) {
      throw vcgmm::InvalidArgument("centers must have shape (n_clusters, n_features)");
    }
    const T* c = centers.data();
    const auto C = static_cast<index_t>(centers.shape(0));
    const auto d = static_cast<index_t>(centers.shape(1));
    without_gil([&] {
      if (params.method == vcgmm::ApproximateMethod::graph) {
        graph_ = std::make_unique<vcgmm::CenterGraphIndex<T>>(c, C, d, params, n_threads);
      } else {
        cell_ = std::make_unique<vcgmm::CenterCellIndex<T>>(c, C, d, params, n_threads);
      }
    });
  }

  /// (labels, min_d2 or None, stats of the search only).
  py::tuple assign(const CArray<T>& X, const OptWeights& w, bool want_min_d2,
                   int n_threads) const {
    const auto data = data_view(X, w);
    CArray<std::int32_t> labels(data.n);
    std::int32_t* lab = labels.mutable_data();
    double* md = nullptr;
    py::object min_d2 = optional_output(want_min_d2, data.n, &md);
    const auto stats = without_gil([&] {
      return cell_ ? cell_->assign(data, lab, md, n_threads)
                   : graph_->assign(data, lab, md, n_threads);
    });
    return py::make_tuple(labels, min_d2, stats);
  }

  /// Dimensions of the subspace screening in use (0: off or the graph).
  long long screen_dims() const { return cell_ ? cell_->screen_dims() : 0; }

  /// Cost of building (index_distance_evals, index_seconds).
  const vcgmm::ApproximateAssignmentStats& build_stats() const {
    return cell_ ? cell_->build_stats() : graph_->build_stats();
  }

 private:
  std::unique_ptr<vcgmm::CenterCellIndex<T>> cell_;
  std::unique_ptr<vcgmm::CenterGraphIndex<T>> graph_;
};

template <typename T>
void bind_index(py::module_& m, const char* name) {
  using Index = ApproximateIndexBinding<T>;
  py::class_<Index>(m, name, py::module_local())
      .def(py::init<const CArray<T>&, const vcgmm::ApproximateAssignmentParams&, int>(),
           py::arg("centers").noconvert(), py::arg("params"), py::arg("n_threads"))
      .def("assign", &Index::assign, py::arg("X").noconvert(),
           py::arg("sample_weight").noconvert(), py::arg("want_min_d2"), py::arg("n_threads"))
      .def_property_readonly("build_stats", &Index::build_stats)
      .def_property_readonly("screen_dims", &Index::screen_dims);
}

}  // namespace

void bind_approximate(py::module_& m) {
  using P = vcgmm::ApproximateAssignmentParams;
  def_names(m, "approximate_methods", kApproximateMethods,
            "Names of the approximate assignment's methods (ApproximateAssignmentParams.method).");
  auto params = params_class<P>(m, "ApproximateAssignmentParams");
  enum_property(params, "method", &P::method, kApproximateMethods);
  params.def_readwrite("n_probe", &P::n_probe)
      .def_readwrite("probe_ratio", &P::probe_ratio)
      .def_readwrite("coarse_iter", &P::coarse_iter)
      .def_readwrite("screen_dims", &P::screen_dims)
      .def_readwrite("graph_degree", &P::graph_degree)
      .def_readwrite("n_starts", &P::n_starts)
      .def_readwrite("coarse_size", &P::coarse_size)
      .def_readwrite("beam_width", &P::beam_width);
  using S = vcgmm::ApproximateAssignmentStats;
  result_class<S, vcgmm::PhaseCosts>(m, "ApproximateAssignmentStats")
      .def_readonly("objective", &S::objective)
      .def_readonly("index_distance_evals", &S::index_distance_evals)
      .def_readonly("search_distance_evals", &S::search_distance_evals)
      .def_readonly("index_seconds", &S::index_seconds)
      .def_readonly("search_seconds", &S::search_seconds);
  bind_index<float>(m, "ApproximateIndexFloat32");
  bind_index<double>(m, "ApproximateIndexFloat64");
}

}  // namespace vcgmm_python
