// Bindings of vc-GMM / var-GMM-S, the step-by-step variational loop and the
// GMM scoring kernels. Conversion only.
#include <algorithm>
#include <memory>
#include <string>

#include "_core_bindings.hpp"
#include "vcgmm/gmm_scoring.hpp"
#include "vcgmm/kmeans.hpp"
#include "vcgmm/variational_gmm.hpp"
#include "vcgmm/vc_gmm.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

/// n_components of `means`, checked against X's width.
template <typename T>
index_t n_components_of(const CArray<T>& X, const CArray<T>& means) {
  if (means.ndim() != 2 || means.shape(1) != X.shape(1)) {
    throw vcgmm::InvalidArgument("means must have shape (n_components, n_features)");
  }
  return static_cast<index_t>(means.shape(0));
}

/// The (n, k) outputs of a truncated-posterior call: (indices, responsibilities).
struct PosteriorOutputs {
  CArray<std::int32_t> idx;
  CArray<double> resp;
  PosteriorOutputs(index_t n, index_t C, int k)
      : idx({n, checked_k(k, C)}), resp({n, static_cast<index_t>(k)}) {}
  static index_t checked_k(int k, index_t C) {  // before anything is allocated
    if (k < 1 || k > C) throw vcgmm::InvalidArgument("k must be in [1, n_components]");
    return static_cast<index_t>(k);
  }
  py::tuple release() { return py::make_tuple(idx, resp); }
};

template <typename T>
CArray<double> gmm_log_likelihood(const CArray<T>& X, const CArray<T>& means, double sigma2,
                                  int n_threads) {
  const auto data = data_view(X, std::nullopt);
  const index_t C = n_components_of(X, means);
  CArray<double> out(data.n);
  double* o = out.mutable_data();
  const T* mu = means.data();
  without_gil([&] { vcgmm::gmm_log_likelihood(data, mu, C, sigma2, o, n_threads); });
  return out;
}

template <typename T>
py::tuple gmm_truncated_posteriors(const CArray<T>& X, const CArray<T>& means, double sigma2,
                                   int k, int n_threads) {
  const auto data = data_view(X, std::nullopt);
  const index_t C = n_components_of(X, means);
  PosteriorOutputs out(data.n, C, k);
  std::int32_t* ip = out.idx.mutable_data();
  double* rp = out.resp.mutable_data();
  const T* mu = means.data();
  without_gil(
      [&] { vcgmm::gmm_truncated_posteriors(data, mu, C, sigma2, k, ip, rp, n_threads); });
  return out.release();
}

/// (variances, weights) of a spherical model: both (n_components,).
inline void require_component_arrays(const CArray<double>& variances,
                                     const CArray<double>& weights, index_t C) {
  if (variances.ndim() != 1 || variances.shape(0) != C) {
    throw vcgmm::InvalidArgument("variances must have shape (n_components,)");
  }
  if (weights.ndim() != 1 || weights.shape(0) != C) {
    throw vcgmm::InvalidArgument("weights must have shape (n_components,)");
  }
}

template <typename T>
CArray<double> gmm_log_likelihood_spherical(const CArray<T>& X, const CArray<T>& means,
                                            const CArray<double>& variances,
                                            const CArray<double>& weights, int n_threads) {
  const auto data = data_view(X, std::nullopt);
  const index_t C = n_components_of(X, means);
  require_component_arrays(variances, weights, C);
  CArray<double> out(data.n);
  double* o = out.mutable_data();
  const T* mu = means.data();
  const double* var = variances.data();
  const double* pi = weights.data();
  without_gil([&] { vcgmm::gmm_log_likelihood(data, mu, C, var, pi, o, n_threads); });
  return out;
}

template <typename T>
py::tuple gmm_truncated_posteriors_spherical(const CArray<T>& X, const CArray<T>& means,
                                             const CArray<double>& variances,
                                             const CArray<double>& weights, int k,
                                             int n_threads) {
  const auto data = data_view(X, std::nullopt);
  const index_t C = n_components_of(X, means);
  require_component_arrays(variances, weights, C);
  PosteriorOutputs out(data.n, C, k);
  std::int32_t* ip = out.idx.mutable_data();
  double* rp = out.resp.mutable_data();
  const T* mu = means.data();
  const double* var = variances.data();
  const double* pi = weights.data();
  without_gil([&] {
    vcgmm::gmm_truncated_posteriors(data, mu, C, var, pi, k, ip, rp, n_threads);
  });
  return out.release();
}

/// The step-by-step loop; keeps the arrays it points into alive.
template <typename T>
class VariationalLoop {
 public:
  VariationalLoop(CArray<T> X, OptWeights w, const CArray<T>& means,
                  const vcgmm::VariationalGmmParams& params, const vcgmm::RunOptions& run)
      : X_(std::move(X)), w_(std::move(w)) {
    const auto data = data_view(X_, w_);
    if (means.ndim() != 2 || means.shape(1) != X_.shape(1)) {
      throw vcgmm::InvalidArgument("means must have shape (n_components, n_features)");
    }
    const index_t C = static_cast<index_t>(means.shape(0));
    loop_ = std::make_unique<vcgmm::VariationalGmm<T>>(data, C, means.data(), params, run);
  }

  double e_step(bool estimate_sigma) {
    return without_gil([&] { return loop_->e_step(estimate_sigma); });
  }
  void m_step() {
    without_gil([&] {
      loop_->m_step();
      return 0;
    });
  }
  double refine_step() {
    return without_gil([&] { return loop_->refine_step(); });
  }
  double free_energy() const {
    return without_gil([&] { return loop_->free_energy(); });
  }
  vcgmm::VariationalGmmResult fit() {
    return without_gil([&] { return loop_->fit(); });
  }
  CArray<T> means() const {
    const index_t C = loop_->n_components(), D = static_cast<index_t>(X_.shape(1));
    return CArray<T>({C, D}, loop_->means());
  }
  double sigma2() const { return loop_->sigma2(); }
  CArray<double> variances() const {
    return CArray<double>(loop_->n_components(), loop_->variances());
  }
  CArray<double> mixing_weights() const {
    return CArray<double>(loop_->n_components(), loop_->mixing_weights());
  }
  int G() const { return loop_->G(); }
  CArray<std::int32_t> truncation_sets() const {
    return CArray<std::int32_t>({static_cast<index_t>(X_.shape(0)), static_cast<index_t>(loop_->G())},
                                loop_->truncation_sets());
  }
  CArray<std::int32_t> neighbourhoods() const {
    return CArray<std::int32_t>({loop_->n_components(), static_cast<index_t>(loop_->G())},
                                loop_->neighbourhoods());
  }
  std::int64_t n_distance_evals() const { return loop_->n_distance_evals(); }

 private:
  CArray<T> X_;
  OptWeights w_;
  std::unique_ptr<vcgmm::VariationalGmm<T>> loop_;
};

template <typename T>
void bind_typed(py::module_& m, const char* loop_name) {
  def_pipeline<T, vcgmm::VcgmmParams>(m, "fit_vcgmm", &vcgmm::fit_vcgmm<T>);
  m.def("gmm_log_likelihood", &gmm_log_likelihood<T>, py::arg("X").noconvert(),
        py::arg("means").noconvert(), py::arg("sigma2"), py::arg("n_threads"));
  m.def("gmm_truncated_posteriors", &gmm_truncated_posteriors<T>, py::arg("X").noconvert(),
        py::arg("means").noconvert(), py::arg("sigma2"), py::arg("k"), py::arg("n_threads"));
  m.def("gmm_log_likelihood_spherical", &gmm_log_likelihood_spherical<T>,
        py::arg("X").noconvert(), py::arg("means").noconvert(),
        py::arg("variances").noconvert(), py::arg("weights").noconvert(), py::arg("n_threads"));
  m.def("gmm_truncated_posteriors_spherical", &gmm_truncated_posteriors_spherical<T>,
        py::arg("X").noconvert(), py::arg("means").noconvert(),
        py::arg("variances").noconvert(), py::arg("weights").noconvert(), py::arg("k"),
        py::arg("n_threads"));
  // module_local: every instruction-set module registers its own copy.
  py::class_<VariationalLoop<T>>(m, loop_name, py::module_local())
      .def(py::init<CArray<T>, OptWeights, const CArray<T>&, const vcgmm::VariationalGmmParams&,
                    const vcgmm::RunOptions&>(),
           py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
           py::arg("means").noconvert(), py::arg("params"), py::arg("run"))
      .def("e_step", &VariationalLoop<T>::e_step, py::arg("estimate_sigma") = false)
      .def("m_step", &VariationalLoop<T>::m_step)
      .def("refine_step", &VariationalLoop<T>::refine_step)
      .def("free_energy", &VariationalLoop<T>::free_energy)
      .def("fit", &VariationalLoop<T>::fit)
      .def_property_readonly("means", &VariationalLoop<T>::means)
      .def_property_readonly("sigma2", &VariationalLoop<T>::sigma2)
      .def_property_readonly("variances", &VariationalLoop<T>::variances)
      .def_property_readonly("mixing_weights", &VariationalLoop<T>::mixing_weights)
      .def_property_readonly("G", &VariationalLoop<T>::G)
      .def_property_readonly("truncation_sets", &VariationalLoop<T>::truncation_sets)
      .def_property_readonly("neighbourhoods", &VariationalLoop<T>::neighbourhoods)
      .def_property_readonly("n_distance_evals", &VariationalLoop<T>::n_distance_evals);
}

}  // namespace

void bind_vcgmm(py::module_& m) {
  bind_typed<float>(m, "VariationalLoop32");
  bind_typed<double>(m, "VariationalLoop64");
}

}  // namespace vcgmm_python
