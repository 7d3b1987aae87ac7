// vc-GMM / var-GMM-S: the variational loop's params and result (with their
// name tables), the fit_vcgmm pipeline, the step-by-step loop, and the GMM
// scoring kernels.
#include <memory>

#include "bindings.hpp"
#include "vcgmm/gmm_scoring.hpp"
#include "vcgmm/variational_gmm.hpp"
#include "vcgmm/vc_gmm.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

const NameTable<vcgmm::StopRule> kStopRules[] = {
    {"gain", vcgmm::StopRule::gain},
    {"relative", vcgmm::StopRule::relative},
};

const NameTable<vcgmm::CovarianceType> kCovarianceTypes[] = {
    {"shared", vcgmm::CovarianceType::shared},
    {"spherical", vcgmm::CovarianceType::spherical},
};

// "approx": the library's word for the approximate search, as in
// labels="approx".
const NameTable<vcgmm::RefineSearch> kRefineSearches[] = {
    {"restricted", vcgmm::RefineSearch::restricted},
    {"approx", vcgmm::RefineSearch::approximate},
    {"exact", vcgmm::RefineSearch::exact},
};

const NameTable<vcgmm::InitialSets> kInitialSets[] = {
    {"nearest", vcgmm::InitialSets::nearest},
    {"random", vcgmm::InitialSets::random},
};

constexpr const char* kMeansShape = "means must have shape (n_components, n_features)";

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
  const index_t C = rows_matching(X, means, kMeansShape);
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
  const index_t C = rows_matching(X, means, kMeansShape);
  PosteriorOutputs out(data.n, C, k);
  std::int32_t* ip = out.idx.mutable_data();
  double* rp = out.resp.mutable_data();
  const T* mu = means.data();
  without_gil(
      [&] { vcgmm::gmm_truncated_posteriors(data, mu, C, sigma2, k, ip, rp, n_threads); });
  return out.release();
}

/// (variances, weights) of a spherical model: both (n_components,).
void require_component_arrays(const CArray<double>& variances, const CArray<double>& weights,
                              index_t C) {
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
  const index_t C = rows_matching(X, means, kMeansShape);
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
  const index_t C = rows_matching(X, means, kMeansShape);
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
    const index_t C = rows_matching(X_, means, kMeansShape);
    loop_ = std::make_unique<vcgmm::VariationalGmm<T>>(data, C, means.data(), params, run);
  }

  double e_step(bool estimate_sigma) {
    return without_gil([&] { return loop_->e_step(estimate_sigma); });
  }
  void m_step() {
    without_gil([&] { loop_->m_step(); });
  }
  double refine_step(bool split_merge) {
    return without_gil([&] { return loop_->refine_step(split_merge); });
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
  def_pipeline(m, "fit_vcgmm", &vcgmm::fit_vcgmm<T>);
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
  using Loop = VariationalLoop<T>;
  py::class_<Loop>(m, loop_name, py::module_local())
      .def(py::init<CArray<T>, OptWeights, const CArray<T>&, const vcgmm::VariationalGmmParams&,
                    const vcgmm::RunOptions&>(),
           py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
           py::arg("means").noconvert(), py::arg("params"), py::arg("run"))
      .def("e_step", &Loop::e_step, py::arg("estimate_sigma") = false)
      .def("m_step", &Loop::m_step)
      .def("refine_step", &Loop::refine_step, py::arg("split_merge") = false)
      .def("free_energy", &Loop::free_energy)
      .def("fit", &Loop::fit)
      .def_property_readonly("means", &Loop::means)
      .def_property_readonly("sigma2", &Loop::sigma2)
      .def_property_readonly("variances", &Loop::variances)
      .def_property_readonly("mixing_weights", &Loop::mixing_weights)
      .def_property_readonly("G", &Loop::G)
      .def_property_readonly("truncation_sets", &Loop::truncation_sets)
      .def_property_readonly("neighbourhoods", &Loop::neighbourhoods)
      .def_property_readonly("n_distance_evals", &Loop::n_distance_evals);
}

void bind_params(py::module_& m) {
  using P = vcgmm::VariationalGmmParams;
  def_names(m, "stop_rules", kStopRules,
            "Names of the variational loop's stopping rules (VariationalGmmParams.stop_rule).");
  def_names(m, "refine_searches", kRefineSearches,
            "Names of the refinement's assignments (VariationalGmmParams.refine_search).");
  def_names(m, "initial_sets", kInitialSets,
            "Names of the variational loop's initial truncation sets "
            "(VariationalGmmParams.initial_sets).");
  def_names(m, "covariance_types", kCovarianceTypes,
            "Names of the variational loop's covariance models (VariationalGmmParams.covariance_type).");
  auto em = params_class<P>(m, "VariationalGmmParams");
  em.def_readwrite("G", &P::G)
      .def_readwrite("plus1", &P::plus1)
      .def_readwrite("n_init_estep", &P::n_init_estep)
      .def_readwrite("shared_m_steps", &P::shared_m_steps)
      .def_readwrite("tol", &P::tol)
      .def_readwrite("max_iter", &P::max_iter)
      .def_readwrite("refine", &P::refine)
      .def_readwrite("split_merge", &P::split_merge)
      .def_readwrite("variance_floor", &P::variance_floor);
  enum_property(em, "stop_rule", &P::stop_rule, kStopRules);
  enum_property(em, "covariance_type", &P::covariance_type, kCovarianceTypes);
  enum_property(em, "refine_search", &P::refine_search, kRefineSearches);
  enum_property(em, "initial_sets", &P::initial_sets, kInitialSets);
  params_class<vcgmm::VcgmmParams, vcgmm::PipelineParams>(m, "VcgmmParams")
      .def_readwrite("em", &vcgmm::VcgmmParams::em)
      .def_readwrite("data_steps", &vcgmm::VcgmmParams::data_steps);
}

void bind_results(py::module_& m) {
  using R = vcgmm::VariationalGmmResult;
  auto r = result_class<R, vcgmm::IterationResult>(m, "VariationalGmmResult");
  r.def_readonly("G", &R::G)
      .def_readonly("sigma2", &R::sigma2)
      .def_readonly("final_free_energy", &R::final_free_energy);
  vector_property(r, "free_energy", &R::free_energy);
  vector_property(r, "estep_distance_evals", &R::estep_distance_evals);
  vector_property(r, "refine_objective", &R::refine_objective);
  vector_property(r, "refine_relocated", &R::refine_relocated);
  vector_property(r, "refine_split_merges", &R::refine_split_merges);
  vector_property(r, "variances", &R::variances);
  vector_property(r, "mixing_weights", &R::mixing_weights);
  auto vr = result_class<vcgmm::VcgmmResult, R>(m, "VcgmmResult");
  vr.def_readonly("inertia", &vcgmm::VcgmmResult::inertia);
  vector_property(vr, "data_step_objective", &vcgmm::VcgmmResult::data_step_objective);
  vector_property(vr, "data_step_relocated", &vcgmm::VcgmmResult::data_step_relocated);
  vector_property(vr, "data_step_left_empty", &vcgmm::VcgmmResult::data_step_left_empty);
  vector_property(vr, "data_step_split_merges", &vcgmm::VcgmmResult::data_step_split_merges);
}

}  // namespace

void bind_vcgmm(py::module_& m) {
  bind_params(m);
  bind_results(m);
  bind_typed<float>(m, "VariationalLoop32");
  bind_typed<double>(m, "VariationalLoop64");
}

}  // namespace vcgmm_python
