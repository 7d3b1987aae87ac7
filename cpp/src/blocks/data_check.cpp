// count_outside(): the one-pass value check behind the Python layer's
// finiteness and magnitude test (see vcgmm/common.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "detail/parallel.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {

template <typename T>
index_t count_outside(const T* x, index_t n, double limit, int n_threads) {
  if (n <= 0) return 0;
  constexpr index_t kChunk = index_t(1) << 16;  // values per task
  const index_t n_tasks = detail::n_chunks(n, kChunk);
  std::vector<index_t> outside(n_tasks, 0);
  // The limit in T, rounded down: |v| <= bound in T implies |v| <= limit.
  T bound = static_cast<T>(limit);
  if (static_cast<double>(bound) > limit) bound = std::nextafter(bound, T(0));
  detail::parallel_for(n_tasks, n_threads, [&](index_t task) {
    const index_t i0 = task * kChunk;
    const index_t i1 = std::min(n, i0 + kChunk);
    index_t count = 0;
    for (index_t i = i0; i < i1; ++i) count += !(std::abs(x[i]) <= bound);  // NaN: outside
    outside[task] = count;
  }, static_cast<double>(kChunk));
  index_t total = 0;
  for (const index_t c : outside) total += c;
  return total;
}

template index_t count_outside<float>(const float*, index_t, double, int);
template index_t count_outside<double>(const double*, index_t, double, int);

}  // namespace vcgmm
