// Internal: the random number generator and its stream discipline.
//
// xoshiro256** (Blackman & Vigna) seeded through SplitMix64. Every random
// decision is drawn from a stream keyed by (seed, purpose, index), where the
// index is a data chunk or an iteration, never a thread id: the draws, and so
// the results, do not depend on the number of threads. We do not use the
// <random> distributions because their output differs between standard
// libraries; the conversions below are exact and portable.
#pragma once

#include <cstdint>

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

namespace vcgmm {
namespace detail {

/// Finalizer of SplitMix64: a bijective 64-bit mixing function.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Purposes of random streams; part of the stream key so that two uses of the
/// same seed never share draws.
enum class Stream : std::uint64_t {
  coreset = 1,
  kmeans_plusplus = 2,
  afkmc2 = 3,
  lloyd = 4,
  variational_init = 5,
  variational_plus1 = 6,
  variational_neighbourhood = 7,
  shuffle = 8,        ///< random permutations: "random" seeding, nmbatch's order
  mbatch = 9,         ///< mbatch's batches (index: the iteration)
  vrkm = 10,          ///< VRKM's inner-loop draws (index: the epoch)
  seeding_sample = 11,  ///< the rows mbatch seeds on
  yinyang = 12,       ///< nmbatch's grouping of the centers (Yinyang bounds)
  coreset_split = 13,  ///< chunked coreset: the split of the draws over the chunks
  coreset_chunk = 14,  ///< chunked coreset: the draws of one chunk (index = chunk id)
  mbatch_reassign = 15,  ///< mbatch: rows that take over rarely updated centers (index: the iteration)
  mbatch_chunk = 16,  ///< streaming mbatch: the chunk a batch draws from (index: the iteration)
  // Kernel k-means (kernel_kmeans/kernel_kmeans.cpp); numbered apart from the other families.
  kernel_gamma = 101,           ///< rows of the gamma heuristic
  kernel_kmeans_plusplus = 102, ///< kernel k-means++ draws
  kernel_kmeans_batch = 103,    ///< the mini-batch of an iteration (index: the iteration)
  graph_spectrum = 104,         ///< the heat kernel's starting block of the graph's slowest modes
};

class Rng {
 public:
  /// Stream `index` of purpose `stream` under `seed`.
  Rng(std::uint64_t seed, Stream stream, std::uint64_t index = 0) {
    std::uint64_t z = mix64(seed + 0x9e3779b97f4a7c15ULL);
    z = mix64(z ^ (static_cast<std::uint64_t>(stream) * 0xd1b54a32d192ed03ULL));
    z = mix64(z ^ (index + 0x8cb92ba72f3d8dd7ULL));
    for (auto& word : s_) {  // SplitMix64 expansion of the key into 256 bits
      z += 0x9e3779b97f4a7c15ULL;
      word = mix64(z);
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform integer in [0, n), unbiased (Lemire's multiply-and-reject), n > 0.
  std::uint64_t below(std::uint64_t n) {
    std::uint64_t high;
    std::uint64_t low = mul128(next(), n, &high);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) low = mul128(next(), n, &high);
    }
    return high;
  }

 private:
  /// Full 64x64 -> 128 bit product: returns the low word, stores the high one.
  static std::uint64_t mul128(std::uint64_t a, std::uint64_t b, std::uint64_t* high) {
#if defined(_MSC_VER) && !defined(__clang__)
    return _umul128(a, b, high);
#else
    const __uint128_t m = static_cast<__uint128_t>(a) * b;
    *high = static_cast<std::uint64_t>(m >> 64);
    return static_cast<std::uint64_t>(m);
#endif
  }
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace detail
}  // namespace vcgmm
