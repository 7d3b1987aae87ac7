// Large work arrays on transparent huge pages (Linux), for random access
// over C x D at large C.
//
// The E-step reads the rows of each point's ~20 candidate means, scattered
// over the whole (C, D) array, and the M-step adds into a (C, D) double
// accumulator the same way. At C = 65,536 and D = 108 those arrays are 28 MB
// and 56 MB: with 4 KB pages almost every such access misses the TLB (a few
// thousand entries reach ~8 MB). With 2 MB pages they reach the whole array.
//
// HugePageAllocator gives blocks of at least kHugePageBytes 2 MB-aligned and
// advises the kernel (madvise MADV_HUGEPAGE) before the first touch, so the
// pages are huge from the start where the system allows it
// (/sys/kernel/mm/transparent_hugepage/enabled "always" or "madvise"; with
// "never" the advice is ignored and nothing changes). Smaller blocks are
// ordinary 64-byte aligned ones. The advice changes no value: results are
// identical with and without it.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace vcgmm {
namespace detail {

/// Size (and alignment) of a transparent huge page on x86-64 and arm64 Linux;
/// blocks of at least this many bytes ask for huge pages.
constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Marks [p, p + bytes) (p 2 MB-aligned) for transparent huge pages; advice
/// only, so a refusal (old kernel, THP disabled) is ignored.
inline void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  (void)madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/// std::allocator replacement for the (C, D) arrays of the variational loop.
template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() noexcept = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: rebind

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) {
      return static_cast<T*>(::operator new(bytes, std::align_val_t{64}));
    }
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (p == nullptr) throw std::bad_alloc();
    advise_huge_pages(p, rounded);
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePageBytes) {
      ::operator delete(p, std::align_val_t{64});
    } else {
      std::free(p);
    }
  }
};

template <typename T, typename U>
bool operator==(const HugePageAllocator<T>&, const HugePageAllocator<U>&) noexcept {
  return true;
}
template <typename T, typename U>
bool operator!=(const HugePageAllocator<T>&, const HugePageAllocator<U>&) noexcept {
  return false;
}

}  // namespace detail
}  // namespace vcgmm
