#include "vcgmm/variational_gmm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <vector>

#include "blocked_distances.hpp"
#include "parallel.hpp"
#include "pipeline.hpp"
#include "random.hpp"
#include "validation.hpp"

namespace vcgmm {

namespace {

constexpr index_t kPointsPerTask = 512;      // E-step task size (fixed: determinism)
constexpr index_t kClustersPerTask = 64;     // neighbourhood / M-step task size
constexpr index_t kMaxBlockPoints = 65536;   // points per E-step block
constexpr index_t kBlockBufferEntries = index_t(1) << 22;  // candidates buffered per block
constexpr double kPi = 3.14159265358979323846;

/// Running sum and count of the Euclidean distances from the points won by
/// one cluster to one candidate cluster.
struct NeighbourStat {
  std::int32_t candidate;
  std::int32_t count;
  double sum;
};

}  // namespace

template <typename T>
struct VariationalGmm<T>::Impl {
  DataView<T> data;
  index_t N, D, C;
  int G;
  bool full;  // G == C: every set holds all clusters (exact EM)
  VariationalGmmParams params;

  std::vector<T> means;          // (C, D)
  std::vector<std::int32_t> K;   // (N, G), nearest first after an E-step
  std::vector<double> resp;      // (N, G) responsibilities of the last E-step
  std::vector<std::int32_t> Gc;  // (C, G), c first
  double sigma2 = 0.0;
  bool has_sigma = false;
  bool has_resp = false;

  double w_total = 0.0;
  detail::Vector<double> ybar;   // weighted mean of the data
  std::vector<double> yc2;       // ||y_n - ybar||^2
  double sigma2_floor = 0.0;

  std::int64_t n_evals = 0;
  std::int64_t n_esteps = 0;     // E-steps run (keys the "+1" random streams)
  std::vector<std::int64_t> estep_evals;

  // Neighbourhood statistics, one list per winning cluster.
  std::vector<std::vector<NeighbourStat>> stats;
  std::vector<char> won;         // cluster won at least one point this E-step
  // Candidates and their Euclidean distances of the current block's points.
  index_t block_points = 0;
  index_t stride = 0;            // buffer slots per point: G*G (+1)
  std::vector<std::int32_t> buf_cand;
  std::vector<float> buf_dist;
  std::vector<std::int32_t> buf_count;
  std::vector<std::int32_t> winner;  // (block_points,) c_o of the block's points

  Impl(const DataView<T>& data_, index_t C_, const T* means_, const VariationalGmmParams& p)
      : data(data_), N(data_.n), D(data_.d), C(C_), params(p) {
    detail::require_data(data, "VariationalGmm");
    detail::require_clusters(C, N, "VariationalGmm");
    detail::require(means_ != nullptr, "VariationalGmm: means is a null pointer");
    detail::require(p.G >= 1, "VariationalGmm: G must be >= 1");
    detail::require(p.n_init_estep >= 0, "VariationalGmm: n_init_estep must be >= 0");
    detail::require(p.max_iter >= 1, "VariationalGmm: max_iter must be >= 1");
    detail::require(p.tol >= 0.0 && std::isfinite(p.tol), "VariationalGmm: tol must be >= 0");
    G = static_cast<int>(std::min<index_t>(p.G, C));
    full = G == C;
    means.assign(means_, means_ + C * D);
    K.resize(N * G);
    resp.resize(N * G);
    Gc.resize(C * G);
    init_data_statistics();
    init_sets();
    if (!full) {
      stride = static_cast<index_t>(G) * G + (params.plus1 ? 1 : 0);
      block_points = std::clamp<index_t>(kBlockBufferEntries / stride, kPointsPerTask,
                                         kMaxBlockPoints);
      block_points -= block_points % kPointsPerTask;
      block_points = std::min(block_points, N);
      buf_cand.resize(block_points * stride);
      buf_dist.resize(block_points * stride);
      buf_count.resize(block_points);
      winner.resize(block_points);
      stats.resize(C);
      won.resize(C);
    }
  }

  // Weighted mean, ||y - ybar||^2 (for the M-step's variance) and the floor
  // of sigma^2 relative to the data variance.
  void init_data_statistics() {
    const index_t n_tasks = detail::n_chunks(N, 16384);
    detail::RowMatrix<double> part(n_tasks, D);
    std::vector<double> part_w(n_tasks);
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
      const index_t r0 = t * 16384, r1 = std::min(N, r0 + 16384);
      detail::Vector<double> acc = detail::Vector<double>::Zero(D);
      double w = 0.0;
      for (index_t i = r0; i < r1; ++i) {
        acc += data.weight(i) * detail::ConstVectorMap<T>(data.row(i), D).template cast<double>();
        w += data.weight(i);
      }
      part.row(t) = acc.transpose();
      part_w[t] = w;
    }, 2.0 * 16384 * D);
    ybar = detail::Vector<double>::Zero(D);
    for (index_t t = 0; t < n_tasks; ++t) {
      ybar += part.row(t).transpose();
      w_total += part_w[t];
    }
    ybar /= w_total;
    yc2.resize(N);
    std::vector<double> part_var(n_tasks);
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
      const index_t r0 = t * 16384, r1 = std::min(N, r0 + 16384);
      double s = 0.0;
      for (index_t i = r0; i < r1; ++i) {
        yc2[i] = (detail::ConstVectorMap<T>(data.row(i), D).template cast<double>() - ybar)
                     .squaredNorm();
        s += data.weight(i) * yc2[i];
      }
      part_var[t] = s;
    }, 3.0 * 16384 * D);
    double var = 0.0;
    for (double s : part_var) var += s;
    var /= (w_total * static_cast<double>(D));
    // sigma^2 floor: 1e-12 of the data variance, but not below the squared
    // resolution of T at the data's magnitude (a variance smaller than that
    // is rounding noise; this keeps degenerate, e.g. constant, data finite).
    const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
    const double mean_square = var + ybar.squaredNorm() / static_cast<double>(D);
    sigma2_floor = std::max({1e-12 * var, (16.0 * eps) * (16.0 * eps) * mean_square, 1e-300});
  }

  // K(n): G distinct random clusters; G_c: c and G-1 distinct random others.
  void init_sets() {
    if (full) {
      for (index_t n = 0; n < N; ++n) std::iota(&K[n * G], &K[n * G] + G, 0);
      for (index_t c = 0; c < C; ++c) std::iota(&Gc[c * G], &Gc[c * G] + G, 0);
      return;
    }
    const index_t n_tasks = detail::n_chunks(N, kPointsPerTask);
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
      detail::Rng rng(params.seed, detail::Stream::variational_init, static_cast<std::uint64_t>(t));
      const index_t r0 = t * kPointsPerTask, r1 = std::min(N, r0 + kPointsPerTask);
      for (index_t n = r0; n < r1; ++n) draw_distinct(rng, &K[n * G], 0, -1);
    }, 10.0 * kPointsPerTask * G);
    detail::Rng rng(params.seed, detail::Stream::variational_neighbourhood);
    for (index_t c = 0; c < C; ++c) {
      Gc[c * G] = static_cast<std::int32_t>(c);
      draw_distinct(rng, &Gc[c * G], 1, static_cast<std::int32_t>(c));
    }
  }

  // Fills out[first..G) with distinct clusters, none equal to out[0..first)
  // (rejection; G < C here, and G is small in practice).
  void draw_distinct(detail::Rng& rng, std::int32_t* out, int first, std::int32_t) const {
    for (int g = first; g < G; ++g) {
      std::int32_t c;
      bool dup;
      do {
        c = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(C)));
        dup = false;
        for (int h = 0; h < g; ++h) dup |= out[h] == c;
      } while (dup);
      out[g] = c;
    }
  }

  // Responsibilities of point n from its G squared distances (nearest first,
  // stored in resp on input); returns its log-sum-exp term of F.
  double responsibilities(index_t n) {
    double* r = &resp[n * G];
    const double dmin = r[0];
    const double scale = 0.5 / sigma2;
    double sum = 0.0;
    for (int g = 0; g < G; ++g) {
      r[g] = std::exp(-(r[g] - dmin) * scale);
      sum += r[g];
    }
    for (int g = 0; g < G; ++g) r[g] /= sum;
    return -dmin * scale + std::log(sum);
  }

  double log_normaliser() const {
    return std::log(static_cast<double>(C)) +
           0.5 * static_cast<double>(D) * std::log(2.0 * kPi * sigma2);
  }

  double e_step(bool estimate_sigma) {
    estimate_sigma = estimate_sigma || !has_sigma;
    const index_t block = full ? N : block_points;
    const index_t n_blocks = detail::n_chunks(N, block);
    const index_t tasks_total = detail::n_chunks(N, kPointsPerTask);
    std::vector<double> task_lse(tasks_total, 0.0), task_min(tasks_total, 0.0);
    std::vector<std::int64_t> task_evals(tasks_total, 0);
    if (!full) std::fill(won.begin(), won.end(), 0);
    const std::uint64_t stream_base = static_cast<std::uint64_t>(n_esteps) << 32;

    for (index_t b = 0; b < n_blocks; ++b) {
      const index_t b0 = b * block, b1 = std::min(N, b0 + block);
      const index_t task0 = b0 / kPointsPerTask;
      const index_t n_tasks = detail::n_chunks(b1 - b0, kPointsPerTask);
      detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
        const index_t p0 = b0 + t * kPointsPerTask, p1 = std::min(b1, p0 + kPointsPerTask);
        const index_t task = task0 + t;
        search_task(p0, p1, b0, task, stream_base, estimate_sigma, &task_lse[task],
                    &task_min[task], &task_evals[task]);
      }, 3.0 * kPointsPerTask * (full ? C : stride) * D);
      if (!full) fold_block(b0, b1, b);
    }

    std::int64_t evals = 0;
    double min_sum = 0.0, lse_sum = 0.0;
    for (index_t t = 0; t < tasks_total; ++t) {
      evals += task_evals[t];
      min_sum += task_min[t];
      lse_sum += task_lse[t];
    }
    n_evals += evals;
    estep_evals.push_back(evals);
    ++n_esteps;

    if (estimate_sigma) {  // eq. 12, then the responsibilities with it
      sigma2 = std::max(min_sum / (static_cast<double>(D) * w_total), sigma2_floor);
      has_sigma = true;
      std::vector<double> part(tasks_total, 0.0);
      detail::parallel_for(tasks_total, params.n_threads, [&](index_t t) {
        const index_t p0 = t * kPointsPerTask, p1 = std::min(N, p0 + kPointsPerTask);
        double s = 0.0;
        for (index_t n = p0; n < p1; ++n) s += data.weight(n) * responsibilities(n);
        part[t] = s;
      }, 30.0 * kPointsPerTask * G);
      lse_sum = 0.0;
      for (double s : part) lse_sum += s;
    }
    has_resp = true;
    if (!full) update_neighbourhoods();
    return lse_sum - w_total * log_normaliser();
  }

  // The E-step for points [p0, p1) of the block starting at b0.
  void search_task(index_t p0, index_t p1, index_t b0, index_t task, std::uint64_t stream_base,
                   bool defer_resp, double* lse_out, double* min_out, std::int64_t* evals_out) {
    const index_t max_cand = full ? C : stride;
    std::vector<std::int32_t> cand(max_cand);
    std::vector<double> d2(max_cand);
    std::vector<index_t> mark(full ? 0 : C, -1);
    detail::Rng rng(params.seed, detail::Stream::variational_plus1,
                    stream_base | static_cast<std::uint64_t>(task));
    double lse = 0.0, min_sum = 0.0;
    std::int64_t evals = 0;
    for (index_t n = p0; n < p1; ++n) {
      // Search space S(n).
      index_t m = 0;
      if (full) {
        for (index_t c = 0; c < C; ++c) cand[m++] = static_cast<std::int32_t>(c);
      } else {
        const std::int32_t* kn = &K[n * G];
        for (int g = 0; g < G; ++g) {
          const std::int32_t* gc = &Gc[static_cast<index_t>(kn[g]) * G];
          for (int h = 0; h < G; ++h) {
            const std::int32_t c = gc[h];
            if (mark[c] != n) {
              mark[c] = n;
              cand[m++] = c;
            }
          }
        }
        if (params.plus1) {
          const auto c = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(C)));
          if (mark[c] != n) {
            mark[c] = n;
            cand[m++] = c;
          }
        }
      }
      // Distances, keeping the G nearest sorted by insertion (ties: lower
      // cluster index); G is small, so this beats a heap.
      const T* y = data.row(n);
      std::int32_t* kn = &K[n * G];
      double* rn = &resp[n * G];
      int kept = 0;
      for (index_t j = 0; j < m; ++j) {
        const double dj = static_cast<double>(detail::squared_distance(y, &means[cand[j] * D], D));
        d2[j] = dj;
        const std::int32_t cj = cand[j];
        if (kept == G && !(dj < rn[G - 1] || (dj == rn[G - 1] && cj < kn[G - 1]))) continue;
        int pos = kept < G ? kept++ : G - 1;
        while (pos > 0 && (dj < rn[pos - 1] || (dj == rn[pos - 1] && cj < kn[pos - 1]))) {
          rn[pos] = rn[pos - 1];
          kn[pos] = kn[pos - 1];
          --pos;
        }
        rn[pos] = dj;
        kn[pos] = cj;
      }
      evals += m;
      min_sum += data.weight(n) * rn[0];
      if (!defer_resp) lse += data.weight(n) * responsibilities(n);
      if (!full) {  // keep the search space for the neighbourhood update
        const index_t slot = n - b0;
        std::int32_t* bc = &buf_cand[slot * stride];
        float* bd = &buf_dist[slot * stride];
        for (index_t j = 0; j < m; ++j) {
          bc[j] = cand[j];
          bd[j] = static_cast<float>(std::sqrt(d2[j]));
        }
        buf_count[slot] = static_cast<std::int32_t>(m);
        winner[slot] = kn[0];
      }
    }
    *lse_out = lse;
    *min_out = min_sum;
    *evals_out = evals;
  }

  // Adds the block's search spaces to the statistics of their winners:
  // clusters in parallel, each cluster's points in index order (so the sums
  // do not depend on the thread count).
  void fold_block(index_t b0, index_t b1, index_t block_index) {
    const index_t nb = b1 - b0;
    std::vector<index_t> offsets(C + 1, 0), order(nb);
    for (index_t s = 0; s < nb; ++s) ++offsets[winner[s] + 1];
    for (index_t c = 0; c < C; ++c) offsets[c + 1] += offsets[c];
    {
      std::vector<index_t> next(offsets.begin(), offsets.end() - 1);
      for (index_t s = 0; s < nb; ++s) order[next[winner[s]]++] = s;
    }
    const index_t n_tasks = detail::n_chunks(C, kClustersPerTask);
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
      std::vector<std::int32_t> pos(C, -1);  // candidate -> index in the cluster's list
      const index_t c0 = t * kClustersPerTask, c1 = std::min(C, c0 + kClustersPerTask);
      for (index_t c = c0; c < c1; ++c) {
        if (offsets[c] == offsets[c + 1]) continue;
        won[c] = 1;
        std::vector<NeighbourStat>& list = stats[c];
        for (std::size_t i = 0; i < list.size(); ++i) pos[list[i].candidate] = static_cast<std::int32_t>(i);
        for (index_t k = offsets[c]; k < offsets[c + 1]; ++k) {
          const index_t s = order[k];
          const std::int32_t* bc = &buf_cand[s * stride];
          const float* bd = &buf_dist[s * stride];
          for (std::int32_t j = 0; j < buf_count[s]; ++j) {
            const std::int32_t cand = bc[j];
            if (cand == c) continue;
            if (pos[cand] < 0) {
              pos[cand] = static_cast<std::int32_t>(list.size());
              list.push_back({cand, 1, static_cast<double>(bd[j])});
            } else {
              NeighbourStat& st = list[pos[cand]];
              ++st.count;
              st.sum += static_cast<double>(bd[j]);
            }
          }
        }
        for (const NeighbourStat& st : list) pos[st.candidate] = -1;
      }
    }, 4.0 * kClustersPerTask * stride * (static_cast<double>(nb) / static_cast<double>(C) + 4.0));
    (void)block_index;
  }

  // G_c = c followed by the G - 1 candidates of smallest mean distance.
  void update_neighbourhoods() {
    const index_t n_tasks = detail::n_chunks(C, kClustersPerTask);
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
      const index_t c0 = t * kClustersPerTask, c1 = std::min(C, c0 + kClustersPerTask);
      std::vector<std::pair<double, std::int32_t>> scored;
      for (index_t c = c0; c < c1; ++c) {
        std::vector<NeighbourStat>& list = stats[c];
        if (!won[c]) continue;  // no point won by c: G_c stays
        scored.clear();
        for (const NeighbourStat& st : list) scored.emplace_back(st.sum / st.count, st.candidate);
        const int keep = std::min<int>(G - 1, static_cast<int>(scored.size()));
        std::partial_sort(scored.begin(), scored.begin() + keep, scored.end());
        std::int32_t* gc = &Gc[c * G];
        gc[0] = static_cast<std::int32_t>(c);
        for (int g = 0; g < keep; ++g) gc[1 + g] = scored[g].second;
        // (keep < G - 1 cannot happen: the winner's search space holds >= G clusters.)
        list.clear();
      }
    }, 40.0 * kClustersPerTask * stride);
  }

  void m_step() {
    detail::require(has_resp, "VariationalGmm: m_step needs a preceding e_step");
    // Every task owns a contiguous range of clusters and scans all points in
    // order, accumulating the (point, cluster) pairs of its own clusters. So
    // each cluster's sums are taken in ascending point order on one thread
    // (results do not depend on the thread count, whatever the ownership),
    // the rows stream sequentially, and the accumulators exist once (no
    // per-thread C x D copies).
    //
    // Per cluster: mass m_c, first moment about ybar and the weighted sum of
    // ||y - ybar||^2 (precomputed per point), so that
    //   sum_n w s ||y_n - mu_c||^2 = sum w s ||y_n - ybar||^2 - m_c ||mu_c - ybar||^2
    // gives sigma^2 without another pass over the distances. Centering on
    // ybar keeps that difference well conditioned for data far from 0 and
    // the means of constant data exact.
    const int n_owners = static_cast<int>(std::min<index_t>(detail::resolve_threads(params.n_threads), C));
    detail::RowMatrix<double> acc = detail::RowMatrix<double>::Zero(C, D);
    std::vector<double> mass(C, 0.0), second(C, 0.0);
    detail::parallel_for(n_owners, n_owners, [&](index_t owner) {
      const std::int32_t c0 = static_cast<std::int32_t>(C * owner / n_owners);
      const std::int32_t c1 = static_cast<std::int32_t>(C * (owner + 1) / n_owners);
      for (index_t n = 0; n < N; ++n) {
        const std::int32_t* kn = &K[n * G];
        const double* rn = &resp[n * G];
        const double wn = data.weight(n);
        for (int g = 0; g < G; ++g) {
          const std::int32_t c = kn[g];
          if (c < c0 || c >= c1) continue;
          const double ws = wn * rn[g];
          if (ws == 0.0) continue;
          detail::add_scaled_difference_to_double(acc.data() + c * D, ws, data.row(n), ybar.data(), D);
          mass[c] += ws;
          second[c] += ws * yc2[n];
        }
      }
    }, 4.0 * static_cast<double>(N) * G * D / n_owners);

    const index_t n_tasks = detail::n_chunks(C, kClustersPerTask);
    std::vector<double> task_var(n_tasks, 0.0);
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
      const index_t c0 = t * kClustersPerTask, c1 = std::min(C, c0 + kClustersPerTask);
      double var = 0.0;
      for (index_t c = c0; c < c1; ++c) {
        if (!(mass[c] > 0.0)) continue;  // zero mass: the mean stays
        auto mu = acc.row(c);
        mu /= mass[c];  // mu_c - ybar
        detail::VectorMap<T>(&means[c * D], D) = (mu.transpose() + ybar).template cast<T>();
        var += std::max(0.0, second[c] - mass[c] * mu.squaredNorm());
      }
      task_var[t] = var;
    }, 4.0 * kClustersPerTask * D);
    double var = 0.0;
    for (double v : task_var) var += v;
    sigma2 = std::max(var / (static_cast<double>(D) * w_total), sigma2_floor);
  }

  double free_energy() const {
    detail::require(has_sigma, "VariationalGmm: free_energy needs sigma^2 (run an e_step first)");
    const index_t n_tasks = detail::n_chunks(N, kPointsPerTask);
    std::vector<double> part(n_tasks, 0.0);
    const double scale = 0.5 / sigma2;
    detail::parallel_for(n_tasks, params.n_threads, [&](index_t t) {
      const index_t p0 = t * kPointsPerTask, p1 = std::min(N, p0 + kPointsPerTask);
      double s = 0.0;
      std::vector<double> d2(G);
      for (index_t n = p0; n < p1; ++n) {
        double dmin = std::numeric_limits<double>::infinity();
        for (int g = 0; g < G; ++g) {
          d2[g] = static_cast<double>(
              detail::squared_distance(data.row(n), &means[static_cast<index_t>(K[n * G + g]) * D], D));
          dmin = std::min(dmin, d2[g]);
        }
        double sum = 0.0;
        for (int g = 0; g < G; ++g) sum += std::exp(-(d2[g] - dmin) * scale);
        s += data.weight(n) * (-dmin * scale + std::log(sum));
      }
      part[t] = s;
    }, 3.0 * kPointsPerTask * G * D);
    double lse = 0.0;
    for (double s : part) lse += s;
    return lse - w_total * log_normaliser();
  }

  VariationalGmmResult fit() {
    detail::Stopwatch clock;
    VariationalGmmResult result;
    double previous = NAN;
    for (int it = 1; it <= params.max_iter; ++it) {
      detail::check_interrupt();
      double F;
      if (it == 1) {
        for (int k = 0; k < params.n_init_estep; ++k) e_step(true);
        F = e_step(true);
      } else {
        F = e_step(false);
      }
      m_step();
      result.free_energy.push_back(F);
      result.n_iter = it;
      const double change = std::abs(F - previous) / std::abs(F);
      char change_text[32] = "-";
      if (it > 1) std::snprintf(change_text, sizeof change_text, "%.3g", change);
      detail::log_line(params.log,
                       "vc-gmm iter %4d  free energy %.10g  rel. change %s  sigma2 %.6g  "
                       "distances %lld  (%.2f s)",
                       it, F, change_text, sigma2, static_cast<long long>(estep_evals.back()),
                       clock.seconds());
      if (it > 1 && params.tol > 0.0 && change < params.tol) {
        result.converged = true;
        break;
      }
      previous = F;
    }
    result.sigma2 = sigma2;
    result.estep_distance_evals = estep_evals;
    result.n_distance_evals = n_evals;
    result.seconds = clock.seconds();
    return result;
  }
};

template <typename T>
VariationalGmm<T>::VariationalGmm(const DataView<T>& data, index_t n_components, const T* means,
                                  const VariationalGmmParams& params)
    : impl_(std::make_unique<Impl>(data, n_components, means, params)) {}

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
VariationalGmmResult VariationalGmm<T>::fit() {
  return impl_->fit();
}

template <typename T>
index_t VariationalGmm<T>::n_components() const {
  return impl_->C;
}
template <typename T>
int VariationalGmm<T>::G() const {
  return impl_->G;
}
template <typename T>
const T* VariationalGmm<T>::means() const {
  return impl_->means.data();
}
template <typename T>
double VariationalGmm<T>::sigma2() const {
  return impl_->sigma2;
}
template <typename T>
const std::int32_t* VariationalGmm<T>::truncation_sets() const {
  return impl_->K.data();
}
template <typename T>
const std::int32_t* VariationalGmm<T>::neighbourhoods() const {
  return impl_->Gc.data();
}
template <typename T>
std::int64_t VariationalGmm<T>::n_distance_evals() const {
  return impl_->n_evals;
}

template class VariationalGmm<float>;
template class VariationalGmm<double>;

}  // namespace vcgmm
