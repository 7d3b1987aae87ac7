// vcgmm: approximate nearest-center assignment in far fewer than n C distance
// evaluations (sublinear in C per point).
//
// Labelling all n points against C centers exactly (assignment.hpp) costs
// O(n C d): at large C more than the fit it follows. Two indexes over the
// centers, selected by ApproximateAssignmentParams::method:
//  - gemm (the default; CenterCellIndex): an inverted-file index (Jegou, Douze
//    & Schmid, "Product quantization for nearest neighbor search", IEEE TPAMI
//    2011; IVF with exact distances) of about sqrt(C) cells whose probes are
//    batched into matrix products and screened in the centers' principal
//    subspace; a label is the exact nearest center of the cells probed.
//  - graph (CenterGraphIndex): best-first search over a k-nearest-neighbour
//    graph of the centers (Malkov & Yashunin, "Efficient and robust
//    approximate nearest neighbor search using Hierarchical Navigable Small
//    World graphs", IEEE TPAMI 2020: their SEARCH-LAYER with a two-level
//    hierarchy), the labelling analogue of vc-GMM's truncated search (a
//    point's candidates are the neighbourhoods of its current best centers).
// Both: identical centers enter once (the lowest index: the exact
// assignment's choice among ties). Every returned label's distance is the
// exact (double) distance of a real center, so never below the exact nearest
// one; a label is wrong when the nearest center lies in a cell the point did
// not probe (gemm) or when the search ends in a local minimum of the graph.
//
// Cost per point: gemm about sqrt(C) (1 + probes) evaluations at matrix-
// product speed (most of them screened, see CenterCellIndex); graph about
// m + (visited centers), O((sqrt(C) + beam_width graph_degree) d), one at a
// time. Index: gemm O((coarse_iter min(C, 64 m) + C) m d), graph O(C^2 d). Memory: gemm O(C d)
// for the index (+ per thread O(2048 n_probe) entries); graph
// <= 2 C graph_degree int32 + m d + the n n_starts starts.
// Determinism: no random draws; tasks of a fixed number of points
// (independent of the thread count), sums in a fixed order: 1 thread and 8
// threads give bit-identical labels, distances and counts. Interruptible
// between tasks.
// Use when: labels of many points at C in the thousands and more, a small
// fraction of near-nearest labels acceptable (gemm; the gain grows with C;
// graph only when evaluations themselves are the cost; measurements:
// docs/user_guide/performance.rst). Do not use for: the objective you report
// (inertia_), or Lloyd's assignment step (use the exact assign_nearest).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {

/// How the approximate assignment searches (see the file comment and the
/// index classes).
enum class ApproximateMethod {
  /// Coarse cells of the centers; every point probes the cells of its
  /// nearest coarse centers, each cell scored with matrix products
  /// (CenterCellIndex).
  gemm,
  /// Best-first search over a k-NN graph of the centers (CenterGraphIndex).
  graph,
};

/// Parameters of the approximate assignment. The defaults were chosen by
/// measurement (docs/user_guide/performance.rst): gemm n_probe 12,
/// probe_ratio 2, coarse size ceil(sqrt(C)), 5 Lloyd iterations; graph
/// degree / beam / starts 32 / 16 / 4.
struct ApproximateAssignmentParams {
  /// The search (default gemm; graph only when evaluations themselves are
  /// the cost).
  ApproximateMethod method = ApproximateMethod::gemm;
  /// gemm: at most this many cells probed per point (its nearest coarse
  /// centers; >= 1, capped at the number of cells).
  int n_probe = 12;
  /// gemm: a point probes, among its n_probe nearest coarse centers, those
  /// at squared distance <= probe_ratio times the nearest one's (>= 1;
  /// infinity: all n_probe). n_probe >= the number of cells with an infinite
  /// ratio makes the result exact.
  double probe_ratio = 2.0;
  /// gemm: Lloyd iterations that move the coarse centers to the means of
  /// their cells of fine centers (>= 0; 0: a strided subset of the centers),
  /// over a strided sample of at most 64 centers per coarse center.
  int coarse_iter = 5;
  /// graph: neighbours per center in the k-nearest-neighbour graph (>= 1; capped at
  /// C - 1). Larger: more exact labels, more evaluations per visited center.
  int graph_degree = 32;
  /// graph: nearest coarse centers a point's search starts from (>= 1; capped at
  /// the coarse size). n_starts >= C makes the result exact.
  int n_starts = 4;
  /// Centers of the coarse level, both methods (0: gemm ceil(sqrt(C)),
  /// graph ceil(2 sqrt(C)); capped at C; graph: raised to n_starts; gemm:
  /// coarse centers left without a fine center are dropped).
  index_t coarse_size = 0;
  /// gemm: dimensions of the centers' principal subspace that screens the
  /// probed cells' centers (CenterCellIndex). -1: the smallest multiple of 8
  /// up to 32 holding 97% of the centers' variance, else 32 if those hold 80%,
  /// else off (and off for d < 16); 0 or >= d: off. Pays when the points lie
  /// near their centers (a fit's data); points as far from every center as the
  /// centers are from each other leave most probed centers unscreened.
  index_t screen_dims = -1;
  /// graph: best centers kept by the search (>= 1; HNSW's ef). Larger: more exact
  /// labels, more evaluations.
  int beam_width = 16;
};

/// Result of one approximate assignment pass. n_distance_evals.evaluation
/// and timings.evaluation: everything (index + search).
struct ApproximateAssignmentStats : PhaseCosts {
  /// sum_i w_i ||x_i - c_{labels[i]}||^2, exact (double accumulation).
  double objective = 0.0;
  /// Distance evaluations of building the index (C^2 for the graph; 0 when
  /// an already built index was used).
  std::int64_t index_distance_evals = 0;
  /// Distance evaluations of the queries: coarse scan + graph search + exact
  /// confirmation of the winner.
  std::int64_t search_distance_evals = 0;
  double index_seconds = 0.0;   ///< wall time of building the index (0 if reused)
  double search_seconds = 0.0;  ///< wall time of the queries
};

/// The graph index over a fixed set of centers (method graph).
///
/// Index: the exact k-nearest-neighbour graph among the C centers (degree
/// `graph_degree`), from the same blocked GEMM scan as the exact assignment
/// (O(C^2 D), C^2 distance evaluations; fine up to C ~ 2^16), plus up to
/// `graph_degree` reverse edges per center (a plain k-NN graph can leave a
/// center nobody's neighbour, hence unreachable); a coarse level of m
/// centers (`coarse_size`, default ceil(2 sqrt(C))), every (C/m)-th center.
/// Query: every point's `n_starts` nearest coarse centers (one blocked scan,
/// n m evaluations), then a best-first search over the graph keeping the
/// `beam_width` best centers seen (visited set; stops when the nearest
/// unexpanded candidate is farther than the worst kept). The winner is
/// confirmed with exact double distances among the near-tied best ones.
/// Cost per point: about m + (visited centers) evaluations, computed one at a
/// time (the exact scan's matrix products are faster per evaluation).
/// Exact (up to ties within rounding) when graph_degree >= C - 1 or
/// n_starts >= C; otherwise a label is wrong when the search ends in a local
/// minimum of the graph.
template <typename T>
class CenterGraphIndex {
 public:
  /// Builds the index: copies the centers (the caller's buffer may go away).
  ///
  /// @param centers    IN (n_centers, d) row-major, finite
  /// @param n_centers  IN number of centers, >= 1
  /// @param d          IN number of features, >= 1
  /// @param params     IN graph degree, coarse size, starts, beam width
  /// @param n_threads  threads (<= 0: OpenMP's default); never changes the result
  /// Throws InvalidArgument for bad sizes/parameters, Interrupted when asked to stop.
  CenterGraphIndex(const T* centers, index_t n_centers, index_t d,
                   const ApproximateAssignmentParams& params, int n_threads);

  /// Assigns every row of `data` to an (approximately) nearest center.
  ///
  /// @param data       IN  (n, d) points (d = the index's) and optional weights
  /// @param labels     OUT (n,) int32 or nullptr: the center found
  /// @param min_d2     OUT (n,) or nullptr: its exact squared distance (double)
  /// @param n_threads  threads (<= 0: OpenMP's default); never changes the result
  /// The stats report only the search (index_* are 0; see build_stats()).
  ApproximateAssignmentStats assign(const DataView<T>& data, std::int32_t* labels, double* min_d2,
                                    int n_threads) const;

  index_t n_centers() const { return c_; }
  index_t dim() const { return d_; }
  /// Original indices of the distinct centers the index holds (ascending;
  /// of identical centers only the lowest index, the exact assignment's
  /// choice among ties). graph() and coarse() index into this list.
  const std::vector<std::int32_t>& distinct_ids() const { return ids_; }
  /// Nearest neighbours per center (min(graph_degree, distinct centers - 1)).
  int degree() const { return degree_; }
  /// Neighbour lists, CSR: center a's are graph()[graph_offsets()[a] ..
  /// graph_offsets()[a + 1]): its degree() nearest centers (nearest first,
  /// ties: lowest index), then up to degree() reverse neighbours (centers
  /// that list a among their nearest, nearest first, not already listed).
  const std::vector<std::int32_t>& graph() const { return graph_; }
  const std::vector<index_t>& graph_offsets() const { return offsets_; }
  /// Indices (into distinct_ids()) of the coarse-level centers (ascending).
  const std::vector<std::int32_t>& coarse() const { return coarse_ids_; }
  /// Cost of building: index_distance_evals and index_seconds set.
  const ApproximateAssignmentStats& build_stats() const { return build_; }

 private:
  index_t c_ = 0, d_ = 0, u_ = 0;
  std::vector<std::int32_t> ids_;  // (u,) original index of each distinct center
  int degree_ = 0, n_starts_ = 0, beam_ = 0;
  std::vector<T> centers_;         // (u, d) the distinct centers
  std::vector<index_t> offsets_;          // (c + 1,)
  std::vector<std::int32_t> graph_;       // CSR adjacency
  std::vector<std::int32_t> coarse_ids_;  // (m,)
  std::vector<T> coarse_centers_;  // (m, d)
  ApproximateAssignmentStats build_;
};

/// The cell index over a fixed set of centers (method gemm).
///
/// Index: m = ceil(sqrt(C)) coarse centers (`coarse_size`), a strided subset
/// of the centers moved by `coarse_iter` Lloyd iterations over a strided
/// sample of at most 64 m of the centers themselves (the blocked scan; all
/// of them up to C = 4096); every center's cell is its nearest coarse center.
/// A cell of more than 3 times the mean size (Lloyd leaves a few coarse
/// centers between well-separated groups of centers, their cells holding
/// most of them) is split by Lloyd iterations among its own centers into
/// cells of about the mean size, and the centers are reassigned (at most 3
/// rounds). Coarse centers left without a center are dropped. Cost
/// O((coarse_iter min(C, 64 m) + C) m' D) for the final m' coarse centers
/// (m' = m unless cells were split), no C^2 term.
/// Query, per task of 2048 consecutive points (fixed boundaries; a task's
/// points stay in cache): the points' distances to the m coarse centers (one
/// matrix product per 256 points); every point probes the cells of its
/// nearest coarse centers whose squared distance is at most `probe_ratio`
/// times the nearest's, at most `n_probe` (adaptive: points deep inside a
/// cell probe one, points near a boundary several); the (point, cell)
/// entries are grouped by cell (counting sort) and each cell's entries are
/// scored against its centers with one matrix product per 256 entries, as in
/// the exact scan (the exact nearest of the cell, robust to the expansion's
/// rounding, its distance recomputed in double); every point keeps the
/// nearest of its cells' winners (ties: the lowest index). Cost per point:
/// m + (centers of the probed cells) evaluations, about sqrt(C) (1 + probes).
/// Screening (`screen_dims` = k > 0): the index also keeps the centers' k
/// leading principal axes V (a few subspace iterations) and every center's
/// projection. A point's probes are then ranked by the subspace distance to
/// each coarse center plus both residuals (no full-dimension coarse scan), and
/// within a probed cell ||V (x - c)||^2 <= ||x - c||^2 is an exact lower
/// bound: only the centers whose bound does not exceed the point's best
/// distance so far (a rounding margin included) are measured in full. Cells
/// are visited one by one (the cell's packed projections stay in L1), first
/// probes first. Each label is still the exact nearest center of the probed
/// cells (the probed cells themselves, chosen from the estimates, can differ
/// for a few points); cost per point about k (projection) + k/D (m + centers
/// of the probed cells) + a few full distances.
/// Exact (up to ties within rounding) with n_probe >= m and probe_ratio =
/// infinity; otherwise a label is wrong when the nearest center lies in a
/// cell the point did not probe.
template <typename T>
class CenterCellIndex {
 public:
  /// Builds the index: copies the centers (the caller's buffer may go away).
  ///
  /// @param centers    IN (n_centers, d) row-major, finite
  /// @param n_centers  IN number of centers, >= 1
  /// @param d          IN number of features, >= 1
  /// @param params     IN coarse_size, coarse_iter, n_probe, probe_ratio (the graph's ignored)
  /// @param n_threads  threads (<= 0: OpenMP's default); never changes the result
  /// Throws InvalidArgument for bad sizes/parameters, Interrupted when asked to stop.
  CenterCellIndex(const T* centers, index_t n_centers, index_t d,
                  const ApproximateAssignmentParams& params, int n_threads);
  ~CenterCellIndex();
  CenterCellIndex(const CenterCellIndex&) = delete;
  CenterCellIndex& operator=(const CenterCellIndex&) = delete;

  /// Assigns every row of `data` to an (approximately) nearest center.
  ///
  /// @param data       IN  (n, d) points (d = the index's) and optional weights
  /// @param labels     OUT (n,) int32 or nullptr: the center found
  /// @param min_d2     OUT (n,) or nullptr: its exact squared distance (double)
  /// @param n_threads  threads (<= 0: OpenMP's default); never changes the result
  /// The stats report only the search (index_* are 0; see build_stats()).
  ApproximateAssignmentStats assign(const DataView<T>& data, std::int32_t* labels, double* min_d2,
                                    int n_threads) const;
  /// The cells each later assign() probes (params.n_probe at the build,
  /// which does not depend on it), clipped to n_cells(). Throws
  /// InvalidArgument for n_probe < 1.
  void set_n_probe(int n_probe);
  /// The cells each assign() probes, at most n_cells().
  int n_probe() const { return n_probe_; }

  index_t n_centers() const { return c_; }
  index_t dim() const { return d_; }
  /// Original indices of the distinct centers the index holds (ascending;
  /// of identical centers only the lowest index).
  const std::vector<std::int32_t>& distinct_ids() const { return ids_; }
  /// Dimensions of the principal subspace that screens the centers (0: off;
  /// see ApproximateAssignmentParams::screen_dims).
  index_t screen_dims() const { return screen_dims_; }
  /// Number of coarse cells (coarse centers that own at least one center).
  index_t n_cells() const { return static_cast<index_t>(member_offsets_.size()) - 1; }
  /// Coarse centers, (n_cells(), d) row-major.
  const std::vector<T>& coarse_centers() const { return coarse_; }
  /// Cell (nearest coarse center) of every distinct center.
  const std::vector<std::int32_t>& cell_of() const { return cell_of_; }
  /// The centers of each cell, CSR: cell a's are members()[member_offsets()[a]
  /// .. member_offsets()[a + 1]), indices into distinct_ids(), ascending.
  const std::vector<std::int32_t>& members() const { return members_; }
  const std::vector<index_t>& member_offsets() const { return member_offsets_; }
  /// Cost of building: index_distance_evals and index_seconds set.
  const ApproximateAssignmentStats& build_stats() const { return build_; }

 private:
  struct Tiles;
  index_t c_ = 0, d_ = 0, u_ = 0;
  std::vector<std::int32_t> ids_;     // (u,) original index of each distinct center
  std::vector<T> centers_;            // (u, d) the distinct centers
  std::vector<T> coarse_;             // (m, d)
  std::vector<std::int32_t> cell_of_;    // (u,)
  std::vector<index_t> member_offsets_;  // (m + 1,)
  std::vector<std::int32_t> members_;    // (u,)
  int n_probe_ = 1;
  double probe_ratio_ = 1.0;
  index_t screen_dims_ = 0;       // subspace screening's dimensions (0: off)
  std::unique_ptr<Tiles> tiles_;  // the coarse centers' and every cell's prepared tiles
  // Nearest center among each point's probed cells by subspace screening,
  // for the task's points q0 .. q0 + nb; returns the distance evaluations.
  std::int64_t screened_nearest(const DataView<T>& data, index_t q0, index_t nb,
                                std::int32_t* probes, int k, std::int32_t* labels,
                                double* out_d2) const;
  ApproximateAssignmentStats build_;
};

/// Builds the index of params.method (CenterCellIndex or CenterGraphIndex)
/// and assigns `data` with it (one call; the stats
/// include the index's cost). Arguments as CenterGraphIndex and assign.
template <typename T>
ApproximateAssignmentStats assign_approximate(const DataView<T>& data, const T* centers,
                                              index_t n_centers,
                                              const ApproximateAssignmentParams& params,
                                              std::int32_t* labels, double* min_d2, int n_threads);

extern template class CenterCellIndex<float>;
extern template class CenterCellIndex<double>;
extern template class CenterGraphIndex<float>;
extern template class CenterGraphIndex<double>;
extern template ApproximateAssignmentStats assign_approximate<float>(
    const DataView<float>&, const float*, index_t, const ApproximateAssignmentParams&,
    std::int32_t*, double*, int);
extern template ApproximateAssignmentStats assign_approximate<double>(
    const DataView<double>&, const double*, index_t, const ApproximateAssignmentParams&,
    std::int32_t*, double*, int);

}  // namespace vcgmm
