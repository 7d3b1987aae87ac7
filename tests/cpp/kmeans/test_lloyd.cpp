// Weighted Lloyd iterations: hand-computed toys, the stopping rule, the
// monotone objective and empty-cluster handling.
#include <doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

vcgmm::LloydParams params(int max_iter, double tol, bool relocate = true) {
  vcgmm::LloydParams p;
  p.max_iter = max_iter;
  p.tol = tol;
  p.relocate_empty = relocate;
  return p;
}

// Every run below uses two threads (no seed: Lloyd draws no random numbers).
const vcgmm::RunOptions kRun = run_options(0, 2);

// Objective slack for "non-increasing": the update rounds the double means to T.
template <typename T>
double monotone_slack() {
  return sizeof(T) == 4 ? 1e-6 : 1e-12;
}

}  // namespace

TEST_CASE_TEMPLATE("lloyd on the 1-D toy {0, 1, 10, 11}", T, float, double) {
  // From centers {0, 1}:
  //  it 1: labels {0, 1, 1, 1}, Q = 0 + 0 + 81 + 100 = 181, centers -> {0, 22/3}
  //  it 2: labels {0, 0, 1, 1}, Q = 1 + (8/3)^2 + (11/3)^2 = 194/9, centers -> {0.5, 10.5}
  //  it 3: labels unchanged (a fixed point), Q = 4 * 0.25 = 1.
  const std::vector<T> x = {0, 1, 10, 11};
  const vcgmm::DataView<T> data{x.data(), 4, 1, nullptr};
  const double eps = sizeof(T) == 4 ? 1e-6 : 1e-14;

  SUBCASE("two iterations") {
    std::vector<T> c = {0, 1};
    const vcgmm::LloydResult r = vcgmm::lloyd(data, 2, params(2, 0.0), kRun, c.data());
    CHECK(c[0] == T(0.5));
    CHECK(c[1] == T(10.5));
    CHECK(r.n_iter == 2);
    CHECK_FALSE(r.converged);  // stopped by max_iter
    REQUIRE(r.objective.size() == 2);
    CHECK(r.objective[0] == 181.0);
    CHECK(r.objective[1] == doctest::Approx(194.0 / 9.0).epsilon(eps));
    CHECK(r.n_distance_evals.iterations == 2 * 4 * 2);
    CHECK(r.n_distance_evals.algorithm() == r.n_distance_evals.iterations);
    CHECK(r.n_relocated == 0);
  }
  SUBCASE("to convergence") {
    std::vector<T> c = {0, 1};
    const vcgmm::LloydResult r = vcgmm::lloyd(data, 2, params(300, 1e-4), kRun, c.data());
    CHECK(c[0] == T(0.5));
    CHECK(c[1] == T(10.5));
    CHECK(r.n_iter == 3);
    CHECK(r.converged);
    REQUIRE(r.objective.size() == 3);
    CHECK(r.objective[2] == 1.0);
    CHECK(r.n_distance_evals.iterations == 3 * 4 * 2);
    CHECK(r.timings.iterations >= 0.0);
  }
  SUBCASE("weights move the means") {
    // w = {3, 1, 1, 1}: after it 1, c0 = 0 and c1 = 22/3; then labels
    // {0, 0, 1, 1} give c0 = (3*0 + 1*1) / 4 = 0.25 and c1 = 10.5.
    const std::vector<double> w = {3, 1, 1, 1};
    std::vector<T> c = {0, 1};
    const vcgmm::LloydResult r =
        vcgmm::lloyd(vcgmm::DataView<T>{x.data(), 4, 1, w.data()}, 2, params(300, 0.0), kRun,
                     c.data());
    CHECK(c[0] == T(0.25));
    CHECK(c[1] == T(10.5));
    CHECK(r.converged);
    CHECK(r.objective.back() == doctest::Approx(3 * 0.0625 + 0.5625 + 0.25 + 0.25).epsilon(eps));
  }
}

TEST_CASE("lloyd relocates empty clusters onto the farthest points") {
  // Points {0, 1, 2, 3, 100}, centers {0, 1000, 2000}: clusters 1 and 2 are
  // empty after the first assignment (all points nearest to 0). They move to
  // the two farthest points, 100 (d^2 = 10000) and 3 (d^2 = 9), in that
  // order; the means become {1, 100, 3}. The next assignment (point 2 is
  // equidistant from 1 and 3: lowest index) changes nothing.
  using T = double;
  const std::vector<T> x = {0, 1, 2, 3, 100};
  const vcgmm::DataView<T> data{x.data(), 5, 1, nullptr};

  std::vector<T> c = {0, 1000, 2000};
  const vcgmm::LloydResult r = vcgmm::lloyd(data, 3, params(300, 0.0, true), kRun, c.data());
  CHECK(c == std::vector<T>{1, 100, 3});
  CHECK(r.n_relocated == 2);
  CHECK(r.n_iter == 2);
  CHECK(r.converged);
  CHECK(r.objective == std::vector<double>{10014.0, 2.0});

  SUBCASE("relocate_empty = false keeps the empty centers") {
    std::vector<T> k = {0, 1000, 2000};
    const vcgmm::LloydResult r2 = vcgmm::lloyd(data, 3, params(300, 0.0, false), kRun, k.data());
    CHECK(k[0] == doctest::Approx(106.0 / 5.0).epsilon(1e-15));
    CHECK(k[1] == 1000.0);
    CHECK(k[2] == 2000.0);
    CHECK(r2.n_relocated == 0);
    CHECK(r2.converged);
    CHECK(r2.n_iter == 2);
  }
}

TEST_CASE_TEMPLATE("lloyd from a degenerate start: relocation, monotone objective, fixed point", T,
                   float, double) {
  // All initial centers equal: the first assignment puts every point in
  // cluster 0 (ties: lowest index) and leaves C - 1 clusters empty.
  const index_t n = 3000, d = 5, C = 40;
  const std::vector<T> x = blobs<T>(n, d, 25, 40.0, 1.5, 101);
  const std::vector<double> w = positive_weights(n, 102);
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
    std::vector<T> c(C * d);
    for (index_t k = 0; k < C; ++k) std::copy(x.begin(), x.begin() + d, c.begin() + k * d);
    const vcgmm::LloydResult r = vcgmm::lloyd(data, C, params(1000, 0.0), kRun, c.data());
    CHECK(r.n_relocated >= C - 1);
    CHECK(r.converged);
    CHECK(r.n_iter < 1000);
    CHECK(r.objective.size() == static_cast<size_t>(r.n_iter));
    CHECK(r.n_distance_evals.iterations >= n * C);  // later iterations: at most n C each
    CHECK(r.n_distance_evals.iterations <= static_cast<std::int64_t>(r.n_iter) * n * C);
    for (size_t t = 1; t < r.objective.size(); ++t) {
      CAPTURE(t);
      CHECK(r.objective[t] <= r.objective[t - 1] * (1.0 + monotone_slack<T>()));
    }
    // A fixed point: assigning to the final centers reproduces the last
    // objective bit for bit, and no cluster is empty.
    std::vector<std::int32_t> labels(n, -1);
    const double q = vcgmm::assign_nearest(data, c.data(), C, labels.data(), nullptr, 1).objective;
    CHECK(bitwise_equal(q, r.objective.back()));
    std::set<std::int32_t> used(labels.begin(), labels.end());
    CHECK(used.size() == static_cast<size_t>(C));
    // Restarting from the final centers: one iteration to see the labels
    // (they start unknown), the second is the fixed point.
    std::vector<T> c2 = c;
    const vcgmm::LloydResult r2 = vcgmm::lloyd(data, C, params(1000, 0.0), kRun, c2.data());
    CHECK(r2.n_iter == 2);
    CHECK(r2.converged);
    CHECK(r2.n_relocated == 0);
    CHECK(bitwise_equal(c2, c));
  }
}

TEST_CASE_TEMPLATE("lloyd stops exactly when the relative change drops below tol", T, float, double) {
  const index_t n = 4000, d = 4, C = 30;
  const std::vector<T> x = blobs<T>(n, d, 12, 10.0, 2.0, 111);
  std::vector<index_t> rows;
  for (index_t k = 0; k < C; ++k) rows.push_back(k);  // the first C points
  const std::vector<T> init = gather_rows(x, d, rows);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  for (double tol : {1e-2, 1e-4}) {
    CAPTURE(tol);
    std::vector<T> c = init;
    const vcgmm::LloydResult r = vcgmm::lloyd(data, C, params(500, tol), kRun, c.data());
    REQUIRE(r.n_iter >= 3);
    REQUIRE(r.converged);
    const auto& q = r.objective;
    // It did not stop too early: every earlier step changed Q by more than tol.
    for (size_t t = 1; t + 1 < q.size(); ++t) {
      CAPTURE(t);
      CHECK(std::abs(q[t - 1] - q[t]) > tol * q[t]);
    }
    // ...and the last step satisfies the rule, or the labels did not change
    // (a fixed point: then the update reproduced the same centers, and their
    // objective is the last one recorded, bit for bit).
    const double last = std::abs(q[q.size() - 2] - q.back());
    const double q_final = vcgmm::quantization_error(data, c.data(), C, 1);
    CHECK((last <= tol * q.back() || bitwise_equal(q_final, q.back())));
  }
  SUBCASE("max_iter stops without convergence") {
    std::vector<T> c = init;
    const vcgmm::LloydResult r = vcgmm::lloyd(data, C, params(1, 1e-4), kRun, c.data());
    CHECK(r.n_iter == 1);
    CHECK_FALSE(r.converged);
    CHECK(r.objective.size() == 1);
    CHECK(r.n_distance_evals.iterations == n * C);
  }
}

TEST_CASE("lloyd: integer weights equal repeated rows") {
  using T = double;
  const index_t n = 1500, d = 3, C = 8;
  const std::vector<T> x = blobs<T>(n, d, 8, 50.0, 1.0, 121);
  TestRng rng(122);
  std::vector<double> w(n);
  std::vector<T> rep;
  for (index_t i = 0; i < n; ++i) {
    w[i] = static_cast<double>(1 + rng.below(4));
    for (int r = 0; r < static_cast<int>(w[i]); ++r) rep.insert(rep.end(), x.begin() + i * d, x.begin() + (i + 1) * d);
  }
  std::vector<index_t> rows;
  for (index_t k = 0; k < C; ++k) rows.push_back(k * 7);
  std::vector<T> cw = gather_rows(x, d, rows), cr = cw;
  const vcgmm::LloydResult a =
      vcgmm::lloyd(vcgmm::DataView<T>{x.data(), n, d, w.data()}, C, params(100, 0.0), kRun,
                   cw.data());
  const vcgmm::LloydResult b = vcgmm::lloyd(
      vcgmm::DataView<T>{rep.data(), static_cast<index_t>(rep.size()) / d, d, nullptr}, C,
      params(100, 0.0), kRun, cr.data());
  CHECK(a.n_iter == b.n_iter);
  REQUIRE(a.objective.size() == b.objective.size());
  for (size_t t = 0; t < a.objective.size(); ++t) {
    CHECK(a.objective[t] == doctest::Approx(b.objective[t]).epsilon(1e-12));
  }
  for (size_t j = 0; j < cw.size(); ++j) CHECK(cw[j] == doctest::Approx(cr[j]).epsilon(1e-12));
}

TEST_CASE("lloyd with C = n puts every point on its own center") {
  using T = float;
  const index_t n = 300, d = 2;
  const std::vector<T> x = gaussian<T>(n, d, 131);
  std::vector<T> c(n * d);  // the points, in reverse order
  for (index_t i = 0; i < n; ++i) std::copy(x.begin() + i * d, x.begin() + (i + 1) * d, c.begin() + (n - 1 - i) * d);
  const vcgmm::LloydResult r =
      vcgmm::lloyd(vcgmm::DataView<T>{x.data(), n, d, nullptr}, n, params(10, 1e-4), kRun,
                   c.data());
  CHECK(r.objective.front() == 0.0);
  CHECK(r.objective.back() == 0.0);
  CHECK(r.converged);
  CHECK(r.n_iter == 2);  // labels unknown before the first iteration
  CHECK(r.n_relocated == 0);
}

TEST_CASE("lloyd logs one line per iteration from the calling thread") {
  using T = double;
  const std::vector<T> x = {0, 1, 10, 11};
  std::vector<T> c = {0, 1};
  std::vector<std::string> lines;
  vcgmm::RunOptions run = kRun;
  run.log = [&lines](const std::string& line) { lines.push_back(line); };
  const vcgmm::LloydResult r =
      vcgmm::lloyd(vcgmm::DataView<T>{x.data(), 4, 1, nullptr}, 2, params(300, 1e-4), run,
                   c.data());
  CHECK(lines.size() == static_cast<size_t>(r.n_iter));
  for (const auto& line : lines) CHECK(line.find("objective") != std::string::npos);
}

TEST_CASE_TEMPLATE("lloyd reports every iteration to RunOptions::progress and stops on request",
                   T, float, double) {
  // The 1-D toy above: Q = 181, 194/9, 1 (a fixed point at iteration 3).
  const std::vector<T> x = {0, 1, 10, 11};
  const vcgmm::DataView<T> data{x.data(), 4, 1, nullptr};
  std::vector<vcgmm::ProgressRecord> seen;
  vcgmm::RunOptions run = kRun;
  run.progress = [&](const vcgmm::ProgressRecord& r) {
    seen.push_back(r);
    return false;
  };
  std::vector<T> c = {0, 1};
  const vcgmm::LloydResult all = vcgmm::lloyd(data, 2, params(100, 0.0), run, c.data());
  CHECK(all.converged);
  REQUIRE(seen.size() == 3);  // the converging iteration is reported too
  for (int i = 0; i < 3; ++i) {
    CHECK(std::string(seen[i].algorithm) == "lloyd");
    CHECK(std::string(seen[i].phase) == "iterations");
    CHECK(seen[i].iteration == i + 1);
    CHECK(seen[i].objective == all.objective[i]);
    CHECK(seen[i].distance_evals == (i + 1) * 4 * 2);
  }

  // Stop after the first iteration: the same as max_iter = 1, not converged.
  run.progress = [](const vcgmm::ProgressRecord& r) { return r.iteration == 1; };
  std::vector<T> stopped = {0, 1}, limited = {0, 1};
  const vcgmm::LloydResult rs = vcgmm::lloyd(data, 2, params(100, 0.0), run, stopped.data());
  const vcgmm::LloydResult rl = vcgmm::lloyd(data, 2, params(1, 0.0), kRun, limited.data());
  CHECK(rs.n_iter == 1);
  CHECK_FALSE(rs.converged);
  CHECK(stopped == limited);
  CHECK(rs.objective == rl.objective);
}
