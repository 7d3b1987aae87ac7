// assign_approximate: CenterCellIndex (method gemm, the default: points
// grouped by coarse cell, one matrix product per group against the cell's
// candidate list) and CenterGraphIndex (method graph: best-first search over
// a k-NN graph of the centers).
//
// Properties checked against a brute-force double loop and the exact scan:
// gemm with n_probe = all cells and graph with a complete graph or n_starts =
// C are exact; the cells and lists are what the header says; the graph is the
// exact k-NN graph; every label is a real center whose exact distance is
// reported and is never below the nearest one; well-separated clusters are
// labelled exactly; the counts are below n C; thread-independent; zero
// weights; duplicates, ties and near-ties across cells; bad parameters are
// refused.
#include <doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "test_helpers.hpp"
#include "vcgmm/approximate_assignment.hpp"
#include "vcgmm/assignment.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

template <typename T>
struct Run {
  std::vector<std::int32_t> labels;
  std::vector<double> d2;
  vcgmm::ApproximateAssignmentStats stats;
};

template <typename T>
Run<T> run(const vcgmm::DataView<T>& data, const std::vector<T>& centers, index_t c,
           const vcgmm::ApproximateAssignmentParams& p, int threads) {
  Run<T> r;
  r.labels.assign(data.n, -1);
  r.d2.assign(data.n, -1.0);
  r.stats = vcgmm::assign_approximate(data, centers.data(), c, p, r.labels.data(), r.d2.data(),
                                      threads);
  return r;
}

template <typename T>
double tol() { return sizeof(T) == 4 ? 1e-5 : 1e-12; }

/// The exact scan's labels and distances (the reference).
template <typename T>
Run<T> exact_scan(const vcgmm::DataView<T>& data, const std::vector<T>& centers, index_t c) {
  Run<T> r;
  r.labels.assign(data.n, -1);
  r.d2.assign(data.n, -1.0);
  vcgmm::assign_nearest(data, centers.data(), c, r.labels.data(), r.d2.data(), 2);
  return r;
}

/// The gemm method probing every cell, whatever the distances: exact.
vcgmm::ApproximateAssignmentParams every_cell(index_t c) {
  vcgmm::ApproximateAssignmentParams all;
  all.n_probe = static_cast<int>(c);
  all.probe_ratio = std::numeric_limits<double>::infinity();
  return all;
}

}  // namespace

TEST_CASE_TEMPLATE("approximate assignment is exact with a complete graph or all starts", T, float,
                   double) {
  const index_t n = 700, d = 9, c = 150;
  const std::vector<T> x = gaussian<T>(n, d, 11);
  const std::vector<T> centers = gaussian<T>(c, d, 12);
  const std::vector<double> w = positive_weights(n, 13);
  const vcgmm::DataView<T> data{x.data(), n, d, w.data()};
  vcgmm::ApproximateAssignmentParams complete;
  complete.method = vcgmm::ApproximateMethod::graph;
  complete.graph_degree = static_cast<int>(c - 1);
  complete.n_starts = 1;
  complete.beam_width = 1;
  vcgmm::ApproximateAssignmentParams all_starts;
  all_starts.method = vcgmm::ApproximateMethod::graph;
  all_starts.n_starts = static_cast<int>(c);
  for (const auto& p : {complete, all_starts}) {
    const Run<T> r = run(data, centers, c, p, 2);
    double objective = 0.0;
    for (index_t i = 0; i < n; ++i) {
      double best;
      naive_nearest(x.data() + i * d, centers.data(), c, d, &best);
      const index_t l = r.labels[i];
      REQUIRE(l >= 0);
      REQUIRE(l < c);
      const double dl = naive_d2(x.data() + i * d, centers.data() + l * d, d);
      CHECK(r.d2[i] == doctest::Approx(dl).epsilon(1e-12));
      CHECK(dl <= best * (1 + tol<T>()) + 1e-12);
      objective += w[i] * dl;
    }
    CHECK(r.stats.objective == doctest::Approx(objective).epsilon(1e-10));
  }
}

TEST_CASE("the graph is the exact k-nearest-neighbour graph of the centers") {
  const index_t c = 300, d = 5;
  const std::vector<double> centers = gaussian<double>(c, d, 21);
  vcgmm::ApproximateAssignmentParams p;
  p.method = vcgmm::ApproximateMethod::graph;
  p.graph_degree = 7;
  const vcgmm::CenterGraphIndex<double> index(centers.data(), c, d, p, 2);
  REQUIRE(index.degree() == 7);
  CHECK(index.build_stats().index_distance_evals == c * c);
  for (index_t a = 0; a < c; ++a) {
    std::vector<std::pair<double, index_t>> all;
    for (index_t b = 0; b < c; ++b) {
      if (b != a) all.emplace_back(naive_d2(centers.data() + a * d, centers.data() + b * d, d), b);
    }
    std::sort(all.begin(), all.end());
    const index_t o = index.graph_offsets()[a];
    const index_t len = index.graph_offsets()[a + 1] - o;
    REQUIRE(len >= 7);
    REQUIRE(len <= 14);
    for (int k = 0; k < 7; ++k) CHECK(index.graph()[o + k] == all[k].second);
    // the rest: reverse neighbours (a is among their 7 nearest)
    for (index_t k = 7; k < len; ++k) {
      const index_t b = index.graph()[o + k];
      const index_t ob = index.graph_offsets()[b];
      CHECK(std::find(index.graph().begin() + ob, index.graph().begin() + ob + 7, a) !=
            index.graph().begin() + ob + 7);
    }
  }
}

TEST_CASE_TEMPLATE("approximate labels: never below exact, separated clusters exact, sublinear", T,
                   float, double) {
  // 400 well-separated clusters on a grid in 6-D, 20 points around each.
  const index_t c = 400, d = 6, per = 20, n = c * per;
  std::vector<T> centers = gaussian<T>(c, d, 31, 100.0);
  const std::vector<T> noise = gaussian<T>(n, d, 32, 0.1);
  std::vector<T> x(n * d);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < d; ++j) x[i * d + j] = centers[(i % c) * d + j] + noise[i * d + j];
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  vcgmm::ApproximateAssignmentParams graph;
  graph.method = vcgmm::ApproximateMethod::graph;
  const Run<T> r = run(data, centers, c, graph, 2);
  index_t wrong = 0;
  for (index_t i = 0; i < n; ++i) wrong += r.labels[i] != static_cast<std::int32_t>(i % c);
  CHECK(wrong == 0);
  CHECK(r.stats.search_distance_evals < n * c * 3 / 4);  // defaults: ~235 of 400 per point
  const Run<T> g = run(data, centers, c, vcgmm::ApproximateAssignmentParams{}, 2);
  index_t g_wrong = 0;
  for (index_t i = 0; i < n; ++i) g_wrong += g.labels[i] != static_cast<std::int32_t>(i % c);
  CHECK(g_wrong == 0);
  // defaults: 20 cells of ~20 centers, a few probed: well below 400 per point
  CHECK(g.stats.search_distance_evals < n * c / 2);

  // Random data: labels never closer than the exact nearest center.
  const std::vector<T> y = gaussian<T>(3000, d, 33, 100.0);
  const vcgmm::DataView<T> ydata{y.data(), 3000, d, nullptr};
  vcgmm::ApproximateAssignmentParams small;
  small.method = vcgmm::ApproximateMethod::graph;
  small.graph_degree = 3;
  small.beam_width = 1;
  small.n_starts = 1;
  vcgmm::ApproximateAssignmentParams one_cell;  // gemm, only the point's own cell
  one_cell.n_probe = 1;
  for (const auto& p : {small, one_cell}) {
    const Run<T> q = run(ydata, centers, c, p, 3);
    index_t below = 0, inexact = 0;
    for (index_t i = 0; i < 3000; ++i) {
      double best;
      const index_t l = naive_nearest(y.data() + i * d, centers.data(), c, d, &best);
      below += q.d2[i] < best * (1 - tol<T>());
      inexact += q.labels[i] != l;
      CHECK(q.d2[i] == doctest::Approx(naive_d2(y.data() + i * d,
                                                centers.data() + q.labels[i] * d, d))
                           .epsilon(1e-12));
    }
    CHECK(below == 0);
    CHECK(inexact > 0);  // these settings are too small to be exact: the check has teeth
    CHECK(q.stats.n_distance_evals.evaluation ==
          q.stats.index_distance_evals + q.stats.search_distance_evals);
  }
}

TEST_CASE("approximate assignment is thread-independent and checks its arguments") {
  const index_t n = 5000, d = 8, c = 500;
  const std::vector<float> x = gaussian<float>(n, d, 41);
  const std::vector<float> centers = gaussian<float>(c, d, 42);
  const vcgmm::DataView<float> data{x.data(), n, d, nullptr};
  vcgmm::ApproximateAssignmentParams p;
  for (const auto method : {vcgmm::ApproximateMethod::gemm, vcgmm::ApproximateMethod::graph}) {
    p.method = method;
    const Run<float> a = run(data, centers, c, p, 1);
    for (int t : {2, 3}) {
      const Run<float> b = run(data, centers, c, p, t);
      CHECK(a.labels == b.labels);
      CHECK(a.d2 == b.d2);
      CHECK(a.stats.objective == b.stats.objective);
      CHECK(a.stats.search_distance_evals == b.stats.search_distance_evals);
    }
  }
  vcgmm::ApproximateAssignmentParams bad;
  bad.n_probe = 0;
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.probe_ratio = 0.5;
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.probe_ratio = std::nan("");
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.coarse_iter = -1;
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.coarse_size = -1;
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.method = static_cast<vcgmm::ApproximateMethod>(7);
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.graph_degree = 0;
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.beam_width = 0;
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  bad = p;
  bad.n_starts = 0;
  CHECK_THROWS_AS(run(data, centers, c, bad, 1), vcgmm::InvalidArgument);
  const vcgmm::CenterGraphIndex<float> index(centers.data(), c, d, p, 1);
  const vcgmm::DataView<float> narrow{x.data(), n, d - 1, nullptr};
  std::vector<std::int32_t> labels(n);
  CHECK_THROWS_AS(index.assign(narrow, labels.data(), nullptr, 1), vcgmm::InvalidArgument);
  const vcgmm::CenterCellIndex<float> cells(centers.data(), c, d, p, 1);
  CHECK_THROWS_AS(cells.assign(narrow, labels.data(), nullptr, 1), vcgmm::InvalidArgument);
}

TEST_CASE_TEMPLATE("gemm with n_probe = all cells is the exact scan", T, float, double) {
  const index_t n = 3000, d = 12, c = 600;
  const std::vector<T> x = gaussian<T>(n, d, 51);
  const std::vector<T> centers = gaussian<T>(c, d, 52);
  std::vector<double> w = positive_weights(n, 53);
  for (index_t i = 0; i < n; i += 7) w[i] = 0.0;  // zero weights: labelled, add nothing
  const vcgmm::DataView<T> data{x.data(), n, d, w.data()};
  const Run<T> scan = exact_scan(data, centers, c);
  const std::vector<std::int32_t>& exact = scan.labels;
  const std::vector<double>& exact_d2 = scan.d2;
  const Run<T> r = run(data, centers, c, every_cell(c), 2);
  CHECK(r.labels == exact);  // gaussian centers: no ties
  CHECK(r.d2 == exact_d2);   // the same exact double distances
  double objective = 0.0;
  for (index_t i = 0; i < n; ++i) objective += w[i] * exact_d2[i];
  CHECK(r.stats.objective == doctest::Approx(objective).epsilon(1e-12));
  // The default (n_probe < cells) is approximate but close, and cheaper.
  const Run<T> q = run(data, centers, c, vcgmm::ApproximateAssignmentParams{}, 2);
  index_t same = 0;
  for (index_t i = 0; i < n; ++i) {
    same += q.labels[i] == exact[i];
    CHECK(q.d2[i] >= exact_d2[i]);
  }
  CHECK(same >= n * 8 / 10);
  CHECK(q.stats.search_distance_evals < n * c);
}

TEST_CASE_TEMPLATE("gemm with all cells probed: ties and near-ties across cells as the exact scan",
                   T, float, double) {
  // Lattice points far from the origin: many centers of different cells at
  // exactly the same distance (ties: the lowest index), and copies nudged by
  // 2^-12 whose distances differ by less than the float expansion rounds.
  const index_t n = 4000, d = 5, base = 300;
  std::mt19937_64 rng(71);
  std::uniform_int_distribution<int> level(0, 5);
  const auto lattice = [&](index_t rows) {
    std::vector<T> v(rows * d);
    for (T& e : v) e = static_cast<T>(1000 + level(rng));
    return v;
  };
  const std::vector<T> x = lattice(n);
  std::vector<T> centers = lattice(base);
  for (index_t k = 0; k < base; ++k) {  // the nudged copies
    for (index_t j = 0; j < d; ++j) {
      centers.push_back(centers[k * d + j] + (j == k % d ? T(1) / T(4096) : T(0)));
    }
  }
  const index_t c = 2 * base;
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  const Run<T> exact = exact_scan(data, centers, c);
  vcgmm::ApproximateAssignmentParams all = every_cell(c);
  all.screen_dims = 0;
  const Run<T> r = run(data, centers, c, all, 2);
  CHECK(r.labels == exact.labels);
  CHECK(r.d2 == exact.d2);
}

TEST_CASE("the cell index: cells, candidate lists, duplicates") {
  const index_t c = 500, d = 6;
  std::vector<double> centers = gaussian<double>(c, d, 61);
  // centers 400..409 copy centers 10..19: the copies never enter the index
  for (index_t k = 0; k < 10; ++k) {
    std::copy(centers.begin() + (10 + k) * d, centers.begin() + (11 + k) * d,
              centers.begin() + (400 + k) * d);
  }
  vcgmm::ApproximateAssignmentParams p;
  const vcgmm::CenterCellIndex<double> index(centers.data(), c, d, p, 2);
  const auto& ids = index.distinct_ids();
  REQUIRE(static_cast<index_t>(ids.size()) == c - 10);
  CHECK(std::find(ids.begin(), ids.end(), 405) == ids.end());
  const index_t m = index.n_cells();
  CHECK(m >= 2);
  CHECK(m <= 23);  // at most ceil(sqrt(490)), minus the empty cells dropped
  const auto& coarse = index.coarse_centers();
  std::vector<index_t> members(m, 0);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    // cell = the nearest coarse center
    double best;
    const index_t a = naive_nearest(centers.data() + ids[k] * d, coarse.data(), m, d, &best);
    CHECK(index.cell_of()[k] == a);
    ++members[a];
  }
  index_t total = 0;
  for (index_t a = 0; a < m; ++a) {
    CHECK(members[a] >= 1);  // empty cells are dropped
    const index_t o = index.member_offsets()[a], e = index.member_offsets()[a + 1];
    CHECK(e - o == members[a]);
    CHECK(std::is_sorted(index.members().begin() + o, index.members().begin() + e));
    for (index_t k = o; k < e; ++k) CHECK(index.cell_of()[index.members()[k]] == a);
    total += e - o;
  }
  CHECK(total == c - 10);
  // A point on a copied center is labelled with the lowest index (ties).
  const vcgmm::DataView<double> on{centers.data() + 405 * d, 1, d, nullptr};
  std::int32_t label = -1;
  double d2 = -1;
  index.assign(on, &label, &d2, 1);
  CHECK(label == 15);
  CHECK(d2 == 0.0);
}

TEST_CASE("the cell index splits cells far above the mean size") {
  // 128 well-separated groups of 16 centers: Lloyd over the centers leaves a
  // few coarse centers between groups, whose cells hold most centers.
  const index_t groups = 128, per = 16, d = 32, c = groups * per;
  const std::vector<double> at = gaussian<double>(groups, d, 71, 100.0);
  const std::vector<double> spread = gaussian<double>(c, d, 72);
  std::vector<float> centers(static_cast<std::size_t>(c * d));
  for (index_t i = 0; i < c; ++i) {
    for (index_t j = 0; j < d; ++j) {
      centers[i * d + j] = static_cast<float>(at[(i / per) * d + j] + spread[i * d + j]);
    }
  }
  vcgmm::ApproximateAssignmentParams p;
  p.screen_dims = 0;
  const vcgmm::CenterCellIndex<float> index(centers.data(), c, d, p, 2);
  const index_t m0 = 46;  // ceil(sqrt(2048))
  const index_t mean_cell = (c + m0 - 1) / m0;
  const index_t m = index.n_cells();
  CHECK(m >= m0 - 1);
  index_t largest = 0;
  for (index_t a = 0; a < m; ++a) {
    largest = std::max(largest, index.member_offsets()[a + 1] - index.member_offsets()[a]);
  }
  CHECK(largest <= 3 * mean_cell);
  // The same cells on 1 thread.
  const vcgmm::CenterCellIndex<float> one(centers.data(), c, d, p, 1);
  CHECK(one.coarse_centers() == index.coarse_centers());
  CHECK(one.cell_of() == index.cell_of());
  // Still every center's cell is its nearest coarse center.
  for (index_t k = 0; k < c; ++k) {
    double best;
    CHECK(index.cell_of()[k] ==
          naive_nearest(centers.data() + k * d, index.coarse_centers().data(), m, d, &best));
  }
  // Points on the centers: labelled exactly, at about sqrt(C) (1 + probes)
  // evaluations per point, not a large cell's size per probe.
  std::vector<std::int32_t> labels(c);
  std::vector<double> d2(c);
  const vcgmm::ApproximateAssignmentStats st =
      index.assign(vcgmm::DataView<float>{centers.data(), c, d, nullptr}, labels.data(),
                   d2.data(), 2);
  for (index_t k = 0; k < c; ++k) CHECK(labels[k] == k);
  CHECK(st.search_distance_evals <= c * (m + 12 * 3 * mean_cell));
}

namespace {

/// Rows with a decaying spectrum (like image patches): z A + noise, z ~ N(0,
/// I_r) scaled 1/(1 + a), plus `offset` added to every coordinate.
template <typename T>
std::vector<T> low_rank(index_t n, index_t d, index_t r, std::uint64_t seed, double offset = 0.0) {
  const std::vector<double> a = gaussian<double>(r, d, seed);
  const std::vector<double> z = gaussian<double>(n, r, seed + 1);
  const std::vector<double> e = gaussian<double>(n, d, seed + 2, 0.05);
  std::vector<T> x(static_cast<size_t>(n * d));
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < d; ++j) {
      double v = offset + e[i * d + j];
      for (index_t q = 0; q < r; ++q) v += z[i * r + q] / (1.0 + q) * a[q * d + j];
      x[i * d + j] = static_cast<T>(v);
    }
  }
  return x;
}

}  // namespace

TEST_CASE_TEMPLATE("subspace screening: all cells probed is the exact scan, also far from 0", T,
                   float, double) {
  const index_t n = 2500, d = 40, c = 500;
  for (const double offset : {0.0, 1000.0}) {
    const std::vector<T> x = low_rank<T>(n, d, 12, 71, offset);
    const std::vector<T> centers = low_rank<T>(c, d, 12, 74, offset);
    const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
    const Run<T> exact = exact_scan(data, centers, c);
    for (const index_t dims : {index_t(-1), index_t(4), index_t(8), index_t(20)}) {
      CAPTURE(offset);
      CAPTURE(dims);
      vcgmm::ApproximateAssignmentParams all = every_cell(c);
      all.screen_dims = dims;
      const vcgmm::CenterCellIndex<T> index(centers.data(), c, d, all, 2);
      CHECK(index.screen_dims() == (dims < 0 ? 8 : dims));  // 12 axes, decaying: 8 hold 97%
      const Run<T> r = run(data, centers, c, all, 2);
      CHECK(r.labels == exact.labels);
      CHECK(r.d2 == exact.d2);  // the same exact double distances
      // Subspace bounds cost dims / d of an evaluation: below n C even here.
      CHECK(r.stats.search_distance_evals < n * c);
    }
  }
}

TEST_CASE_TEMPLATE("subspace screening: the exact nearest of the probed cell, ties lowest", T, float,
                   double) {
  // n_probe = 1: a point probes one cell, the label's; the label must be the
  // nearest member of that cell (brute force), ties to the lowest index.
  const index_t n = 3000, d = 32, c = 800;
  std::vector<T> centers = low_rank<T>(c, d, 10, 81);
  // centers 700..709 copy 600..609: the copies never win (lowest index)
  for (index_t k = 0; k < 10; ++k) {
    for (index_t j = 0; j < d; ++j) {
      centers[(700 + k) * d + j] = centers[(600 + k) * d + j];  // duplicates: lowest index
    }
  }
  std::vector<T> x = low_rank<T>(n, d, 10, 84);
  for (index_t k = 0; k < 10; ++k) {  // points exactly on the duplicated centers
    std::copy(centers.begin() + (600 + k) * d, centers.begin() + (601 + k) * d, x.begin() + k * d);
  }
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  vcgmm::ApproximateAssignmentParams one;
  one.n_probe = 1;
  const vcgmm::CenterCellIndex<T> index(centers.data(), c, d, one, 2);
  REQUIRE(index.screen_dims() > 0);
  std::vector<std::int32_t> labels(n);
  std::vector<double> d2(n);
  index.assign(data, labels.data(), d2.data(), 2);
  const auto& ids = index.distinct_ids();
  std::vector<index_t> slot(c, -1);  // original index -> distinct index
  for (std::size_t k = 0; k < ids.size(); ++k) slot[ids[k]] = static_cast<index_t>(k);
  for (index_t i = 0; i < n; ++i) {
    REQUIRE(slot[labels[i]] >= 0);
    const index_t a = index.cell_of()[slot[labels[i]]];
    double best = std::numeric_limits<double>::infinity();
    std::int32_t want = -1;
    for (index_t e = index.member_offsets()[a]; e < index.member_offsets()[a + 1]; ++e) {
      const std::int32_t id = ids[index.members()[e]];
      const double v = naive_d2(x.data() + i * d, centers.data() + id * d, d);
      if (v < best || (v == best && id < want)) {
        best = v;
        want = id;
      }
    }
    CHECK(labels[i] == want);
    CHECK(d2[i] == doctest::Approx(best).epsilon(tol<T>()));
  }
  for (index_t k = 0; k < 10; ++k) {
    CHECK(labels[k] == 600 + k);
    CHECK(d2[k] == 0.0);
  }
}

TEST_CASE("subspace screening: thread-independent, automatic choice, cheaper, checked") {
  // Clustered data (every point near a center; the centers spread along a
  // few axes), where screening pays. (Points as far from every center as the
  // centers are from each other, like low_rank() points against low_rank()
  // centers, make most probed centers survive: measured 10-20% slower there.)
  const index_t n = 5000, d = 48, c = 1000;
  const std::vector<float> centers = low_rank<float>(c, d, 16, 94);
  std::vector<float> x = gaussian<float>(n, d, 91, 0.05);
  {
    TestRng rng(92);
    for (index_t i = 0; i < n; ++i) {
      const index_t b = rng.below(c);
      for (index_t j = 0; j < d; ++j) x[i * d + j] += centers[b * d + j];
    }
  }
  const vcgmm::DataView<float> data{x.data(), n, d, nullptr};
  vcgmm::ApproximateAssignmentParams p;  // defaults: automatic screening
  const Run<float> one = run(data, centers, c, p, 1);
  for (const int threads : {2, 3}) {
    const Run<float> more = run(data, centers, c, p, threads);
    CHECK(more.labels == one.labels);
    CHECK(bitwise_equal(more.d2, one.d2));
    CHECK(more.stats.search_distance_evals == one.stats.search_distance_evals);
    CHECK(bitwise_equal(more.stats.objective, one.stats.objective));
  }
  vcgmm::ApproximateAssignmentParams off = p;
  off.screen_dims = 0;
  const vcgmm::CenterCellIndex<float> screened(centers.data(), c, d, p, 2);
  const vcgmm::CenterCellIndex<float> unscreened(centers.data(), c, d, off, 2);
  CHECK(screened.screen_dims() % 8 == 0);
  CHECK(screened.screen_dims() > 0);
  CHECK(screened.screen_dims() <= d / 2);
  CHECK(unscreened.screen_dims() == 0);
  const Run<float> plain = run(data, centers, c, off, 2);
  CHECK(one.stats.search_distance_evals < plain.stats.search_distance_evals / 2);
  // Isotropic centers: no subspace holds 97% of their variance: off.
  const std::vector<float> iso = gaussian<float>(c, d, 97);
  const vcgmm::CenterCellIndex<float> flat(iso.data(), c, d, p, 2);
  CHECK(flat.screen_dims() == 0);
  // Fewer than 16 features: off.
  const std::vector<float> narrow = low_rank<float>(c, 12, 3, 98);
  CHECK(vcgmm::CenterCellIndex<float>(narrow.data(), c, 12, p, 1).screen_dims() == 0);
  // A non-finite row (the C++ API does not check the data): some real
  // center, no crash, the other rows unchanged.
  std::vector<float> nan_x = x;  // (a copy)
  nan_x[7 * d + 3] = std::numeric_limits<float>::quiet_NaN();
  const vcgmm::DataView<float> nan_data{nan_x.data(), n, d, nullptr};
  const Run<float> with_nan = run(nan_data, centers, c, p, 2);
  CHECK(with_nan.labels[7] >= 0);
  CHECK(with_nan.labels[7] < c);
  for (index_t i = 0; i < n; ++i) {
    if (i != 7) CHECK(with_nan.labels[i] == one.labels[i]);
  }
  vcgmm::ApproximateAssignmentParams bad = p;
  bad.screen_dims = -2;
  CHECK_THROWS_AS(vcgmm::CenterCellIndex<float>(centers.data(), c, d, bad, 1),
                  vcgmm::InvalidArgument);
}
