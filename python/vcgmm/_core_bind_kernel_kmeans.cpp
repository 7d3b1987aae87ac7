// Bindings of kernel k-means (fit, predict, kernel k-means++, the gamma
// heuristic, graph kernels). Conversion only: shapes are checked, outputs
// allocated, the GIL released, the C++ function called.
#include <optional>
#include <string>

#include "_core_bindings.hpp"
#include "vcgmm/kernel_kmeans.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

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
py::tuple fit(const CArray<T>& X, const vcgmm::KernelKMeansParams& params,
              const std::optional<CArray<index_t>>& init, bool return_labels) {
  const auto data = kernel_data(X);
  const index_t* init_ptr = nullptr;
  if (init) {
    if (init->ndim() != 1 || init->shape(0) != params.n_clusters) {
      throw vcgmm::InvalidArgument("init must have shape (n_clusters,)");
    }
    init_ptr = init->data();
  }
  py::object labels = py::none();
  std::int32_t* lab = nullptr;
  if (return_labels) {
    CArray<std::int32_t> a(data.n);
    lab = a.mutable_data();
    labels = a;
  }
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
py::tuple plusplus(const CArray<T>& X, const vcgmm::KernelParams& kernel, index_t n_clusters,
                   const vcgmm::RunOptions& run) {
  const auto data = kernel_data(X);
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

template <typename T>
void bind_typed(py::module_& m) {
  m.def("fit_kernel_kmeans", &fit<T>, py::arg("X").noconvert(), py::arg("params"),
        py::arg("init").noconvert(), py::arg("return_labels"));
  m.def("kernel_kmeans_predict", &predict<T>, py::arg("X").noconvert(), py::arg("kernel"),
        py::arg("support").noconvert(), py::arg("indptr").noconvert(),
        py::arg("index").noconvert(), py::arg("coef").noconvert(), py::arg("sqnorm").noconvert(),
        py::arg("support_vectors").noconvert(), py::arg("run"), py::arg("want_distances"));
  m.def("kernel_kmeans_plusplus", &plusplus<T>, py::arg("X").noconvert(), py::arg("kernel"),
        py::arg("n_clusters"), py::arg("run"));
  m.def("kernel_gamma_heuristic",
        [](const CArray<T>& X, const vcgmm::KernelParams& kernel, const vcgmm::RunOptions& run) {
          const auto data = kernel_data(X);
          return without_gil([&] { return vcgmm::kernel_gamma_heuristic(data, kernel.type, run); });
        },
        py::arg("X").noconvert(), py::arg("kernel"), py::arg("run"));
  m.def("graph_kernel", &graph<T>, py::arg("X").noconvert(), py::arg("params"), py::arg("run"));
}

}  // namespace

void bind_kernel_kmeans(py::module_& m) {
  bind_typed<float>(m);
  bind_typed<double>(m);
}

}  // namespace vcgmm_python
