// VariationalGmm (the var-GMM-S loop), fit_vcgmm (vc-GMM) and the GMM scoring
// functions: exact EM when G = C against a double reference computed here,
// Prop. 1 (an E-step never lowers the free energy), the sets K(n) and G_c,
// the distance bookkeeping, determinism across thread counts on data that
// spans several E-step blocks and cluster tasks, the pipeline as the
// composition of its public pieces, and argument checking.
#include <doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using vcgmm::InvalidArgument;
using namespace vcgmm_test;

namespace {

constexpr double kPi = 3.14159265358979323846;

/// log(sum_i exp(v_i)), shifted by the maximum.
double logsumexp(const std::vector<double>& v) {
  const double m = *std::max_element(v.begin(), v.end());
  double s = 0.0;
  for (double x : v) s += std::exp(x - m);
  return m + std::log(s);
}

/// Exact EM in double for C isotropic Gaussians with equal weights and one
/// shared variance (the model of vc-GMM), started like the library: sigma^2 by
/// eq. 12 from the initial means.
struct ReferenceEm {
  index_t n, d, c;
  std::vector<double> x, w, mu;
  double sigma2 = 0.0;

  template <typename T>
  ReferenceEm(const std::vector<T>& x_, index_t n_, index_t d_, const double* w_,
              const std::vector<T>& mu_)
      : n(n_), d(d_), c(static_cast<index_t>(mu_.size()) / d_), x(x_.begin(), x_.end()),
        w(n_, 1.0), mu(mu_.begin(), mu_.end()) {
    if (w_) w.assign(w_, w_ + n_);
    double s = 0.0, wt = 0.0;
    for (index_t i = 0; i < n; ++i) {
      double best = std::numeric_limits<double>::infinity();
      for (index_t k = 0; k < c; ++k) best = std::min(best, d2(i, k));
      s += w[i] * best;
      wt += w[i];
    }
    sigma2 = s / (static_cast<double>(d) * wt);
  }

  double d2(index_t i, index_t k) const { return naive_d2(&x[i * d], &mu[k * d], d); }

  /// One iteration; returns the free energy (= log-likelihood) before the M-step.
  double step() {
    std::vector<double> resp(n * c), logp(c);
    double F = 0.0, wt = 0.0;
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = 0; k < c; ++k) logp[k] = -d2(i, k) / (2.0 * sigma2);
      const double lse = logsumexp(logp);
      for (index_t k = 0; k < c; ++k) resp[i * c + k] = w[i] * std::exp(logp[k] - lse);
      F += w[i] * lse;
      wt += w[i];
    }
    F -= wt * (std::log(static_cast<double>(c)) + 0.5 * d * std::log(2.0 * kPi * sigma2));
    std::vector<double> mass(c, 0.0), acc(c * d, 0.0);
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = 0; k < c; ++k) {
        mass[k] += resp[i * c + k];
        for (index_t j = 0; j < d; ++j) acc[k * d + j] += resp[i * c + k] * x[i * d + j];
      }
    }
    for (index_t k = 0; k < c; ++k) {
      for (index_t j = 0; j < d; ++j) mu[k * d + j] = acc[k * d + j] / mass[k];
    }
    double s = 0.0;
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = 0; k < c; ++k) s += resp[i * c + k] * d2(i, k);
    }
    sigma2 = s / (static_cast<double>(d) * wt);
    return F;
  }
};

/// Rows of `x` as initial means, nudged off the data points.
template <typename T>
std::vector<T> initial_means(const std::vector<T>& x, index_t d, index_t c, std::uint64_t seed) {
  TestRng rng(seed);
  std::vector<T> mu(c * d);
  const index_t n = static_cast<index_t>(x.size()) / d;
  for (index_t k = 0; k < c; ++k) {
    const index_t i = rng.below(n);
    for (index_t j = 0; j < d; ++j) mu[k * d + j] = static_cast<T>(x[i * d + j] + 0.1 * (rng.uniform() - 0.5));
  }
  return mu;
}

template <typename T>
double max_abs(const std::vector<T>& v) {
  double m = 0.0;
  for (T a : v) m = std::max(m, std::abs(static_cast<double>(a)));
  return m;
}

template <typename T>
double tolerance() {
  return std::is_same<T, float>::value ? 2e-5 : 1e-10;
}

}  // namespace

// ----------------------------------------------------------------------------
// G = C: exact EM
// ----------------------------------------------------------------------------

TEST_CASE_TEMPLATE("VariationalGmm with G = C is exact EM (double reference)", T, float, double) {
  const index_t n = 300, d = 3;
  const std::vector<T> x = blobs<T>(n, d, 5, 4.0, 1.0, 11);  // overlapping blobs
  const std::vector<double> w = positive_weights(n, 12);
  const double scale = max_abs(x);
  for (bool weighted : {false, true}) {
    for (index_t C : {index_t(2), index_t(5)}) {
      CAPTURE(weighted);
      CAPTURE(C);
      const std::vector<T> mu0 = initial_means(x, d, C, 13 + C);
      const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
      ReferenceEm ref(x, n, d, weighted ? w.data() : nullptr, mu0);
      for (int G : {static_cast<int>(C), 50}) {  // G > C is clamped to C
        CAPTURE(G);
        ReferenceEm r = ref;
        vcgmm::VariationalGmmParams p;
        p.G = G;
        vcgmm::VariationalGmm<T> em(data, C, mu0.data(), p, run_options(0, 2));
        CHECK(em.G() == C);
        CHECK(em.sigma2() == 0.0);
        for (int it = 0; it < 6; ++it) {
          CAPTURE(it);
          const double F_ref = r.step();
          const double F = em.e_step();
          CHECK(F == doctest::Approx(F_ref).epsilon(tolerance<T>()));
          em.m_step();
          CHECK(em.sigma2() == doctest::Approx(r.sigma2).epsilon(tolerance<T>()));
          double err = 0.0;
          for (index_t k = 0; k < C * d; ++k) {
            err = std::max(err, std::abs(static_cast<double>(em.means()[k]) - r.mu[k]));
          }
          CHECK(err <= tolerance<T>() * scale);
          // Every K(n) and G_c holds all clusters.
          const std::int32_t* K = em.truncation_sets();
          for (index_t i = 0; i < n; ++i) {
            std::set<std::int32_t> s(K + i * C, K + (i + 1) * C);
            CHECK(static_cast<index_t>(s.size()) == C);
          }
          CHECK(em.n_distance_evals() == (it + 1) * n * C);
        }
      }
    }
  }
}

// ----------------------------------------------------------------------------
// covariance_type = spherical: per-component variances and weights
// ----------------------------------------------------------------------------

namespace {

/// Exact EM in double for C isotropic Gaussians with their own variances and
/// mixing weights, started like the library (sigma^2 of eq. 12 for every
/// component, weights 1/C).
struct ReferenceSphericalEm {
  ReferenceEm base;  // data, weights, means, eq. 12
  std::vector<double> var, pi;

  template <typename T>
  ReferenceSphericalEm(const std::vector<T>& x, index_t n, index_t d, const double* w,
                       const std::vector<T>& mu)
      : base(x, n, d, w, mu), var(base.c, base.sigma2), pi(base.c, 1.0 / base.c) {}

  double step() {
    const index_t n = base.n, d = base.d, c = base.c;
    std::vector<double> resp(n * c), logp(c);
    double F = 0.0, wt = 0.0;
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = 0; k < c; ++k) {
        logp[k] = std::log(pi[k]) - 0.5 * d * std::log(2.0 * kPi * var[k]) -
                  base.d2(i, k) / (2.0 * var[k]);
      }
      const double lse = logsumexp(logp);
      for (index_t k = 0; k < c; ++k) resp[i * c + k] = base.w[i] * std::exp(logp[k] - lse);
      F += base.w[i] * lse;
      wt += base.w[i];
    }
    std::vector<double> mass(c, 0.0), acc(c * d, 0.0);
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = 0; k < c; ++k) {
        mass[k] += resp[i * c + k];
        for (index_t j = 0; j < d; ++j) acc[k * d + j] += resp[i * c + k] * base.x[i * d + j];
      }
    }
    for (index_t k = 0; k < c; ++k) {
      for (index_t j = 0; j < d; ++j) base.mu[k * d + j] = acc[k * d + j] / mass[k];
    }
    std::vector<double> s(c, 0.0);
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = 0; k < c; ++k) s[k] += resp[i * c + k] * base.d2(i, k);
    }
    for (index_t k = 0; k < c; ++k) {
      var[k] = s[k] / (static_cast<double>(d) * mass[k]);
      pi[k] = mass[k] / wt;
    }
    return F;
  }
};

}  // namespace

TEST_CASE_TEMPLATE("spherical with G = C is exact EM with per-component variances and weights", T,
                   float, double) {
  const index_t n = 300, d = 3;
  std::vector<T> x = blobs<T>(n, d, 3, 6.0, 0.4, 41);
  const std::vector<T> wide = blobs<T>(n, d, 2, 6.0, 2.0, 42);
  x.insert(x.end(), wide.begin(), wide.end());  // spreads 0.4 and 2: variances must differ
  const index_t N = 2 * n;
  const std::vector<double> w = positive_weights(N, 43);
  const double scale = max_abs(x);
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const index_t C = 5;
    const std::vector<T> mu0 = initial_means(x, d, C, 44);
    const vcgmm::DataView<T> data{x.data(), N, d, weighted ? w.data() : nullptr};
    ReferenceSphericalEm ref(x, N, d, weighted ? w.data() : nullptr, mu0);
    vcgmm::VariationalGmmParams p;
    p.G = static_cast<int>(C);
    p.covariance_type = vcgmm::CovarianceType::spherical;
    p.shared_m_steps = 0;  // the reference has no shared warm-up
    vcgmm::VariationalGmm<T> em(data, C, mu0.data(), p, run_options(0, 2));
    for (int it = 0; it < 6; ++it) {
      CAPTURE(it);
      const double F_ref = ref.step();
      const double F = em.e_step();
      CHECK(F == doctest::Approx(F_ref).epsilon(tolerance<T>()));
      CHECK(em.free_energy() == doctest::Approx(F).epsilon(1e-12));
      em.m_step();
      double err = 0.0, pooled = 0.0;
      for (index_t k = 0; k < C * d; ++k) {
        err = std::max(err, std::abs(static_cast<double>(em.means()[k]) - ref.base.mu[k]));
      }
      CHECK(err <= tolerance<T>() * scale);
      for (index_t k = 0; k < C; ++k) {
        CHECK(em.variances()[k] == doctest::Approx(ref.var[k]).epsilon(tolerance<T>()));
        CHECK(em.mixing_weights()[k] == doctest::Approx(ref.pi[k]).epsilon(tolerance<T>()));
        pooled += em.mixing_weights()[k] * em.variances()[k];
      }
      CHECK(em.sigma2() == doctest::Approx(pooled).epsilon(1e-12));
    }
    const auto [lo, hi] = std::minmax_element(ref.var.begin(), ref.var.end());
    CHECK(*hi / *lo > 4.0);  // the model differs from the shared one here
  }
}

TEST_CASE_TEMPLATE("spherical: E- and M-steps never lower the free energy, fit is monotone", T,
                   float, double) {
  const index_t n = 3000, d = 4, C = 30;
  std::vector<T> x = blobs<T>(n, d, 15, 30.0, 0.2, 51);
  const std::vector<T> wide = blobs<T>(n, d, 15, 30.0, 2.0, 52);
  x.insert(x.end(), wide.begin(), wide.end());
  const index_t N = 2 * n;
  const double slack = std::is_same<T, float>::value ? 1e-6 : 1e-12;
  for (bool plus1 : {false, true}) {
    CAPTURE(plus1);
    const std::vector<T> mu0 = initial_means(x, d, C, 53);
    const vcgmm::DataView<T> data{x.data(), N, d, nullptr};
    vcgmm::VariationalGmmParams p;
    p.G = 3;
    p.plus1 = plus1;
    p.covariance_type = vcgmm::CovarianceType::spherical;
    vcgmm::VariationalGmm<T> em(data, C, mu0.data(), p, run_options(7, 2));
    em.e_step();
    em.m_step();
    for (int it = 0; it < 8; ++it) {
      CAPTURE(it);
      const double before = em.free_energy();
      const double after = em.e_step();
      CHECK(after >= before - slack * std::abs(before));
      em.m_step();
      CHECK(em.free_energy() >= after - slack * std::abs(after));
    }
    p.tol = 1e-6;
    vcgmm::VariationalGmm<T> em2(data, C, mu0.data(), p, run_options(8, 2));
    const vcgmm::VariationalGmmResult r = em2.fit();
    REQUIRE(r.n_iter >= 3);
    REQUIRE(r.variances.size() == static_cast<size_t>(C));
    for (size_t t = 1; t < r.free_energy.size(); ++t) {
      CHECK(r.free_energy[t] >= r.free_energy[t - 1] - 1e3 * slack * std::abs(r.free_energy[t]));
    }
    double wsum = 0.0;
    for (double v : r.mixing_weights) wsum += v;
    CHECK(wsum == doctest::Approx(1.0).epsilon(1e-12));
    const auto [lo, hi] = std::minmax_element(r.variances.begin(), r.variances.end());
    CHECK(*hi / *lo > 10.0);
  }
}

TEST_CASE("shared reports its one variance and the equal weights") {
  const index_t n = 500, d = 3, C = 6;
  const std::vector<double> x = blobs<double>(n, d, C, 10.0, 1.0, 61);
  const std::vector<double> mu0 = initial_means(x, d, C, 62);
  vcgmm::VariationalGmmParams p;
  p.G = 2;
  vcgmm::VariationalGmm<double> em(vcgmm::DataView<double>{x.data(), n, d, nullptr}, C,
                                   mu0.data(), p, run_options(1, 1));
  const vcgmm::VariationalGmmResult r = em.fit();
  REQUIRE(r.variances.size() == static_cast<size_t>(C));
  for (index_t k = 0; k < C; ++k) {
    CHECK(r.variances[k] == r.sigma2);
    CHECK(r.mixing_weights[k] == 1.0 / C);
  }
}

// ----------------------------------------------------------------------------
// Prop. 1, monotone trace, the sets K(n) and G_c, distance counts
// ----------------------------------------------------------------------------

TEST_CASE_TEMPLATE("an E-step never lowers the free energy (Prop. 1), nor does the M-step", T,
                   float, double) {
  const index_t n = 4000, d = 4, C = 40;
  const std::vector<T> x = blobs<T>(n, d, C, 20.0, 1.0, 21);
  const std::vector<double> w = positive_weights(n, 22);
  // float: the free energy of ~4000 points is summed from float distances.
  const double slack = std::is_same<T, float>::value ? 1e-6 : 1e-12;
  for (bool plus1 : {false, true}) {
    for (int G : {2, 3, 5}) {
      for (bool weighted : {false, true}) {
        CAPTURE(plus1);
        CAPTURE(G);
        CAPTURE(weighted);
        const std::vector<T> mu0 = initial_means(x, d, C, 23);
        const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
        vcgmm::VariationalGmmParams p;
        p.G = G;
        p.plus1 = plus1;
        vcgmm::VariationalGmm<T> em(data, C, mu0.data(), p, run_options(5, 2));
        em.e_step();
        em.m_step();
        int changed = 0;
        for (int it = 0; it < 6; ++it) {
          CAPTURE(it);
          const std::vector<std::int32_t> K_old(em.truncation_sets(), em.truncation_sets() + n * G);
          const double before = em.free_energy();
          const double after = em.e_step();
          CHECK(after >= before - slack * std::abs(before));
          CHECK(em.free_energy() == doctest::Approx(after).epsilon(1e-12));
          changed += !std::equal(K_old.begin(), K_old.end(), em.truncation_sets());
          em.m_step();
          CHECK(em.free_energy() >= after - slack * std::abs(after));
        }
        CHECK(changed > 0);
      }
    }
  }
}

TEST_CASE_TEMPLATE("fit: the free-energy trace is non-decreasing and stops by tol", T, float,
                   double) {
  const index_t n = 5000, d = 5, C = 50;
  const std::vector<T> x = blobs<T>(n, d, 30, 20.0, 1.5, 31);
  const double slack = std::is_same<T, float>::value ? 1e-6 : 1e-9;
  for (bool plus1 : {false, true}) {
    for (std::uint64_t seed : {1u, 2u}) {
      CAPTURE(plus1);
      CAPTURE(seed);
      const std::vector<T> mu0 = initial_means(x, d, C, seed);
      vcgmm::VariationalGmmParams p;
      p.G = 3;
      p.plus1 = plus1;
      p.tol = 1e-5;
      p.refine = 0;  // EM's trace alone (refinement: its own test case)
      vcgmm::VariationalGmm<T> em(vcgmm::DataView<T>{x.data(), n, d, nullptr}, C, mu0.data(), p,
                                  run_options(seed, 0));
      const vcgmm::VariationalGmmResult r = em.fit();
      REQUIRE(r.free_energy.size() == static_cast<size_t>(r.n_iter));
      REQUIRE(r.n_iter >= 3);
      CHECK(r.converged);
      for (size_t t = 1; t < r.free_energy.size(); ++t) {
        CAPTURE(t);
        CHECK(std::isfinite(r.free_energy[t]));
        CHECK(r.free_energy[t] >= r.free_energy[t - 1] - slack * std::abs(r.free_energy[t]));
      }
      const double last = r.free_energy.back(), prev = r.free_energy[r.free_energy.size() - 2];
      CHECK(std::abs(last - prev) < p.tol * std::abs(last));
      CHECK(r.sigma2 == em.sigma2());
      CHECK(r.G == em.G());
      CHECK(r.G == 3);
      CHECK(r.estep_distance_evals.size() == static_cast<size_t>(r.n_iter));
      std::int64_t total = 0;
      for (std::int64_t e : r.estep_distance_evals) total += e;
      CHECK(total == r.n_distance_evals.iterations);
      CHECK(total == em.n_distance_evals());
      CHECK(r.n_distance_evals.algorithm() == r.n_distance_evals.iterations);
      CHECK(r.timings.iterations >= 0.0);
    }
  }
}

TEST_CASE_TEMPLATE("refinement over all means: exact is one Lloyd step, approx never raises Q",
                   T, float, double) {
  // G = 3 of C = 60 on overlapping blobs: the truncated search misses nearest means.
  const index_t n = 4000, d = 5, C = 60;
  const std::vector<T> x = blobs<T>(n, d, 40, 20.0, 2.0, 41);
  const std::vector<T> mu0 = initial_means(x, d, C, 3);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  vcgmm::VariationalGmmParams p;
  p.G = 3;
  p.refine = 0;
  vcgmm::VariationalGmm<T> em(data, C, mu0.data(), p, run_options(1, 0));
  const vcgmm::VariationalGmmResult papers = em.fit();
  CHECK(papers.final_free_energy == papers.free_energy.back());
  std::vector<T> centers(em.means(), em.means() + C * d);

  p.refine = 1;
  p.refine_search = vcgmm::RefineSearch::exact;
  p.split_merge = false;  // one plain step
  vcgmm::VariationalGmm<T> ex(data, C, mu0.data(), p, run_options(1, 0));
  const vcgmm::VariationalGmmResult r = ex.fit();
  vcgmm::LloydParams lp;
  lp.max_iter = 1;
  lp.tol = 0.0;
  const vcgmm::LloydResult lr = vcgmm::lloyd(data, C, lp, run_options(1, 0), centers.data());
  REQUIRE(r.refine_objective.size() == 1);
  REQUIRE(r.refine_relocated.size() == 1);
  CHECK(r.refine_objective[0] == doctest::Approx(lr.objective[0]).epsilon(1e-9));
  CHECK(r.refine_relocated[0] == lr.n_relocated);
  // the step's scan, then the variances' refit: one E-step search
  CHECK(r.n_distance_evals.refinement > n * C);
  CHECK(r.n_distance_evals.refinement <= n * C + n * (3 * 3 + 1));  // |S(n)| <= G^2 + 1
  const double eps = std::is_same<T, float>::value ? 1e-5 : 1e-10;
  for (index_t i = 0; i < C * d; ++i) {
    CHECK(static_cast<double>(ex.means()[i]) ==
          doctest::Approx(static_cast<double>(centers[i])).epsilon(eps).scale(1.0));
  }
  CHECK(r.free_energy == papers.free_energy);  // EM's trace is unchanged
  CHECK(r.final_free_energy == doctest::Approx(ex.free_energy()).epsilon(1e-12));

  p.refine = 5;
  p.refine_search = vcgmm::RefineSearch::approximate;
  vcgmm::VariationalGmm<T> ap(data, C, mu0.data(), p, run_options(1, 0));
  const vcgmm::VariationalGmmResult a = ap.fit();
  REQUIRE(a.refine_objective.size() == 5);
  CHECK(a.refine_objective[0] >= r.refine_objective[0] * (1.0 - 1e-12));  // near-nearest
  CHECK(a.refine_objective[0] <= r.refine_objective[0] * 1.01);
  for (size_t t = 1; t < a.refine_objective.size(); ++t) {
    CHECK(a.refine_objective[t] <= a.refine_objective[t - 1] * (1.0 + 1e-12));
  }
  CHECK(a.n_distance_evals.refinement > 0);
  // K(n) keeps G distinct clusters, the label first
  const std::int32_t* K = ap.truncation_sets();
  for (index_t i = 0; i < n; ++i) {
    const std::set<std::int32_t> distinct(K + i * 3, K + i * 3 + 3);
    CHECK(distinct.size() == 3);
  }
  p.refine_search = static_cast<vcgmm::RefineSearch>(7);
  CHECK_THROWS_AS(vcgmm::VariationalGmm<T>(data, C, mu0.data(), p, run_options(1, 0)),
                  InvalidArgument);
}

TEST_CASE_TEMPLATE("split-merge: one mean per well-separated blob from random seeds", T, float,
                   double) {
  // 30 blobs far apart, C = 30 random rows as seeds: about a third of the
  // blobs start without a mean, and EM and Lloyd steps keep them so.
  const index_t n = 3000, d = 6, C = 30;
  std::vector<T> truth;
  std::vector<index_t> blob;
  const std::vector<T> x = blobs<T>(n, d, C, 200.0, 1.0, 43, &truth, &blob);
  const std::vector<T> mu0 = initial_means(x, d, C, 5);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  auto blobs_with_a_mean = [&](const T* means) {
    std::set<index_t> nearest;  // the nearest mean of every true center
    for (index_t b = 0; b < C; ++b) {
      index_t best = 0;
      double best_d2 = std::numeric_limits<double>::infinity();
      for (index_t c = 0; c < C; ++c) {
        double d2 = 0.0;
        for (index_t j = 0; j < d; ++j) {
          const double t =
              static_cast<double>(truth[b * d + j]) - static_cast<double>(means[c * d + j]);
          d2 += t * t;
        }
        if (d2 < best_d2) {
          best_d2 = d2;
          best = c;
        }
      }
      nearest.insert(best);
    }
    return static_cast<index_t>(nearest.size());
  };
  vcgmm::VariationalGmmParams p;
  p.G = 5;
  p.split_merge = false;
  vcgmm::VariationalGmm<T> plain(data, C, mu0.data(), p, run_options(2, 1));
  const vcgmm::VariationalGmmResult rp = plain.fit();
  CHECK(blobs_with_a_mean(plain.means()) < C);
  for (index_t moves : rp.refine_split_merges) CHECK(moves == 0);

  p.split_merge = true;
  vcgmm::VariationalGmm<T> sm(data, C, mu0.data(), p, run_options(2, 1));
  const vcgmm::VariationalGmmResult r = sm.fit();
  CHECK(blobs_with_a_mean(sm.means()) == C);
  REQUIRE(r.refine_split_merges.size() == r.refine_objective.size());
  CHECK(r.refine_split_merges[0] > 0);
  for (size_t k = 1; k < r.refine_objective.size(); ++k) {
    CHECK(r.refine_objective[k] <= r.refine_objective[k - 1]);
  }
  // same steps and bits on 3 threads
  vcgmm::VariationalGmm<T> sm3(data, C, mu0.data(), p, run_options(2, 3));
  const vcgmm::VariationalGmmResult r3 = sm3.fit();
  CHECK(r3.refine_split_merges == r.refine_split_merges);
  CHECK(std::equal(sm.means(), sm.means() + C * d, sm3.means()));
}

TEST_CASE_TEMPLATE("K(n) is sorted by distance, G_c starts with c, counts are |S(n)|", T, float,
                   double) {
  const index_t n = 3000, d = 3, C = 30;
  const std::vector<T> x = blobs<T>(n, d, C, 15.0, 1.0, 41);
  for (bool plus1 : {false, true}) {
    CAPTURE(plus1);
    const int G = 4;
    const std::vector<T> mu0 = initial_means(x, d, C, 42);
    vcgmm::VariationalGmmParams p;
    p.G = G;
    p.plus1 = plus1;
    vcgmm::VariationalGmm<T> em(vcgmm::DataView<T>{x.data(), n, d, nullptr}, C, mu0.data(), p,
                                run_options(9, 0));
    for (int it = 0; it < 5; ++it) {
      CAPTURE(it);
      // |S(n)| = |union of G_c over c in K(n)|, from the sets BEFORE the E-step.
      std::int64_t expected = 0;
      for (index_t i = 0; i < n; ++i) {
        std::set<std::int32_t> s;
        for (int g = 0; g < G; ++g) {
          const std::int32_t c = em.truncation_sets()[i * G + g];
          s.insert(em.neighbourhoods() + c * G, em.neighbourhoods() + (c + 1) * G);
        }
        expected += static_cast<std::int64_t>(s.size());
      }
      const std::int64_t before = em.n_distance_evals();
      em.e_step();
      const std::int64_t evals = em.n_distance_evals() - before;
      if (plus1) {
        CHECK(evals > expected);
        CHECK(evals <= expected + n);
      } else {
        CHECK(evals == expected);
      }
      // After the E-step (means unchanged): K(n) distinct, nearest first.
      const std::int32_t* K = em.truncation_sets();
      for (index_t i = 0; i < n; ++i) {
        std::set<std::int32_t> s(K + i * G, K + (i + 1) * G);
        CHECK(s.size() == static_cast<size_t>(G));
        for (int g = 1; g < G; ++g) {
          CHECK(naive_d2(&x[i * d], em.means() + K[i * G + g - 1] * d, d) <=
                naive_d2(&x[i * d], em.means() + K[i * G + g] * d, d));
        }
      }
      const std::int32_t* Gc = em.neighbourhoods();
      for (index_t c = 0; c < C; ++c) {
        CHECK(Gc[c * G] == c);
        std::set<std::int32_t> s(Gc + c * G, Gc + (c + 1) * G);
        CHECK(s.size() == static_cast<size_t>(G));
        for (std::int32_t v : s) CHECK((v >= 0 && v < C));
      }
      em.m_step();
    }
  }
}

TEST_CASE("G_c after an E-step: c and the G - 1 candidates nearest on average to c's points") {
  // The neighbourhood update against a brute-force reference: for every
  // cluster c that wins points in the E-step, G_c = c followed by the G - 1
  // other candidates of the winners' search spaces S(n) (from the sets before
  // the E-step) of smallest mean ||y_n - mu||, ascending, ties to the lower
  // index; clusters that win nothing keep G_c. 70,000 points span two E-step
  // blocks and 3000 clusters 47 cluster tasks, so the statistics are folded
  // block by block and per task.
  using T = double;
  const index_t n = 70000, d = 4, C = 3000;
  const int G = 4;
  const std::vector<T> x = blobs<T>(n, d, 400, 40.0, 1.0, 77);
  const std::vector<T> mu0 = initial_means(x, d, C, 78);
  vcgmm::VariationalGmmParams p;
  p.G = G;
  vcgmm::VariationalGmm<T> em(vcgmm::DataView<T>{x.data(), n, d, nullptr}, C, mu0.data(), p,
                              run_options(5, 2));
  index_t checked = 0, near_ties = 0;
  for (int it = 0; it < 3; ++it) {
    CAPTURE(it);
    const std::vector<std::int32_t> K0(em.truncation_sets(), em.truncation_sets() + n * G);
    const std::vector<std::int32_t> Gc0(em.neighbourhoods(), em.neighbourhoods() + C * G);
    em.e_step();  // the means do not change in an E-step
    const std::int32_t* K = em.truncation_sets();
    const std::int32_t* Gc = em.neighbourhoods();
    // Per winner c: candidate -> (sum of distances, count), over its points.
    std::vector<std::vector<std::pair<std::int32_t, std::pair<double, int>>>> stats(C);
    for (index_t i = 0; i < n; ++i) {
      std::set<std::int32_t> space;
      for (int g = 0; g < G; ++g) {
        const std::int32_t c = K0[i * G + g];
        space.insert(Gc0.begin() + c * G, Gc0.begin() + (c + 1) * G);
      }
      const std::int32_t win = K[i * G];
      REQUIRE(space.count(win) == 1);
      for (std::int32_t cand : space) {
        if (cand == win) continue;
        const double dist = std::sqrt(naive_d2(&x[i * d], em.means() + cand * d, d));
        auto& list = stats[win];
        auto at = std::find_if(list.begin(), list.end(),
                               [&](const auto& e) { return e.first == cand; });
        if (at == list.end()) {
          list.push_back({cand, {dist, 1}});
        } else {
          at->second.first += dist;
          ++at->second.second;
        }
      }
    }
    for (index_t c = 0; c < C; ++c) {
      CAPTURE(c);
      if (stats[c].empty()) {  // won no point: G_c unchanged
        CHECK(std::equal(Gc + c * G, Gc + (c + 1) * G, Gc0.begin() + c * G));
        continue;
      }
      std::vector<std::pair<double, std::int32_t>> scored;
      for (const auto& e : stats[c]) {
        scored.push_back({e.second.first / e.second.second, e.first});
      }
      std::sort(scored.begin(), scored.end());
      REQUIRE(scored.size() >= static_cast<size_t>(G - 1));
      // The library sums float distances: skip a cluster whose (G-1)-th and
      // G-th scores (or any two kept ones) are too close to order reliably.
      bool tie = false;
      for (size_t k = 0; k + 1 < std::min(scored.size(), static_cast<size_t>(G)); ++k) {
        tie |= scored[k + 1].first - scored[k].first <= 1e-5 * scored[k + 1].first;
      }
      if (tie) {
        ++near_ties;
        continue;
      }
      CHECK(Gc[c * G] == c);
      for (int g = 1; g < G; ++g) CHECK(Gc[c * G + g] == scored[g - 1].second);
      ++checked;
    }
    em.m_step();
  }
  CHECK(checked > 3000);  // most clusters checked in each of 3 E-steps
  CHECK(near_ties * 100 < checked);
}

// ----------------------------------------------------------------------------
// Determinism and composition
// ----------------------------------------------------------------------------

namespace {

template <typename T>
struct VcgmmRun {
  std::vector<T> means;
  std::vector<std::int32_t> labels;
  std::vector<index_t> idx;
  std::vector<double> weights;
  vcgmm::VcgmmResult r;
};

template <typename T>
VcgmmRun<T> run_vcgmm(const vcgmm::DataView<T>& data, const vcgmm::VcgmmParams& p,
                      const T* init = nullptr) {
  VcgmmRun<T> out;
  out.means.assign(p.n_clusters * data.d, T(0));
  out.labels.assign(data.n, -1);
  out.idx.assign(p.coreset_size, -1);
  out.weights.assign(p.coreset_size, -1.0);
  out.r = vcgmm::fit_vcgmm(data, p,
                           vcgmm::FitBuffers<T>{init, out.means.data(), out.labels.data(),
                                                p.coreset_size ? out.idx.data() : nullptr,
                                                p.coreset_size ? out.weights.data() : nullptr});
  return out;
}

template <typename T>
void check_same(const VcgmmRun<T>& a, const VcgmmRun<T>& b) {
  CHECK(bitwise_equal(a.means, b.means));
  CHECK(a.labels == b.labels);
  CHECK(a.idx == b.idx);
  CHECK(bitwise_equal(a.weights, b.weights));
  CHECK(bitwise_equal(a.r.sigma2, b.r.sigma2));
  CHECK(bitwise_equal(a.r.free_energy, b.r.free_energy));
  CHECK(a.r.estep_distance_evals == b.r.estep_distance_evals);
  CHECK(a.r.n_iter == b.r.n_iter);
  CHECK(bitwise_equal(a.r.inertia, b.r.inertia));
}

}  // namespace

TEST_CASE_TEMPLATE("fit_vcgmm and the loop do not depend on the thread count", T, float, double) {
  // Two regimes of E-step blocks (up to 65,536 points, fewer for large G):
  // var-GMM-S with G = 3 on 140,000 points (3 blocks) and vc-GMM with G = 30
  // on a 15,000-point coreset (blocks of 4,608); C = 80 > 64 clusters per
  // neighbourhood / M-step task.
  struct Case {
    index_t n;
    int G;
    index_t coreset;
  };
  const index_t d = 4, C = 80;
  for (const Case cs : {Case{140000, 3, 0}, Case{12000, 30, 15000}}) {
    CAPTURE(cs.n);
    CAPTURE(cs.G);
    CAPTURE(cs.coreset);
    const std::vector<T> x = blobs<T>(cs.n, d, 60, 30.0, 1.0, 51);
    const std::vector<double> w = positive_weights(cs.n, 52);
    for (bool plus1_and_weights : {false, true}) {
      CAPTURE(plus1_and_weights);
      const vcgmm::DataView<T> data{x.data(), cs.n, d, plus1_and_weights ? w.data() : nullptr};
      vcgmm::VcgmmParams p;
      p.n_clusters = C;
      p.em.G = cs.G;
      p.em.plus1 = plus1_and_weights;
      p.coreset_size = cs.coreset;
      p.em.max_iter = 3;
      p.em.tol = 0.0;
      p.run.seed = 77;
      VcgmmRun<T> ref;
      for (int nt : {1, 2, 3}) {
        CAPTURE(nt);
        p.run.n_threads = nt;
        VcgmmRun<T> run = run_vcgmm(data, p);
        CHECK(run.r.n_iter == 3);
        if (nt == 1) {
          ref = std::move(run);
        } else {
          check_same(ref, run);
        }
      }
    }
  }
  // The loop step by step: K(n) and G_c too (G = 30: 3 blocks).
  const index_t n = 12000;
  const std::vector<T> x = blobs<T>(n, d, 60, 30.0, 1.0, 54);
  const std::vector<T> mu0 = initial_means(x, d, C, 53);
  std::vector<std::int32_t> K_ref, G_ref;
  std::vector<T> mu_ref;
  double F_ref = 0.0;
  for (int nt : {1, 2, 3}) {
    CAPTURE(nt);
    vcgmm::VariationalGmmParams p;
    p.G = 30;
    p.plus1 = true;
    vcgmm::VariationalGmm<T> em(vcgmm::DataView<T>{x.data(), n, d, nullptr}, C, mu0.data(), p,
                                run_options(3, nt));
    double F = 0.0;
    for (int it = 0; it < 3; ++it) {
      F = em.e_step();
      em.m_step();
    }
    std::vector<std::int32_t> K(em.truncation_sets(), em.truncation_sets() + n * em.G());
    std::vector<std::int32_t> Gc(em.neighbourhoods(), em.neighbourhoods() + C * em.G());
    std::vector<T> mu(em.means(), em.means() + C * d);
    if (nt == 1) {
      K_ref = K;
      G_ref = Gc;
      mu_ref = mu;
      F_ref = F;
    } else {
      CHECK(K == K_ref);
      CHECK(Gc == G_ref);
      CHECK(bitwise_equal(mu, mu_ref));
      CHECK(bitwise_equal(F, F_ref));
    }
  }
}

TEST_CASE_TEMPLATE("fit_vcgmm = lightweight coreset + AFK-MC2 on it + the loop", T, float, double) {
  const index_t n = 8000, d = 3, C = 25, m = 1500;
  const std::vector<T> x = blobs<T>(n, d, 25, 20.0, 1.0, 61);
  const std::vector<double> w = positive_weights(n, 62);
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
    vcgmm::VcgmmParams p;
    p.n_clusters = C;
    p.em.G = 3;
    p.coreset_size = m;
    p.seeding.method = vcgmm::SeedingMethod::afkmc2;  // the papers' (the default: automatic)
    p.seeding.afkmc2.chain_length = 7;
    p.data_steps = 0;  // the papers' pipeline (test_data_steps.py checks the steps)
    p.run.seed = 99;
    p.run.n_threads = 2;
    const VcgmmRun<T> run = run_vcgmm(data, p);

    // The pieces, by hand.
    std::vector<index_t> idx(m);
    std::vector<double> gamma(m);
    const vcgmm::CoresetStats cs =
        vcgmm::lightweight_coreset(data, m, run_options(p.run.seed, 1), idx.data(), gamma.data());
    CHECK(idx == run.idx);
    CHECK(bitwise_equal(gamma, run.weights));
    const std::vector<T> y = gather_rows(x, d, idx);
    const vcgmm::DataView<T> core{y.data(), m, d, gamma.data()};
    std::vector<T> seeds(C * d);
    std::vector<index_t> seed_idx(C);
    const vcgmm::SeedingStats ss =
        vcgmm::afkmc2(core, C, vcgmm::Afkmc2Params{p.seeding.afkmc2.chain_length},
                      run_options(p.run.seed, 1), seeds.data(), seed_idx.data());
    vcgmm::VariationalGmmParams vp;
    vp.G = p.em.G;
    vcgmm::VariationalGmm<T> em(core, C, seeds.data(), vp, run_options(p.run.seed, 3));
    const vcgmm::VariationalGmmResult r = em.fit();
    CHECK(bitwise_equal(std::vector<T>(em.means(), em.means() + C * d), run.means));
    CHECK(bitwise_equal(r.free_energy, run.r.free_energy));
    CHECK(bitwise_equal(r.sigma2, run.r.sigma2));
    CHECK(r.n_iter == run.r.n_iter);
    CHECK(r.converged == run.r.converged);
    CHECK(r.G == run.r.G);

    // Bookkeeping: the phases' distance counts, labels and inertia on all points.
    CHECK(run.r.n_distance_evals.coreset == cs.n_distance_evals.coreset);
    CHECK(cs.n_distance_evals.coreset == n);
    CHECK(run.r.n_distance_evals.seeding == ss.n_distance_evals.seeding);
    CHECK(ss.n_distance_evals.seeding == m + p.seeding.afkmc2.chain_length * C * (C - 1) / 2);
    CHECK(run.r.n_distance_evals.iterations == r.n_distance_evals.iterations);
    CHECK(run.r.n_distance_evals.evaluation == n * C);
    std::vector<std::int32_t> labels(n, -1);
    const double q = vcgmm::assign_nearest(data, run.means.data(), C, labels.data(), nullptr, 1).objective;
    CHECK(labels == run.labels);
    CHECK(bitwise_equal(q, run.r.inertia));

    // Given initial means: no seeding phase, same loop.
    p.seeding.method = vcgmm::SeedingMethod::given;
    const VcgmmRun<T> given = run_vcgmm(data, p, seeds.data());
    CHECK(bitwise_equal(given.means, run.means));
    CHECK(given.r.n_distance_evals.seeding == 0);
  }
}

TEST_CASE_TEMPLATE("fit_vcgmm's default seeding: k-means++ up to kAutoSeedingMaxClusters, AFK-MC2 above",
                   T, float, double) {
  using vcgmm::SeedingMethod;
  CHECK(vcgmm::VcgmmParams().seeding.method == SeedingMethod::automatic);
  const index_t limit = vcgmm::kAutoSeedingMaxClusters;
  CHECK(vcgmm::resolve_seeding(SeedingMethod::automatic, 1) == SeedingMethod::kmeans_plusplus);
  CHECK(vcgmm::resolve_seeding(SeedingMethod::automatic, limit) == SeedingMethod::kmeans_plusplus);
  CHECK(vcgmm::resolve_seeding(SeedingMethod::automatic, limit + 1) == SeedingMethod::afkmc2);
  for (SeedingMethod m : {SeedingMethod::kmeans_plusplus, SeedingMethod::afkmc2,
                          SeedingMethod::random, SeedingMethod::given}) {
    CHECK(vcgmm::resolve_seeding(m, limit + 1) == m);
    CHECK(vcgmm::resolve_seeding(m, 2) == m);
  }
  // A default fit equals the fit with the method it resolves to, on both sides.
  const index_t n = 2 * (limit + 1), d = 2;
  const std::vector<T> x = blobs<T>(n, d, 40, 20.0, 1.0, 63);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  for (index_t C : {index_t{30}, limit + 1}) {
    CAPTURE(C);
    vcgmm::VcgmmParams p;
    p.n_clusters = C;
    p.coreset_size = n;
    p.em.max_iter = 3;
    p.run.seed = 5;
    p.run.n_threads = 2;
    const VcgmmRun<T> automatic = run_vcgmm(data, p);
    p.seeding.method = C <= limit ? SeedingMethod::kmeans_plusplus : SeedingMethod::afkmc2;
    const VcgmmRun<T> named = run_vcgmm(data, p);
    CHECK(bitwise_equal(automatic.means, named.means));
    CHECK(automatic.r.n_distance_evals.seeding == named.r.n_distance_evals.seeding);
    // k-means++ and AFK-MC2 differ, so the comparison can fail.
    p.seeding.method = C <= limit ? SeedingMethod::afkmc2 : SeedingMethod::kmeans_plusplus;
    CHECK_FALSE(bitwise_equal(automatic.means, run_vcgmm(data, p).means));
  }
}

TEST_CASE("fit_vcgmm with coreset_size = 0 is var-GMM-S: the loop on all points") {
  const index_t n = 3000, d = 2, C = 12;
  const std::vector<double> x = blobs<double>(n, d, 12, 10.0, 0.5, 71);
  const std::vector<double> w = positive_weights(n, 72);
  const vcgmm::DataView<double> data{x.data(), n, d, w.data()};
  const std::vector<double> mu0 = initial_means(x, d, C, 73);
  vcgmm::VcgmmParams p;
  p.n_clusters = C;
  p.em.G = 4;
  p.em.plus1 = true;
  p.seeding.method = vcgmm::SeedingMethod::given;
  p.em.n_init_estep = 2;
  p.run.seed = 8;
  const VcgmmRun<double> run = run_vcgmm(data, p, mu0.data());
  vcgmm::VariationalGmmParams vp;
  vp.G = 4;
  vp.plus1 = true;
  vp.n_init_estep = 2;
  vcgmm::VariationalGmm<double> em(data, C, mu0.data(), vp, run_options(8, 0));
  const vcgmm::VariationalGmmResult r = em.fit();
  CHECK(bitwise_equal(std::vector<double>(em.means(), em.means() + C * d), run.means));
  CHECK(bitwise_equal(r.free_energy, run.r.free_energy));
  CHECK(r.estep_distance_evals.size() == static_cast<size_t>(r.n_iter + 2));
  CHECK(run.r.n_distance_evals.coreset == 0);
  CHECK(run.r.n_distance_evals.seeding == 0);
}

// ----------------------------------------------------------------------------
// Invalid arguments
// ----------------------------------------------------------------------------

TEST_CASE_TEMPLATE("VariationalGmm and fit_vcgmm reject invalid arguments", T, float, double) {
  const index_t n = 50, d = 3, C = 4;
  const std::vector<T> x = gaussian<T>(n, d, 81);
  const std::vector<T> mu0(x.begin(), x.begin() + C * d);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  const vcgmm::RunOptions run;
  auto make = [&](vcgmm::VariationalGmmParams p, index_t c = 4) {
    vcgmm::VariationalGmm<T> em(data, c, mu0.data(), p, run);
  };
  vcgmm::VariationalGmmParams ok;
  CHECK_NOTHROW(make(ok));
  {
    auto p = ok;
    p.G = 0;
    CHECK_THROWS_AS(make(p), InvalidArgument);
    p.G = -2;
    CHECK_THROWS_AS(make(p), InvalidArgument);
  }
  {
    auto p = ok;
    p.max_iter = 0;
    CHECK_THROWS_AS(make(p), InvalidArgument);
  }
  {
    auto p = ok;
    p.tol = -1e-3;
    CHECK_THROWS_AS(make(p), InvalidArgument);
    p.tol = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(make(p), InvalidArgument);
    p.tol = std::numeric_limits<double>::infinity();
    CHECK_THROWS_AS(make(p), InvalidArgument);
  }
  {
    auto p = ok;
    p.n_init_estep = -1;
    CHECK_THROWS_AS(make(p), InvalidArgument);
  }
  CHECK_THROWS_AS(make(ok, 0), InvalidArgument);
  CHECK_THROWS_AS(make(ok, n + 1), InvalidArgument);
  {
    vcgmm::VariationalGmmParams p;
    CHECK_THROWS_AS(vcgmm::VariationalGmm<T>(data, C, nullptr, p, run), InvalidArgument);
    CHECK_THROWS_AS(vcgmm::VariationalGmm<T>(vcgmm::DataView<T>{x.data(), 0, d, nullptr}, C,
                                             mu0.data(), p, run),
                    InvalidArgument);
  }
  // Steps out of order.
  {
    vcgmm::VariationalGmm<T> em(data, C, mu0.data(), ok, run);
    CHECK_THROWS_AS(em.free_energy(), InvalidArgument);
    CHECK_THROWS_AS(em.m_step(), InvalidArgument);
    CHECK(std::isfinite(em.e_step()));
    CHECK_NOTHROW(em.m_step());
    CHECK(std::isfinite(em.free_energy()));
  }

  // fit_vcgmm: the same parameters, checked before any work; every message
  // starts with "fit_vcgmm:" and names the offending parameter.
  std::vector<T> means(C * d);
  auto fit = [&](vcgmm::VcgmmParams p, const T* init = nullptr) {
    vcgmm::fit_vcgmm(data, p, vcgmm::FitBuffers<T>{init, means.data(), nullptr, nullptr, nullptr});
  };
  vcgmm::VcgmmParams fok;
  fok.n_clusters = C;
  CHECK_NOTHROW(fit(fok));
  for (index_t bad : {index_t(1), C - 1}) {  // coreset_size in (0, C)
    auto p = fok;
    p.coreset_size = bad;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: coreset_size"), InvalidArgument);
  }
  {
    auto p = fok;
    p.coreset_size = C;  // the smallest valid coreset
    std::vector<index_t> idx(C);
    std::vector<double> gw(C);
    CHECK_NOTHROW(vcgmm::fit_vcgmm(
        data, p, vcgmm::FitBuffers<T>{nullptr, means.data(), nullptr, idx.data(), gw.data()}));
  }
  {
    auto p = fok;
    p.em.G = 0;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: G"), InvalidArgument);
  }
  {
    auto p = fok;
    p.em.max_iter = 0;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: max_iter"), InvalidArgument);
  }
  {
    auto p = fok;
    p.em.tol = -1.0;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: tol"), InvalidArgument);
  }
  {
    auto p = fok;
    p.em.n_init_estep = -3;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: n_init_estep"), InvalidArgument);
  }
  {
    auto p = fok;
    p.em.covariance_type = vcgmm::CovarianceType::spherical;
    p.em.variance_floor = -1e-6;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: variance_floor"), InvalidArgument);
    p.em.variance_floor = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: variance_floor"), InvalidArgument);
    p.em.variance_floor = 0.0;  // allowed: only the rounding-level floor
    p.em.covariance_type = static_cast<vcgmm::CovarianceType>(7);
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: covariance_type"), InvalidArgument);
  }
  {
    auto p = fok;
    p.seeding.afkmc2.chain_length = 0;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: chain_length"), InvalidArgument);
  }
  {
    auto p = fok;
    p.seeding.method = vcgmm::SeedingMethod::kmeans_plusplus;
    CHECK_NOTHROW(fit(p));
    p.seeding.kmeans_plusplus.n_local_trials = -1;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: n_local_trials"), InvalidArgument);
  }
  {
    auto p = fok;
    p.n_clusters = 0;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: n_clusters"), InvalidArgument);
    p.n_clusters = n + 1;
    CHECK_THROWS_WITH_AS(fit(p), doctest::Contains("fit_vcgmm: n_clusters"), InvalidArgument);
  }
  {
    auto p = fok;
    p.seeding.method = vcgmm::SeedingMethod::given;
    CHECK_THROWS_WITH_AS(fit(p, nullptr), doctest::Contains("init_centers"), InvalidArgument);
    CHECK_NOTHROW(fit(p, mu0.data()));
  }
  const vcgmm::FitBuffers<T> no_means{nullptr, nullptr, nullptr, nullptr, nullptr};
  CHECK_THROWS_WITH_AS(vcgmm::fit_vcgmm(data, fok, no_means), doctest::Contains("fit_vcgmm:"),
                       InvalidArgument);
}

// ----------------------------------------------------------------------------
// GMM scoring
// ----------------------------------------------------------------------------

namespace {

/// Brute-force scoring of one point: the log-likelihood, the k nearest means
/// (ties: lowest index) and their renormalised posteriors.
template <typename T>
void check_scores(const T* x, const std::vector<T>& mu, index_t d, double sigma2, double ll,
                  const std::int32_t* idx, const double* resp, int k) {
  const index_t C = static_cast<index_t>(mu.size()) / d;
  std::vector<std::pair<double, std::int32_t>> dist(C);
  std::vector<double> logp(C);
  // The GEMM expansion of the non-leading terms is exact up to
  // eps(T) * (||x - m||^2 + ||c - m||^2) in each distance (m: the means'
  // mean, its shift); only that error, divided by 2 sigma^2, may reach log p.
  std::vector<double> m(d, 0.0);
  for (index_t c = 0; c < C; ++c) {
    for (index_t j = 0; j < d; ++j) m[j] += static_cast<double>(mu[c * d + j]) / C;
  }
  double size = 0.0;
  for (index_t c = 0; c < C; ++c) {
    dist[c] = {naive_d2(x, &mu[c * d], d), static_cast<std::int32_t>(c)};
    logp[c] = -dist[c].first / (2.0 * sigma2);
    double xc = 0.0, cc = 0.0;
    for (index_t j = 0; j < d; ++j) {
      xc += (x[j] - m[j]) * (x[j] - m[j]);
      cc += (mu[c * d + j] - m[j]) * (mu[c * d + j] - m[j]);
    }
    size = std::max(size, xc + cc);
  }
  const double eps = std::numeric_limits<T>::epsilon();
  const double log_norm = std::log(static_cast<double>(C)) + 0.5 * d * std::log(2.0 * kPi * sigma2);
  const double ref = logsumexp(logp) - log_norm;
  CHECK(std::isfinite(ll));
  CHECK(std::abs(ll - ref) <= 16.0 * eps * size / (2.0 * sigma2) + 1e-13 * std::abs(ref));
  // The k kept means are exact (recomputed in double), and so are their posteriors.
  std::sort(dist.begin(), dist.end());
  std::vector<double> lk(k);
  for (int g = 0; g < k; ++g) lk[g] = -dist[g].first / (2.0 * sigma2);
  const double lse = logsumexp(lk);
  double sum = 0.0;
  for (int g = 0; g < k; ++g) {
    CAPTURE(g);
    CHECK(idx[g] == dist[g].second);
    CHECK(resp[g] == doctest::Approx(std::exp(lk[g] - lse)).epsilon(1e-12));
    sum += resp[g];
  }
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
}

}  // namespace

TEST_CASE_TEMPLATE("gmm_log_likelihood and gmm_truncated_posteriors against brute force", T, float,
                   double) {
  const index_t n = 700, d = 5, C = 37;  // several row blocks and center tiles
  std::vector<T> x = blobs<T>(n, d, 10, 10.0, 2.0, 91);
  // The means: jittered copies of blob points (some of them close pairs).
  const std::vector<T> mu = initial_means(x, d, C, 92);
  // Far points: every exp(-d^2 / (2 sigma^2)) underflows without the shift.
  for (index_t j = 0; j < d; ++j) {
    x[0 * d + j] = static_cast<T>(1e3);
    x[1 * d + j] = static_cast<T>(-3e3 * (j % 2 ? 1 : -1));
  }
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  for (double sigma2 : {0.05, 1.0, 30.0}) {
    CAPTURE(sigma2);
    std::vector<double> ll(n);
    vcgmm::gmm_log_likelihood(data, mu.data(), C, sigma2, ll.data(), 2);
    for (int k : {1, 3, static_cast<int>(C)}) {
      CAPTURE(k);
      std::vector<std::int32_t> idx(n * k, -1);
      std::vector<double> resp(n * k, -1.0);
      vcgmm::gmm_truncated_posteriors(data, mu.data(), C, sigma2, k, idx.data(), resp.data(), 3);
      for (index_t i = 0; i < n; ++i) {
        CAPTURE(i);
        check_scores(&x[i * d], mu, d, sigma2, ll[i], &idx[i * k], &resp[i * k], k);
      }
    }
    // Thread count does not matter.
    std::vector<double> ll1(n);
    vcgmm::gmm_log_likelihood(data, mu.data(), C, sigma2, ll1.data(), 1);
    CHECK(bitwise_equal(ll1, ll));
  }
}

TEST_CASE_TEMPLATE("gmm_truncated_posteriors keeps the exact k nearest when one mean is far away",
                   T, float, double) {
  // A far mean once shifted the expansion (by the means' mean) and magnified
  // its rounding; the k nearest must be exact: they decide predict_proba.
  const index_t d = 5;
  const std::vector<T> x = {T(2.44914), T(-0.0816566), T(8.37655), T(2.41779), T(10.99)};
  std::vector<T> mu;
  for (const double dx : {0.03, 0.0}) {
    for (index_t j = 0; j < d; ++j) mu.push_back(static_cast<T>(x[j] + (j == 0 ? dx : 0.0)));
  }
  mu[1 * d + 1] = static_cast<T>(x[1] + 0.02);  // mean 1: d^2 = 4e-4 < 9e-4 = mean 0
  for (index_t j = 0; j < d; ++j) mu.push_back(T(3000));
  const vcgmm::DataView<T> data{x.data(), 1, d, nullptr};
  for (int k : {1, 2, 3}) {
    CAPTURE(k);
    std::vector<std::int32_t> idx(k, -1);
    std::vector<double> resp(k, -1.0);
    vcgmm::gmm_truncated_posteriors(data, mu.data(), 3, 1.0, k, idx.data(), resp.data(), 1);
    double ll;
    vcgmm::gmm_log_likelihood(data, mu.data(), 3, 1.0, &ll, 1);
    check_scores(x.data(), mu, d, 1.0, ll, idx.data(), resp.data(), k);
  }
  std::int32_t label = -1;
  vcgmm::assign_nearest(data, mu.data(), 3, &label, nullptr, 1);
  CHECK(label == 1);
}

TEST_CASE_TEMPLATE("gmm scoring: exact ties go to the lowest index", T, float, double) {
  // Point at the origin; mean 0 at squared distance 9, means 1-4 on the axes
  // at squared distance 1 (exact in float), mean 5 a duplicate of mean 1.
  // The documented rule (gmm_scoring.hpp) is "ties: lowest index", as for
  // assign_nearest (a regression test: the selection once followed the
  // rounding of the expanded distances, e.g. top-1 = mean 3).
  const index_t d = 2, C = 6;
  const std::vector<T> mu = {T(3), T(0),  T(1), T(0), T(0), T(-1),
                             T(-1), T(0), T(0), T(1), T(1), T(0)};
  const std::vector<T> x = {T(0), T(0)};
  const vcgmm::DataView<T> data{x.data(), 1, d, nullptr};
  for (int k = 1; k <= C; ++k) {
    CAPTURE(k);
    std::vector<std::int32_t> idx(k);
    std::vector<double> resp(k);
    vcgmm::gmm_truncated_posteriors(data, mu.data(), C, 0.5, k, idx.data(), resp.data(), 1);
    for (int g = 0; g < k; ++g) {
      // Ties (distance 1) in index order 1..5, then the far mean 0.
      CHECK(idx[g] == (g < 5 ? g + 1 : 0));
    }
    const double tied = k <= 5 ? 1.0 / k : 1.0 / (5.0 + std::exp(-8.0));
    CHECK(resp[0] == doctest::Approx(tied).epsilon(1e-14));
  }
  double ll;
  vcgmm::gmm_log_likelihood(data, mu.data(), C, 0.5, &ll, 1);
  const double ref = std::log((5.0 * std::exp(-1.0) + std::exp(-9.0)) / C) - std::log(2.0 * kPi * 0.5);
  CHECK(ll == doctest::Approx(ref).epsilon(std::is_same<T, float>::value ? 1e-6 : 1e-13));

  // Bad arguments.
  std::vector<std::int32_t> idx(C);
  std::vector<double> resp(C);
  CHECK_THROWS_AS(vcgmm::gmm_log_likelihood(data, mu.data(), C, 0.0, &ll, 1), InvalidArgument);
  CHECK_THROWS_AS(vcgmm::gmm_log_likelihood(data, mu.data(), C, -1.0, &ll, 1), InvalidArgument);
  CHECK_THROWS_AS(vcgmm::gmm_log_likelihood(data, mu.data(), C,
                                            std::numeric_limits<double>::quiet_NaN(), &ll, 1),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::gmm_truncated_posteriors(data, mu.data(), C, 1.0, 0, idx.data(),
                                                  resp.data(), 1),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::gmm_truncated_posteriors(data, mu.data(), C, 1.0, C + 1, idx.data(),
                                                  resp.data(), 1),
                  InvalidArgument);
  CHECK_THROWS_AS(vcgmm::gmm_truncated_posteriors(data, mu.data(), C, 1.0, 2, nullptr,
                                                  resp.data(), 1),
                  InvalidArgument);
}

TEST_CASE_TEMPLATE("spherical gmm scoring against brute force and the shared model", T, float,
                   double) {
  const index_t n = 700, d = 5, C = 600;  // several row blocks and center tiles
  const std::vector<T> x = blobs<T>(n, d, 10, 10.0, 2.0, 93);
  const std::vector<T> mu = initial_means(x, d, C, 94);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  const double tol = std::is_same<T, float>::value ? 1e-4 : 1e-10;

  // 1. Equal variances and weights 1/C: the shared model, same numbers.
  const double sigma2 = 1.5;
  std::vector<double> var(C, sigma2), pi(C, 1.0 / C);
  std::vector<double> ll_shared(n), ll(n);
  vcgmm::gmm_log_likelihood(data, mu.data(), C, sigma2, ll_shared.data(), 2);
  vcgmm::gmm_log_likelihood(data, mu.data(), C, var.data(), pi.data(), ll.data(), 2);
  for (index_t i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(ll[i] == doctest::Approx(ll_shared[i]).epsilon(tol));
  }

  // 2. Own variances and weights (some 0): brute force in double.
  TestRng rng(95);
  double total = 0.0;
  for (index_t c = 0; c < C; ++c) {
    var[c] = 0.3 + 4.0 * rng.uniform();
    pi[c] = c % 5 == 0 ? 0.0 : rng.uniform();
    total += pi[c];
  }
  for (double& p : pi) p /= total;
  vcgmm::gmm_log_likelihood(data, mu.data(), C, var.data(), pi.data(), ll.data(), 1);
  std::vector<double> ll3(n);
  vcgmm::gmm_log_likelihood(data, mu.data(), C, var.data(), pi.data(), ll3.data(), 3);
  CHECK(bitwise_equal(ll, ll3));
  const int k = 4;
  std::vector<std::int32_t> idx(n * k);
  std::vector<double> resp(n * k);
  vcgmm::gmm_truncated_posteriors(data, mu.data(), C, var.data(), pi.data(), k, idx.data(),
                                  resp.data(), 2);
  for (index_t i = 0; i < n; ++i) {
    CAPTURE(i);
    std::vector<std::pair<double, std::int32_t>> lj;  // (-log joint, c) of weight > 0
    std::vector<double> logp;
    for (index_t c = 0; c < C; ++c) {
      if (pi[c] == 0.0) continue;
      const double e = naive_d2(&x[i * d], &mu[c * d], d) / (2.0 * var[c]) +
                       0.5 * d * std::log(2.0 * kPi * var[c]) - std::log(pi[c]);
      lj.emplace_back(e, static_cast<std::int32_t>(c));
      logp.push_back(-e);
    }
    CHECK(ll[i] == doctest::Approx(logsumexp(logp)).epsilon(tol));
    std::sort(lj.begin(), lj.end());
    std::vector<double> lk;
    for (int g = 0; g < k; ++g) lk.push_back(-lj[g].first);
    const double lse = logsumexp(lk);
    for (int g = 0; g < k; ++g) {
      CAPTURE(g);
      CHECK(idx[i * k + g] == lj[g].second);
      CHECK(resp[i * k + g] == doctest::Approx(std::exp(lk[g] - lse)).epsilon(1e-12));
    }
  }

  // Bad components.
  std::vector<double> bad = var;
  bad[3] = 0.0;
  CHECK_THROWS_AS(
      vcgmm::gmm_log_likelihood(data, mu.data(), C, bad.data(), pi.data(), ll.data(), 1),
      InvalidArgument);
  bad = pi;
  bad[3] += 0.1;  // sums to 1.1
  CHECK_THROWS_AS(
      vcgmm::gmm_log_likelihood(data, mu.data(), C, var.data(), bad.data(), ll.data(), 1),
      InvalidArgument);
  bad[3] = -bad[3];
  CHECK_THROWS_AS(vcgmm::gmm_truncated_posteriors(data, mu.data(), C, var.data(), bad.data(), k,
                                                  idx.data(), resp.data(), 1),
                  InvalidArgument);
}
