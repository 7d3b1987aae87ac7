// Bindings of the coreset, the seedings, the assignment and the k-means
// pipeline. Conversion only: shapes are checked, outputs allocated, the GIL
// released, the C++ function called.
#include <algorithm>
#include <string>

#include "_core_bindings.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/assignment.hpp"
#include "vcgmm/kmeans.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"
#include "vcgmm/lloyd.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;
using OptWeights = std::optional<CArray<double>>;

template <typename T>
py::tuple lightweight_coreset(const CArray<T>& X, index_t n_prime, const OptWeights& w,
                              std::uint64_t seed, int n_threads) {
  const auto data = data_view(X, w);
  if (n_prime < 1) throw vcgmm::InvalidArgument("n_prime must be >= 1");
  CArray<index_t> indices(n_prime);
  CArray<double> weights(n_prime);
  vcgmm::LightweightCoresetParams p;
  p.n_prime = n_prime;
  p.seed = seed;
  p.n_threads = n_threads;
  index_t* idx = indices.mutable_data();
  double* wts = weights.mutable_data();
  const auto stats = without_gil([&] { return vcgmm::lightweight_coreset(data, p, idx, wts); });
  return py::make_tuple(indices, weights, stats.n_distance_evals, stats.seconds);
}

template <typename T>
py::tuple kmeans_plusplus(const CArray<T>& X, index_t n_clusters, const OptWeights& w,
                          int n_local_trials, std::uint64_t seed, int n_threads) {
  const auto data = data_view(X, w);
  if (n_clusters < 1) throw vcgmm::InvalidArgument("n_clusters must be >= 1");
  CArray<T> centers({n_clusters, data.d});
  CArray<index_t> indices(n_clusters);
  vcgmm::KMeansPlusPlusParams p;
  p.n_clusters = n_clusters;
  p.n_local_trials = n_local_trials;
  p.seed = seed;
  p.n_threads = n_threads;
  T* c = centers.mutable_data();
  index_t* idx = indices.mutable_data();
  const auto stats = without_gil([&] { return vcgmm::kmeans_plusplus(data, p, c, idx); });
  return py::make_tuple(centers, indices, stats.n_distance_evals, stats.seconds);
}

template <typename T>
py::tuple afkmc2(const CArray<T>& X, index_t n_clusters, const OptWeights& w, int chain_length,
                 std::uint64_t seed, int n_threads) {
  const auto data = data_view(X, w);
  if (n_clusters < 1) throw vcgmm::InvalidArgument("n_clusters must be >= 1");
  CArray<T> centers({n_clusters, data.d});
  CArray<index_t> indices(n_clusters);
  vcgmm::Afkmc2Params p;
  p.n_clusters = n_clusters;
  p.chain_length = chain_length;
  p.seed = seed;
  p.n_threads = n_threads;
  T* c = centers.mutable_data();
  index_t* idx = indices.mutable_data();
  const auto stats = without_gil([&] { return vcgmm::afkmc2(data, p, c, idx); });
  return py::make_tuple(centers, indices, stats.n_distance_evals, stats.seconds);
}

template <typename T>
py::tuple assign_nearest(const CArray<T>& X, const CArray<T>& centers, const OptWeights& w,
                         bool want_labels, bool want_min_d2, int n_threads) {
  const auto data = data_view(X, w);
  if (centers.ndim() != 2 || centers.shape(1) != X.shape(1)) {
    throw vcgmm::InvalidArgument("centers must have shape (n_clusters, n_features)");
  }
  const index_t C = static_cast<index_t>(centers.shape(0));
  py::object labels = py::none(), min_d2 = py::none();
  std::int32_t* lab = nullptr;
  double* md = nullptr;
  if (want_labels) {
    CArray<std::int32_t> a(data.n);
    lab = a.mutable_data();
    std::fill(lab, lab + data.n, -1);
    labels = a;
  }
  if (want_min_d2) {
    CArray<double> a(data.n);
    md = a.mutable_data();
    min_d2 = a;
  }
  const T* c = centers.data();
  const auto stats =
      without_gil([&] { return vcgmm::assign_nearest(data, c, C, lab, md, n_threads); });
  return py::make_tuple(labels, min_d2, stats.objective);
}

template <typename T>
py::dict lloyd(const CArray<T>& X, const OptWeights& w, const CArray<T>& init_centers, int max_iter,
               double tol, bool relocate_empty, int n_threads, const py::object& log) {
  const auto data = data_view(X, w);
  if (init_centers.ndim() != 2 || init_centers.shape(1) != X.shape(1)) {
    throw vcgmm::InvalidArgument("centers must have shape (n_clusters, n_features)");
  }
  const index_t C = static_cast<index_t>(init_centers.shape(0));
  CArray<T> centers({C, data.d});
  std::copy(init_centers.data(), init_centers.data() + C * data.d, centers.mutable_data());
  vcgmm::LloydParams p;
  p.max_iter = max_iter;
  p.tol = tol;
  p.relocate_empty = relocate_empty;
  p.n_threads = n_threads;
  p.log = python_logger(log);
  T* c = centers.mutable_data();
  vcgmm::LloydResult r = without_gil([&] { return vcgmm::lloyd(data, C, p, c); });
  py::dict out;
  out["centers"] = centers;
  out["objective"] = CArray<double>(static_cast<py::ssize_t>(r.objective.size()), r.objective.data());
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  out["n_relocated"] = r.n_relocated;
  out["n_distance_evals"] = r.n_distance_evals;
  out["seconds"] = r.seconds;
  return out;
}

template <typename T>
py::dict fit_kmeans(const CArray<T>& X, const OptWeights& w, index_t n_clusters,
                    const std::string& init, const std::optional<CArray<T>>& init_centers,
                    index_t coreset_size, int chain_length, int n_local_trials, int max_iter,
                    double tol, bool relocate_empty, bool evaluate, bool want_labels,
                    std::uint64_t seed, int n_threads, const py::object& log) {
  const auto data = data_view(X, w);
  if (n_clusters < 1) throw vcgmm::InvalidArgument("n_clusters must be >= 1");
  vcgmm::KMeansParams p;
  p.n_clusters = n_clusters;
  p.init = parse_init(init);
  p.coreset_size = coreset_size;
  p.chain_length = chain_length;
  p.n_local_trials = n_local_trials;
  p.max_iter = max_iter;
  p.tol = tol;
  p.relocate_empty = relocate_empty;
  p.evaluate = evaluate;
  p.seed = seed;
  p.n_threads = n_threads;
  p.log = python_logger(log);
  const T* init_ptr = given_init(p.init, init_centers, n_clusters, X.shape(1), "init centers",
                                 "n_clusters");

  CArray<T> centers({n_clusters, data.d});
  PipelineOutputs outputs(data.n, want_labels && evaluate, coreset_size);
  T* c = centers.mutable_data();
  vcgmm::KMeansResult r = without_gil([&] {
    return vcgmm::fit_kmeans(data, p, init_ptr, c, outputs.labels_ptr, outputs.indices_ptr,
                             outputs.weights_ptr);
  });

  py::dict out;
  out["centers"] = centers;
  out["labels"] = outputs.labels;
  out["objective"] = CArray<double>(static_cast<py::ssize_t>(r.objective.size()), r.objective.data());
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  out["n_relocated"] = r.n_relocated;
  out["inertia"] = r.inertia;
  out["coreset_indices"] = outputs.coreset_indices;
  out["coreset_weights"] = outputs.coreset_weights;
  out["n_distance_evals"] = to_dict(r.n_distance_evals);
  out["seconds"] = to_dict(r.seconds);
  return out;
}

template <typename T>
void bind_typed(py::module_& m) {
  m.def("lightweight_coreset", &lightweight_coreset<T>, py::arg("X").noconvert(),
        py::arg("n_prime"), py::arg("sample_weight").noconvert(), py::arg("seed"),
        py::arg("n_threads"));
  m.def("kmeans_plusplus", &kmeans_plusplus<T>, py::arg("X").noconvert(), py::arg("n_clusters"),
        py::arg("sample_weight").noconvert(), py::arg("n_local_trials"), py::arg("seed"),
        py::arg("n_threads"));
  m.def("afkmc2", &afkmc2<T>, py::arg("X").noconvert(), py::arg("n_clusters"),
        py::arg("sample_weight").noconvert(), py::arg("chain_length"), py::arg("seed"),
        py::arg("n_threads"));
  m.def("assign_nearest", &assign_nearest<T>, py::arg("X").noconvert(),
        py::arg("centers").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("want_labels"), py::arg("want_min_d2"), py::arg("n_threads"));
  m.def("lloyd", &lloyd<T>, py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("init_centers").noconvert(), py::arg("max_iter"), py::arg("tol"),
        py::arg("relocate_empty"), py::arg("n_threads"), py::arg("log"));
  m.def("fit_kmeans", &fit_kmeans<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("n_clusters"), py::arg("init"),
        py::arg("init_centers").noconvert(), py::arg("coreset_size"), py::arg("chain_length"),
        py::arg("n_local_trials"), py::arg("max_iter"), py::arg("tol"),
        py::arg("relocate_empty"), py::arg("evaluate"), py::arg("want_labels"), py::arg("seed"),
        py::arg("n_threads"), py::arg("log"));
}

}  // namespace

void bind_kmeans(py::module_& m) {
  bind_typed<float>(m);
  bind_typed<double>(m);
}

}  // namespace vcgmm_python
