// Exact (non-statistical) properties of the samplers: lightweight coresets,
// k-means++ and AFK-MC^2. The statistical tests of the sampling
// distributions live in the Python suite.
#include <doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

/// Data made of `n_distinct` distinct points, each repeated about n /
/// n_distinct times, rows shuffled. `which[i]` is the distinct point of row i.
template <typename T>
std::vector<T> repeated_points(index_t n, index_t d, index_t n_distinct, std::uint64_t seed,
                               std::vector<index_t>* which) {
  const std::vector<T> points = gaussian<T>(n_distinct, d, seed, 10.0);
  TestRng rng(seed + 1);
  std::vector<T> x(n * d);
  which->resize(n);
  for (index_t i = 0; i < n; ++i) {
    // Every distinct point occurs: the first n_distinct rows cover them all,
    // then a shuffle (Fisher-Yates below) spreads them out.
    (*which)[i] = i < n_distinct ? i : rng.below(n_distinct);
  }
  for (index_t i = n - 1; i > 0; --i) std::swap((*which)[i], (*which)[rng.below(i + 1)]);
  for (index_t i = 0; i < n; ++i) {
    std::copy(points.begin() + (*which)[i] * d, points.begin() + ((*which)[i] + 1) * d,
              x.begin() + i * d);
  }
  return x;
}

}  // namespace

// --- lightweight coreset ------------------------------------------------------

TEST_CASE_TEMPLATE("lightweight_coreset: sorted indices and weights w / (m q)", T, float, double) {
  // Relative accuracy of the library's q: it computes d(x, mu)^2 in T.
  const double rel = sizeof(T) == 4 ? 1e-5 : 1e-12;
  for (index_t n : {1, 5000, 40000}) {  // 40000 rows: 3 chunks of 16384
    for (bool weighted : {false, true}) {
      CAPTURE(n);
      CAPTURE(weighted);
      const index_t d = 5, m = 3000;
      const std::vector<T> x = blobs<T>(n, d, 7, 30.0, 2.0, 51 + n);
      const std::vector<double> w = positive_weights(n, 52 + n);
      const double* wp = weighted ? w.data() : nullptr;
      std::vector<index_t> idx(m, -1);
      std::vector<double> gamma(m, -1.0);
      const vcgmm::CoresetStats stats = vcgmm::lightweight_coreset(
          vcgmm::DataView<T>{x.data(), n, d, wp}, m, run_options(53, 2), idx.data(), gamma.data());
      CHECK(stats.n_distance_evals.coreset == n);
      CHECK(stats.timings.coreset >= 0.0);
      CHECK(std::is_sorted(idx.begin(), idx.end()));
      CHECK(idx.front() >= 0);
      CHECK(idx.back() < n);

      double w_total = 0.0;
      for (index_t i = 0; i < n; ++i) w_total += wp ? wp[i] : 1.0;
      if (n == 1) {
        // A single point carries all the weight: q = 1, gamma = w / m.
        for (index_t k = 0; k < m; ++k) CHECK(gamma[k] == doctest::Approx(w_total / m).epsilon(1e-14));
        continue;
      }
      const std::vector<double> q = lwcs_probabilities(x, n, d, wp);
      index_t bad = 0;
      double gamma_total = 0.0;
      for (index_t k = 0; k < m; ++k) {
        const index_t i = idx[k];
        const double expected = (wp ? wp[i] : 1.0) / (static_cast<double>(m) * q[i]);
        bad += !(std::abs(gamma[k] - expected) <= rel * expected);
        gamma_total += gamma[k];
      }
      CHECK(bad == 0);
      // sum(gamma) estimates sum(w). Each gamma lies in (0, 2 sum(w) / m]
      // because q >= w / (2 sum(w)); Hoeffding then bounds the chance of a
      // relative error above 10% by 2 exp(-m 0.1^2 / 2) = 6e-7 for m = 3000.
      CHECK(gamma_total == doctest::Approx(w_total).epsilon(0.1));
    }
  }
}

TEST_CASE_TEMPLATE("lightweight_coreset: identical points give uniform weights n / m", T, float,
                   double) {
  // All points at the mean: d(x, mu) = 0 everywhere and q falls back to
  // w / sum(w). 1.5 is exact in binary, so the mean is exactly the point.
  const index_t n = 20000, d = 3, m = 777;
  const std::vector<T> x(n * d, static_cast<T>(1.5));
  std::vector<index_t> idx(m);
  std::vector<double> gamma(m);
  vcgmm::lightweight_coreset(vcgmm::DataView<T>{x.data(), n, d, nullptr}, m, run_options(3, 2),
                             idx.data(), gamma.data());
  CHECK(std::is_sorted(idx.begin(), idx.end()));
  CHECK(idx.front() >= 0);
  CHECK(idx.back() < n);
  for (index_t k = 0; k < m; ++k) {
    CHECK(gamma[k] == doctest::Approx(static_cast<double>(n) / m).epsilon(1e-14));
  }
}

// --- k-means++ -----------------------------------------------------------------

TEST_CASE_TEMPLATE("kmeans_plusplus picks every distinct point once when C equals their number", T,
                   float, double) {
  // After a point is chosen, all its copies have potential 0 and can never be
  // drawn again while other points have positive potential: with C = number
  // of distinct points, D^2 sampling must return each of them exactly once.
  for (index_t n : {300, 10000}) {  // 10000 rows: 3 chunks of 4096
    for (int trials : {1, 4}) {
      for (bool weighted : {false, true}) {
        CAPTURE(n);
        CAPTURE(trials);
        CAPTURE(weighted);
        const index_t d = 4, P = 9;
        std::vector<index_t> which;
        const std::vector<T> x = repeated_points<T>(n, d, P, 61 + n + trials, &which);
        const std::vector<double> w = positive_weights(n, 62);
        const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
        for (std::uint64_t seed = 0; seed < 5; ++seed) {
          std::vector<T> centers(P * d);
          std::vector<index_t> idx(P, -1);
          const vcgmm::SeedingStats s =
              vcgmm::kmeans_plusplus(data, P, vcgmm::KMeansPlusPlusParams{trials},
                                     run_options(seed, 2), centers.data(), idx.data());
          std::set<index_t> distinct;
          for (index_t k = 0; k < P; ++k) {
            REQUIRE(idx[k] >= 0);
            REQUIRE(idx[k] < n);
            distinct.insert(which[idx[k]]);
            // The centers are the rows named by the indices.
            CHECK(std::equal(centers.begin() + k * d, centers.begin() + (k + 1) * d,
                             x.begin() + idx[k] * d));
          }
          CHECK(distinct.size() == static_cast<size_t>(P));
          CHECK(s.n_distance_evals.seeding == (P - 1) * (trials == 1 ? 1 : trials + 1) * n);
          CHECK(s.timings.seeding >= 0.0);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("kmeans_plusplus: the triangle-inequality skip changes no choice", T, float,
                   double) {
  // use_bounds = false computes every distance (the reference loop). Plain
  // D^2 sampling sums the same terms in the same order, so its draws are the
  // same; greedy steps add the skipped rows in one sum, so their potentials
  // may differ in the last bits, never by enough to change a choice here.
  const index_t d = 5;
  struct Case {
    const char* name;
    std::vector<T> x;
  };
  std::vector<index_t> which;
  std::vector<Case> cases;
  cases.push_back({"blobs", blobs<T>(9000, d, 12, 20.0, 1.0, 81)});
  cases.push_back({"gaussian", gaussian<T>(9000, d, 82)});
  cases.push_back({"duplicates", repeated_points<T>(9000, d, 40, 83, &which)});
  const std::vector<double> w = positive_weights(9000, 84);
  for (const Case& c : cases) {
    for (bool weighted : {false, true}) {
      const vcgmm::DataView<T> data{c.x.data(), 9000, d, weighted ? w.data() : nullptr};
      for (int trials : {1, 3, 0}) {
        for (index_t C : {7, 60}) {
          for (int threads : {1, 2}) {
            CAPTURE(c.name);
            CAPTURE(weighted);
            CAPTURE(trials);
            CAPTURE(C);
            CAPTURE(threads);
            std::vector<T> centers(C * d), centers_ref(C * d);
            std::vector<index_t> idx(C), idx_ref(C);
            vcgmm::KMeansPlusPlusParams p{trials};
            const vcgmm::SeedingStats s = vcgmm::kmeans_plusplus(
                data, C, p, run_options(5, threads), centers.data(), idx.data());
            p.use_bounds = false;
            const vcgmm::SeedingStats s_ref = vcgmm::kmeans_plusplus(
                data, C, p, run_options(5, threads), centers_ref.data(), idx_ref.data());
            CHECK(idx == idx_ref);
            CHECK(bitwise_equal(centers, centers_ref));
            // Counted as the algorithm's, skipped or not.
            CHECK(s.n_distance_evals.seeding == s_ref.n_distance_evals.seeding);
          }
        }
      }
    }
  }
}

TEST_CASE("kmeans_plusplus: more centers than distinct points, C = 1, indices optional") {
  using T = double;
  const index_t n = 500, d = 3, P = 6, C = 10;
  std::vector<index_t> which;
  const std::vector<T> x = repeated_points<T>(n, d, P, 71, &which);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  std::vector<T> centers(C * d);
  std::vector<index_t> idx(C, -1);
  vcgmm::kmeans_plusplus(data, C, vcgmm::KMeansPlusPlusParams{1}, run_options(4, 1), centers.data(),
                         idx.data());
  // The first P centers exhaust the distinct points (potential > 0 first);
  // the rest are drawn by weight once the potential is 0 everywhere.
  std::set<index_t> first;
  for (index_t k = 0; k < P; ++k) first.insert(which[idx[k]]);
  CHECK(first.size() == static_cast<size_t>(P));
  for (index_t k = 0; k < C; ++k) {
    REQUIRE(idx[k] >= 0);
    REQUIRE(idx[k] < n);
  }
  // Without the indices output, the same centers.
  std::vector<T> centers2(C * d);
  vcgmm::kmeans_plusplus(data, C, vcgmm::KMeansPlusPlusParams{1}, run_options(4, 2),
                         centers2.data(), nullptr);
  CHECK(bitwise_equal(centers, centers2));
  // C = 1 costs no distance evaluation.
  const vcgmm::SeedingStats s1 = vcgmm::kmeans_plusplus(
      data, 1, vcgmm::KMeansPlusPlusParams{1}, run_options(4, 2), centers.data(), idx.data());
  CHECK(s1.n_distance_evals.seeding == 0);
  CHECK(s1.n_distance_evals.algorithm() == 0);
  CHECK(idx[0] >= 0);
  CHECK(idx[0] < n);
}

// --- AFK-MC^2 ------------------------------------------------------------------

TEST_CASE_TEMPLATE("afkmc2 returns rows of X named by its indices", T, float, double) {
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const index_t n = 20000, d = 6;
    const std::vector<T> x = blobs<T>(n, d, 40, 50.0, 1.0, 81);
    const std::vector<double> w = positive_weights(n, 82);
    const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
    for (index_t C : {1, 2, 57, 300}) {
      for (int chain : {1, 2, 20}) {
        CAPTURE(C);
        CAPTURE(chain);
        std::vector<T> centers(C * d);
        std::vector<index_t> idx(C, -1);
        const vcgmm::SeedingStats s = vcgmm::afkmc2(data, C, vcgmm::Afkmc2Params{chain},
                                                    run_options(83, 2), centers.data(), idx.data());
        for (index_t k = 0; k < C; ++k) {
          REQUIRE(idx[k] >= 0);
          REQUIRE(idx[k] < n);
          CHECK(std::equal(centers.begin() + k * d, centers.begin() + (k + 1) * d,
                           x.begin() + idx[k] * d));
        }
        // One pass for the proposal (distances to c1), then m distances to
        // each of the k chosen centers at step k: n + m C (C - 1) / 2.
        CHECK(s.n_distance_evals.seeding ==
              (C == 1 ? 0 : n + static_cast<std::int64_t>(chain) * C * (C - 1) / 2));
        std::vector<T> centers2(C * d);
        vcgmm::afkmc2(data, C, vcgmm::Afkmc2Params{chain}, run_options(83, 1), centers2.data(),
                      nullptr);
        CHECK(bitwise_equal(centers, centers2));
      }
    }
  }
}

TEST_CASE_TEMPLATE("afkmc2 leaves zero-potential states: distinct points are all found", T, float,
                   double) {
  // 5 distinct points repeated ~n/5 times each, C = 5. A chain state whose
  // potential is 0 (a copy of a chosen center) is always left, and a
  // zero-potential candidate is never accepted from a positive state, so a
  // step repeats a chosen point only if all m candidates are copies of chosen
  // points. Each unchosen point carries at least ~1/10 of the proposal mass
  // (its uniform half alone), so with m = 200 that happens with probability
  // below 0.9^200 < 1e-9 per step: an exact property for practical purposes.
  const index_t n = 3000, d = 3, P = 5;
  std::vector<index_t> which;
  const std::vector<T> x = repeated_points<T>(n, d, P, 91, &which);
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    CAPTURE(seed);
    std::vector<T> centers(P * d);
    std::vector<index_t> idx(P);
    vcgmm::afkmc2(vcgmm::DataView<T>{x.data(), n, d, nullptr}, P, vcgmm::Afkmc2Params{200},
                  run_options(seed, 2), centers.data(), idx.data());
    std::set<index_t> distinct;
    for (index_t k = 0; k < P; ++k) distinct.insert(which[idx[k]]);
    CHECK(distinct.size() == static_cast<size_t>(P));
  }
}

TEST_CASE_TEMPLATE("afkmc2: the subspace screen gives the unscreened centers, bit for bit", T,
                   float, double) {
  // From 64 centers on, AFK-MC^2 takes its candidates' nearest-center
  // distances from the principal-subspace screen instead of the blocked
  // pass. Both must give the same exact distances, so the same chain
  // decisions. Data with a decaying spectrum (the screen's case: a few axes
  // hold most of the variance) plus repeated rows (zero distances, ties) and
  // one far outlier (a wide rounding margin); screen_dims 0 (off), -1 (the
  // automatic choice) and fixed 1, 4, 12, 24 (loose and tight bounds; 12
  // and 24 sum the leaves' bounds in steps of 8 axes). C = 2600 puts the
  // chosen centers in 8 leaves of the screen's tree, so candidates skip
  // leaves by their boxes.
  const index_t n = 6000, d = 40;
  std::vector<T> x = gaussian<T>(n, d, 301, 1.0);
  const std::vector<T> shift = blobs<T>(n, d, 25, 30.0, 0.0, 302);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < d; ++j) {
      x[i * d + j] =
          static_cast<T>(x[i * d + j] * 4.0 / (1.0 + j) + shift[i * d + j] / (1.0 + 0.5 * j));
    }
  }
  for (index_t i = 0; i < 300; ++i) {  // 300 copies of 30 rows
    std::copy(x.begin() + (i % 30) * d, x.begin() + (i % 30 + 1) * d, x.begin() + (n - 1 - i) * d);
  }
  for (index_t j = 0; j < d; ++j) x[(n / 2) * d + j] = static_cast<T>(1e4);
  const std::vector<double> w = positive_weights(n, 303);
  for (bool weighted : {false, true}) {
    const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
    for (index_t C : {65, 130, 700, 2600}) {
      for (int chain : {2, 20}) {
        if (C == 2600 && chain == 2) continue;  // (time: one long-chain case suffices)
        CAPTURE(weighted);
        CAPTURE(C);
        CAPTURE(chain);
        std::vector<T> reference(C * d);
        std::vector<index_t> reference_idx(C);
        vcgmm::afkmc2(data, C, vcgmm::Afkmc2Params{chain, 0}, run_options(304, 2),
                      reference.data(), reference_idx.data());
        for (int dims : {-1, 1, 4, 12, 24}) {
          CAPTURE(dims);
          std::vector<T> centers(C * d);
          std::vector<index_t> idx(C);
          vcgmm::afkmc2(data, C, vcgmm::Afkmc2Params{chain, dims}, run_options(304, 2),
                        centers.data(), idx.data());
          CHECK(idx == reference_idx);
          CHECK(bitwise_equal(centers, reference));
        }
      }
    }
  }
}

TEST_CASE("afkmc2 rejects screen_dims outside -1, 0, [1, d)") {
  const index_t n = 200, d = 20;
  const std::vector<double> x = gaussian<double>(n, d, 305);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  std::vector<double> centers(5 * d);
  for (int dims : {-2, 20, 21}) {
    CAPTURE(dims);
    CHECK_THROWS_AS(vcgmm::afkmc2(data, 5, vcgmm::Afkmc2Params{5, dims}, run_options(1, 1),
                                  centers.data(), nullptr),
                    vcgmm::InvalidArgument);
  }
}
