// Bindings of the stochastic k-means family: mbatch (and its single step,
// for partial_fit), nmbatch, VRKM / VRKM++, and the draws each makes (so
// tests and research can reproduce them). Conversion only.
#include <algorithm>
#include <optional>
#include <string>

#include "_core_bindings.hpp"
#include "vcgmm/minibatch.hpp"
#include "vcgmm/nested_minibatch.hpp"
#include "vcgmm/vrkm.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

/// (result, centers, labels, coreset_indices, coreset_weights) of a pipeline `fit`.
template <typename T, typename Params, typename Fit>
py::tuple fit_pipeline(const CArray<T>& X, const OptWeights& w,
                       const std::optional<CArray<T>>& init_centers, const Params& params,
                       bool return_labels, Fit&& fit) {
  const auto data = data_view(X, w);
  const PipelineArrays<T> arrays(data, params, init_centers, return_labels);
  auto r = without_gil([&] { return fit(data, params, arrays.buffers); });
  return arrays.with(std::move(r));
}

/// (centers, counts, labels or None, stats): one mbatch step on copies of
/// the state (the caller's arrays are not modified).
template <typename T>
py::tuple mbatch_step(const CArray<T>& X, const OptWeights& w, const CArray<T>& centers,
                      const CArray<double>& counts, bool want_labels, int n_threads,
                      bool spherical) {
  const auto batch = data_view(X, w);
  if (centers.ndim() != 2 || centers.shape(1) != X.shape(1)) {
    throw vcgmm::InvalidArgument("centers must have shape (n_clusters, n_features)");
  }
  const index_t C = static_cast<index_t>(centers.shape(0));
  if (counts.ndim() != 1 || counts.shape(0) != C) {
    throw vcgmm::InvalidArgument("counts must have shape (n_clusters,)");
  }
  CArray<T> c_out({C, batch.d});
  CArray<double> v_out(C);
  std::copy(centers.data(), centers.data() + C * batch.d, c_out.mutable_data());
  std::copy(counts.data(), counts.data() + C, v_out.mutable_data());
  py::object labels = py::none();
  std::int32_t* lab = nullptr;
  if (want_labels) {
    CArray<std::int32_t> a(batch.n);
    lab = a.mutable_data();
    labels = a;
  }
  T* c = c_out.mutable_data();
  double* v = v_out.mutable_data();
  const auto stats =
      without_gil([&] { return vcgmm::mbatch_step(batch, C, c, v, lab, n_threads, spherical); });
  return py::make_tuple(c_out, v_out, labels, stats);
}

template <typename T>
void bind_typed(py::module_& m) {
  m.def("fit_mbatch",
        [](const CArray<T>& X, const OptWeights& w, const std::optional<CArray<T>>& init,
           const vcgmm::MbatchKMeansParams& p, bool return_labels) {
          return fit_pipeline(X, w, init, p, return_labels,
                              [](auto&&... a) { return vcgmm::fit_mbatch<T>(a...); });
        },
        py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("init_centers").noconvert(), py::arg("params"), py::arg("return_labels"));
  m.def("fit_nmbatch",
        [](const CArray<T>& X, const OptWeights& w, const std::optional<CArray<T>>& init,
           const vcgmm::NmbatchKMeansParams& p, bool return_labels) {
          return fit_pipeline(X, w, init, p, return_labels,
                              [](auto&&... a) { return vcgmm::fit_nmbatch<T>(a...); });
        },
        py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("init_centers").noconvert(), py::arg("params"), py::arg("return_labels"));
  m.def("fit_vrkm",
        [](const CArray<T>& X, const OptWeights& w, const std::optional<CArray<T>>& init,
           const vcgmm::VrkmKMeansParams& p, bool return_labels) {
          return fit_pipeline(X, w, init, p, return_labels,
                              [](auto&&... a) { return vcgmm::fit_vrkm<T>(a...); });
        },
        py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("init_centers").noconvert(), py::arg("params"), py::arg("return_labels"));
  m.def("mbatch_step", &mbatch_step<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("centers").noconvert(),
        py::arg("counts").noconvert(), py::arg("want_labels"), py::arg("n_threads"),
        py::arg("spherical") = false);
}

}  // namespace

void bind_minibatch(py::module_& m) {
  bind_typed<float>(m);
  bind_typed<double>(m);
  m.def("mbatch_batch_rows",
        [](index_t n, index_t b, std::uint64_t seed, std::int64_t iteration) {
          if (b < 1) throw vcgmm::InvalidArgument("batch_size must be >= 1");
          CArray<index_t> rows(b);
          vcgmm::mbatch_batch_rows(n, b, seed, iteration, rows.mutable_data());
          return rows;
        },
        py::arg("n"), py::arg("batch_size"), py::arg("seed"), py::arg("iteration"),
        "The rows fit_mbatch draws in iteration t >= 1.");
  m.def("nmbatch_sample_order",
        [](index_t n, std::uint64_t seed) {
          if (n < 1) throw vcgmm::InvalidArgument("n must be >= 1");
          CArray<index_t> order(n);
          vcgmm::nmbatch_sample_order(n, seed, order.mutable_data());
          return order;
        },
        py::arg("n"), py::arg("seed"), "The order in which fit_nmbatch visits the rows.");
  m.def("vrkm_epoch_rows",
        [](index_t n, const OptWeights& w, index_t T, std::uint64_t seed, std::int64_t epoch) {
          if (T < 1) throw vcgmm::InvalidArgument("epoch_size must be >= 1");
          if (w && (w->ndim() != 1 || w->shape(0) != n)) {
            throw vcgmm::InvalidArgument("sample_weight must have shape (n,)");
          }
          CArray<index_t> rows(T);
          vcgmm::vrkm_epoch_rows(n, w ? w->data() : nullptr, T, seed, epoch, rows.mutable_data());
          return rows;
        },
        py::arg("n"), py::arg("sample_weight").noconvert(), py::arg("epoch_size"),
        py::arg("seed"), py::arg("epoch"), "The rows VRKM's inner loop draws in epoch e >= 1.");
}

}  // namespace vcgmm_python
