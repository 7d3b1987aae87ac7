// Graph kernels for kernel k-means (graph_kernel in vcgmm/kernel_kmeans.hpp):
// the paper's k-nn kernel D^-1 A D^-1 and Chung's heat kernel exp(-t L),
// L = I - N, N = D^-1/2 A D^-1/2, of the symmetrised k-nn graph A.
//
// The heat kernel weighs the graph's modes (eigenpairs of N) by
// exp(-t (1 - lambda)): at the default t only the slowest few carry weight.
// It keeps the modes whose weight is at least 1e-12 of the slowest's (the
// dropped ones change no entry by more than 1e-12 of the largest) and finds
// them by Chebyshev-filtered subspace iteration (Zhou & Saad, J. Comput. Phys.
// 2007) on the sparse N: O(n m (q nnz / n + m)) per sweep for m modes instead
// of a dense O(n^3) eigendecomposition, which stays for small t, where more
// than a quarter of all modes pass the threshold. graph_modes gives the k-nn
// kernel's m slowest modes as features, found by the same filter.
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vcgmm/kernel_kmeans.hpp"
#include "detail/blocked_scan.hpp"
#include "detail/center_tiles.hpp"
#include "detail/distance_kernels.hpp"
#include "detail/logging.hpp"
#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "detail/validation.hpp"

namespace vcgmm {
namespace detail {
namespace {

/// Eigen's eigensolver of the graph: one long call that cannot poll. It runs
/// on a worker thread while the calling thread polls the interrupt callback;
/// on an interrupt the worker is left to finish in the background (it owns
/// its input and its result, which is dropped) and Interrupted is thrown.
struct EigenJob {
  Eigen::MatrixXd matrix;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
};

inline std::shared_ptr<EigenJob> interruptible_eigensolver(Eigen::MatrixXd matrix) {
  auto job = std::make_shared<EigenJob>();
  job->matrix = std::move(matrix);
  std::thread worker([job] {
    try {
      job->eig.compute(job->matrix);
    } catch (...) {
      job->error = std::current_exception();
    }
    job->matrix.resize(0, 0);
    std::lock_guard<std::mutex> lock(job->mutex);
    job->done = true;
    job->finished.notify_one();
  });
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(job->mutex);
      if (job->finished.wait_for(lock, std::chrono::milliseconds(20), [&] { return job->done; })) {
        break;
      }
    }
    if (interrupt_requested()) {
      worker.detach();
      throw Interrupted();
    }
  }
  worker.join();
  if (job->error) std::rethrow_exception(job->error);
  return job;
}


/// Neighbour lists of the exact k-nn (self excluded).
struct KnnHandler {
  using Partial = NoPartial;
  using Block = NoBlock;
  static constexpr bool kVisitsTiles = false;
  index_t nn;
  index_t* out;  // (n, nn)
  void row(Block&, Partial&, index_t r, index_t, const std::int32_t* idx, const double*,
           int found) const {
    index_t c = 0;
    for (int f = 0; f < found && c < nn; ++f) {
      if (idx[f] != r) out[r * nn + c++] = idx[f];
    }
    for (; c < nn; ++c) out[r * nn + c] = idx[found - 1];  // not reached: found = nn + 1
  }
};

/// The symmetrised k-nn graph in compressed rows, columns increasing.
struct Graph {
  index_t n = 0;
  std::vector<index_t> start;   // (n + 1,)
  std::vector<index_t> column;  // (nnz,)
  std::vector<double> weight;   // (nnz,) N's entries D^-1/2 A D^-1/2
  std::vector<double> degree;   // (n,) row lengths of A
};

Graph symmetrised_graph(const std::vector<index_t>& nbr, index_t n, index_t nn) {
  Graph g;
  g.n = n;
  std::vector<index_t> fill(n + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    for (index_t c = 0; c < nn; ++c) {
      ++fill[i + 1];
      ++fill[nbr[i * nn + c] + 1];
    }
  }
  for (index_t i = 0; i < n; ++i) fill[i + 1] += fill[i];
  std::vector<index_t> raw(fill[n]);
  std::vector<index_t> pos(fill.begin(), fill.end() - 1);
  for (index_t i = 0; i < n; ++i) {
    for (index_t c = 0; c < nn; ++c) {
      const index_t j = nbr[i * nn + c];
      raw[pos[i]++] = j;
      raw[pos[j]++] = i;
    }
  }
  g.start.assign(n + 1, 0);
  g.column.reserve(raw.size());
  for (index_t i = 0; i < n; ++i) {
    auto first = raw.begin() + fill[i], last = raw.begin() + fill[i + 1];
    std::sort(first, last);
    last = std::unique(first, last);
    g.column.insert(g.column.end(), first, last);
    g.start[i + 1] = static_cast<index_t>(g.column.size());
  }
  g.degree.resize(n);
  for (index_t i = 0; i < n; ++i) g.degree[i] = static_cast<double>(g.start[i + 1] - g.start[i]);
  g.weight.resize(g.column.size());
  for (index_t i = 0; i < n; ++i) {
    for (index_t p = g.start[i]; p < g.start[i + 1]; ++p) {
      g.weight[p] = 1.0 / std::sqrt(g.degree[i] * g.degree[g.column[p]]);
    }
  }
  return g;
}


/// out = a N X + b X + c Y, row by row (each row in a fixed order: the same
/// bits on any number of threads).
void combine(const Graph& g, double a, const RowMatrix<double>& X, double b, double c,
             const RowMatrix<double>* Y, RowMatrix<double>* out, int n_threads) {
  constexpr index_t kRows = 256;
  const index_t n = g.n;
  const double work = 2.0 * static_cast<double>(X.cols()) *
                      (static_cast<double>(g.column.size()) / static_cast<double>(n) + 2.0) * kRows;
  parallel_for(n_chunks(n, kRows), n_threads, [&](index_t t) {
    const index_t r1 = std::min(n, (t + 1) * kRows);
    for (index_t i = t * kRows; i < r1; ++i) {
      auto row = out->row(i);
      row.setZero();
      for (index_t p = g.start[i]; p < g.start[i + 1]; ++p) row += g.weight[p] * X.row(g.column[p]);
      row *= a;
      if (b != 0.0) row += b * X.row(i);
      if (c != 0.0) row += c * Y->row(i);
    }
  }, work);
}

/// X <- p(N) X, p the degree-q Chebyshev polynomial of [-1, cut] mapped onto
/// [-1, 1]: |p| <= 1 on the modes below `cut`, growing fast above it.
void chebyshev_filter(const Graph& g, double cut, int q, RowMatrix<double>* X, int n_threads) {
  const double e = (cut + 1.0) / 2.0, centre = (cut - 1.0) / 2.0;
  RowMatrix<double> previous = *X, current(X->rows(), X->cols()), next(X->rows(), X->cols());
  combine(g, 1.0 / e, previous, -centre / e, 0.0, nullptr, &current, n_threads);
  for (int k = 2; k <= q; ++k) {
    combine(g, 2.0 / e, current, -2.0 * centre / e, -1.0, &previous, &next, n_threads);
    std::swap(previous, current);
    std::swap(current, next);
  }
  *X = std::move(current);
}

/// The filter degree under which lambda = 1 grows 1e4-fold per sweep against
/// every mode below the cut (p(1) = T_q((3 - cut) / (1 + cut))), in [8, 2000].
int filter_degree(double cut) {
  return static_cast<int>(std::min(
      2000.0, std::max(8.0, std::ceil(std::acosh(1e4) / std::acosh((3.0 - cut) / (1.0 + cut))))));
}

void random_columns(Rng& rng, RowMatrix<double>* X, index_t from) {
  for (index_t i = 0; i < X->rows(); ++i) {
    for (index_t j = from; j < X->cols(); ++j) (*X)(i, j) = rng.uniform() - 0.5;
  }
}

/// One sweep of filtered subspace iteration: X <- p(N) X, orthonormalised and
/// rotated onto its Ritz vectors (largest Ritz value first, in theta); NX = N X
/// of the new X, for the residuals. False when Rayleigh-Ritz fails.
bool ritz_sweep(const Graph& g, double cut, int degree, int n_threads, RowMatrix<double>* X,
                Eigen::VectorXd* theta, Eigen::MatrixXd* NX) {
  const index_t n = X->rows(), b = X->cols();
  chebyshev_filter(g, cut, degree, X, n_threads);
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr{Eigen::MatrixXd(*X)};
  const Eigen::MatrixXd Q = qr.householderQ() * Eigen::MatrixXd::Identity(n, b);
  const RowMatrix<double> Qr = Q;
  RowMatrix<double> NQ(n, b);
  combine(g, 1.0, Qr, 0.0, 0.0, nullptr, &NQ, n_threads);
  Eigen::MatrixXd H = Q.transpose() * NQ;
  H = 0.5 * (H + H.transpose()).eval();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ritz(H);
  if (ritz.info() != Eigen::Success) return false;
  const Eigen::MatrixXd S = ritz.eigenvectors().rowwise().reverse();  // largest first
  *theta = ritz.eigenvalues().reverse();
  *X = Q * S;
  *NX = NQ * S;
  return true;
}

/// The heat kernel's factor W (n, m), exp(-t L) ~ W W^T, from the m modes of
/// N above cut = 1 - kHeatLogRange / t (weight exp(-t (1 - lambda)) at least
/// exp(-kHeatLogRange)), by filtered subspace iteration with Rayleigh-Ritz. A mode is done when its
/// residual ||N v - lambda v|| times its weight is below 1e-10. Returns false
/// (the caller decomposes densely) when more than n / 4 modes pass or the
/// sweeps do not converge.
bool slow_modes(const Graph& g, double t, const RunOptions& run, Eigen::MatrixXd* W,
                index_t* n_modes, int* n_sweeps) {
  constexpr int kMaxSweeps = 60;
  const double cut = 1.0 - kHeatLogRange / t;
  constexpr double kTolerance = 1e-10;
  const int degree = filter_degree(cut);
  const index_t n = g.n, max_block = n / 4;
  index_t b = std::min<index_t>(32, max_block);
  if (b < 8) return false;  // a small graph: the dense decomposition is cheap
  Rng rng(run.seed, Stream::graph_spectrum);
  RowMatrix<double> X(n, b);
  random_columns(rng, &X, 0);
  index_t previous_heavy = -1;
  for (int sweep = 1; sweep <= kMaxSweeps; ++sweep) {
    check_interrupt();
    Eigen::VectorXd theta;
    Eigen::MatrixXd NX;
    if (!ritz_sweep(g, cut, degree, run.n_threads, &X, &theta, &NX)) return false;
    const Eigen::MatrixXd residual = NX - Eigen::MatrixXd(X) * theta.asDiagonal();
    index_t wanted = 0;
    while (wanted < b && theta(wanted) > cut) ++wanted;
    if (wanted > b - std::max<index_t>(4, b / 8)) {  // the block must hold them all
      if (2 * b > max_block) return false;
      X.conservativeResize(n, 2 * b);
      random_columns(rng, &X, b);
      b *= 2;
      previous_heavy = -1;
      continue;
    }
    // Done when the modes above the cut have converged and as many of them
    // weigh over 1e-9 as in the sweep before (modes just above the cut,
    // weighted ~1e-12, are slow to appear; lambda = 1, the stationary mode,
    // always weighs 1).
    index_t heavy = 0;
    while (heavy < wanted && theta(heavy) > 1.0 - 0.75 * (1.0 - cut)) ++heavy;
    bool done = heavy >= 1 && heavy == previous_heavy;
    previous_heavy = heavy;
    for (index_t i = 0; i < wanted && done; ++i) {
      done = std::exp(-t * (1.0 - theta(i))) * residual.col(i).norm() <= kTolerance;
    }
    if (done) {
      *W = Eigen::MatrixXd(X.leftCols(wanted));
      for (index_t i = 0; i < wanted; ++i) W->col(i) *= std::exp(-0.5 * t * (1.0 - theta(i)));
      *n_modes = wanted;
      *n_sweeps = sweep;
      return true;
    }
  }
  return false;
}

/// Eigen's dense decomposition of N (eigenvalues increasing).
std::shared_ptr<EigenJob> dense_decomposition(const Graph& g) {
  const index_t n = g.n;
  Eigen::MatrixXd N = Eigen::MatrixXd::Zero(n, n);
  for (index_t i = 0; i < n; ++i) {
    for (index_t p = g.start[i]; p < g.start[i + 1]; ++p) N(i, g.column[p]) = g.weight[p];
  }
  check_interrupt();
  std::shared_ptr<EigenJob> job = interruptible_eigensolver(std::move(N));
  if (job->eig.info() != Eigen::Success) {
    throw InvalidArgument("graph_kernel: the eigendecomposition of the graph did not converge");
  }
  check_interrupt();
  return job;
}

/// W (n, n) of exp(-t L) = W W^T from Eigen's dense decomposition of N.
Eigen::MatrixXd all_modes(const Graph& g, double t) {
  const std::shared_ptr<EigenJob> job = dense_decomposition(g);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>& eig = job->eig;
  Eigen::MatrixXd W = eig.eigenvectors();
  for (index_t c = 0; c < g.n; ++c) W.col(c) *= std::exp(-0.5 * t * (1.0 - eig.eigenvalues()(c)));
  return W;
}

/// The m modes of N with the largest eigenvalues (largest first), by
/// Chebyshev-filtered subspace iteration on a block of b = m + max(8, m)
/// vectors: each sweep damps [-1, cut] with filter_degree(cut), cut the
/// block's smallest Ritz value of the sweep before (a lower bound of the b-th
/// eigenvalue, so every wanted mode lies above it). Done when every wanted
/// residual ||N v - theta v|| is below 1e-9 (||N|| = 1); at most kMaxSweeps
/// sweeps, then the last Ritz pairs (their largest residual is reported).
/// Graphs with fewer than 4 b points are decomposed densely.
void top_modes(const Graph& g, index_t m, const RunOptions& run, Eigen::MatrixXd* V,
               Eigen::VectorXd* theta, int* n_sweeps, double* worst_residual) {
  constexpr int kMaxSweeps = 100;
  constexpr double kTolerance = 1e-9;
  const index_t n = g.n, b = m + std::max<index_t>(8, m);
  if (4 * b > n) {
    const std::shared_ptr<EigenJob> job = dense_decomposition(g);
    *V = job->eig.eigenvectors().rightCols(m).rowwise().reverse();
    *theta = job->eig.eigenvalues().tail(m).reverse();
    *n_sweeps = 0;
    *worst_residual = 0.0;
    return;
  }
  Rng rng(run.seed, Stream::graph_spectrum);
  RowMatrix<double> X(n, b);
  random_columns(rng, &X, 0);
  double cut = 0.0;
  for (int sweep = 1;; ++sweep) {
    check_interrupt();
    Eigen::VectorXd values;
    Eigen::MatrixXd NX;
    if (!ritz_sweep(g, cut, filter_degree(cut), run.n_threads, &X, &values, &NX)) {
      throw InvalidArgument("graph_modes: the Rayleigh-Ritz step did not converge");
    }
    const Eigen::MatrixXd residual =
        NX.leftCols(m) - Eigen::MatrixXd(X.leftCols(m)) * values.head(m).asDiagonal();
    double worst = 0.0;
    for (index_t i = 0; i < m; ++i) worst = std::max(worst, residual.col(i).norm());
    // The damped interval must stay below 1 for the filter's map.
    cut = std::min(values(b - 1), 1.0 - 1e-9);
    if (worst <= kTolerance || sweep == kMaxSweeps) {
      *V = Eigen::MatrixXd(X.leftCols(m));
      *theta = values.head(m);
      *n_sweeps = sweep;
      *worst_residual = worst;
      return;
    }
  }
}

/// The exact k-nn lists of the rows (n^2 distance evaluations) and their
/// symmetrised graph.
template <typename T>
Graph knn_graph(const DataView<T>& data, index_t nn, const RunOptions& run, PhaseCosts* costs) {
  const index_t n = data.n;
  std::vector<index_t> nbr(n * nn);
  CenterTiles<T> tiles(data.x, n, data.d);
  KnnHandler h{nn, nbr.data()};
  scan_nearest(DataView<T>{data.x, n, data.d, nullptr}, tiles, static_cast<int>(nn + 1), h,
               run.n_threads, 2.0 * static_cast<double>(data.d));
  costs->n_distance_evals.seeding = n * n;
  check_interrupt();
  return symmetrised_graph(nbr, n, nn);
}

template <typename T>
void check_graph_input(const DataView<T>& data, const GraphKernelParams& params,
                       const std::string& w) {
  require(data.n >= 2 && data.d >= 1 && data.x != nullptr,
          w + ": X must have at least 2 rows and 1 column");
  require(params.n_neighbors >= 1 && params.n_neighbors < data.n,
          w + ": n_neighbors must be in [1, n - 1]");
  require(data.n <= 2147483647LL, w + ": too many points");
}

}  // namespace
}  // namespace detail

template <typename T>
PhaseCosts graph_kernel(const DataView<T>& data, const GraphKernelParams& params,
                        const RunOptions& run, T* kernel) {
  using namespace detail;
  const std::string w = "graph_kernel";
  check_graph_input(data, params, w);
  require(params.type != GraphKernelType::heat || (std::isfinite(params.t) && params.t > 0.0),
          w + ": t must be > 0");
  require(kernel != nullptr, w + ": the output kernel is a null pointer");
  Stopwatch clock;
  PhaseCosts costs;
  const index_t n = data.n, nn = params.n_neighbors;
  const Graph g = knn_graph(data, nn, run, &costs);
  constexpr index_t kRows = 64;
  char how[96] = "";
  if (params.type == GraphKernelType::knn) {
    parallel_for(n, run.n_threads, [&](index_t i) {
      T* row = kernel + i * n;
      std::fill(row, row + n, T(0));
      for (index_t p = g.start[i]; p < g.start[i + 1]; ++p) {
        row[g.column[p]] = static_cast<T>(1.0 / (g.degree[i] * g.degree[g.column[p]]));
      }
    }, 2.0 * n);
  } else {
    Eigen::MatrixXd W;
    index_t modes = 0;
    int sweeps = 0;
    if (params.t > kHeatDenseMaxT && slow_modes(g, params.t, run, &W, &modes, &sweeps)) {
      std::snprintf(how, sizeof how, ", %lld slowest modes in %d sweeps",
                    static_cast<long long>(modes), sweeps);
    } else {
      W = all_modes(g, params.t);
      std::snprintf(how, sizeof how, ", dense eigendecomposition");
    }
    // The upper triangle by row blocks, then the lower one copied from it:
    // symmetric to the last bit.
    parallel_for(n_chunks(n, kRows), run.n_threads, [&](index_t t) {
      const index_t r0 = t * kRows, nr = std::min(kRows, n - r0);
      const Eigen::MatrixXd blk = W.middleRows(r0, nr) * W.bottomRows(n - r0).transpose();
      for (index_t i = 0; i < nr; ++i) {
        for (index_t j = r0 + i; j < n; ++j) {
          kernel[(r0 + i) * n + j] = static_cast<T>(blk(i, j - r0));
        }
      }
    }, static_cast<double>(kRows) * n * static_cast<double>(W.cols()));
    parallel_for(n_chunks(n, kRows), run.n_threads, [&](index_t t) {
      const index_t r1 = std::min(n, (t + 1) * kRows);
      for (index_t i = t * kRows; i < r1; ++i) {
        for (index_t j = 0; j < i; ++j) kernel[i * n + j] = kernel[j * n + i];
      }
    }, static_cast<double>(kRows) * n);
  }
  costs.timings.seeding = clock.seconds();
  log_line(run.log, "graph kernel (%s, %lld neighbours) of %lld points%s (%.2f s)",
           params.type == GraphKernelType::knn ? "k-nn" : "heat", static_cast<long long>(nn),
           static_cast<long long>(n), how, costs.timings.seeding);
  return costs;
}

template <typename T>
PhaseCosts graph_modes(const DataView<T>& data, const GraphKernelParams& params, index_t n_modes,
                       const RunOptions& run, T* features) {
  using namespace detail;
  const std::string w = "graph_modes";
  check_graph_input(data, params, w);
  require(n_modes >= 1 && n_modes <= data.n, w + ": n_modes must be in [1, n]");
  require(features != nullptr, w + ": the output features are a null pointer");
  Stopwatch clock;
  PhaseCosts costs;
  const index_t n = data.n, m = n_modes;
  const Graph g = knn_graph(data, params.n_neighbors, run, &costs);
  const double graph_seconds = clock.seconds();
  Eigen::MatrixXd V;
  Eigen::VectorXd theta;
  int sweeps = 0;
  double residual = 0.0;
  top_modes(g, m, run, &V, &theta, &sweeps, &residual);
  parallel_for(n, run.n_threads, [&](index_t i) {
    const double scale = 1.0 / std::sqrt(g.degree[i]);
    for (index_t c = 0; c < m; ++c) {
      features[i * m + c] = static_cast<T>(V(i, c) * std::sqrt(std::max(theta(c), 0.0)) * scale);
    }
  }, 2.0 * static_cast<double>(m));
  costs.timings.seeding = clock.seconds();
  log_line(run.log,
           "graph modes (k-nn, %lld neighbours) of %lld points: %lld slowest, eigenvalues %.6g to "
           "%.6g, %d sweeps, residual %.1e (graph %.2f s, modes %.2f s)",
           static_cast<long long>(params.n_neighbors), static_cast<long long>(n),
           static_cast<long long>(m), theta(0), theta(m - 1), sweeps, residual, graph_seconds,
           costs.timings.seeding - graph_seconds);
  return costs;
}

template PhaseCosts graph_kernel<float>(const DataView<float>&, const GraphKernelParams&,
                                        const RunOptions&, float*);
template PhaseCosts graph_kernel<double>(const DataView<double>&, const GraphKernelParams&,
                                         const RunOptions&, double*);
template PhaseCosts graph_modes<float>(const DataView<float>&, const GraphKernelParams&, index_t,
                                       const RunOptions&, float*);
template PhaseCosts graph_modes<double>(const DataView<double>&, const GraphKernelParams&,
                                        index_t, const RunOptions&, double*);

}  // namespace vcgmm
