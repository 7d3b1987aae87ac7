#include "vcgmm/variational_gmm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <vector>

#include "detail/assign.hpp"
#include "detail/gaussian.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/relocation.hpp"
#include "detail/validation.hpp"
#include "vcgmm/approximate_assignment.hpp"
#include "vcgmm/assignment.hpp"
#include "vcgmm/checks.hpp"
#include "vcgmm/data_step_probes.hpp"
#include "vcgmm/estep_search.hpp"
#include "vcgmm/mstep.hpp"
#include "vcgmm/split_merge.hpp"
#include "vcgmm/variational_loop.hpp"

namespace vcgmm {

namespace detail {

template <typename T>
VariationalLoop<T>::VariationalLoop(const DataView<T>& data, index_t C, const T* means,
                                    const VariationalGmmParams& params, const RunOptions& run)
    : data_(data),
      params_(params),
      run_(run),
      means_(means, means + C * data.d),
      sets_(data.n, C, static_cast<int>(std::min<index_t>(params.G, C))),
      moments_(data_moments(data, run.n_threads)),
      var_c_(C, 0.0),
      weight_c_(C, 1.0 / static_cast<double>(C)),
      comp_floor_(std::max(params.variance_floor * moments_.variance, moments_.sigma2_floor)) {
  sets_.init(run_.seed, run_.n_threads);
  if (!sets_.full) {
    stats_ = std::make_unique<NeighbourhoodStatistics>(data.n, C, sets_.G, params.plus1);
    if (params.initial_sets == InitialSets::nearest) {
      std::vector<std::int32_t> labels(data.n);
      std::vector<double> d2(data.n);
      // By the cell index unless refine_search is exact (a restricted search
      // needs sets that already hold the nearest means).
      n_evals_ += assign_over_all_means(labels.data(), d2.data(),
                                        params.refine_search != RefineSearch::exact)
                      .evals;
    }
  }
}

template <typename T>
double VariationalLoop<T>::log_normaliser() const {
  return log_gaussian_normaliser(sets_.C, data_.d, sigma2_);
}

template <typename T>
EStepSums VariationalLoop<T>::search_pass(bool defer_resp, std::uint64_t stream_index) {
  const index_t N = data_.n;
  const index_t block = sets_.full ? N : stats_->block_points();
  const index_t tasks_total = n_chunks(N, kEStepPointsPerTask);
  std::vector<EStepSums> task_sums(tasks_total);
  if (stats_) stats_->begin_estep();
  const std::uint64_t stream_base = stream_index << 32;
  // Per-component energies once a spherical M-step has run (never for the
  // refinement's distance search, which passes defer_resp).
  const bool comp = per_component_ && !defer_resp;
  const EStepSearch<T> search(data_, means_.data(), sets_, stats_.get(), params_.plus1, sigma2_,
                              defer_resp, comp ? comp_scale_.data() : nullptr,
                              comp ? comp_offset_.data() : nullptr);
  const double flops = 3.0 * kEStepPointsPerTask * (sets_.full ? sets_.C : stats_->stride()) * data_.d;

  for (index_t b0 = 0; b0 < N; b0 += block) {
    const index_t b1 = std::min(N, b0 + block);
    const index_t task0 = b0 / kEStepPointsPerTask;
    parallel_for(n_chunks(b1 - b0, kEStepPointsPerTask), run_.n_threads, [&](index_t t) {
      const index_t p0 = b0 + t * kEStepPointsPerTask, p1 = std::min(b1, p0 + kEStepPointsPerTask);
      Rng rng(run_.seed, Stream::variational_plus1,
              stream_base | static_cast<std::uint64_t>(task0 + t));
      task_sums[task0 + t] = search.run(p0, p1, b0, rng);
    }, flops);
    if (stats_) stats_->fold_block(b1 - b0, run_.n_threads);
  }

  EStepSums total;
  for (const EStepSums& s : task_sums) {
    total.evals += s.evals;
    total.min_sum += s.min_sum;
    total.lse += s.lse;
  }
  if (stats_) stats_->update_neighbourhoods(sets_.Gc.data(), run_.n_threads);
  return total;
}

template <typename T>
double VariationalLoop<T>::e_step(bool estimate_sigma) {
  estimate_sigma = estimate_sigma || !has_sigma_;
  if (estimate_sigma) per_component_ = false;  // the search is by distance
  const EStepSums sums =
      search_pass(estimate_sigma, static_cast<std::uint64_t>(estep_evals_.size()));
  double lse_sum = sums.lse;
  n_evals_ += sums.evals;
  estep_evals_.push_back(sums.evals);

  if (estimate_sigma) {  // eq. 12, then the responsibilities with it
    // Spherical: within the floor its M-step keeps (below it, on duplicated
    // points, the first M-step had to raise the variances and F fell).
    sigma2_ = std::max(sums.min_sum / (static_cast<double>(data_.d) * moments_.w_total),
                       spherical() ? comp_floor_ : moments_.sigma2_floor);
    has_sigma_ = true;
    reset_components();
    lse_sum = deferred_responsibilities();
  }
  has_resp_ = true;
  if (per_component_) return lse_sum;  // the energies hold the normalisers
  return lse_sum - moments_.w_total * log_normaliser();
}

template <typename T>
void VariationalLoop<T>::reset_components() {
  std::fill(var_c_.begin(), var_c_.end(), sigma2_);
  std::fill(weight_c_.begin(), weight_c_.end(), 1.0 / static_cast<double>(sets_.C));
  per_component_ = false;
}

template <typename T>
void VariationalLoop<T>::update_components(const std::vector<double>& mass,
                                           const std::vector<double>& sq) {
  const index_t C = sets_.C;
  const double D = static_cast<double>(data_.d);
  comp_scale_.resize(C);
  comp_offset_.resize(C);
  double pooled = 0.0;
  for (index_t c = 0; c < C; ++c) {
    if (mass[c] > 0.0) {  // zero mass: mean and variance stay, pi_c = 0
      var_c_[c] = std::max(sq[c] / (D * mass[c]), comp_floor_);
    }
    weight_c_[c] = mass[c] > 0.0 ? mass[c] / moments_.w_total : 0.0;
    pooled += weight_c_[c] * var_c_[c];
    comp_scale_[c] = 0.5 / var_c_[c];
    comp_offset_[c] = weight_c_[c] > 0.0
                          ? 0.5 * D * std::log(2.0 * kPi * var_c_[c]) - std::log(weight_c_[c])
                          : std::numeric_limits<double>::infinity();
  }
  sigma2_ = std::max(pooled, moments_.sigma2_floor);
  per_component_ = true;
}

namespace {

// Moves `label` to the front of K(n) = kn[0..G), the rest following in their
// order (the last entry dropped when the label was not in K(n)).
inline void move_to_front(std::int32_t* kn, int G, std::int32_t label) {
  int pos = G - 1;
  for (int g = 0; g < G; ++g) {
    if (kn[g] == label) {
      pos = g;
      break;
    }
  }
  for (int g = pos; g > 0; --g) kn[g] = kn[g - 1];
  kn[0] = label;
}

}  // namespace

template <typename T>
double VariationalLoop<T>::refine_step(bool split_merge) {
  require(has_sigma_, "VariationalGmm: refine_step needs a preceding e_step");
  const index_t N = data_.n, C = sets_.C, D = data_.d;
  const int G = sets_.G;
  const index_t tasks_total = n_chunks(N, kEStepPointsPerTask);
  // Every point's label (K(n)'s first after the assignment) and the exact
  // squared distance to it: the searches over all means give it; the
  // restricted search's only for its one use, the far-point relocation of
  // empty clusters (without split-merge moves).
  std::vector<std::int32_t> labels(N);
  std::vector<double> d2;
  EStepSums sums;
  std::vector<std::int32_t> cell_of;  // (C,) each mean's cell of the index (approximate)
  if (params_.refine_search == RefineSearch::restricted) {
    sums = search_pass(true, refine_stream());  // K(n) sorted by distance, no responsibilities
    for (index_t n = 0; n < N; ++n) labels[n] = sets_.k_of(n)[0];
  } else {
    d2.resize(N);
    sums = assign_over_all_means(labels.data(), d2.data(),
                                 params_.refine_search == RefineSearch::approximate,
                                 split_merge ? &cell_of : nullptr);
  }
  refine_evals_.push_back(sums.evals);
  // Empty clusters onto the farthest points, as Lloyd's loop does (lloyd.hpp);
  // with split-merge moves they take halves of splits instead (split_merge.hpp).
  ClusterPartition part;
  part.build(labels.data(), N, C);
  index_t moved = 0;
  if (!split_merge && has_empty_cluster(part, C)) {
    if (d2.empty()) {
      d2.resize(N);
      parallel_for(tasks_total, run_.n_threads, [&](index_t t) {
        const index_t p0 = t * kEStepPointsPerTask, p1 = std::min(N, p0 + kEStepPointsPerTask);
        for (index_t n = p0; n < p1; ++n) {
          d2[n] = squared_distance_exact(data_.row(n), &means_[labels[n] * D], D);
        }
      }, 3.0 * kEStepPointsPerTask * D);
    }
    moved = relocate_empty_clusters(part, d2.data(), N, C, rounding_floor(means_.data(), C, D),
                                    labels.data());
    if (moved > 0) part.build(labels.data(), N, C);
  }
  // Hard responsibilities: all weight on K(n)'s first (the label).
  parallel_for(tasks_total, run_.n_threads, [&](index_t t) {
    const index_t p0 = t * kEStepPointsPerTask, p1 = std::min(N, p0 + kEStepPointsPerTask);
    for (index_t n = p0; n < p1; ++n) {
      std::int32_t* kn = sets_.k_of(n);
      if (kn[0] != labels[n]) move_to_front(kn, G, labels[n]);
      double* rn = sets_.resp_of(n);
      rn[0] = 1.0;
      for (int g = 1; g < G; ++g) rn[g] = 0.0;
    }
  }, 1.0 * kEStepPointsPerTask * G);
  has_resp_ = true;
  // sigma^2 stays EM's
  detail::m_step(data_, sets_, moments_, run_.n_threads, means_.data(), mstep_acc_);
  // The means are now those of the partition `part`, as split_merge needs.
  SplitMergeStats moves;
  if (split_merge) {
    moves = split_merge_round(data_, part, labels.data(),
                              cell_of.empty() ? nullptr : cell_of.data());
    moved = moves.relocated;
  }
  refine_relocated_.push_back(moved);
  refine_split_merges_.push_back(moves.moves);
  last_split_merge_gain_ = moves.net_gain;
  return sums.min_sum;
}

/// A point's previous label instead of the one found where it is nearer
/// (ties: the lower index), so that an approximate search never raises the
/// labels' error. Returns whether it computed a distance.
template <typename T>
bool keep_nearer_previous(const T* x, const T* means, index_t D, std::int32_t previous,
                          std::int32_t& label, double& d2) {
  if (previous == label) return false;
  const double dp = squared_distance_exact(x, means + previous * D, D);
  if (dp < d2 || (dp == d2 && previous < label)) {
    label = previous;
    d2 = dp;
  }
  return true;
}

/// The cell of every mean in `index` (-1 for a duplicate: only the distinct
/// means enter it), split-merge's merge candidates.
template <typename T>
std::vector<std::int32_t> cells_of_means(const CenterCellIndex<T>& index, index_t C) {
  std::vector<std::int32_t> cell_of(C, -1);
  for (std::size_t u = 0; u < index.distinct_ids().size(); ++u) {
    cell_of[index.distinct_ids()[u]] = index.cell_of()[u];
  }
  return cell_of;
}

template <typename T>
SplitMergeStats VariationalLoop<T>::split_merge_round(const DataView<T>& data,
                                                      const ClusterPartition& part,
                                                      const std::int32_t* labels,
                                                      const std::int32_t* cell_of) {
  const index_t N = data.n, C = sets_.C, D = data.d;
  SplitMergeStats moves =
      detail::split_merge(data, part, sets_, means_.data(), run_.n_threads, cell_of);
  if (moves.empty_left.empty()) return moves;
  // Empty clusters no split was left for (C near the number of distinct
  // points): onto the points farthest from the means that now serve them (a
  // merged cluster's points: the merged mean; a split one's: the nearer
  // half). The distances before the moves would pick points that now are a
  // mean, often the half of a split of two points: a duplicate mean.
  std::vector<std::int32_t> merged_into(C, -1), other_half(C, -1);
  for (const SplitMergeStats::Pair& pr : moves.pairs) {
    if (pr.q >= 0) merged_into[pr.r] = pr.q;
    other_half[pr.s] = static_cast<std::int32_t>(pr.r);
  }
  std::vector<double> d2(N);
  parallel_for(n_chunks(N, kEStepPointsPerTask), run_.n_threads, [&](index_t t) {
    const index_t p0 = t * kEStepPointsPerTask, p1 = std::min(N, p0 + kEStepPointsPerTask);
    for (index_t n = p0; n < p1; ++n) {
      const std::int32_t c = merged_into[labels[n]] >= 0 ? merged_into[labels[n]] : labels[n];
      d2[n] = squared_distance_exact(data.row(n), &means_[c * D], D);
      if (other_half[c] >= 0) {
        d2[n] = std::min(d2[n], squared_distance_exact(data.row(n), &means_[other_half[c] * D], D));
      }
    }
  }, 3.0 * kEStepPointsPerTask * D);
  const std::vector<index_t> far =
      farthest_points(d2.data(), N, static_cast<index_t>(moves.empty_left.size()),
                      rounding_floor(means_.data(), C, D));
  for (std::size_t e = 0; e < far.size(); ++e) {
    const index_t c = moves.empty_left[e];
    std::copy_n(data.row(far[e]), D, &means_[c * D]);
    place_next_to(sets_, c, labels[far[e]]);
  }
  moves.relocated += static_cast<index_t>(far.size());
  return moves;
}

template <typename T>
double VariationalLoop<T>::data_step(const DataView<T>& all) {
  const index_t N = all.n, C = sets_.C, D = all.d;
  std::vector<std::int32_t> labels(N);
  std::vector<double> d2(N);
  // After the first step, every point's nearest mean exactly, walking out
  // from its last label (merged clusters' points from the cluster they
  // merged into), where that is estimated to cost less than the cell
  // index's search.
  const std::vector<std::int32_t> previous = take_data_labels();
  const bool have_previous = static_cast<index_t>(previous.size()) == N;
  AssignmentStats exact_stats;
  std::int64_t exact_evals = 0;
  const bool exact = have_previous && !data_walks_declined_ &&
                     detail::assign_nearest_from(all, means_.data(), C, previous.data(),
                                                 labels.data(), d2.data(), run_.n_threads,
                                                 &exact_stats, &exact_evals,
                                                 later_step_search_cost(N, C), &data_lists_);
  // Once the walks did not pay, later steps search the index directly: the
  // estimate changes little from step to step (the means move less), and
  // each try costs the center pairs' product.
  data_walks_declined_ = have_previous && !exact;
  double objective = 0.0;
  std::unique_ptr<CenterCellIndex<T>> index;
  const auto build_index = [&](int n_probe) {
    ApproximateAssignmentParams probes;
    probes.n_probe = n_probe;
    index = std::make_unique<CenterCellIndex<T>>(means_.data(), C, D, probes, run_.n_threads);
    data_evals_ += index->build_stats().index_distance_evals;
  };
  if (exact) {
    data_evals_ += exact_evals;
    objective = exact_stats.objective;
  } else {
    build_index(have_previous ? kDataStepProbes : kFirstDataStepProbes);
    if (!have_previous) {  // (the later steps' searches probe few cells already)
      index->set_n_probe(fewest_agreeing_probes(all, *index, kFirstDataStepProbes,
                                                run_.n_threads, &data_evals_));
    }
    const ApproximateAssignmentStats found = index->assign(all, labels.data(), d2.data(),
                                                          run_.n_threads);
    data_evals_ += found.search_distance_evals;
    // The previous step's label where it is nearer than the one found (a
    // point's nearest mean may lie in a cell it did not probe), so that no
    // step raises the error, as in the refinement (assign_over_all_means).
    const index_t tasks_total = n_chunks(N, kEStepPointsPerTask);
    std::vector<double> part_sum(tasks_total, 0.0);
    std::vector<std::int64_t> previous_evals(tasks_total, 0);
    parallel_for(tasks_total, run_.n_threads, [&](index_t t) {
      const index_t p0 = t * kEStepPointsPerTask, p1 = std::min(N, p0 + kEStepPointsPerTask);
      double sum = 0.0;
      std::int64_t evals = 0;  // stored once: the tasks' slots share cache lines
      for (index_t n = p0; n < p1; ++n) {
        if (have_previous) {
          evals += keep_nearer_previous(all.row(n), means_.data(), D, previous[n], labels[n],
                                        d2[n]);
        }
        sum += all.weight(n) * d2[n];
      }
      part_sum[t] = sum;
      previous_evals[t] = evals;
    }, kEStepPointsPerTask * (have_previous ? 3.0 * D : 1.0));
    for (index_t t = 0; t < tasks_total; ++t) {
      objective += part_sum[t];
      data_evals_ += previous_evals[t];
    }
  }
  // The cells of the means the labels were found for bound split-merge's
  // merge candidates.
  if (params_.split_merge && !index) build_index(kDataStepProbes);
  // Empty clusters onto the farthest points, as Lloyd's loop does (lloyd.hpp);
  // with split-merge moves they take halves of splits instead (split_merge.hpp).
  ClusterPartition part;
  part.build(labels.data(), N, C);
  index_t moved = 0, empty = 0;
  for (index_t c = 0; c < C; ++c) empty += part.size(c) == 0;
  if (empty > 0 && !params_.split_merge) {
    moved = relocate_empty_clusters(part, d2.data(), N, C, rounding_floor(means_.data(), C, D),
                                    labels.data());
    if (moved > 0) part.build(labels.data(), N, C);
  }
  cluster_means(all, part, C, run_.n_threads, means_.data());
  index_t pairs = 0;
  data_merged_into_.assign(C, -1);
  if (params_.split_merge) {
    const std::vector<std::int32_t> cell_of = cells_of_means(*index, C);
    const SplitMergeStats moves =
        split_merge_round(all, part, labels.data(), cell_of.data());
    moved = moves.relocated;
    pairs = moves.moves;
    for (const SplitMergeStats::Pair& pr : moves.pairs) {
      if (pr.q >= 0) data_merged_into_[pr.r] = pr.q;
    }
  }
  data_relocated_.push_back(moved);
  data_left_empty_.push_back(empty - moved);
  data_split_merges_.push_back(pairs);
  data_labels_ = std::move(labels);
  data_objective_.push_back(objective);
  return objective;
}

template <typename T>
std::vector<std::int32_t> VariationalLoop<T>::take_data_labels() {
  std::vector<std::int32_t> labels = std::move(data_labels_);
  if (labels.empty()) return labels;
  const index_t N = static_cast<index_t>(labels.size());
  parallel_for(n_chunks(N, kEStepPointsPerTask), run_.n_threads, [&](index_t t) {
    const index_t p1 = std::min(N, (t + 1) * kEStepPointsPerTask);
    for (index_t n = t * kEStepPointsPerTask; n < p1; ++n) {
      if (data_merged_into_[labels[n]] >= 0) labels[n] = data_merged_into_[labels[n]];
    }
  }, kEStepPointsPerTask);
  return labels;
}

// The assignment over all C means, by the cell index (approximate) or the
// exact scan, of the refinement and of InitialSets::nearest: every point's
// label moves to the front of K(n). approximate keeps
// the previous label (K(n)'s first) when it is nearer than the one found, so
// the weighted error of the labels never exceeds that of the previous ones.
// Fills labels and d2 (exact squared distances); returns the labels' weighted
// error (min_sum) and the distance evaluations.
template <typename T>
EStepSums VariationalLoop<T>::assign_over_all_means(std::int32_t* labels, double* d2,
                                                    bool approximate,
                                                    std::vector<std::int32_t>* cell_of) {
  const index_t N = data_.n, C = sets_.C, D = data_.d;
  const int G = sets_.G;
  EStepSums sums;
  if (approximate) {
    const CenterCellIndex<T> index(means_.data(), C, D, ApproximateAssignmentParams{},
                                   run_.n_threads);
    const ApproximateAssignmentStats found = index.assign(data_, labels, d2, run_.n_threads);
    sums.evals = index.build_stats().index_distance_evals + found.search_distance_evals;
    if (cell_of != nullptr) {
      *cell_of = cells_of_means(index, C);
    }
  } else {
    vcgmm::assign_nearest(data_, means_.data(), C, labels, d2, run_.n_threads);
    sums.evals = N * C;
  }
  const index_t tasks_total = n_chunks(N, kEStepPointsPerTask);
  std::vector<double> part(tasks_total, 0.0);
  std::vector<std::int64_t> previous_evals(tasks_total, 0);
  parallel_for(tasks_total, run_.n_threads, [&](index_t t) {
    const index_t p0 = t * kEStepPointsPerTask, p1 = std::min(N, p0 + kEStepPointsPerTask);
    double s = 0.0;
    std::int64_t evals = 0;  // stored once: the tasks' slots share cache lines
    for (index_t n = p0; n < p1; ++n) {
      std::int32_t* kn = sets_.k_of(n);
      if (approximate) {
        evals += keep_nearer_previous(data_.row(n), means_.data(), D, kn[0], labels[n], d2[n]);
      }
      move_to_front(kn, G, labels[n]);
      s += data_.weight(n) * d2[n];
    }
    part[t] = s;
    previous_evals[t] = evals;
  }, kEStepPointsPerTask * (2.0 * G + (approximate ? 3.0 * D : 0.0)));
  for (index_t t = 0; t < tasks_total; ++t) {
    sums.min_sum += part[t];
    sums.evals += previous_evals[t];  // the previous label's distance (approximate)
  }
  return sums;
}

// Responsibilities of every point once sigma^2 is known (the first E-step
// and re-estimations); returns sum_n w_n logsumexp term.
template <typename T>
double VariationalLoop<T>::deferred_responsibilities() {
  const index_t N = data_.n;
  const index_t tasks_total = n_chunks(N, kEStepPointsPerTask);
  std::vector<double> part(tasks_total, 0.0);
  parallel_for(tasks_total, run_.n_threads, [&](index_t t) {
    const index_t p0 = t * kEStepPointsPerTask, p1 = std::min(N, p0 + kEStepPointsPerTask);
    double s = 0.0;
    for (index_t n = p0; n < p1; ++n) {
      s += data_.weight(n) * point_responsibilities(sets_.resp_of(n), sets_.G, sigma2_);
    }
    part[t] = s;
  }, 30.0 * kEStepPointsPerTask * sets_.G);
  double lse_sum = 0.0;
  for (double s : part) lse_sum += s;
  return lse_sum;
}

/// After refinement: one E-step search with EM's variances gives soft
/// responsibilities for the refined means, then sigma^2 (spherical: sigma_c^2
/// and pi_c) about those means; the means stay. Neither step lowers F, so the
/// returned means and variances are one model at least as likely as the
/// refined means with EM's variances.
template <typename T>
void VariationalLoop<T>::refit_variances() {
  refit_evals_ += search_pass(false, refine_stream()).evals;
  has_resp_ = true;
  std::vector<double> mass(sets_.C), sq(sets_.C);
  const double total = detail::spread_about_means(data_, sets_, run_.n_threads, means_.data(),
                                                  mass.data(), sq.data());
  if (spherical()) {
    update_components(mass, sq);
  } else {
    set_shared_variance(total, moments_.sigma2_floor);
  }
}

template <typename T>
std::uint64_t VariationalLoop<T>::refine_stream() const {
  // After those of all E-steps so far (E-steps after a refinement step are
  // unusual but allowed; their streams then skip these indices).
  return static_cast<std::uint64_t>(estep_evals_.size() + refine_evals_.size()) + (1ull << 30);
}

template <typename T>
void VariationalLoop<T>::set_shared_variance(double sq_total, double floor) {
  sigma2_ = std::max(sq_total / (static_cast<double>(data_.d) * moments_.w_total), floor);
  std::fill(var_c_.begin(), var_c_.end(), sigma2_);
}

template <typename T>
void VariationalLoop<T>::m_step() {
  require(has_resp_, "VariationalGmm: m_step needs a preceding e_step");
  const bool warm_up = m_steps_ < params_.shared_m_steps;
  ++m_steps_;
  if (spherical()) {
    std::vector<double> mass(sets_.C), sq(sets_.C);
    const double sq_total = detail::m_step(data_, sets_, moments_, run_.n_threads, means_.data(),
                                           mstep_acc_, mass.data(), sq.data());
    if (!warm_up) {
      update_components(mass, sq);
      return;
    }
    // One variance, equal weights: the shared model, floored as sigma_c^2.
    set_shared_variance(sq_total, comp_floor_);
    reset_components();
    return;
  }
  set_shared_variance(
      detail::m_step(data_, sets_, moments_, run_.n_threads, means_.data(), mstep_acc_),
      moments_.sigma2_floor);
}

template <typename T>
double VariationalLoop<T>::free_energy() const {
  require(has_sigma_, "VariationalGmm: free_energy needs sigma^2 (run an e_step first)");
  const index_t N = data_.n, D = data_.d;
  const int G = sets_.G;
  const index_t n_tasks = n_chunks(N, kEStepPointsPerTask);
  std::vector<double> part(n_tasks, 0.0);
  const double scale = 0.5 / sigma2_;
  const bool comp = per_component_;
  parallel_for(n_tasks, run_.n_threads, [&](index_t t) {
    const index_t p0 = t * kEStepPointsPerTask, p1 = std::min(N, p0 + kEStepPointsPerTask);
    double s = 0.0;
    std::vector<double> d2(G);
    for (index_t n = p0; n < p1; ++n) {
      if (comp) {  // energies -log joint, then the log-sum-exp of their negatives
        const std::int32_t* kn = sets_.k_of(n);
        double emin = std::numeric_limits<double>::infinity();
        for (int g = 0; g < G; ++g) {
          const index_t c = kn[g];
          d2[g] = static_cast<double>(squared_distance(data_.row(n), &means_[c * D], D)) *
                      comp_scale_[c] + comp_offset_[c];
          emin = std::min(emin, d2[g]);
        }
        if (data_.weight(n) == 0.0) continue;
        double sum = 0.0;
        for (int g = 0; g < G; ++g) sum += std::exp(-(d2[g] - emin));
        s += data_.weight(n) * (-emin + std::log(sum));
        continue;
      }
      double dmin = std::numeric_limits<double>::infinity();
      const std::int32_t* kn = sets_.k_of(n);
      for (int g = 0; g < G; ++g) {
        d2[g] = static_cast<double>(
            squared_distance(data_.row(n), &means_[static_cast<index_t>(kn[g]) * D], D));
        dmin = std::min(dmin, d2[g]);
      }
      double sum = 0.0;
      for (int g = 0; g < G; ++g) sum += std::exp(-(d2[g] - dmin) * scale);
      s += data_.weight(n) * (-dmin * scale + std::log(sum));
    }
    part[t] = s;
  }, 3.0 * kEStepPointsPerTask * G * D);
  double lse = 0.0;
  for (double s : part) lse += s;
  if (comp) return lse;
  return lse - moments_.w_total * log_normaliser();
}

// What |F_t - F_{t-1}| is divided by before the comparison with tol.
template <typename T>
double VariationalLoop<T>::convergence_scale(double F) const {
  if (params_.stop_rule == StopRule::relative) return std::abs(F);
  return moments_.w_total * static_cast<double>(data_.d);
}

template <typename T>
void VariationalLoop<T>::log_iteration(int it, double F, double change, double seconds) const {
  char change_text[32] = "-";
  if (it > 1) std::snprintf(change_text, sizeof change_text, "%.3g", change);
  log_line(run_.log,
           "vc-gmm iter %4d  free energy %.10g  change %s  sigma2 %.6g  "
           "distances %lld  (%.2f s)",
           it, F, change_text, sigma2_, static_cast<long long>(estep_evals_.back()), seconds);
}

template <typename T>
VariationalGmmResult VariationalLoop<T>::fit(const DataView<T>* all, int data_steps) {
  Stopwatch clock;
  VariationalGmmResult result;
  double previous = NAN;
  // Initial E-steps count against max_iter (never more than max_iter - 1).
  const int n_init = std::min(params_.n_init_estep, params_.max_iter - 1);
  for (int it = 1; it <= params_.max_iter - n_init; ++it) {
    check_interrupt();
    double F;
    if (it == 1) {
      for (int k = 0; k < n_init; ++k) {
        check_interrupt();
        e_step(true);
      }
      F = e_step(true);
    } else {
      F = e_step(false);
    }
    m_step();
    result.free_energy.push_back(F);
    result.n_iter = it;
    const double change = std::abs(F - previous) / convergence_scale(F);
    log_iteration(it, F, change, clock.seconds());
    const bool stop = report_progress(run_, "vc-gmm", "iterations", it, F, clock.seconds(),
                                      n_evals_);
    if (it > 1 && params_.tol > 0.0 && change < params_.tol) {
      result.converged = true;
      break;
    }
    if (stop) break;
    previous = F;
  }
  result.timings.iterations = clock.seconds();
  Stopwatch refine_clock;
  bool refine_stopped = false;  // by the progress callback: no data steps either (same phase)
  // Split-merge needs a search over all means to find the moved means.
  const bool split_merge =
      params_.split_merge && params_.refine_search != RefineSearch::restricted;
  const int max_steps =
      params_.refine + (split_merge && params_.refine > 0 ? kSplitMergeMaxExtraSteps : 0);
  for (int k = 0; k < max_steps; ++k) {
    check_interrupt();
    // Past the steps asked for: only after a round that gained.
    if (k >= params_.refine && !(last_split_merge_gain_ > 0.0 &&
                                 last_split_merge_gain_ >=
                                     kSplitMergeGoOn * result.refine_objective.back())) {
      break;
    }
    result.refine_objective.push_back(refine_step(split_merge));
    result.refine_relocated.push_back(refine_relocated_.back());
    result.refine_split_merges.push_back(refine_split_merges_.back());
    log_line(run_.log,
             "vc-gmm refine %2d  quantization error %.10g  distances %lld  relocated %lld  "
             "split-merge pairs %lld  (%.2f s)",
             k + 1, result.refine_objective.back(), static_cast<long long>(refine_evals_.back()),
             static_cast<long long>(refine_relocated_.back()),
             static_cast<long long>(refine_split_merges_.back()), refine_clock.seconds());
    std::int64_t refine_evals = 0;
    for (std::int64_t e : refine_evals_) refine_evals += e;
    if (report_progress(run_, "vc-gmm", "refinement", k + 1, result.refine_objective.back(),
                        refine_clock.seconds(), refine_evals)) {
      refine_stopped = true;
      break;
    }
  }
  for (int k = 0; all != nullptr && !refine_stopped && k < data_steps; ++k) {
    check_interrupt();
    const double objective = data_step(*all);
    log_line(run_.log,
             "vc-gmm data step %2d  quantization error %.10g (all %lld points)  relocated %lld  "
             "split-merge pairs %lld  (%.2f s)",
             k + 1, objective, static_cast<long long>(all->n),
             static_cast<long long>(data_relocated_.back()),
             static_cast<long long>(data_split_merges_.back()), refine_clock.seconds());
    std::int64_t evals = data_evals_;
    for (std::int64_t e : refine_evals_) evals += e;
    const int step = static_cast<int>(result.refine_objective.size()) + k + 1;
    if (report_progress(run_, "vc-gmm", "refinement", step, objective,
                        refine_clock.seconds(), evals)) {
      break;
    }
  }
  if (!result.refine_objective.empty() || !data_objective_.empty()) {
    check_interrupt();
    refit_variances();
  }
  result.timings.refinement =
      params_.refine > 0 || !data_objective_.empty() ? refine_clock.seconds() : 0.0;
  result.final_free_energy = result.refine_objective.empty() && data_objective_.empty()
                                 ? result.free_energy.back()
                                 : free_energy();
  for (std::int64_t e : refine_evals_) result.n_distance_evals.refinement += e;
  result.n_distance_evals.refinement += refit_evals_ + data_evals_;
  result.G = sets_.G;
  result.sigma2 = sigma2_;
  result.variances = var_c_;
  result.mixing_weights = weight_c_;
  result.estep_distance_evals = estep_evals_;
  result.n_distance_evals.iterations = n_evals_;
  return result;
}

template class VariationalLoop<float>;
template class VariationalLoop<double>;

}  // namespace detail

template <typename T>
struct VariationalGmm<T>::Impl : detail::VariationalLoop<T> {
  using detail::VariationalLoop<T>::VariationalLoop;
};

template <typename T>
VariationalGmm<T>::VariationalGmm(const DataView<T>& data, index_t n_components, const T* means,
                                  const VariationalGmmParams& params, const RunOptions& run) {
  detail::require_data(data, "VariationalGmm");
  detail::require_clusters(n_components, data.n, "VariationalGmm");
  detail::require(means != nullptr, "VariationalGmm: means is a null pointer");
  detail::require_variational_params(params, "VariationalGmm");
  impl_ = std::make_unique<Impl>(data, n_components, means, params, run);
}

template <typename T>
VariationalGmm<T>::~VariationalGmm() = default;

template <typename T>
double VariationalGmm<T>::e_step(bool estimate_sigma) {
  return impl_->e_step(estimate_sigma);
}
template <typename T>
void VariationalGmm<T>::m_step() {
  impl_->m_step();
}
template <typename T>
double VariationalGmm<T>::free_energy() const {
  return impl_->free_energy();
}
template <typename T>
double VariationalGmm<T>::refine_step(bool split_merge) {
  return impl_->refine_step(split_merge);
}
template <typename T>
VariationalGmmResult VariationalGmm<T>::fit() {
  return impl_->fit();
}
template <typename T>
index_t VariationalGmm<T>::n_components() const {
  return impl_->n_components();
}
template <typename T>
int VariationalGmm<T>::G() const {
  return impl_->G();
}
template <typename T>
const T* VariationalGmm<T>::means() const {
  return impl_->means();
}
template <typename T>
double VariationalGmm<T>::sigma2() const {
  return impl_->sigma2();
}
template <typename T>
const double* VariationalGmm<T>::variances() const {
  return impl_->variances();
}
template <typename T>
const double* VariationalGmm<T>::mixing_weights() const {
  return impl_->mixing_weights();
}
template <typename T>
const std::int32_t* VariationalGmm<T>::truncation_sets() const {
  return impl_->truncation_sets();
}
template <typename T>
const std::int32_t* VariationalGmm<T>::neighbourhoods() const {
  return impl_->neighbourhoods();
}
template <typename T>
std::int64_t VariationalGmm<T>::n_distance_evals() const {
  return impl_->n_distance_evals();
}

template class VariationalGmm<float>;
template class VariationalGmm<double>;

}  // namespace vcgmm
