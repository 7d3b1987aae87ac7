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
#include "vcgmm/kmeans.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"
#include "vcgmm/lloyd.hpp"
#include "vcgmm/pipeline.hpp"
#include "vcgmm/variational_gmm.hpp"
#include "vcgmm/vc_gmm.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::SeedingMethod;

// The seeding methods by their user-facing names: the one table of them.
const std::pair<const char*, SeedingMethod> kSeedingMethods[] = {
    {"k-means++", SeedingMethod::kmeans_plusplus},
    {"afk-mc2", SeedingMethod::afkmc2},
    {"given", SeedingMethod::given},
};

// The variational loop's stopping rules by name.
const std::pair<const char*, vcgmm::StopRule> kStopRules[] = {
    {"gain", vcgmm::StopRule::gain},
    {"relative", vcgmm::StopRule::relative},
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
          "Progress callable taking one line of text, or None (reads back as a bool).");
  params_class<vcgmm::KMeansPlusPlusParams>(m, "KMeansPlusPlusParams")
      .def_readwrite("n_local_trials", &vcgmm::KMeansPlusPlusParams::n_local_trials);
  params_class<vcgmm::Afkmc2Params>(m, "Afkmc2Params")
      .def_readwrite("chain_length", &vcgmm::Afkmc2Params::chain_length);
  params_class<vcgmm::SeedingParams>(m, "SeedingParams")
      .def_property(
          "method", [](const vcgmm::SeedingParams& p) { return name_of(kSeedingMethods, p.method); },
          [](vcgmm::SeedingParams& p, const std::string& name) {
            p.method = value_of(kSeedingMethods, name, "init");
          })
      .def_readwrite("kmeans_plusplus", &vcgmm::SeedingParams::kmeans_plusplus)
      .def_readwrite("afkmc2", &vcgmm::SeedingParams::afkmc2);
  params_class<vcgmm::LloydParams>(m, "LloydParams")
      .def_readwrite("max_iter", &vcgmm::LloydParams::max_iter)
      .def_readwrite("tol", &vcgmm::LloydParams::tol)
      .def_readwrite("relocate_empty", &vcgmm::LloydParams::relocate_empty);
  params_class<vcgmm::VariationalGmmParams>(m, "VariationalGmmParams")
      .def_readwrite("G", &vcgmm::VariationalGmmParams::G)
      .def_readwrite("plus1", &vcgmm::VariationalGmmParams::plus1)
      .def_readwrite("n_init_estep", &vcgmm::VariationalGmmParams::n_init_estep)
      .def_readwrite("tol", &vcgmm::VariationalGmmParams::tol)
      .def_readwrite("max_iter", &vcgmm::VariationalGmmParams::max_iter)
      .def_readwrite("refine", &vcgmm::VariationalGmmParams::refine)
      .def_property(
          "stop_rule",
          [](const vcgmm::VariationalGmmParams& p) { return name_of(kStopRules, p.stop_rule); },
          [](vcgmm::VariationalGmmParams& p, const std::string& name) {
            p.stop_rule = value_of(kStopRules, name, "stop_rule");
          });
  params_class<vcgmm::PipelineParams>(m, "PipelineParams")
      .def_readwrite("n_clusters", &vcgmm::PipelineParams::n_clusters)
      .def_readwrite("coreset_size", &vcgmm::PipelineParams::coreset_size)
      .def_readwrite("seeding", &vcgmm::PipelineParams::seeding)
      .def_readwrite("evaluate", &vcgmm::PipelineParams::evaluate)
      .def_readwrite("run", &vcgmm::PipelineParams::run);
  py::class_<vcgmm::KMeansParams, vcgmm::PipelineParams>(m, "KMeansParams", py::module_local())
      .def(py::init<>())
      .def_readwrite("lloyd", &vcgmm::KMeansParams::lloyd);
  py::class_<vcgmm::VcgmmParams, vcgmm::PipelineParams>(m, "VcgmmParams", py::module_local())
      .def(py::init<>())
      .def_readwrite("em", &vcgmm::VcgmmParams::em);
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
      });
  py::class_<vcgmm::KMeansResult, vcgmm::LloydResult>(m, "KMeansResult", py::module_local())
      .def_readonly("inertia", &vcgmm::KMeansResult::inertia);
  py::class_<vcgmm::VcgmmResult, vcgmm::VariationalGmmResult>(m, "VcgmmResult", py::module_local())
      .def_readonly("inertia", &vcgmm::VcgmmResult::inertia);
  py::class_<vcgmm::SeedingStats, vcgmm::PhaseCosts>(m, "SeedingStats", py::module_local());
  py::class_<vcgmm::CoresetStats, vcgmm::PhaseCosts>(m, "CoresetStats", py::module_local());
}

}  // namespace

void bind_params(py::module_& m) {
  m.def("seeding_methods", [] { return names_of(kSeedingMethods); },
        "Names of the seeding methods, as SeedingParams.method takes them.");
  m.def("stop_rules", [] { return names_of(kStopRules); },
        "Names of the variational loop's stopping rules (VariationalGmmParams.stop_rule).");
  bind_parameter_classes(m);
  bind_result_classes(m);
}

}  // namespace vcgmm_python
