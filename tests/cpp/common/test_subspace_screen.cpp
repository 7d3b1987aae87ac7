// detail::SubspaceScreen (cpp/src/detail/subspace_screen.hpp), the screen of
// AFK-MC^2's chains and of the approximate assignment's cell index. Checked:
// built on 1, 2 or 3 threads it is the same screen (axes, mean and rounding
// margin: the same projections and thresholds, bit for bit); its automatic
// axes find a planted low-dimensional spread; a pair's bound never exceeds
// the threshold of its exact squared distance (the screen never rules out
// the nearest center), also when the bounds start at a later panel.
#include <doctest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/subspace_screen.hpp"

using vcgmm::index_t;
using vcgmm::detail::SubspaceScreen;

namespace {

// u rows of d features: `strong` axes with standard deviation 10 (mixed by a
// random rotation of the first 2 * strong features), the rest 0.1, offset 5.
std::vector<float> planted(index_t u, index_t d, index_t strong, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> x(static_cast<std::size_t>(u * d));
  for (index_t i = 0; i < u; ++i) {
    for (index_t j = 0; j < d; ++j) x[i * d + j] = 5.0f + normal(gen) * (j < strong ? 10.0f : 0.1f);
    for (index_t j = 0; j < strong; ++j) {  // a rotation in the (j, strong + j) planes
      const float a = x[i * d + j], b = x[i * d + strong + j];
      x[i * d + j] = 0.6f * a - 0.8f * b;
      x[i * d + strong + j] = 0.8f * a + 0.6f * b;
    }
  }
  return x;
}

}  // namespace

TEST_CASE("subspace screen: the same screen on 1, 2 and 3 threads") {
  const index_t u = 5000, d = 96;  // more rows than the axes' sample, several row blocks
  const std::vector<float> x = planted(u, d, 8, 3);
  const SubspaceScreen<float> one(x.data(), u, d, -1, 1);
  REQUIRE(one.dims() > 0);
  const index_t k = one.dims();
  std::vector<float> scratch(static_cast<std::size_t>(u * d));
  std::vector<float> p1(static_cast<std::size_t>(u * k)), pt(p1.size());
  std::vector<double> n1(static_cast<std::size_t>(u)), nt(n1.size());
  one.project(x.data(), u, scratch.data(), p1.data(), n1.data());
  for (int threads : {2, 3}) {
    const SubspaceScreen<float> other(x.data(), u, d, -1, threads);
    REQUIRE(other.dims() == k);
    other.project(x.data(), u, scratch.data(), pt.data(), nt.data());
    CHECK(std::memcmp(p1.data(), pt.data(), sizeof(float) * p1.size()) == 0);
    CHECK(std::memcmp(n1.data(), nt.data(), sizeof(double) * n1.size()) == 0);
    for (double dist : {0.0, 1.0, 37.5, 1e4}) {  // the rounding margin (radius) too
      CHECK(one.threshold(dist, n1[7]) == other.threshold(dist, nt[7]));
    }
  }
}

TEST_CASE("subspace screen: automatic axes hold a planted spread, bounds stay below thresholds") {
  const index_t u = 3000, d = 64, strong = 6;
  const std::vector<float> x = planted(u, d, strong, 11);
  const SubspaceScreen<float> screen(x.data(), u, d, -1, 2);
  const index_t k = screen.dims();
  REQUIRE(k >= strong);
  REQUIRE(k <= d / 2);
  std::vector<float> scratch(static_cast<std::size_t>(u * d)), p(static_cast<std::size_t>(u * k));
  std::vector<double> norm(static_cast<std::size_t>(u));
  screen.project(x.data(), u, scratch.data(), p.data(), norm.data());
  // The axes keep nearly all of the spread about the mean (the planted axes
  // hold 6 * 100 of the 6 * 100 + 58 * 0.01 per row).
  double kept = 0.0, total = 0.0;
  for (index_t i = 0; i < u; ++i) {
    for (index_t a = 0; a < k; ++a) kept += static_cast<double>(p[i * k + a]) * p[i * k + a];
    total += norm[i] * norm[i];
  }
  CHECK(kept >= 0.99 * total);
  CHECK(kept <= total);
  // A pair's bound (the packed kernel, from row i to every row) is at most
  // the threshold of its exact squared distance.
  std::vector<float> packed, bound;
  const index_t w = screen.pack(p.data(), nullptr, u, packed);
  bound.resize(static_cast<std::size_t>(w));
  for (index_t i = 0; i < u; i += 97) {
    screen.bounds(packed.data(), w, &p[i * k], bound.data());
    for (index_t j = 0; j < u; j += 7) {
      const double exact = vcgmm::detail::squared_distance_exact(&x[i * d], &x[j * d], d);
      CHECK(bound[j] <= screen.threshold(exact, norm[i]));
    }
    // From a later panel on (as AFK-MC^2's rounds ask): the same bounds there.
    std::vector<float> tail(bound.size(), -1.0f);
    screen.bounds(packed.data(), w, &p[i * k], tail.data(), u / 2);
    for (index_t j = u / 2; j < u; ++j) CHECK(tail[j] == bound[j]);
  }
}
