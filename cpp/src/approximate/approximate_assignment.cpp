#include "vcgmm/approximate_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <type_traits>
#include <utility>

#include "approximate/checks.hpp"
#include "detail/assign.hpp"
#include "detail/blocked_scan.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"
#include "detail/partition.hpp"
#include "detail/subspace_screen.hpp"
#include "detail/validation.hpp"

namespace vcgmm {

namespace {

using detail::parallel_for;

/// Points per task of the gemm method's queries: kQueryBlock, doubled up to
/// kMaxQueryBlock while the input still makes at least kMinQueryTasks tasks
/// (a larger task gives each cell more (point, cell) entries per matrix
/// product, so a cell's centers are packed fewer times; enough tasks keep
/// many threads busy). Part of the determinism contract: the tasks depend on
/// n only.
constexpr index_t kQueryBlock = 2048;
constexpr index_t kMaxQueryBlock = 16384;
constexpr index_t kMinQueryTasks = 128;

/// The smallest of v[0..n) (n >= 1, no NaN), in independent lanes so that
/// it vectorizes (each comparison is what minps computes).
float smallest_of(const float* v, index_t n) {
  constexpr index_t kLanes = 8;
  float lane[kLanes];
  for (index_t l = 0; l < kLanes; ++l) lane[l] = v[0];
  index_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (index_t l = 0; l < kLanes; ++l) lane[l] = v[j + l] < lane[l] ? v[j + l] : lane[l];
  }
  for (; j < n; ++j) lane[0] = v[j] < lane[0] ? v[j] : lane[0];
  float lo = lane[0];
  for (index_t l = 1; l < kLanes; ++l) lo = lane[l] < lo ? lane[l] : lo;
  return lo;
}

index_t query_block_for(index_t n) {
  index_t block = kQueryBlock;
  while (block < kMaxQueryBlock && n / (2 * block) >= kMinQueryTasks) block *= 2;
  return block;
}

/// Centers per cell that place the coarse centers of the gemm method (its
/// Lloyd iterations run over a strided sample of this many times the cells).
constexpr index_t kCoarseTrainPerCell = 64;
/// A cell of more than this many times the mean number of centers per cell
/// is split (at most kBalancePasses rounds): cells up to about twice the
/// mean are common on real data and left alone.
constexpr index_t kMaxCellFactor = 3;
constexpr int kBalancePasses = 3;
/// Points per task of the screened queries (each point's search is its own:
/// any size gives the same labels; small tasks balance many threads).
constexpr index_t kScreenedQueryBlock = 1024;

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

/// Row handler storing every row's k nearest centers (-1 past the found ones).
struct NearestHandler {
  using Partial = detail::NoPartial;
  using Block = detail::NoBlock;
  static constexpr bool kVisitsTiles = false;
  std::int32_t* out;  // (n, k)
  int k;

  void row(Block&, Partial&, index_t row, index_t, const std::int32_t* idx, const double*,
           int found) const {
    for (int j = 0; j < k; ++j) out[row * k + j] = j < found ? idx[j] : -1;
  }
};

/// Row handler of the coarse scan of the gemm method: the cells a point
/// probes (its nearest coarse centers within the ratio), -1 after them.
struct ProbeHandler {
  using Partial = detail::NoPartial;
  using Block = detail::NoBlock;
  static constexpr bool kVisitsTiles = false;
  std::int32_t* out;  // (n, k)
  int k;
  double ratio;

  void row(Block&, Partial&, index_t row, index_t, const std::int32_t* idx, const double* d2,
           int found) const {
    std::int32_t* o = out + row * k;
    int c = 0;
    for (int j = 0; j < found; ++j) {
      if (j > 0 && !std::isinf(ratio) && !(d2[j] <= ratio * d2[0])) break;  // d2 ascending
      o[c++] = idx[j];
    }
    for (; c < k; ++c) o[c] = -1;
  }
};

/// Checks the centers, then keeps one copy of each distinct row: `ids`
/// (ascending) are the original indices (of identical rows the lowest: the
/// exact assignment's choice among ties), `out` the rows (ids.size(), d).
template <typename T>
void distinct_centers(const T* centers, index_t c, index_t d, const char* where,
                      std::vector<std::int32_t>& ids, std::vector<T>& out) {
  detail::require_centers(centers, c, where);
  detail::require(d >= 1, std::string(where) + ": need d >= 1");
  detail::require(c <= std::numeric_limits<std::int32_t>::max(),
                  std::string(where) + ": at most 2^31 - 1 centers");
  bool finite = true;  // (one check: building the message per value cost ~50 ms at C = 4000)
  for (index_t i = 0; i < c * d; ++i) finite &= std::isfinite(static_cast<double>(centers[i]));
  detail::require(finite, std::string(where) + ": centers must be finite");
  std::vector<std::int32_t> order(c);
  for (index_t i = 0; i < c; ++i) order[i] = static_cast<std::int32_t>(i);
  const auto row_less = [&](std::int32_t a, std::int32_t b) {
    const T* ra = centers + a * d;
    const T* rb = centers + b * d;
    for (index_t j = 0; j < d; ++j) {
      if (ra[j] < rb[j]) return true;
      if (rb[j] < ra[j]) return false;
    }
    return a < b;
  };
  std::sort(order.begin(), order.end(), row_less);
  ids.clear();
  for (index_t k = 0; k < c; ++k) {
    const bool same = k > 0 && std::equal(centers + order[k] * d, centers + (order[k] + 1) * d,
                                          centers + order[k - 1] * d);
    if (!same) ids.push_back(order[k]);  // first of its group: lowest index
  }
  std::sort(ids.begin(), ids.end());
  const index_t u = static_cast<index_t>(ids.size());
  out.resize(u * d);
  for (index_t k = 0; k < u; ++k) {
    std::copy(centers + ids[k] * d, centers + (ids[k] + 1) * d, out.data() + k * d);
  }
}

/// The statistics of one assign() call: its objective, the distances it
/// evaluated and its time, under both the search's and the phase's names.
ApproximateAssignmentStats search_stats(double objective, std::int64_t evals, double seconds) {
  ApproximateAssignmentStats stats;
  stats.objective = objective;
  stats.search_distance_evals = evals;
  stats.search_seconds = seconds;
  stats.n_distance_evals.evaluation = evals;
  stats.timings.evaluation = seconds;
  return stats;
}

}  // namespace

template <typename T>
CenterGraphIndex<T>::CenterGraphIndex(const T* centers, index_t n_centers, index_t d,
                                      const ApproximateAssignmentParams& params, int n_threads) {
  const char* where = "CenterGraphIndex";
  detail::require_approximate_params(params, where);
  const detail::Stopwatch clock;
  c_ = n_centers;
  d_ = d;
  // Identical centers (fits often leave some: means that converged onto each
  // other) would form cliques of zero-distance neighbours that trap the
  // search; only the lowest index of each group enters the index (it is the
  // exact assignment's choice among ties).
  distinct_centers(centers, n_centers, d, where, ids_, centers_);
  u_ = static_cast<index_t>(ids_.size());
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
  detail::require_query(data, d_, "CenterGraphIndex::assign");
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

  double objective = 0.0;
  std::int64_t evals = n * m;
  for (const SearchPartial& p : partials) {
    objective += p.objective;
    evals += p.evals;
  }
  return search_stats(objective, evals, clock.seconds());
}

// ---------------------------------------------------------------------------
// CenterCellIndex: the matrix-product route.

template <typename T>
struct CenterCellIndex<T>::Tiles {
  std::unique_ptr<detail::CenterTiles<T>> coarse;  // the coarse centers
  std::vector<detail::CenterTiles<T>> cells;       // one per cell: its centers
  // Principal-subspace screening (screen_dims > 0): the axes, and every
  // cell's projected centers packed dimension-major (cell a's at
  // packed[offset[a]], width[a] columns).
  detail::SubspaceScreen<T> screen;
  std::vector<T> packed;
  std::vector<index_t> offset, width;
  // The coarse centers' projections (m, k) and squared norms about the mean.
  std::vector<T> coarse_proj, coarse_norm2;
  index_t max_width = 0;  // the widest cell's width
  // The centers' rows in member order (cell a's from row member_offsets_[a]):
  // a cell's rows stay in cache while its points are measured (4% faster at
  // C = 4000 than reading them from centers_).
  std::vector<T> member_rows;
};

template <typename T>
CenterCellIndex<T>::~CenterCellIndex() = default;

template <typename T>
CenterCellIndex<T>::CenterCellIndex(const T* centers, index_t n_centers, index_t d,
                                    const ApproximateAssignmentParams& params, int n_threads) {
  const char* where = "CenterCellIndex";
  detail::require_approximate_params(params, where);
  const detail::Stopwatch clock;
  c_ = n_centers;
  d_ = d;
  distinct_centers(centers, n_centers, d, where, ids_, centers_);
  u_ = static_cast<index_t>(ids_.size());
  std::int64_t evals = 0;

  // Coarse level: m evenly strided centers, moved by a few Lloyd iterations
  // over the (distinct) centers themselves. Default m = ceil(sqrt(C)): cells
  // of ~sqrt(C) centers, wide enough for efficient matrix products (on the
  // patches at C = 4000, 64 cells were faster than 127 at equal exactness).
  index_t m = params.coarse_size > 0
                  ? params.coarse_size
                  : static_cast<index_t>(std::ceil(std::sqrt(static_cast<double>(u_))));
  m = std::min<index_t>(m, u_);
  // k evenly strided rows of the n rows `from` (n, d) into out (k, d).
  const auto strided_rows = [&](const T* from, index_t n, index_t k, std::vector<T>& out) {
    out.resize(static_cast<std::size_t>(k * d_));
    for (index_t i = 0; i < k; ++i) {
      const index_t j = (i * n) / k;
      std::copy(from + j * d_, from + (j + 1) * d_, out.data() + i * d_);
    }
  };
  strided_rows(centers_.data(), u_, m, coarse_);
  // The Lloyd iterations run over a strided sample of at most
  // kCoarseTrainPerCell centers per cell (the cells need only be compact, as
  // faiss trains its coarse quantizer on a sample); then every center goes to
  // its nearest coarse center. Up to C = kCoarseTrainPerCell^2 the sample is
  // all centers.
  const index_t s = std::min<index_t>(u_, kCoarseTrainPerCell * m);
  std::vector<T> sample;
  if (s < u_) strided_rows(centers_.data(), u_, s, sample);
  // Lloyd iterations from the k centers `at` (k, d) over the rows `rows`;
  // their labels into `label`.
  const auto lloyd = [&](const DataView<T>& rows, T* at, index_t k, std::int32_t* label) {
    for (int it = 0;; ++it) {
      const AssignmentStats st =
          detail::assign_nearest(rows, at, k, label, nullptr, n_threads);
      evals += rows.n * k;
      if (it == params.coarse_iter || (it > 0 && st.n_changed == 0)) break;
      // Each cell's mean, its members summed in index order (cells in
      // parallel); an empty cell keeps its center.
      detail::ClusterPartition part;
      part.build(label, rows.n, k);
      detail::for_each_cluster_sum(rows, part, k, n_threads,
                                   [&](index_t a, const double* sum, double count) {
        for (index_t j = 0; j < d_; ++j) at[a * d_ + j] = static_cast<T>(sum[j] / count);
      });
      detail::check_interrupt();
    }
  };
  const DataView<T> fine{s < u_ ? sample.data() : centers_.data(), s, d_, nullptr};
  std::vector<std::int32_t> cell(s, -1);
  lloyd(fine, coarse_.data(), m, cell.data());
  const DataView<T> all_centers{centers_.data(), u_, d_, nullptr};
  if (s < u_) {
    cell.assign(u_, -1);
    detail::assign_nearest(all_centers, coarse_.data(), m, cell.data(), nullptr, n_threads);
    evals += u_ * m;
  }
  // Balance: a cell of more than kMaxCellFactor times the mean size is
  // split by Lloyd iterations among its own centers (from evenly strided
  // ones) into cells of about the mean size, then every center goes to its
  // nearest coarse center again. Lloyd over well-separated groups of centers
  // (blobs) leaves a few coarse centers at the mean of many groups, whose
  // cells hold most centers; a point's search scans its probed cells, so the
  // cost follows the sum of squared cell sizes.
  const index_t mean_cell = (u_ + m - 1) / m;
  for (int pass = 0; pass < kBalancePasses; ++pass) {
    detail::ClusterPartition part;
    part.build(cell.data(), u_, m);
    const index_t m_before = m;
    std::vector<T> rows, sub;
    std::vector<std::int32_t> sub_cell;
    for (index_t a = 0; a < m_before; ++a) {
      const index_t size = part.size(a);
      if (size <= kMaxCellFactor * mean_cell) continue;
      const index_t q = (size + mean_cell - 1) / mean_cell;
      rows.resize(static_cast<std::size_t>(size * d_));
      for (index_t r = 0; r < size; ++r) {
        const T* src = centers_.data() + part.order[part.offsets[a] + r] * d_;
        std::copy(src, src + d_, rows.data() + r * d_);
      }
      strided_rows(rows.data(), size, q, sub);
      sub_cell.assign(size, -1);
      lloyd(DataView<T>{rows.data(), size, d_, nullptr}, sub.data(), q, sub_cell.data());
      std::copy(sub.data(), sub.data() + d_, coarse_.data() + a * d_);
      coarse_.insert(coarse_.end(), sub.begin() + d_, sub.end());
      m += q - 1;
    }
    if (m == m_before) break;
    detail::assign_nearest(all_centers, coarse_.data(), m, cell.data(), nullptr, n_threads);
    evals += u_ * m;
  }
  // Drop the coarse centers that own no center (every cell then has >= 1).
  {
    std::vector<index_t> count(m, 0);
    for (index_t i = 0; i < u_; ++i) ++count[cell[i]];
    std::vector<std::int32_t> renumber(m, -1);
    index_t kept = 0;
    for (index_t a = 0; a < m; ++a) {
      if (count[a] == 0) continue;
      if (kept != a) {
        std::copy(coarse_.data() + a * d_, coarse_.data() + (a + 1) * d_,
                  coarse_.data() + kept * d_);
      }
      renumber[a] = static_cast<std::int32_t>(kept++);
    }
    m = kept;
    coarse_.resize(m * d_);
    for (index_t i = 0; i < u_; ++i) cell[i] = renumber[cell[i]];
  }
  cell_of_ = cell;
  member_offsets_.assign(m + 1, 0);
  for (index_t i = 0; i < u_; ++i) ++member_offsets_[cell[i] + 1];
  for (index_t a = 0; a < m; ++a) member_offsets_[a + 1] += member_offsets_[a];
  members_.resize(u_);
  {
    std::vector<index_t> pos(member_offsets_.begin(), member_offsets_.end() - 1);
    for (index_t i = 0; i < u_; ++i) members_[pos[cell[i]]++] = static_cast<std::int32_t>(i);
  }
  n_probe_ = static_cast<int>(std::min<index_t>(params.n_probe, m));
  probe_ratio_ = params.probe_ratio;
  tiles_ = std::make_unique<Tiles>();
  index_t ks = 0;
  if (params.screen_dims != 0 && params.screen_dims < d_) {
    tiles_->screen =
        detail::SubspaceScreen<T>(centers_.data(), u_, d_, params.screen_dims, n_threads);
    ks = tiles_->screen.dims();
  }
  if (ks == 0) {  // the matrix-product route's tiles
    tiles_->coarse = std::make_unique<detail::CenterTiles<T>>(coarse_.data(), m, d_);
    tiles_->cells.reserve(m);
    for (index_t a = 0; a < m; ++a) {
      tiles_->cells.emplace_back(centers_.data(), member_offsets_[a + 1] - member_offsets_[a], d_,
                                 members_.data() + member_offsets_[a]);
    }
  } else {  // the screen's axes and packed projections
    const detail::SubspaceScreen<T>& screen = tiles_->screen;
    std::vector<T> proj(static_cast<std::size_t>(u_ * ks));
    {
      constexpr index_t kRows = 256;  // per task; each row projected alone
      detail::parallel_for(detail::n_chunks(u_, kRows), n_threads, [&](index_t t) {
        const index_t i0 = t * kRows;
        screen.project(centers_.data() + i0 * d_, std::min(kRows, u_ - i0),
                       detail::scratch_buffer<T, 4>(kRows * d_), proj.data() + i0 * ks);
      }, 2.0 * kRows * d_ * ks);
    }
    // Each cell's members ordered along the leading axis (ties: the lower
    // index): a panel of the packed layout then holds nearby centers, whose
    // bounds tend to pass or fail the limit together (measured 2% faster at
    // C = 4000 on the patches). Labels do not depend on this order.
    for (index_t a = 0; a < m; ++a) {
      std::stable_sort(members_.begin() + member_offsets_[a],
                       members_.begin() + member_offsets_[a + 1],
                       [&](std::int32_t x, std::int32_t y) { return proj[x * ks] < proj[y * ks]; });
    }
    tiles_->offset.resize(m);
    tiles_->width.resize(m);
    for (index_t a = 0; a < m; ++a) {
      tiles_->offset[a] = static_cast<index_t>(tiles_->packed.size());
      tiles_->width[a] = screen.pack(proj.data(), members_.data() + member_offsets_[a],
                                     member_offsets_[a + 1] - member_offsets_[a], tiles_->packed);
      tiles_->max_width = std::max(tiles_->max_width, tiles_->width[a]);
    }
    // The coarse centers' projections (packed like a cell) and residuals.
    std::vector<T> cproj(static_cast<std::size_t>(m * ks));
    {
      std::vector<T> scratch(static_cast<std::size_t>(m * d_));
      screen.project(coarse_.data(), m, scratch.data(), cproj.data());
    }
    tiles_->coarse_norm2.resize(m);
    for (index_t a = 0; a < m; ++a) {
      tiles_->coarse_norm2[a] =
          static_cast<T>(screen.squared_norm_about_mean(coarse_.data() + a * d_));
    }
    tiles_->coarse_proj = std::move(cproj);
    tiles_->member_rows.resize(static_cast<std::size_t>(u_ * d_));
    for (index_t r = 0; r < u_; ++r) {
      std::copy(centers_.data() + members_[r] * d_, centers_.data() + (members_[r] + 1) * d_,
                tiles_->member_rows.data() + r * d_);
    }
    screen_dims_ = ks;
  }
  build_.index_distance_evals = evals;
  build_.index_seconds = clock.seconds();
  build_.n_distance_evals.evaluation = evals;
  build_.timings.evaluation = build_.index_seconds;
}

template <typename T>
std::int64_t CenterCellIndex<T>::screened_nearest(const DataView<T>& data, index_t q0, index_t nb,
                                                  std::int32_t* probes, int k,
                                                  std::int32_t* labels, double* out_d2) const {
  // 1. Per point: its projection onto the screen's axes (with an upper bound
  // of ||x - mean||, for the rounding margin) and the cells it probes (as the
  // matrix-product route, but ranked by an estimate of the squared distance
  // to each coarse center q: ||x - mean||^2 + ||q - mean||^2 - 2 p . p_q with
  // p, p_q the projections, i.e. the subspace distance plus both residuals,
  // their cross term dropped; the dot products by one matrix product per
  // kRows points).
  // 2. The (point, cell) entries grouped by cell, first probes apart from
  // the others; cell by cell (its packed projections stay in L1 while its
  // points are screened), every entry's subspace bounds to the cell's
  // centers, then the full distance (double) of the centers whose bound
  // does not rule them out against the point's best so far. A first probe
  // starts from its smallest bound. Every point's result is the lexicographic
  // minimum of (distance, index) over the centers measured, and a center not
  // measured is provably farther than the result: the exact nearest among
  // the probed cells (ties: the lowest index), as the matrix-product route's,
  // whatever the order of the cells.
  const detail::SubspaceScreen<T>& screen = tiles_->screen;
  const index_t ks = screen_dims_;
  const index_t d = d_;
  const index_t m = n_cells();
  const index_t wq = detail::SubspaceScreen<T>::padded(m);  // the coarse estimates' width
  constexpr index_t kRows = 256;
  T* px = detail::scratch_buffer<T, 3>(nb * ks);
  T* ys = detail::scratch_buffer<T, 4>(kRows * d);
  thread_local std::vector<T> bound;
  thread_local std::vector<std::int32_t> survivors, win, entry_point;
  thread_local std::vector<double> best, xnorm;
  thread_local std::vector<index_t> start, pos;
  thread_local std::vector<std::int32_t> near;
  xnorm.resize(nb);
  for (index_t r0 = 0; r0 < nb; r0 += kRows) {
    screen.project(data.row(q0 + r0), std::min(kRows, nb - r0), ys, px + r0 * ks,
                   xnorm.data() + r0);
  }
  near.resize(wq);  // at_most() stores whole panels
  survivors.resize(tiles_->max_width);
  win.assign(nb, -1);
  best.assign(nb, std::numeric_limits<double>::infinity());
  std::int64_t exact_evals = 0, coords = nb * m * ks;
  T* dots = detail::scratch_buffer<T, 5>(kRows * m);
  if (static_cast<index_t>(bound.size()) < wq) bound.resize(wq);
  std::fill(bound.begin() + m, bound.begin() + wq, std::numeric_limits<T>::infinity());
  const T* qn2 = tiles_->coarse_norm2.data();
  for (index_t i = 0; i < nb; ++i) {
    if (i % kRows == 0) {  // p . q for the next rows and all coarse centers
      detail::RowMap<T>(dots, std::min(kRows, nb - i), m).noalias() =
          detail::ConstRowMap<T>(px + i * ks, std::min(kRows, nb - i), ks) *
          detail::ConstRowMap<T>(tiles_->coarse_proj.data(), m, ks).transpose();
    }
    const T* dot = dots + (i % kRows) * m;
    const T xn2 = static_cast<T>(xnorm[i] * xnorm[i]);
    for (index_t a = 0; a < m; ++a) bound[a] = (xn2 + qn2[a]) - T(2) * dot[a];
    const T lo = detail::SubspaceScreen<T>::smallest(bound.data(), wq);  // padding: +inf
    const T limit = std::isinf(probe_ratio_)
                        ? std::numeric_limits<T>::infinity()
                        : std::max(lo, static_cast<T>(std::max(0.0, static_cast<double>(lo)) *
                                                      probe_ratio_));
    const index_t found = detail::SubspaceScreen<T>::at_most(bound.data(), m, limit, near.data());
    // The k nearest of them (by estimate, ties: the lower cell), nearest first:
    // an insertion sort (a few candidates).
    std::int32_t* out = probes + i * k;
    int kept = 0;
    for (index_t f = 0; f < found; ++f) {
      const std::int32_t a = near[f];
      int at = kept;
      while (at > 0 && bound[a] < bound[out[at - 1]]) --at;  // stable: ties stay in cell order
      if (at >= k) continue;
      for (int q = std::min(kept, k - 1); q > at; --q) out[q] = out[q - 1];
      out[at] = a;
      kept = std::min(kept + 1, k);
    }
    if (kept == 0) out[0] = 0;  // (only for non-finite rows: some cell is always probed)
  }
  // Entries keyed (pass, cell): pass 0 the first probes, pass 1 the others.
  start.assign(2 * m + 1, 0);
  for (index_t i = 0; i < nb; ++i) {
    for (int j = 0; j < k && probes[i * k + j] >= 0; ++j) {
      ++start[(j == 0 ? 0 : m) + probes[i * k + j] + 1];
    }
  }
  for (index_t key = 0; key < 2 * m; ++key) start[key + 1] += start[key];
  entry_point.resize(start[2 * m]);
  pos.assign(start.begin(), start.end() - 1);
  for (index_t i = 0; i < nb; ++i) {
    for (int j = 0; j < k && probes[i * k + j] >= 0; ++j) {
      entry_point[pos[(j == 0 ? 0 : m) + probes[i * k + j]]++] = static_cast<std::int32_t>(i);
    }
  }
  for (index_t key = 0; key < 2 * m; ++key) {
    const index_t a = key % m;
    const index_t w = tiles_->width[a];
    const T* packed = tiles_->packed.data() + tiles_->offset[a];
    const std::int32_t* member = members_.data() + member_offsets_[a];
    const T* rows = tiles_->member_rows.data() + member_offsets_[a] * d;
    const index_t s = member_offsets_[a + 1] - member_offsets_[a];
    if (static_cast<index_t>(bound.size()) < w) bound.resize(w);
    coords += (start[key + 1] - start[key]) * s * ks;
    for (index_t e = start[key]; e < start[key + 1]; ++e) {
      const index_t i = entry_point[e];
      const T* x = data.row(q0 + i);
      if (e + 2 < start[key + 1]) {  // the row two entries ahead, towards L1
        detail::prefetch_bytes(data.row(q0 + entry_point[e + 2]), d * sizeof(T));
      }
      T* own = bound.data();
      screen.bounds(packed, w, px + i * ks, own);
      if (win[i] < 0) {  // a first probe: the smallest bound is measured first
        const index_t t0 = detail::SubspaceScreen<T>::first_smallest(own, w, s);
        win[i] = member[t0];
        best[i] = detail::squared_distance_exact(x, rows + t0 * d, d);
        ++exact_evals;
      }
      exact_evals += screen.lower_nearest(
          x, xnorm[i], own, s, survivors.data(), best[i], win[i],
          [&](index_t t) { return rows + t * d; }, [&](index_t t) { return member[t]; });
    }
  }
  for (index_t i = 0; i < nb; ++i) {
    if (labels) labels[q0 + i] = ids_[win[i]];
    out_d2[q0 + i] = best[i];
  }
  // Cost in distance evaluations: the projection (ks per point), the bounds
  // (ks / d of an evaluation each; the coarse estimates included) and the
  // full distances (float and double ones each count).
  return nb * ks + coords / d + exact_evals;
}

template <typename T>
void CenterCellIndex<T>::set_n_probe(int n_probe) {
  detail::require(n_probe >= 1, "CenterCellIndex::set_n_probe: need n_probe >= 1");
  n_probe_ = static_cast<int>(std::min<index_t>(n_probe, n_cells()));
}

template <typename T>
ApproximateAssignmentStats CenterCellIndex<T>::assign(const DataView<T>& data,
                                                      std::int32_t* labels, double* min_d2,
                                                      int n_threads) const {
  detail::require_query(data, d_, "CenterCellIndex::assign");
  const detail::Stopwatch clock;
  const index_t n = data.n;
  const index_t m = n_cells();
  const index_t d = d_;
  const int k = n_probe_;
  const double ratio = probe_ratio_;
  std::vector<double> local_d2;
  double* out_d2 = min_d2;
  if (!out_d2) {
    local_d2.resize(n);
    out_d2 = local_d2.data();
  }
  const index_t query_block = screen_dims_ > 0 ? kScreenedQueryBlock : query_block_for(n);
  const index_t n_tasks = detail::n_chunks(n, query_block);
  std::vector<std::int64_t> task_evals(n_tasks, 0);
  const auto finish = [&]() {
    std::int64_t evals = 0;
    for (const std::int64_t e : task_evals) evals += e;
    double objective = 0.0;
    for (index_t i = 0; i < n; ++i) objective += data.weight(i) * out_d2[i];  // point order
    return search_stats(objective, evals, clock.seconds());
  };
  if (screen_dims_ > 0) {  // principal-subspace screening, one task per query_block points
    detail::parallel_for(n_tasks, n_threads, [&](index_t task) {
      const index_t q0 = task * query_block;
      const index_t nb = std::min(query_block, n - q0);
      thread_local std::vector<std::int32_t> probes;
      probes.assign(static_cast<std::size_t>(nb) * k, -1);
      task_evals[task] = screened_nearest(data, q0, nb, probes.data(), k, labels, out_d2);
    }, 2.0 * static_cast<double>(query_block) * static_cast<double>(screen_dims_) *
           (static_cast<double>(d) + 4.0 * static_cast<double>(tiles_->max_width)));
    return finish();
  }
  const detail::CenterTiles<T>& coarse = *tiles_->coarse;
  const index_t block = coarse.row_block();  // the cells' tiles have the same (it depends on d)
  // One task per query_block consecutive points, self-contained: the cells
  // each point probes, its (point, cell) entries grouped by cell, one matrix
  // product per (cell, block of entries), each point's nearest among its
  // cells. Task boundaries depend on n only.
  const double mean_cell = static_cast<double>(u_) / static_cast<double>(m);
  struct TaskBuffers {
    std::vector<std::int32_t> probes, entry_label;
    std::vector<index_t> start, pos, entry_point, entry_of;
    std::vector<double> entry_d2, entry_estimate, entry_error;
    std::vector<const T*> entry_center;
    std::vector<float> coarse_d;  // (block, m) distances to the coarse centers
    std::vector<std::pair<float, std::int32_t>> near_cells;
    std::vector<detail::NearestCandidates<T>> near;
  };
  detail::parallel_for(n_tasks, n_threads, [&](index_t task) {
    constexpr index_t kMaxRowBlock = detail::CenterTiles<T>::kMaxRowBlock;
    const index_t q0 = task * query_block;
    const index_t nb = std::min(query_block, n - q0);
    // The thread's buffers, bound once (each use of a thread_local by name
    // is a TLS lookup in a shared library).
    thread_local TaskBuffers tls;
    std::vector<std::int32_t>& probes = tls.probes;
    std::vector<std::int32_t>& entry_label = tls.entry_label;
    std::vector<index_t>& start = tls.start;
    std::vector<index_t>& pos = tls.pos;
    std::vector<index_t>& entry_point = tls.entry_point;
    std::vector<index_t>& entry_of = tls.entry_of;
    std::vector<double>& entry_d2 = tls.entry_d2;
    std::vector<double>& entry_estimate = tls.entry_estimate;
    std::vector<double>& entry_error = tls.entry_error;
    std::vector<const T*>& entry_center = tls.entry_center;
    std::vector<float>& coarse_d = tls.coarse_d;
    std::vector<std::pair<float, std::int32_t>>& near_cells = tls.near_cells;
    std::vector<detail::NearestCandidates<T>>& near = tls.near;
    coarse_d.resize(static_cast<std::size_t>(block) * m);
    near.resize(kMaxRowBlock);
    probes.assign(static_cast<std::size_t>(nb) * k, -1);
    std::int64_t evals = nb * m;
    // 1. The cells every point probes: among its n_probe nearest coarse
    // centers (matrix products, distances in T), those within `ratio` of the
    // nearest; ties: the lower cell.
    for (index_t r0 = 0; r0 < nb; r0 += block) {
      const index_t nrows = std::min(block, nb - r0);
      T xs2[kMaxRowBlock];
      coarse.for_each_tile(data.row(q0 + r0), nrows,
                           [&](index_t j0, index_t ncols, const T* p, index_t ld) {
        // Every row's distances to all m coarse centers, then (after the last
        // tile) those within the ratio of the nearest, at most k, nearest first.
        for (index_t i = 0; i < nrows; ++i) {
          const T* row = p + i * ld;
          float* dist = coarse_d.data() + i * m + j0;
          const float x2 = static_cast<float>(xs2[i]);
          for (index_t j = 0; j < ncols; ++j) dist[j] = static_cast<float>(row[j]) + x2;
        }
        if (j0 + ncols < m) return;
        for (index_t i = 0; i < nrows; ++i) {
          const float* dist = coarse_d.data() + i * m;
          const float lo = smallest_of(dist, m);
          const double limit = std::isinf(ratio) ? std::numeric_limits<double>::infinity()
                                                 : std::max(0.0, static_cast<double>(lo)) * ratio;
          // The k smallest (distance, cell) pairs by insertion (k is small).
          // Once k are kept, only a distance below the k-th can enter (the
          // cells come in increasing order): runs of kSkip cells without one
          // are passed over by a comparison count, which vectorizes.
          constexpr index_t kSkip = 16;
          auto& cand = near_cells;
          cand.clear();
          for (index_t j0c = 0; j0c < m; j0c += kSkip) {
            const index_t j1c = std::min(m, j0c + kSkip);
            if (static_cast<int>(cand.size()) == k) {
              const float worst = cand.back().first;
              int below = 0;
              for (index_t j = j0c; j < j1c; ++j) below += dist[j] < worst;
              if (below == 0) continue;
            }
            for (index_t j = j0c; j < j1c; ++j) {
              if (!(dist[j] <= lo || static_cast<double>(dist[j]) <= limit)) continue;
              const std::pair<float, std::int32_t> e(dist[j], static_cast<std::int32_t>(j));
              if (static_cast<int>(cand.size()) == k) {
                if (!(e < cand.back())) continue;
                cand.pop_back();
              }
              cand.insert(std::upper_bound(cand.begin(), cand.end(), e), e);
            }
          }
          std::int32_t* out = probes.data() + (r0 + i) * k;
          for (std::size_t j = 0; j < cand.size(); ++j) out[j] = cand[j].second;
        }
      }, xs2);
    }
    // 2. The (point, cell) entries grouped by cell (counting sort; ascending
    // point within a cell).
    start.assign(m + 1, 0);
    for (index_t e = 0; e < nb * k; ++e) {
      if (probes[e] >= 0) ++start[probes[e] + 1];
    }
    for (index_t a = 0; a < m; ++a) start[a + 1] += start[a];
    const index_t n_entries = start[m];
    entry_point.resize(n_entries);
    entry_of.resize(static_cast<std::size_t>(nb) * k);
    entry_label.resize(n_entries);
    entry_d2.resize(n_entries);
    entry_estimate.resize(n_entries);
    entry_error.resize(n_entries);
    entry_center.resize(n_entries);
    pos.assign(start.begin(), start.end() - 1);
    for (index_t i = 0; i < nb; ++i) {
      for (int j = 0; j < k; ++j) {
        const std::int32_t a = probes[i * k + j];
        if (a < 0) break;
        entry_of[i * k + j] = pos[a];
        entry_point[pos[a]++] = i;
      }
    }
    // 3. Per cell, blocks of at most row_block() entries, each one matrix
    // product per tile of the cell's centers: every entry gets the exact
    // nearest center of its cell (ties: lowest index). Its exact double
    // distance waits for step 4 where a single candidate was within the
    // rounding band (entry_d2 < 0: only the estimate and its error bound).
    for (index_t a = 0; a < m; ++a) {
      if (start[a + 1] == start[a]) continue;
      const detail::CenterTiles<T>& tiles = tiles_->cells[a];
      const std::int32_t* member = members_.data() + member_offsets_[a];
      evals += (start[a + 1] - start[a]) * (member_offsets_[a + 1] - member_offsets_[a]);
      for (index_t b = start[a]; b < start[a + 1]; b += block) {
        const index_t nrows = std::min(block, start[a + 1] - b);
        const auto row = [&](index_t r) { return data.row(q0 + entry_point[b + r]); };
        T xs2[kMaxRowBlock];
        bool started = false;
        tiles.for_each_tile_of(row, nrows, [&](index_t j0, index_t ncols, const T* p,
                                               index_t ld) {
          if (!started) {
            for (index_t i = 0; i < nrows; ++i) near[i].reset(tiles, row(i), 1, xs2[i]);
            started = true;
          }
          for (index_t i = 0; i < nrows; ++i) near[i].offer(j0, p + i * ld, ncols);
        }, xs2);
        for (index_t i = 0; i < nrows; ++i) {
          const index_t e = b + i;
          if (near[i].settled()) {
            entry_label[e] = member[near[i].only()];
            entry_center[e] = tiles.center(near[i].only());
            entry_estimate[e] = near[i].estimate();
            entry_error[e] = near[i].estimate_error();
            entry_d2[e] = -1.0;
            continue;
          }
          std::int32_t j = -1;
          double dist = 0.0;
          near[i].resolve(&j, &dist);
          entry_label[e] = member[j];
          entry_d2[e] = entry_estimate[e] = dist;
          entry_error[e] = 0.0;
        }
      }
    }
    // 4. Every point's nearest among its probed cells (ties: lowest index),
    // by exact distances; an entry whose estimate lies provably above
    // another's is not measured (it cannot win nor tie).
    for (index_t i = 0; i < nb; ++i) {
      double high = std::numeric_limits<double>::infinity();
      for (int j = 0; j < k && probes[i * k + j] >= 0; ++j) {
        const index_t e = entry_of[i * k + j];
        high = std::min(high, entry_estimate[e] + entry_error[e]);
      }
      double best = std::numeric_limits<double>::infinity();
      std::int32_t win = -1;
      for (int j = 0; j < k; ++j) {
        if (probes[i * k + j] < 0) break;
        const index_t e = entry_of[i * k + j];
        if (entry_estimate[e] - entry_error[e] > high) continue;
        if (entry_d2[e] < 0.0) {
          entry_d2[e] = detail::squared_distance_exact(data.row(q0 + i), entry_center[e], d);
        }
        if (entry_d2[e] < best || (entry_d2[e] == best && entry_label[e] < win)) {
          best = entry_d2[e];
          win = entry_label[e];
        }
      }
      if (labels) labels[q0 + i] = ids_[win];
      out_d2[q0 + i] = best;
    }
    task_evals[task] = evals;
  }, 2.0 * static_cast<double>(d) * static_cast<double>(query_block) *
         (static_cast<double>(m) + 3.0 * mean_cell));
  return finish();
}

namespace {

template <class Index, typename T>
ApproximateAssignmentStats build_and_assign(const DataView<T>& data, const T* centers,
                                            index_t n_centers,
                                            const ApproximateAssignmentParams& params,
                                            std::int32_t* labels, double* min_d2, int n_threads) {
  const Index index(centers, n_centers, data.d, params, n_threads);
  ApproximateAssignmentStats stats = index.assign(data, labels, min_d2, n_threads);
  stats.index_distance_evals = index.build_stats().index_distance_evals;
  stats.index_seconds = index.build_stats().index_seconds;
  stats.n_distance_evals.evaluation += stats.index_distance_evals;
  stats.timings.evaluation += stats.index_seconds;
  return stats;
}

}  // namespace

template <typename T>
ApproximateAssignmentStats assign_approximate(const DataView<T>& data, const T* centers,
                                              index_t n_centers,
                                              const ApproximateAssignmentParams& params,
                                              std::int32_t* labels, double* min_d2,
                                              int n_threads) {
  detail::require_data(data, "assign_approximate", /*allow_zero_weights=*/true);
  detail::require_approximate_params(params, "assign_approximate");
  if (params.method == ApproximateMethod::graph) {
    return build_and_assign<CenterGraphIndex<T>>(data, centers, n_centers, params, labels, min_d2,
                                                 n_threads);
  }
  return build_and_assign<CenterCellIndex<T>>(data, centers, n_centers, params, labels, min_d2,
                                              n_threads);
}

template class CenterCellIndex<float>;
template class CenterCellIndex<double>;
template class CenterGraphIndex<float>;
template class CenterGraphIndex<double>;
template ApproximateAssignmentStats assign_approximate<float>(
    const DataView<float>&, const float*, index_t, const ApproximateAssignmentParams&,
    std::int32_t*, double*, int);
template ApproximateAssignmentStats assign_approximate<double>(
    const DataView<double>&, const double*, index_t, const ApproximateAssignmentParams&,
    std::int32_t*, double*, int);

}  // namespace vcgmm
