// The stochastic k-means family: mbatch (and its single step, for
// partial_fit), nmbatch, VRKM / VRKM++: their params, results and name
// tables, their pipelines, and the draws each makes (so tests and research
// can reproduce them).
#include <algorithm>

#include "bindings.hpp"
#include "vcgmm/minibatch.hpp"
#include "vcgmm/nested_minibatch.hpp"
#include "vcgmm/vrkm.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

const NameTable<vcgmm::NmbatchBounds> kNmbatchBounds[] = {
    {"auto", vcgmm::NmbatchBounds::automatic},
    {"elkan", vcgmm::NmbatchBounds::elkan},
    {"yinyang", vcgmm::NmbatchBounds::yinyang},
    {"none", vcgmm::NmbatchBounds::none},
};
const NameTable<vcgmm::NmbatchDoubling> kNmbatchDoubling[] = {
    {"paper", vcgmm::NmbatchDoubling::paper},
    {"median", vcgmm::NmbatchDoubling::median},
};
const NameTable<vcgmm::VrkmVariant> kVrkmVariants[] = {
    {"vrkm++", vcgmm::VrkmVariant::vrkm_plus_plus},
    {"vrkm", vcgmm::VrkmVariant::vrkm},
};
const NameTable<vcgmm::VrkmUpdateRule> kVrkmUpdateRules[] = {
    {"svrg", vcgmm::VrkmUpdateRule::svrg},
    {"label-change", vcgmm::VrkmUpdateRule::label_change},
};

/// (centers, counts, labels or None, stats): one mbatch step on copies of
/// the state (the caller's arrays are not modified).
template <typename T>
py::tuple mbatch_step(const CArray<T>& X, const OptWeights& w, const CArray<T>& centers,
                      const CArray<double>& counts, bool want_labels, int n_threads,
                      bool spherical, const std::string& learning_rate) {
  const vcgmm::LearningRate rate = value_of(kLearningRates, learning_rate, "learning_rate");
  const auto batch = data_view(X, w);
  const index_t C =
      rows_matching(X, centers, "centers must have shape (n_clusters, n_features)");
  if (counts.ndim() != 1 || counts.shape(0) != C) {
    throw vcgmm::InvalidArgument("counts must have shape (n_clusters,)");
  }
  CArray<T> c_out({C, batch.d});
  CArray<double> v_out(C);
  std::copy(centers.data(), centers.data() + C * batch.d, c_out.mutable_data());
  std::copy(counts.data(), counts.data() + C, v_out.mutable_data());
  std::int32_t* lab = nullptr;
  py::object labels = optional_output(want_labels, batch.n, &lab);
  T* c = c_out.mutable_data();
  double* v = v_out.mutable_data();
  const auto stats = without_gil(
      [&] { return vcgmm::mbatch_step(batch, C, c, v, lab, n_threads, spherical, rate); });
  return py::make_tuple(c_out, v_out, labels, stats);
}

/// (centers, stats): the initial centers of a streaming mbatch fit from its
/// gathered seeding rows.
template <typename T>
py::tuple mbatch_stream_seed(const CArray<T>& X, const OptWeights& w,
                             const vcgmm::MbatchKMeansParams& params) {
  const auto rows = data_view(X, w);
  CArray<T> centers({params.n_clusters, rows.d});
  T* c = centers.mutable_data();
  const auto stats = without_gil([&] { return vcgmm::mbatch_stream_seed(rows, params, c); });
  return py::make_tuple(centers, stats);
}

/// The centers after the batches `iterations` on one chunk (a new array;
/// the state is updated in place).
template <typename T>
CArray<T> mbatch_stream_batches(const CArray<T>& X, const OptWeights& w,
                                const CArray<std::int64_t>& iterations,
                                const vcgmm::MbatchParams& params, const vcgmm::RunOptions& run,
                                const CArray<T>& centers, vcgmm::MbatchStream& state) {
  const auto chunk = data_view(X, w);
  require_shape(centers, state.n_clusters, chunk.d, "centers");
  if (iterations.ndim() != 1) throw vcgmm::InvalidArgument("iterations must be 1-D");
  CArray<T> out({state.n_clusters, chunk.d});
  std::copy(centers.data(), centers.data() + state.n_clusters * chunk.d, out.mutable_data());
  T* c = out.mutable_data();
  without_gil([&] {
    vcgmm::mbatch_stream_batches(chunk, iterations.data(), iterations.shape(0), params, run, c,
                                 &state);
  });
  return out;
}

template <typename T>
void bind_typed(py::module_& m) {
  def_pipeline(m, "fit_mbatch", &vcgmm::fit_mbatch<T>);
  def_pipeline(m, "fit_nmbatch", &vcgmm::fit_nmbatch<T>);
  def_pipeline(m, "fit_vrkm", &vcgmm::fit_vrkm<T>);
  m.def("mbatch_step", &mbatch_step<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("centers").noconvert(),
        py::arg("counts").noconvert(), py::arg("want_labels"), py::arg("n_threads"),
        py::arg("spherical") = false, py::arg("learning_rate") = "sklearn");
  m.def("mbatch_stream_seed", &mbatch_stream_seed<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("params"));
  m.def("mbatch_stream_batches", &mbatch_stream_batches<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("iterations").noconvert(),
        py::arg("params"), py::arg("run"), py::arg("centers").noconvert(), py::arg("state"));
}

/// Streaming mbatch: the state class and the draws (the typed calls are in bind_typed).
void bind_stream(py::module_& m) {
  using S = vcgmm::MbatchStream;
  py::class_<S>(m, "MbatchStream", py::module_local())
      .def_readonly("n", &S::n)
      .def_readonly("total_weight", &S::total_weight)
      .def_readonly("n_clusters", &S::n_clusters)
      .def_readonly("stopped", &S::stopped)
      .def_property_readonly("result", [](const S& s) { return s.result; });
  m.def("mbatch_stream_start", &vcgmm::mbatch_stream_start, py::arg("n"),
        py::arg("total_weight"), py::arg("n_clusters"), py::arg("params"),
        "The state of a streaming mbatch fit before its first batch.");
  m.def("mbatch_stream_seeding_rows",
        [](index_t n, const vcgmm::MbatchKMeansParams& params) {
          return to_numpy(vcgmm::mbatch_stream_seeding_rows(n, params));
        },
        py::arg("n"), py::arg("params"),
        "The rows (of all chunks) a streaming mbatch fit seeds on, in order.");
  m.def("mbatch_stream_plan",
        [](const CArray<index_t>& chunk_rows, std::uint64_t seed, std::int64_t first_iteration,
           index_t n_batches) {
          if (chunk_rows.ndim() != 1 || chunk_rows.shape(0) < 1) {
            throw vcgmm::InvalidArgument("chunk_rows must be a non-empty 1-D array");
          }
          if (n_batches < 0) throw vcgmm::InvalidArgument("n_batches must be >= 0");
          CArray<std::int32_t> chunk(n_batches);
          vcgmm::mbatch_stream_plan(chunk_rows.data(), chunk_rows.shape(0), seed,
                                    first_iteration, n_batches, chunk.mutable_data());
          return chunk;
        },
        py::arg("chunk_rows").noconvert(), py::arg("seed"), py::arg("first_iteration"),
        py::arg("n_batches"), "The chunk each of the next n_batches batches draws from.");
}

void bind_draws(py::module_& m) {
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

void bind_params(py::module_& m) {
  def_names(m, "nmbatch_bounds", kNmbatchBounds,
            "Names of nmbatch's bounds (NmbatchParams.bounds).");
  def_names(m, "nmbatch_doubling", kNmbatchDoubling,
            "Names of nmbatch's doubling tests (NmbatchParams.doubling).");
  def_names(m, "vrkm_variants", kVrkmVariants, "VrkmParams.variant names.");
  def_names(m, "vrkm_update_rules", kVrkmUpdateRules, "VrkmParams.update_rule names.");
  using MP = vcgmm::MbatchParams;
  m.attr("MBATCH_DEFAULT_BATCH") = vcgmm::kMbatchDefaultBatch;
  auto mp = params_class<MP>(m, "MbatchParams");
  mp.def_readwrite("batch_size", &MP::batch_size)
      .def_readwrite("max_iter", &MP::max_iter)
      .def_readwrite("spherical", &MP::spherical)
      .def_readwrite("reassignment_ratio", &MP::reassignment_ratio)
      .def_readwrite("max_no_improvement", &MP::max_no_improvement);
  enum_property(mp, "learning_rate", &MP::learning_rate, kLearningRates);
  using NP = vcgmm::NmbatchParams;
  auto nm = params_class<NP>(m, "NmbatchParams");
  nm.def_readwrite("batch_size", &NP::batch_size)
      .def_readwrite("rho", &NP::rho)
      .def_readwrite("max_iter", &NP::max_iter)
      .def_readwrite("time_budget", &NP::time_budget)
      .def_readwrite("n_groups", &NP::n_groups)
      .def_readwrite("bounds_memory", &NP::bounds_memory)
      .def_readwrite("spherical", &NP::spherical);
  enum_property(nm, "bounds", &NP::bounds, kNmbatchBounds);
  enum_property(nm, "doubling", &NP::doubling, kNmbatchDoubling);
  using VP = vcgmm::VrkmParams;
  auto vr = params_class<VP>(m, "VrkmParams");
  vr.def_readwrite("learning_rate", &VP::learning_rate)
      .def_readwrite("epoch_size", &VP::epoch_size)
      .def_readwrite("max_epochs", &VP::max_epochs)
      .def_readwrite("tol", &VP::tol)
      .def_readwrite("block_size", &VP::block_size)
      .def_readwrite("relocate_empty", &VP::relocate_empty);
  enum_property(vr, "variant", &VP::variant, kVrkmVariants);
  enum_property(vr, "update_rule", &VP::update_rule, kVrkmUpdateRules);
  params_class<vcgmm::MbatchKMeansParams, vcgmm::PipelineParams>(m, "MbatchKMeansParams")
      .def_readwrite("mbatch", &vcgmm::MbatchKMeansParams::mbatch);
  params_class<vcgmm::NmbatchKMeansParams, vcgmm::PipelineParams>(m, "NmbatchKMeansParams")
      .def_readwrite("nmbatch", &vcgmm::NmbatchKMeansParams::nmbatch);
  params_class<vcgmm::VrkmKMeansParams, vcgmm::PipelineParams>(m, "VrkmKMeansParams")
      .def_readwrite("vrkm", &vcgmm::VrkmKMeansParams::vrkm);
}

void bind_results(py::module_& m) {
  using MR = vcgmm::MbatchResult;
  auto mb = result_class<MR, vcgmm::IterationResult>(m, "MbatchResult");
  mb.def_readonly("batch_size", &MR::batch_size)
      .def_readonly("n_reassigned", &MR::n_reassigned);
  vector_property(mb, "objective", &MR::objective);
  vector_property(mb, "seconds", &MR::seconds);
  vector_property(mb, "counts", &MR::counts);
  using NR = vcgmm::NmbatchResult;
  auto nm = result_class<NR, vcgmm::IterationResult>(m, "NmbatchResult");
  enum_property_readonly(nm, "bounds", &NR::bounds, kNmbatchBounds);
  nm.def_readonly("n_groups", &NR::n_groups)
      .def_readonly("bounds_bytes", &NR::bounds_bytes)
      .def_readonly("batch_size", &NR::batch_size)
      .def_readonly("n_skipped", &NR::n_skipped);
  vector_property(nm, "objective", &NR::objective);
  vector_property(nm, "seconds", &NR::seconds);
  vector_property(nm, "batch_sizes", &NR::batch_sizes);
  vector_property(nm, "computed", &NR::computed);
  vector_property(nm, "skipped", &NR::skipped);
  vector_property(nm, "n_changed", &NR::n_changed);
  using VR = vcgmm::VrkmResult;
  auto vr = result_class<VR, vcgmm::IterationResult>(m, "VrkmResult");
  vr.def_readonly("learning_rate", &VR::learning_rate)
      .def_readonly("epoch_size", &VR::epoch_size)
      .def_readonly("full_pass_seconds", &VR::full_pass_seconds)
      .def_readonly("correction_seconds", &VR::correction_seconds)
      .def_readonly("inner_loop_seconds", &VR::inner_loop_seconds)
      .def_readonly("n_relocated", &VR::n_relocated);
  vector_property(vr, "objective", &VR::objective);
  vector_property(vr, "seconds", &VR::seconds);
  vector_property(vr, "n_updates", &VR::n_updates);
  result_class<vcgmm::MbatchKMeansResult, MR>(m, "MbatchKMeansResult")
      .def_readonly("inertia", &vcgmm::MbatchKMeansResult::inertia);
  result_class<vcgmm::NmbatchKMeansResult, NR>(m, "NmbatchKMeansResult")
      .def_readonly("inertia", &vcgmm::NmbatchKMeansResult::inertia);
  result_class<vcgmm::VrkmKMeansResult, VR>(m, "VrkmKMeansResult")
      .def_readonly("inertia", &vcgmm::VrkmKMeansResult::inertia);
  result_class<vcgmm::MbatchStepStats>(m, "MbatchStepStats")
      .def_readonly("objective", &vcgmm::MbatchStepStats::objective)
      .def_readonly("n_distance_evals", &vcgmm::MbatchStepStats::n_distance_evals);
}

}  // namespace

void bind_stochastic(py::module_& m) {
  bind_params(m);
  bind_results(m);
  bind_stream(m);
  bind_typed<float>(m);
  bind_typed<double>(m);
  bind_draws(m);
}

}  // namespace vcgmm_python
