// The double-accumulating row kernels (cpp/src/detail/distance_kernels.hpp):
// squared_distance_in_double and dot_in_double. Checked: both agree with a
// long-double reference for float, double and mixed rows, whatever d
// (multiples of the 8 lanes and not); the sum does not depend on where the
// rows sit in memory (the same bits from every offset); and split-merge's
// one-dot-product decision (split_direction: x . (b - a) against
// (||b||^2 - ||a||^2) / 2) picks the nearer of two centers as the two
// distances do, wherever they differ by more than rounding.
#include <doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "test_helpers.hpp"
#include "vcgmm/split_merge.hpp"

using vcgmm::index_t;
using vcgmm::detail::dot_in_double;
using vcgmm::detail::squared_distance_in_double;

namespace {

template <typename A, typename B>
void check_against_long_double(index_t d, std::uint64_t seed) {
  const std::vector<A> a = vcgmm_test::gaussian<A>(1, d, seed, 3.0);
  const std::vector<B> b = vcgmm_test::gaussian<B>(1, d, seed + 1, 3.0);
  long double dist = 0.0L, dot = 0.0L, scale = 0.0L;
  for (index_t k = 0; k < d; ++k) {
    const long double x = a[k], y = b[k];
    dist += (x - y) * (x - y);
    dot += x * y;
    scale += std::fabs(x * y) + x * x + y * y;
  }
  const double tolerance = 1e-14 * static_cast<double>(scale) + 1e-300;
  CHECK(std::fabs(squared_distance_in_double(a.data(), b.data(), d) - static_cast<double>(dist)) <=
        tolerance);
  CHECK(std::fabs(dot_in_double(a.data(), b.data(), d) - static_cast<double>(dot)) <= tolerance);
}

}  // namespace

TEST_CASE("row kernels in double agree with a long-double reference") {
  for (index_t d : {1, 3, 7, 8, 9, 16, 17, 108, 128, 784}) {
    CAPTURE(d);
    check_against_long_double<float, float>(d, 11 + d);
    check_against_long_double<double, double>(d, 23 + d);
    check_against_long_double<float, double>(d, 37 + d);
  }
}

TEST_CASE_TEMPLATE("row kernels in double give the same bits at every memory offset", T, float,
                   double) {
  const index_t d = 108;  // 13 lanes' rounds and a tail of 4
  const std::vector<T> a = vcgmm_test::gaussian<T>(1, d, 5, 2.0);
  const std::vector<double> b = vcgmm_test::gaussian<double>(1, d, 6, 2.0);
  const double dist = squared_distance_in_double(a.data(), b.data(), d);
  const double dot = dot_in_double(a.data(), b.data(), d);
  // Both rows moved by 1..7 elements off their first alignment.
  std::vector<T> sa(d + 8);
  std::vector<double> sb(d + 8);
  for (index_t off = 1; off < 8; ++off) {
    CAPTURE(off);
    std::memcpy(sa.data() + off, a.data(), sizeof(T) * d);
    std::memcpy(sb.data() + (8 - off), b.data(), sizeof(double) * d);
    const double moved_dist = squared_distance_in_double(sa.data() + off, sb.data() + (8 - off), d);
    const double moved_dot = dot_in_double(sa.data() + off, sb.data() + (8 - off), d);
    CHECK(std::memcmp(&moved_dist, &dist, sizeof(double)) == 0);
    CHECK(std::memcmp(&moved_dot, &dot, sizeof(double)) == 0);
  }
}

TEST_CASE_TEMPLATE("split-merge's one dot product picks the nearer of two centers", T, float,
                   double) {
  using vcgmm::detail::split_merge_parts::SplitScratch;
  using vcgmm::detail::split_merge_parts::split_direction;
  const index_t d = 37, n = 4000;
  const std::vector<T> x = vcgmm_test::gaussian<T>(n, d, 41, 1.0);
  SplitScratch s(d);
  vcgmm_test::TestRng rng(43);
  for (index_t j = 0; j < d; ++j) {
    s.a[j] = 0.5 * rng.normal() + 2.0;  // away from the origin: the norms do not cancel
    s.b[j] = s.a[j] + 0.3 * rng.normal();
  }
  const double half_gap = split_direction(s);
  index_t to_b = 0, decided = 0;
  for (index_t i = 0; i < n; ++i) {
    const T* xi = x.data() + i * d;
    const double da = squared_distance_in_double(xi, s.a.data(), d);
    const double db = squared_distance_in_double(xi, s.b.data(), d);
    const double dot = dot_in_double(xi, s.u.data(), d);
    const bool by_dot = dot > half_gap;
    // The identity the final pass uses: ||x - b||^2 = ||x - a||^2 - 2 (x . u - half_gap).
    CHECK(std::fabs(da - 2.0 * (dot - half_gap) - db) <= 1e-12 * (da + db));
    if (std::fabs(da - db) <= 1e-12 * (da + db)) continue;  // on the bisector, up to rounding
    ++decided;
    to_b += by_dot;
    CHECK(by_dot == (db < da));
  }
  // Both sides are populated: the check above could not pass by one answer.
  CHECK(decided > n - 10);
  CHECK(to_b > n / 10);
  CHECK(to_b < n - n / 10);
}
