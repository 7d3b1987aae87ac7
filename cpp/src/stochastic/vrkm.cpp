#include "vcgmm/vrkm.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "blocks/checks.hpp"
#include "detail/assign.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/pipeline_stages.hpp"
#include "detail/random.hpp"
#include "detail/relocation.hpp"
#include "detail/sampling.hpp"
#include "detail/validation.hpp"
#include "stochastic/checks.hpp"

namespace vcgmm {

namespace detail {
namespace {

/// Sequential inner-loop steps between two interrupt checks.
constexpr index_t kStepsPerCheck = 1024;
/// Draws produced at a time by the sequential inner loop (memory O(this),
/// whatever the epoch size).
constexpr index_t kDrawPiece = 16 * kStepsPerCheck;

/// The rows epoch e draws, produced piece by piece: the sequence of
/// vrkm_epoch_rows in memory O(piece) (plus the weights' table).
class EpochRows {
 public:
  EpochRows(index_t n, const double* w, std::uint64_t seed, std::int64_t epoch)
      : n_(n), rng_(seed, Stream::vrkm, static_cast<std::uint64_t>(epoch)) {
    if (w) table_ = std::make_unique<CumulativeTable>(n, [&](index_t i) { return w[i]; });
  }
  void next(index_t count, index_t* rows) {
    for (index_t t = 0; t < count; ++t) {
      rows[t] = table_ ? table_->sample(rng_.uniform())
                       : static_cast<index_t>(rng_.below(static_cast<std::uint64_t>(n_)));
    }
  }

 private:
  index_t n_;
  Rng rng_;
  std::unique_ptr<CumulativeTable> table_;
};

template <typename T>
class VrkmRun {
 public:
  VrkmRun(const DataView<T>& data, index_t C, const VrkmParams& params, const RunOptions& run,
          T* centers)
      : data_(data), C_(C), d_(data.d), params_(params), run_(run), centers_(centers),
        eta_(params.learning_rate > 0.0 ? params.learning_rate
                                        : static_cast<double>(C) / static_cast<double>(data.n)),
        T_(params.epoch_size > 0 ? params.epoch_size : data.n),
        master_(static_cast<size_t>(C * d_)), reference_(static_cast<size_t>(C * d_)),
        gradient_(params.variant == VrkmVariant::vrkm ? static_cast<size_t>(C * d_) : 0),
        labels_(data.n, -1), min_d2_(params.relocate_empty ? data.n : 0) {}

  VrkmResult fit();

 private:
  void correct_positions();
  index_t relocate();
  std::int64_t inner_loop(std::int64_t epoch);
  bool update(const T* x, std::int32_t a, std::int32_t ref);
  std::int32_t nearest(const T* x) const;
  void mirror(index_t j) {
    for (index_t k = 0; k < d_; ++k) centers_[j * d_ + k] = static_cast<T>(master_[j * d_ + k]);
  }

  const DataView<T> data_;
  const index_t C_, d_;
  const VrkmParams params_;
  const RunOptions run_;
  T* centers_;                    // (C, d) in T: what distances are computed against
  const double eta_;
  const index_t T_;
  std::vector<double> master_;    // (C, d) the centers in double (updates accumulate here)
  std::vector<double> reference_; // (C, d) C~new
  std::vector<double> gradient_;  // (C, d) VRKM: grad f~(C~new)
  std::vector<std::int32_t> labels_;  // a_ref
  std::vector<double> min_d2_;        // relocate_empty: distances to the nearest center
};

/// C~new: the partition's means (VRKM++) or C~ - grad f~(C~) (VRKM), from
/// one pass of per-cluster sums; empty clusters keep their centers.
template <typename T>
void VrkmRun<T>::correct_positions() {
  for (index_t k = 0; k < C_ * d_; ++k) reference_[k] = static_cast<double>(centers_[k]);
  if (!gradient_.empty()) std::fill(gradient_.begin(), gradient_.end(), 0.0);
  ClusterPartition part;
  part.build(labels_.data(), data_.n, C_);
  const bool vrkm = params_.variant == VrkmVariant::vrkm;
  for_each_cluster_sum(data_, part, C_, run_.n_threads, [&](index_t c, const double* acc,
                                                            double wsum) {
    double* r = &reference_[c * d_];
    for (index_t k = 0; k < d_; ++k) {
      const double mean = acc[k] / wsum;
      if (vrkm) {
        const double grad = r[k] - mean;        // Alg. 2: grad f~(c~) = c~ - mean
        r[k] = r[k] - grad;                     // c~new = c~ - grad
        gradient_[c * d_ + k] = r[k] - mean;    // Alg. 3 line 7: grad f~(c~new), ~0
      } else {
        r[k] = mean;                            // eq. 8
      }
    }
  });
  master_ = reference_;
  for (index_t j = 0; j < C_; ++j) mirror(j);
}

template <typename T>
std::int32_t VrkmRun<T>::nearest(const T* x) const {
  std::int32_t best = 0;
  T best_d = squared_distance(x, centers_, d_);
  for (index_t j = 1; j < C_; ++j) {
    const T v = squared_distance(x, centers_ + j * d_, d_);
    if (v < best_d) {
      best_d = v;
      best = static_cast<std::int32_t>(j);
    }
  }
  return best;
}

/// One inner step for row x with nearest center a and reference label ref;
/// returns whether centers moved.
template <typename T>
bool VrkmRun<T>::update(const T* x, std::int32_t a, std::int32_t ref) {
  if (a == ref && params_.update_rule == VrkmUpdateRule::label_change) return false;
  double* ca = &master_[a * d_];
  if (a != ref) {
    const double* nr = &reference_[ref * d_];
    double* cr = &master_[ref * d_];
    for (index_t k = 0; k < d_; ++k) {
      const double xk = static_cast<double>(x[k]);
      ca[k] -= eta_ * (ca[k] - xk);
      cr[k] += eta_ * (nr[k] - xk);
    }
  } else {  // svrg: grad f_i(c_a) - grad f_i(c~new_a) = c_a - c~new_a
    const double* na = &reference_[a * d_];
    for (index_t k = 0; k < d_; ++k) ca[k] += eta_ * (na[k] - ca[k]);
  }
  if (gradient_.empty()) {
    mirror(a);
    if (ref != a) mirror(ref);
  } else {  // VRKM: + grad f~(C~new) in every column, at every step
    for (index_t k = 0; k < C_ * d_; ++k) master_[k] -= eta_ * gradient_[k];
    for (index_t j = 0; j < C_; ++j) mirror(j);
  }
  return true;
}

template <typename T>
std::int64_t VrkmRun<T>::inner_loop(std::int64_t epoch) {
  EpochRows draws(data_.n, data_.w, run_.seed, epoch);
  std::int64_t moved = 0;
  const index_t B = params_.block_size;
  if (B <= 1) {
    std::vector<index_t> rows(std::min(T_, kDrawPiece));
    for (index_t s = 0; s < T_; s += kDrawPiece) {
      const index_t m = std::min(kDrawPiece, T_ - s);
      draws.next(m, rows.data());
      for (index_t t = 0; t < m; ++t) {
        if (t % kStepsPerCheck == 0) check_interrupt();
        const T* x = data_.row(rows[t]);
        moved += update(x, nearest(x), labels_[rows[t]]);
      }
    }
    return moved;
  }
  const index_t b = std::min(B, T_);  // a block beyond the epoch is the epoch
  std::vector<index_t> rows(b);
  std::vector<T> xb(static_cast<size_t>(b * d_));
  std::vector<std::int32_t> lab(b);
  for (index_t s = 0; s < T_; s += b) {
    check_interrupt();
    const index_t m = std::min(b, T_ - s);
    draws.next(m, rows.data());
    gather_rows(data_, rows.data(), m, run_.n_threads, xb.data());
    const DataView<T> block{xb.data(), m, d_, nullptr};
    std::fill(lab.begin(), lab.begin() + m, -1);
    detail::assign_nearest(block, static_cast<const T*>(centers_), C_, lab.data(), nullptr,
                           run_.n_threads);
    for (index_t k = 0; k < m; ++k) moved += update(&xb[k * d_], lab[k], labels_[rows[k]]);
  }
  return moved;
}

template <typename T>
VrkmResult VrkmRun<T>::fit() {
  Stopwatch clock;
  VrkmResult r;
  r.learning_rate = eta_;
  r.epoch_size = T_;
  double reached = 0.0;  // when the current centers were reached
  for (int e = 1; e <= params_.max_epochs; ++e) {
    check_interrupt();
    Stopwatch pass;
    const double Q =
        detail::assign_nearest(data_, static_cast<const T*>(centers_), C_, labels_.data(),
                               min_d2_.empty() ? nullptr : min_d2_.data(), run_.n_threads)
            .objective;
    const index_t moved = relocate();  // the correction then puts each moved center on its point
    r.n_relocated += moved;
    r.full_pass_seconds += pass.seconds();
    r.n_distance_evals.iterations += data_.n * C_;
    const double previous = r.objective.empty() ? NAN : r.objective.back();
    r.objective.push_back(Q);
    r.seconds.push_back(reached);
    if (e > 1 && moved == 0 && std::abs(previous - Q) <= params_.tol * Q) {
      r.converged = true;
      break;
    }
    Stopwatch correction;
    correct_positions();
    r.correction_seconds += correction.seconds();
    Stopwatch inner;
    r.n_updates.push_back(inner_loop(e));
    r.inner_loop_seconds += inner.seconds();
    r.n_distance_evals.iterations += T_ * C_;
    r.n_iter = e;
    reached = clock.seconds();
    log_line(run_.log, "vrkm epoch %4d  objective %.8g  updates %lld  relocated %lld  (%.2f s)",
             e, Q, static_cast<long long>(r.n_updates.back()), static_cast<long long>(moved),
             reached);
    if (report_progress(run_, "vrkm", "iterations", e, Q, reached,
                        r.n_distance_evals.iterations)) {
      break;
    }
  }
  if (params_.relocate_empty && !r.converged) {
    // The last inner loop may have emptied clusters again: one more full pass,
    // and where it finds empty clusters the relocation and correction the next
    // epoch would start with.
    detail::assign_nearest(data_, static_cast<const T*>(centers_), C_, labels_.data(),
                           min_d2_.data(), run_.n_threads);
    r.n_distance_evals.iterations += data_.n * C_;
    const index_t moved = relocate();
    if (moved > 0) {
      r.n_relocated += moved;
      correct_positions();
    }
  }
  r.timings.iterations = clock.seconds();
  return r;
}

/// relocate_empty: the empty clusters of labels_ onto the farthest points (by
/// min_d2_ of the same pass); returns how many moved.
template <typename T>
index_t VrkmRun<T>::relocate() {
  if (!params_.relocate_empty) return 0;
  ClusterPartition part;
  part.build(labels_.data(), data_.n, C_);
  return relocate_empty_clusters(part, min_d2_.data(), data_.n, C_,
                                 rounding_floor(static_cast<const T*>(centers_), C_, d_),
                                 labels_.data());
}


}  // namespace
}  // namespace detail

void vrkm_epoch_rows(index_t n, const double* w, index_t epoch_size, std::uint64_t seed,
                     std::int64_t epoch, index_t* rows) {
  detail::require(n >= 1 && epoch_size >= 1 && rows != nullptr,
                  "vrkm_epoch_rows: need n >= 1, epoch_size >= 1 and an output");
  detail::EpochRows(n, w, seed, epoch).next(epoch_size, rows);
}

template <typename T>
VrkmKMeansResult fit_vrkm(const DataView<T>& data, const VrkmKMeansParams& params,
                          const FitBuffers<T>& buffers) {
  detail::require_pipeline(data, params, buffers, "fit_vrkm");
  detail::require_vrkm_params(params.vrkm, "fit_vrkm");
  const char* name = params.vrkm.variant == VrkmVariant::vrkm ? "VRKM" : "VRKM++";
  return detail::run_pipeline<VrkmKMeansResult>(
      data, params, buffers, name, [&](const DataView<T>& fit, VrkmKMeansResult* result) {
        detail::VrkmRun<T> run(fit, params.n_clusters, params.vrkm, params.run, buffers.centers);
        static_cast<VrkmResult&>(*result) = run.fit();
      });
}

template VrkmKMeansResult fit_vrkm<float>(const DataView<float>&, const VrkmKMeansParams&,
                                          const FitBuffers<float>&);
template VrkmKMeansResult fit_vrkm<double>(const DataView<double>&, const VrkmKMeansParams&,
                                           const FitBuffers<double>&);

}  // namespace vcgmm
