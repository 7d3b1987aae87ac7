// Exact properties of the chunked lightweight coreset (chunked_coreset.hpp):
// the moments against a naive reference, the weights against w / (m q), the
// split over the chunks, thread independence and the argument checks. The
// chi-square tests of its distribution live in the Python suite
// (tests/python/test_chunked_coreset.py).
#include <doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

/// The three steps over chunks [bounds[c], bounds[c + 1]) of X; indices are
/// global rows. Chunks are visited in `order` for steps 1 and 3 (their
/// results are combined in chunk order, as a distributed caller would).
template <typename T>
struct Chunked {
  std::vector<index_t> indices;
  std::vector<double> weights;
  std::vector<index_t> draws;  // per chunk
  std::vector<double> mean;
  std::int64_t evals = 0;
};

template <typename T>
Chunked<T> chunked_coreset(const std::vector<T>& x, index_t d, const double* w,
                           const std::vector<index_t>& bounds, index_t m, std::uint64_t seed,
                           int n_threads, bool reverse = false) {
  const index_t K = static_cast<index_t>(bounds.size()) - 1;
  const vcgmm::RunOptions run = run_options(seed, n_threads);
  auto view = [&](index_t c) {
    return vcgmm::DataView<T>{x.data() + bounds[c] * d, bounds[c + 1] - bounds[c], d,
                              w ? w + bounds[c] : nullptr};
  };
  std::vector<index_t> order(K);
  for (index_t c = 0; c < K; ++c) order[c] = reverse ? K - 1 - c : c;
  std::vector<double> cw(K), cm(K * d), cs(K);
  Chunked<T> out;
  for (index_t c : order) {
    const vcgmm::ChunkMoments mo = vcgmm::coreset_chunk_moments(view(c), run, cm.data() + c * d);
    cw[c] = mo.weight;
    cs[c] = mo.scatter;
    out.evals += mo.n_distance_evals.coreset;
  }
  out.mean.assign(d, 0.0);
  std::vector<double> mass(K);
  out.draws.assign(K, -1);
  const vcgmm::CoresetPlan plan = vcgmm::plan_chunked_coreset(
      K, d, cw.data(), cm.data(), cs.data(), m, run, out.mean.data(), mass.data(), out.draws.data());
  std::vector<std::vector<index_t>> idx(K);
  std::vector<std::vector<double>> gam(K);
  for (index_t c : order) {
    idx[c].assign(out.draws[c], -1);
    gam[c].assign(out.draws[c], -1.0);
    const vcgmm::CoresetStats s = vcgmm::draw_coreset_chunk(
        view(c), c, out.mean.data(), plan, mass[c], out.draws[c], m, run, idx[c].data(),
        gam[c].data());
    out.evals += s.n_distance_evals.coreset;
  }
  for (index_t c = 0; c < K; ++c) {
    for (size_t k = 0; k < idx[c].size(); ++k) {
      out.indices.push_back(bounds[c] + idx[c][k]);
      out.weights.push_back(gam[c][k]);
    }
  }
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("coreset_chunk_moments: weight, mean and scatter of the chunk", T, float,
                   double) {
  const double rel = sizeof(T) == 4 ? 1e-5 : 1e-11;
  for (index_t n : {0, 1, 7, 40000}) {  // 40000 rows: 3 row blocks
    CAPTURE(n);
    const index_t d = 6;
    const std::vector<T> x = blobs<T>(n, d, 4, 20.0, 1.5, 7 + n);
    const std::vector<double> w = positive_weights(n, 8 + n);
    std::vector<double> mean(d, -1.0);
    const vcgmm::ChunkMoments mo = vcgmm::coreset_chunk_moments(
        vcgmm::DataView<T>{x.data(), n, d, w.data()}, run_options(0, 2), mean.data());
    CHECK(mo.n_distance_evals.coreset == n);
    double wt = 0.0;
    std::vector<double> mu(d, 0.0);
    for (index_t i = 0; i < n; ++i) {
      wt += w[i];
      for (index_t j = 0; j < d; ++j) mu[j] += w[i] * static_cast<double>(x[i * d + j]);
    }
    if (n == 0) {
      CHECK(mo.weight == 0.0);
      CHECK(mo.scatter == 0.0);
      for (double v : mean) CHECK(v == 0.0);
      continue;
    }
    double s = 0.0;
    for (auto& v : mu) v /= wt;
    for (index_t i = 0; i < n; ++i) {
      for (index_t j = 0; j < d; ++j) {
        const double diff = static_cast<double>(x[i * d + j]) - mu[j];
        s += w[i] * diff * diff;
      }
    }
    CHECK(mo.weight == doctest::Approx(wt).epsilon(1e-13));
    for (index_t j = 0; j < d; ++j) CHECK(mean[j] == doctest::Approx(mu[j]).epsilon(1e-12));
    if (n == 1) {
      CHECK(mo.scatter == 0.0);
    } else {
      CHECK(mo.scatter == doctest::Approx(s).epsilon(rel));
    }
  }
}

TEST_CASE_TEMPLATE("chunked coreset: weights w / (m q), every draw in its chunk, split sums to m",
                   T, float, double) {
  const double rel = sizeof(T) == 4 ? 1e-5 : 1e-11;
  const index_t n = 40000, d = 5, m = 5000;
  const std::vector<T> x = blobs<T>(n, d, 7, 30.0, 2.0, 61);
  const std::vector<double> w = positive_weights(n, 62);
  // Chunkings: one chunk; uneven chunks with an empty one and a one-row one;
  // chunks larger than a row block.
  const std::vector<std::vector<index_t>> chunkings = {
      {0, n}, {0, 3, 3, 4, 9000, 9000, 25000, n}, {0, 20000, n}};
  for (bool weighted : {false, true}) {
    const double* wp = weighted ? w.data() : nullptr;
    const std::vector<double> q = lwcs_probabilities(x, n, d, wp);
    double wt = 0.0;
    for (index_t i = 0; i < n; ++i) wt += wp ? wp[i] : 1.0;
    for (const auto& bounds : chunkings) {
      CAPTURE(weighted);
      CAPTURE(bounds.size());
      const Chunked<T> r = chunked_coreset(x, d, wp, bounds, m, 71, 2);
      REQUIRE(r.indices.size() == static_cast<size_t>(m));
      index_t total = 0;
      for (size_t c = 0; c + 1 < bounds.size(); ++c) {
        total += r.draws[c];
        if (bounds[c] == bounds[c + 1]) CHECK(r.draws[c] == 0);  // empty chunks never draw
      }
      CHECK(total == m);
      // Every row's weight, and rows sorted within their chunk (hence globally).
      CHECK(std::is_sorted(r.indices.begin(), r.indices.end()));
      index_t bad = 0;
      double gt = 0.0;
      for (index_t k = 0; k < m; ++k) {
        const index_t i = r.indices[k];
        REQUIRE(i >= 0);
        REQUIRE(i < n);
        const double expected = (wp ? wp[i] : 1.0) / (static_cast<double>(m) * q[i]);
        bad += !(std::abs(r.weights[k] - expected) <= rel * expected);
        gt += r.weights[k];
      }
      CHECK(bad == 0);
      // Hoeffding, as for lightweight_coreset: gamma <= 2 sum(w) / m.
      CHECK(gt == doctest::Approx(wt).epsilon(0.1));
      // Step 1 computes one distance per row, step 3 one per row of the
      // chunks with draws (the others are not read).
      index_t expected_evals = n;
      for (size_t c = 0; c + 1 < bounds.size(); ++c) {
        if (r.draws[c] > 0) expected_evals += bounds[c + 1] - bounds[c];
      }
      CHECK(r.evals == expected_evals);
    }
  }
}

TEST_CASE_TEMPLATE("chunked coreset: same chunking and seed give the same coreset on any threads "
                   "and in any chunk order",
                   T, float, double) {
  const index_t n = 50000, d = 4, m = 20000;
  const std::vector<T> x = blobs<T>(n, d, 5, 10.0, 1.0, 81);
  const std::vector<double> w = positive_weights(n, 82);
  const std::vector<index_t> bounds = {0, 1, 17000, 17000, 33000, n};
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const double* wp = weighted ? w.data() : nullptr;
    const Chunked<T> ref = chunked_coreset(x, d, wp, bounds, m, 99, 1);
    for (int nt : {2, 3}) {
      CAPTURE(nt);
      const Chunked<T> r = chunked_coreset(x, d, wp, bounds, m, 99, nt);
      CHECK(r.indices == ref.indices);
      CHECK(bitwise_equal(r.weights, ref.weights));
      CHECK(r.draws == ref.draws);
    }
    const Chunked<T> rev = chunked_coreset(x, d, wp, bounds, m, 99, 2, /*reverse=*/true);
    CHECK(rev.indices == ref.indices);
    CHECK(bitwise_equal(rev.weights, ref.weights));
    // Another seed draws another coreset.
    const Chunked<T> other = chunked_coreset(x, d, wp, bounds, m, 100, 1);
    CHECK(other.indices != ref.indices);
  }
}

TEST_CASE_TEMPLATE("chunked coreset: identical points give uniform weights n / m", T, float,
                   double) {
  const index_t n = 20000, d = 3, m = 777;
  const std::vector<T> x(n * d, static_cast<T>(1.5));
  const Chunked<T> r = chunked_coreset(x, d, nullptr, {0, 5000, 5000, 12000, n}, m, 3, 2);
  REQUIRE(r.indices.size() == static_cast<size_t>(m));
  for (index_t k = 0; k < m; ++k) {
    CHECK(r.weights[k] == doctest::Approx(static_cast<double>(n) / m).epsilon(1e-13));
  }
}

TEST_CASE("chunked coreset: rows of weight 0 do not exist") {
  const index_t d = 2;
  const std::vector<double> x = {0, 0, 1, 1, 2, 0, 5, 5};
  const vcgmm::RunOptions run = run_options(1, 1);
  std::vector<double> mean(d, -1.0);
  // A chunk whose weights are all 0 holds no points: weight, scatter, mean 0.
  const std::vector<double> zeros(4, 0.0);
  vcgmm::ChunkMoments mo = vcgmm::coreset_chunk_moments(
      vcgmm::DataView<double>{x.data(), 4, d, zeros.data()}, run, mean.data());
  CHECK(mo.weight == 0.0);
  CHECK(mo.scatter == 0.0);
  for (double v : mean) CHECK(v == 0.0);
  // Some zero weights: the moments of the other rows.
  const std::vector<double> w = {1.0, 0.0, 3.0, 0.0};
  mo = vcgmm::coreset_chunk_moments(vcgmm::DataView<double>{x.data(), 4, d, w.data()}, run,
                                    mean.data());
  CHECK(mo.weight == 4.0);
  CHECK(mean[0] == doctest::Approx(1.5));
  CHECK(mean[1] == doctest::Approx(0.0));
  CHECK(mo.scatter == doctest::Approx(1.0 * 2.25 + 3.0 * 0.25));
}

TEST_CASE("chunked coreset: invalid arguments are refused") {
  using vcgmm::InvalidArgument;
  const index_t d = 2;
  const std::vector<double> x = {0, 0, 1, 1, 2, 0};
  const vcgmm::RunOptions run = run_options(1, 1);
  std::vector<double> mean(d);
  // A negative weight, a NaN weight (a zero weight is a point that does not exist).
  for (double bad : {-1.0, std::nan("")}) {
    const std::vector<double> w = {1.0, bad, 1.0};
    CHECK_THROWS_AS(vcgmm::coreset_chunk_moments(vcgmm::DataView<double>{x.data(), 3, d, w.data()},
                                                 run, mean.data()),
                    InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::coreset_chunk_moments(vcgmm::DataView<double>{x.data(), 3, 0, nullptr},
                                               run, mean.data()),
                  InvalidArgument);
  // The plan: no points at all, negative weights or scatter, m < 1.
  std::vector<double> mass(2), cm(2 * d, 0.0);
  std::vector<index_t> draws(2);
  const std::vector<double> zero = {0.0, 0.0}, one = {1.0, 2.0}, neg = {1.0, -1.0};
  CHECK_THROWS_AS(vcgmm::plan_chunked_coreset(2, d, zero.data(), cm.data(), zero.data(), 5, run,
                                              mean.data(), mass.data(), draws.data()),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::plan_chunked_coreset(2, d, neg.data(), cm.data(), zero.data(), 5, run,
                                              mean.data(), mass.data(), draws.data()),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::plan_chunked_coreset(2, d, one.data(), cm.data(), neg.data(), 5, run,
                                              mean.data(), mass.data(), draws.data()),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::plan_chunked_coreset(2, d, one.data(), cm.data(), zero.data(), 0, run,
                                              mean.data(), mass.data(), draws.data()),
                  InvalidArgument);
  const vcgmm::CoresetPlan plan = vcgmm::plan_chunked_coreset(
      2, d, one.data(), cm.data(), one.data(), 5, run, mean.data(), mass.data(), draws.data());
  CHECK(draws[0] + draws[1] == 5);
  // Draws from an empty chunk, more draws than the coreset, no mass.
  std::vector<index_t> idx(5);
  std::vector<double> g(5);
  CHECK_THROWS_AS(vcgmm::draw_coreset_chunk(vcgmm::DataView<double>{x.data(), 0, d, nullptr}, 0,
                                            mean.data(), plan, mass[0], 2, 5, run, idx.data(),
                                            g.data()),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::draw_coreset_chunk(vcgmm::DataView<double>{x.data(), 3, d, nullptr}, 0,
                                            mean.data(), plan, mass[0], 6, 5, run, idx.data(),
                                            g.data()),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::draw_coreset_chunk(vcgmm::DataView<double>{x.data(), 3, d, nullptr}, 0,
                                            mean.data(), plan, 0.0, 2, 5, run, idx.data(),
                                            g.data()),
                  InvalidArgument);
  // No draws: nothing is read or written (a null chunk is fine).
  const vcgmm::CoresetStats s = vcgmm::draw_coreset_chunk(
      vcgmm::DataView<double>{nullptr, 0, d, nullptr}, 3, mean.data(), plan, 0.0, 0, 5, run,
      nullptr, nullptr);
  CHECK(s.n_distance_evals.coreset == 0);
}
