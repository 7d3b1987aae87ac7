// assign_nearest / quantization_error against a brute-force double loop.
//
// The library computes distances of 256-row blocks to 512-center tiles with
// the GEMM expansion ||x||^2 - 2 x.c + ||c||^2, then recomputes the exact
// distance to the winner in double. The sizes below straddle both tile
// boundaries (rows 255/256/257/600, centers 1/511/512/513/1030), where
// off-by-one errors in the blocking would show.
#include <doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

// Relative accuracy of the GEMM expansion in T: a label may differ from the
// exact argmin only between centers whose exact distances differ by less than
// this times the magnitudes involved.
template <typename T>
double expansion_tolerance();
template <>
double expansion_tolerance<float>() { return 1e-5; }
template <>
double expansion_tolerance<double>() { return 1e-12; }

template <typename T>
double squared_norm(const T* v, index_t d) {
  double s = 0.0;
  for (index_t j = 0; j < d; ++j) s += static_cast<double>(v[j]) * static_cast<double>(v[j]);
  return s;
}

}  // namespace

TEST_CASE_TEMPLATE("assign_nearest agrees with a brute-force loop across tile boundaries", T, float,
                   double) {
  const index_t d = 7;  // odd: exercises the vectorized kernels' remainder paths
  const double rel = expansion_tolerance<T>();
  std::uint64_t seed = 100;
  for (index_t n : {255, 256, 257, 600}) {
    for (index_t c : {1, 511, 512, 513, 1030}) {
      for (bool weighted : {false, true}) {
        CAPTURE(n);
        CAPTURE(c);
        CAPTURE(weighted);
        const std::vector<T> x = gaussian<T>(n, d, ++seed);
        const std::vector<T> centers = gaussian<T>(c, d, ++seed);
        const std::vector<double> w = positive_weights(n, ++seed);
        const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};

        std::vector<std::int32_t> labels(n, -1);
        std::vector<double> min_d2(n, -1.0);
        const vcgmm::AssignmentStats stats =
            vcgmm::assign_nearest(data, centers.data(), c, labels.data(), min_d2.data(), 2);

        double naive_objective = 0.0, slack = 0.0, weighted_sum = 0.0;
        index_t bad_label = 0, bad_d2 = 0, negative = 0, exact_agreement = 0;
        for (index_t i = 0; i < n; ++i) {
          const T* xi = x.data() + i * d;
          double best_d2;
          const index_t best = naive_nearest(xi, centers.data(), c, d, &best_d2);
          const double wi = data.weight(i);
          naive_objective += wi * best_d2;
          const index_t li = labels[i];
          if (li < 0 || li >= c) {
            ++bad_label;
            continue;
          }
          exact_agreement += li == best;
          const double d2_label = naive_d2(xi, centers.data() + li * d, d);
          const double tol = rel * (squared_norm(xi, d) + squared_norm(centers.data() + li * d, d) +
                                    squared_norm(centers.data() + best * d, d));
          if (!(d2_label <= best_d2 + tol)) ++bad_label;
          slack += wi * tol;
          // min_d2 is the exact distance to the returned label (a sum of
          // squares in double: relative rounding error ~ d * 2^-53).
          if (!(std::abs(min_d2[i] - d2_label) <= 1e-13 * d2_label)) ++bad_d2;
          if (min_d2[i] < 0.0) ++negative;
          weighted_sum += wi * min_d2[i];
        }
        CHECK(bad_label == 0);
        CHECK(bad_d2 == 0);
        CHECK(negative == 0);
        // Random Gaussian data have no near-ties at this precision except by
        // rare accident: the vast majority of labels are the exact argmin.
        CHECK(exact_agreement >= n - 2);
        CHECK(stats.objective == doctest::Approx(weighted_sum).epsilon(1e-12));
        CHECK(std::abs(stats.objective - naive_objective) <= slack + 1e-12 * naive_objective);
        CHECK(stats.n_changed == n);  // every label was -1 on input

        // quantization_error is the same sum; no outputs requested changes nothing.
        const double q1 = vcgmm::quantization_error(data, centers.data(), c, 1);
        CHECK(bitwise_equal(q1, stats.objective));
        const vcgmm::AssignmentStats bare =
            vcgmm::assign_nearest(data, centers.data(), c, nullptr, nullptr, 1);
        CHECK(bitwise_equal(bare.objective, stats.objective));
        CHECK(bare.n_changed == 0);
      }
    }
  }
}

TEST_CASE_TEMPLATE("assign_nearest breaks exact ties by the lowest center index", T, float, double) {
  // Small integer coordinates: every product and sum in the GEMM expansion is
  // exact in float and double, so equal distances really are equal and the
  // only thing tested is the tie rule, within and across 512-center tiles.
  // 1030 centers drawn from 7^3 = 343 grid points contain many duplicates,
  // and integer points have many equidistant centers.
  const index_t n = 600, d = 3, c = 1030;
  TestRng rng(7);
  std::vector<T> x(n * d), centers(c * d);
  for (auto& v : x) v = static_cast<T>(static_cast<int>(rng.below(9)) - 4);
  for (auto& v : centers) v = static_cast<T>(static_cast<int>(rng.below(7)) - 3);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  std::vector<std::int32_t> labels(n, -1);
  std::vector<double> min_d2(n);
  vcgmm::assign_nearest(data, centers.data(), c, labels.data(), min_d2.data(), 2);

  index_t n_ties = 0;
  for (index_t i = 0; i < n; ++i) {
    double best_d2;
    const index_t best = naive_nearest(x.data() + i * d, centers.data(), c, d, &best_d2);
    index_t n_best = 0;
    for (index_t j = 0; j < c; ++j) n_best += naive_d2(x.data() + i * d, centers.data() + j * d, d) == best_d2;
    n_ties += n_best > 1;
    CAPTURE(i);
    CHECK(labels[i] == best);
    CHECK(min_d2[i] == best_d2);
  }
  CHECK(n_ties > n / 2);  // the test data really are full of ties
}

TEST_CASE_TEMPLATE("duplicated centers: the lowest index wins in every tile position", T, float,
                   double) {
  // Real-valued (non-integer) copies of one center at several positions, in
  // the same and in other 512-center tiles and at tile edges. Whatever the
  // product kernel does with a column's position, a copy must never beat the
  // original.
  const index_t d = 13, c = 1030, n = 300;
  std::vector<T> centers = gaussian<T>(c, d, 11);
  const index_t original = 5;
  for (index_t copy : {6, 300, 510, 511, 512, 513, 1024, 1029}) {
    for (index_t j = 0; j < d; ++j) centers[copy * d + j] = centers[original * d + j];
  }
  // Points near the original, so it (and its copies) is the nearest center.
  TestRng rng(12);
  std::vector<T> x(n * d);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < d; ++j) {
      x[i * d + j] = static_cast<T>(static_cast<double>(centers[original * d + j]) + 0.01 * rng.normal());
    }
  }
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  std::vector<std::int32_t> labels(n, -1);
  vcgmm::assign_nearest(data, centers.data(), c, labels.data(), nullptr, 2);
  index_t wrong = 0;
  for (index_t i = 0; i < n; ++i) wrong += labels[i] != original;
  CHECK(wrong == 0);
}

TEST_CASE_TEMPLATE("assign_nearest counts changed labels", T, float, double) {
  const index_t n = 700, d = 5, c = 40;
  const std::vector<T> x = gaussian<T>(n, d, 21);
  const std::vector<T> centers = gaussian<T>(c, d, 22);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  std::vector<std::int32_t> labels(n, -1);
  CHECK(vcgmm::assign_nearest(data, centers.data(), c, labels.data(), nullptr, 1).n_changed == n);
  const std::vector<std::int32_t> reference = labels;
  CHECK(vcgmm::assign_nearest(data, centers.data(), c, labels.data(), nullptr, 1).n_changed == 0);
  // Corrupt 37 labels (to another valid center): exactly those change back.
  for (index_t k = 0; k < 37; ++k) {
    const index_t i = k * 17 + 3;
    labels[i] = (labels[i] + 1) % static_cast<std::int32_t>(c);
  }
  CHECK(vcgmm::assign_nearest(data, centers.data(), c, labels.data(), nullptr, 2).n_changed == 37);
  CHECK(labels == reference);
}

TEST_CASE_TEMPLATE("sample weights: weighted sum, and integer weights equal repeated rows", T, float,
                   double) {
  const index_t n = 520, d = 4, c = 530;
  const std::vector<T> x = gaussian<T>(n, d, 31);
  const std::vector<T> centers = gaussian<T>(c, d, 32);
  TestRng rng(33);
  std::vector<double> w(n);
  std::vector<T> repeated;
  for (index_t i = 0; i < n; ++i) {
    w[i] = static_cast<double>(1 + rng.below(3));
    for (int r = 0; r < static_cast<int>(w[i]); ++r) {
      repeated.insert(repeated.end(), x.begin() + i * d, x.begin() + (i + 1) * d);
    }
  }
  const index_t n_rep = static_cast<index_t>(repeated.size()) / d;
  std::vector<double> min_d2(n);
  const double weighted = vcgmm::assign_nearest(vcgmm::DataView<T>{x.data(), n, d, w.data()},
                                                centers.data(), c, nullptr, min_d2.data(), 2)
                              .objective;
  double expected = 0.0;
  for (index_t i = 0; i < n; ++i) expected += w[i] * min_d2[i];
  CHECK(weighted == doctest::Approx(expected).epsilon(1e-12));
  const double rep = vcgmm::quantization_error(vcgmm::DataView<T>{repeated.data(), n_rep, d, nullptr},
                                               centers.data(), c, 2);
  CHECK(weighted == doctest::Approx(rep).epsilon(1e-12));
}

TEST_CASE("min_d2 is exact and never negative where the GEMM expansion cancels") {
  // Float data far from the origin (|x|^2 ~ 8e6): the expansion
  // ||x||^2 - 2 x.c + ||c||^2 loses about 1 in absolute terms there and would
  // produce negative "squared distances". Centers are 10 apart, so the nearest
  // one is still found, and points that coincide with a center must get an
  // exact 0.
  using T = float;
  const index_t d = 8, c = 40, n = 400;
  std::vector<T> centers(c * d);
  for (index_t k = 0; k < c; ++k) {
    for (index_t j = 0; j < d; ++j) centers[k * d + j] = static_cast<T>(1000.0 + 10.0 * ((k >> (j % 6)) & 1) + (j == 7 ? 10.0 * k : 0.0));
  }
  TestRng rng(41);
  std::vector<T> x(n * d);
  std::vector<index_t> source(n);
  for (index_t i = 0; i < n; ++i) {
    source[i] = rng.below(c);
    const bool on_center = i % 2 == 0;
    for (index_t j = 0; j < d; ++j) {
      x[i * d + j] = static_cast<T>(static_cast<double>(centers[source[i] * d + j]) +
                                    (on_center ? 0.0 : 0.3 * rng.normal()));
    }
  }
  std::vector<std::int32_t> labels(n, -1);
  std::vector<double> min_d2(n, -1.0);
  const double objective = vcgmm::assign_nearest(vcgmm::DataView<T>{x.data(), n, d, nullptr},
                                                 centers.data(), c, labels.data(), min_d2.data(), 2)
                               .objective;
  double expected = 0.0;
  for (index_t i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(min_d2[i] >= 0.0);
    CHECK(labels[i] == source[i]);
    CHECK(min_d2[i] ==
          doctest::Approx(naive_d2(x.data() + i * d, centers.data() + labels[i] * d, d)).epsilon(1e-13));
    if (i % 2 == 0) CHECK(min_d2[i] == 0.0);
    expected += min_d2[i];
  }
  CHECK(objective >= 0.0);
  CHECK(objective == doctest::Approx(expected).epsilon(1e-12));
}
