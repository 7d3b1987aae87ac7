// Internal (variational loop): the driver of truncated variational EM, built
// from its parts -- DataMoments (data_moments.hpp), TruncationSets
// (truncation_sets.hpp), NeighbourhoodStatistics (neighbourhood_statistics.hpp),
// EStepSearch (estep_search.hpp) and m_step (mstep.hpp). The public
// vcgmm::VariationalGmm checks its arguments and wraps this; fit_vcgmm uses
// it directly. Specification: vcgmm/variational_gmm.hpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "detail/assign.hpp"
#include "detail/huge_pages.hpp"
#include "vcgmm/data_moments.hpp"
#include "vcgmm/mstep.hpp"
#include "vcgmm/neighbourhood_statistics.hpp"
#include "vcgmm/split_merge.hpp"
#include "vcgmm/truncation_sets.hpp"

#include "vcgmm/variational_gmm.hpp"

namespace vcgmm {
namespace detail {

struct EStepSums;  // estep_search.hpp

/// Cells of the cell index a data step probes per point. Its labels only feed
/// a mean update: 2 cells move the means nearly as far as the index's default
/// 12, for a fraction of the search where many means share a cell
/// (docs/user_guide/parameters.rst).
constexpr int kDataStepProbes = 2;
/// The first data step probes more: it moves the means from the coreset's
/// fit to all points, the largest move, and where the cells mix unrelated
/// means (well-separated blobs, about one mean each) a label from 2 cells is
/// often a mean of another blob, enough to raise the error. It probes fewer
/// where a sample says they find as near labels (data_step_probes.hpp).
constexpr int kFirstDataStepProbes = 4;
/// A later data step labels every point exactly, walking out from its last
/// label (detail::assign_nearest_from), where that pass's estimated cost in
/// the scan's pairs is below this: the cell index's search, about sqrt(C)
/// coarse centers and kDataStepProbes cells of about sqrt(C) means per
/// point, each pair priced as kIndexPairCost of the scan's (the index's
/// products per cell are smaller than the scan's tiles; by the measurements
/// on blobs and image patches in docs/user_guide/performance.rst, the blobs
/// take the exact labels for less time than the index's, the patches keep
/// the index).
constexpr double kIndexPairCost = 2.0;
inline double later_step_search_cost(index_t n, index_t C) {
  return kIndexPairCost * static_cast<double>(n) * std::sqrt(static_cast<double>(C)) *
         (1 + kDataStepProbes);
}
/// With split-merge, the refinement goes on past its `refine` steps while the
/// last round of moves lowered the weighted error by at least this fraction
/// (of the last step's): a round splits a cluster only in two, so a mean
/// between several well-separated clusters needs a round for each; at most
/// kSplitMergeMaxExtraSteps more steps.
constexpr double kSplitMergeGoOn = 1e-3;
constexpr int kSplitMergeMaxExtraSteps = 16;

template <typename T>
class VariationalLoop {
 public:
  /// Arguments are not checked (see VariationalGmm).
  VariationalLoop(const DataView<T>& data, index_t C, const T* means,
                  const VariationalGmmParams& params, const RunOptions& run);

  double e_step(bool estimate_sigma);
  void m_step();
  double refine_step(bool split_merge = false);
  // One hard step on `all`, the data the coreset was drawn from (fit_vcgmm's
  // data_steps): every point's nearest mean by the cell index (or its previous
  // step's label, when nearer), or exactly where that costs less (later
  // steps: later_step_search_cost), every mean to the weighted mean of its points,
  // then a round of split-merge moves on all points (params.split_merge; else
  // empty clusters onto far points first). Returns the labels' weighted error
  // with the means before the update.
  double data_step(const DataView<T>& all);
  void refit_variances();
  double free_energy() const;
  // The loop, then `data_steps` data steps on *all` (after the refinement
  // steps, before the variances are refitted once for the final means).
  VariationalGmmResult fit(const DataView<T>* all = nullptr, int data_steps = 0);
  const std::vector<double>& data_step_objective() const { return data_objective_; }
  const std::vector<index_t>& data_step_relocated() const { return data_relocated_; }
  const std::vector<index_t>& data_step_left_empty() const { return data_left_empty_; }
  const std::vector<index_t>& data_step_split_merges() const { return data_split_merges_; }
  /// The last data step's label of every point (empty without data steps),
  /// moved out, near each point's nearest mean: a point of a cluster its
  /// split-merge round merged takes the cluster it merged into (the merged
  /// mean went to split another cluster).
  std::vector<std::int32_t> take_data_labels();

  index_t n_components() const { return sets_.C; }
  int G() const { return sets_.G; }
  const T* means() const { return means_.data(); }
  double sigma2() const { return sigma2_; }
  const double* variances() const { return var_c_.data(); }
  const double* mixing_weights() const { return weight_c_.data(); }
  const std::int32_t* truncation_sets() const { return sets_.K.data(); }
  const std::int32_t* neighbourhoods() const { return sets_.Gc.data(); }
  std::int64_t n_distance_evals() const { return n_evals_; }

 private:
  // One search over all points (E-step and refinement): new K(n), winners,
  // neighbourhood update; `stream_index` keys the "+1" streams.
  EStepSums search_pass(bool defer_resp, std::uint64_t stream_index);
  // The refinement's assignment over all C means (refine_search approximate
  // or exact): labels to the front of K(n); returns their weighted error.
  // cell_of (approximate): each mean's cell of the index (-1: a duplicate).
  EStepSums assign_over_all_means(std::int32_t* labels, double* d2, bool approximate,
                                  std::vector<std::int32_t>* cell_of = nullptr);
  double log_normaliser() const;
  double deferred_responsibilities();
  // Every component back to the shared sigma^2 and weight 1/C.
  void reset_components();
  // Spherical M-step's sigma_c^2, pi_c and the E-step's energy coefficients.
  void update_components(const std::vector<double>& mass, const std::vector<double>& sq);
  // Shared sigma^2 = sum w s ||y - mu||^2 / (D sum w), at least `floor`; every sigma_c^2 = it.
  void set_shared_variance(double sq_total, double floor);
  // The "+1" stream index of a refinement (or refit) search.
  std::uint64_t refine_stream() const;
  bool spherical() const { return params_.covariance_type == CovarianceType::spherical; }
  double convergence_scale(double F) const;
  void log_iteration(int it, double F, double change, double seconds) const;
  // Split-merge moves on the partition `part` of `data` (labels: its
  // labels; the means those of the partition); the empty clusters no split
  // was left for onto the points farthest from their means. Returns the
  // moves; `relocated` counts both kinds of moved empty clusters.
  SplitMergeStats split_merge_round(const DataView<T>& data, const ClusterPartition& part,
                                    const std::int32_t* labels, const std::int32_t* cell_of);

  DataView<T> data_;
  VariationalGmmParams params_;
  RunOptions run_;
  std::vector<T, detail::HugePageAllocator<T>> means_;  // (C, D), on huge pages at large C
  TruncationSets sets_;
  DataMoments moments_;
  std::unique_ptr<NeighbourhoodStatistics> stats_;  // null with G == C
  MStepAccumulator mstep_acc_;  // (C, D) workspace of the M-step (mstep.hpp)
  double sigma2_ = 0.0;
  std::vector<double> var_c_;      // (C,) sigma_c^2 (shared: all sigma2_)
  std::vector<double> weight_c_;   // (C,) pi_c (shared: all 1/C)
  std::vector<double> comp_scale_, comp_offset_;  // (C,) energy coefficients (spherical)
  bool per_component_ = false;     // spherical parameters differ from the shared ones
  int m_steps_ = 0;                // M-steps run (spherical: the first shared_m_steps are shared)
  double comp_floor_ = 0.0;        // smallest sigma_c^2 (params.variance_floor x data variance)
  bool has_sigma_ = false;
  bool has_resp_ = false;
  std::int64_t n_evals_ = 0;
  std::vector<std::int64_t> estep_evals_;  // one entry per E-step (also keys the "+1" streams)
  std::vector<std::int64_t> refine_evals_;  // one entry per refinement step
  std::vector<index_t> refine_relocated_;   // empty clusters moved, per refinement step
  std::vector<index_t> refine_split_merges_;  // split-merge pairs moved, per refinement step
  double last_split_merge_gain_ = 0.0;        // the last round's fall of the weighted error
  std::int64_t refit_evals_ = 0;            // refit_variances' search
  std::vector<double> data_objective_;      // per data step: the labels' weighted error
  std::vector<std::int32_t> data_labels_;   // the last data step's label of every point
  std::vector<std::int32_t> data_merged_into_;  // the last data step's merges: r -> q, else -1
  detail::WarmLists<T> data_lists_;  // the exact labels' lists, from one data step to the next
  bool data_walks_declined_ = false;  // a data step's exact labels did not pay: the index's from then on
  std::vector<index_t> data_split_merges_;  // per data step: split-merge pairs moved
  std::vector<index_t> data_relocated_;     // per data step: empty clusters moved
  std::vector<index_t> data_left_empty_;    // per data step: empty clusters not moved
  std::int64_t data_evals_ = 0;             // all data steps' distance evaluations
};

extern template class VariationalLoop<float>;
extern template class VariationalLoop<double>;

}  // namespace detail
}  // namespace vcgmm
