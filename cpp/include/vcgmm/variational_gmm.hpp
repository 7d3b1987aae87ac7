// vcgmm: the truncated variational EM loop of var-GMM-S, on weighted points.
//
// Papers: Forster & Luecke, "Can clustering scale sublinearly with its
// clusters?", AISTATS 2018 (var-GMM-S); Hirschberger, Forster & Luecke, arXiv
// 2018 / IEEE TPAMI 2022 (Alg. 1 and 2, eq. 9-13, Suppl. D-F: its use on a
// coreset, vc-GMM).
//
// Model (CovarianceType::shared, the default): C isotropic Gaussians with
// equal mixing weights and one shared variance sigma^2 (spherical: one per
// component, see CovarianceType). Every point n keeps a set K(n) of G cluster
// indices (the truncated posterior's support, C' = G), every cluster c a
// neighbourhood G_c of G clusters starting with c itself. One iteration:
//   E-step (e_step), per point: search space S(n) = union of G_c over c in
//     K(n) (plus one uniformly random cluster with `plus1`); new K(n) = the G
//     nearest means of S(n) (by Prop. 1 this never decreases the free energy);
//     responsibilities over K(n); then the neighbourhoods G_c;
//   M-step (m_step, weighted by w): the means and sigma^2.
// The first E-step needs no sigma^2 (K(n) depends on distances only); after
// it sigma^2 = sum_n w_n min_{c in S(n)} d_c(n) / (D sum w) (eq. 12). The
// loop stops by stop_rule (StopRule) or after max_iter iterations; `refine`
// hard steps may follow (RefineSearch). With G >= C every set holds all
// clusters and the loop is exact EM for this model (the test oracle).
//
// Cost per iteration: O(N G^2 D) (|S(n)| <= G^2 + 1 distances per point) plus
// O(C) bookkeeping (none per task or point). The flops do not depend on C,
// the time grows with it: a point's candidate means are rows scattered over a
// (C, D) array far larger than the caches (the next point's rows are
// prefetched). Memory O(C D + N G + C G) (the means, the M-step's (C, D)
// double accumulator) plus the neighbourhood statistics (one entry per
// distinct (winner, candidate) pair of an iteration, about C G^2 once they
// settle); points go in blocks of at most 65,536 (fewer for large G), so no
// O(N G^2) buffer is ever held.
// Determinism: random draws come from streams keyed by the seed, iteration
// and point chunk; the M-step sums each cluster's (point, responsibility)
// pairs in point order, per fixed range of points and then range by range
// (C <= 4096 G / 8) or on one thread per cluster (larger C); no per-thread
// C x D accumulators; distances in T, responsibilities and sums in double.
// Results do not depend on the number of threads.
// Use when: C is large (hundreds to tens of thousands) and an approximate
// GMM / k-means solution is wanted fast. Do not use for: small C, where exact
// EM or Lloyd (lloyd.hpp) is cheap, or when full posteriors are needed.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {

/// When the loop has converged, besides max_iter. F only shifts by a
/// constant when X is rescaled, so `gain` (the default) does not depend on
/// the data's units; `relative` does.
enum class StopRule {
  gain,      ///< |F_t - F_{t-1}| / (sum(w) D) < tol: nats per unit weight and feature
  relative,  ///< |F_t - F_{t-1}| < tol |F_t|: the papers' rule (depends on the data's units)
};

/// The model's variances. spherical (not in the papers; the var-GMM papers'
/// model family): component c has its own variance sigma_c^2 and weight pi_c,
/// log joint l_c(n) = log pi_c - D/2 log(2 pi sigma_c^2) - d_c(n) / (2 sigma_c^2).
/// E-step: S(n) as for shared (it holds the previous K(n), since G_c starts
/// with c); new K(n) = the G candidates of largest l_c(n) (ties: lower
/// index), so the E-step never decreases F; winner = K(n)'s first;
/// responsibilities = softmax of l_c(n) over K(n); F = sum_n w_n
/// logsumexp_{c in K(n)} l_c(n) (the shared formula when all sigma_c, pi_c
/// are equal). The neighbourhoods G_c stay distance-based (the clusters near
/// a cluster's mean). M-step: means as for shared; m_c = sum_n w s_c;
/// sigma_c^2 = sum_n w s_c ||y - mu_c||^2 / (D m_c), floored at the larger of
/// variance_floor times the data's weighted variance per feature and the
/// shared floor (else a component on one point or on identical points
/// collapses to 0 and F to +inf); pi_c = m_c / sum(w). A component of zero
/// mass keeps its mean and variance and gets pi_c = 0: it is unreachable from
/// then on (as in exact EM). The first E-step (and any e_step(estimate_sigma
/// = true)) uses the shared sigma^2 of eq. 12 (floored as sigma_c^2, so
/// that no M-step lowers F) for every component and pi_c = 1/C. Same cost
/// per iteration (plus O(C) per M-step) and the same determinism as shared;
/// after refinement sigma_c^2 and pi_c are refitted (see RefineSearch). For
/// when a mixture with per-component variances and weights is the model
/// wanted, not to lower the quantization error (it ends higher than shared's:
/// docs/user_guide/performance.rst).
enum class CovarianceType {
  shared,     ///< one variance sigma^2, equal weights 1/C: the papers' model
  spherical,  ///< a variance sigma_c^2 and a mixing weight pi_c per component
};

/// How a hard refinement step assigns each point. `refine` = k > 0 (not in the
/// papers) runs k hard (Lloyd) steps after EM has stopped: every point gets a
/// label, every cluster that no point chose moves onto one of the points
/// farthest from their means (as in lloyd.hpp; with split_merge it takes a
/// half of a split instead; counted in refine_relocated), then every mean to
/// the weighted mean of its points. With approximate /
/// exact, K(n) becomes the label followed by the rest of the previous K(n)
/// (its last entry dropped when the label is new) and the neighbourhoods
/// stay. The previous label is always a candidate and a relocated cluster's
/// mean becomes its point, so the weighted quantization error never
/// increases (refine_objective). The free-energy trace stays EM's. After the
/// last step, one E-step search with EM's variances gives soft
/// responsibilities for the refined means, and sigma^2 (spherical: sigma_c^2
/// and pi_c) is refitted about those means (they stay): means and variances
/// are then one model, F not below that of the refined means with EM's
/// variances (its evaluations count in `refinement`); final_free_energy is F
/// of the returned model. The search's evaluations (and the approximate
/// index's) and time are the `refinement` phase's. Why: EM's fixed point
/// (soft means, one shared sigma^2) is not a k-means fixed point; at large C
/// the sets K(n) miss the nearest mean of many points, and EM leaves means
/// that no point is nearest to (most of them duplicates of another mean).
/// The truncation sets K(n) the loop starts from.
enum class InitialSets {
  /// C' = G distinct random clusters per point (the papers' Alg. 1). On
  /// well-separated clusters the first search spaces (unions of random
  /// neighbourhoods) rarely hold a point's own cluster, so the first M-step
  /// averages points of other clusters and EM does not recover.
  random,
  /// The same, with each point's nearest initial mean moved to the front of
  /// K(n) (found as RefineSearch says: approximate, exact or, for
  /// restricted, the approximate index too): the first M-step starts from the
  /// seeding's partition, as exact EM (G = C) does. One labelling of the N
  /// points, counted in the `iterations` phase.
  nearest,
};

enum class RefineSearch {
  /// The nearest mean within S(n), as in the E-step (new K(n) = its G nearest
  /// there; neighbourhoods updated as after an E-step): O(N G^2 D), no full scan.
  restricted,
  /// The nearest mean over all C by the cell index of approximate_assignment.hpp
  /// at its defaults (CenterCellIndex), built on the current means every step
  /// (about sqrt(C) (1 + probes) evaluations per point at matrix-product
  /// speed); the previous label is kept when it is nearer than the one found.
  approximate,
  /// The nearest mean over all C by the exact blocked scan, O(N C D): the step
  /// is then one step of lloyd() with relocation.
  exact,
};

/// Default floor of a component's variance with CovarianceType::spherical,
/// relative to the data's (weighted) variance per feature.
constexpr double kComponentVarianceFloor = 1e-6;

struct VariationalGmmParams {
  /// Neighbourhood size G >= 1 (C' = G); clamped to C (then exact EM). The
  /// papers use 3 to 7 (5 in their tables); 7 was chosen on users' data, for
  /// about twice the work per iteration of 5 (docs/user_guide/parameters.rst).
  int G = 7;
  bool plus1 = false;      ///< add one random cluster to every search space ("G = 3+1")
  /// nearest: better on the users' data suite, worse on image patches at
  /// C >= 1000 (bench/results/users_data/vcgmm_initial_sets.md); random: the papers'
  InitialSets initial_sets = InitialSets::random;
  int n_init_estep = 0;    ///< extra E-steps before the first M-step (>= 0; they count
                           ///< against max_iter: at most max_iter - 1 are run)
  double tol = 2e-4;       ///< convergence threshold of stop_rule (0: run to max_iter)
  StopRule stop_rule = StopRule::gain;  ///< how tol is applied
  int max_iter = 1000;     ///< maximum number of iterations (E-step + M-step), >= 1
  /// Hard refinement steps after EM (>= 0; 0: the papers' algorithm; see
  /// RefineSearch; split_merge may add steps). The default 3 with
  /// refine_search = approximate was chosen by measurement
  /// (docs/user_guide/performance.rst).
  int refine = 3;
  RefineSearch refine_search = RefineSearch::approximate;  ///< the refinement's assignment
  /// A round of split-merge moves after every refinement step (not in the
  /// papers; approximate and exact refine_search only), and after every data
  /// step (fit_vcgmm): the clusters whose
  /// merge into a neighbour (G_c, or a cluster whose G holds c) costs least
  /// (Ward's cost) are paired with the clusters whose 2-means split lowers the
  /// error most, while the gain is more than 4 times the cost; the merged mean
  /// and the split's two halves replace the three means. Empty clusters
  /// take a half of the largest splits first (no merge to pay for). Exact for the
  /// partition: the error falls by gain - cost per pair (a split of more than
  /// 1024 points is estimated on a sample of about 1024). While a round lowers
  /// the error by at least 0.1%, another refinement step follows, at most 16
  /// more than `refine` (a round halves a cluster only once). Why: EM and
  /// Lloyd move means only locally; on well-separated clusters (make_blobs
  /// with C = its number of centers) a seeding that put two means in one
  /// cluster and one between two never recovers (docs/user_guide/
  /// parameters.rst). O(N D) per round; the pairs in refine_split_merges.
  bool split_merge = true;
  CovarianceType covariance_type = CovarianceType::shared;  ///< shared: the papers' model
  /// spherical: floor of sigma_c^2 relative to the data's variance per feature (>= 0, finite)
  double variance_floor = kComponentVarianceFloor;
  /// spherical: the first shared_m_steps M-steps (>= 0) fit one variance
  /// (sum_c sq_c / (D sum(w)), floored as sigma_c^2) and keep pi_c = 1/C, the
  /// per-component M-step following: the warm-up of the authors' isoflex
  /// code, 2 steps as there (without it, far more means collapse on data of
  /// uneven density; on image patches it is level: bench/results/covariance/
  /// covariance_geonames_isoflex.md, covariance_patches-all_isoflex.md).
  /// Ignored by shared.
  int shared_m_steps = 2;
};

/// Phase `iterations` of the costs: sum_n |S(n)| over all E-steps (plus the
/// initial labelling of InitialSets::nearest).
struct VariationalGmmResult : IterationResult {
  int G = 0;                             ///< effective G (params.G clamped to C)
  double sigma2 = 0.0;                   ///< final shared variance (spherical: sum_c pi_c sigma_c^2)
  /// (C,) final variance of every component (shared: all sigma2).
  std::vector<double> variances;
  /// (C,) final mixing weights (shared: all 1/C, fixed by the model).
  std::vector<double> mixing_weights;
  std::vector<double> free_energy;       ///< F of every iteration's E-step (eq. 10)
  /// A lower bound of the returned parameters' log-likelihood: without
  /// refinement free_energy.back() (the final M-step only raises it); after
  /// refinement steps F(K, Theta) of the final K(n), means, variances and
  /// weights (the means have moved since the last E-step).
  double final_free_energy = 0.0;
  std::vector<std::int64_t> estep_distance_evals;  ///< sum_n |S(n)| of every E-step (initial ones first)
  /// Weighted quantization error of every refinement step's (restricted)
  /// assignment, with the means before that step's update; non-increasing.
  std::vector<double> refine_objective;
  /// Empty clusters moved onto far points in every refinement step.
  std::vector<index_t> refine_relocated;
  /// Split-merge pairs moved after every refinement step (split_merge).
  std::vector<index_t> refine_split_merges;
};

/// The var-GMM-S loop as an object, for step-by-step use and inspection
/// (tests, research); `fit()` runs the whole loop.
///
/// The data are not copied and must outlive the object.
template <typename T>
class VariationalGmm {
 public:
  /// @param data          IN (N, D) points and optional weights (coreset weights for vc-GMM)
  /// @param n_components  IN C, 1 <= C <= N
  /// @param means         IN (C, D) initial means (copied)
  /// @param run           IN seed (initial K(n) and G_c, "+1" draws), threads, progress
  VariationalGmm(const DataView<T>& data, index_t n_components, const T* means,
                 const VariationalGmmParams& params, const RunOptions& run);
  ~VariationalGmm();
  VariationalGmm(const VariationalGmm&) = delete;
  VariationalGmm& operator=(const VariationalGmm&) = delete;

  /// One variational E-step, per point (in parallel): the squared distances
  /// to the means in S(n); new K(n) = the G nearest of S(n); winner c_o(n) =
  /// the nearest; responsibilities s_c(n) over K(n) with the log-sum-exp
  /// shift. Then the neighbourhoods: for each cluster c, over the points it
  /// won, the mean Euclidean distance to every other candidate of their
  /// search spaces; G_c = c followed by the G - 1 candidates of smallest mean
  /// (never seen = infinitely far); a cluster that won no point keeps its G_c.
  /// With `estimate_sigma` (and always before sigma^2 is known) sigma^2 is
  /// first re-estimated by eq. 12 (spherical: every component gets it, with
  /// weight 1/C). Returns the free energy (eq. 10) F(K_new, Theta) =
  /// sum_n w_n logsumexp_{c in K(n)} (-d_c(n)/(2 sigma^2)) - sum(w) (log C +
  /// D/2 log(2 pi sigma^2)) with the current parameters (spherical: see
  /// CovarianceType).
  double e_step(bool estimate_sigma = false);

  /// M-step from the responsibilities of the last E-step, weighted by w:
  /// mu_c = sum w s_c y / sum w s_c (zero mass: the mean stays); sigma^2 =
  /// sum_n sum_{c in K(n)} w s_c ||y - mu_c||^2 / (D sum w), floored at 1e-12
  /// times the data variance and at the squared resolution of T at the data's
  /// magnitude, (16 eps)^2 times its mean square (spherical: sigma_c^2 and
  /// pi_c instead of sigma^2, see CovarianceType).
  void m_step();

  /// F(K, Theta) for the current K(n) and parameters, without changing
  /// anything (O(N G D); not counted as distance evaluations).
  double free_energy() const;

  /// One hard refinement step (see RefineSearch): restricted
  /// assignment (new K(n), neighbourhoods), then the weighted means of the
  /// assigned points (sigma^2 and the variances stay; fit() refits them
  /// after its last refinement step). Returns the weighted quantization
  /// error of the assignment with the means before the update. Needs sigma^2 (an e_step
  /// first); afterwards the responsibilities are the hard assignments.
  /// split_merge: then one round of split-merge moves on the new partition
  /// (see VariationalGmmParams::split_merge; with refine_search restricted
  /// the next steps cannot find the moved means).
  double refine_step(bool split_merge = false);

  /// Runs the loop: 1 + n_init_estep E-steps, then iterations until the
  /// stopping rule (params.stop_rule) is met or max_iter iterations, then
  /// params.refine refinement steps.
  VariationalGmmResult fit();

  index_t n_components() const;
  int G() const;                            ///< effective G (clamped to C)
  const T* means() const;                   ///< (C, D)
  double sigma2() const;                    ///< 0 before the first E-step
  const double* variances() const;          ///< (C,) sigma_c^2 (shared: all sigma2; 0 before the first E-step)
  const double* mixing_weights() const;     ///< (C,) pi_c (shared: all 1/C)
  const std::int32_t* truncation_sets() const;  ///< (N, G): K(n), nearest first
  const std::int32_t* neighbourhoods() const;   ///< (C, G): G_c, c first
  std::int64_t n_distance_evals() const;    ///< all E-steps so far (not refinement steps)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class VariationalGmm<float>;
extern template class VariationalGmm<double>;

}  // namespace vcgmm
