// The building blocks the pipelines are made of: the lightweight coreset
// (whole or chunk by chunk), the seedings (k-means++, AFK-MC^2), the exact
// assignment, and the data check.
#include <algorithm>
#include <string>

#include "bindings.hpp"
#include "vcgmm/afkmc2.hpp"
#include "vcgmm/assignment.hpp"
#include "vcgmm/chunked_coreset.hpp"
#include "vcgmm/kmeans_plusplus.hpp"
#include "vcgmm/lightweight_coreset.hpp"

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

/// Binds `name` = a seeding `seed(data, C, params, run, centers, indices)` for
/// T: (X, sample_weight, n_clusters, params, run) -> (centers, indices, stats).
template <typename T, typename Params, typename Stats>
void def_seeding(py::module_& m, const char* name,
                 Stats (*seed)(const vcgmm::DataView<T>&, index_t, const Params&,
                               const vcgmm::RunOptions&, T*, index_t*)) {
  m.def(
      name,
      [seed](const CArray<T>& X, const OptWeights& w, index_t n_clusters, const Params& params,
             const vcgmm::RunOptions& run) -> py::tuple {
        const auto data = data_view(X, w);
        if (n_clusters < 1) throw vcgmm::InvalidArgument("n_clusters must be >= 1");
        CArray<T> centers({n_clusters, data.d});
        CArray<index_t> indices(n_clusters);
        T* c = centers.mutable_data();
        index_t* idx = indices.mutable_data();
        const auto stats =
            without_gil([&] { return seed(data, n_clusters, params, run, c, idx); });
        return py::make_tuple(centers, indices, stats);
      },
      py::arg("X").noconvert(), py::arg("sample_weight").noconvert(), py::arg("n_clusters"),
      py::arg("params"), py::arg("run"));
}

/// (labels or None, min_d2 or None, objective)
template <typename T>
py::tuple assign_nearest(const CArray<T>& X, const OptWeights& w, const CArray<T>& centers,
                         bool want_labels, bool want_min_d2, int n_threads) {
  const auto data = data_view(X, w);
  const index_t C =
      rows_matching(X, centers, "centers must have shape (n_clusters, n_features)");
  std::int32_t* lab = nullptr;
  double* md = nullptr;
  py::object labels = optional_output(want_labels, data.n, &lab);
  if (lab != nullptr) std::fill(lab, lab + data.n, -1);
  py::object min_d2 = optional_output(want_min_d2, data.n, &md);
  const T* c = centers.data();
  const auto stats =
      without_gil([&] { return vcgmm::assign_nearest(data, c, C, lab, md, n_threads); });
  return py::make_tuple(labels, min_d2, stats.objective);
}

// count_outside over a contiguous float32/float64 array of any shape (no
// copy: other dtypes and layouts do not match and raise TypeError).
template <typename T>
std::int64_t count_outside_array(const CArray<T>& x, double limit) {
  const T* data = x.data();
  const index_t n = static_cast<index_t>(x.size());
  return static_cast<std::int64_t>(
      without_gil([&] { return vcgmm::count_outside(data, n, limit, 0); }));
}

template <typename T>
void bind_typed(py::module_& m, const char* dtype) {
  m.def("lightweight_coreset", &lightweight_coreset<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("coreset_size"), py::arg("run"));
  m.def("coreset_chunk_moments", &coreset_chunk_moments<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("run"));
  m.def("draw_coreset_chunk", &draw_coreset_chunk<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("chunk_id"), py::arg("mean").noconvert(),
        py::arg("a"), py::arg("b"), py::arg("total_mass"), py::arg("chunk_mass"),
        py::arg("chunk_draws"), py::arg("coreset_size"), py::arg("run"));
  def_seeding<T>(m, "kmeans_plusplus", &vcgmm::kmeans_plusplus<T>);
  def_seeding<T>(m, "afkmc2", &vcgmm::afkmc2<T>);
  m.def("assign_nearest", &assign_nearest<T>, py::arg("X").noconvert(),
        py::arg("sample_weight").noconvert(), py::arg("centers").noconvert(),
        py::arg("want_labels"), py::arg("want_min_d2"), py::arg("n_threads"));
  m.def("count_outside", &count_outside_array<T>, py::arg("x").noconvert(), py::arg("limit"),
        (std::string("Values of a C-contiguous ") + dtype +
         " array outside [-limit, limit] (NaN counts).")
            .c_str());
}

}  // namespace

void bind_blocks(py::module_& m) {
  result_class<vcgmm::CoresetStats, vcgmm::PhaseCosts>(m, "CoresetStats");
  m.def("plan_chunked_coreset", &plan_chunked_coreset, py::arg("chunk_weight").noconvert(),
        py::arg("chunk_mean").noconvert(), py::arg("chunk_scatter").noconvert(),
        py::arg("coreset_size"), py::arg("run"));
  bind_typed<float>(m, "float32");
  bind_typed<double>(m, "float64");
}

}  // namespace vcgmm_python
