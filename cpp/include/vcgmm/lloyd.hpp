// vcgmm: weighted Lloyd iterations (k-means).
//
// Paper: Lloyd, "Least squares quantization in PCM", IEEE Transactions on
// Information Theory 1982; the local search of both k-means baselines of
// vc-GMM's Table 1 (Hirschberger, Forster & Luecke, arXiv 2018 / IEEE TPAMI
// 2022: "k-means++" on the full data, "LWCS" on a coreset with weights gamma).
//
// Iteration t: assign every point to its nearest center (exact, blocked GEMM,
// see assignment.hpp), giving Q_t = sum_i w_i min_c ||x_i - c||^2; then move
// each center to the weighted mean of its points. Stop when
// |Q_{t-1} - Q_t| <= tol * Q_t, when no label changed (a fixed point), or
// after max_iter iterations.
//
// Empty clusters: by default each empty cluster is moved onto one of the
// points farthest from their centers (largest squared distance first, ties by
// index), so exactly C distinct clusters come back whenever the data allow it
// (as scikit-learn does); the count is reported. With relocate_empty = false
// an empty cluster keeps its center. With spherical = true the updated
// centers are rescaled to unit length (spherical k-means on normalised data:
// the cosine objective; the caller normalises the rows).
//
// Cost per iteration: O(n C d) flops, n C distance evaluations, for the
// first; from the second on, each point's search starts from its last label
// and measures only the centers near it that the triangle inequality leaves
// (the same labels and Q bit for bit): on clustered data with n >= 8 C a
// few dozen distances per point plus the C^2 center pairs, elsewhere up to
// the scan's n C (it then scans). Memory O(n + C L) (labels, distances, a
// counting sort of the labels, lists of L nearby centers) plus the centers.
// Determinism: no random draws; the update visits each cluster's points in
// index order on one thread (clusters in parallel), accumulating in double:
// results do not depend on threads and no per-thread copy of the centers is
// ever made.
// Use when: a k-means fixed point from given centers (after a seeding; on a
// coreset with its weights). Do not use for: large n C on all points (every
// iteration costs n C d: fit on a coreset, kmeans.hpp, or use
// nested_minibatch.hpp or vc_gmm.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {

struct LloydParams {
  int max_iter = 300;          ///< maximum number of iterations >= 1
  double tol = 1e-4;           ///< relative change of Q that counts as converged (>= 0; 0: run to a fixed point or max_iter)
  bool relocate_empty = true;  ///< move empty clusters onto far points
  /// Spherical k-means (Dhillon & Modha 2001): after every update each center
  /// is rescaled to unit length (a zero mean keeps its previous center). For
  /// data whose rows have unit length, Q/2 is then sum_i w_i (1 - cos(x_i, c)).
  bool spherical = false;
};

/// Phase `iterations` of the costs: the distances measured, n C in an
/// iteration that scans, fewer where the search starts from the last labels.
struct LloydResult : IterationResult {
  std::vector<double> objective;  ///< Q_t of every iteration's assignment step
  index_t n_relocated = 0;        ///< empty clusters relocated, summed over iterations
};

/// Runs weighted Lloyd iterations from the given centers.
///
/// @param data        IN  (n, d) points and optional weights
/// @param n_clusters  IN  C, 1 <= C <= n
/// @param centers     IN/OUT (C, d) row-major: initial centers, replaced by the final ones
template <typename T>
LloydResult lloyd(const DataView<T>& data, index_t n_clusters, const LloydParams& params,
                  const RunOptions& run, T* centers);

extern template LloydResult lloyd<float>(const DataView<float>&, index_t, const LloydParams&,
                                         const RunOptions&, float*);
extern template LloydResult lloyd<double>(const DataView<double>&, index_t, const LloydParams&,
                                          const RunOptions&, double*);

}  // namespace vcgmm
