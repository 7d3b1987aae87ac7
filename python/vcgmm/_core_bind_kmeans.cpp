// Bindings of the coreset, the seedings, the assignment and the k-means
// pipeline. Conversion only: shapes are checked, outputs allocated, the GIL
// released, the C++ function called.
#include <algorithm>
#include <memory>
#include <string>

#include "_core_bindings.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/approximate_assignment.hpp"
#include "vcgmm/assignment.hpp"
#include "vcgmm/chunked_coreset.hpp"
#include "vcgmm/kmeans.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"
#include "vcgmm/lloyd.hpp"

namespace vcgmm_python {

namespace {

using vcgmm::index_t;

/// (indices, weights, stats)
template <typename T>
py::tuple lightweight_coreset(const CArray<T>& X, const OptWeights& w, index_t coreset_size,
                              const vcgmm::RunOptions& run) {
  const auto data = data_view(X, w);
  if (coreset_size < 1) throw vcgmm::InvalidArgument("coreset_size must be >= 1");
  CArray<index_t> indices(coreset_size);
  CArray<double> weights(coreset_size);
  index_t* idx = indices.mutable_data();
  double* wts = weights.mutable_data();
  const auto stats = without_gil(
      [&] { return vcgmm::lightweight_coreset(data, coreset_size, run, idx, wts); });
  return py::make_tuple(indices, weights, stats);
}

/// Step 1 of the chunked coreset: (weight, mean, scatter, stats) of one chunk.
template <typename T>
py::tuple coreset_chunk_moments(const CArray<T>& X, const OptWeights& w,
                                const vcgmm::RunOptions& run) {
  const auto data = data_view(X, w);
  CArray<double> mean(data.d);
  double* mu = mean.mutable_data();
  const vcgmm::ChunkMoments m =
      without_gil([&] { return vcgmm::coreset_chunk_moments(data, run, mu); });
  vcgmm::CoresetStats stats;
  static_cast<vcgmm::PhaseCosts&>(stats) = m;
  return py::make_tuple(m.weight, mean, m.scatter, stats);
}

/// Step 2: (mean, chunk_mass, chunk_draws, a, b, total_mass).
py::tuple plan_chunked_coreset(const CArray<double>& chunk_weight, const CArray<double>& chunk_mean,
                               const CArray<double>& chunk_scatter, index_t coreset_size,
                               const vcgmm::RunOptions& run) {
  if (chunk_weight.ndim() != 1) throw vcgmm::InvalidArgument("chunk_weight must be 1-D");
  const index_t K = static_cast<index_t>(chunk_weight.shape(0));
  if (chunk_mean.ndim() != 2 || chunk_mean.shape(0) != K) {
    throw vcgmm::InvalidArgument("chunk_mean must have shape (n_chunks, n_features)");
  }
  if (chunk_scatter.ndim() != 1 || chunk_scatter.shape(0) != K) {
    throw vcgmm::InvalidArgument("chunk_scatter must have shape (n_chunks,)");
  }
  const index_t d = static_cast<index_t>(chunk_mean.shape(1));
  CArray<double> mean(d), mass(K);
  CArray<index_t> draws(K);
  double* mu = mean.mutable_data();
  double* ms = mass.mutable_data();
  index_t* dr = draws.mutable_data();
  const double* cw = chunk_weight.data();
  const double* cm = chunk_mean.data();
  const double* cs = chunk_scatter.data();
  const vcgmm::CoresetPlan plan = without_gil([&] {
    return vcgmm::plan_chunked_coreset(K, d, cw, cm, cs, coreset_size, run, mu, ms, dr);
  });
  return py::make_tuple(mean, mass, draws, plan.a, plan.b, plan.total_mass);
}

/// Step 3: (indices into the chunk, weights, stats).
template <typename T>
py::tuple draw_coreset_chunk(const CArray<T>& X, const OptWeights& w, index_t chunk_id,
                             const CArray<double>& mean, double a, double b, double total_mass,
                             double chunk_mass, index_t chunk_draws, index_t coreset_size,
                             const vcgmm::RunOptions& run) {
  const auto data = data_view(X, w);
  if (mean.ndim() != 1 || mean.shape(0) != X.shape(1)) {
    throw vcgmm::InvalidArgument("mean must have shape (n_features,)");
  }
  if (chunk_draws < 0) throw vcgmm::InvalidArgument("chunk_draws must be >= 0");
  CArray<index_t> indices(chunk_draws);
  CArray<double> weights(chunk_draws);
  index_t* idx = indices.mutable_data();
  double* wts = weights.mutable_data();
  const double* mu = mean.data();
  vcgmm::CoresetPlan plan;
  plan.a = a;
  plan.b = b;
  plan.total_mass = total_mass;
  const auto stats = without_gil([&] {
    return vcgmm::draw_coreset_chunk(data, chunk_id, mu, plan, chunk_mass, chunk_draws,
                                     coreset_size, run, idx, wts);
  });
  return py::make_tuple(indices, weights, stats);
}

/// (centers, indices, stats) of a seeding function `seed(data, C, params, run, centers, indices)`.
template <typename T, typename Params, typename Seed>
py::tuple seeding(const CArray<T>& X, const OptWeights& w, index_t n_clusters, const Params& params,
                  const vcgmm::RunOptions& run, Seed&& seed) {
  const auto data = data_view(X, w);
  if (n_clusters < 1) throw vcgmm::InvalidArgument("n_clusters must be >= 1");
  CArray<T> centers({n_clusters, data.d});
  CArray<index_t> indices(n_clusters);
  T* c = centers.mutable_data();
  index_t* idx = indices.mutable_data();
  const auto stats = without_gil([&] { return seed(data, n_clusters, params, run, c, idx); });
  return py::make_tuple(centers, indices, stats);
}

/// (labels or None, min_d2 or None, objective)
template <typename T>
py::tuple assign_nearest(const CArray<T>& X, const OptWeights& w, const CArray<T>& centers,
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

/// An approximate-assignment index over fixed centers (CenterCellIndex or
/// CenterGraphIndex, by params.method), built once and reused by assign():
/// Python's vcgmm.ApproximateIndex keeps one per dtype, and the estimators'
/// predict(X, exact=False) keeps theirs between calls. assign() is const and
/// may run from several Python threads at once (the indexes' scratch is per
/// thread).
template <typename T>
class ApproximateIndexBinding {
 public:
  ApproximateIndexBinding(const CArray<T>& centers, const vcgmm::ApproximateAssignmentParams& params,
                          int n_threads) {
    if (centers.ndim() != 2) {
      throw vcgmm::InvalidArgument("centers must have shape (n_clusters, n_features)");
    }
    const T* c = centers.data();
    const auto C = static_cast<index_t>(centers.shape(0));
    const auto d = static_cast<index_t>(centers.shape(1));
    without_gil([&] {
      if (params.method == vcgmm::ApproximateMethod::graph) {
        graph_ = std::make_unique<vcgmm::CenterGraphIndex<T>>(c, C, d, params, n_threads);
      } else {
        cell_ = std::make_unique<vcgmm::CenterCellIndex<T>>(c, C, d, params, n_threads);
      }
    });
  }

  /// (labels, min_d2 or None, stats of the search only).
  py::tuple assign(const CArray<T>& X, const OptWeights& w, bool want_min_d2,
                   int n_threads) const {
    const auto data = data_view(X, w);
    CArray<std::int32_t> labels(data.n);
    std::int32_t* lab = labels.mutable_data();
    py::object min_d2 = py::none();
    double* md = nullptr;
    if (want_min_d2) {
      CArray<double> a(data.n);
      md = a.mutable_data();
      min_d2 = a;
    }
    const auto stats = without_gil([&] {
      return cell_ ? cell_->assign(data, lab, md, n_threads)
                   : graph_->assign(data, lab, md, n_threads);
    });
    return py::make_tuple(labels, min_d2, stats);
  }

  /// Dimensions of the subspace screening in use (0: off or the graph).
  long long screen_dims() const { return cell_ ? cell_->screen_dims() : 0; }

  /// Cost of building (index_distance_evals, index_seconds).
  const vcgmm::ApproximateAssignmentStats& build_stats() const {
    return cell_ ? cell_->build_stats() : graph_->build_stats();
  }

 private:
  std::unique_ptr<vcgmm::CenterCellIndex<T>> cell_;
  std::unique_ptr<vcgmm::CenterGraphIndex<T>> graph_;
};

template <typename T>
void bind_approximate_index(py::module_& m, const char* name) {
  using Index = ApproximateIndexBinding<T>;
  py::class_<Index>(m, name, py::module_local())
      .def(py::init<const CArray<T>&, const vcgmm::ApproximateAssignmentParams&, int>(),
           py::arg("centers").noconvert(), py::arg("params"), py::arg("n_threads"))
      .def("assign", &Index::assign, py::arg("X").noconvert(),
           py::arg("sample_weight").noconvert(), py::arg("want_min_d2"), py::arg("n_threads"))
      .def_property_readonly("build_stats", &Index::build_stats)
      .def_property_readonly("screen_dims", &Index::screen_dims);
}

/// (centers, result): Lloyd from a copy of init_centers.
template <typename T>
py::tuple lloyd(const CArray<T>& X, const OptWeights& w, const CArray<T>& init_centers,
                const vcgmm::LloydParams& params, const vcgmm::RunOptions& run) {
  const auto data = data_view(X, w);
  if (init_centers.ndim() != 2 || init_centers.shape(1) != X.shape(1)) {
    throw vcgmm::InvalidArgument("centers must have shape (n_clusters, n_features)");
  }
  const index_t C = static_cast<index_t>(init_centers.shape(0));
  CArray<T> centers({C, data.d});
  std::copy(init_centers.data(), init_centers.data() + C * data.d, centers.mutable_data());
  T* c = centers.mutable_data();
  vcgmm::LloydResult r = without_gil([&] { return vcgmm::lloyd(data, C, params, run, c); });
  return py::make_tuple(centers, r);
}

template <typename T>
void bind_typed(py::module_& m) {
  m.def("lightweight_coreset", &lightweight_coreset<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("coreset_size"), py::arg("run"));
  m.def("coreset_chunk_moments", &coreset_chunk_moments<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("run"));
  m.def("draw_coreset_chunk", &draw_coreset_chunk<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("chunk_id"), py::arg("mean").noconvert(),
        py::arg("a"), py::arg("b"), py::arg("total_mass"), py::arg("chunk_mass"),
        py::arg("chunk_draws"), py::arg("coreset_size"), py::arg("run"));
  m.def("kmeans_plusplus",
        [](const CArray<T>& X, const OptWeights& w, index_t C,
           const vcgmm::KMeansPlusPlusParams& p, const vcgmm::RunOptions& run) {
          return seeding(X, w, C, p, run, [](auto&&... a) { return vcgmm::kmeans_plusplus<T>(a...); });
        },
        py::arg("X").noconvert(), py::arg("sample_weight").noconvert(), py::arg("n_clusters"),
        py::arg("params"), py::arg("run"));
  m.def("afkmc2",
        [](const CArray<T>& X, const OptWeights& w, index_t C, const vcgmm::Afkmc2Params& p,
           const vcgmm::RunOptions& run) {
          return seeding(X, w, C, p, run, [](auto&&... a) { return vcgmm::afkmc2<T>(a...); });
        },
        py::arg("X").noconvert(), py::arg("sample_weight").noconvert(), py::arg("n_clusters"),
        py::arg("params"), py::arg("run"));
  m.def("assign_nearest", &assign_nearest<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("centers").noconvert(),
        py::arg("want_labels"), py::arg("want_min_d2"), py::arg("n_threads"));
  m.def("lloyd", &lloyd<T>, py::arg("X").noconvert(), py::arg("sample_weight").noconvert(),
        py::arg("init_centers").noconvert(), py::arg("params"), py::arg("run"));
  def_pipeline<T, vcgmm::KMeansParams>(m, "fit_kmeans", &vcgmm::fit_kmeans<T>);
}

}  // namespace

void bind_kmeans(py::module_& m) {
  m.def("plan_chunked_coreset", &plan_chunked_coreset, py::arg("chunk_weight").noconvert(),
        py::arg("chunk_mean").noconvert(), py::arg("chunk_scatter").noconvert(),
        py::arg("coreset_size"), py::arg("run"));
  bind_typed<float>(m);
  bind_typed<double>(m);
  bind_approximate_index<float>(m, "ApproximateIndexFloat32");
  bind_approximate_index<double>(m, "ApproximateIndexFloat64");
}

}  // namespace vcgmm_python
