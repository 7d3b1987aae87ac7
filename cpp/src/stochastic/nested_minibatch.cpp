#include "vcgmm/nested_minibatch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "blocks/checks.hpp"
#include "detail/assign.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/pipeline_stages.hpp"
#include "detail/sampling.hpp"
#include "detail/spherical.hpp"
#include "detail/unchecked.hpp"
#include "detail/validation.hpp"
#include "stochastic/checks.hpp"
#include "stochastic/nmbatch_bounds.hpp"
#include "stochastic/nmbatch_new_rows.hpp"

namespace vcgmm {

namespace detail {
namespace nmbatch {

namespace {

/// The paper's b0.
constexpr index_t kDefaultBatch = 5000;
/// Rows per task of the reassignment of reused rows (fixed: determinism).
constexpr index_t kRowsPerTask = 1024;
/// Lloyd iterations grouping the centers (Ding et al.).
constexpr int kGroupingIterations = 5;

/// What the parameters resolve to for n rows and C clusters.
struct Config {
  index_t b0 = 0;
  Kind kind = Kind::none;
  int n_groups = 0;  // bounds per row
};

Config resolve(const NmbatchParams& p, index_t n, index_t C) {
  Config c;
  c.b0 = p.batch_size > 0 ? p.batch_size : std::max(C, std::min(kDefaultBatch, n));
  const double elkan_bytes = 4.0 * static_cast<double>(n) * static_cast<double>(C);
  NmbatchBounds b = p.bounds;
  if (b == NmbatchBounds::automatic) {
    b = elkan_bytes <= p.bounds_memory ? NmbatchBounds::elkan : NmbatchBounds::yinyang;
  }
  if (b == NmbatchBounds::elkan) {
    c.kind = Kind::elkan;
    c.n_groups = static_cast<int>(C);
  } else if (b == NmbatchBounds::yinyang) {
    c.kind = Kind::yinyang;
    const double fit = std::floor(p.bounds_memory / (4.0 * static_cast<double>(n)));
    const double ding = std::ceil(static_cast<double>(C) / 10.0);
    c.n_groups = p.n_groups > 0 ? static_cast<int>(std::min<index_t>(p.n_groups, C))
                                : static_cast<int>(std::max(1.0, std::min(ding, fit)));
  }
  return c;
}

/// Yinyang's groups: a few Lloyd iterations on the initial centers.
template <typename T>
Groups group_centers(const T* centers, index_t C, index_t d, int G, const RunOptions& run,
                     std::int64_t* evals) {
  const DataView<T> cv{centers, C, d, nullptr};
  const std::vector<index_t> first = random_permutation_prefix(C, G, run.seed, Stream::yinyang);
  std::vector<T> gc(static_cast<size_t>(G) * d);
  for (int g = 0; g < G; ++g) std::copy(cv.row(first[g]), cv.row(first[g]) + d, &gc[g * d]);
  LloydParams lp;
  lp.max_iter = kGroupingIterations;
  lp.tol = 0.0;
  RunOptions quiet = run;
  quiet.log = {};
  *evals += detail::lloyd(cv, G, lp, quiet, gc.data()).n_distance_evals.iterations;
  std::vector<std::int32_t> label(C, -1);
  detail::assign_nearest(cv, gc.data(), G, label.data(), nullptr, run.n_threads);
  *evals += C * G;
  ClusterPartition part;
  part.build(label.data(), C, G);
  Groups groups;
  groups.group_of.assign(C, 0);
  groups.offsets.push_back(0);
  for (int g = 0; g < G; ++g) {
    if (part.size(g) == 0) continue;  // dropped: groups are renumbered densely
    const std::int32_t id = static_cast<std::int32_t>(groups.offsets.size() - 1);
    for (index_t k = part.offsets[g]; k < part.offsets[g + 1]; ++k) {
      groups.members.push_back(static_cast<std::int32_t>(part.order[k]));
      groups.group_of[part.order[k]] = id;
    }
    groups.offsets.push_back(static_cast<index_t>(groups.members.size()));
  }
  return groups;
}

/// Per-iteration counts of the reassignment.
struct Counts {
  std::int64_t computed = 0, skipped = 0;
  index_t changed = 0;
  Counts& operator+=(const Counts& o) {
    computed += o.computed;
    skipped += o.skipped;
    changed += o.changed;
    return *this;
  }
};

/// The state of an nmbatch run on the rows fitted.
template <typename T>
class Run {
 public:
  Run(const DataView<T>& data, index_t C, const NmbatchParams& params, const Config& config,
      const RunOptions& run, T* centers)
      : data_(data), C_(C), d_(data.d), params_(params), config_(config), run_(run),
        centers_(centers), order_(random_permutation_prefix(data.n, data.n, run.seed)),
        labels_(data.n, -1), d2_(data.n, 0.0),
        sums_(static_cast<size_t>(C * data.d), 0.0), weight_(C, 0.0), count_(C, 0),
        p_up_(C, 0.0f) {}

  NmbatchResult fit();

 private:
  Counts reassign_reused(index_t b_prev);
  std::int64_t add_new_rows(index_t b_prev, index_t b_t);
  void apply_changes(index_t b_prev, const std::vector<std::int32_t>& before);
  double update_centers(index_t b_t, bool* should_double);
  float* bound_row(index_t k) { return bounds_.get() + k * width_; }

  const DataView<T> data_;
  const index_t C_, d_;
  const NmbatchParams params_;
  const Config config_;
  const RunOptions run_;
  T* centers_;
  std::vector<index_t> order_;         // position -> row
  std::vector<std::int32_t> labels_;   // by position
  std::vector<double> d2_;             // by position: squared distance to the label's center
  std::vector<double> sums_;           // (C, d) S(j)
  std::vector<double> weight_;         // v(j)
  std::vector<index_t> count_;         // rows assigned to j
  std::vector<float> p_up_;            // (C,) last moves, rounded up
  std::vector<float> group_p_up_;
  std::unique_ptr<float[]> bounds_;
  Groups groups_;
  index_t width_ = 0;                  // bounds per row
  std::int64_t setup_evals_ = 0;
  double w_total_ = 0.0;
};

template <typename T>
Counts Run<T>::reassign_reused(index_t b_prev) {
  Step<T> s{centers_, C_, d_, p_up_.data(), group_p_up_.data(), distance_delta<T>(d_)};
  const index_t n_tasks = n_chunks(b_prev, kRowsPerTask);
  std::vector<Counts> partial(n_tasks);
  parallel_for(n_tasks, run_.n_threads, [&](index_t task) {
    const index_t k0 = task * kRowsPerTask, k1 = std::min(b_prev, k0 + kRowsPerTask);
    Counts c;  // stored once: the tasks' slots share cache lines
    for (index_t k = k0; k < k1; ++k) {
      const T* x = data_.row(order_[k]);
      const std::int32_t a = labels_[k];
      Choice ch;
      if (config_.kind == Kind::elkan) {
        ch = reassign_elkan(s, x, a, bound_row(k));
      } else if (config_.kind == Kind::yinyang) {
        ch = reassign_yinyang(s, groups_, x, a, bound_row(k));
      } else {
        ch = reassign_all(s, x, a);
      }
      c.computed += ch.computed;
      c.skipped += ch.skipped;
      c.changed += ch.label != a;
      labels_[k] = ch.label;
      d2_[k] = ch.d2;
    }
    partial[task] = c;
  }, 2.0 * kRowsPerTask * (static_cast<double>(C_) + static_cast<double>(d_) * 8.0));
  Counts total;
  for (const Counts& c : partial) total += c;
  return total;
}

/// One sample, one vote: a reused row that changed cluster moves its
/// contribution from the old cluster to the new one (rows in batch order).
template <typename T>
void Run<T>::apply_changes(index_t b_prev, const std::vector<std::int32_t>& before) {
  for (index_t k = 0; k < b_prev; ++k) {
    const std::int32_t a = before[k], b = labels_[k];
    if (a == b) continue;
    const T* x = data_.row(order_[k]);
    const double w = data_.weight(order_[k]);
    add_scaled_to_double(&sums_[a * d_], -w, x, d_);
    add_scaled_to_double(&sums_[b * d_], w, x, d_);
    weight_[a] -= w;
    weight_[b] += w;
    if (--count_[a] == 0) {  // empty: no rounding residue survives
      std::fill(&sums_[a * d_], &sums_[a * d_] + d_, 0.0);
      weight_[a] = 0.0;
    }
    ++count_[b];
  }
}

template <typename T>
std::int64_t Run<T>::add_new_rows(index_t b_prev, index_t b_t) {
  const index_t m = b_t - b_prev;
  std::vector<T> xb(static_cast<size_t>(m * d_));
  std::vector<double> wb(data_.w ? m : 0);
  gather_rows(data_, order_.data() + b_prev, m, run_.n_threads, xb.data(), wb.data());
  const DataView<T> rows{xb.data(), m, d_, data_.w ? wb.data() : nullptr};
  float* bounds = bounds_.get();
  std::int64_t evals = 0;
  if (config_.kind == Kind::elkan) {
    evals = assign_new_rows<T, Kind::elkan>(rows, centers_, C_, b_prev, labels_.data(),
                                            d2_.data(), bounds, nullptr, run_.n_threads);
  } else if (config_.kind == Kind::yinyang) {
    evals = assign_new_rows<T, Kind::yinyang>(rows, centers_, C_, b_prev, labels_.data(),
                                              d2_.data(), bounds, &groups_, run_.n_threads);
  } else {
    evals = assign_new_rows<T, Kind::none>(rows, centers_, C_, b_prev, labels_.data(),
                                           d2_.data(), nullptr, nullptr, run_.n_threads);
  }
  ClusterPartition part;
  part.build(labels_.data() + b_prev, m, C_);
  for_each_cluster_sum(rows, part, C_, run_.n_threads, [&](index_t c, const double* acc, double w) {
    for (index_t k = 0; k < d_; ++k) sums_[c * d_ + k] += acc[k];
    weight_[c] += w;
    count_[c] += part.size(c);
  });
  return evals;
}

/// The centers c = S / v (an empty cluster keeps its center), their moves
/// p, the doubling test min_j sigma_C(j) / p(j) > rho; returns the batch's
/// sum w d^2 scaled to the total weight (the objective trace).
template <typename T>
double Run<T>::update_centers(index_t b_t, bool* should_double) {
  std::vector<double> sse(C_, 0.0), w2(C_, 0.0);
  double sse_total = 0.0, w_batch = 0.0;
  for (index_t k = 0; k < b_t; ++k) {
    const std::int32_t j = labels_[k];
    const double w = data_.weight(order_[k]);
    sse[j] += w * d2_[k];
    w2[j] += w * w;
    sse_total += w * d2_[k];
    w_batch += w;
  }
  *should_double = true;
  const bool median = params_.doubling == NmbatchDoubling::median;
  std::vector<double> ratios(median ? C_ : 0, std::numeric_limits<double>::infinity());
  std::vector<T> c_new(d_);
  for (index_t j = 0; j < C_; ++j) {
    double p = 0.0;
    if (count_[j] > 0) {
      for (index_t k = 0; k < d_; ++k) c_new[k] = static_cast<T>(sums_[j * d_ + k] / weight_[j]);
      T* c = centers_ + j * d_;
      if (params_.spherical && !scale_to_unit_length(c_new.data(), d_)) {
        std::copy(c, c + d_, c_new.begin());
      }
      p = std::sqrt(squared_distance_exact(c_new.data(), c, d_));
      std::copy(c_new.begin(), c_new.end(), c);
    }
    p_up_[j] = p > 0.0 ? round_up(p * (1.0 + 1e-12)) : 0.0f;
    if (p > 0.0 && median) {  // a center that did not move has ratio +inf
      ratios[j] = std::sqrt(sse[j] / weight_[j]) / p;
    } else if (p > 0.0) {  // a center that did not move, or holds < 2 rows, has ratio +inf
      const double n_eff = weight_[j] * weight_[j] / w2[j];
      if (n_eff > 1.0 + 1e-12) {
        const double sigma = std::sqrt(sse[j] / (weight_[j] * (n_eff - 1.0)));
        if (!(sigma / p > params_.rho)) *should_double = false;
      }
    }
  }
  if (median) {  // the upper median, as eakmeans takes it
    const auto mid = ratios.begin() + C_ / 2;
    std::nth_element(ratios.begin(), mid, ratios.end());
    *should_double = *mid > params_.rho;
  }
  for (int g = 0; g < groups_.size(); ++g) {
    float m = 0.0f;
    for (index_t k = groups_.offsets[g]; k < groups_.offsets[g + 1]; ++k) {
      m = std::max(m, p_up_[groups_.members[k]]);
    }
    group_p_up_[g] = m;
  }
  return w_batch > 0.0 ? sse_total * (w_total_ / w_batch) : 0.0;
}

template <typename T>
NmbatchResult Run<T>::fit() {
  Stopwatch clock;
  NmbatchResult r;
  const index_t n = data_.n;
  for (index_t i = 0; i < n; ++i) w_total_ += data_.weight(i);
  if (config_.kind == Kind::yinyang) {
    groups_ = group_centers(centers_, C_, d_, config_.n_groups, run_, &setup_evals_);
    group_p_up_.assign(groups_.size(), 0.0f);
  }
  r.bounds = config_.kind == Kind::elkan     ? NmbatchBounds::elkan
             : config_.kind == Kind::yinyang ? NmbatchBounds::yinyang
                                             : NmbatchBounds::none;
  r.n_groups = config_.kind == Kind::yinyang ? groups_.size() : config_.n_groups;
  width_ = r.n_groups;
  if (width_ > 0) {  // uninitialised: its pages are touched as the batch grows
    bounds_.reset(new float[static_cast<size_t>(n) * static_cast<size_t>(width_)]);
  }
  r.bounds_bytes = 4.0 * static_cast<double>(n) * r.n_groups;
  r.batch_size = config_.b0;
  r.n_distance_evals.iterations = setup_evals_;
  index_t b_prev = 0, b_t = std::min(config_.b0, n);
  for (int it = 1; it <= params_.max_iter; ++it) {
    check_interrupt();
    Counts c;
    if (b_prev > 0) {
      const std::vector<std::int32_t> before(labels_.begin(), labels_.begin() + b_prev);
      c = reassign_reused(b_prev);
      apply_changes(b_prev, before);
    }
    if (b_t > b_prev) c.computed += add_new_rows(b_prev, b_t);
    bool grow = false;
    r.objective.push_back(update_centers(b_t, &grow));
    r.seconds.push_back(clock.seconds());
    r.batch_sizes.push_back(b_t);
    r.computed.push_back(c.computed);
    r.skipped.push_back(c.skipped);
    r.n_changed.push_back(c.changed);
    r.n_distance_evals.iterations += c.computed;
    r.n_skipped += c.skipped;
    r.n_iter = it;
    log_line(run_.log,
             "nmbatch iter %4d  batch %lld  objective %.8g  changed %lld  distances %lld "
             "(skipped %lld)  (%.2f s)",
             it, static_cast<long long>(b_t), r.objective.back(),
             static_cast<long long>(c.changed), static_cast<long long>(c.computed),
             static_cast<long long>(c.skipped), r.seconds.back());
    const bool stop = report_progress(run_, "nmbatch", "iterations", it, r.objective.back(),
                                      r.seconds.back(), r.n_distance_evals.iterations);
    if (b_t == n && b_prev == b_t && c.changed == 0) {
      r.converged = true;  // all rows, none reassigned: a fixed point of Lloyd
      break;
    }
    if (params_.time_budget > 0.0 && clock.seconds() >= params_.time_budget) break;
    if (stop) break;
    b_prev = b_t;
    if (grow) b_t = std::min(2 * b_t, n);
  }
  r.timings.iterations = clock.seconds();
  return r;
}


}  // namespace
}  // namespace nmbatch
}  // namespace detail

void nmbatch_sample_order(index_t n, std::uint64_t seed, index_t* order) {
  detail::require(n >= 1 && order != nullptr, "nmbatch_sample_order: need n >= 1 and an output");
  const std::vector<index_t> o = detail::random_permutation_prefix(n, n, seed);
  std::copy(o.begin(), o.end(), order);
}

template <typename T>
NmbatchKMeansResult fit_nmbatch(const DataView<T>& data, const NmbatchKMeansParams& params,
                                const FitBuffers<T>& buffers) {
  namespace nm = detail::nmbatch;
  detail::require_pipeline(data, params, buffers, "fit_nmbatch");
  const index_t n_fit = params.coreset_size > 0 ? params.coreset_size : data.n;
  detail::require_nmbatch_params(params.nmbatch, n_fit, params.n_clusters, "fit_nmbatch");
  const nm::Config config = nm::resolve(params.nmbatch, n_fit, params.n_clusters);
  // A D^2 seeding runs on the first batch M_1: the first b0 rows of the order.
  const detail::SeedingRows<T> first_batch = [&](const DataView<T>& fit) {
    if (config.b0 >= fit.n) return std::vector<index_t>();
    return detail::random_permutation_prefix(fit.n, config.b0, params.run.seed);
  };
  return detail::run_pipeline<NmbatchKMeansResult>(
      data, params, buffers, "nmbatch",
      [&](const DataView<T>& fit, NmbatchKMeansResult* result) {
        nm::Run<T> run(fit, params.n_clusters, params.nmbatch, config, params.run,
                       buffers.centers);
        static_cast<NmbatchResult&>(*result) = run.fit();
      },
      first_batch);
}

template NmbatchKMeansResult fit_nmbatch<float>(const DataView<float>&,
                                                const NmbatchKMeansParams&,
                                                const FitBuffers<float>&);
template NmbatchKMeansResult fit_nmbatch<double>(const DataView<double>&,
                                                 const NmbatchKMeansParams&,
                                                 const FitBuffers<double>&);

}  // namespace vcgmm
