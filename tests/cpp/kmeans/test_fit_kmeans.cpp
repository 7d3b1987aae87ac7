// fit_kmeans: the "k-means++" and "LWCS" baselines in one call. Checks the
// documented distance bookkeeping, that the pipeline is exactly the
// composition of its public pieces, and that labels/inertia describe the
// returned centers.
#include <doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

constexpr index_t kN = 6000;
constexpr index_t kD = 5;

template <typename T>
struct Fixture {
  std::vector<T> x = blobs<T>(kN, kD, 15, 30.0, 1.5, 201);
  std::vector<double> w = positive_weights(kN, 202);
  vcgmm::DataView<T> view(bool weighted) const {
    return vcgmm::DataView<T>{x.data(), kN, kD, weighted ? w.data() : nullptr};
  }
};

template <typename T>
struct Fit {
  std::vector<T> centers;
  std::vector<std::int32_t> labels;
  std::vector<index_t> coreset_indices;
  std::vector<double> coreset_weights;
  vcgmm::KMeansResult result;
};

template <typename T>
Fit<T> run(const vcgmm::DataView<T>& data, const vcgmm::KMeansParams& p,
           const T* init_centers = nullptr) {
  Fit<T> f;
  f.centers.assign(p.n_clusters * data.d, T(-1));
  f.labels.assign(data.n, -7);
  f.coreset_indices.assign(p.coreset_size, -1);
  f.coreset_weights.assign(p.coreset_size, -1.0);
  f.result = vcgmm::fit_kmeans(
      data, p,
      vcgmm::FitBuffers<T>{init_centers, f.centers.data(), f.labels.data(),
                           p.coreset_size ? f.coreset_indices.data() : nullptr,
                           p.coreset_size ? f.coreset_weights.data() : nullptr});
  return f;
}

/// Labels and inertia must describe the returned centers on all points.
template <typename T>
void check_evaluation(const vcgmm::DataView<T>& data, const Fit<T>& f) {
  const index_t C = static_cast<index_t>(f.centers.size()) / data.d;
  std::vector<std::int32_t> labels(data.n, -1);
  const double q = vcgmm::assign_nearest(data, f.centers.data(), C, labels.data(), nullptr, 1).objective;
  CHECK(f.labels == labels);
  CHECK(bitwise_equal(f.result.inertia, q));
  CHECK(bitwise_equal(f.result.inertia, vcgmm::quantization_error(data, f.centers.data(), C, 3)));
  CHECK(std::isfinite(f.result.inertia));
}

void check_times(const vcgmm::KMeansResult& r) {
  CHECK(r.timings.coreset >= 0.0);
  CHECK(r.timings.seeding >= 0.0);
  CHECK(r.timings.iterations >= 0.0);
  CHECK(r.timings.evaluation >= 0.0);
  CHECK(r.timings.algorithm() == r.timings.coreset + r.timings.seeding + r.timings.iterations);
}

}  // namespace

TEST_CASE_TEMPLATE("fit_kmeans k-means++ baseline: bookkeeping and composition", T, float, double) {
  const Fixture<T> fx;
  for (bool weighted : {false, true}) {
    for (int trials : {1, 3}) {
      CAPTURE(weighted);
      CAPTURE(trials);
      const index_t C = 15;
      vcgmm::KMeansParams p;
      p.n_clusters = C;
      p.seeding.method = vcgmm::SeedingMethod::kmeans_plusplus;
      p.seeding.kmeans_plusplus.n_local_trials = trials;
      p.run.seed = 17;
      p.run.n_threads = 2;
      const vcgmm::DataView<T> data = fx.view(weighted);
      const Fit<T> f = run(data, p);
      const vcgmm::KMeansResult& r = f.result;

      const vcgmm::DistanceCounts& n = r.n_distance_evals;
      CHECK(n.coreset == 0);
      CHECK(n.seeding == (C - 1) * (trials == 1 ? 1 : trials + 1) * kN);
      // Lloyd's first iteration scans; its later ones and the evaluation
      // start from the last labels (fewer where the bounds pay: here they do).
      CHECK(n.iterations >= kN * C);
      CHECK(n.iterations < static_cast<std::int64_t>(r.n_iter) * kN * C);
      CHECK(n.evaluation > 0);
      CHECK(n.evaluation < kN * C);
      CHECK(n.algorithm() == n.coreset + n.seeding + n.iterations);
      CHECK(r.objective.size() == static_cast<size_t>(r.n_iter));
      CHECK(r.n_iter >= 1);
      check_times(r);
      check_evaluation(data, f);

      // The pipeline is k-means++ followed by Lloyd, nothing else.
      std::vector<T> c(C * kD);
      vcgmm::kmeans_plusplus(data, C, vcgmm::KMeansPlusPlusParams{trials}, run_options(17, 1),
                             c.data(), nullptr);
      vcgmm::LloydParams lp;
      lp.max_iter = p.lloyd.max_iter;
      lp.tol = p.lloyd.tol;
      const vcgmm::LloydResult lr = vcgmm::lloyd(data, C, lp, run_options(0, 1), c.data());
      CHECK(bitwise_equal(c, f.centers));
      CHECK(bitwise_equal(lr.objective, r.objective));
      CHECK(lr.n_iter == r.n_iter);
      CHECK(lr.converged == r.converged);
      // Lloyd on all points: the last objective is (at most) the inertia's
      // predecessor; the inertia of the final centers cannot be worse.
      CHECK(r.inertia <= r.objective.back() * (1.0 + 1e-6));
    }
  }
}

TEST_CASE_TEMPLATE("fit_kmeans LWCS baseline: bookkeeping and composition", T, float, double) {
  const Fixture<T> fx;
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const index_t C = 40, m = 1500;
    const int chain = 7;
    vcgmm::KMeansParams p;
    p.n_clusters = C;
    p.seeding.method = vcgmm::SeedingMethod::afkmc2;
    p.coreset_size = m;
    p.seeding.afkmc2.chain_length = chain;
    p.run.seed = 23;
    p.run.n_threads = 2;
    const vcgmm::DataView<T> data = fx.view(weighted);
    const Fit<T> f = run(data, p);
    const vcgmm::KMeansResult& r = f.result;

    const vcgmm::DistanceCounts& n = r.n_distance_evals;
    CHECK(n.coreset == kN);
    CHECK(n.seeding == m + static_cast<std::int64_t>(chain) * C * (C - 1) / 2);
    CHECK(n.iterations >= m * C);
    CHECK(n.iterations <= static_cast<std::int64_t>(r.n_iter) * m * C);
    CHECK(n.evaluation == kN * C);  // the coreset's labels do not cover the points
    check_times(r);
    check_evaluation(data, f);

    // The coreset outputs are lightweight_coreset's with the same seed.
    std::vector<index_t> idx(m);
    std::vector<double> gamma(m);
    vcgmm::lightweight_coreset(data, m, run_options(23, 1), idx.data(), gamma.data());
    CHECK(idx == f.coreset_indices);
    CHECK(bitwise_equal(gamma, f.coreset_weights));

    // AFK-MC^2 and weighted Lloyd on the gathered coreset give the same centers.
    const std::vector<T> rows = gather_rows(fx.x, kD, idx);
    const vcgmm::DataView<T> coreset{rows.data(), m, kD, gamma.data()};
    std::vector<T> c(C * kD);
    vcgmm::afkmc2(coreset, C, vcgmm::Afkmc2Params{chain}, run_options(23, 1), c.data(), nullptr);
    vcgmm::LloydParams lp;
    lp.max_iter = p.lloyd.max_iter;
    lp.tol = p.lloyd.tol;
    const vcgmm::LloydResult lr = vcgmm::lloyd(coreset, C, lp, run_options(0, 1), c.data());
    CHECK(bitwise_equal(c, f.centers));
    CHECK(bitwise_equal(lr.objective, r.objective));
    CHECK(lr.n_relocated == r.n_relocated);
  }
}

TEST_CASE_TEMPLATE("fit_kmeans with given centers is lloyd from them", T, float, double) {
  const Fixture<T> fx;
  const index_t C = 12;
  std::vector<index_t> rows;
  for (index_t k = 0; k < C; ++k) rows.push_back(13 * k + 1);
  const std::vector<T> init = gather_rows(fx.x, kD, rows);
  vcgmm::KMeansParams p;
  p.n_clusters = C;
  p.seeding.method = vcgmm::SeedingMethod::given;
  p.lloyd.max_iter = 50;
  p.lloyd.tol = 1e-6;
  p.run.seed = 99;
  const vcgmm::DataView<T> data = fx.view(true);
  const Fit<T> f = run(data, p, init.data());
  CHECK(f.result.n_distance_evals.seeding == 0);
  CHECK(f.result.n_distance_evals.coreset == 0);
  check_evaluation(data, f);
  std::vector<T> c = init;
  vcgmm::LloydParams lp;
  lp.max_iter = 50;
  lp.tol = 1e-6;
  const vcgmm::LloydResult lr = vcgmm::lloyd(data, C, lp, vcgmm::RunOptions{}, c.data());
  CHECK(bitwise_equal(c, f.centers));
  CHECK(bitwise_equal(lr.objective, f.result.objective));
  CHECK(f.result.n_distance_evals.iterations == lr.n_distance_evals.iterations);
  CHECK(lr.n_distance_evals.iterations < static_cast<std::int64_t>(lr.n_iter) * kN * C);
}

TEST_CASE("fit_kmeans without evaluation reports no inertia and no evaluation cost") {
  using T = double;
  const Fixture<T> fx;
  vcgmm::KMeansParams p;
  p.n_clusters = 10;
  p.coreset_size = 800;
  p.seeding.method = vcgmm::SeedingMethod::afkmc2;
  p.evaluate = false;
  std::vector<T> centers(10 * kD);
  vcgmm::FitBuffers<T> buffers;
  buffers.centers = centers.data();
  const vcgmm::KMeansResult r = vcgmm::fit_kmeans(fx.view(false), p, buffers);
  CHECK(std::isnan(r.inertia));
  CHECK(r.n_distance_evals.evaluation == 0);
  CHECK(r.timings.evaluation == 0.0);
  CHECK(r.n_distance_evals.coreset == kN);
  for (T v : centers) CHECK(std::isfinite(v));
}

TEST_CASE_TEMPLATE("fit_kmeans writes labels whenever a labels buffer is given", T, float, double) {
  // evaluate = false, but labels asked for: the evaluation runs anyway, its
  // labels and inertia describe the returned centers and its cost is counted.
  const Fixture<T> fx;
  const index_t C = 10;
  vcgmm::KMeansParams p;
  p.n_clusters = C;
  p.coreset_size = 800;
  p.seeding.method = vcgmm::SeedingMethod::afkmc2;
  p.evaluate = false;
  p.run.seed = 3;
  const vcgmm::DataView<T> data = fx.view(true);
  const Fit<T> f = run(data, p);
  CHECK(f.result.n_distance_evals.evaluation == kN * C);
  check_times(f.result);
  check_evaluation(data, f);
  // The fit itself does not depend on `evaluate`.
  p.evaluate = true;
  const Fit<T> g = run(data, p);
  CHECK(bitwise_equal(f.centers, g.centers));
  CHECK(f.labels == g.labels);
  CHECK(bitwise_equal(f.result.inertia, g.result.inertia));
  CHECK(bitwise_equal(f.result.objective, g.result.objective));
}

TEST_CASE("fit_kmeans logs every phase") {
  using T = float;
  const Fixture<T> fx;
  vcgmm::KMeansParams p;
  p.n_clusters = 6;
  p.coreset_size = 500;
  p.seeding.method = vcgmm::SeedingMethod::afkmc2;
  std::vector<std::string> lines;
  p.run.log = [&lines](const std::string& s) { lines.push_back(s); };
  std::vector<T> centers(6 * kD);
  vcgmm::FitBuffers<T> buffers;
  buffers.centers = centers.data();
  const vcgmm::KMeansResult r = vcgmm::fit_kmeans(fx.view(false), p, buffers);
  // coreset + seeding + one per Lloyd iteration + evaluation
  CHECK(lines.size() == static_cast<size_t>(r.n_iter) + 3);
  REQUIRE(!lines.empty());
  CHECK(lines.front().find("coreset") != std::string::npos);
  CHECK(lines.back().find("inertia") != std::string::npos);
}
