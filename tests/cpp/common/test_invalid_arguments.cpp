// Every documented precondition violation throws vcgmm::InvalidArgument
// (a std::invalid_argument) whose message names the offending argument.
#include <doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using vcgmm::InvalidArgument;
using namespace vcgmm_test;

static_assert(std::is_base_of<std::invalid_argument, vcgmm::InvalidArgument>::value,
              "InvalidArgument must be catchable as std::invalid_argument");

namespace {

constexpr index_t kRows = 50;
constexpr index_t kCols = 3;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Weight vectors that each break the "finite and > 0" rule at one position.
std::vector<std::vector<double>> bad_weight_vectors() {
  std::vector<std::vector<double>> out;
  for (double bad : {0.0, -1.0, kNaN, kInf, -kInf}) {
    std::vector<double> w(kRows, 1.0);
    w[kRows / 2] = bad;
    out.push_back(w);
  }
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("data views: empty, null or badly weighted data are rejected everywhere", T, float,
                   double) {
  const std::vector<T> x = gaussian<T>(kRows, kCols, 301);
  std::vector<T> centers(4 * kCols, T(0));
  std::vector<index_t> idx(10);
  std::vector<double> gw(10);
  std::vector<std::int32_t> labels(kRows);
  const vcgmm::RunOptions run = run_options(0, 1);

  // Every entry point, applied to a data view.
  // evaluation: also the evaluation entry points (assign_nearest,
  // quantization_error), which take zero weights (a point that adds nothing).
  auto each_entry_point = [&](const vcgmm::DataView<T>& data, const char* what,
                              bool evaluation = true) {
    CAPTURE(what);
    CHECK_THROWS_AS(vcgmm::lightweight_coreset(data, 10, run, idx.data(), gw.data()),
                    InvalidArgument);
    CHECK_THROWS_AS(vcgmm::kmeans_plusplus(data, 2, vcgmm::KMeansPlusPlusParams{1}, run,
                                           centers.data(), idx.data()),
                    InvalidArgument);
    CHECK_THROWS_AS(
        vcgmm::afkmc2(data, 2, vcgmm::Afkmc2Params{5}, run, centers.data(), idx.data()),
        InvalidArgument);
    if (evaluation) {
      CHECK_THROWS_AS(vcgmm::assign_nearest(data, centers.data(), 2, labels.data(), nullptr, 1),
                      InvalidArgument);
      CHECK_THROWS_AS(vcgmm::quantization_error(data, centers.data(), 2, 1), InvalidArgument);
    }
    CHECK_THROWS_AS(vcgmm::lloyd(data, 2, vcgmm::LloydParams{}, run, centers.data()),
                    InvalidArgument);
    const vcgmm::FitBuffers<T> buffers{nullptr, centers.data(), labels.data(), nullptr, nullptr};
    vcgmm::KMeansParams p;
    p.n_clusters = 2;
    CHECK_THROWS_AS(vcgmm::fit_kmeans(data, p, buffers), InvalidArgument);
    vcgmm::VcgmmParams vp;
    vp.n_clusters = 2;
    CHECK_THROWS_AS(vcgmm::fit_vcgmm(data, vp, buffers), InvalidArgument);
    CHECK_THROWS_AS(vcgmm::VariationalGmm<T>(data, 2, centers.data(), vcgmm::VariationalGmmParams{},
                                             run),
                    InvalidArgument);
  };

  each_entry_point(vcgmm::DataView<T>{x.data(), 0, kCols, nullptr}, "n = 0");
  each_entry_point(vcgmm::DataView<T>{x.data(), -5, kCols, nullptr}, "n < 0");
  each_entry_point(vcgmm::DataView<T>{x.data(), kRows, 0, nullptr}, "d = 0");
  each_entry_point(vcgmm::DataView<T>{nullptr, kRows, kCols, nullptr}, "x = nullptr");
  for (const std::vector<double>& w : bad_weight_vectors()) {
    CAPTURE(w[kRows / 2]);
    const bool zero = w[kRows / 2] == 0.0;
    each_entry_point(vcgmm::DataView<T>{x.data(), kRows, kCols, w.data()}, "bad weight", !zero);
    const vcgmm::DataView<T> weighted{x.data(), kRows, kCols, w.data()};
    if (!zero) {
      CHECK_THROWS_WITH_AS(vcgmm::quantization_error(weighted, centers.data(), 2, 1),
                           doctest::Contains("sample_weight[25]"), InvalidArgument);
      continue;
    }
    // A zero weight: the fitting entry points refuse it (the Python layer
    // drops such rows first), the evaluation labels the row and adds 0.
    std::vector<double> d2(kRows);
    vcgmm::assign_nearest(weighted, centers.data(), 2, labels.data(), d2.data(), 1);
    double expected = 0.0;
    for (index_t i = 0; i < kRows; ++i) expected += w[i] * d2[i];
    CHECK(vcgmm::quantization_error(weighted, centers.data(), 2, 1) ==
          doctest::Approx(expected).epsilon(1e-12));
    CHECK(d2[kRows / 2] > 0.0);
    CHECK(labels[kRows / 2] >= 0);
  }
}

TEST_CASE_TEMPLATE("samplers reject bad parameters", T, float, double) {
  const std::vector<T> x = gaussian<T>(kRows, kCols, 302);
  const vcgmm::DataView<T> data{x.data(), kRows, kCols, nullptr};
  std::vector<T> centers((kRows + 1) * kCols);
  std::vector<index_t> idx(kRows + 1);
  std::vector<double> gw(kRows + 1);
  const vcgmm::RunOptions run = run_options(0, 1);

  // lightweight_coreset
  for (index_t m : {0, -3}) {
    CHECK_THROWS_WITH_AS(vcgmm::lightweight_coreset(data, m, run, idx.data(), gw.data()),
                         doctest::Contains("coreset_size"), InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::lightweight_coreset(data, 5, run, nullptr, gw.data()), InvalidArgument);
  CHECK_THROWS_AS(vcgmm::lightweight_coreset(data, 5, run, idx.data(), nullptr), InvalidArgument);

  // kmeans_plusplus
  for (index_t C : {index_t(0), index_t(-1), kRows + 1}) {
    CAPTURE(C);
    CHECK_THROWS_WITH_AS(vcgmm::kmeans_plusplus(data, C, vcgmm::KMeansPlusPlusParams{1}, run,
                                                centers.data(), idx.data()),
                         doctest::Contains("n_clusters"), InvalidArgument);
    CHECK_THROWS_WITH_AS(
        vcgmm::afkmc2(data, C, vcgmm::Afkmc2Params{5}, run, centers.data(), idx.data()),
        doctest::Contains("n_clusters"), InvalidArgument);
  }
  for (int trials : {-1, -2}) {
    CHECK_THROWS_WITH_AS(vcgmm::kmeans_plusplus(data, 3, vcgmm::KMeansPlusPlusParams{trials}, run,
                                                centers.data(), idx.data()),
                         doctest::Contains("n_local_trials"), InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::kmeans_plusplus(data, 3, vcgmm::KMeansPlusPlusParams{1}, run,
                                         static_cast<T*>(nullptr), idx.data()),
                  InvalidArgument);

  // afkmc2
  for (int chain : {0, -1}) {
    CHECK_THROWS_WITH_AS(
        vcgmm::afkmc2(data, 3, vcgmm::Afkmc2Params{chain}, run, centers.data(), idx.data()),
        doctest::Contains("chain_length"), InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::afkmc2(data, 3, vcgmm::Afkmc2Params{5}, run, static_cast<T*>(nullptr),
                                idx.data()),
                  InvalidArgument);

  // The boundaries themselves are valid: C = n, C = 1, m = 1, chain_length = 1.
  CHECK_NOTHROW(vcgmm::kmeans_plusplus(data, kRows, vcgmm::KMeansPlusPlusParams{1}, run,
                                       centers.data(), idx.data()));
  CHECK_NOTHROW(
      vcgmm::afkmc2(data, kRows, vcgmm::Afkmc2Params{1}, run, centers.data(), idx.data()));
  CHECK_NOTHROW(vcgmm::afkmc2(data, 1, vcgmm::Afkmc2Params{1}, run, centers.data(), idx.data()));
  CHECK_NOTHROW(vcgmm::lightweight_coreset(data, 1, run, idx.data(), gw.data()));
}

TEST_CASE_TEMPLATE("assignment and lloyd reject bad parameters", T, float, double) {
  const std::vector<T> x = gaussian<T>(kRows, kCols, 303);
  const vcgmm::DataView<T> data{x.data(), kRows, kCols, nullptr};
  std::vector<T> centers((kRows + 1) * kCols, T(0));
  std::vector<std::int32_t> labels(kRows);

  for (index_t c : {0, -4}) {
    CHECK_THROWS_AS(vcgmm::assign_nearest(data, centers.data(), c, labels.data(), nullptr, 1),
                    InvalidArgument);
    CHECK_THROWS_AS(vcgmm::quantization_error(data, centers.data(), c, 1), InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::assign_nearest(data, static_cast<const T*>(nullptr), 3, labels.data(),
                                        nullptr, 1),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::quantization_error(data, static_cast<const T*>(nullptr), 3, 1),
                  InvalidArgument);

  const vcgmm::LloydParams ok;
  const vcgmm::RunOptions run = run_options(0, 1);
  for (index_t C : {index_t(0), index_t(-2), kRows + 1}) {
    CAPTURE(C);
    CHECK_THROWS_WITH_AS(vcgmm::lloyd(data, C, ok, run, centers.data()),
                         doctest::Contains("n_clusters"),
                         InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::lloyd(data, 3, ok, run, static_cast<T*>(nullptr)), InvalidArgument);
  for (int max_iter : {0, -1}) {
    vcgmm::LloydParams p;
    p.max_iter = max_iter;
    CHECK_THROWS_WITH_AS(vcgmm::lloyd(data, 3, p, run, centers.data()),
                         doctest::Contains("max_iter"),
                         InvalidArgument);
  }
  for (double tol : {-1e-9, -1.0, kNaN, kInf}) {
    CAPTURE(tol);
    vcgmm::LloydParams p;
    p.tol = tol;
    CHECK_THROWS_WITH_AS(vcgmm::lloyd(data, 3, p, run, centers.data()), doctest::Contains("tol"),
                         InvalidArgument);
  }
  // tol = 0 is valid (run to a fixed point or max_iter).
  vcgmm::LloydParams zero_tol;
  zero_tol.tol = 0.0;
  zero_tol.max_iter = 3;
  CHECK_NOTHROW(vcgmm::lloyd(data, 3, zero_tol, run, centers.data()));
}

TEST_CASE_TEMPLATE("fit_kmeans rejects bad parameters", T, float, double) {
  const std::vector<T> x = gaussian<T>(kRows, kCols, 304);
  const vcgmm::DataView<T> data{x.data(), kRows, kCols, nullptr};
  std::vector<T> centers((kRows + 1) * kCols);
  std::vector<std::int32_t> labels(kRows);
  auto fit = [&](const vcgmm::KMeansParams& p, const T* init = nullptr, T* out = nullptr) {
    return vcgmm::fit_kmeans(data, p,
                             vcgmm::FitBuffers<T>{init, out ? out : centers.data(), labels.data(),
                                                  nullptr, nullptr});
  };
  auto base = [](vcgmm::SeedingMethod init, index_t coreset) {
    vcgmm::KMeansParams p;
    p.n_clusters = 4;
    p.seeding.method = init;
    p.coreset_size = coreset;
    return p;
  };
  for (vcgmm::SeedingMethod init :
       {vcgmm::SeedingMethod::kmeans_plusplus, vcgmm::SeedingMethod::afkmc2}) {
    for (index_t coreset : {0, 20}) {
      CAPTURE(static_cast<int>(init));
      CAPTURE(coreset);
      CHECK_NOTHROW(fit(base(init, coreset)));
      for (index_t C : {index_t(0), index_t(-1), kRows + 1}) {
        vcgmm::KMeansParams p = base(init, coreset);
        p.n_clusters = C;
        CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("n_clusters"), InvalidArgument);
      }
      vcgmm::KMeansParams p = base(init, coreset);
      const vcgmm::FitBuffers<T> no_centers{nullptr, nullptr, labels.data(), nullptr, nullptr};
      CHECK_THROWS_WITH_AS(vcgmm::fit_kmeans(data, p, no_centers), doctest::Contains("centers"),
                           InvalidArgument);
      p.lloyd.max_iter = 0;
      CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("max_iter"), InvalidArgument);
      p = base(init, coreset);
      p.lloyd.tol = -0.5;
      CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("tol"), InvalidArgument);
      p.lloyd.tol = kNaN;
      CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("tol"), InvalidArgument);
    }
  }
  // coreset_size must be 0 or >= n_clusters.
  for (index_t coreset : {1, 3, -1}) {
    CAPTURE(coreset);
    CHECK_THROWS_WITH_AS(fit(base(vcgmm::SeedingMethod::afkmc2, coreset)),
                         doctest::Contains("coreset_size"), InvalidArgument);
  }
  CHECK_NOTHROW(fit(base(vcgmm::SeedingMethod::afkmc2, 4)));  // = n_clusters: allowed
  // Seeding parameters of the seeding actually used.
  vcgmm::KMeansParams p = base(vcgmm::SeedingMethod::afkmc2, 20);
  p.seeding.afkmc2.chain_length = 0;
  CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("chain_length"), InvalidArgument);
  p = base(vcgmm::SeedingMethod::kmeans_plusplus, 0);
  p.seeding.kmeans_plusplus.n_local_trials = -1;
  CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("n_local_trials"), InvalidArgument);
  // seeding.method == given needs the centers.
  p = base(vcgmm::SeedingMethod::given, 0);
  CHECK_THROWS_WITH_AS(fit(p, nullptr), doctest::Contains("init_centers"), InvalidArgument);
  std::vector<T> init(4 * kCols, T(0));
  CHECK_NOTHROW(fit(p, init.data()));
}
