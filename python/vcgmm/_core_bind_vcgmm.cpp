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
using OptWeights = std::optional<CArray<double>>;

template <typename T>
py::dict fit_vcgmm(const CArray<T>& X, const OptWeights& w, index_t n_components, int G,
                   bool plus1, index_t coreset_size, const std::string& init,
                   const std::optional<CArray<T>>& init_means, int chain_length,
                   int n_local_trials, int n_init_estep, double tol, int max_iter, bool evaluate,
                   bool want_labels, std::uint64_t seed, int n_threads, const py::object& log) {
  const auto data = data_view(X, w);
  if (n_components < 1) throw vcgmm::InvalidArgument("n_components must be >= 1");
  vcgmm::VcgmmParams p;
  p.n_components = n_components;
  p.G = G;
  p.plus1 = plus1;
  p.coreset_size = coreset_size;
  p.init = parse_init(init);
  p.chain_length = chain_length;
  p.n_local_trials = n_local_trials;
  p.n_init_estep = n_init_estep;
  p.tol = tol;
  p.max_iter = max_iter;
  p.evaluate = evaluate;
  p.seed = seed;
  p.n_threads = n_threads;
  p.log = python_logger(log);
  const T* init_ptr = given_init(p.init, init_means, n_components, X.shape(1), "init means",
                                 "n_components");
  CArray<T> means({n_components, data.d});
  PipelineOutputs outputs(data.n, want_labels, coreset_size);
  T* m = means.mutable_data();
  vcgmm::VcgmmResult r = without_gil([&] {
    return vcgmm::fit_vcgmm(data, p, init_ptr, m, outputs.labels_ptr, outputs.indices_ptr,
                            outputs.weights_ptr);
  });

  py::dict out;
  out["means"] = means;
  out["sigma2"] = r.sigma2;
  out["free_energy"] =
      CArray<double>(static_cast<py::ssize_t>(r.free_energy.size()), r.free_energy.data());
  out["estep_distance_evals"] = CArray<std::int64_t>(
      static_cast<py::ssize_t>(r.estep_distance_evals.size()), r.estep_distance_evals.data());
  out["n_iter"] = r.n_iter;
  out["converged"] = r.converged;
  out["inertia"] = r.inertia;
  out["labels"] = outputs.labels;
  out["coreset_indices"] = outputs.coreset_indices;
  out["coreset_weights"] = outputs.coreset_weights;
  out["n_distance_evals"] = to_dict(r.n_distance_evals);
  out["seconds"] = to_dict(r.seconds);
  return out;
}

template <typename T>
CArray<double> gmm_log_likelihood(const CArray<T>& X, const CArray<T>& means, double sigma2,
                                  int n_threads) {
  const auto data = data_view(X, std::nullopt);
  if (means.ndim() != 2 || means.shape(1) != X.shape(1)) {
    throw vcgmm::InvalidArgument("means must have shape (n_components, n_features)");
  }
  CArray<double> out(data.n);
  double* o = out.mutable_data();
  const T* mu = means.data();
  const index_t C = static_cast<index_t>(means.shape(0));
  without_gil([&] { vcgmm::gmm_log_likelihood(data, mu, C, sigma2, o, n_threads); });
  return out;
}

template <typename T>
py::tuple gmm_truncated_posteriors(const CArray<T>& X, const CArray<T>& means, double sigma2,
                                   int k, int n_threads) {
  const auto data = data_view(X, std::nullopt);
  if (means.ndim() != 2 || means.shape(1) != X.shape(1)) {
    throw vcgmm::InvalidArgument("means must have shape (n_components, n_features)");
  }
  const index_t C = static_cast<index_t>(means.shape(0));
  if (k < 1 || k > C) throw vcgmm::InvalidArgument("k must be in [1, n_components]");
  CArray<std::int32_t> idx({data.n, static_cast<index_t>(k)});
  CArray<double> resp({data.n, static_cast<index_t>(k)});
  std::int32_t* ip = idx.mutable_data();
  double* rp = resp.mutable_data();
  const T* mu = means.data();
  without_gil(
      [&] { vcgmm::gmm_truncated_posteriors(data, mu, C, sigma2, k, ip, rp, n_threads); });
  return py::make_tuple(idx, resp);
}

/// The step-by-step loop; keeps the arrays it points into alive.
template <typename T>
class VariationalLoop {
 public:
  VariationalLoop(CArray<T> X, OptWeights w, const CArray<T>& means, int G, bool plus1,
                  int n_init_estep, double tol, int max_iter, std::uint64_t seed, int n_threads)
      : X_(std::move(X)), w_(std::move(w)) {
    const auto data = data_view(X_, w_);
    if (means.ndim() != 2 || means.shape(1) != X_.shape(1)) {
      throw vcgmm::InvalidArgument("means must have shape (n_components, n_features)");
    }
    vcgmm::VariationalGmmParams p;
    p.G = G;
    p.plus1 = plus1;
    p.n_init_estep = n_init_estep;
    p.tol = tol;
    p.max_iter = max_iter;
    p.seed = seed;
    p.n_threads = n_threads;
    const index_t C = static_cast<index_t>(means.shape(0));
    loop_ = std::make_unique<vcgmm::VariationalGmm<T>>(data, C, means.data(), p);
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
  double free_energy() const {
    return without_gil([&] { return loop_->free_energy(); });
  }
  py::dict fit() {
    vcgmm::VariationalGmmResult r = without_gil([&] { return loop_->fit(); });
    py::dict out;
    out["sigma2"] = r.sigma2;
    out["free_energy"] =
        CArray<double>(static_cast<py::ssize_t>(r.free_energy.size()), r.free_energy.data());
    out["estep_distance_evals"] = CArray<std::int64_t>(
        static_cast<py::ssize_t>(r.estep_distance_evals.size()), r.estep_distance_evals.data());
    out["n_iter"] = r.n_iter;
    out["converged"] = r.converged;
    out["n_distance_evals"] = r.n_distance_evals;
    out["seconds"] = r.seconds;
    return out;
  }
  CArray<T> means() const {
    const index_t C = loop_->n_components(), D = static_cast<index_t>(X_.shape(1));
    return CArray<T>({C, D}, loop_->means());
  }
  double sigma2() const { return loop_->sigma2(); }
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
  m.def("fit_vcgmm", &fit_vcgmm<T>, py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("n_components"), py::arg("G"), py::arg("plus1"), py::arg("coreset_size"),
        py::arg("init"), py::arg("init_means").noconvert(), py::arg("chain_length"),
        py::arg("n_local_trials"), py::arg("n_init_estep"), py::arg("tol"), py::arg("max_iter"),
        py::arg("evaluate"), py::arg("want_labels"), py::arg("seed"), py::arg("n_threads"),
        py::arg("log"));
  m.def("gmm_log_likelihood", &gmm_log_likelihood<T>, py::arg("X").noconvert(),
        py::arg("means").noconvert(), py::arg("sigma2"), py::arg("n_threads"));
  m.def("gmm_truncated_posteriors", &gmm_truncated_posteriors<T>, py::arg("X").noconvert(),
        py::arg("means").noconvert(), py::arg("sigma2"), py::arg("k"), py::arg("n_threads"));
  // module_local: every instruction-set module registers its own copy.
  py::class_<VariationalLoop<T>>(m, loop_name, py::module_local())
      .def(py::init<CArray<T>, OptWeights, const CArray<T>&, int, bool, int, double, int,
                    std::uint64_t, int>(),
           py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
           py::arg("means").noconvert(), py::arg("G"), py::arg("plus1"), py::arg("n_init_estep"),
           py::arg("tol"), py::arg("max_iter"), py::arg("seed"), py::arg("n_threads"))
      .def("e_step", &VariationalLoop<T>::e_step, py::arg("estimate_sigma") = false)
      .def("m_step", &VariationalLoop<T>::m_step)
      .def("free_energy", &VariationalLoop<T>::free_energy)
      .def("fit", &VariationalLoop<T>::fit)
      .def_property_readonly("means", &VariationalLoop<T>::means)
      .def_property_readonly("sigma2", &VariationalLoop<T>::sigma2)
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
