// Parameters and results of the core as Python classes, fields by name.
//
// One line per field: adding a field to a params or result struct in C++
// needs one .def_readwrite / .def_readonly here and nothing else in the
// binding (the Python layer sets fields by name from its constraint tables).
// Classes are module_local: every instruction-set module (_core, _core_avx2,
// _core_avx512) registers its own copy, and the loader's module is used.
#include <string>
#include <utility>

#include "_core_bindings.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/approximate_assignment.hpp"
#include "vcgmm/kernel_kmeans.hpp"
#include "vcgmm/kmeans.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"
#include "vcgmm/lloyd.hpp"
#include "vcgmm/minibatch.hpp"
#include "vcgmm/nested_minibatch.hpp"
#include "vcgmm/pipeline.hpp"
#include "vcgmm/variational_gmm.hpp"
#include "vcgmm/vc_gmm.hpp"
#include "vcgmm/vrkm.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::SeedingMethod;

// The seeding methods by their user-facing names: the one table of them.
const std::pair<const char*, SeedingMethod> kSeedingMethods[] = {
    {"k-means++", SeedingMethod::kmeans_plusplus},
    {"afk-mc2", SeedingMethod::afkmc2},
    {"random", SeedingMethod::random},
    {"given", SeedingMethod::given},
};

// Kernel k-means: kernels, algorithms, learning rates, graph kernels by name
// (the names of scikit-learn's pairwise_kernels where they overlap).
const std::pair<const char*, vcgmm::KernelType> kKernelTypes[] = {
    {"rbf", vcgmm::KernelType::rbf},
    {"laplacian", vcgmm::KernelType::laplacian},
    {"poly", vcgmm::KernelType::polynomial},
    {"linear", vcgmm::KernelType::linear},
    {"precomputed", vcgmm::KernelType::precomputed},
};
const std::pair<const char*, vcgmm::KernelKMeansAlgorithm> kKernelKMeansAlgorithms[] = {
    {"truncated", vcgmm::KernelKMeansAlgorithm::truncated},
    {"minibatch", vcgmm::KernelKMeansAlgorithm::minibatch},
    {"full", vcgmm::KernelKMeansAlgorithm::full},
};
const std::pair<const char*, vcgmm::LearningRate> kLearningRates[] = {
    {"beta", vcgmm::LearningRate::beta},
    {"sklearn", vcgmm::LearningRate::sklearn},
};
const std::pair<const char*, vcgmm::GraphKernelType> kGraphKernels[] = {
    {"knn", vcgmm::GraphKernelType::knn},
    {"heat", vcgmm::GraphKernelType::heat},
};

// The variational loop's stopping rules by name.
const std::pair<const char*, vcgmm::StopRule> kStopRules[] = {
    {"gain", vcgmm::StopRule::gain},
    {"relative", vcgmm::StopRule::relative},
};

// The variational loop's covariance models by name.
const std::pair<const char*, vcgmm::CovarianceType> kCovarianceTypes[] = {
    {"shared", vcgmm::CovarianceType::shared},
    {"spherical", vcgmm::CovarianceType::spherical},
};

// The refinement's assignments by name ("approx": the library's word for the
// approximate search, as in labels="approx").
const std::pair<const char*, vcgmm::RefineSearch> kRefineSearches[] = {
    {"restricted", vcgmm::RefineSearch::restricted},
    {"approx", vcgmm::RefineSearch::approximate},
    {"exact", vcgmm::RefineSearch::exact},
};

// The approximate assignment's methods by name.
const std::pair<const char*, vcgmm::ApproximateMethod> kApproximateMethods[] = {
    {"gemm", vcgmm::ApproximateMethod::gemm},
    {"graph", vcgmm::ApproximateMethod::graph},
};

// nmbatch's bounds, VRKM's variants and update rules by name.
const std::pair<const char*, vcgmm::NmbatchBounds> kNmbatchBounds[] = {
    {"auto", vcgmm::NmbatchBounds::automatic},
    {"elkan", vcgmm::NmbatchBounds::elkan},
    {"yinyang", vcgmm::NmbatchBounds::yinyang},
    {"none", vcgmm::NmbatchBounds::none},
};
const std::pair<const char*, vcgmm::VrkmVariant> kVrkmVariants[] = {
    {"vrkm++", vcgmm::VrkmVariant::vrkm_plus_plus},
    {"vrkm", vcgmm::VrkmVariant::vrkm},
};
const std::pair<const char*, vcgmm::VrkmUpdateRule> kVrkmUpdateRules[] = {
    {"paper", vcgmm::VrkmUpdateRule::paper},
    {"reference-code", vcgmm::VrkmUpdateRule::reference_code},
};

template <typename E, std::size_t N>
std::string name_of(const std::pair<const char*, E> (&table)[N], E value) {
  for (const auto& entry : table) {
    if (entry.second == value) return entry.first;
  }
  return "?";
}

template <typename E, std::size_t N>
E value_of(const std::pair<const char*, E> (&table)[N], const std::string& name,
           const char* what) {
  std::string names;
  for (const auto& entry : table) {
    if (name == entry.first) return entry.second;
    names += std::string(names.empty() ? "'" : ", '") + entry.first + "'";
  }
  throw vcgmm::InvalidArgument(std::string(what) + " must be one of " + names + ", got '" +
                               name + "'");
}

template <typename E, std::size_t N>
py::list names_of(const std::pair<const char*, E> (&table)[N]) {
  py::list names;
  for (const auto& entry : table) names.append(entry.first);
  return names;
}

py::dict to_dict(const vcgmm::DistanceCounts& c) {
  py::dict d;
  d["coreset"] = c.coreset;
  d["seeding"] = c.seeding;
  d["iterations"] = c.iterations;
  d["refinement"] = c.refinement;
  d["evaluation"] = c.evaluation;
  return d;
}

py::dict to_dict(const vcgmm::PhaseTimes& t) {
  py::dict d;
  d["coreset"] = t.coreset;
  d["seeding"] = t.seeding;
  d["iterations"] = t.iterations;
  d["refinement"] = t.refinement;
  d["evaluation"] = t.evaluation;
  return d;
}

/// A property of an enum field E P::*field, by the names of `table`.
template <typename P, typename E, std::size_t N>
void enum_property(py::class_<P>& cls, const char* name, E P::*field,
                   const std::pair<const char*, E> (&table)[N]) {
  cls.def_property(
      name, [field, &table](const P& p) { return name_of(table, p.*field); },
      [field, &table, name](P& p, const std::string& value) {
        p.*field = value_of(table, value, name);
      });
}

template <typename P>
py::class_<P> params_class(py::module_& m, const char* name) {
  return py::class_<P>(m, name, py::module_local()).def(py::init<>());
}

void bind_parameter_classes(py::module_& m) {
  params_class<vcgmm::RunOptions>(m, "RunOptions")
      .def_readwrite("seed", &vcgmm::RunOptions::seed)
      .def_readwrite("n_threads", &vcgmm::RunOptions::n_threads)
      .def_property(
          "log", [](const vcgmm::RunOptions& r) { return static_cast<bool>(r.log); },
          [](vcgmm::RunOptions& r, std::function<void(const std::string&)> f) {
            r.log = python_logger(std::move(f));
          },
          "Progress callable taking one line of text, or None (reads back as a bool).")
      .def_property(
          "progress", [](const vcgmm::RunOptions& r) { return static_cast<bool>(r.progress); },
          [](vcgmm::RunOptions& r, std::function<py::object(py::dict)> f) {
            r.progress = python_progress(std::move(f));
          },
          "Callable taking a dict per iteration / phase end and returning True to stop, or "
          "None (reads back as a bool).");
  params_class<vcgmm::KMeansPlusPlusParams>(m, "KMeansPlusPlusParams")
      .def_readwrite("n_local_trials", &vcgmm::KMeansPlusPlusParams::n_local_trials);
  params_class<vcgmm::Afkmc2Params>(m, "Afkmc2Params")
      .def_readwrite("chain_length", &vcgmm::Afkmc2Params::chain_length)
      .def_readwrite("screen_dims", &vcgmm::Afkmc2Params::screen_dims)
      .def("min_screen_coordinates",
           [](const vcgmm::Afkmc2Params& p, vcgmm::index_t d) {
             return vcgmm::afkmc2_min_screen_coordinates(d, p);
           },
           py::arg("d"),
           "The fewest coordinates of a center one chain comparison reads on d features "
           "(a lower bound for cost estimates; afkmc2.hpp).");
  params_class<vcgmm::SeedingParams>(m, "SeedingParams")
      .def_property(
          "method", [](const vcgmm::SeedingParams& p) { return name_of(kSeedingMethods, p.method); },
          [](vcgmm::SeedingParams& p, const std::string& name) {
            p.method = value_of(kSeedingMethods, name, "init");
          })
      .def_readwrite("kmeans_plusplus", &vcgmm::SeedingParams::kmeans_plusplus)
      .def_readwrite("afkmc2", &vcgmm::SeedingParams::afkmc2);
  params_class<vcgmm::ApproximateAssignmentParams>(m, "ApproximateAssignmentParams")
      .def_property(
          "method",
          [](const vcgmm::ApproximateAssignmentParams& p) {
            return name_of(kApproximateMethods, p.method);
          },
          [](vcgmm::ApproximateAssignmentParams& p, const std::string& name) {
            p.method = value_of(kApproximateMethods, name, "method");
          })
      .def_readwrite("n_probe", &vcgmm::ApproximateAssignmentParams::n_probe)
      .def_readwrite("probe_ratio", &vcgmm::ApproximateAssignmentParams::probe_ratio)
      .def_readwrite("coarse_iter", &vcgmm::ApproximateAssignmentParams::coarse_iter)
      .def_readwrite("screen_dims", &vcgmm::ApproximateAssignmentParams::screen_dims)
      .def_readwrite("graph_degree", &vcgmm::ApproximateAssignmentParams::graph_degree)
      .def_readwrite("n_starts", &vcgmm::ApproximateAssignmentParams::n_starts)
      .def_readwrite("coarse_size", &vcgmm::ApproximateAssignmentParams::coarse_size)
      .def_readwrite("beam_width", &vcgmm::ApproximateAssignmentParams::beam_width);
  params_class<vcgmm::LloydParams>(m, "LloydParams")
      .def_readwrite("max_iter", &vcgmm::LloydParams::max_iter)
      .def_readwrite("tol", &vcgmm::LloydParams::tol)
      .def_readwrite("relocate_empty", &vcgmm::LloydParams::relocate_empty)
      .def_readwrite("spherical", &vcgmm::LloydParams::spherical);
  params_class<vcgmm::VariationalGmmParams>(m, "VariationalGmmParams")
      .def_readwrite("G", &vcgmm::VariationalGmmParams::G)
      .def_readwrite("plus1", &vcgmm::VariationalGmmParams::plus1)
      .def_readwrite("n_init_estep", &vcgmm::VariationalGmmParams::n_init_estep)
      .def_readwrite("tol", &vcgmm::VariationalGmmParams::tol)
      .def_readwrite("max_iter", &vcgmm::VariationalGmmParams::max_iter)
      .def_readwrite("refine", &vcgmm::VariationalGmmParams::refine)
      .def_readwrite("variance_floor", &vcgmm::VariationalGmmParams::variance_floor)
      .def_property(
          "stop_rule",
          [](const vcgmm::VariationalGmmParams& p) { return name_of(kStopRules, p.stop_rule); },
          [](vcgmm::VariationalGmmParams& p, const std::string& name) {
            p.stop_rule = value_of(kStopRules, name, "stop_rule");
          })
      .def_property(
          "covariance_type",
          [](const vcgmm::VariationalGmmParams& p) {
            return name_of(kCovarianceTypes, p.covariance_type);
          },
          [](vcgmm::VariationalGmmParams& p, const std::string& name) {
            p.covariance_type = value_of(kCovarianceTypes, name, "covariance_type");
          })
      .def_property(
          "refine_search",
          [](const vcgmm::VariationalGmmParams& p) {
            return name_of(kRefineSearches, p.refine_search);
          },
          [](vcgmm::VariationalGmmParams& p, const std::string& name) {
            p.refine_search = value_of(kRefineSearches, name, "refine_search");
          });
  params_class<vcgmm::PipelineParams>(m, "PipelineParams")
      .def_readwrite("n_clusters", &vcgmm::PipelineParams::n_clusters)
      .def_readwrite("coreset_size", &vcgmm::PipelineParams::coreset_size)
      .def_readwrite("seeding", &vcgmm::PipelineParams::seeding)
      .def_readwrite("evaluate", &vcgmm::PipelineParams::evaluate)
      .def_readwrite("run", &vcgmm::PipelineParams::run);
  params_class<vcgmm::KernelParams>(m, "KernelParams")
      .def_property(
          "type", [](const vcgmm::KernelParams& p) { return name_of(kKernelTypes, p.type); },
          [](vcgmm::KernelParams& p, const std::string& name) {
            p.type = value_of(kKernelTypes, name, "kernel");
          })
      .def_readwrite("gamma", &vcgmm::KernelParams::gamma)
      .def_readwrite("degree", &vcgmm::KernelParams::degree)
      .def_readwrite("coef0", &vcgmm::KernelParams::coef0);
  params_class<vcgmm::KernelKMeansParams>(m, "KernelKMeansParams")
      .def_readwrite("n_clusters", &vcgmm::KernelKMeansParams::n_clusters)
      .def_readwrite("kernel", &vcgmm::KernelKMeansParams::kernel)
      .def_property(
          "algorithm",
          [](const vcgmm::KernelKMeansParams& p) { return name_of(kKernelKMeansAlgorithms, p.algorithm); },
          [](vcgmm::KernelKMeansParams& p, const std::string& name) {
            p.algorithm = value_of(kKernelKMeansAlgorithms, name, "algorithm");
          })
      .def_readwrite("batch_size", &vcgmm::KernelKMeansParams::batch_size)
      .def_readwrite("tau", &vcgmm::KernelKMeansParams::tau)
      .def_property(
          "learning_rate",
          [](const vcgmm::KernelKMeansParams& p) { return name_of(kLearningRates, p.learning_rate); },
          [](vcgmm::KernelKMeansParams& p, const std::string& name) {
            p.learning_rate = value_of(kLearningRates, name, "learning_rate");
          })
      .def_readwrite("max_iter", &vcgmm::KernelKMeansParams::max_iter)
      .def_readwrite("tol", &vcgmm::KernelKMeansParams::tol)
      .def_readwrite("evaluate", &vcgmm::KernelKMeansParams::evaluate)
      .def_readwrite("run", &vcgmm::KernelKMeansParams::run);
  params_class<vcgmm::GraphKernelParams>(m, "GraphKernelParams")
      .def_property(
          "type", [](const vcgmm::GraphKernelParams& p) { return name_of(kGraphKernels, p.type); },
          [](vcgmm::GraphKernelParams& p, const std::string& name) {
            p.type = value_of(kGraphKernels, name, "kernel");
          })
      .def_readwrite("n_neighbors", &vcgmm::GraphKernelParams::n_neighbors)
      .def_readwrite("t", &vcgmm::GraphKernelParams::t);
  py::class_<vcgmm::KMeansParams, vcgmm::PipelineParams>(m, "KMeansParams", py::module_local())
      .def(py::init<>())
      .def_readwrite("lloyd", &vcgmm::KMeansParams::lloyd);
  py::class_<vcgmm::VcgmmParams, vcgmm::PipelineParams>(m, "VcgmmParams", py::module_local())
      .def(py::init<>())
      .def_readwrite("em", &vcgmm::VcgmmParams::em);
}

void bind_stochastic_parameter_classes(py::module_& m) {
  params_class<vcgmm::MbatchParams>(m, "MbatchParams")
      .def_readwrite("batch_size", &vcgmm::MbatchParams::batch_size)
      .def_readwrite("max_iter", &vcgmm::MbatchParams::max_iter)
      .def_readwrite("spherical", &vcgmm::MbatchParams::spherical);
  auto nm = params_class<vcgmm::NmbatchParams>(m, "NmbatchParams");
  nm.def_readwrite("batch_size", &vcgmm::NmbatchParams::batch_size)
      .def_readwrite("rho", &vcgmm::NmbatchParams::rho)
      .def_readwrite("max_iter", &vcgmm::NmbatchParams::max_iter)
      .def_readwrite("time_budget", &vcgmm::NmbatchParams::time_budget)
      .def_readwrite("n_groups", &vcgmm::NmbatchParams::n_groups)
      .def_readwrite("bounds_memory", &vcgmm::NmbatchParams::bounds_memory)
      .def_readwrite("spherical", &vcgmm::NmbatchParams::spherical);
  enum_property(nm, "bounds", &vcgmm::NmbatchParams::bounds, kNmbatchBounds);
  auto vr = params_class<vcgmm::VrkmParams>(m, "VrkmParams");
  vr.def_readwrite("learning_rate", &vcgmm::VrkmParams::learning_rate)
      .def_readwrite("epoch_size", &vcgmm::VrkmParams::epoch_size)
      .def_readwrite("max_epochs", &vcgmm::VrkmParams::max_epochs)
      .def_readwrite("tol", &vcgmm::VrkmParams::tol)
      .def_readwrite("block_size", &vcgmm::VrkmParams::block_size);
  enum_property(vr, "variant", &vcgmm::VrkmParams::variant, kVrkmVariants);
  enum_property(vr, "update_rule", &vcgmm::VrkmParams::update_rule, kVrkmUpdateRules);
  py::class_<vcgmm::MbatchKMeansParams, vcgmm::PipelineParams>(m, "MbatchKMeansParams",
                                                               py::module_local())
      .def(py::init<>())
      .def_readwrite("mbatch", &vcgmm::MbatchKMeansParams::mbatch);
  py::class_<vcgmm::NmbatchKMeansParams, vcgmm::PipelineParams>(m, "NmbatchKMeansParams",
                                                                py::module_local())
      .def(py::init<>())
      .def_readwrite("nmbatch", &vcgmm::NmbatchKMeansParams::nmbatch);
  py::class_<vcgmm::VrkmKMeansParams, vcgmm::PipelineParams>(m, "VrkmKMeansParams",
                                                             py::module_local())
      .def(py::init<>())
      .def_readwrite("vrkm", &vcgmm::VrkmKMeansParams::vrkm);
}

/// A read-only numpy property of a vector field.
template <typename R, typename V>
void vector_property(py::class_<R, vcgmm::IterationResult>& cls, const char* name,
                     std::vector<V> R::*field) {
  cls.def_property_readonly(name, [field](const R& r) { return to_numpy(r.*field); });
}

void bind_stochastic_result_classes(py::module_& m) {
  py::class_<vcgmm::MbatchResult, vcgmm::IterationResult> mb(m, "MbatchResult",
                                                             py::module_local());
  mb.def_readonly("batch_size", &vcgmm::MbatchResult::batch_size);
  vector_property(mb, "objective", &vcgmm::MbatchResult::objective);
  vector_property(mb, "seconds", &vcgmm::MbatchResult::seconds);
  vector_property(mb, "counts", &vcgmm::MbatchResult::counts);
  py::class_<vcgmm::NmbatchResult, vcgmm::IterationResult> nm(m, "NmbatchResult",
                                                              py::module_local());
  nm.def_property_readonly("bounds",
                           [](const vcgmm::NmbatchResult& r) { return name_of(kNmbatchBounds, r.bounds); })
      .def_readonly("n_groups", &vcgmm::NmbatchResult::n_groups)
      .def_readonly("bounds_bytes", &vcgmm::NmbatchResult::bounds_bytes)
      .def_readonly("batch_size", &vcgmm::NmbatchResult::batch_size)
      .def_readonly("n_skipped", &vcgmm::NmbatchResult::n_skipped);
  vector_property(nm, "objective", &vcgmm::NmbatchResult::objective);
  vector_property(nm, "seconds", &vcgmm::NmbatchResult::seconds);
  vector_property(nm, "batch_sizes", &vcgmm::NmbatchResult::batch_sizes);
  vector_property(nm, "computed", &vcgmm::NmbatchResult::computed);
  vector_property(nm, "skipped", &vcgmm::NmbatchResult::skipped);
  vector_property(nm, "n_changed", &vcgmm::NmbatchResult::n_changed);
  py::class_<vcgmm::VrkmResult, vcgmm::IterationResult> vr(m, "VrkmResult", py::module_local());
  vr.def_readonly("learning_rate", &vcgmm::VrkmResult::learning_rate)
      .def_readonly("epoch_size", &vcgmm::VrkmResult::epoch_size)
      .def_readonly("full_pass_seconds", &vcgmm::VrkmResult::full_pass_seconds)
      .def_readonly("correction_seconds", &vcgmm::VrkmResult::correction_seconds)
      .def_readonly("inner_loop_seconds", &vcgmm::VrkmResult::inner_loop_seconds);
  vector_property(vr, "objective", &vcgmm::VrkmResult::objective);
  vector_property(vr, "seconds", &vcgmm::VrkmResult::seconds);
  vector_property(vr, "n_updates", &vcgmm::VrkmResult::n_updates);
  py::class_<vcgmm::MbatchKMeansResult, vcgmm::MbatchResult>(m, "MbatchKMeansResult",
                                                             py::module_local())
      .def_readonly("inertia", &vcgmm::MbatchKMeansResult::inertia);
  py::class_<vcgmm::NmbatchKMeansResult, vcgmm::NmbatchResult>(m, "NmbatchKMeansResult",
                                                               py::module_local())
      .def_readonly("inertia", &vcgmm::NmbatchKMeansResult::inertia);
  py::class_<vcgmm::VrkmKMeansResult, vcgmm::VrkmResult>(m, "VrkmKMeansResult",
                                                         py::module_local())
      .def_readonly("inertia", &vcgmm::VrkmKMeansResult::inertia);
  py::class_<vcgmm::MbatchStepStats>(m, "MbatchStepStats", py::module_local())
      .def_readonly("objective", &vcgmm::MbatchStepStats::objective)
      .def_readonly("n_distance_evals", &vcgmm::MbatchStepStats::n_distance_evals);
}

void bind_result_classes(py::module_& m) {
  py::class_<vcgmm::PhaseCosts>(m, "PhaseCosts", py::module_local())
      .def_property_readonly("n_distance_evals",
                             [](const vcgmm::PhaseCosts& c) { return to_dict(c.n_distance_evals); })
      .def_property_readonly("timings",
                             [](const vcgmm::PhaseCosts& c) { return to_dict(c.timings); });
  py::class_<vcgmm::IterationResult, vcgmm::PhaseCosts>(m, "IterationResult", py::module_local())
      .def_readonly("n_iter", &vcgmm::IterationResult::n_iter)
      .def_readonly("converged", &vcgmm::IterationResult::converged);
  py::class_<vcgmm::LloydResult, vcgmm::IterationResult>(m, "LloydResult", py::module_local())
      .def_property_readonly("objective",
                             [](const vcgmm::LloydResult& r) { return to_numpy(r.objective); })
      .def_readonly("n_relocated", &vcgmm::LloydResult::n_relocated);
  py::class_<vcgmm::VariationalGmmResult, vcgmm::IterationResult>(m, "VariationalGmmResult",
                                                                  py::module_local())
      .def_readonly("G", &vcgmm::VariationalGmmResult::G)
      .def_readonly("sigma2", &vcgmm::VariationalGmmResult::sigma2)
      .def_property_readonly(
          "free_energy", [](const vcgmm::VariationalGmmResult& r) { return to_numpy(r.free_energy); })
      .def_property_readonly("estep_distance_evals",
                             [](const vcgmm::VariationalGmmResult& r) {
                               return to_numpy(r.estep_distance_evals);
                             })
      .def_property_readonly("refine_objective", [](const vcgmm::VariationalGmmResult& r) {
        return to_numpy(r.refine_objective);
      })
      .def_readonly("final_free_energy", &vcgmm::VariationalGmmResult::final_free_energy)
      .def_property_readonly("refine_relocated", [](const vcgmm::VariationalGmmResult& r) {
        return to_numpy(r.refine_relocated);
      })
      .def_property_readonly("variances", [](const vcgmm::VariationalGmmResult& r) {
        return to_numpy(r.variances);
      })
      .def_property_readonly("mixing_weights", [](const vcgmm::VariationalGmmResult& r) {
        return to_numpy(r.mixing_weights);
      });
  py::class_<vcgmm::KMeansResult, vcgmm::LloydResult>(m, "KMeansResult", py::module_local())
      .def_readonly("inertia", &vcgmm::KMeansResult::inertia);
  py::class_<vcgmm::VcgmmResult, vcgmm::VariationalGmmResult>(m, "VcgmmResult", py::module_local())
      .def_readonly("inertia", &vcgmm::VcgmmResult::inertia);
  py::class_<vcgmm::KernelKMeansResult, vcgmm::IterationResult>(m, "KernelKMeansResult",
                                                                py::module_local())
      .def_property_readonly("support",
                             [](const vcgmm::KernelKMeansResult& r) { return to_numpy(r.centers.support); })
      .def_property_readonly("indptr",
                             [](const vcgmm::KernelKMeansResult& r) { return to_numpy(r.centers.indptr); })
      .def_property_readonly("index",
                             [](const vcgmm::KernelKMeansResult& r) { return to_numpy(r.centers.index); })
      .def_property_readonly("coef",
                             [](const vcgmm::KernelKMeansResult& r) { return to_numpy(r.centers.coef); })
      .def_property_readonly("sqnorm",
                             [](const vcgmm::KernelKMeansResult& r) { return to_numpy(r.centers.sqnorm); })
      .def_readonly("kernel", &vcgmm::KernelKMeansResult::kernel)
      .def_property_readonly(
          "init_indices", [](const vcgmm::KernelKMeansResult& r) { return to_numpy(r.init_indices); })
      .def_property_readonly(
          "objective", [](const vcgmm::KernelKMeansResult& r) { return to_numpy(r.objective); })
      .def_readonly("inertia", &vcgmm::KernelKMeansResult::inertia);
  py::class_<vcgmm::SeedingStats, vcgmm::PhaseCosts>(m, "SeedingStats", py::module_local());
  py::class_<vcgmm::CoresetStats, vcgmm::PhaseCosts>(m, "CoresetStats", py::module_local());
  using AAS = vcgmm::ApproximateAssignmentStats;
  py::class_<AAS, vcgmm::PhaseCosts>(m, "ApproximateAssignmentStats", py::module_local())
      .def_readonly("objective", &AAS::objective)
      .def_readonly("index_distance_evals", &AAS::index_distance_evals)
      .def_readonly("search_distance_evals", &AAS::search_distance_evals)
      .def_readonly("index_seconds", &AAS::index_seconds)
      .def_readonly("search_seconds", &AAS::search_seconds);
}

}  // namespace

void bind_params(py::module_& m) {
  m.def("seeding_methods", [] { return names_of(kSeedingMethods); },
        "Names of the seeding methods, as SeedingParams.method takes them.");
  m.def("kernel_types", [] { return names_of(kKernelTypes); },
        "Names of the kernels of kernel k-means (KernelParams.type).");
  m.def("kernel_kmeans_algorithms", [] { return names_of(kKernelKMeansAlgorithms); },
        "Names of the kernel k-means algorithms (KernelKMeansParams.algorithm).");
  m.def("learning_rates", [] { return names_of(kLearningRates); },
        "Names of the mini-batch learning rates (KernelKMeansParams.learning_rate).");
  m.def("graph_kernels", [] { return names_of(kGraphKernels); },
        "Names of the graph kernels (GraphKernelParams.type).");
  m.def("approximate_methods", [] { return names_of(kApproximateMethods); },
        "Names of the approximate assignment's methods (ApproximateAssignmentParams.method).");
  m.def("stop_rules", [] { return names_of(kStopRules); },
        "Names of the variational loop's stopping rules (VariationalGmmParams.stop_rule).");
  m.def("refine_searches", [] { return names_of(kRefineSearches); },
        "Names of the refinement's assignments (VariationalGmmParams.refine_search).");
  m.def("covariance_types", [] { return names_of(kCovarianceTypes); },
        "Names of the variational loop's covariance models (VariationalGmmParams.covariance_type).");
  m.def("nmbatch_bounds", [] { return names_of(kNmbatchBounds); },
        "Names of nmbatch's bounds (NmbatchParams.bounds).");
  m.def("vrkm_variants", [] { return names_of(kVrkmVariants); }, "VrkmParams.variant names.");
  m.def("vrkm_update_rules", [] { return names_of(kVrkmUpdateRules); },
        "VrkmParams.update_rule names.");
  bind_parameter_classes(m);
  bind_stochastic_parameter_classes(m);
  bind_result_classes(m);
  bind_stochastic_result_classes(m);
}

}  // namespace vcgmm_python
