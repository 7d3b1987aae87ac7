// vcgmm::count_outside (cpp/src/blocks/data_check.cpp): the value check
// behind the Python layer's finiteness and magnitude test, against a plain
// loop: NaN and infinities count, the limit itself is inside, several tasks
// (chunks of 65,536 values) and thread counts give the same count.
#include <doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "vcgmm/common.hpp"

namespace {

template <typename T>
vcgmm::index_t reference(const std::vector<T>& x, double limit) {
  vcgmm::index_t count = 0;
  for (const T v : x) count += !(std::fabs(static_cast<double>(v)) <= limit);
  return count;
}

}  // namespace

TEST_CASE_TEMPLATE("count_outside: NaN, infinities and values past the limit", T, float, double) {
  const vcgmm::index_t n = 200003;  // four tasks, the last partial
  std::vector<T> x(n);
  for (vcgmm::index_t i = 0; i < n; ++i) x[i] = static_cast<T>(std::sin(0.001 * i) * 3.0);
  CHECK(vcgmm::count_outside(x.data(), n, 3.0, 2) == 0);
  x[0] = std::numeric_limits<T>::quiet_NaN();
  x[70000] = std::numeric_limits<T>::infinity();
  x[140000] = -std::numeric_limits<T>::infinity();
  x[199999] = T(4);
  x[5] = T(-3);  // exactly at the limit: inside
  for (const int threads : {1, 2, 3}) {
    CHECK(vcgmm::count_outside(x.data(), n, 3.0, threads) == 4);
  }
  CHECK(vcgmm::count_outside(x.data(), n, 2.0, 2) == reference(x, 2.0));
  CHECK(vcgmm::count_outside(x.data(), n, 0.5, 1) == reference(x, 0.5));
  CHECK(vcgmm::count_outside(x.data(), 0, 1.0, 2) == 0);
}

TEST_CASE("count_outside: a float limit between two floats is rounded down") {
  // 1 + 2^-30 is not a float: the value 1 + 2^-23 (next float above 1)
  // exceeds it and must count.
  const std::vector<float> x = {1.0f, std::nextafter(1.0f, 2.0f)};
  CHECK(vcgmm::count_outside(x.data(), 2, 1.0 + std::ldexp(1.0, -30), 1) == 1);
}
