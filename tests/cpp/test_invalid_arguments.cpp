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

constexpr index_t kN = 50;
constexpr index_t kD = 3;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Weight vectors that each break the "finite and > 0" rule at one position.
std::vector<std::vector<double>> bad_weight_vectors() {
  std::vector<std::vector<double>> out;
  for (double bad : {0.0, -1.0, kNaN, kInf, -kInf}) {
    std::vector<double> w(kN, 1.0);
    w[kN / 2] = bad;
    out.push_back(w);
  }
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("data views: empty, null or badly weighted data are rejected everywhere", T, float,
                   double) {
  const std::vector<T> x = gaussian<T>(kN, kD, 301);
  std::vector<T> centers(4 * kD, T(0));
  std::vector<index_t> idx(10);
  std::vector<double> gw(10);
  std::vector<std::int32_t> labels(kN);

  // Every entry point, applied to a data view.
  auto each_entry_point = [&](const vcgmm::DataView<T>& data, const char* what) {
    CAPTURE(what);
    CHECK_THROWS_AS(vcgmm::lightweight_coreset(data, vcgmm::LightweightCoresetParams{10, 0, 1},
                                               idx.data(), gw.data()),
                    InvalidArgument);
    CHECK_THROWS_AS(vcgmm::kmeans_plusplus(data, vcgmm::KMeansPlusPlusParams{2, 1, 0, 1},
                                           centers.data(), idx.data()),
                    InvalidArgument);
    CHECK_THROWS_AS(
        vcgmm::afkmc2(data, vcgmm::Afkmc2Params{2, 5, 0, 1}, centers.data(), idx.data()),
        InvalidArgument);
    CHECK_THROWS_AS(vcgmm::assign_nearest(data, centers.data(), 2, labels.data(), nullptr, 1),
                    InvalidArgument);
    CHECK_THROWS_AS(vcgmm::quantization_error(data, centers.data(), 2, 1), InvalidArgument);
    CHECK_THROWS_AS(vcgmm::lloyd(data, 2, vcgmm::LloydParams{}, centers.data()), InvalidArgument);
    vcgmm::KMeansParams p;
    p.n_clusters = 2;
    CHECK_THROWS_AS(vcgmm::fit_kmeans(data, p, static_cast<const T*>(nullptr), centers.data(),
                                      labels.data(), nullptr, nullptr),
                    InvalidArgument);
  };

  each_entry_point(vcgmm::DataView<T>{x.data(), 0, kD, nullptr}, "n = 0");
  each_entry_point(vcgmm::DataView<T>{x.data(), -5, kD, nullptr}, "n < 0");
  each_entry_point(vcgmm::DataView<T>{x.data(), kN, 0, nullptr}, "d = 0");
  each_entry_point(vcgmm::DataView<T>{nullptr, kN, kD, nullptr}, "x = nullptr");
  for (const std::vector<double>& w : bad_weight_vectors()) {
    CAPTURE(w[kN / 2]);
    each_entry_point(vcgmm::DataView<T>{x.data(), kN, kD, w.data()}, "bad weight");
    CHECK_THROWS_WITH_AS(vcgmm::quantization_error(vcgmm::DataView<T>{x.data(), kN, kD, w.data()},
                                                   centers.data(), 2, 1),
                         doctest::Contains("sample_weight[25]"), InvalidArgument);
  }
}

TEST_CASE_TEMPLATE("samplers reject bad parameters", T, float, double) {
  const std::vector<T> x = gaussian<T>(kN, kD, 302);
  const vcgmm::DataView<T> data{x.data(), kN, kD, nullptr};
  std::vector<T> centers((kN + 1) * kD);
  std::vector<index_t> idx(kN + 1);
  std::vector<double> gw(kN + 1);

  // lightweight_coreset
  for (index_t m : {0, -3}) {
    CHECK_THROWS_WITH_AS(vcgmm::lightweight_coreset(data, vcgmm::LightweightCoresetParams{m, 0, 1},
                                                    idx.data(), gw.data()),
                         doctest::Contains("n_prime"), InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::lightweight_coreset(data, vcgmm::LightweightCoresetParams{5, 0, 1}, nullptr,
                                             gw.data()),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::lightweight_coreset(data, vcgmm::LightweightCoresetParams{5, 0, 1},
                                             idx.data(), nullptr),
                  InvalidArgument);

  // kmeans_plusplus
  for (index_t C : {index_t(0), index_t(-1), kN + 1}) {
    CAPTURE(C);
    CHECK_THROWS_WITH_AS(vcgmm::kmeans_plusplus(data, vcgmm::KMeansPlusPlusParams{C, 1, 0, 1},
                                                centers.data(), idx.data()),
                         doctest::Contains("n_clusters"), InvalidArgument);
    CHECK_THROWS_WITH_AS(
        vcgmm::afkmc2(data, vcgmm::Afkmc2Params{C, 5, 0, 1}, centers.data(), idx.data()),
        doctest::Contains("n_clusters"), InvalidArgument);
  }
  for (int trials : {0, -2}) {
    CHECK_THROWS_WITH_AS(vcgmm::kmeans_plusplus(data, vcgmm::KMeansPlusPlusParams{3, trials, 0, 1},
                                                centers.data(), idx.data()),
                         doctest::Contains("n_local_trials"), InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::kmeans_plusplus(data, vcgmm::KMeansPlusPlusParams{3, 1, 0, 1}, static_cast<T*>(nullptr),
                                         idx.data()),
                  InvalidArgument);

  // afkmc2
  for (int chain : {0, -1}) {
    CHECK_THROWS_WITH_AS(
        vcgmm::afkmc2(data, vcgmm::Afkmc2Params{3, chain, 0, 1}, centers.data(), idx.data()),
        doctest::Contains("chain_length"), InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::afkmc2(data, vcgmm::Afkmc2Params{3, 5, 0, 1}, static_cast<T*>(nullptr), idx.data()),
                  InvalidArgument);

  // The boundaries themselves are valid: C = n, C = 1, m = 1, chain_length = 1.
  CHECK_NOTHROW(vcgmm::kmeans_plusplus(data, vcgmm::KMeansPlusPlusParams{kN, 1, 0, 1}, centers.data(),
                                       idx.data()));
  CHECK_NOTHROW(vcgmm::afkmc2(data, vcgmm::Afkmc2Params{kN, 1, 0, 1}, centers.data(), idx.data()));
  CHECK_NOTHROW(vcgmm::afkmc2(data, vcgmm::Afkmc2Params{1, 1, 0, 1}, centers.data(), idx.data()));
  CHECK_NOTHROW(vcgmm::lightweight_coreset(data, vcgmm::LightweightCoresetParams{1, 0, 1}, idx.data(),
                                           gw.data()));
}

TEST_CASE_TEMPLATE("assignment and lloyd reject bad parameters", T, float, double) {
  const std::vector<T> x = gaussian<T>(kN, kD, 303);
  const vcgmm::DataView<T> data{x.data(), kN, kD, nullptr};
  std::vector<T> centers((kN + 1) * kD, T(0));
  std::vector<std::int32_t> labels(kN);

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
  for (index_t C : {index_t(0), index_t(-2), kN + 1}) {
    CAPTURE(C);
    CHECK_THROWS_WITH_AS(vcgmm::lloyd(data, C, ok, centers.data()), doctest::Contains("n_clusters"),
                         InvalidArgument);
  }
  CHECK_THROWS_AS(vcgmm::lloyd(data, 3, ok, static_cast<T*>(nullptr)), InvalidArgument);
  for (int max_iter : {0, -1}) {
    vcgmm::LloydParams p;
    p.max_iter = max_iter;
    CHECK_THROWS_WITH_AS(vcgmm::lloyd(data, 3, p, centers.data()), doctest::Contains("max_iter"),
                         InvalidArgument);
  }
  for (double tol : {-1e-9, -1.0, kNaN, kInf}) {
    CAPTURE(tol);
    vcgmm::LloydParams p;
    p.tol = tol;
    CHECK_THROWS_WITH_AS(vcgmm::lloyd(data, 3, p, centers.data()), doctest::Contains("tol"),
                         InvalidArgument);
  }
  // tol = 0 is valid (run to a fixed point or max_iter).
  vcgmm::LloydParams zero_tol;
  zero_tol.tol = 0.0;
  zero_tol.max_iter = 3;
  CHECK_NOTHROW(vcgmm::lloyd(data, 3, zero_tol, centers.data()));
}

TEST_CASE_TEMPLATE("fit_kmeans rejects bad parameters", T, float, double) {
  const std::vector<T> x = gaussian<T>(kN, kD, 304);
  const vcgmm::DataView<T> data{x.data(), kN, kD, nullptr};
  std::vector<T> centers((kN + 1) * kD);
  std::vector<std::int32_t> labels(kN);
  auto fit = [&](const vcgmm::KMeansParams& p, const T* init = nullptr, T* out = nullptr) {
    return vcgmm::fit_kmeans(data, p, init, out ? out : centers.data(), labels.data(), nullptr,
                             nullptr);
  };
  auto base = [](vcgmm::KMeansInit init, index_t coreset) {
    vcgmm::KMeansParams p;
    p.n_clusters = 4;
    p.init = init;
    p.coreset_size = coreset;
    return p;
  };
  for (vcgmm::KMeansInit init : {vcgmm::KMeansInit::kmeans_plusplus, vcgmm::KMeansInit::afkmc2}) {
    for (index_t coreset : {0, 20}) {
      CAPTURE(static_cast<int>(init));
      CAPTURE(coreset);
      CHECK_NOTHROW(fit(base(init, coreset)));
      for (index_t C : {index_t(0), index_t(-1), kN + 1}) {
        vcgmm::KMeansParams p = base(init, coreset);
        p.n_clusters = C;
        CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("n_clusters"), InvalidArgument);
      }
      vcgmm::KMeansParams p = base(init, coreset);
      CHECK_THROWS_AS(vcgmm::fit_kmeans(data, p, static_cast<const T*>(nullptr),
                                        static_cast<T*>(nullptr), labels.data(), nullptr, nullptr),
                      InvalidArgument);
      p.max_iter = 0;
      CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("max_iter"), InvalidArgument);
      p = base(init, coreset);
      p.tol = -0.5;
      CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("tol"), InvalidArgument);
      p.tol = kNaN;
      CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("tol"), InvalidArgument);
    }
  }
  // coreset_size must be 0 or >= n_clusters.
  for (index_t coreset : {1, 3, -1}) {
    CAPTURE(coreset);
    CHECK_THROWS_WITH_AS(fit(base(vcgmm::KMeansInit::afkmc2, coreset)),
                         doctest::Contains("coreset_size"), InvalidArgument);
  }
  CHECK_NOTHROW(fit(base(vcgmm::KMeansInit::afkmc2, 4)));  // = n_clusters: allowed
  // Seeding parameters of the seeding actually used.
  vcgmm::KMeansParams p = base(vcgmm::KMeansInit::afkmc2, 20);
  p.chain_length = 0;
  CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("chain_length"), InvalidArgument);
  p = base(vcgmm::KMeansInit::kmeans_plusplus, 0);
  p.n_local_trials = 0;
  CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("n_local_trials"), InvalidArgument);
  // init == given needs the centers.
  p = base(vcgmm::KMeansInit::given, 0);
  CHECK_THROWS_WITH_AS(fit(p, nullptr), doctest::Contains("init_centers"), InvalidArgument);
  std::vector<T> init(4 * kD, T(0));
  CHECK_NOTHROW(fit(p, init.data()));
}
