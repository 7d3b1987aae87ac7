// vcgmm: vc-GMM and var-GMM-S in one call -- the headline algorithm.
//
// Paper: Hirschberger, Forster & Luecke, "Accelerated training of large-scale
// Gaussian mixtures by a merger of sublinear approaches"
// (000_bd19523839359b5b.txt, Alg. 1; 001_67f7d78dff067ebf.txt).
//
//   vc-GMM    = lightweight coreset of N' points (lightweight_coreset.hpp)
//             + AFK-MC^2 seeding on the coreset (afkmc2.hpp)
//             + the truncated variational EM loop on the coreset with the
//               coreset weights (variational_gmm.hpp);
//   var-GMM-S = the same seeding and loop on all N points with the sample
//               weights (coreset_size = 0). One implementation, not two.
//
// Cost: O(N D) for the coreset, O(N' D + m C^2 D) for the seeding,
// O(N' G^2 D) per EM iteration -- independent of N and, per iteration, of C.
// The optional evaluation (labels and quantization error on the full data)
// costs O(N C D) and is reported as its own phase.
#pragma once

#include <cstdint>
#include <vector>

#include "vcgmm/common.hpp"
#include "vcgmm/kmeans.hpp"

namespace vcgmm {

struct VcgmmParams {
  index_t n_components = 8;               ///< C >= 1
  int G = 5;                              ///< neighbourhood size (C' = G), clamped to C
  bool plus1 = false;                     ///< one random extra cluster per search space
  index_t coreset_size = 0;               ///< N' >= C; 0: var-GMM-S on all points
  KMeansInit init = KMeansInit::afkmc2;   ///< seeding (the papers: AFK-MC^2)
  int chain_length = 20;                  ///< AFK-MC^2 chain length m
  int n_local_trials = 1;                 ///< k-means++ candidates per step (init = kmeans_plusplus)
  int n_init_estep = 0;                   ///< extra E-steps before the first M-step
  double tol = 1e-4;                      ///< relative change of the free energy (0: run to max_iter)
  int max_iter = 1000;                    ///< EM iterations at most
  bool evaluate = false;                  ///< quantization error (and labels, if asked) on all points
  std::uint64_t seed = 0;                 ///< random seed
  int n_threads = 0;                      ///< threads (<= 0: OpenMP's default)
  Logger log;                             ///< progress lines, or empty
};

struct VcgmmResult {
  double sigma2 = 0.0;                    ///< shared variance
  std::vector<double> free_energy;        ///< F per EM iteration (eq. 10, on the coreset)
  std::vector<std::int64_t> estep_distance_evals;  ///< sum_n |S(n)| per E-step
  int n_iter = 0;                         ///< EM iterations
  bool converged = false;
  double inertia = 0.0;                   ///< quantization error on all points (if evaluated, else NaN)
  DistanceCounts n_distance_evals;
  PhaseTimes seconds;
};

/// Fits C isotropic Gaussians (means + one shared variance) by vc-GMM
/// (coreset_size > 0) or var-GMM-S (coreset_size == 0).
///
/// @param data             IN  (n, d) points and optional sample weights
/// @param init_means       IN  (C, d) when params.init == given, else ignored
/// @param means            OUT (C, d) final means
/// @param labels           OUT (n,) nearest final mean of every point (exact), or nullptr
/// @param coreset_indices  OUT (coreset_size,) or nullptr
/// @param coreset_weights  OUT (coreset_size,) or nullptr
template <typename T>
VcgmmResult fit_vcgmm(const DataView<T>& data, const VcgmmParams& params,
                      const nondeduced_t<T>* init_means, nondeduced_t<T>* means,
                      std::int32_t* labels, index_t* coreset_indices,
                      double* coreset_weights);

extern template VcgmmResult fit_vcgmm<float>(const DataView<float>&, const VcgmmParams&,
                                             const float*, float*, std::int32_t*, index_t*,
                                             double*);
extern template VcgmmResult fit_vcgmm<double>(const DataView<double>&, const VcgmmParams&,
                                              const double*, double*, std::int32_t*, index_t*,
                                              double*);

}  // namespace vcgmm
