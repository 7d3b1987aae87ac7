// Internal: centers of kernel k-means as weighted point sets.
//
// Terms: a center (or part of one) as sorted distinct points with summed
// coefficients. Training: the data with its kernel, diagonal and sample
// weights, and the weighted kernel sums between point sets (sum_p sum_q a_p
// b_q K(p, q)) that the center updates need. TruncatedCenter: the sliding
// window of Alg. 2, a deque of the center's batch segments (a segment's
// points have coefficients proportional to their sample weights), oldest
// first. build_support: the union of the centers' points as the columns of
// one kernel pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "kernel_kmeans/kernel_tiles.hpp"
#include "vcgmm/kernel_kmeans.hpp"

namespace vcgmm {
namespace detail {

/// Distinct points (increasing) and their coefficients.
struct Terms {
  std::vector<index_t> idx;
  std::vector<double> coef;
  index_t size() const { return static_cast<index_t>(idx.size()); }
};

/// Terms of (point, coefficient) pairs: sorted by point, the coefficients of
/// a repeated point summed in the order given.
inline Terms aggregate(std::vector<std::pair<index_t, double>> pairs) {
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  Terms t;
  for (const auto& pc : pairs) {
    if (!t.idx.empty() && t.idx.back() == pc.first) {
      t.coef.back() += pc.second;
    } else {
      t.idx.push_back(pc.first);
      t.coef.push_back(pc.second);
    }
  }
  return t;
}

/// cm(B), the weighted mean of a center's batch points B (as drawn, repeats
/// included): each point with coefficient w_p / mass, mass = sum of w over B
/// (unit weights: 1 / |B|), as terms.
template <typename Training>
Terms batch_mean(const Training& tr, const std::vector<index_t>& points, double mass) {
  std::vector<std::pair<index_t, double>> pairs;
  pairs.reserve(points.size());
  for (index_t p : points) pairs.emplace_back(p, tr.weight(p) / mass);
  return aggregate(std::move(pairs));
}

/// The mini-batch center update C' = (1 - alpha) C + alpha cm(B) (truncated
/// and untruncated): <C', C'> from <C, C>, u = <C, cm(B)> and
/// v = <cm(B), cm(B)>.
inline double updated_sqnorm(double sqnorm, double alpha, double u, double v) {
  return (1.0 - alpha) * (1.0 - alpha) * sqnorm + 2.0 * alpha * (1.0 - alpha) * u +
         alpha * alpha * v;
}

/// The training data with its kernel: rows, K(x, x), weighted block sums.
template <typename T>
class Training {
 public:
  Training(const DataView<T>& data, const KernelParams& kernel)
      : data_(data), kernel_(kernel, data.d), diag_(data.n) {}

  /// Fills the diagonal K(x, x) of every row (parallel, no evaluations counted).
  void compute_diagonal(int n_threads) {
    const index_t n = data_.n;
    parallel_for(n_chunks(n, kStreamChunk), n_threads, [&](index_t t) {
      const index_t r1 = std::min(n, (t + 1) * kStreamChunk);
      for (index_t i = t * kStreamChunk; i < r1; ++i) diag_[i] = kernel_.self(data_.row(i), i);
    }, 2.0 * kStreamChunk * data_.d);
  }

  const DataView<T>& data() const { return data_; }
  const KernelFunction<T>& kernel() const { return kernel_; }
  index_t n() const { return data_.n; }
  /// Sample weight of row i (1 without weights).
  double weight(index_t i) const { return data_.weight(i); }
  bool weighted() const { return data_.w != nullptr; }
  /// Sum of the weights of the rows `points` (as listed, repeats included).
  double mass(const std::vector<index_t>& points) const {
    double m = 0.0;
    for (index_t p : points) m += weight(p);
    return m;
  }
  const T* row(index_t i) const { return data_.row(i); }
  double self(index_t i) const { return diag_[i]; }
  double max_self() const {
    double m = 0.0;
    for (double v : diag_) m = std::max(m, std::abs(v));
    return m;
  }

  /// (m, d) copy of the rows idx (empty for precomputed: columns are read
  /// from the kernel rows).
  std::vector<T> gather(const std::vector<index_t>& idx) const {
    std::vector<T> rows;
    if (kernel_.precomputed()) return rows;
    const index_t d = data_.d;
    rows.resize(idx.size() * static_cast<size_t>(d));
    for (size_t p = 0; p < idx.size(); ++p) {
      std::copy(data_.row(idx[p]), data_.row(idx[p]) + d, rows.data() + p * d);
    }
    return rows;
  }

  /// sum_p sum_q a_p b_q K(a_p, b_q), serial (for callers inside a task);
  /// |a| |b| evaluations.
  double block_sum(const Terms& a, const Terms& b) const {
    if (a.size() == 0 || b.size() == 0) return 0.0;
    const std::vector<T> rows = gather(b.idx);
    SupportTiles<T> S(kernel_, rows.data(), b.idx.data(), b.size());
    CenterColumns cols;
    cols.start = {0, b.size()};
    cols.coef = b.coef;
    const index_t rb = S.row_block();
    const T* ptr[SupportTiles<T>::kMaxRowBlock];
    double part[SupportTiles<T>::kMaxRowBlock];
    double total = 0.0;
    for (index_t r0 = 0; r0 < a.size(); r0 += rb) {
      const index_t nrows = std::min(rb, a.size() - r0);
      for (index_t i = 0; i < nrows; ++i) {
        ptr[i] = data_.row(a.idx[r0 + i]);
        part[i] = 0.0;
      }
      accumulate_block(S, cols, 1, ptr, nrows, part);
      for (index_t i = 0; i < nrows; ++i) total += a.coef[r0 + i] * part[i];
    }
    return total;
  }

 private:
  DataView<T> data_;
  KernelFunction<T> kernel_;
  std::vector<double> diag_;
};

/// One batch's contribution to a center: its points (as drawn, repeats
/// included), point p with coefficient weight * w_p / mass (unit sample
/// weights: weight / points.size()).
struct Segment {
  int iter = 0;  ///< the iteration that added it; 0: the initial point
  std::vector<index_t> points;
  double weight = 0.0;  ///< the segment's share of the center
  double mass = 0.0;    ///< sum of the sample weights of points
};

/// A truncated center (Alg. 2): its window of segments, oldest first, and
/// <C, C>. The segment weights sum to 1 (a convex combination).
struct TruncatedCenter {
  std::deque<Segment> segments;
  double sqnorm = 0.0;
  std::int64_t n_terms = 0;  ///< points over all segments (repeats included)

  void init(index_t point, double self, double point_weight) {
    segments.clear();
    segments.push_back(Segment{0, {point}, 1.0, point_weight});
    sqnorm = self;
    n_terms = 1;
  }

  template <typename T, typename It>
  static void append_terms(const Training<T>& tr, It first, It last,
                           std::vector<std::pair<index_t, double>>* out) {
    for (It s = first; s != last; ++s) {
      for (index_t p : s->points) out->emplace_back(p, s->weight * tr.weight(p) / s->mass);
    }
  }

  template <typename T>
  Terms terms(const Training<T>& tr) const {
    std::vector<std::pair<index_t, double>> pairs;
    pairs.reserve(static_cast<size_t>(n_terms));
    append_terms(tr, segments.begin(), segments.end(), &pairs);
    return aggregate(std::move(pairs));
  }

  /// C <- (1 - alpha) C + alpha cm(batch), then the truncation to about tau
  /// points with the kept weights rescaled to sum 1 (renormalize; else kept
  /// as they are, the paper's Eq. (1)), and <C, C> updated.
  /// `u` = <C, cm(batch)> (from the assignment pass), `mass` the batch
  /// points' weight sum. Returns the kernel evaluations spent.
  template <typename T>
  std::int64_t update(const Training<T>& tr, int iter, double alpha,
                      std::vector<index_t> batch_points, double mass, double u, index_t tau,
                      bool renormalize) {
    std::int64_t evals = 0;
    // <cm(B), cm(B)> over the distinct points of the batch.
    const Terms bt = batch_mean(tr, batch_points, mass);
    const double v = tr.block_sum(bt, bt);
    evals += bt.size() * bt.size();
    const double full = updated_sqnorm(sqnorm, alpha, u, v);

    for (Segment& s : segments) s.weight *= (1.0 - alpha);
    n_terms += static_cast<std::int64_t>(batch_points.size());
    segments.push_back(Segment{iter, std::move(batch_points), alpha, mass});

    // The window Q (Sec. 4.1): the newest segments until they hold >= tau
    // points; the initial point stays while Q reaches back to iteration 1.
    const std::ptrdiff_t ns = static_cast<std::ptrdiff_t>(segments.size());
    std::ptrdiff_t stop = -1;
    index_t held = 0;
    for (std::ptrdiff_t s = ns - 1; s >= 0; --s) {
      if (segments[s].iter == 0) break;
      held += static_cast<index_t>(segments[s].points.size());
      if (held >= tau) {
        stop = s;
        break;
      }
    }
    auto dropped = [&](std::ptrdiff_t s) {
      const Segment& seg = segments[s];
      if (seg.weight == 0.0) return true;  // nothing left of it (alpha = 1)
      if (stop < 0 || s >= stop) return false;
      return !(seg.iter == 0 && segments[stop].iter == 1);
    };
    std::vector<std::pair<index_t, double>> kept_pairs, dropped_pairs;
    std::deque<Segment> kept;
    double kept_weight = 0.0;
    bool lost_mass = false;
    for (std::ptrdiff_t s = 0; s < ns; ++s) {
      if (dropped(s)) {
        if (segments[s].weight != 0.0) {
          lost_mass = true;
          append_terms(tr, segments.begin() + s, segments.begin() + s + 1, &dropped_pairs);
        }
        n_terms -= static_cast<std::int64_t>(segments[s].points.size());
      } else {
        kept_weight += segments[s].weight;
        kept.push_back(std::move(segments[s]));
      }
    }
    segments = std::move(kept);
    if (!lost_mass) {
      sqnorm = full;
      return evals;
    }
    append_terms(tr, segments.begin(), segments.end(), &kept_pairs);
    const Terms K = aggregate(std::move(kept_pairs));
    const Terms D = aggregate(std::move(dropped_pairs));
    const double nk = static_cast<double>(K.size()), nd = static_cast<double>(D.size());
    double q;
    // <K, K> directly when that is cheaper, or when most of the mass went
    // (full - 2 <K, D> - <D, D> would cancel: a relative error of eps / s^2).
    if (kept_weight < 0.5 || nk * nk <= nd * (nk + nd)) {
      q = tr.block_sum(K, K);
      evals += K.size() * K.size();
    } else {
      q = full - 2.0 * tr.block_sum(K, D) - tr.block_sum(D, D);
      evals += K.size() * D.size() + D.size() * D.size();
    }
    if (!renormalize) {
      sqnorm = q;
      return evals;
    }
    sqnorm = q / (kept_weight * kept_weight);
    for (Segment& s : segments) s.weight /= kept_weight;
    return evals;
  }
};

/// The centers' points side by side as the columns of one kernel pass.
template <typename T>
struct CenterSupport {
  std::vector<Terms> centers;   ///< per center: distinct points and coefficients
  std::vector<index_t> points;  ///< (m,) the training row of each column
  std::vector<T> rows;          ///< (m, d) their coordinates (empty for precomputed)
  CenterColumns cols;           ///< the center of each column

  /// From each center's terms (center j: centers[j]).
  void build(const Training<T>& tr, std::vector<Terms> terms) {
    centers = std::move(terms);
    points.clear();
    cols.start.assign(1, 0);
    cols.coef.clear();
    for (const Terms& t : centers) {
      points.insert(points.end(), t.idx.begin(), t.idx.end());
      cols.coef.insert(cols.coef.end(), t.coef.begin(), t.coef.end());
      cols.start.push_back(static_cast<index_t>(points.size()));
    }
    rows = tr.gather(points);
  }

  index_t size() const { return static_cast<index_t>(points.size()); }

  /// The public model: the distinct points of all centers (increasing), and
  /// per center its positions among them and its coefficients.
  KernelCenters model(const std::vector<double>& sqnorm) const {
    const index_t k = static_cast<index_t>(centers.size());
    KernelCenters c;
    c.support = points;
    std::sort(c.support.begin(), c.support.end());
    c.support.erase(std::unique(c.support.begin(), c.support.end()), c.support.end());
    c.sqnorm = sqnorm;
    c.indptr.assign(1, 0);
    for (index_t j = 0; j < k; ++j) {
      for (index_t t = 0; t < centers[j].size(); ++t) {
        const auto at = std::lower_bound(c.support.begin(), c.support.end(), centers[j].idx[t]);
        c.index.push_back(static_cast<index_t>(at - c.support.begin()));
        c.coef.push_back(centers[j].coef[t]);
      }
      c.indptr.push_back(static_cast<index_t>(c.index.size()));
    }
    return c;
  }
};

}  // namespace detail
}  // namespace vcgmm
