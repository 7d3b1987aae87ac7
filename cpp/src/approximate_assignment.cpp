#include "vcgmm/approximate_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <string>
#include <utility>

#include "detail/blocked_scan.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/validation.hpp"

namespace vcgmm {

namespace {

using detail::parallel_for;

/// Points per task of the graph search (part of the determinism contract:
/// the task boundaries, and so the order of the partial sums, depend on n only).
constexpr index_t kSearchPointsPerTask = 1024;

/// Row handler of the k-NN graph scan: the centers' nearest other centers.
struct GraphHandler {
  using Partial = detail::NoPartial;
  using Block = detail::NoBlock;
  static constexpr bool kVisitsTiles = false;
  std::int32_t* graph;  // (c, degree)
  double* dist;         // (c, degree)
  int degree;

  void row(Block&, Partial&, index_t row, index_t, const std::int32_t* idx, const double* d2,
           int found) const {
    std::int32_t* out = graph + row * degree;
    double* out_d2 = dist + row * degree;
    int m = 0;
    for (int j = 0; j < found && m < degree; ++j) {
      if (idx[j] != row) {
        out_d2[m] = d2[j];
        out[m++] = idx[j];
      }
    }
  }
};

/// Row handler of the coarse scan: the nearest coarse centers of every point.
struct StartHandler {
  using Partial = detail::NoPartial;
  using Block = detail::NoBlock;
  static constexpr bool kVisitsTiles = false;
  const std::int32_t* coarse_ids;
  std::int32_t* starts;  // (n, s)
  double* start_d2;      // (n, s)
  int s;

  void row(Block&, Partial&, index_t row, index_t, const std::int32_t* idx, const double* d2,
           int found) const {
    for (int j = 0; j < s; ++j) {
      starts[row * s + j] = j < found ? coarse_ids[idx[j]] : -1;
      start_d2[row * s + j] = j < found ? d2[j] : std::numeric_limits<double>::infinity();
    }
  }
};

struct SearchPartial {
  double objective = 0.0;
  std::int64_t evals = 0;
};

/// Per-thread search scratch: visited stamps (one per center) and heaps.
struct SearchScratch {
  std::vector<std::uint32_t> stamp;
  std::uint32_t epoch = 0;
  using Entry = std::pair<double, std::int32_t>;
  std::vector<Entry> candidates;  // min-heap by (distance, index)
  std::vector<Entry> kept;        // max-heap by (distance, index), size <= beam

  void begin(index_t c) {
    if (static_cast<index_t>(stamp.size()) != c) {
      stamp.assign(c, 0);
      epoch = 0;
    }
    if (++epoch == 0) {  // wrapped: clear
      std::fill(stamp.begin(), stamp.end(), 0);
      epoch = 1;
    }
    candidates.clear();
    kept.clear();
  }
  bool visit(std::int32_t j) {
    if (stamp[j] == epoch) return false;
    stamp[j] = epoch;
    return true;
  }
};

}  // namespace

template <typename T>
CenterGraphIndex<T>::CenterGraphIndex(const T* centers, index_t n_centers, index_t d,
                                      const ApproximateAssignmentParams& params, int n_threads) {
  const char* where = "CenterGraphIndex";
  detail::require_centers(centers, n_centers, where);
  detail::require(d >= 1, std::string(where) + ": need d >= 1");
  detail::require(n_centers <= std::numeric_limits<std::int32_t>::max(),
                  std::string(where) + ": at most 2^31 - 1 centers");
  detail::require(params.graph_degree >= 1, std::string(where) + ": graph_degree must be >= 1");
  detail::require(params.n_starts >= 1, std::string(where) + ": n_starts must be >= 1");
  detail::require(params.beam_width >= 1, std::string(where) + ": beam_width must be >= 1");
  detail::require(params.coarse_size >= 0, std::string(where) + ": coarse_size must be >= 0");
  const detail::Stopwatch clock;
  c_ = n_centers;
  d_ = d;
  for (index_t i = 0; i < c_ * d_; ++i) {
    detail::require(std::isfinite(static_cast<double>(centers[i])),
                    std::string(where) + ": centers must be finite");
  }
  // Identical centers (fits often leave some: means that converged onto each
  // other) would form cliques of zero-distance neighbours that trap the
  // search; only the lowest index of each group enters the index (it is the
  // exact assignment's choice among ties).
  {
    std::vector<std::int32_t> order(c_);
    for (index_t i = 0; i < c_; ++i) order[i] = static_cast<std::int32_t>(i);
    const auto row_less = [&](std::int32_t a, std::int32_t b) {
      const T* ra = centers + a * d_;
      const T* rb = centers + b * d_;
      for (index_t j = 0; j < d_; ++j) {
        if (ra[j] < rb[j]) return true;
        if (rb[j] < ra[j]) return false;
      }
      return a < b;
    };
    std::sort(order.begin(), order.end(), row_less);
    ids_.clear();
    for (index_t k = 0; k < c_; ++k) {
      const bool same = k > 0 && std::equal(centers + order[k] * d_, centers + (order[k] + 1) * d_,
                                            centers + order[k - 1] * d_);
      if (!same) ids_.push_back(order[k]);  // first of its group: lowest index
    }
    std::sort(ids_.begin(), ids_.end());
    u_ = static_cast<index_t>(ids_.size());
    centers_.resize(u_ * d_);
    for (index_t k = 0; k < u_; ++k) {
      std::copy(centers + ids_[k] * d_, centers + (ids_[k] + 1) * d_, centers_.data() + k * d_);
    }
  }
  degree_ = static_cast<int>(std::min<index_t>(params.graph_degree, u_ - 1));
  beam_ = params.beam_width;

  // Exact k-NN graph among the centers (the blocked scan, k = degree + 1 to
  // drop the center itself; a duplicate of lower index may come first).
  // Then every center also gets the (up to degree) nearest centers that list
  // it among theirs (reverse edges): a k-NN graph alone may leave a center
  // unreachable (nobody's near neighbour), which the search could never find.
  offsets_.assign(u_ + 1, 0);
  graph_.clear();
  if (degree_ > 0) {
    std::vector<std::int32_t> forward(static_cast<std::size_t>(u_) * degree_, -1);
    std::vector<double> forward_d2(static_cast<std::size_t>(u_) * degree_, 0.0);
    const detail::CenterTiles<T> tiles(centers_.data(), u_, d_);
    const DataView<T> view{centers_.data(), u_, d_, nullptr};
    const GraphHandler handler{forward.data(), forward_d2.data(), degree_};
    detail::scan_nearest(view, tiles, degree_ + 1, handler, n_threads, 2.0 * d_);
    build_.index_distance_evals = u_ * u_;
    std::vector<std::vector<std::pair<double, std::int32_t>>> reverse(u_);
    for (index_t a = 0; a < u_; ++a) {
      for (int k = 0; k < degree_; ++k) {
        const std::int32_t b = forward[a * degree_ + k];
        if (b >= 0) reverse[b].emplace_back(forward_d2[a * degree_ + k], static_cast<std::int32_t>(a));
      }
    }
    graph_.reserve(static_cast<std::size_t>(u_) * degree_ * 2);
    for (index_t a = 0; a < u_; ++a) {
      const std::int32_t* fa = forward.data() + a * degree_;
      int nf = 0;
      for (int k = 0; k < degree_ && fa[k] >= 0; ++k, ++nf) graph_.push_back(fa[k]);
      auto& ra = reverse[a];
      std::sort(ra.begin(), ra.end());
      int added = 0;
      for (const auto& e : ra) {
        if (added >= degree_) break;
        if (std::find(fa, fa + nf, e.second) != fa + nf) continue;
        graph_.push_back(e.second);
        ++added;
      }
      offsets_[a + 1] = static_cast<index_t>(graph_.size());
    }
  }

  // Coarse level: m evenly strided centers.
  index_t m = params.coarse_size > 0
                  ? params.coarse_size
                  : static_cast<index_t>(std::ceil(2.0 * std::sqrt(static_cast<double>(u_))));
  m = std::min<index_t>(std::max<index_t>(m, params.n_starts), u_);
  coarse_ids_.resize(m);
  coarse_centers_.resize(m * d_);
  for (index_t i = 0; i < m; ++i) {
    const index_t j = (i * u_) / m;
    coarse_ids_[i] = static_cast<std::int32_t>(j);
    std::copy(centers_.data() + j * d_, centers_.data() + (j + 1) * d_,
              coarse_centers_.data() + i * d_);
  }
  n_starts_ = static_cast<int>(std::min<index_t>(params.n_starts, m));
  build_.index_seconds = clock.seconds();
  build_.n_distance_evals.evaluation = build_.index_distance_evals;
  build_.timings.evaluation = build_.index_seconds;
}

template <typename T>
ApproximateAssignmentStats CenterGraphIndex<T>::assign(const DataView<T>& data,
                                                       std::int32_t* labels, double* min_d2,
                                                       int n_threads) const {
  detail::require_data(data, "CenterGraphIndex::assign", /*allow_zero_weights=*/true);
  detail::require(data.d == d_, "CenterGraphIndex::assign: X has " + std::to_string(data.d) +
                                    " columns, the centers " + std::to_string(d_));
  const detail::Stopwatch clock;
  const index_t n = data.n;
  const int s = n_starts_;
  const index_t m = static_cast<index_t>(coarse_ids_.size());

  // 1. Starts: the s nearest coarse centers of every point (blocked scan).
  std::vector<std::int32_t> starts(static_cast<std::size_t>(n) * s);
  std::vector<double> start_d2(static_cast<std::size_t>(n) * s);
  {
    const detail::CenterTiles<T> tiles(coarse_centers_.data(), m, d_);
    const StartHandler handler{coarse_ids_.data(), starts.data(), start_d2.data(), s};
    detail::scan_nearest(data, tiles, s, handler, n_threads, 2.0 * d_);
  }

  // 2. Best-first search over the graph from the starts.
  const index_t n_tasks = detail::n_chunks(n, kSearchPointsPerTask);
  std::vector<SearchPartial> partials(n_tasks);
  const T* centers = centers_.data();
  const std::int32_t* graph = graph_.data();
  const index_t* offsets = offsets_.data();
  const int beam = beam_;
  const index_t c = u_, d = d_;
  const std::int32_t* ids = ids_.data();
  // Near-ties below this relative gap (the rounding of a distance in T) are
  // confirmed in double.
  const double tie_band = 64.0 * std::numeric_limits<T>::epsilon();
  parallel_for(n_tasks, n_threads, [&](index_t task) {
    thread_local SearchScratch scratch;
    using Entry = SearchScratch::Entry;
    const index_t r0 = task * kSearchPointsPerTask;
    const index_t r1 = std::min(n, r0 + kSearchPointsPerTask);
    SearchPartial part;
    for (index_t i = r0; i < r1; ++i) {
      const T* x = data.row(i);
      scratch.begin(c);
      auto& cand = scratch.candidates;
      auto& kept = scratch.kept;
      const auto min_first = std::greater<Entry>();
      const auto max_first = std::less<Entry>();
      for (int j = 0; j < s; ++j) {
        const std::int32_t id = starts[i * s + j];
        if (id < 0 || !scratch.visit(id)) continue;
        const Entry e{start_d2[i * s + j], id};
        cand.push_back(e);
        std::push_heap(cand.begin(), cand.end(), min_first);
        kept.push_back(e);
        std::push_heap(kept.begin(), kept.end(), max_first);
        if (static_cast<int>(kept.size()) > beam) {
          std::pop_heap(kept.begin(), kept.end(), max_first);
          kept.pop_back();
        }
      }
      while (!cand.empty()) {
        std::pop_heap(cand.begin(), cand.end(), min_first);
        const Entry top = cand.back();
        cand.pop_back();
        if (static_cast<int>(kept.size()) >= beam && top > kept.front()) break;
        const std::int32_t* nb = graph + offsets[top.second];
        const int degree = static_cast<int>(offsets[top.second + 1] - offsets[top.second]);
        for (int k = 0; k < degree; ++k) {
          if (k + 1 < degree) __builtin_prefetch(centers + static_cast<index_t>(nb[k + 1]) * d);
          const std::int32_t j = nb[k];
          if (!scratch.visit(j)) continue;
          const double dist =
              static_cast<double>(detail::squared_distance(x, centers + static_cast<index_t>(j) * d, d));
          ++part.evals;
          const Entry e{dist, j};
          if (static_cast<int>(kept.size()) < beam || e < kept.front()) {
            cand.push_back(e);
            std::push_heap(cand.begin(), cand.end(), min_first);
            kept.push_back(e);
            std::push_heap(kept.begin(), kept.end(), max_first);
            if (static_cast<int>(kept.size()) > beam) {
              std::pop_heap(kept.begin(), kept.end(), max_first);
              kept.pop_back();
            }
          }
        }
      }
      // Confirm the winner in double among the near-tied best kept centers.
      double best = std::numeric_limits<double>::infinity();
      for (const Entry& e : kept) best = std::min(best, e.first);
      const double band = best * (1.0 + tie_band) + tie_band * 1e-30;
      double win_d2 = std::numeric_limits<double>::infinity();
      std::int32_t win = -1;
      for (const Entry& e : kept) {
        if (e.first > band) continue;
        const double ex =
            detail::squared_distance_exact(x, centers + static_cast<index_t>(e.second) * d, d);
        ++part.evals;
        if (ex < win_d2 || (ex == win_d2 && e.second < win)) {
          win_d2 = ex;
          win = e.second;
        }
      }
      part.objective += data.weight(i) * win_d2;
      if (labels) labels[i] = ids[win];
      if (min_d2) min_d2[i] = win_d2;
    }
    partials[task] = part;
  }, 2.0 * static_cast<double>(d) * static_cast<double>(kSearchPointsPerTask) *
         static_cast<double>(2 * beam * degree_ + s));

  ApproximateAssignmentStats stats;
  std::int64_t evals = n * m;
  for (const SearchPartial& p : partials) {
    stats.objective += p.objective;
    evals += p.evals;
  }
  stats.search_distance_evals = evals;
  stats.search_seconds = clock.seconds();
  stats.n_distance_evals.evaluation = evals;
  stats.timings.evaluation = stats.search_seconds;
  return stats;
}

template <typename T>
ApproximateAssignmentStats assign_approximate(const DataView<T>& data, const T* centers,
                                              index_t n_centers,
                                              const ApproximateAssignmentParams& params,
                                              std::int32_t* labels, double* min_d2,
                                              int n_threads) {
  detail::require_data(data, "assign_approximate", /*allow_zero_weights=*/true);
  const CenterGraphIndex<T> index(centers, n_centers, data.d, params, n_threads);
  ApproximateAssignmentStats stats = index.assign(data, labels, min_d2, n_threads);
  stats.index_distance_evals = index.build_stats().index_distance_evals;
  stats.index_seconds = index.build_stats().index_seconds;
  stats.n_distance_evals.evaluation += stats.index_distance_evals;
  stats.timings.evaluation += stats.index_seconds;
  return stats;
}

template class CenterGraphIndex<float>;
template class CenterGraphIndex<double>;
template ApproximateAssignmentStats assign_approximate<float>(
    const DataView<float>&, const float*, index_t, const ApproximateAssignmentParams&,
    std::int32_t*, double*, int);
template ApproximateAssignmentStats assign_approximate<double>(
    const DataView<double>&, const double*, index_t, const ApproximateAssignmentParams&,
    std::int32_t*, double*, int);

}  // namespace vcgmm
