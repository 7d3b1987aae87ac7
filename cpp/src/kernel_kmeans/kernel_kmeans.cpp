#include "vcgmm/kernel_kmeans.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_set>
#include <vector>

#include "detail/blocked_scan.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/sampling.hpp"
#include "detail/validation.hpp"
#include "kernel_kmeans/centers.hpp"
#include "kernel_kmeans/checks.hpp"
#include "kernel_kmeans/kernel_tiles.hpp"

namespace vcgmm {

namespace detail {

namespace {

const char* algorithm_name(KernelKMeansAlgorithm a) {
  switch (a) {
    case KernelKMeansAlgorithm::truncated:
      return "truncated mini-batch";
    case KernelKMeansAlgorithm::minibatch:
      return "mini-batch";
    case KernelKMeansAlgorithm::full:
      return "full-batch";
  }
  return "?";
}

// ---------------------------------------------------------------------------
// gamma heuristic and kernel k-means++
// ---------------------------------------------------------------------------

template <typename T>
double gamma_heuristic(const DataView<T>& data, KernelType type, const RunOptions& run,
                       std::int64_t* n_pairs) {
  const index_t n = data.n, d = data.d;
  const index_t s = std::min<index_t>(n, 1000);
  // Floyd's sampling without replacement, then sorted: the rows depend on
  // the seed only.
  Rng rng(run.seed, Stream::kernel_gamma);
  std::unordered_set<index_t> chosen;
  std::vector<index_t> rows;
  for (index_t j = n - s; j < n; ++j) {
    const index_t t = static_cast<index_t>(rng.below(static_cast<std::uint64_t>(j + 1)));
    const index_t pick = chosen.count(t) ? j : t;
    chosen.insert(pick);
    rows.push_back(pick);
  }
  std::sort(rows.begin(), rows.end());
  const index_t np = s * (s - 1) / 2;
  *n_pairs = np;
  if (np == 0) return 1.0;
  std::vector<double> dist(static_cast<size_t>(np));
  parallel_for(s, run.n_threads, [&](index_t i) {
    const index_t off = i * (2 * s - i - 1) / 2;  // pairs (i, j > i) start here
    const T* xi = data.row(rows[i]);
    for (index_t j = i + 1; j < s; ++j) {
      const T* xj = data.row(rows[j]);
      double v;
      if (type == KernelType::laplacian) {
        v = 0.0;
        for (index_t c = 0; c < d; ++c) {
          v += std::abs(static_cast<double>(xi[c]) - static_cast<double>(xj[c]));
        }
      } else {
        v = squared_distance_exact(xi, xj, d);
      }
      dist[off + j - i - 1] = v;
    }
  }, 3.0 * s * d);
  auto mid = dist.begin() + np / 2;
  std::nth_element(dist.begin(), mid, dist.end());
  double med = *mid;
  if (np % 2 == 0) med = 0.5 * (med + *std::max_element(dist.begin(), mid));  // numpy's median
  if (!(med > 0.0)) {
    double sum = 0.0;
    index_t cnt = 0;
    for (double v : dist) {
      if (v > 0.0) {
        sum += v;
        ++cnt;
      }
    }
    med = cnt > 0 ? sum / static_cast<double>(cnt) : 1.0;
  }
  return 1.0 / med;
}

/// The kernel with gamma resolved; heuristic pairs added to *evals.
template <typename T>
KernelParams resolve_kernel(const DataView<T>& data, const KernelParams& k, const RunOptions& run,
                            std::int64_t* evals) {
  KernelParams r = k;
  if (r.gamma == 0.0) {
    if (r.type == KernelType::rbf || r.type == KernelType::laplacian) {
      std::int64_t pairs = 0;
      r.gamma = gamma_heuristic(data, r.type, run, &pairs);
      *evals += pairs;
    } else if (r.type == KernelType::polynomial) {
      r.gamma = 1.0 / static_cast<double>(data.d);
    }
  }
  return r;
}

/// A polynomial kernel whose K(x, x) spans more orders of magnitude than T
/// resolves leaves most points' feature-space distances (K(x,x) - 2 <phi(x),
/// C> + <C, C>, rounding ~eps max K) at rounding noise: refuse when the median
/// K(x, x) is below 64 eps times the largest.
template <typename T>
void require_polynomial_precision(const Training<T>& tr, const std::string& w) {
  if (tr.kernel().type() != KernelType::polynomial || tr.n() < 2) return;
  std::vector<double> diag(tr.n());
  for (index_t i = 0; i < tr.n(); ++i) diag[i] = std::abs(tr.self(i));
  const auto mid = diag.begin() + static_cast<std::ptrdiff_t>(diag.size() / 2);
  std::nth_element(diag.begin(), mid, diag.end());
  const double largest = tr.max_self(), eps = std::numeric_limits<T>::epsilon();
  if (*mid >= 64.0 * eps * largest) return;
  const KernelParams& k = tr.kernel().params();
  char msg[560];
  std::snprintf(msg, sizeof msg,
                ": the polynomial kernel's K(x, x) ranges up to %.3g while its median is %.3g "
                "(gamma %.4g, coef0 %.4g, degree %d): %s resolves about %.0f digits, so the "
                "kernel distances of most points would be rounding noise; lower degree, or "
                "scale X so that gamma ||x||^2 + coef0 stays near 1 (e.g. standardize it)",
                largest, *mid, k.gamma, k.coef0, k.degree, sizeof(T) == 4 ? "float32" : "float64",
                -std::log10(eps));
  invalid_argument(w + msg);
}

template <typename T>
SeedingStats seed_plusplus(const Training<T>& tr, index_t k, const RunOptions& run,
                           index_t* indices) {
  Stopwatch clock;
  SeedingStats stats;
  const index_t n = tr.n();
  constexpr index_t kChunk = kSeedingChunk;
  const index_t n_tasks = n_chunks(n, kChunk);
  Rng rng(run.seed, Stream::kernel_kmeans_plusplus);
  std::vector<double> min_d2(n, std::numeric_limits<double>::infinity());
  std::vector<double> pot(n_tasks, 0.0);
  // With sample weights every draw is proportional to the weight (the first
  // to w alone, the others to w D^2).
  const std::vector<double> w_chunk =
      tr.weighted() ? chunk_weight_sums(tr.data(), kChunk) : std::vector<double>();
  auto draw_by_weight = [&]() {
    if (!tr.weighted()) return static_cast<index_t>(rng.below(static_cast<std::uint64_t>(n)));
    return sample_by_chunks(rng.uniform(), w_chunk, kChunk, n,
                            [&](index_t i) { return tr.weight(i); });
  };
  indices[0] = draw_by_weight();
  for (index_t c = 1; c < k; ++c) {
    check_interrupt();
    const index_t prev = indices[c - 1];
    const T* xc = tr.row(prev);
    const double sc = tr.self(prev);
    parallel_for(n_tasks, run.n_threads, [&](index_t t) {
      const index_t r1 = std::min(n, (t + 1) * kChunk);
      double p = 0.0;
      for (index_t i = t * kChunk; i < r1; ++i) {
        const double di =
            std::max(0.0, tr.self(i) - 2.0 * tr.kernel().pair(tr.row(i), xc, prev) + sc);
        if (di < min_d2[i]) min_d2[i] = di;
        p += min_d2[i] * tr.weight(i);
      }
      pot[t] = p;
    }, kernel_value_flops(tr.kernel().params(), tr.data().d) * kChunk);
    stats.n_distance_evals.seeding += n;
    double total = 0.0;
    for (double p : pot) total += p;
    if (total > 0.0) {
      indices[c] = sample_by_chunks(rng.uniform(), pot, kChunk, n,
                                    [&](index_t i) { return min_d2[i] * tr.weight(i); });
    } else {  // every point sits on a chosen one
      indices[c] = draw_by_weight();
    }
  }
  stats.timings.seeding = clock.seconds();
  return stats;
}

// ---------------------------------------------------------------------------
// Assignment helpers
// ---------------------------------------------------------------------------

/// Nearest center from inner products: argmin_j self - 2 ip_j + sqnorm_j
/// (ties: lowest j); returns the distance (not clamped).
inline std::int32_t nearest(const double* ip, double self, const std::vector<double>& sqnorm,
                            double* dist) {
  const index_t k = static_cast<index_t>(sqnorm.size());
  std::int32_t best = 0;
  double bd = self - 2.0 * ip[0] + sqnorm[0];
  for (index_t j = 1; j < k; ++j) {
    const double dj = self - 2.0 * ip[j] + sqnorm[j];
    if (dj < bd) {
      bd = dj;
      best = static_cast<std::int32_t>(j);
    }
  }
  *dist = bd;
  return best;
}

/// Labels and weighted sum of the distances (the kernel k-means objective,
/// not clamped: see KernelKMeansResult::inertia) of all n rows from ip (n,
/// k), in fixed chunks summed in order.
template <typename T>
double label_all(const Training<T>& tr, const std::vector<double>& ip,
                 const std::vector<double>& sqnorm, int n_threads, std::int32_t* labels,
                 std::vector<double>* dist_out = nullptr) {
  const index_t n = tr.n(), k = static_cast<index_t>(sqnorm.size());
  const index_t n_tasks = n_chunks(n, kStreamChunk);
  std::vector<double> part(n_tasks, 0.0);
  if (dist_out) dist_out->resize(n);
  parallel_for(n_tasks, n_threads, [&](index_t t) {
    const index_t r1 = std::min(n, (t + 1) * kStreamChunk);
    double s = 0.0;
    for (index_t i = t * kStreamChunk; i < r1; ++i) {
      double di;
      const std::int32_t l = nearest(ip.data() + i * k, tr.self(i), sqnorm, &di);
      if (labels) labels[i] = l;
      if (dist_out) (*dist_out)[i] = di;
      s += di * tr.weight(i);
    }
    part[t] = s;
  }, 3.0 * kStreamChunk * k);
  double total = 0.0;
  for (double p : part) total += p;
  return total;
}

/// Support and terms of centers that are single points (the initial ones).
template <typename T>
void single_point_centers(const Training<T>& tr, const std::vector<index_t>& init,
                          CenterSupport<T>* cs) {
  std::vector<Terms> terms(init.size());
  for (size_t j = 0; j < init.size(); ++j) terms[j] = Terms{{init[j]}, {1.0}};
  cs->build(tr, terms);
}

/// alpha of a center that received the mass mj (sample weights; unit
/// weights: its point count b_j) of a batch of mass mb (count: the mass it
/// received before, updated for the sklearn rate).
inline double learning_rate(LearningRate rule, double mj, double mb, double* count) {
  if (rule == LearningRate::beta) return std::sqrt(mj / mb);
  *count += mj;
  return mj / *count;
}

/// The batch of iteration `it`: b rows uniformly with replacement.
inline void draw_batch(std::uint64_t seed, int it, index_t n, std::vector<index_t>* batch) {
  Rng rng(seed, Stream::kernel_kmeans_batch, static_cast<std::uint64_t>(it));
  for (index_t& r : *batch) r = static_cast<index_t>(rng.below(static_cast<std::uint64_t>(n)));
}

// ---------------------------------------------------------------------------
// Truncated mini-batch (Alg. 2)
// ---------------------------------------------------------------------------

template <typename T>
struct Fitted {
  CenterSupport<T> support;
  std::vector<double> sqnorm;
};

template <typename T>
void build_from_windows(const Training<T>& tr, const std::vector<TruncatedCenter>& centers,
                        Fitted<T>* f) {
  std::vector<Terms> terms(centers.size());
  f->sqnorm.resize(centers.size());
  for (size_t j = 0; j < centers.size(); ++j) {
    terms[j] = centers[j].terms(tr);
    f->sqnorm[j] = centers[j].sqnorm;
  }
  f->support.build(tr, terms);
}

/// Inner products of the batch rows with the centers of f: (b, k).
template <typename T>
void batch_inner_products(const Training<T>& tr, const Fitted<T>& f,
                          const std::vector<index_t>& batch, index_t k, int n_threads,
                          std::vector<double>* ip) {
  const CenterSupport<T>& cs = f.support;
  SupportTiles<T> S(tr.kernel(), cs.rows.data(), cs.points.data(), cs.size());
  ip->resize(batch.size() * static_cast<size_t>(k));
  inner_products(S, cs.cols, k, static_cast<index_t>(batch.size()),
                 [&](index_t i) { return tr.row(batch[i]); }, n_threads, ip->data());
}

/// Weighted mean over the batch of the distance to the nearest center (not
/// clamped); ip_row(r): the (k,) inner products of batch position r with the
/// centers.
template <typename T, typename IpRow>
double batch_objective(const Training<T>& tr, const std::vector<index_t>& batch, IpRow&& ip_row,
                       const std::vector<double>& sqnorm, std::vector<std::int32_t>* labels) {
  double s = 0.0;
  for (size_t r = 0; r < batch.size(); ++r) {
    double dr;
    const std::int32_t l = nearest(ip_row(r), tr.self(batch[r]), sqnorm, &dr);
    if (labels) (*labels)[r] = l;
    s += dr * tr.weight(batch[r]);
  }
  return s / tr.mass(batch);
}

/// One center's share of a mini-batch step (both mini-batch variants): the
/// batch points it won (as drawn, in batch order), their weight sum, its rate
/// alpha (0: it won none) and u = <C_j, cm(B_j)>.
struct CenterStep {
  std::vector<index_t> points;
  double mass = 0.0;
  double alpha = 0.0;
  double u = 0.0;
};

/// Splits the batch among the centers by label; ip(r, j) = <phi(x), C_j> of
/// batch position r. counts: per center, for the sklearn rate.
template <typename T, typename InnerProduct>
void center_steps(const Training<T>& tr, const std::vector<index_t>& batch,
                  const std::vector<std::int32_t>& lab, LearningRate rule,
                  std::vector<double>* counts, InnerProduct&& ip,
                  std::vector<CenterStep>* steps) {
  const index_t b = static_cast<index_t>(batch.size()), k = static_cast<index_t>(steps->size());
  const double batch_mass = tr.mass(batch);
  std::vector<std::vector<index_t>> members(k);
  for (index_t r = 0; r < b; ++r) members[lab[r]].push_back(r);
  for (index_t j = 0; j < k; ++j) {
    CenterStep& step = (*steps)[j];
    step = CenterStep{};
    if (members[j].empty()) continue;
    double u = 0.0;
    step.points.reserve(members[j].size());
    for (index_t r : members[j]) {
      u += ip(r, j) * tr.weight(batch[r]);
      step.points.push_back(batch[r]);
    }
    step.mass = tr.mass(step.points);
    step.alpha = learning_rate(rule, step.mass, batch_mass, &(*counts)[j]);
    step.u = u / step.mass;
  }
}

/// The end of a mini-batch iteration (both variants): records its batch
/// objective fb and reports progress. True when the loop ends: gain (fb
/// minus the batch's objective after the update) < tol, or a stop request.
inline bool end_batch_iteration(const KernelKMeansParams& p, int it, double fb, double gain,
                                const Stopwatch& clock, KernelKMeansResult* result) {
  result->objective.push_back(fb);
  result->n_iter = it;
  const bool stop = report_progress(p.run, "kernel-kmeans", "iterations", it, fb, clock.seconds(),
                                    result->n_distance_evals.iterations);
  if (p.tol > 0.0 && gain < p.tol) {
    result->converged = true;
    return true;
  }
  return stop;
}

template <typename T>
void run_truncated(const Training<T>& tr, const KernelKMeansParams& p,
                   const std::vector<index_t>& init, KernelKMeansResult* result, Fitted<T>* out,
                   bool truncate) {
  Stopwatch clock;
  const index_t n = tr.n(), k = p.n_clusters, b = p.batch_size;
  const index_t tau = truncate ? p.tau : std::numeric_limits<index_t>::max();
  std::vector<TruncatedCenter> centers(k);
  for (index_t j = 0; j < k; ++j) centers[j].init(init[j], tr.self(init[j]), tr.weight(init[j]));
  std::vector<double> counts(k, 0.0);
  std::vector<index_t> batch(b);
  std::vector<std::int32_t> lab(b);
  std::vector<double> ip;
  std::vector<CenterStep> steps(k);
  std::vector<std::int64_t> task_evals(k);
  std::int64_t& evals = result->n_distance_evals.iterations;
  Fitted<T> f;

  for (int it = 1; it <= p.max_iter; ++it) {
    check_interrupt();
    draw_batch(p.run.seed, it, n, &batch);
    build_from_windows(tr, centers, &f);
    batch_inner_products(tr, f, batch, k, p.run.n_threads, &ip);
    evals += b * f.support.size();
    const auto ip_row = [&](size_t r) { return ip.data() + r * k; };
    const double fb = batch_objective(tr, batch, ip_row, f.sqnorm, &lab);
    center_steps(tr, batch, lab, p.learning_rate, &counts,
                 [&](index_t r, index_t j) { return ip[r * k + j]; }, &steps);
    // Work of a center's update: about b_j (tau + 3 b_j) evaluations with
    // b_j ~ b / k (the incremental <C, C>); small updates stay on one thread.
    const double bj_mean = static_cast<double>(b) / static_cast<double>(k);
    const double update_evals =
        bj_mean * (static_cast<double>(std::min<index_t>(p.tau, n)) + 3.0 * bj_mean);
    parallel_for(k, p.run.n_threads, [&](index_t j) {
      task_evals[j] = 0;
      CenterStep& step = steps[j];
      if (step.points.empty()) return;
      task_evals[j] = centers[j].update(tr, it, step.alpha, std::move(step.points), step.mass,
                                        step.u, tau, p.renormalize);
    }, update_evals * kernel_value_flops(tr.kernel().params(), tr.data().d));
    for (index_t j = 0; j < k; ++j) evals += task_evals[j];

    double gain = NAN;
    if (p.tol > 0.0) {
      build_from_windows(tr, centers, &f);
      batch_inner_products(tr, f, batch, k, p.run.n_threads, &ip);
      evals += b * f.support.size();
      gain = fb - batch_objective(tr, batch, ip_row, f.sqnorm, nullptr);
    }
    std::int64_t held = 0;
    for (const auto& c : centers) held += c.n_terms;
    log_line(p.run.log,
             "kernel k-means (%s) iter %4d  batch objective %.8g  gain %.3g  window points %lld"
             "  (%.2f s)",
             algorithm_name(p.algorithm), it, fb, gain, static_cast<long long>(held),
             clock.seconds());
    if (end_batch_iteration(p, it, fb, gain, clock, result)) break;
  }
  build_from_windows(tr, centers, out);
  result->timings.iterations = clock.seconds();
}

// ---------------------------------------------------------------------------
// Untruncated mini-batch (Alg. 1 with the recursion of Appendix A)
// ---------------------------------------------------------------------------

template <typename T>
void run_minibatch(const Training<T>& tr, const KernelKMeansParams& p,
                   const std::vector<index_t>& init, KernelKMeansResult* result, Fitted<T>* out,
                   std::int32_t* labels) {
  Stopwatch clock;
  const index_t n = tr.n(), k = p.n_clusters, b = p.batch_size;
  const int nt = p.run.n_threads;
  std::int64_t& evals = result->n_distance_evals.iterations;
  // G (n, k): <phi(x), C_j> for every point; A (k, n): the centers' coefficients.
  std::vector<double> G(n * k), M(n * k), A(k * n, 0.0), sqnorm(k);
  {
    CenterSupport<T> cs;
    single_point_centers(tr, init, &cs);
    SupportTiles<T> S(tr.kernel(), cs.rows.data(), cs.points.data(), cs.size());
    inner_products(S, cs.cols, k, n, [&](index_t i) { return tr.row(i); }, nt, G.data());
    evals += n * cs.size();
  }
  for (index_t j = 0; j < k; ++j) {
    sqnorm[j] = tr.self(init[j]);
    A[j * n + init[j]] = 1.0;
  }
  std::vector<double> counts(k, 0.0);
  std::vector<index_t> batch(b);
  std::vector<std::int32_t> lab(b);
  std::vector<CenterStep> steps(k);
  const auto g_row = [&](size_t r) { return G.data() + batch[r] * k; };

  for (int it = 1; it <= p.max_iter; ++it) {
    check_interrupt();
    draw_batch(p.run.seed, it, n, &batch);
    const double fb = batch_objective(tr, batch, g_row, sqnorm, &lab);
    center_steps(tr, batch, lab, p.learning_rate, &counts,
                 [&](index_t r, index_t j) { return G[batch[r] * k + j]; }, &steps);
    std::vector<Terms> cm(k);
    for (index_t j = 0; j < k; ++j) {
      if (!steps[j].points.empty()) {
        cm[j] = batch_mean(tr, steps[j].points, steps[j].mass);
      }
    }
    // M (n, k): <phi(x), cm(B_j)> for every point, one pass of n x (distinct batch points).
    CenterSupport<T> cs;
    cs.build(tr, cm);
    SupportTiles<T> S(tr.kernel(), cs.rows.data(), cs.points.data(), cs.size());
    inner_products(S, cs.cols, k, n, [&](index_t i) { return tr.row(i); }, nt, M.data());
    evals += n * cs.size();
    for (index_t j = 0; j < k; ++j) {
      if (steps[j].points.empty()) continue;
      const double a = steps[j].alpha;
      double v = 0.0;
      for (index_t t = 0; t < cm[j].size(); ++t) v += cm[j].coef[t] * M[cm[j].idx[t] * k + j];
      sqnorm[j] = updated_sqnorm(sqnorm[j], a, steps[j].u, v);
      double* Aj = A.data() + j * n;
      for (index_t x = 0; x < n; ++x) Aj[x] *= (1.0 - a);
      for (index_t t = 0; t < cm[j].size(); ++t) Aj[cm[j].idx[t]] += a * cm[j].coef[t];
    }
    parallel_for(n_chunks(n, kStreamChunk), nt, [&](index_t t) {
      const index_t r1 = std::min(n, (t + 1) * kStreamChunk);
      for (index_t x = t * kStreamChunk; x < r1; ++x) {
        for (index_t j = 0; j < k; ++j) {
          const double a = steps[j].alpha;
          if (a > 0.0) G[x * k + j] = (1.0 - a) * G[x * k + j] + a * M[x * k + j];
        }
      }
    }, 3.0 * kStreamChunk * k);
    double gain = NAN;
    if (p.tol > 0.0) gain = fb - batch_objective(tr, batch, g_row, sqnorm, nullptr);
    log_line(p.run.log, "kernel k-means (%s) iter %4d  batch objective %.8g  gain %.3g  (%.2f s)",
             algorithm_name(p.algorithm), it, fb, gain, clock.seconds());
    if (end_batch_iteration(p, it, fb, gain, clock, result)) break;
  }
  result->timings.iterations = clock.seconds();
  // The model: the nonzero coefficients; labels and inertia from G.
  std::vector<Terms> terms(k);
  for (index_t j = 0; j < k; ++j) {
    for (index_t x = 0; x < n; ++x) {
      if (A[j * n + x] != 0.0) {
        terms[j].idx.push_back(x);
        terms[j].coef.push_back(A[j * n + x]);
      }
    }
  }
  out->support.build(tr, terms);
  out->sqnorm = sqnorm;
  if (labels || p.evaluate) {
    Stopwatch ev;
    result->inertia = label_all(tr, G, sqnorm, nt, labels);
    result->timings.evaluation = ev.seconds();
  }
}

// ---------------------------------------------------------------------------
// Full batch (Lloyd in feature space)
// ---------------------------------------------------------------------------

/// Moves empty clusters onto the points farthest from their centers (largest
/// distance first, ties by index; never a point alone in its cluster or
/// within rounding of its center). Returns the points moved.
index_t relocate_empty(std::vector<std::int32_t>& labels, const std::vector<double>& dist,
                       index_t k, double floor) {
  const index_t n = static_cast<index_t>(labels.size());
  std::vector<index_t> size(k, 0);
  for (std::int32_t l : labels) ++size[l];
  std::vector<index_t> empty;
  for (index_t j = 0; j < k; ++j) {
    if (size[j] == 0) empty.push_back(j);
  }
  if (empty.empty()) return 0;
  std::vector<index_t> order(n);
  std::iota(order.begin(), order.end(), index_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t a, index_t b) { return dist[a] > dist[b]; });
  index_t moved = 0;
  size_t e = 0;
  for (index_t q = 0; q < n && e < empty.size(); ++q) {
    const index_t i = order[q];
    if (!(dist[i] > floor)) break;
    if (size[labels[i]] <= 1) continue;
    --size[labels[i]];
    labels[i] = static_cast<std::int32_t>(empty[e++]);
    ++size[labels[i]];
    ++moved;
  }
  return moved;
}

template <typename T>
void run_full(const Training<T>& tr, const KernelKMeansParams& p, const std::vector<index_t>& init,
              KernelKMeansResult* result, Fitted<T>* out, std::int32_t* labels_out) {
  Stopwatch clock;
  const index_t n = tr.n(), k = p.n_clusters;
  const int nt = p.run.n_threads;
  std::int64_t& evals = result->n_distance_evals.iterations;
  std::vector<double> ip(n * k), dist(n);
  std::vector<std::int32_t> labels(n), previous(n);
  std::vector<double> sqnorm(k);
  {
    CenterSupport<T> cs;
    single_point_centers(tr, init, &cs);
    SupportTiles<T> S(tr.kernel(), cs.rows.data(), cs.points.data(), cs.size());
    inner_products(S, cs.cols, k, n, [&](index_t i) { return tr.row(i); }, nt, ip.data());
    evals += n * cs.size();
    for (index_t j = 0; j < k; ++j) sqnorm[j] = tr.self(init[j]);
    label_all(tr, ip, sqnorm, nt, labels.data(), &dist);
  }
  // Distances of points on their own center round to ~eps K(x, x).
  const double floor = 64.0 * std::numeric_limits<T>::epsilon() * std::max(1.0, tr.max_self());
  std::vector<index_t> size(k);
  std::vector<double> mass(k);
  double total_mass = 0.0;
  for (index_t x = 0; x < n; ++x) total_mass += tr.weight(x);
  CenterSupport<T> cs;
  double prev_obj = NAN;

  for (int it = 1; it <= p.max_iter; ++it) {
    check_interrupt();
    relocate_empty(labels, dist, k, floor);
    previous = labels;
    std::fill(size.begin(), size.end(), 0);
    std::fill(mass.begin(), mass.end(), 0.0);
    for (index_t x = 0; x < n; ++x) {
      ++size[labels[x]];
      mass[labels[x]] += tr.weight(x);
    }
    // The centers are the clusters' weighted means: every point is a column,
    // grouped by cluster (points in index order), coefficient w_x / w(A_j)
    // (unit weights: 1 / |A_j|).
    {
      std::vector<Terms> t(k);
      for (index_t x = 0; x < n; ++x) {
        const std::int32_t l = labels[x];
        t[l].idx.push_back(x);
        t[l].coef.push_back(tr.weight(x) / mass[l]);
      }
      cs.build(tr, std::move(t));
    }
    SupportTiles<T> S(tr.kernel(), cs.rows.data(), cs.points.data(), cs.size());
    inner_products(S, cs.cols, k, n, [&](index_t i) { return tr.row(i); }, nt, ip.data());
    evals += n * n;
    // <C_j, C_j> = weighted mean over A_j of <phi(x), C_j>, in index order.
    std::fill(sqnorm.begin(), sqnorm.end(), 0.0);
    for (index_t x = 0; x < n; ++x) sqnorm[labels[x]] += ip[x * k + labels[x]] * tr.weight(x);
    for (index_t j = 0; j < k; ++j) {
      if (size[j] > 0) sqnorm[j] /= mass[j];
    }
    // Empty clusters (more clusters than distinct points) never win.
    for (index_t j = 0; j < k; ++j) {
      if (size[j] == 0) sqnorm[j] = std::numeric_limits<double>::infinity();
    }
    const double total = label_all(tr, ip, sqnorm, nt, labels.data(), &dist);
    const double obj = total / total_mass;
    index_t changed = 0;
    for (index_t x = 0; x < n; ++x) changed += labels[x] != previous[x];
    result->objective.push_back(obj);
    result->n_iter = it;
    result->inertia = total;
    log_line(p.run.log, "kernel k-means (full-batch) iter %4d  objective %.8g  changed %lld  (%.2f s)",
             it, obj, static_cast<long long>(changed), clock.seconds());
    const bool small_gain = p.tol > 0.0 && it > 1 && prev_obj - obj < p.tol;
    prev_obj = obj;
    const bool stop =
        report_progress(p.run, "kernel-kmeans", "iterations", it, obj, clock.seconds(), evals);
    if (changed == 0 || small_gain) {
      result->converged = true;
      break;
    }
    if (stop) break;
  }
  // The centers are the means of the partition the last pass measured
  // against (`previous`, the columns of cs); `labels` is every point's
  // nearest of them. (An empty cluster -- more clusters than distinct points
  // -- keeps no points and an infinite norm: it is never anyone's nearest.)
  out->support = std::move(cs);
  out->sqnorm = sqnorm;
  if (labels_out) std::copy(labels.begin(), labels.end(), labels_out);
  if (!labels_out && !p.evaluate) result->inertia = NAN;
  result->timings.iterations = clock.seconds();
}

}  // namespace

}  // namespace detail

// ---------------------------------------------------------------------------
// Public entry points
// ---------------------------------------------------------------------------

template <typename T>
KernelKMeansResult fit_kernel_kmeans(const DataView<T>& data, const KernelKMeansParams& params,
                                     const index_t* init_indices, std::int32_t* labels) {
  using namespace detail;
  require_kernel_kmeans_fit(data, params, init_indices, "fit_kernel_kmeans");
  const RunOptions& run = params.run;
  const index_t k = params.n_clusters, n = data.n;
  KernelKMeansResult result;
  Stopwatch seeding_clock;
  result.kernel = resolve_kernel(data, params.kernel, run, &result.n_distance_evals.seeding);
  if (result.kernel.type != KernelType::precomputed) {
    require_kernel_range<T>(result.kernel, max_squared_norm(data.x, n, data.d, run.n_threads),
                            "fit_kernel_kmeans");
  }
  Training<T> tr(data, result.kernel);
  tr.compute_diagonal(run.n_threads);
  require_polynomial_precision(tr, "fit_kernel_kmeans");
  result.init_indices.resize(k);
  if (init_indices) {
    std::copy(init_indices, init_indices + k, result.init_indices.begin());
  } else {
    const SeedingStats s = seed_plusplus(tr, k, run, result.init_indices.data());
    result.n_distance_evals.seeding += s.n_distance_evals.seeding;
  }
  result.timings.seeding = seeding_clock.seconds();
  log_line(run.log, "kernel k-means seeding: %s, %lld centers, gamma %.6g (%.2f s)",
           init_indices ? "given" : "kernel k-means++", static_cast<long long>(k),
           result.kernel.gamma, result.timings.seeding);

  Fitted<T> fitted;
  switch (params.algorithm) {
    case KernelKMeansAlgorithm::truncated:
      run_truncated(tr, params, result.init_indices, &result, &fitted, true);
      break;
    case KernelKMeansAlgorithm::minibatch:
      run_minibatch(tr, params, result.init_indices, &result, &fitted, labels);
      break;
    case KernelKMeansAlgorithm::full:
      run_full(tr, params, result.init_indices, &result, &fitted, labels);
      break;
  }
  result.centers = fitted.support.model(fitted.sqnorm);

  if (params.algorithm == KernelKMeansAlgorithm::truncated && (labels || params.evaluate)) {
    Stopwatch clock;
    const CenterSupport<T>& cs = fitted.support;
    SupportTiles<T> S(tr.kernel(), cs.rows.data(), cs.points.data(), cs.size());
    std::vector<double> ip(n * k);
    inner_products(S, cs.cols, k, n, [&](index_t i) { return tr.row(i); }, run.n_threads,
                   ip.data());
    result.n_distance_evals.evaluation += n * cs.size();
    result.inertia = label_all(tr, ip, fitted.sqnorm, run.n_threads, labels);
    result.timings.evaluation = clock.seconds();
  }
  log_line(run.log, "kernel k-means (%s): %d iterations, inertia %.8g, %lld support points",
           algorithm_name(params.algorithm), result.n_iter, result.inertia,
           static_cast<long long>(result.centers.support.size()));
  return result;
}

template <typename T>
PhaseCosts kernel_kmeans_predict(const DataView<T>& data, const KernelParams& kernel,
                                 const KernelCenters& centers, const T* support_vectors,
                                 const RunOptions& run, std::int32_t* labels,
                                 double* sq_distances) {
  using namespace detail;
  const std::string w = "kernel_kmeans_predict";
  require(data.n >= 1 && data.d >= 1 && data.x != nullptr, w + ": X must be a non-empty array");
  require_kernel(kernel, true, w);
  const index_t k = static_cast<index_t>(centers.sqnorm.size());
  const index_t m = static_cast<index_t>(centers.support.size());
  require(k >= 1 && static_cast<index_t>(centers.indptr.size()) == k + 1 && centers.indptr[0] == 0,
          w + ": centers.indptr must have n_clusters + 1 entries starting at 0");
  const index_t nnz = centers.indptr[k];
  require(static_cast<index_t>(centers.index.size()) == nnz &&
              static_cast<index_t>(centers.coef.size()) == nnz,
          w + ": centers.index and centers.coef must have indptr[k] entries");
  for (index_t j = 0; j < k; ++j) {
    require(centers.indptr[j] <= centers.indptr[j + 1], w + ": centers.indptr must not decrease");
  }
  for (index_t t = 0; t < nnz; ++t) {
    require(centers.index[t] >= 0 && centers.index[t] < m,
            w + ": centers.index must be positions in centers.support");
  }
  const bool pre = kernel.type == KernelType::precomputed;
  if (pre) {
    for (index_t s : centers.support) {
      require(s >= 0 && s < data.d, w + ": a support index is not a column of the kernel rows");
    }
    require(sq_distances == nullptr,
            w + ": distances need K(x, x), which precomputed kernel rows do not give");
  } else {
    require(support_vectors != nullptr || m == 0, w + ": support_vectors is a null pointer");
    require_kernel_range<T>(kernel,
                            std::max(max_squared_norm(data.x, data.n, data.d, run.n_threads),
                                     max_squared_norm(support_vectors, m, data.d, run.n_threads)),
                            w);
  }
  Stopwatch clock;
  KernelFunction<T> kf(kernel, data.d);
  // Columns: the centers' terms side by side (a support vector shared by two
  // centers is two columns).
  CenterColumns cols;
  cols.start.assign(centers.indptr.begin(), centers.indptr.end());
  cols.coef = centers.coef;
  std::vector<index_t> colpoint(nnz);
  std::vector<T> rows;
  for (index_t t = 0; t < nnz; ++t) colpoint[t] = centers.support[centers.index[t]];
  if (!pre) {
    rows.resize(static_cast<size_t>(nnz * data.d));
    for (index_t t = 0; t < nnz; ++t) {
      std::copy(support_vectors + centers.index[t] * data.d,
                support_vectors + (centers.index[t] + 1) * data.d, rows.data() + t * data.d);
    }
  }
  SupportTiles<T> S(kf, rows.data(), colpoint.data(), nnz);
  std::vector<double> ip(data.n * k);
  inner_products(S, cols, k, data.n, [&](index_t i) { return data.row(i); }, run.n_threads,
                 ip.data());
  PhaseCosts costs;
  costs.n_distance_evals.evaluation = data.n * nnz;
  parallel_for(n_chunks(data.n, kStreamChunk), run.n_threads, [&](index_t t) {
    const index_t r1 = std::min(data.n, (t + 1) * kStreamChunk);
    for (index_t i = t * kStreamChunk; i < r1; ++i) {
      // K(x, x) does not change the argmin; it is needed for the distances only.
      const double self = pre ? 0.0 : kf.self(data.row(i), i);
      double di;
      const std::int32_t l = nearest(ip.data() + i * k, self, centers.sqnorm, &di);
      if (labels) labels[i] = l;
      if (sq_distances) {
        for (index_t j = 0; j < k; ++j) {
          sq_distances[i * k + j] = std::max(0.0, self - 2.0 * ip[i * k + j] + centers.sqnorm[j]);
        }
      }
    }
  }, 3.0 * kStreamChunk * k);
  costs.timings.evaluation = clock.seconds();
  return costs;
}

template <typename T>
SeedingStats kernel_kmeans_plusplus(const DataView<T>& data, const KernelParams& kernel,
                                    index_t n_clusters, const RunOptions& run, index_t* indices) {
  using namespace detail;
  const std::string w = "kernel_kmeans_plusplus";
  require_kernel_data(data, kernel, w);
  require_kernel(kernel, true, w);
  require_clusters(n_clusters, data.n, w.c_str());
  require(indices != nullptr, w + ": indices is a null pointer");
  if (kernel.type != KernelType::precomputed) {
    require_kernel_range<T>(kernel, max_squared_norm(data.x, data.n, data.d, run.n_threads), w);
  }
  Training<T> tr(data, kernel);
  tr.compute_diagonal(run.n_threads);
  return seed_plusplus(tr, n_clusters, run, indices);
}

template <typename T>
double kernel_gamma_heuristic(const DataView<T>& data, KernelType type, const RunOptions& run) {
  using namespace detail;
  require(data.n >= 1 && data.d >= 1 && data.x != nullptr,
          "kernel_gamma_heuristic: X must be a non-empty array");
  std::int64_t pairs = 0;
  return gamma_heuristic(data, type, run, &pairs);
}

#define VCGMM_KERNEL_KMEANS_INSTANTIATE(T)                                                      \
  template KernelKMeansResult fit_kernel_kmeans<T>(const DataView<T>&, const KernelKMeansParams&, \
                                                   const index_t*, std::int32_t*);              \
  template PhaseCosts kernel_kmeans_predict<T>(const DataView<T>&, const KernelParams&,         \
                                               const KernelCenters&, const T*, const RunOptions&, \
                                               std::int32_t*, double*);                         \
  template SeedingStats kernel_kmeans_plusplus<T>(const DataView<T>&, const KernelParams&,      \
                                                  index_t, const RunOptions&, index_t*);        \
  template double kernel_gamma_heuristic<T>(const DataView<T>&, KernelType, const RunOptions&);
VCGMM_KERNEL_KMEANS_INSTANTIATE(float)
VCGMM_KERNEL_KMEANS_INSTANTIATE(double)
#undef VCGMM_KERNEL_KMEANS_INSTANTIATE

}  // namespace vcgmm
