// The stochastic k-means family: mbatch (minibatch.hpp), nmbatch
// (nested_minibatch.hpp) and VRKM / VRKM++ (vrkm.hpp). Hand-computed toys,
// brute-force references for the same draws, the bounds that only skip,
// distance-evaluation counts, thread independence, bad parameters and
// interruption.
#include <doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using vcgmm::InvalidArgument;
using namespace vcgmm_test;

namespace {

template <typename Params>
Params given_init(index_t C, std::uint64_t seed, int n_threads) {
  Params p;
  p.n_clusters = C;
  p.seeding.method = vcgmm::SeedingMethod::given;
  p.run = run_options(seed, n_threads);
  return p;
}

template <typename T>
vcgmm::FitBuffers<T> buffers(const std::vector<T>& init, std::vector<T>* centers,
                             std::vector<std::int32_t>* labels = nullptr) {
  vcgmm::FitBuffers<T> b;
  b.init_centers = init.data();
  b.centers = centers->data();
  b.labels = labels ? labels->data() : nullptr;
  return b;
}

/// C distinct rows of x (the first C of a fixed stride) as initial centers.
template <typename T>
std::vector<T> first_rows(const std::vector<T>& x, index_t d, index_t C, index_t stride = 7) {
  std::vector<index_t> rows(C);
  for (index_t k = 0; k < C; ++k) rows[k] = k * stride;
  return gather_rows(x, d, rows);
}

// ----------------------------------------------------------------- VRKM reference

/// Alg. 3 (vrkm) / Alg. 4 (vrkm++) in double, sequential inner loop, for the
/// rows fit_vrkm draws (vrkm_epoch_rows); `epochs` epochs, no stopping test.
std::vector<double> vrkm_reference(const std::vector<double>& x, index_t n, index_t d,
                                   const double* w, std::vector<double> c, index_t C, double eta,
                                   index_t T, int epochs, std::uint64_t seed, bool vrkm,
                                   bool svrg_rule, std::vector<std::int64_t>* moved) {
  std::vector<index_t> ref_label(n);
  std::vector<index_t> rows(T);
  for (int e = 1; e <= epochs; ++e) {
    double unused;
    for (index_t i = 0; i < n; ++i) ref_label[i] = naive_nearest(&x[i * d], c.data(), C, d, &unused);
    std::vector<double> sums(C * d, 0.0), wsum(C, 0.0);
    for (index_t i = 0; i < n; ++i) {
      const double wi = w ? w[i] : 1.0;
      for (index_t k = 0; k < d; ++k) sums[ref_label[i] * d + k] += wi * x[i * d + k];
      wsum[ref_label[i]] += wi;
    }
    std::vector<double> ref = c, grad(C * d, 0.0);
    for (index_t j = 0; j < C; ++j) {
      if (wsum[j] == 0.0) continue;  // an empty cluster keeps its center
      for (index_t k = 0; k < d; ++k) {
        const double mean = sums[j * d + k] / wsum[j];
        double& r = ref[j * d + k];
        if (vrkm) {
          r = r - (r - mean);
          grad[j * d + k] = r - mean;
        } else {
          r = mean;
        }
      }
    }
    c = ref;
    vcgmm::vrkm_epoch_rows(n, w, T, seed, e, rows.data());
    std::int64_t m = 0;
    for (index_t t = 0; t < T; ++t) {
      const double* xi = &x[rows[t] * d];
      const index_t a = naive_nearest(xi, c.data(), C, d, &unused), r = ref_label[rows[t]];
      if (a != r) {
        for (index_t k = 0; k < d; ++k) {
          c[a * d + k] -= eta * (c[a * d + k] - xi[k]);
          c[r * d + k] += eta * (ref[r * d + k] - xi[k]);
        }
        if (vrkm) {
          for (index_t k = 0; k < C * d; ++k) c[k] -= eta * grad[k];
        }
        ++m;
      } else if (svrg_rule) {  // the SVRG step with grad f_i(c_a) - grad f_i(c~new_a)
        for (index_t k = 0; k < d; ++k) c[a * d + k] += eta * (ref[a * d + k] - c[a * d + k]);
        if (vrkm) {
          for (index_t k = 0; k < C * d; ++k) c[k] -= eta * grad[k];
        }
        ++m;
      }
    }
    moved->push_back(m);
  }
  return c;
}

// ----------------------------------------------------------------- interruption

std::atomic<int> g_polls{0};
bool stop_on_third_poll() { return ++g_polls >= 3; }

}  // namespace

// =============================================================================
// mbatch
// =============================================================================

TEST_CASE_TEMPLATE("mbatch_step on the 1-D toy {0, 1, 10, 11}", T, float, double) {
  // Centers {0, 10}, counts {1, 1} (Alg. 2: the initial center counts once).
  //  step 1: labels {0, 0, 1, 1}, objective 0 + 1 + 0 + 1 = 2;
  //          c0 = (1*0 + 0 + 1) / 3 = 1/3, c1 = (1*10 + 10 + 11) / 3 = 31/3, v = {3, 3}
  //  step 2: labels unchanged, objective (1/9 + 4/9 + 1/9 + 4/9) = 10/9;
  //          c0 = (3 * 1/3 + 1) / 5 = 2/5, c1 = (31 + 21) / 5 = 52/5, v = {5, 5}
  const std::vector<T> x = {0, 1, 10, 11};
  const vcgmm::DataView<T> batch{x.data(), 4, 1, nullptr};
  std::vector<T> c = {0, 10};
  std::vector<double> v = {1, 1};
  std::vector<std::int32_t> labels(4, -1);
  const double eps = sizeof(T) == 4 ? 1e-6 : 1e-14;
  vcgmm::MbatchStepStats s = vcgmm::mbatch_step(batch, 2, c.data(), v.data(), labels.data(), 2);
  CHECK(labels == std::vector<std::int32_t>{0, 0, 1, 1});
  CHECK(s.objective == 2.0);
  CHECK(s.n_distance_evals == 8);
  CHECK(c[0] == T(1.0 / 3.0));
  CHECK(c[1] == T(31.0 / 3.0));
  CHECK(v == std::vector<double>{3, 3});
  s = vcgmm::mbatch_step(batch, 2, c.data(), v.data(), nullptr, 1);
  CHECK(s.objective == doctest::Approx(10.0 / 9.0).epsilon(eps));
  CHECK(c[0] == doctest::Approx(0.4).epsilon(eps));
  CHECK(c[1] == doctest::Approx(10.4).epsilon(eps));
  CHECK(v == std::vector<double>{5, 5});

  SUBCASE("weights enter the sums and the counts") {
    // w = {3, 1, 1, 1}: c0 = (1*0 + 3*0 + 1*1) / 5 = 0.2, v0 = 5.
    const std::vector<double> w = {3, 1, 1, 1};
    std::vector<T> cw = {0, 10};
    std::vector<double> vw = {1, 1};
    vcgmm::mbatch_step(vcgmm::DataView<T>{x.data(), 4, 1, w.data()}, 2, cw.data(), vw.data(),
                       nullptr, 1);
    CHECK(cw[0] == T(0.2));
    CHECK(vw == std::vector<double>{5, 3});
  }
}

TEST_CASE_TEMPLATE("fit_mbatch is mbatch_step on the rows mbatch_batch_rows draws", T, float,
                   double) {
  const index_t n = 3000, d = 4, C = 9, b = 150;
  const int iters = 12;
  const std::vector<T> x = blobs<T>(n, d, 12, 20.0, 1.0, 501);
  const std::vector<double> w = positive_weights(n, 502);
  const std::vector<T> init = first_rows(x, d, C);
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    auto p = given_init<vcgmm::MbatchKMeansParams>(C, 77, 2);
    p.mbatch.batch_size = b;
    p.mbatch.max_iter = iters;
    p.mbatch.reassignment_ratio = 0.0;  // Sculley's mbatch: mbatch_step does not reassign
    p.mbatch.max_no_improvement = 0;    // and runs every batch
    std::vector<T> centers(C * d);
    const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
    const vcgmm::MbatchKMeansResult r = vcgmm::fit_mbatch(data, p, buffers(init, &centers));
    CHECK(r.n_iter == iters);
    CHECK_FALSE(r.converged);
    CHECK(r.batch_size == b);
    CHECK(r.n_distance_evals.iterations == std::int64_t(iters) * b * C);
    CHECK(r.n_distance_evals.evaluation == n * C);  // evaluate = true by default
    REQUIRE(r.objective.size() == static_cast<size_t>(iters));

    std::vector<T> c = init;
    std::vector<double> v(C, 1.0);
    std::vector<index_t> rows(b);
    double w_total = 0.0;
    for (index_t i = 0; i < n; ++i) w_total += weighted ? w[i] : 1.0;
    for (int t = 1; t <= iters; ++t) {
      vcgmm::mbatch_batch_rows(n, b, 77, t, rows.data());
      const std::vector<T> xb = gather_rows(x, d, rows);
      std::vector<double> wb(b);
      double w_batch = 0.0;
      for (index_t k = 0; k < b; ++k) w_batch += wb[k] = weighted ? w[rows[k]] : 1.0;
      const vcgmm::MbatchStepStats s = vcgmm::mbatch_step(
          vcgmm::DataView<T>{xb.data(), b, d, weighted ? wb.data() : nullptr}, C, c.data(),
          v.data(), nullptr, 1);
      // the trace: the batch's objective scaled to the total weight fitted
      CHECK(r.objective[t - 1] == doctest::Approx(s.objective * w_total / w_batch).epsilon(1e-12));
    }
    CHECK(bitwise_equal(c, centers));
    CHECK(bitwise_equal(v, r.counts));
    // the draws: uniform with replacement, all in range
    CHECK(*std::max_element(rows.begin(), rows.end()) < n);
  }
}

TEST_CASE_TEMPLATE("streaming mbatch on one chunk is fit_mbatch, seeding and early stop too", T,
                   float, double) {
  const index_t n = 3000, d = 4, C = 6;
  const std::vector<T> x = blobs<T>(n, d, 6, 20.0, 2.0, 77);
  std::vector<double> w(n);
  for (index_t i = 0; i < n; ++i) w[i] = 0.5 + static_cast<double>(i % 7) / 4.0;
  const vcgmm::DataView<T> data{x.data(), n, d, w.data()};
  vcgmm::MbatchKMeansParams p;
  p.n_clusters = C;
  p.mbatch.batch_size = 100;
  p.mbatch.max_iter = 300;
  p.run = run_options(21, 2);
  std::vector<T> fitted(C * d);
  vcgmm::FitBuffers<T> out;
  out.centers = fitted.data();
  const auto fit = vcgmm::fit_mbatch(data, p, out);
  REQUIRE(fit.converged);
  // The caller's loop: seeding rows, seeding, passes of ceil(n / b) batches.
  const std::vector<index_t> seed_rows = vcgmm::mbatch_stream_seeding_rows(n, p);
  CHECK(seed_rows.size() == 3 * 100);
  std::vector<T> xs(seed_rows.size() * d);
  std::vector<double> ws(seed_rows.size());
  for (std::size_t r = 0; r < seed_rows.size(); ++r) {
    std::copy_n(&x[seed_rows[r] * d], d, &xs[r * d]);
    ws[r] = w[seed_rows[r]];
  }
  std::vector<T> centers(C * d);
  const index_t m = static_cast<index_t>(seed_rows.size());
  vcgmm::mbatch_stream_seed(vcgmm::DataView<T>{xs.data(), m, d, ws.data()}, p, centers.data());
  double total = 0.0;
  for (index_t i = 0; i < n; ++i) total += w[i];
  vcgmm::MbatchStream state = vcgmm::mbatch_stream_start(n, total, C, p.mbatch);
  const index_t rows[] = {n};
  std::int64_t planned = 0;
  while (planned < p.mbatch.max_iter && !state.stopped) {
    const index_t k = std::min<std::int64_t>(30, p.mbatch.max_iter - planned);
    std::vector<std::int32_t> chunk(k);
    vcgmm::mbatch_stream_plan(rows, 1, p.run.seed, planned + 1, k, chunk.data());
    CHECK(std::all_of(chunk.begin(), chunk.end(), [](std::int32_t c) { return c == 0; }));
    std::vector<std::int64_t> its(k);
    for (index_t j = 0; j < k; ++j) its[j] = planned + 1 + j;
    vcgmm::mbatch_stream_batches(data, its.data(), k, p.mbatch, p.run, centers.data(), &state);
    planned += k;
  }
  CHECK(bitwise_equal(centers, fitted));
  CHECK(bitwise_equal(state.result.counts, fit.counts));
  CHECK(bitwise_equal(state.result.objective, fit.objective));
  CHECK(state.result.n_iter == fit.n_iter);
  CHECK(state.result.converged);
  CHECK(state.result.n_reassigned == fit.n_reassigned);
  CHECK(state.result.n_distance_evals.iterations == fit.n_distance_evals.iterations);
  // Bad calls are named.
  CHECK_THROWS_AS(vcgmm::mbatch_stream_start(0, 1.0, C, p.mbatch), InvalidArgument);
  CHECK_THROWS_AS(vcgmm::mbatch_stream_start(n, 0.0, C, p.mbatch), InvalidArgument);
  const index_t empty[] = {0, 0};
  std::vector<std::int32_t> one(1);
  CHECK_THROWS_AS(vcgmm::mbatch_stream_plan(empty, 2, 1, 1, 1, one.data()), InvalidArgument);
}

// =============================================================================
// nmbatch
// =============================================================================

TEST_CASE("mbatch's early stop: scikit-learn's rule on the trace, a prefix of the full run") {
  const index_t n = 3000, d = 4, C = 5, b = 200;
  const std::vector<double> x = blobs<double>(n, d, 5, 20.0, 2.0, 511);
  const std::vector<double> init = first_rows(x, d, C);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  auto fit = [&](int max_iter, int patience, std::vector<double>& centers) {
    auto p = given_init<vcgmm::MbatchKMeansParams>(C, 13, 2);
    p.mbatch.batch_size = b;
    p.mbatch.max_iter = max_iter;
    p.mbatch.max_no_improvement = patience;
    centers.assign(C * d, 0.0);
    return vcgmm::fit_mbatch(data, p, buffers(init, &centers));
  };
  std::vector<double> full_centers, early_centers, cut_centers;
  const auto full = fit(400, 0, full_centers);
  REQUIRE(full.n_iter == 400);
  CHECK_FALSE(full.converged);
  // replay: EWA of the objective per unit weight, smoothing 2 b / (n + 1)
  const double alpha = 2.0 * b / (n + 1.0);
  double ewa = 0.0, best = std::numeric_limits<double>::infinity();
  int without = 0, stop = 0;
  for (int t = 1; t <= 400 && stop == 0; ++t) {
    const double q = full.objective[t - 1] / n;
    ewa = t == 1 ? q : ewa * (1.0 - alpha) + q * alpha;
    if (ewa < best) {
      best = ewa;
      without = 0;
    } else if (++without >= 10) {
      stop = t;
    }
  }
  REQUIRE(stop > 10);
  REQUIRE(stop < 400);
  const auto early = fit(400, 10, early_centers);
  CHECK(early.n_iter == stop);
  CHECK(early.converged);
  const auto cut = fit(stop, 0, cut_centers);
  CHECK(bitwise_equal(early_centers, cut_centers));
  CHECK(bitwise_equal(early.counts, cut.counts));
}

TEST_CASE_TEMPLATE("nmbatch: the bounds only skip, never change a result", T, float, double) {
  const index_t n = 6000, d = 5, C = 24;
  const std::vector<T> x = blobs<T>(n, d, 20, 30.0, 1.5, 601);
  const std::vector<double> w = positive_weights(n, 602);
  const std::vector<T> init = first_rows(x, d, C);
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
    auto run = [&](vcgmm::NmbatchBounds bounds, int groups, std::vector<T>* centers,
                   std::vector<std::int32_t>* labels) {
      auto p = given_init<vcgmm::NmbatchKMeansParams>(C, 11, 2);
      p.nmbatch.batch_size = 400;
      p.nmbatch.bounds = bounds;
      p.nmbatch.n_groups = groups;
      return vcgmm::fit_nmbatch(data, p, buffers(init, centers, labels));
    };
    std::vector<T> c_none(C * d);
    std::vector<std::int32_t> l_none(n);
    const vcgmm::NmbatchKMeansResult none = run(vcgmm::NmbatchBounds::none, 0, &c_none, &l_none);
    CHECK(none.converged);
    CHECK(none.batch_sizes.back() == n);
    CHECK(none.n_skipped == 0);
    CHECK(none.bounds_bytes == 0.0);
    std::int64_t total = 0;
    for (size_t t = 0; t < none.batch_sizes.size(); ++t) {
      CAPTURE(t);
      CHECK(none.computed[t] == std::int64_t(none.batch_sizes[t]) * C);  // every pair
      total += none.computed[t];
    }
    CHECK(none.n_distance_evals.iterations == total);
    const struct {
      vcgmm::NmbatchBounds bounds;
      int groups;
    } cases[] = {{vcgmm::NmbatchBounds::elkan, 0},
                 {vcgmm::NmbatchBounds::yinyang, 1},
                 {vcgmm::NmbatchBounds::yinyang, 3},
                 {vcgmm::NmbatchBounds::yinyang, 0}};
    for (const auto& k : cases) {
      CAPTURE(static_cast<int>(k.bounds));
      CAPTURE(k.groups);
      std::vector<T> c(C * d);
      std::vector<std::int32_t> l(n);
      const vcgmm::NmbatchKMeansResult r = run(k.bounds, k.groups, &c, &l);
      CHECK(bitwise_equal(c, c_none));
      CHECK(l == l_none);
      CHECK(r.batch_sizes == none.batch_sizes);
      CHECK(bitwise_equal(r.objective, none.objective));
      CHECK(r.n_iter == none.n_iter);
      CHECK(r.converged);
      CHECK(bitwise_equal(r.inertia, none.inertia));
      std::int64_t skipped = 0;
      for (size_t t = 0; t < r.computed.size(); ++t) {
        CAPTURE(t);
        CHECK(r.computed[t] + r.skipped[t] == none.computed[t]);
        skipped += r.skipped[t];
      }
      CHECK(r.n_skipped == skipped);
      CHECK(r.n_skipped > 0);
      const int expect_groups = k.bounds == vcgmm::NmbatchBounds::elkan ? int(C)
                                : k.groups > 0                          ? k.groups
                                                                        : int((C + 9) / 10);
      CHECK(r.n_groups == expect_groups);
      CHECK(r.bounds_bytes == 4.0 * n * expect_groups);
    }
  }
}

TEST_CASE("nmbatch converges to a fixed point of Lloyd") {
  const index_t n = 5000, d = 4, C = 15;
  const std::vector<double> x = blobs<double>(n, d, 15, 25.0, 1.0, 611);
  std::vector<double> centers(C * d);
  auto p = given_init<vcgmm::NmbatchKMeansParams>(C, 3, 2);
  p.nmbatch.batch_size = 500;
  const vcgmm::NmbatchKMeansResult r =
      vcgmm::fit_nmbatch(vcgmm::DataView<double>{x.data(), n, d, nullptr}, p,
                         buffers(first_rows(x, d, C), &centers));
  REQUIRE(r.converged);
  CHECK(r.n_changed.back() == 0);
  std::vector<double> after = centers;
  vcgmm::LloydParams lp;
  lp.max_iter = 1;
  const vcgmm::LloydResult lr =
      vcgmm::lloyd(vcgmm::DataView<double>{x.data(), n, d, nullptr}, C, lp, run_options(0, 2),
                   after.data());
  for (index_t k = 0; k < C * d; ++k) CHECK(after[k] == doctest::Approx(centers[k]).epsilon(1e-12));
  CHECK(lr.objective[0] == doctest::Approx(r.inertia).epsilon(1e-12));
  CHECK(r.inertia == doctest::Approx(naive_quantization_error(x.data(), n, d, nullptr,
                                                              centers.data(), C)).epsilon(1e-12));
}

TEST_CASE("spherical mbatch and nmbatch: unit centers, a spherical Lloyd fixed point") {
  const index_t n = 4000, d = 5, C = 6;
  std::vector<double> x = blobs<double>(n, d, 6, 25.0, 1.0, 621);
  for (index_t i = 0; i < n; ++i) {  // rows of unit length (the cosine metric's input)
    double s = 0.0;
    for (index_t k = 0; k < d; ++k) s += x[i * d + k] * x[i * d + k];
    for (index_t k = 0; k < d; ++k) x[i * d + k] /= std::sqrt(s);
  }
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  const std::vector<double> init = first_rows(x, d, C);
  auto unit = [&](const std::vector<double>& c) {
    for (index_t j = 0; j < C; ++j) {
      double s = 0.0;
      for (index_t k = 0; k < d; ++k) s += c[j * d + k] * c[j * d + k];
      CHECK(std::sqrt(s) == doctest::Approx(1.0).epsilon(1e-12));
    }
  };
  // mbatch: fit == mbatch_step(spherical) on the same rows; centers of unit length
  auto pm = given_init<vcgmm::MbatchKMeansParams>(C, 5, 2);
  pm.mbatch.batch_size = 200;
  pm.mbatch.max_iter = 10;
  pm.mbatch.spherical = true;
  std::vector<double> cm(C * d);
  vcgmm::fit_mbatch(data, pm, buffers(init, &cm));
  unit(cm);
  std::vector<double> c = init, v(C, 1.0);
  std::vector<index_t> rows(200);
  for (int t = 1; t <= 10; ++t) {
    vcgmm::mbatch_batch_rows(n, 200, 5, t, rows.data());
    const std::vector<double> xb = gather_rows(x, d, rows);
    vcgmm::mbatch_step(vcgmm::DataView<double>{xb.data(), 200, d, nullptr}, C, c.data(), v.data(),
                       nullptr, 1, true);
  }
  CHECK(bitwise_equal(c, cm));
  // nmbatch: converges to a fixed point of spherical Lloyd
  auto pn = given_init<vcgmm::NmbatchKMeansParams>(C, 3, 2);
  pn.nmbatch.batch_size = 500;
  pn.nmbatch.spherical = true;
  std::vector<double> cn(C * d);
  const vcgmm::NmbatchKMeansResult r = vcgmm::fit_nmbatch(data, pn, buffers(init, &cn));
  REQUIRE(r.converged);
  unit(cn);
  std::vector<double> after = cn;
  vcgmm::LloydParams lp;
  lp.max_iter = 1;
  lp.spherical = true;
  vcgmm::lloyd(data, C, lp, run_options(0, 2), after.data());
  for (index_t k = 0; k < C * d; ++k) CHECK(after[k] == doctest::Approx(cn[k]).epsilon(1e-12));
}

TEST_CASE("nmbatch: the memory budget chooses the bounds") {
  const index_t n = 4000, d = 3, C = 40;
  const std::vector<float> x = gaussian<float>(n, d, 621);
  std::vector<float> centers(C * d);
  auto fit = [&](double budget) {
    auto p = given_init<vcgmm::NmbatchKMeansParams>(C, 1, 1);
    p.nmbatch.max_iter = 2;
    p.nmbatch.bounds_memory = budget;
    return vcgmm::fit_nmbatch(vcgmm::DataView<float>{x.data(), n, d, nullptr}, p,
                              buffers(first_rows(x, d, C), &centers));
  };
  vcgmm::NmbatchKMeansResult r = fit(4.0 * n * C);  // elkan fits exactly
  CHECK(r.bounds == vcgmm::NmbatchBounds::elkan);
  CHECK(r.n_groups == C);
  r = fit(4.0 * n * C - 1);  // it does not: Ding et al.'s ceil(C / 10) groups
  CHECK(r.bounds == vcgmm::NmbatchBounds::yinyang);
  CHECK(r.n_groups == 4);
  r = fit(4.0 * n * 2);  // room for two bounds per row
  CHECK(r.bounds == vcgmm::NmbatchBounds::yinyang);
  CHECK(r.n_groups == 2);
  r = fit(1.0);  // at least one group
  CHECK(r.n_groups == 1);
}

// =============================================================================
// VRKM / VRKM++
// =============================================================================

TEST_CASE("fit_vrkm matches a brute-force reference of the sequential loop") {
  const index_t n = 400, d = 3, C = 5, T = 300;
  const int epochs = 4;
  const double eta = 0.05;
  const std::vector<double> x = gaussian<double>(n, d, 701);  // no fixed point within 4 epochs
  const std::vector<double> w = positive_weights(n, 702);
  const std::vector<double> init = first_rows(x, d, C, 13);
  for (bool vrkm : {false, true}) {
    for (bool svrg : {false, true}) {
      for (bool weighted : {false, true}) {
        CAPTURE(vrkm);
        CAPTURE(svrg);
        CAPTURE(weighted);
        auto p = given_init<vcgmm::VrkmKMeansParams>(C, 9, 1);
        p.vrkm.variant = vrkm ? vcgmm::VrkmVariant::vrkm : vcgmm::VrkmVariant::vrkm_plus_plus;
        p.vrkm.update_rule =
            svrg ? vcgmm::VrkmUpdateRule::svrg : vcgmm::VrkmUpdateRule::label_change;
        p.vrkm.learning_rate = eta;
        p.vrkm.epoch_size = T;
        p.vrkm.max_epochs = epochs;
        p.vrkm.tol = 0.0;
        std::vector<double> centers(C * d);
        const double* wp = weighted ? w.data() : nullptr;
        const vcgmm::VrkmKMeansResult r = vcgmm::fit_vrkm(
            vcgmm::DataView<double>{x.data(), n, d, wp}, p, buffers(init, &centers));
        std::vector<std::int64_t> moved;
        const std::vector<double> ref =
            vrkm_reference(x, n, d, wp, init, C, eta, T, epochs, 9, vrkm, svrg, &moved);
        REQUIRE(r.n_iter == epochs);
        for (index_t k = 0; k < C * d; ++k) {
          CHECK(centers[k] == doctest::Approx(ref[k]).epsilon(1e-10));
        }
        CHECK(r.n_updates == moved);
        if (svrg) CHECK(moved == std::vector<std::int64_t>(epochs, T));
        CHECK(r.learning_rate == eta);
        CHECK(r.epoch_size == T);
        // stopped by max_epochs: one more full pass looks for emptied clusters
        CHECK(r.n_distance_evals.iterations == std::int64_t(epochs) * (n + T) * C + n * C);
        CHECK(r.n_relocated == 0);
        CHECK(r.objective.size() == static_cast<size_t>(epochs));
        CHECK(r.inertia == doctest::Approx(naive_quantization_error(x.data(), n, d, wp,
                                                                    centers.data(), C))
                               .epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("VRKM moves clusters a large learning rate empties onto the farthest points") {
  const index_t n = 2000, d = 4, C = 5;
  const std::vector<double> x = gaussian<double>(n, d, 711);
  const std::vector<double> init = first_rows(x, d, C, 3);
  for (double eta : {0.3, 1.0}) {
    CAPTURE(eta);
    auto fit = [&](bool relocate, std::vector<std::int32_t>* labels) {
      auto p = given_init<vcgmm::VrkmKMeansParams>(C, 4, 2);
      p.vrkm.learning_rate = eta;
      p.vrkm.max_epochs = 20;
      p.vrkm.relocate_empty = relocate;
      std::vector<double> centers(C * d);
      labels->assign(n, -1);
      auto b = buffers(init, &centers);
      b.labels = labels->data();
      return vcgmm::fit_vrkm(vcgmm::DataView<double>{x.data(), n, d, nullptr}, p, b);
    };
    std::vector<std::int32_t> moved, kept;
    const vcgmm::VrkmKMeansResult r = fit(true, &moved);
    const vcgmm::VrkmKMeansResult paper = fit(false, &kept);
    auto used = [&](const std::vector<std::int32_t>& l) {
      std::vector<char> seen(C, 0);
      for (std::int32_t v : l) seen[v] = 1;
      return std::count(seen.begin(), seen.end(), 1);
    };
    CHECK(r.n_relocated > 0);
    CHECK(used(moved) == C);
    CHECK(paper.n_relocated == 0);
    CHECK(used(kept) < C);  // the paper's loop loses clusters at these rates
    CHECK(r.inertia < paper.inertia);
  }
}

TEST_CASE_TEMPLATE("VRKM and VRKM++ give the same iterates; blocked stays close", T, float,
                   double) {
  const index_t n = 8000, d = 6, C = 20;
  const std::vector<T> x = blobs<T>(n, d, 20, 20.0, 1.0, 711);
  const std::vector<T> init = first_rows(x, d, C, 101);
  auto fit = [&](vcgmm::VrkmVariant variant, index_t block, std::vector<T>* centers) {
    auto p = given_init<vcgmm::VrkmKMeansParams>(C, 5, 2);
    p.vrkm.variant = variant;
    p.vrkm.block_size = block;
    p.vrkm.max_epochs = 6;
    p.vrkm.tol = 0.0;
    return vcgmm::fit_vrkm(vcgmm::DataView<T>{x.data(), n, d, nullptr}, p,
                           buffers(init, centers));
  };
  std::vector<T> a(C * d), b(C * d), blocked(C * d);
  const vcgmm::VrkmKMeansResult ra = fit(vcgmm::VrkmVariant::vrkm_plus_plus, 1, &a);
  const vcgmm::VrkmKMeansResult rb = fit(vcgmm::VrkmVariant::vrkm, 1, &b);
  const double eps = sizeof(T) == 4 ? 1e-5 : 1e-9;
  for (index_t k = 0; k < C * d; ++k) CHECK(a[k] == doctest::Approx(b[k]).epsilon(eps));
  CHECK(ra.n_updates == rb.n_updates);
  CHECK(ra.learning_rate == double(C) / double(n));  // defaults: eta = C / n, T = n
  CHECK(ra.epoch_size == n);
  // objective per epoch start: non-increasing on these well-separated blobs
  for (size_t t = 1; t < ra.objective.size(); ++t) {
    CHECK(ra.objective[t] <= ra.objective[t - 1] * (1.0 + 1e-9));
  }
  const vcgmm::VrkmKMeansResult rc = fit(vcgmm::VrkmVariant::vrkm_plus_plus, 512, &blocked);
  CHECK(rc.inertia == doctest::Approx(ra.inertia).epsilon(5e-3));
  CHECK(rc.n_distance_evals.iterations == ra.n_distance_evals.iterations);
}

// =============================================================================
// all three: thread independence, bad parameters, interruption
// =============================================================================

TEST_CASE_TEMPLATE("the stochastic family does not depend on the thread count", T, float, double) {
  // Several tasks of every kind: nmbatch reassigns 1024 rows per task, the
  // blocked scan takes 256-row blocks, the cluster sums 16 clusters per task.
  const index_t n = 20000, d = 6, C = 40;
  const std::vector<T> x = blobs<T>(n, d, 30, 20.0, 1.0, 801);
  const std::vector<double> w = positive_weights(n, 802);
  for (bool weighted : {false, true}) {
    CAPTURE(weighted);
    const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
    auto fingerprint = [&](const auto& r, const std::vector<T>& centers,
                           const std::vector<std::int32_t>& labels) {
      std::vector<double> out;
      append(&out, centers);
      append(&out, labels);
      append(&out, r.objective);
      out.push_back(r.inertia);
      out.push_back(static_cast<double>(r.n_distance_evals.iterations));
      return out;
    };
    CHECK(first_thread_count_that_differs([&](int nt) {
            vcgmm::MbatchKMeansParams p;
            p.n_clusters = C;
            p.seeding.method = vcgmm::SeedingMethod::kmeans_plusplus;
            p.mbatch.batch_size = 3000;
            p.mbatch.max_iter = 6;
            p.run = run_options(21, nt);
            std::vector<T> c(C * d);
            std::vector<std::int32_t> l(n);
            vcgmm::FitBuffers<T> b;
            b.centers = c.data();
            b.labels = l.data();
            const auto r = vcgmm::fit_mbatch(data, p, b);
            std::vector<double> f = fingerprint(r, c, l);
            append(&f, r.counts);
            return f;
          }) == 0);
    for (vcgmm::NmbatchBounds bounds : {vcgmm::NmbatchBounds::elkan, vcgmm::NmbatchBounds::yinyang}) {
      CAPTURE(static_cast<int>(bounds));
      CHECK(first_thread_count_that_differs([&](int nt) {
              vcgmm::NmbatchKMeansParams p;
              p.n_clusters = C;
              p.nmbatch.batch_size = 2500;
              p.nmbatch.bounds = bounds;
              p.run = run_options(22, nt);
              std::vector<T> c(C * d);
              std::vector<std::int32_t> l(n);
              vcgmm::FitBuffers<T> b;
              b.centers = c.data();
              b.labels = l.data();
              const auto r = vcgmm::fit_nmbatch(data, p, b);
              std::vector<double> f = fingerprint(r, c, l);
              append(&f, r.computed);
              append(&f, r.skipped);
              append(&f, r.batch_sizes);
              return f;
            }) == 0);
    }
    for (index_t block : {index_t(1), index_t(700)}) {
      CAPTURE(block);
      CHECK(first_thread_count_that_differs([&](int nt) {
              vcgmm::VrkmKMeansParams p;
              p.n_clusters = C;
              p.vrkm.block_size = block;
              p.vrkm.max_epochs = 3;
              p.vrkm.tol = 0.0;
              p.run = run_options(23, nt);
              std::vector<T> c(C * d);
              std::vector<std::int32_t> l(n);
              vcgmm::FitBuffers<T> b;
              b.centers = c.data();
              b.labels = l.data();
              const auto r = vcgmm::fit_vrkm(data, p, b);
              std::vector<double> f = fingerprint(r, c, l);
              append(&f, r.n_updates);
              return f;
            }) == 0);
    }
  }
}

TEST_CASE_TEMPLATE("the stochastic family rejects bad parameters, naming them", T, float, double) {
  const index_t n = 60, d = 3, C = 4;
  const std::vector<T> x = gaussian<T>(n, d, 901);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  std::vector<T> centers(C * d);
  vcgmm::FitBuffers<T> out;
  out.centers = centers.data();
  const double kNaN = std::numeric_limits<double>::quiet_NaN();

  auto mbatch = [&](index_t b, int iters) {
    vcgmm::MbatchKMeansParams p;
    p.n_clusters = C;
    p.mbatch.batch_size = b;
    p.mbatch.max_iter = iters;
    return vcgmm::fit_mbatch(data, p, out);
  };
  for (index_t b : {index_t(-1), n + 1}) {
    CAPTURE(b);
    CHECK_THROWS_WITH_AS(mbatch(b, 3), doctest::Contains("batch_size"), InvalidArgument);
  }
  CHECK_THROWS_WITH_AS(mbatch(10, 0), doctest::Contains("max_iter"), InvalidArgument);
  for (double ratio : {-0.5, 1.5, kNaN}) {
    CAPTURE(ratio);
    vcgmm::MbatchKMeansParams p;
    p.n_clusters = C;
    p.mbatch.reassignment_ratio = ratio;
    CHECK_THROWS_WITH_AS(vcgmm::fit_mbatch(data, p, out), doctest::Contains("reassignment_ratio"),
                         InvalidArgument);
  }
  CHECK_NOTHROW(mbatch(n, 1));
  CHECK_NOTHROW(mbatch(1, 1));

  auto nmbatch = [&](index_t b, double rho, double budget, double time_budget, int groups) {
    vcgmm::NmbatchKMeansParams p;
    p.n_clusters = C;
    p.nmbatch.batch_size = b;
    p.nmbatch.rho = rho;
    p.nmbatch.bounds_memory = budget;
    p.nmbatch.time_budget = time_budget;
    p.nmbatch.n_groups = groups;
    return vcgmm::fit_nmbatch(data, p, out);
  };
  for (index_t b : {index_t(-1), C - 1, n + 1}) {
    CAPTURE(b);
    CHECK_THROWS_WITH_AS(nmbatch(b, 100, 1e9, 0, 0), doctest::Contains("batch_size"),
                         InvalidArgument);
  }
  for (double rho : {0.0, -1.0, kNaN}) {
    CAPTURE(rho);
    CHECK_THROWS_WITH_AS(nmbatch(0, rho, 1e9, 0, 0), doctest::Contains("rho"), InvalidArgument);
  }
  CHECK_THROWS_WITH_AS(nmbatch(0, 100, 0.0, 0, 0), doctest::Contains("bounds_memory"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(nmbatch(0, 100, 1e9, -1.0, 0), doctest::Contains("time_budget"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(nmbatch(0, 100, 1e9, 0, -2), doctest::Contains("n_groups"),
                       InvalidArgument);
  CHECK_NOTHROW(nmbatch(C, std::numeric_limits<double>::infinity(), 1e9, 0, 0));

  auto vrkm = [&](double eta, index_t epoch_size, int epochs, index_t block, double tol) {
    vcgmm::VrkmKMeansParams p;
    p.n_clusters = C;
    p.vrkm.learning_rate = eta;
    p.vrkm.epoch_size = epoch_size;
    p.vrkm.max_epochs = epochs;
    p.vrkm.block_size = block;
    p.vrkm.tol = tol;
    return vcgmm::fit_vrkm(data, p, out);
  };
  for (double eta : {-0.5, 1.5, kNaN}) {
    CAPTURE(eta);
    CHECK_THROWS_WITH_AS(vrkm(eta, 0, 2, 1, 0.0), doctest::Contains("learning_rate"),
                         InvalidArgument);
  }
  CHECK_THROWS_WITH_AS(vrkm(0.0, -1, 2, 1, 0.0), doctest::Contains("epoch_size"), InvalidArgument);
  CHECK_THROWS_WITH_AS(vrkm(0.0, 0, 0, 1, 0.0), doctest::Contains("max_epochs"), InvalidArgument);
  CHECK_THROWS_WITH_AS(vrkm(0.0, 0, 2, 0, 0.0), doctest::Contains("block_size"), InvalidArgument);
  CHECK_THROWS_WITH_AS(vrkm(0.0, 0, 2, 1, -1.0), doctest::Contains("tol"), InvalidArgument);
  CHECK_NOTHROW(vrkm(1.0, 1, 2, 1, 0.0));

  std::vector<index_t> rows(5);
  CHECK_THROWS_AS(vcgmm::vrkm_epoch_rows(n, nullptr, 0, 1, 1, rows.data()), InvalidArgument);
  CHECK_THROWS_AS(vcgmm::nmbatch_sample_order(0, 1, rows.data()), InvalidArgument);
}

TEST_CASE("mbatch, nmbatch and VRKM are interruptible") {
  const index_t n = 100000, d = 16, C = 300;
  const std::vector<float> x = gaussian<float>(n, d, 911);
  std::vector<float> centers(C * d);
  vcgmm::FitBuffers<float> out;
  out.centers = centers.data();
  const vcgmm::DataView<float> data{x.data(), n, d, nullptr};
  auto interrupted = [&](auto&& fit) {
    g_polls = 0;
    InterruptCallbackGuard guard(&stop_on_third_poll);
    CHECK_THROWS_AS(fit(), vcgmm::Interrupted);
    CHECK(g_polls == 3);
  };
  // Each would run for minutes: uniform-ish Gaussian data, tol = 0, huge limits.
  interrupted([&] {
    vcgmm::MbatchKMeansParams p;
    p.n_clusters = C;
    p.mbatch.max_iter = 1000000;
    p.mbatch.max_no_improvement = 0;  // the early stop ended it within three polls
    p.run = run_options(1, 2);
    return vcgmm::fit_mbatch(data, p, out);
  });
  interrupted([&] {
    vcgmm::NmbatchKMeansParams p;
    p.n_clusters = C;
    p.nmbatch.max_iter = 1000000;
    p.run = run_options(1, 2);
    return vcgmm::fit_nmbatch(data, p, out);
  });
  interrupted([&] {
    vcgmm::VrkmKMeansParams p;
    p.n_clusters = C;
    p.seeding.method = vcgmm::SeedingMethod::random;
    p.vrkm.max_epochs = 1000000;
    p.vrkm.tol = 0.0;
    p.run = run_options(1, 2);
    return vcgmm::fit_vrkm(data, p, out);
  });
}
