// detail::HugePageAllocator (cpp/src/detail/huge_pages.hpp): the allocator of
// the variational loop's (C, D) arrays. Whether the kernel grants huge pages
// depends on the machine (THP mode, free memory), so what is checked is what
// the code promises everywhere: blocks of >= 2 MB are 2 MB-aligned, smaller
// ones 64-byte aligned, every byte is usable, and containers using it hold
// the same values as with std::allocator.
#include <doctest.h>

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "detail/huge_pages.hpp"

using vcgmm::detail::HugePageAllocator;
using vcgmm::detail::kHugePageBytes;

namespace {

bool aligned_to(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

}  // namespace

TEST_CASE("huge page allocator: alignment by block size, every element usable") {
  HugePageAllocator<double> alloc;
  const std::size_t per_page = kHugePageBytes / sizeof(double);
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, per_page - 1, per_page,
                              per_page + 1, 3 * per_page + 17}) {
    CAPTURE(n);
    double* p = alloc.allocate(n);
    REQUIRE(p != nullptr);
    CHECK(aligned_to(p, n * sizeof(double) >= kHugePageBytes ? kHugePageBytes : 64));
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<double>(i) * 0.5;
    bool same = true;
    for (std::size_t i = 0; i < n; ++i) same &= p[i] == static_cast<double>(i) * 0.5;
    CHECK(same);
    alloc.deallocate(p, n);
  }
}

TEST_CASE("huge page allocator: a vector holds what std::vector holds") {
  const std::size_t n = 3 * kHugePageBytes / sizeof(float) + 5;  // a large block
  std::vector<float, HugePageAllocator<float>> big(n, 1.5f);
  std::vector<float> ref(n, 1.5f);
  for (std::size_t i = 0; i < n; i += 4097) {
    big[i] = static_cast<float>(i);
    ref[i] = static_cast<float>(i);
  }
  big.resize(n + 1000, 2.0f);  // reallocation copies into a new block
  ref.resize(n + 1000, 2.0f);
  CHECK(std::equal(big.begin(), big.end(), ref.begin(), ref.end()));
  std::vector<float, HugePageAllocator<float>> copy(big);
  CHECK(std::equal(copy.begin(), copy.end(), ref.begin(), ref.end()));
  CHECK(HugePageAllocator<float>() == HugePageAllocator<double>());
}
