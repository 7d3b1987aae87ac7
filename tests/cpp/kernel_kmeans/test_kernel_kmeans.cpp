// Kernel k-means (kernel_kmeans.hpp): brute-force double references on
// small data (the full kernel matrix, dense coefficient vectors), the
// truncated algorithm's invariants, determinism over 1/2/3 threads, argument
// checks and interruption.
#include <doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>
#include <type_traits>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

/// Dense (k, n) coefficients of fitted centers.
std::vector<double> dense(const vcgmm::KernelCenters& c, index_t n) {
  const index_t k = static_cast<index_t>(c.sqnorm.size());
  std::vector<double> a(static_cast<size_t>(k * n), 0.0);
  for (index_t j = 0; j < k; ++j) {
    for (index_t t = c.indptr[j]; t < c.indptr[j + 1]; ++t) a[j * n + c.support[c.index[t]]] += c.coef[t];
  }
  return a;
}

/// The rbf kernel matrix in double.
template <typename T>
std::vector<double> rbf_matrix(const std::vector<T>& x, index_t n, index_t d, double gamma) {
  std::vector<double> K(static_cast<size_t>(n * n));
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) K[i * n + j] = std::exp(-gamma * naive_d2(&x[i * d], &x[j * d], d));
  }
  return K;
}

vcgmm::KernelKMeansParams params(index_t k, vcgmm::KernelKMeansAlgorithm algo, int threads = 1) {
  vcgmm::KernelKMeansParams p;
  p.n_clusters = k;
  p.algorithm = algo;
  p.kernel.gamma = 0.2;
  p.batch_size = 32;
  p.tau = 40;
  p.max_iter = 25;
  p.run = run_options(7, threads);
  return p;
}

}  // namespace

TEST_CASE("truncated centers are convex and their norms match the window") {
  const index_t n = 300, d = 4, k = 4;
  const auto x = blobs<double>(n, d, k, 6.0, 1.0, 11);
  const auto K = rbf_matrix(x, n, d, 0.2);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  for (auto rate : {vcgmm::LearningRate::beta, vcgmm::LearningRate::sklearn}) {
    for (index_t tau : {1, 10, 40, 200}) {
      CAPTURE(tau);
      auto p = params(k, vcgmm::KernelKMeansAlgorithm::truncated);
      p.learning_rate = rate;
      p.tau = tau;
      const auto r = vcgmm::fit_kernel_kmeans(data, p, nullptr, nullptr);
      CHECK(r.n_iter == 25);
      const auto a = dense(r.centers, n);
      for (index_t j = 0; j < k; ++j) {
        double sum = 0.0, q = 0.0;
        for (index_t t = r.centers.indptr[j]; t < r.centers.indptr[j + 1]; ++t) {
          CHECK(r.centers.coef[t] > 0.0);
          sum += r.centers.coef[t];
        }
        // Each center: at most tau + b points (its window), never fewer
        // than min(tau, what it was given).
        CHECK(r.centers.indptr[j + 1] - r.centers.indptr[j] <= tau + p.batch_size);
        for (index_t u = 0; u < n; ++u) {
          for (index_t v = 0; v < n; ++v) q += a[j * n + u] * a[j * n + v] * K[u * n + v];
        }
        CHECK(sum == doctest::Approx(1.0).epsilon(1e-13));
        CHECK(r.centers.sqnorm[j] == doctest::Approx(q).epsilon(1e-11));
      }
    }
  }
}

TEST_CASE("truncation with tau beyond all points drawn is the untruncated algorithm") {
  const index_t n = 200, d = 3, k = 3;
  const auto x = gaussian<double>(n, d, 12);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  auto pt = params(k, vcgmm::KernelKMeansAlgorithm::truncated);
  pt.tau = 25 * 32;
  auto pu = params(k, vcgmm::KernelKMeansAlgorithm::minibatch);
  std::vector<std::int32_t> lt(n), lu(n);
  const auto rt = vcgmm::fit_kernel_kmeans(data, pt, nullptr, lt.data());
  const auto ru = vcgmm::fit_kernel_kmeans(data, pu, nullptr, lu.data());
  CHECK(lt == lu);
  CHECK(rt.init_indices == ru.init_indices);
  const auto at = dense(rt.centers, n), au = dense(ru.centers, n);
  for (size_t i = 0; i < at.size(); ++i) CHECK(at[i] == doctest::Approx(au[i]).epsilon(1e-12));
  for (index_t j = 0; j < k; ++j) {
    CHECK(rt.centers.sqnorm[j] == doctest::Approx(ru.centers.sqnorm[j]).epsilon(1e-12));
  }
  CHECK(rt.inertia == doctest::Approx(ru.inertia).epsilon(1e-12));
}

TEST_CASE_TEMPLATE("full batch with the linear kernel is Lloyd", T, float, double) {
  const index_t n = 500, d = 5, k = 5;
  const auto x = blobs<T>(n, d, k, 8.0, 1.5, 13);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  const std::vector<index_t> init = {0, 10, 100, 200, 300};
  auto p = params(k, vcgmm::KernelKMeansAlgorithm::full);
  p.kernel.type = vcgmm::KernelType::linear;
  p.max_iter = 100;
  std::vector<std::int32_t> labels(n);
  const auto r = vcgmm::fit_kernel_kmeans(data, p, init.data(), labels.data());
  CHECK(r.converged);
  auto centers = gather_rows(x, d, init);
  vcgmm::LloydParams lp;
  lp.tol = 0.0;
  lp.max_iter = 100;
  const auto lr = vcgmm::lloyd(data, k, lp, run_options(0, 1), centers.data());
  CHECK(lr.converged);
  std::vector<std::int32_t> lloyd_labels(n);
  vcgmm::assign_nearest(data, centers.data(), k, lloyd_labels.data(), nullptr, 1);
  CHECK(labels == lloyd_labels);
  const double q = naive_quantization_error(x.data(), n, d, nullptr, centers.data(), k);
  CHECK(r.inertia == doctest::Approx(q).epsilon(std::is_same<T, float>::value ? 1e-4 : 1e-9));
}

TEST_CASE("predict reproduces the training labels and the feature-space distances") {
  const index_t n = 400, d = 3, k = 3;
  const auto x = blobs<double>(n, d, k, 5.0, 1.0, 14);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  for (auto algo : {vcgmm::KernelKMeansAlgorithm::truncated, vcgmm::KernelKMeansAlgorithm::minibatch,
                    vcgmm::KernelKMeansAlgorithm::full}) {
    std::vector<std::int32_t> labels(n), pred(n);
    const auto r = vcgmm::fit_kernel_kmeans(data, params(k, algo), nullptr, labels.data());
    const auto sv = gather_rows(x, d, r.centers.support);
    std::vector<double> dist(n * k);
    const auto costs = vcgmm::kernel_kmeans_predict(data, r.kernel, r.centers, sv.data(),
                                                    run_options(0, 2), pred.data(), dist.data());
    CHECK(pred == labels);
    CHECK(costs.n_distance_evals.evaluation ==
          n * static_cast<index_t>(r.centers.coef.size()));
    double inertia = 0.0;
    for (index_t i = 0; i < n; ++i) inertia += dist[i * k + pred[i]];
    CHECK(inertia == doctest::Approx(r.inertia).epsilon(1e-9));
  }
}

TEST_CASE("kernel evaluation counts of the full and mini-batch algorithms") {
  const index_t n = 250, d = 2, k = 3;
  const auto x = gaussian<double>(n, d, 15);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  auto p = params(k, vcgmm::KernelKMeansAlgorithm::full);
  const auto rf = vcgmm::fit_kernel_kmeans(data, p, nullptr, nullptr);
  CHECK(rf.n_distance_evals.seeding == (k - 1) * n);
  CHECK(rf.n_distance_evals.iterations == n * k + rf.n_iter * n * n);
  p.algorithm = vcgmm::KernelKMeansAlgorithm::minibatch;
  const auto rm = vcgmm::fit_kernel_kmeans(data, p, nullptr, nullptr);
  CHECK(rm.n_distance_evals.iterations >= n * k + rm.n_iter * n * 1);
  CHECK(rm.n_distance_evals.iterations <= n * k + rm.n_iter * n * p.batch_size);
  CHECK(rm.n_distance_evals.evaluation == 0);
}

TEST_CASE_TEMPLATE("kernel k-means does not depend on the thread count", T, float, double) {
  // 3000 rows: 12 blocks of 256 rows; k = 6 update tasks; a kernel-matrix
  // fit of 3000 points.
  const index_t n = 3000, d = 5, k = 6;
  const auto x = blobs<T>(n, d, k, 6.0, 1.0, 16);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  for (auto algo : {vcgmm::KernelKMeansAlgorithm::truncated, vcgmm::KernelKMeansAlgorithm::minibatch,
                    vcgmm::KernelKMeansAlgorithm::full}) {
    for (auto type : {vcgmm::KernelType::rbf, vcgmm::KernelType::laplacian,
                      vcgmm::KernelType::polynomial}) {
      CAPTURE(static_cast<int>(algo));
      CAPTURE(static_cast<int>(type));
      std::vector<std::int32_t> ref_labels;
      vcgmm::KernelKMeansResult ref;
      for (int nt : {1, 2, 3}) {
        auto p = params(k, algo, nt);
        p.kernel.type = type;
        p.kernel.gamma = 0.0;  // auto: the heuristic's draws too
        p.batch_size = 600;
        p.tau = 300;
        p.max_iter = algo == vcgmm::KernelKMeansAlgorithm::full ? 3 : 6;
        p.tol = 1e-12;
        std::vector<std::int32_t> labels(n);
        const auto r = vcgmm::fit_kernel_kmeans(data, p, nullptr, labels.data());
        if (nt == 1) {
          ref = r;
          ref_labels = labels;
          continue;
        }
        CHECK(labels == ref_labels);
        CHECK(bitwise_equal(r.objective, ref.objective));
        CHECK(bitwise_equal(r.centers.coef, ref.centers.coef));
        CHECK(bitwise_equal(r.centers.sqnorm, ref.centers.sqnorm));
        CHECK(r.centers.support == ref.centers.support);
        CHECK(bitwise_equal(r.inertia, ref.inertia));
        CHECK(bitwise_equal(r.kernel.gamma, ref.kernel.gamma));
        CHECK(r.n_distance_evals.iterations == ref.n_distance_evals.iterations);
      }
    }
  }
}

TEST_CASE("graph kernels are symmetric, knn has the graph's sparsity") {
  const index_t n = 150, d = 2;
  const auto x = gaussian<double>(n, d, 17);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  vcgmm::GraphKernelParams g;
  g.n_neighbors = 5;
  std::vector<double> K(n * n), K2(n * n);
  vcgmm::graph_kernel(data, g, run_options(0, 1), K.data());
  vcgmm::graph_kernel(data, g, run_options(0, 3), K2.data());
  CHECK(bitwise_equal(K, K2));
  for (index_t i = 0; i < n; ++i) {
    index_t nonzero = 0;
    CHECK(K[i * n + i] == 0.0);  // no self loops
    for (index_t j = 0; j < n; ++j) {
      CHECK(K[i * n + j] == K[j * n + i]);
      nonzero += K[i * n + j] != 0.0;
    }
    CHECK(nonzero >= 5);
  }
  g.type = vcgmm::GraphKernelType::heat;
  g.t = 5.0;
  vcgmm::graph_kernel(data, g, run_options(0, 2), K.data());
  double trace = 0.0;
  for (index_t i = 0; i < n; ++i) {
    trace += K[i * n + i];
    for (index_t j = 0; j < n; ++j) CHECK(K[i * n + j] == K[j * n + i]);
  }
  CHECK(trace > 0.0);
  CHECK(trace < static_cast<double>(n));  // exp(-t L) has eigenvalues in (0, 1]
}

TEST_CASE("the heat kernel from the graph's slowest modes is exp(-t L)") {
  // At t = 500 and 1000 only the modes with exp(-t (1 - lambda)) >= 1e-12 are
  // kept (the filtered subspace path); the semigroup law exp(-500 L)^2 =
  // exp(-1000 L) and the stationary mode D^1/2 1 (eigenvalue 1 of N, kept
  // by every exp(-t L)) hold to rounding, and threads change no bit.
  const index_t n = 300, d = 2;
  const auto x = gaussian<double>(n, d, 29);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  vcgmm::GraphKernelParams g;
  g.type = vcgmm::GraphKernelType::heat;
  g.n_neighbors = 8;
  std::vector<double> half(n * n), full(n * n), full3(n * n), knn(n * n);
  g.t = 500.0;
  vcgmm::graph_kernel(data, g, run_options(0, 1), half.data());
  g.t = 1000.0;
  vcgmm::graph_kernel(data, g, run_options(0, 1), full.data());
  vcgmm::graph_kernel(data, g, run_options(0, 3), full3.data());
  CHECK(bitwise_equal(full, full3));
  double largest = 0.0, worst = 0.0;
  for (double v : full) largest = std::max(largest, std::fabs(v));
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (index_t l = 0; l < n; ++l) s += half[i * n + l] * half[l * n + j];
      worst = std::max(worst, std::fabs(s - full[i * n + j]));
    }
  }
  CHECK(worst <= 1e-9 * largest);
  g.type = vcgmm::GraphKernelType::knn;
  vcgmm::graph_kernel(data, g, run_options(0, 1), knn.data());
  std::vector<double> root(n);  // D^1/2 1, from the knn kernel's sparsity
  for (index_t i = 0; i < n; ++i) {
    index_t degree = 0;
    for (index_t j = 0; j < n; ++j) degree += knn[i * n + j] != 0.0;
    root[i] = std::sqrt(static_cast<double>(degree));
  }
  worst = 0.0;
  double scale = 0.0;
  for (index_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (index_t j = 0; j < n; ++j) s += full[i * n + j] * root[j];
    worst = std::max(worst, std::fabs(s - root[i]));
    scale = std::max(scale, root[i]);
  }
  CHECK(worst <= 1e-9 * scale);
}

TEST_CASE("the knn kernel's slowest modes of a two-component graph are its components") {
  // Two far-apart blobs: the k-nn graph has two components, so the two modes
  // of eigenvalue 1 span D^1/2 times their indicators and Z Z^T is 1 / vol
  // of the common component (0 across): a closed form, whatever rotation
  // the solver returns. n = 300 takes the filtered subspace iteration.
  const index_t n = 300, d = 2, m = 2;
  auto x = gaussian<double>(n, d, 31);
  for (index_t i = n / 2; i < n; ++i) x[i * d] += 100.0;
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  vcgmm::GraphKernelParams g;
  g.n_neighbors = 6;
  std::vector<double> z(n * m), z3(n * m), knn(n * n);
  vcgmm::graph_modes(data, g, m, run_options(0, 1), z.data());
  vcgmm::graph_modes(data, g, m, run_options(0, 3), z3.data());
  CHECK(bitwise_equal(z, z3));
  vcgmm::graph_kernel(data, g, run_options(0, 1), knn.data());
  double vol[2] = {0.0, 0.0};
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) vol[i >= n / 2] += knn[i * n + j] != 0.0;
  }
  double worst = 0.0;
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < n; ++j) {
      const double zz = z[i * m] * z[j * m] + z[i * m + 1] * z[j * m + 1];
      const double want = (i >= n / 2) == (j >= n / 2) ? 1.0 / vol[i >= n / 2] : 0.0;
      worst = std::max(worst, std::fabs(zz - want));
    }
  }
  CHECK(worst <= 1e-9 / vol[0]);
  CHECK_THROWS_AS(vcgmm::graph_modes(data, g, 0, run_options(0, 1), z.data()),
                  vcgmm::InvalidArgument);
  CHECK_THROWS_AS(vcgmm::graph_modes(data, g, n + 1, run_options(0, 1), z.data()),
                  vcgmm::InvalidArgument);
  g.n_neighbors = n;
  CHECK_THROWS_AS(vcgmm::graph_modes(data, g, m, run_options(0, 1), z.data()),
                  vcgmm::InvalidArgument);
}

TEST_CASE("kernel k-means with sample weights: integer weights are repeated rows (full batch)") {
  const index_t n = 40, d = 3, k = 3;
  const auto x = gaussian<double>(n, d, 21);
  std::vector<double> w(n);
  std::vector<double> xr;
  std::vector<index_t> first(n);
  for (index_t i = 0; i < n; ++i) {
    w[i] = static_cast<double>(1 + (i * 7) % 3);
    first[i] = static_cast<index_t>(xr.size() / d);
    for (int c = 0; c < static_cast<int>(w[i]); ++c) xr.insert(xr.end(), &x[i * d], &x[(i + 1) * d]);
  }
  const index_t nr = static_cast<index_t>(xr.size() / d);
  auto p = params(k, vcgmm::KernelKMeansAlgorithm::full);
  p.max_iter = 50;
  const std::vector<index_t> init = {0, 11, 29}, init_r = {first[0], first[11], first[29]};
  std::vector<std::int32_t> la(n), lb(nr);
  const auto a = vcgmm::fit_kernel_kmeans(vcgmm::DataView<double>{x.data(), n, d, w.data()}, p,
                                          init.data(), la.data());
  const auto b = vcgmm::fit_kernel_kmeans(vcgmm::DataView<double>{xr.data(), nr, d, nullptr}, p,
                                          init_r.data(), lb.data());
  CHECK(a.converged);
  CHECK(a.n_iter == b.n_iter);
  CHECK(a.inertia == doctest::Approx(b.inertia).epsilon(1e-12));
  for (index_t i = 0; i < n; ++i) CHECK(la[i] == lb[first[i]]);
  for (index_t j = 0; j < k; ++j) CHECK(a.centers.sqnorm[j] == doctest::Approx(b.centers.sqnorm[j]).epsilon(1e-12));
}

TEST_CASE("kernel k-means argument checks") {
  const index_t n = 20, d = 2;
  const auto x = gaussian<double>(n, d, 18);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  auto fit = [&](const vcgmm::KernelKMeansParams& p, const vcgmm::DataView<double>& v) {
    return vcgmm::fit_kernel_kmeans(v, p, nullptr, nullptr);
  };
  auto p = params(2, vcgmm::KernelKMeansAlgorithm::truncated);
  p.batch_size = 8;
  CHECK_NOTHROW(fit(p, data));
  auto bad = p;
  bad.batch_size = 21;
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  bad = p;
  bad.batch_size = 0;
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  bad = p;
  bad.tau = 0;
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  bad = p;
  bad.kernel.gamma = -1.0;
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  bad = p;
  bad.n_clusters = 21;
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  bad = p;
  bad.max_iter = 0;
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  bad = p;
  bad.tol = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  bad = p;
  bad.kernel.type = vcgmm::KernelType::precomputed;  // (20, 2) is not square
  CHECK_THROWS_AS(fit(bad, data), vcgmm::InvalidArgument);
  // Sample weights: finite and > 0.
  std::vector<double> w(n, 1.0);
  CHECK_NOTHROW(fit(p, vcgmm::DataView<double>{x.data(), n, d, w.data()}));
  for (double bad_w : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN(),
                       std::numeric_limits<double>::infinity()}) {
    w[5] = bad_w;
    CHECK_THROWS_AS(fit(p, vcgmm::DataView<double>{x.data(), n, d, w.data()}),
                    vcgmm::InvalidArgument);
  }
  const std::vector<index_t> init = {0, 20};
  CHECK_THROWS_AS(vcgmm::fit_kernel_kmeans(data, p, init.data(), nullptr), vcgmm::InvalidArgument);
  // Full batch ignores the batch size.
  bad = p;
  bad.algorithm = vcgmm::KernelKMeansAlgorithm::full;
  bad.batch_size = 1000;
  CHECK_NOTHROW(fit(bad, data));
  // predict: unresolved gamma, inconsistent centers.
  auto r = fit(p, data);
  const auto sv = gather_rows(x, d, r.centers.support);
  std::vector<std::int32_t> labels(n);
  auto kernel = r.kernel;
  kernel.gamma = 0.0;
  CHECK_THROWS_AS(vcgmm::kernel_kmeans_predict(data, kernel, r.centers, sv.data(), run_options(0, 1),
                                               labels.data(), nullptr),
                  vcgmm::InvalidArgument);
  auto centers = r.centers;
  centers.index.back() = static_cast<index_t>(centers.support.size());
  CHECK_THROWS_AS(vcgmm::kernel_kmeans_predict(data, r.kernel, centers, sv.data(), run_options(0, 1),
                                               labels.data(), nullptr),
                  vcgmm::InvalidArgument);
  vcgmm::GraphKernelParams g;
  g.n_neighbors = n;
  std::vector<double> K(n * n);
  CHECK_THROWS_AS(vcgmm::graph_kernel(data, g, run_options(0, 1), K.data()), vcgmm::InvalidArgument);
}

TEST_CASE("polynomial kernels beyond the data type's range or precision are refused") {
  const index_t n = 200, d = 64;
  std::vector<float> xf(n * d);
  for (index_t k = 0; k < n * d; ++k) xf[k] = static_cast<float>((k * 7919) % 256);  // pixels
  const std::vector<double> xd(xf.begin(), xf.end());
  auto p = params(3, vcgmm::KernelKMeansAlgorithm::truncated);
  p.kernel.type = vcgmm::KernelType::polynomial;
  p.kernel.gamma = 0.0;  // 1 / d
  p.kernel.degree = 10;  // (gamma <x, y> + 1)^10 reaches ~1e48
  const vcgmm::DataView<float> f{xf.data(), n, d, nullptr};
  CHECK_THROWS_AS(vcgmm::fit_kernel_kmeans(f, p, nullptr, nullptr), vcgmm::InvalidArgument);
  const vcgmm::KernelKMeansResult r =
      vcgmm::fit_kernel_kmeans(vcgmm::DataView<double>{xd.data(), n, d, nullptr}, p, nullptr,
                               nullptr);
  CHECK(std::isfinite(r.inertia));
  // predict on float rows that overflow the fitted kernel
  std::vector<float> small(xf);
  for (float& v : small) v /= 255.0f;
  const vcgmm::KernelKMeansResult rs = vcgmm::fit_kernel_kmeans(
      vcgmm::DataView<float>{small.data(), n, d, nullptr}, p, nullptr, nullptr);
  const auto sv = gather_rows(small, d, rs.centers.support);
  std::vector<std::int32_t> labels(n);
  CHECK_THROWS_AS(vcgmm::kernel_kmeans_predict(f, rs.kernel, rs.centers, sv.data(),
                                               run_options(0, 1), labels.data(), nullptr),
                  vcgmm::InvalidArgument);
  // degree 200 on N(0, 1): K(x, x) spans ~70 orders of magnitude
  const auto g = gaussian<double>(n, 8, 31);
  p.kernel.degree = 200;
  CHECK_THROWS_AS(vcgmm::fit_kernel_kmeans(vcgmm::DataView<double>{g.data(), n, 8, nullptr}, p,
                                           nullptr, nullptr),
                  vcgmm::InvalidArgument);
}

namespace {
std::atomic<int> g_kernel_calls{0};
std::thread::id g_kernel_caller;
std::atomic<bool> g_kernel_wrong_thread{false};
bool stop_after_three_calls() {
  if (std::this_thread::get_id() != g_kernel_caller) g_kernel_wrong_thread = true;
  return ++g_kernel_calls >= 3;
}
}  // namespace

TEST_CASE("kernel k-means stops when interrupted, from the calling thread") {
  // 10^6 mini-batches of 512 points against ~3 x 712 window points: hours,
  // far longer than the ~0.3 s the callback lets it run.
  const index_t n = 20000, d = 8;
  const auto x = gaussian<double>(n, d, 19);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  g_kernel_calls = 0;
  g_kernel_caller = std::this_thread::get_id();
  g_kernel_wrong_thread = false;
  InterruptCallbackGuard guard(&stop_after_three_calls);
  for (auto algo : {vcgmm::KernelKMeansAlgorithm::truncated, vcgmm::KernelKMeansAlgorithm::full}) {
    g_kernel_calls = 0;
    auto p = params(3, algo, 2);
    p.batch_size = 512;
    p.max_iter = 1000000;
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_AS(vcgmm::fit_kernel_kmeans(data, p, nullptr, nullptr), vcgmm::Interrupted);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  }
  CHECK_FALSE(g_kernel_wrong_thread.load());
}

TEST_CASE("the heat kernel's eigendecomposition stops when interrupted") {
  // One Eigen call of several seconds for n = 2000: it runs on a worker thread
  // while the calling thread polls; the third poll (~0.2 s) stops the call.
  const index_t n = 2000, d = 4;
  const auto x = gaussian<double>(n, d, 23);
  vcgmm::GraphKernelParams g;
  g.type = vcgmm::GraphKernelType::heat;
  g.t = 1.0;  // every mode weighs: the dense decomposition
  g.n_neighbors = 10;
  std::vector<double> K(n * n);
  g_kernel_calls = 0;
  g_kernel_caller = std::this_thread::get_id();
  g_kernel_wrong_thread = false;
  InterruptCallbackGuard guard(&stop_after_three_calls);
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(vcgmm::graph_kernel(vcgmm::DataView<double>{x.data(), n, d, nullptr}, g,
                                      run_options(0, 2), K.data()),
                  vcgmm::Interrupted);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  CHECK_FALSE(g_kernel_wrong_thread.load());
}
