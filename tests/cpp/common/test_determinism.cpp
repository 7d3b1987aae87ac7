// Determinism contract: every public algorithm gives bit-identical outputs
// for 1, 2 and 3 threads.
//
// The data are large enough to split into several tasks of every kind the
// library uses (LWCS and the AFK-MC^2 proposal pass: 16384-row chunks;
// k-means++: 4096-row chunks; assignment: 256-row blocks; Lloyd's update: 16
// clusters per task; AFK-MC^2 chain steps: blocks of 256 centers, hence C >
// 256 in one case), so a thread-count-dependent reduction order would show.
// Without OpenMP every run is single-threaded and the test still checks that
// n_threads is accepted and harmless.
#include <doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

constexpr int kThreadCounts[] = {1, 2, 3};
constexpr index_t kN = 40000;  // 3 LWCS chunks, 10 k-means++ chunks, 157 row blocks
constexpr index_t kD = 6;

template <typename T>
struct Data {
  std::vector<T> x = blobs<T>(kN, kD, 30, 20.0, 1.0, 2024);
  std::vector<double> w = positive_weights(kN, 2025);
  vcgmm::DataView<T> view(bool weighted) const {
    return vcgmm::DataView<T>{x.data(), kN, kD, weighted ? w.data() : nullptr};
  }
};

}  // namespace

TEST_CASE_TEMPLATE("lightweight_coreset does not depend on the thread count", T, float, double) {
  const Data<T> data;
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    std::vector<index_t> idx_ref;
    std::vector<double> w_ref;
    for (int nt : kThreadCounts) {
      CAPTURE(nt);
      const index_t m = 20000;
      std::vector<index_t> idx(m);
      std::vector<double> w(m);
      const vcgmm::CoresetStats s = vcgmm::lightweight_coreset(
          data.view(weighted), m, run_options(77, nt), idx.data(), w.data());
      CHECK(s.n_distance_evals.coreset == kN);
      CHECK(s.n_distance_evals.algorithm() == kN);  // no other phase
      if (idx_ref.empty()) {
        idx_ref = idx;
        w_ref = w;
        // Draws from every chunk, not just the first one.
        CHECK(idx.front() < 16384);
        CHECK(idx.back() >= 32768);
      } else {
        CHECK(idx == idx_ref);
        CHECK(bitwise_equal(w, w_ref));
      }
    }
  }
}

TEST_CASE_TEMPLATE("kmeans_plusplus does not depend on the thread count", T, float, double) {
  const Data<T> data;
  for (int trials : {1, 3}) {
    for (bool weighted : {false, true}) {
      CAPTURE(trials);
      CAPTURE(weighted);
      const index_t C = 12;
      std::vector<T> c_ref;
      std::vector<index_t> i_ref;
      for (int nt : kThreadCounts) {
        CAPTURE(nt);
        std::vector<T> centers(C * kD);
        std::vector<index_t> idx(C);
        const vcgmm::SeedingStats s =
            vcgmm::kmeans_plusplus(data.view(weighted), C, vcgmm::KMeansPlusPlusParams{trials},
                                   run_options(5, nt), centers.data(), idx.data());
        CHECK(s.n_distance_evals.seeding == (C - 1) * (trials == 1 ? 1 : trials + 1) * kN);
        CHECK(s.n_distance_evals.algorithm() == s.n_distance_evals.seeding);
        if (c_ref.empty()) {
          c_ref = centers;
          i_ref = idx;
        } else {
          CHECK(bitwise_equal(centers, c_ref));
          CHECK(idx == i_ref);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("afkmc2 does not depend on the thread count (C > 256 center blocks)", T, float,
                   double) {
  const Data<T> data;
  for (index_t C : {40, 300}) {
    for (bool weighted : {false, true}) {
      CAPTURE(C);
      CAPTURE(weighted);
      const int chain = 10;
      std::vector<T> c_ref;
      std::vector<index_t> i_ref;
      for (int nt : kThreadCounts) {
        CAPTURE(nt);
        std::vector<T> centers(C * kD);
        std::vector<index_t> idx(C);
        const vcgmm::SeedingStats s =
            vcgmm::afkmc2(data.view(weighted), C, vcgmm::Afkmc2Params{chain}, run_options(9, nt),
                          centers.data(), idx.data());
        CHECK(s.n_distance_evals.seeding == kN + chain * C * (C - 1) / 2);
        CHECK(s.n_distance_evals.algorithm() == s.n_distance_evals.seeding);
        if (c_ref.empty()) {
          c_ref = centers;
          i_ref = idx;
        } else {
          CHECK(bitwise_equal(centers, c_ref));
          CHECK(idx == i_ref);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("assign_nearest and lloyd do not depend on the thread count", T, float, double) {
  const Data<T> data;
  const index_t C = 70;  // 5 update tasks of 16 clusters
  // Initial centers: every 571st point (deterministic, spread over the data).
  std::vector<index_t> rows;
  for (index_t k = 0; k < C; ++k) rows.push_back(k * 571);
  const std::vector<T> init = gather_rows(data.x, kD, rows);
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    std::vector<std::int32_t> l_ref;
    std::vector<double> d_ref, obj_ref;
    std::vector<T> c_ref;
    double a_ref = 0.0;
    vcgmm::LloydResult r_ref;
    for (int nt : kThreadCounts) {
      CAPTURE(nt);
      std::vector<std::int32_t> labels(kN, -1);
      std::vector<double> min_d2(kN);
      const vcgmm::AssignmentStats a =
          vcgmm::assign_nearest(data.view(weighted), init.data(), C, labels.data(), min_d2.data(), nt);
      std::vector<T> centers = init;
      vcgmm::LloydParams lp;
      lp.max_iter = 15;
      lp.tol = 0.0;
      const vcgmm::LloydResult r =
          vcgmm::lloyd(data.view(weighted), C, lp, run_options(0, nt), centers.data());
      if (c_ref.empty()) {
        l_ref = labels;
        d_ref = min_d2;
        a_ref = a.objective;
        c_ref = centers;
        r_ref = r;
        CHECK(r.n_iter >= 2);
      } else {
        CHECK(labels == l_ref);
        CHECK(bitwise_equal(min_d2, d_ref));
        CHECK(bitwise_equal(a.objective, a_ref));
        CHECK(bitwise_equal(centers, c_ref));
        CHECK(bitwise_equal(r.objective, r_ref.objective));
        CHECK(r.n_iter == r_ref.n_iter);
        CHECK(r.converged == r_ref.converged);
        CHECK(r.n_relocated == r_ref.n_relocated);
        CHECK(r.n_distance_evals.iterations == r_ref.n_distance_evals.iterations);
      }
    }
  }
}

TEST_CASE_TEMPLATE("fit_kmeans does not depend on the thread count", T, float, double) {
  const Data<T> data;
  struct Setup {
    vcgmm::SeedingMethod method;
    index_t coreset_size;
    index_t C;
  };
  const Setup setups[] = {
      {vcgmm::SeedingMethod::kmeans_plusplus, 0, 20},  // the "k-means++" baseline
      {vcgmm::SeedingMethod::afkmc2, 6000, 300},       // the "LWCS" baseline
      {vcgmm::SeedingMethod::kmeans_plusplus, 3000, 25},
  };
  for (const Setup& s : setups) {
    for (bool weighted : {false, true}) {
      CAPTURE(s.coreset_size);
      CAPTURE(s.C);
      CAPTURE(weighted);
      std::vector<T> c_ref;
      std::vector<std::int32_t> l_ref;
      std::vector<index_t> ci_ref;
      std::vector<double> cw_ref;
      vcgmm::KMeansResult r_ref;
      for (int nt : kThreadCounts) {
        CAPTURE(nt);
        vcgmm::KMeansParams p;
        p.n_clusters = s.C;
        p.seeding.method = s.method;
        p.coreset_size = s.coreset_size;
        p.seeding.afkmc2.chain_length = 5;
        p.lloyd.max_iter = 8;
        p.run.seed = 314;
        p.run.n_threads = nt;
        std::vector<T> centers(s.C * kD);
        std::vector<std::int32_t> labels(kN);
        std::vector<index_t> ci(s.coreset_size);
        std::vector<double> cw(s.coreset_size);
        const vcgmm::KMeansResult r = vcgmm::fit_kmeans(
            data.view(weighted), p,
            vcgmm::FitBuffers<T>{nullptr, centers.data(), labels.data(),
                                 s.coreset_size ? ci.data() : nullptr,
                                 s.coreset_size ? cw.data() : nullptr});
        if (c_ref.empty()) {
          c_ref = centers;
          l_ref = labels;
          ci_ref = ci;
          cw_ref = cw;
          r_ref = r;
        } else {
          CHECK(bitwise_equal(centers, c_ref));
          CHECK(labels == l_ref);
          CHECK(ci == ci_ref);
          CHECK(bitwise_equal(cw, cw_ref));
          CHECK(bitwise_equal(r.objective, r_ref.objective));
          CHECK(bitwise_equal(r.inertia, r_ref.inertia));
          CHECK(r.n_iter == r_ref.n_iter);
          CHECK(r.converged == r_ref.converged);
          CHECK(r.n_relocated == r_ref.n_relocated);
          CHECK(r.n_distance_evals.coreset == r_ref.n_distance_evals.coreset);
          CHECK(r.n_distance_evals.seeding == r_ref.n_distance_evals.seeding);
          CHECK(r.n_distance_evals.iterations == r_ref.n_distance_evals.iterations);
          CHECK(r.n_distance_evals.evaluation == r_ref.n_distance_evals.evaluation);
        }
      }
    }
  }
}

TEST_CASE("the library reports how it was built") {
  CHECK(std::string(vcgmm::version()) == VCGMM_TEST_EXPECTED_VERSION);
  CHECK(std::string(vcgmm::compiled_arch()) == VCGMM_TEST_EXPECTED_ARCH);
  CHECK(vcgmm::have_openmp() == static_cast<bool>(VCGMM_TEST_EXPECTED_OPENMP));
}
