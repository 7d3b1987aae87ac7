// What every family uses: build information, cancellation, RunOptions (with
// the logger and progress callbacks), the cost and result bases, and the
// pipeline's params (SeedingParams with the k-means++ and AFK-MC^2 params it
// holds, PipelineParams).
#include <string>
#include <utility>

#include "bindings.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/pipeline.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::SeedingMethod;

const NameTable<SeedingMethod> kSeedingMethods[] = {
    {"k-means++", SeedingMethod::kmeans_plusplus},
    {"afk-mc2", SeedingMethod::afkmc2},
    {"random", SeedingMethod::random},
    {"auto", SeedingMethod::automatic},
    {"given", SeedingMethod::given},
};

/// A Logger calling a Python callable (pybind11's wrapper takes the GIL for
/// each call and for copies).
vcgmm::Logger python_logger(std::function<void(const std::string&)> f) {
  if (!f) return {};
  return [f](const std::string& line) { call_python_from_core([&] { f(line); }); };
}

/// A ProgressCallback calling a Python callable with a dict (algorithm,
/// phase, iteration, objective, seconds, distance_evals); a truthy return
/// value asks the loop to stop. The GIL is held while the dict and the
/// callable's result exist; a Python exception propagates out of the fit.
vcgmm::ProgressCallback python_progress(std::function<py::object(py::dict)> f) {
  if (!f) return {};
  return [f](const vcgmm::ProgressRecord& r) -> bool {
    return call_python_from_core([&]() -> bool {
      py::gil_scoped_acquire gil;
      py::dict d;
      d["algorithm"] = r.algorithm;
      d["phase"] = r.phase;
      d["iteration"] = r.iteration;
      d["objective"] = r.objective;
      d["seconds"] = r.seconds;
      d["distance_evals"] = r.distance_evals;
      py::object stop = f(std::move(d));
      return !stop.is_none() && PyObject_IsTrue(stop.ptr()) == 1;
    });
  };
}

/// The five phases of DistanceCounts or PhaseTimes as a dict.
template <typename Phases>
py::dict phases_dict(const Phases& p) {
  py::dict d;
  d["coreset"] = p.coreset;
  d["seeding"] = p.seeding;
  d["iterations"] = p.iterations;
  d["refinement"] = p.refinement;
  d["evaluation"] = p.evaluation;
  return d;
}

void bind_build_info(py::module_& m) {
  m.def("version", &vcgmm::version, "Library version.");
  m.def("have_openmp", &vcgmm::have_openmp, "True when compiled with OpenMP.");
  m.def("compiled_arch", &vcgmm::compiled_arch, "Instruction-set level of this module.");
  m.def("default_threads", &vcgmm::default_threads,
        "Threads n_threads=None stands for (OpenMP's default).");
  m.def("cancel_all", [] { ++g_cancel_generation; },
        "Stop every computation running in any thread at its next interrupt check.");
  m.def("cancel_generation", [] { return g_cancel_generation.load(); },
        "How many times cancel_all() was called: a computation made of several core calls "
        "(a fit over chunks read by Python) is cancelled when it changes.");
  m.def("single_threaded_after_fork", &vcgmm::single_threaded_after_fork,
        "True in a child forked after OpenMP threads started: computations run on one thread.");
  m.def("start_region_trace", &vcgmm::start_region_trace,
        "Benchmarks: record the parallel regions run on one thread (call between fits).");
  m.def("stop_region_trace",
        [] {
          py::list out;
          for (const vcgmm::RegionTrace& r : vcgmm::stop_region_trace()) {
            out.append(py::make_tuple(r.start, r.end, r.worth,
                                      py::array_t<double>(static_cast<py::ssize_t>(
                                                              r.task_seconds.size()),
                                                          r.task_seconds.data())));
          }
          return out;
        },
        "Benchmarks: stop recording; [(start, end, worth, task_seconds)] per region, in order.");
}

void bind_run_options(py::module_& m) {
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
}

void bind_pipeline_params(py::module_& m) {
  def_names(m, "seeding_methods", kSeedingMethods,
            "Names of the seeding methods, as SeedingParams.method takes them.");
  m.def(
      "resolve_seeding",
      [](const std::string& method, vcgmm::index_t n_clusters) {
        return name_of(kSeedingMethods,
                       vcgmm::resolve_seeding(value_of(kSeedingMethods, method, "init"), n_clusters));
      },
      py::arg("method"), py::arg("n_clusters"),
      "The seeding method `method` stands for with n_clusters clusters ('auto' resolved).");
  m.attr("AUTO_SEEDING_MAX_CLUSTERS") = vcgmm::kAutoSeedingMaxClusters;
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
  auto seeding = params_class<vcgmm::SeedingParams>(m, "SeedingParams");
  enum_property(seeding, "method", &vcgmm::SeedingParams::method, kSeedingMethods, "init");
  seeding.def_readwrite("kmeans_plusplus", &vcgmm::SeedingParams::kmeans_plusplus)
      .def_readwrite("afkmc2", &vcgmm::SeedingParams::afkmc2);
  params_class<vcgmm::PipelineParams>(m, "PipelineParams")
      .def_readwrite("n_clusters", &vcgmm::PipelineParams::n_clusters)
      .def_readwrite("coreset_size", &vcgmm::PipelineParams::coreset_size)
      .def_readwrite("seeding", &vcgmm::PipelineParams::seeding)
      .def_readwrite("evaluate", &vcgmm::PipelineParams::evaluate)
      .def_readwrite("run", &vcgmm::PipelineParams::run);
}

void bind_result_bases(py::module_& m) {
  result_class<vcgmm::PhaseCosts>(m, "PhaseCosts")
      .def_property_readonly("n_distance_evals",
                             [](const vcgmm::PhaseCosts& c) { return phases_dict(c.n_distance_evals); })
      .def_property_readonly("timings",
                             [](const vcgmm::PhaseCosts& c) { return phases_dict(c.timings); });
  result_class<vcgmm::IterationResult, vcgmm::PhaseCosts>(m, "IterationResult")
      .def_readonly("n_iter", &vcgmm::IterationResult::n_iter)
      .def_readonly("converged", &vcgmm::IterationResult::converged);
  result_class<vcgmm::SeedingStats, vcgmm::PhaseCosts>(m, "SeedingStats");
}

}  // namespace

void bind_common(py::module_& m) {
  bind_build_info(m);
  bind_run_options(m);
  bind_pipeline_params(m);
  bind_result_bases(m);
}

}  // namespace vcgmm_python
