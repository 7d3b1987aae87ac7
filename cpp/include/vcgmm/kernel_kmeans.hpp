// vcgmm: kernel k-means -- full batch, mini-batch, and mini-batch with
// truncated centers.
//
// Paper: "Mini-batch kernel k-means" (anonymous preprint under double-blind
// review; no venue or year): Alg. 1 (mini-batch with early stopping), Alg. 2
// and Sec. 4.1 (truncated centers), Appendix A (the O(n(b + k)) recursion);
// learning rates of Schwartzman (ICLR 2023) and Sculley (WWW 2010); full-batch
// kernel k-means of Dhillon, Guan & Kulis (KDD 2004).
//
// Model: k centers in the feature space H of a kernel K(x, y) =
// <phi(x), phi(y)> (KernelType), each a convex combination of data points,
// C_j = sum_p a_jp phi(x_p); the feature-space distance ||phi(x) - C_j||^2 =
// K(x,x) - 2 <phi(x), C_j> + <C_j, C_j> needs kernel evaluations only.
// Objective: sum_x w_x min_j ||phi(x) - C_j||^2 (w: the sample weights, 1
// without). Three algorithms (KernelKMeansAlgorithm), all started from kernel
// k-means++ (w D^2 sampling in H: each center one data point) or from given
// data points. With weights, batches are still drawn uniformly and each point
// counts with its weight in the batch means, the learning rates and the
// objectives (scikit-learn's MiniBatchKMeans convention); the full-batch
// centers are weighted means (Dhillon, Guan & Kulis's weighted kernel
// k-means).
//
// Cost in kernel evaluations K(x, y), x != y (the diagonal K(x, x) is not
// counted; it is free for rbf/laplacian), reported per phase in n_distance_evals:
//  - seeding: (k - 1) n (kernel k-means++) plus the gamma heuristic's pairs;
//  - truncated, per iteration: b m (assignment, m <= k (tau + b) the centers'
//    points) plus, per center, b_j^2 and about b_j (tau + b_j) for <C_j, C_j>:
//    O(b (k tau + b)) <= O(k (tau + b)^2), independent of n; tol > 0 adds b m';
//  - minibatch, per iteration: n * (distinct batch points) <= n b (+ n k once);
//  - full, per iteration: n^2 (plus n k for the initial labels);
//  - evaluation (labels and inertia of all n points): n m (truncated), 0
//    (minibatch, full: their passes already give them).
// Memory: O(n) (+ O(n k) for minibatch and full) plus the centers' windows;
// precomputed needs the caller's n x n matrix.
// Determinism: batches come from streams keyed by (seed, iteration), kernel
// blocks from tasks of fixed row blocks, per-center updates from one task per
// center, sums combined in task order: bit-identical results on any number of
// threads. Interruptible between tasks (vcgmm::Interrupted).
// Use when: clusters are not linearly separable (rings, moons, manifolds) and
// n is too large for the n x n kernel matrix or for O(n^2) per iteration
// (truncated: O(b (k tau + b)) per iteration, independent of n).
// Do not use for: linearly separable data (plain k-means is far cheaper:
// kmeans.hpp), or very many clusters (the windows hold k tau points); full
// batch only for small n (O(n^2) kernel evaluations per iteration).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {

/// The kernel (scikit-learn's pairwise_kernels conventions). rbf is the
/// paper's Gaussian with kappa = 1 / gamma; its kernel blocks come from the
/// blocked GEMM (||x||^2 - 2 x.y + ||y||^2), polynomial / linear ones from a
/// GEMM of x.y; laplacian is a direct loop. graph_kernel() builds the paper's
/// k-nn kernel and a heat kernel from a k-nn graph, for precomputed.
/// Polynomial and linear values are computed in the data's type: fit,
/// predict and kernel_kmeans_plusplus throw InvalidArgument when
/// (gamma max||x||^2 + |coef0|)^degree exceeds 1/64 of that type's largest
/// value (float32: about 5e36), instead of returning inf/NaN objectives; fit
/// also throws when the median K(x, x) of a polynomial kernel is below 64
/// machine epsilons times the largest (most distances would be rounding).
enum class KernelType {
  rbf,          ///< exp(-gamma ||x - y||^2)
  laplacian,    ///< exp(-gamma ||x - y||_1)
  polynomial,   ///< (gamma <x, y> + coef0)^degree
  linear,       ///< <x, y>
  precomputed,  ///< data row i is K(x_i, .) (fit: the n x n matrix)
};

struct KernelParams {
  KernelType type = KernelType::rbf;
  /// > 0, or 0 for "auto": rbf / laplacian 1 / median of the pairwise squared
  /// Euclidean (laplacian: L1) distances among up to 1000 points drawn
  /// without replacement (kernel_gamma_heuristic; a median heuristic in the
  /// spirit of Wang et al. 2019); polynomial 1 / d.
  double gamma = 0.0;
  int degree = 3;      ///< polynomial degree >= 1
  double coef0 = 1.0;  ///< polynomial offset (finite)
};

/// The iterations (all start from kernel k-means++ or given data points).
enum class KernelKMeansAlgorithm {
  /// Mini-batch with truncated centers (Alg. 2, the paper's contribution):
  /// iteration i draws b points uniformly with replacement (stream keyed by
  /// the iteration), assigns them, and moves every center j that received b_j
  /// points by C_j <- (1 - alpha) C_j + alpha cm(B_j). Each center keeps only
  /// its most recent batches, newest first, until they hold >= tau points (a
  /// window of (point, coefficient) pairs); older terms are dropped, the
  /// initial point stays while the window still reaches back to the first
  /// iteration. Unlike the paper's Eq. (1), the kept coefficients are
  /// rescaled to sum to 1 (KernelKMeansParams::renormalize), so a center is
  /// always a convex combination (the paper's analysis assumes convex
  /// centers; unrescaled, a center whose window lost mass shrinks towards the
  /// origin of H). <C_j, C_j> is kept up to date incrementally (recomputed
  /// from the window when the dropped part is large).
  truncated,
  /// Mini-batch, untruncated (Alg. 1 with Appendix A's recursion): the same
  /// iterations; <phi(x), C_j> is kept for all n points.
  minibatch,
  /// Full-batch kernel k-means: Lloyd's algorithm in feature space (centers =
  /// cluster means) until no label changes (or tol); an empty cluster takes
  /// the point farthest from its center.
  full,
};

struct KernelKMeansParams {
  index_t n_clusters = 8;  ///< k, 1 <= k <= n
  KernelParams kernel;
  KernelKMeansAlgorithm algorithm = KernelKMeansAlgorithm::truncated;
  index_t batch_size = 1024;  ///< b, 1 <= b <= n (mini-batch algorithms)
  index_t tau = 200;          ///< points per truncated center, >= 1 (truncated)
  /// Truncated: rescale the kept window to weight 1 (true), or keep the
  /// weights of Eq. (1) as they are, the dropped mass lost (false, the
  /// paper's literal form).
  bool renormalize = true;
  LearningRate learning_rate = LearningRate::beta;  ///< the paper's: beta (common.hpp)
  int max_iter = 200;  ///< iterations (mini-batch: batches), >= 1
  /// Early stopping, >= 0 (0: off). Mini-batch: stop when the mean batch
  /// objective improves by less than tol, f_B(C_i) - f_B(C_{i+1}) < tol (the
  /// paper's epsilon; one more pass of the batch against the updated
  /// centers). Full: when the mean objective over all points improves by
  /// less than tol, or no label changes.
  double tol = 0.0;
  bool evaluate = true;  ///< labels and inertia of all points (always done when labels are asked for)
  RunOptions run;        ///< seed, threads, progress
};

/// Centers in feature space: C_j = sum_t coef[t] phi(x_{support[index[t]]})
/// over t in [indptr[j], indptr[j + 1]); each center's coefficients are > 0
/// and sum to 1 (at most 1 from a truncated fit with renormalize = false). Exception: a full-batch fit on fewer distinct points (in
/// feature space) than clusters can keep a cluster empty after relocation;
/// it has no terms and sqnorm = +inf, so it is never a point's nearest.
struct KernelCenters {
  std::vector<index_t> support;  ///< (m,) training rows the centers use, increasing
  std::vector<index_t> indptr;   ///< (k + 1,)
  std::vector<index_t> index;    ///< (nnz,) positions in support, increasing per center
  std::vector<double> coef;      ///< (nnz,)
  std::vector<double> sqnorm;    ///< (k,) <C_j, C_j>
};

/// Phases: seeding (gamma heuristic, kernel k-means++), iterations,
/// evaluation (labels and inertia of all points); counts are kernel evaluations.
struct KernelKMeansResult : IterationResult {
  KernelCenters centers;
  KernelParams kernel;                ///< the kernel used (gamma resolved)
  std::vector<index_t> init_indices;  ///< (k,) the data points the centers started at
  /// Per iteration: weighted mean over the batch (full: over all points) of the
  /// squared feature-space distance to the nearest center, at the assignment step.
  std::vector<double> objective;
  /// sum_x w_x min_j ||phi(x) - C_j||^2 over all n points with the final centers,
  /// when evaluated; NaN otherwise. Each term is computed as
  /// K(x,x) - 2 <phi(x), C_j> + <C_j, C_j> and not clamped: for a kernel that
  /// is not positive semidefinite (the k-nn graph kernel, zero diagonal) the
  /// terms and the sum can be negative; it is still the kernel k-means
  /// objective the iterations lower (the same holds for `objective`).
  double inertia = NAN;
};

/// Fits k centers in feature space.
///
/// @param data          IN  (n, d) points (precomputed: the (n, n) kernel
///                      matrix, symmetric; d must equal n); data.w: (n,)
///                      sample weights, finite and > 0, or nullptr
/// @param params        IN  see KernelKMeansParams
/// @param init_indices  IN  (k,) data rows to start from, or nullptr for kernel k-means++
/// @param labels        OUT (n,) nearest final center of every point, or nullptr
template <typename T>
KernelKMeansResult fit_kernel_kmeans(const DataView<T>& data, const KernelKMeansParams& params,
                                     const index_t* init_indices, std::int32_t* labels);

/// Nearest fitted center of new points (one blocked pass, n m evaluations).
///
/// @param data             IN  (n, d) new points; precomputed: (n, n_train) rows K(x, x_train)
/// @param kernel           IN  the fitted kernel (gamma > 0 resolved: KernelKMeansResult::kernel)
/// @param centers          IN  the fitted centers
/// @param support_vectors  IN  (m, d) the training rows centers.support (nullptr for precomputed)
/// @param labels           OUT (n,) or nullptr
/// @param sq_distances     OUT (n, k) squared feature-space distances, or nullptr (not for precomputed:
///                         K(x, x) of new points is unknown there)
/// @return the evaluations (phase `evaluation`)
template <typename T>
PhaseCosts kernel_kmeans_predict(const DataView<T>& data, const KernelParams& kernel,
                                 const KernelCenters& centers, const T* support_vectors,
                                 const RunOptions& run, std::int32_t* labels,
                                 double* sq_distances);

/// Kernel k-means++: k data rows by D^2 sampling in feature space (first
/// uniformly, then proportional to min_c ||phi(x) - phi(c)||^2; uniformly
/// when every point sits on a chosen one), each draw also proportional to the
/// sample weight when data.w is given. kernel.gamma must be resolved (> 0
/// where used). Cost: (k - 1) n evaluations.
///
/// @param indices OUT (k,) the chosen rows
template <typename T>
SeedingStats kernel_kmeans_plusplus(const DataView<T>& data, const KernelParams& kernel,
                                    index_t n_clusters, const RunOptions& run, index_t* indices);

/// The "auto" gamma of rbf (laplacian): 1 / median of the squared Euclidean
/// (L1) distances over the pairs of up to 1000 rows drawn without replacement
/// (if the median is 0: the mean of the positive ones; 1 if all are 0).
template <typename T>
double kernel_gamma_heuristic(const DataView<T>& data, KernelType type, const RunOptions& run);

enum class GraphKernelType {
  knn,   ///< D^-1 A D^-1 (paper's k-nn kernel)
  heat,  ///< exp(-t L), L = I - D^-1/2 A D^-1/2 (Chung's heat kernel)
};

/// The heat kernel keeps the graph's modes weighted at least
/// exp(-kHeatLogRange) = 1e-12 of the slowest's.
constexpr double kHeatLogRange = 27.631021115928547;  // ln(1e12)
/// At t <= kHeatDenseMaxT the modes down to lambda = -0.5 weigh that much:
/// graph_kernel decomposes the graph densely without trying the slow modes.
constexpr double kHeatDenseMaxT = kHeatLogRange / 1.5;

struct GraphKernelParams {
  GraphKernelType type = GraphKernelType::knn;
  index_t n_neighbors = 10;  ///< neighbours per point, 1 <= n_neighbors < n
  /// Heat kernel time > 0. exp(-t L) keeps the graph's diffusion modes with
  /// eigenvalue lambda << 1 / t of L: large t (hundreds to thousands of steps
  /// on a k-nn graph) approaches spectral clustering on the slowest modes,
  /// small t leaves every point nearly orthogonal to the others.
  double t = 1000.0;
};

/// A graph kernel from the symmetrised k-nn graph of the rows (A_ij = 1 when j
/// is among the n_neighbors nearest of i or i among those of j; exact, blocked;
/// ties: lowest index), D = diag(row sums of A). knn: O(n^2 d) and n^2 memory.
/// heat: plus the m modes of N = D^-1/2 A D^-1/2 weighted exp(-t (1 -
/// lambda)) >= 1e-12 (dropped modes change no entry by more than 1e-12 of the
/// largest), by Chebyshev-filtered subspace iteration on the sparse graph
/// (Zhou & Saad 2007; start block from run.seed), O(n^2 m) for the matrix;
/// when more than n / 4 modes pass (small t) a dense eigendecomposition,
/// O(n^3) on one thread. Bit-identical on any number of threads. The result
/// is symmetric, for KernelType::precomputed. Its cost (n^2 distance
/// evaluations for the graph, wall time) is reported in the `seeding` phase.
///
/// @param kernel OUT (n, n) row-major
template <typename T>
PhaseCosts graph_kernel(const DataView<T>& data, const GraphKernelParams& params,
                        const RunOptions& run, T* kernel);

/// The k-nn kernel's m slowest modes as features Z (n, m), Z Z^T = D^-1/2 V_m
/// Lambda_m V_m^T D^-1/2: V_m, Lambda_m the eigenpairs of N = D^-1/2 A D^-1/2
/// with the m largest eigenvalues (clamped at 0), so Z Z^T is the k-nn kernel
/// D^-1 A D^-1 = D^-1/2 N D^-1/2 restricted to those modes. Its leading modes
/// are the spectral relaxation of the normalized cut (Dhillon, Guan & Kulis
/// 2004), and k-means on Z is spectral clustering's k-means step (Z's columns
/// are the random-walk eigenvectors D^-1/2 v, scaled by sqrt(lambda)).
/// Use with the linear kernel (or any k-means) when the full k-nn kernel,
/// zero between non-neighbours, leaves kernel k-means stuck at its seeds.
/// Cost: the k-nn scan (n^2 distance evaluations, reported in `seeding`) and
/// Chebyshev-filtered subspace iteration on a block of m + max(8, m) vectors
/// (O(q nnz) per vector and sweep; graphs of fewer than 4 (m + max(8, m))
/// points decomposed densely); memory O(n (m + nnz / n)), no n x n matrix.
/// The modes are determined up to rotations within equal eigenvalues (Z Z^T
/// is not). Bit-identical on any number of threads; start block from run.seed.
///
/// @param n_modes  IN  m, 1 <= m <= n (m = n_clusters is the usual choice)
/// @param features OUT (n, m) row-major
template <typename T>
PhaseCosts graph_modes(const DataView<T>& data, const GraphKernelParams& params, index_t n_modes,
                       const RunOptions& run, T* features);

#define VCGMM_KERNEL_KMEANS_EXTERN(T)                                                           \
  extern template KernelKMeansResult fit_kernel_kmeans<T>(const DataView<T>&,                   \
                                                          const KernelKMeansParams&,            \
                                                          const index_t*, std::int32_t*);       \
  extern template PhaseCosts kernel_kmeans_predict<T>(const DataView<T>&, const KernelParams&,  \
                                                      const KernelCenters&, const T*,           \
                                                      const RunOptions&, std::int32_t*, double*); \
  extern template SeedingStats kernel_kmeans_plusplus<T>(const DataView<T>&, const KernelParams&, \
                                                         index_t, const RunOptions&, index_t*); \
  extern template double kernel_gamma_heuristic<T>(const DataView<T>&, KernelType,              \
                                                   const RunOptions&);                          \
  extern template PhaseCosts graph_kernel<T>(const DataView<T>&, const GraphKernelParams&,      \
                                             const RunOptions&, T*);                            \
  extern template PhaseCosts graph_modes<T>(const DataView<T>&, const GraphKernelParams&,       \
                                            index_t, const RunOptions&, T*);
VCGMM_KERNEL_KMEANS_EXTERN(float)
VCGMM_KERNEL_KMEANS_EXTERN(double)
#undef VCGMM_KERNEL_KMEANS_EXTERN

}  // namespace vcgmm
