// Kernel k-means: the kernels, params, result and name tables, and fit,
// predict, kernel k-means++, the gamma heuristic, graph kernels.
#include <optional>
#include <string>

#include "bindings.hpp"
#include "vcgmm/kernel_kmeans.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

// The names of scikit-learn's pairwise_kernels where they overlap.
const NameTable<vcgmm::KernelType> kKernelTypes[] = {
    {"rbf", vcgmm::KernelType::rbf},
    {"laplacian", vcgmm::KernelType::laplacian},
    {"poly", vcgmm::KernelType::polynomial},
    {"linear", vcgmm::KernelType::linear},
    {"precomputed", vcgmm::KernelType::precomputed},
};
const NameTable<vcgmm::KernelKMeansAlgorithm> kKernelKMeansAlgorithms[] = {
    {"truncated", vcgmm::KernelKMeansAlgorithm::truncated},
    {"minibatch", vcgmm::KernelKMeansAlgorithm::minibatch},
    {"full", vcgmm::KernelKMeansAlgorithm::full},
};
const NameTable<vcgmm::GraphKernelType> kGraphKernels[] = {
    {"knn", vcgmm::GraphKernelType::knn},
    {"heat", vcgmm::GraphKernelType::heat},
};

template <typename T>
vcgmm::DataView<T> kernel_data(const CArray<T>& X) {
  return data_view(X, std::nullopt);
}

template <typename V>
std::vector<V> to_vector(const CArray<V>& a, const char* what) {
  if (a.ndim() != 1) throw vcgmm::InvalidArgument(std::string(what) + " must be 1-D");
  return std::vector<V>(a.data(), a.data() + a.shape(0));
}

/// (result, labels or None)
template <typename T>
py::tuple fit(const CArray<T>& X, const OptWeights& w, const vcgmm::KernelKMeansParams& params,
              const std::optional<CArray<index_t>>& init, bool return_labels) {
  const auto data = data_view(X, w);
  const index_t* init_ptr = nullptr;
  if (init) {
    if (init->ndim() != 1 || init->shape(0) != params.n_clusters) {
      throw vcgmm::InvalidArgument("init must have shape (n_clusters,)");
    }
    init_ptr = init->data();
  }
  std::int32_t* lab = nullptr;
  py::object labels = optional_output(return_labels, data.n, &lab);
  auto result =
      without_gil([&] { return vcgmm::fit_kernel_kmeans(data, params, init_ptr, lab); });
  return py::make_tuple(std::move(result), labels);
}

/// (labels, sq_distances or None, costs)
template <typename T>
py::tuple predict(const CArray<T>& X, const vcgmm::KernelParams& kernel,
                  const CArray<index_t>& support, const CArray<index_t>& indptr,
                  const CArray<index_t>& index, const CArray<double>& coef,
                  const CArray<double>& sqnorm, const std::optional<CArray<T>>& support_vectors,
                  const vcgmm::RunOptions& run, bool want_distances) {
  const auto data = kernel_data(X);
  vcgmm::KernelCenters centers;
  centers.support = to_vector(support, "support");
  centers.indptr = to_vector(indptr, "indptr");
  centers.index = to_vector(index, "index");
  centers.coef = to_vector(coef, "coef");
  centers.sqnorm = to_vector(sqnorm, "sqnorm");
  const T* sv = nullptr;
  if (support_vectors) {
    require_shape(*support_vectors, static_cast<index_t>(centers.support.size()), data.d,
                  "support_vectors");
    sv = support_vectors->data();
  }
  const index_t k = static_cast<index_t>(centers.sqnorm.size());
  CArray<std::int32_t> labels(data.n);
  std::int32_t* lab = labels.mutable_data();
  py::object distances = py::none();
  double* dist = nullptr;
  if (want_distances) {
    CArray<double> a({data.n, k});
    dist = a.mutable_data();
    distances = a;
  }
  const auto costs = without_gil(
      [&] { return vcgmm::kernel_kmeans_predict(data, kernel, centers, sv, run, lab, dist); });
  return py::make_tuple(labels, distances, costs);
}

/// (indices, stats)
template <typename T>
py::tuple plusplus(const CArray<T>& X, const OptWeights& w, const vcgmm::KernelParams& kernel,
                   index_t n_clusters, const vcgmm::RunOptions& run) {
  const auto data = data_view(X, w);
  if (n_clusters < 1) throw vcgmm::InvalidArgument("n_clusters must be >= 1");
  CArray<index_t> indices(n_clusters);
  index_t* idx = indices.mutable_data();
  const auto stats = without_gil(
      [&] { return vcgmm::kernel_kmeans_plusplus(data, kernel, n_clusters, run, idx); });
  return py::make_tuple(indices, stats);
}

/// (K, costs)
template <typename T>
py::tuple graph(const CArray<T>& X, const vcgmm::GraphKernelParams& params,
                const vcgmm::RunOptions& run) {
  const auto data = kernel_data(X);
  CArray<T> K({data.n, data.n});
  T* out = K.mutable_data();
  const auto costs = without_gil([&] { return vcgmm::graph_kernel(data, params, run, out); });
  return py::make_tuple(K, costs);
}

/// (Z, costs)
template <typename T>
py::tuple modes(const CArray<T>& X, const vcgmm::GraphKernelParams& params, index_t n_modes,
                const vcgmm::RunOptions& run) {
  const auto data = kernel_data(X);
  if (n_modes < 1 || n_modes > data.n) throw vcgmm::InvalidArgument("n_modes must be in [1, n]");
  CArray<T> Z({data.n, n_modes});
  T* out = Z.mutable_data();
  const auto costs =
      without_gil([&] { return vcgmm::graph_modes(data, params, n_modes, run, out); });
  return py::make_tuple(Z, costs);
}

template <typename T>
void bind_typed(py::module_& m) {
  m.def("fit_kernel_kmeans", &fit<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("params"),
        py::arg("init").noconvert(), py::arg("return_labels"));
  m.def("kernel_kmeans_predict", &predict<T>, py::arg("X").noconvert(), py::arg("kernel"),
        py::arg("support").noconvert(), py::arg("indptr").noconvert(),
        py::arg("index").noconvert(), py::arg("coef").noconvert(), py::arg("sqnorm").noconvert(),
        py::arg("support_vectors").noconvert(), py::arg("run"), py::arg("want_distances"));
  m.def("kernel_kmeans_plusplus", &plusplus<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("kernel"),
        py::arg("n_clusters"), py::arg("run"));
  m.def("kernel_gamma_heuristic",
        [](const CArray<T>& X, const vcgmm::KernelParams& kernel, const vcgmm::RunOptions& run) {
          const auto data = kernel_data(X);
          return without_gil([&] { return vcgmm::kernel_gamma_heuristic(data, kernel.type, run); });
        },
        py::arg("X").noconvert(), py::arg("kernel"), py::arg("run"));
  m.def("graph_kernel", &graph<T>, py::arg("X").noconvert(), py::arg("params"), py::arg("run"));
  m.def("graph_modes", &modes<T>, py::arg("X").noconvert(), py::arg("params"),
        py::arg("n_modes"), py::arg("run"));
}

void bind_params(py::module_& m) {
  m.attr("HEAT_DENSE_MAX_T") = vcgmm::kHeatDenseMaxT;
  def_names(m, "kernel_types", kKernelTypes,
            "Names of the kernels of kernel k-means (KernelParams.type).");
  def_names(m, "kernel_kmeans_algorithms", kKernelKMeansAlgorithms,
            "Names of the kernel k-means algorithms (KernelKMeansParams.algorithm).");
  def_names(m, "learning_rates", kLearningRates,
            "Names of the mini-batch learning rates (KernelKMeansParams.learning_rate, "
            "MbatchParams.learning_rate).");
  def_names(m, "graph_kernels", kGraphKernels,
            "Names of the graph kernels (GraphKernelParams.type).");
  using K = vcgmm::KernelParams;
  auto kernel = params_class<K>(m, "KernelParams");
  enum_property(kernel, "type", &K::type, kKernelTypes, "kernel");
  kernel.def_readwrite("gamma", &K::gamma)
      .def_readwrite("degree", &K::degree)
      .def_readwrite("coef0", &K::coef0);
  using P = vcgmm::KernelKMeansParams;
  auto params = params_class<P>(m, "KernelKMeansParams");
  params.def_readwrite("n_clusters", &P::n_clusters).def_readwrite("kernel", &P::kernel);
  enum_property(params, "algorithm", &P::algorithm, kKernelKMeansAlgorithms);
  params.def_readwrite("batch_size", &P::batch_size)
      .def_readwrite("tau", &P::tau)
      .def_readwrite("renormalize", &P::renormalize);
  enum_property(params, "learning_rate", &P::learning_rate, kLearningRates);
  params.def_readwrite("max_iter", &P::max_iter)
      .def_readwrite("tol", &P::tol)
      .def_readwrite("evaluate", &P::evaluate)
      .def_readwrite("run", &P::run);
  using G = vcgmm::GraphKernelParams;
  auto graph_params = params_class<G>(m, "GraphKernelParams");
  enum_property(graph_params, "type", &G::type, kGraphKernels, "kernel");
  graph_params.def_readwrite("n_neighbors", &G::n_neighbors).def_readwrite("t", &G::t);
}

void bind_result(py::module_& m) {
  using R = vcgmm::KernelKMeansResult;
  auto cls = result_class<R, vcgmm::IterationResult>(m, "KernelKMeansResult");
  cls.def_property_readonly("support", [](const R& r) { return to_numpy(r.centers.support); })
      .def_property_readonly("indptr", [](const R& r) { return to_numpy(r.centers.indptr); })
      .def_property_readonly("index", [](const R& r) { return to_numpy(r.centers.index); })
      .def_property_readonly("coef", [](const R& r) { return to_numpy(r.centers.coef); })
      .def_property_readonly("sqnorm", [](const R& r) { return to_numpy(r.centers.sqnorm); })
      .def_readonly("kernel", &R::kernel)
      .def_readonly("inertia", &R::inertia);
  vector_property(cls, "init_indices", &R::init_indices);
  vector_property(cls, "objective", &R::objective);
}

}  // namespace

void bind_kernel_kmeans(py::module_& m) {
  bind_params(m);
  bind_result(m);
  bind_typed<float>(m);
  bind_typed<double>(m);
}

}  // namespace vcgmm_python
