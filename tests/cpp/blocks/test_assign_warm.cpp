// detail::assign_nearest_from (cpp/src/detail/assign.hpp), the exact
// assignment warm-started from labels that pipelines' evaluations use: where
// it runs, its labels, squared distances, objective and change count are
// those of assign_nearest bit for bit, whatever the start labels (good,
// stale, random), with exact ties, duplicate centers, weights, in place
// (labels = start), and on 1, 2 and 3 threads.
#include <doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "detail/assign.hpp"
#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

// n points around `blobs` blob centers spread `spread` apart (std 1), and C
// centers: the blob centers plus small offsets, several per blob.
template <typename T>
void clustered(index_t n, index_t d, index_t blobs, index_t C, double spread, std::uint64_t seed,
               std::vector<T>* x, std::vector<T>* centers) {
  const std::vector<T> means = gaussian<T>(blobs, d, seed, spread);
  const std::vector<T> noise = gaussian<T>(n, d, seed + 1);
  const std::vector<T> offsets = gaussian<T>(C, d, seed + 2, 0.3);
  x->resize(n * d);
  centers->resize(C * d);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < d; ++j) (*x)[i * d + j] = means[(i % blobs) * d + j] + noise[i * d + j];
  }
  for (index_t c = 0; c < C; ++c) {
    for (index_t j = 0; j < d; ++j) {
      (*centers)[c * d + j] = means[(c % blobs) * d + j] + offsets[c * d + j];
    }
  }
}

template <typename T>
void require_same_as_scan(const vcgmm::DataView<T>& data, const std::vector<T>& centers,
                          index_t C, const std::vector<std::int32_t>& start, bool expect_warm,
                          double max_cost = -1.0) {
  std::vector<std::int32_t> ref_labels(data.n, 7), labels(data.n, 7);
  std::vector<double> ref_d2(data.n), d2(data.n);
  const vcgmm::AssignmentStats ref = vcgmm::detail::assign_nearest(
      data, centers.data(), C, ref_labels.data(), ref_d2.data(), 2);
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    std::fill(labels.begin(), labels.end(), 7);
    vcgmm::AssignmentStats stats;
    std::int64_t evals = 0;
    const bool warm = vcgmm::detail::assign_nearest_from(data, centers.data(), C, start.data(),
                                                         labels.data(), d2.data(), threads,
                                                         &stats, &evals, max_cost);
    REQUIRE(warm == expect_warm);
    if (!warm) {  // nothing written
      CHECK(std::count(labels.begin(), labels.end(), 7) == data.n);
      continue;
    }
    CHECK(labels == ref_labels);
    CHECK(std::memcmp(d2.data(), ref_d2.data(), sizeof(double) * data.n) == 0);
    CHECK(bitwise_equal(stats.objective, ref.objective));
    CHECK(stats.n_changed == ref.n_changed);
    CHECK(evals > 0);
    CHECK(evals < data.n * C);
    // In place, as Lloyd's loop calls it: labels is the start, and the change
    // count is taken against it.
    std::vector<std::int32_t> in_place = start;
    REQUIRE(vcgmm::detail::assign_nearest_from(data, centers.data(), C, in_place.data(),
                                               in_place.data(), nullptr, threads, &stats,
                                               &evals, max_cost));
    CHECK(in_place == ref_labels);
    index_t changed = 0;
    for (index_t i = 0; i < data.n; ++i) changed += start[i] != ref_labels[i];
    CHECK(stats.n_changed == changed);
    CHECK(bitwise_equal(stats.objective, ref.objective));
  }
}

}  // namespace

TEST_CASE_TEMPLATE("assign_nearest_from equals assign_nearest bit for bit", T, float, double) {
  for (index_t d : {5, 37}) {
    for (bool weighted : {false, true}) {
      CAPTURE(d);
      CAPTURE(weighted);
      const index_t n = 6000, blobs = 40, C = 120;
      std::vector<T> x, centers;
      clustered<T>(n, d, blobs, C, 20.0, 300 + d, &x, &centers);
      const std::vector<double> w = positive_weights(n, 17);
      const vcgmm::DataView<T> data{x.data(), n, d, weighted ? w.data() : nullptr};
      std::vector<std::int32_t> nearest(n);
      vcgmm::detail::assign_nearest(data, centers.data(), C, nearest.data(), nullptr, 1);

      SUBCASE("start at the nearest centers") { require_same_as_scan(data, centers, C, nearest, true); }
      SUBCASE("stale starts: the nearest of moved centers, some of them random") {
        std::vector<T> moved = centers;
        const std::vector<T> shift = gaussian<T>(C, d, 5, 0.5);
        for (std::size_t k = 0; k < moved.size(); ++k) moved[k] += shift[k];
        std::vector<std::int32_t> start(n);
        vcgmm::detail::assign_nearest(data, moved.data(), C, start.data(), nullptr, 1);
        std::mt19937_64 rng(9);
        for (index_t i = 0; i < n; i += 50) start[i] = static_cast<std::int32_t>(rng() % C);
        require_same_as_scan(data, centers, C, start, true);
      }
      SUBCASE("exact ties: duplicate centers, points on centers") {
        // Center c + 60 duplicates c for c < 10 (the lower index must win), and
        // every 97th point sits on a center.
        for (index_t c = 0; c < 10; ++c) {
          std::copy_n(&centers[c * d], d, &centers[(c + 60) * d]);
        }
        for (index_t i = 0; i < n; i += 97) std::copy_n(&centers[(i % C) * d], d, &x[i * d]);
        std::vector<std::int32_t> start(n);
        // starts at the higher duplicate where there is one
        vcgmm::detail::assign_nearest(data, centers.data(), C, start.data(), nullptr, 1);
        for (std::int32_t& s : start) {
          if (s < 10) s += 60;
        }
        require_same_as_scan(data, centers, C, start, true);
      }
    }
  }
}

TEST_CASE("assign_nearest_from: lists trimmed to the nearest centers, the rest scanned") {
  // C = 400 and n / C = 10: each list keeps its 64 nearest centers (trimmed
  // while the candidates come in), and a random start's reach covers all C.
  const index_t n = 4000, d = 6, C = 400;
  std::vector<double> x, centers;
  clustered<double>(n, d, 100, C, 20.0, 77, &x, &centers);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  std::vector<std::int32_t> start(n);
  vcgmm::detail::assign_nearest(data, centers.data(), C, start.data(), nullptr, 1);
  std::mt19937_64 rng(3);
  for (index_t i = 0; i < n; i += 40) start[i] = static_cast<std::int32_t>(rng() % C);
  require_same_as_scan(data, centers, C, start, true);
}

TEST_CASE("assign_nearest_from declines where its bounds would not pay") {
  const index_t d = 8;
  std::vector<float> x, centers;
  SUBCASE("too few points per center") {
    clustered<float>(400, d, 20, 100, 20.0, 1, &x, &centers);
    const vcgmm::DataView<float> data{x.data(), 400, d, nullptr};
    require_same_as_scan(data, centers, 100, std::vector<std::int32_t>(400, 0), false);
  }
  SUBCASE("one cluster of noise: every start radius covers every center") {
    x = gaussian<float>(4000, d, 2);
    centers = gaussian<float>(100, d, 3);
    const vcgmm::DataView<float> data{x.data(), 4000, d, nullptr};
    std::vector<std::int32_t> start(4000);
    vcgmm::detail::assign_nearest(data, centers.data(), 100, start.data(), nullptr, 1);
    require_same_as_scan(data, centers, 100, start, false);
  }
  SUBCASE("budgets: the scan's n C; below the pairs' C^2 + the walks, or C^2 alone") {
    // four centers per blob: every point walks its blob's other three
    clustered<float>(4000, d, 25, 100, 20.0, 5, &x, &centers);
    const vcgmm::DataView<float> data{x.data(), 4000, d, nullptr};
    std::vector<std::int32_t> start(4000);
    vcgmm::detail::assign_nearest(data, centers.data(), 100, start.data(), nullptr, 1);
    require_same_as_scan(data, centers, 100, start, true);
    require_same_as_scan(data, centers, 100, start, true, 4000.0 * 100);
    require_same_as_scan(data, centers, 100, start, false, 100.0 * 100 + 1);  // the walks'
    require_same_as_scan(data, centers, 100, start, false, 100.0 * 100 - 1);  // the pairs'
  }
}

TEST_CASE("assign_nearest_from: a cluster's farthest point is covered by its list") {
  // Well-separated blobs of 4 centers each, started at the nearest centers:
  // every list holds its blob's 3 other centers and every point's walk ends
  // inside the list, the farthest point of each cluster too (its bound b
  // equals the list's reach), so no point is scanned: the evaluations are
  // the start distances, the pairs, the lists and at most 3 per walk,
  // fewer than one scan of C would add.
  const index_t n = 4096, d = 16, blobs = 32, C = 128;
  std::vector<float> x, centers;
  clustered<float>(n, d, blobs, C, 100.0, 41, &x, &centers);
  const vcgmm::DataView<float> data{x.data(), n, d, nullptr};
  std::vector<std::int32_t> start(n);
  vcgmm::detail::assign_nearest(data, centers.data(), C, start.data(), nullptr, 1);
  require_same_as_scan(data, centers, C, start, true);
  std::vector<std::int32_t> labels(n);
  vcgmm::AssignmentStats stats;
  std::int64_t evals = 0;
  REQUIRE(vcgmm::detail::assign_nearest_from(data, centers.data(), C, start.data(), labels.data(),
                                             nullptr, 2, &stats, &evals));
  const index_t per_blob = C / blobs;
  CHECK(evals >= n + C * C + C * (per_blob - 1));
  CHECK(evals < n + C * C + (C + n) * (per_blob - 1) + C);
}

TEST_CASE_TEMPLATE("assign_nearest_from: lists kept from the last call", T, float, double) {
  // Blobs of 4 centers; between calls every center moves a little and a few
  // jump to other blobs (as split-merge moves and empty clusters do). The
  // second call keeps most rows' lists, builds the jumped centers' rows and
  // measures them against the kept rows: the scan's result bit for bit, for
  // fewer center pairs than C^2.
  const index_t n = 8192, d = 16, blobs = 64, C = 256;
  std::vector<T> x, centers;
  clustered<T>(n, d, blobs, C, 50.0, 91, &x, &centers);
  const vcgmm::DataView<T> data{x.data(), n, d, nullptr};
  std::vector<std::int32_t> start(n), labels(n);
  vcgmm::detail::assign_nearest(data, centers.data(), C, start.data(), nullptr, 1);
  vcgmm::detail::WarmLists<T> lists;
  vcgmm::AssignmentStats stats;
  std::int64_t first = 0;
  REQUIRE(vcgmm::detail::assign_nearest_from(data, centers.data(), C, start.data(), labels.data(),
                                             nullptr, 2, &stats, &first, -1.0, &lists));
  REQUIRE(static_cast<index_t>(lists.near.size()) == C);
  std::vector<T> moved = centers;
  const std::vector<T> shift = gaussian<T>(C, d, 92, 0.02);
  for (std::size_t k = 0; k < moved.size(); ++k) moved[k] += shift[k];
  for (index_t c : {3, 77, 200}) {  // to another blob's center
    std::copy_n(&centers[((c + 5) % C) * d], d, &moved[c * d]);
  }
  std::vector<std::int32_t> ref(n);
  std::vector<double> ref_d2(n), d2(n);
  const vcgmm::AssignmentStats want =
      vcgmm::detail::assign_nearest(data, moved.data(), C, ref.data(), ref_d2.data(), 2);
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    vcgmm::detail::WarmLists<T> copy = lists;
    std::int64_t evals = 0;
    REQUIRE(vcgmm::detail::assign_nearest_from(data, moved.data(), C, labels.data(), start.data(),
                                               d2.data(), threads, &stats, &evals, -1.0, &copy));
    CHECK(start == ref);
    CHECK(std::memcmp(d2.data(), ref_d2.data(), sizeof(double) * n) == 0);
    CHECK(bitwise_equal(stats.objective, want.objective));
    CHECK(evals < first - C * C / 2);  // most rows kept
    CHECK(copy.centers == moved);
    // The lists left cover what they claim: every center not listed lies
    // at least `covered` away.
    for (index_t a = 0; a < C; ++a) {
      std::vector<char> listed(C, 0);
      for (const vcgmm::detail::WarmNear& e : copy.near[a]) listed[e.j] = 1;
      for (index_t j = 0; j < C; ++j) {
        if (j == a || listed[j]) continue;
        double s = 0.0;
        for (index_t k = 0; k < d; ++k) {
          const double v = static_cast<double>(moved[a * d + k]) - moved[j * d + k];
          s += v * v;
        }
        CHECK(std::sqrt(s) >= copy.covered[a] * (1 - 1e-9));
      }
    }
  }
}
