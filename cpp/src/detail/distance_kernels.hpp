// Internal: Eigen types and the distance kernels every algorithm shares.
//
// squared_distance computes ||a - b||^2 in T with 64-byte lanes in a fixed
// order (so every instruction-set build rounds the same way);
// squared_distance_exact accumulates in double (quality measures); the
// add_scaled_* helpers accumulate weighted sums of rows in double.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstRowMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using RowMap = Eigen::Map<RowMatrix<T>>;
/// A map over a buffer from scratch_buffer (aligned like Eigen's own matrices).
template <typename T>
using AlignedRowMap = Eigen::Map<RowMatrix<T>, Eigen::AlignedMax>;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T>
using ConstVectorMap = Eigen::Map<const Vector<T>>;
template <typename T>
using VectorMap = Eigen::Map<Vector<T>>;

#if defined(__GNUC__) || defined(__clang__)
/// 64-byte vectors (GCC/Clang vector extensions): compiled to AVX-512, AVX2
/// or SSE2 instructions by each build, with the same lane layout everywhere.
/// Below AVX-512 the hot loops hold V as two H halves (see squared_distance).
template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float V __attribute__((vector_size(64)));
  typedef float H __attribute__((vector_size(32)));
  static constexpr int n = 16;
};
template <>
struct Lanes<double> {
  typedef double V __attribute__((vector_size(64)));
  typedef double H __attribute__((vector_size(32)));
  static constexpr int n = 8;
};

/// Sum of the lanes by halving, in registers (a fixed tree, not a serial
/// chain); the *_halves forms take the low and high 32 bytes apart.
inline float sum_halves16(const Lanes<float>::H& lo, const Lanes<float>::H& hi) {
  typedef float V4 __attribute__((vector_size(16)));
  const Lanes<float>::H a = lo + hi;
  const V4 b = __builtin_shufflevector(a, a, 0, 1, 2, 3) + __builtin_shufflevector(a, a, 4, 5, 6, 7);
  return (b[0] + b[2]) + (b[1] + b[3]);
}
inline double sum_halves8(const Lanes<double>::H& lo, const Lanes<double>::H& hi) {
  typedef double V2 __attribute__((vector_size(16)));
  const Lanes<double>::H a = lo + hi;
  const V2 b = __builtin_shufflevector(a, a, 0, 1) + __builtin_shufflevector(a, a, 2, 3);
  return b[0] + b[1];
}
inline float sum_lanes16(Lanes<float>::V v) {
  return sum_halves16(__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7),
                      __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15));
}
inline double sum_lanes8(Lanes<double>::V v) {
  return sum_halves8(__builtin_shufflevector(v, v, 0, 1, 2, 3),
                     __builtin_shufflevector(v, v, 4, 5, 6, 7));
}
template <typename T>
inline T sum_lanes(const typename Lanes<T>::V& v);
template <>
inline float sum_lanes<float>(const Lanes<float>::V& v) {
  return sum_lanes16(v);
}
template <>
inline double sum_lanes<double>(const Lanes<double>::V& v) {
  return sum_lanes8(v);
}
template <typename T>
inline T sum_halves(const typename Lanes<T>::H& lo, const typename Lanes<T>::H& hi);
template <>
inline float sum_halves<float>(const Lanes<float>::H& lo, const Lanes<float>::H& hi) {
  return sum_halves16(lo, hi);
}
template <>
inline double sum_halves<double>(const Lanes<double>::H& lo, const Lanes<double>::H& hi) {
  return sum_halves8(lo, hi);
}

/// ||a - b||^2 for two rows of length d, computed in T: 64-byte lanes over
/// the leading multiple of the lane count, then the tail; summed in a fixed
/// order (independent of alignment and of the instruction set's width).
/// Without AVX-512 the 64 bytes are two 32-byte halves (GCC kept one 64-byte
/// accumulator on the stack there, a store and load every step); each lane's
/// sum and the final order are the same.
template <typename T>
inline T squared_distance(const T* a, const T* b, index_t d) {
  using H = typename Lanes<T>::H;
  constexpr index_t L = Lanes<T>::n;
  index_t k = 0;
#if defined(__AVX512F__)
  using V = typename Lanes<T>::V;
  V acc = {};
  for (; k + L <= d; k += L) {
    V va, vb;
    __builtin_memcpy(&va, a + k, sizeof(V));
    __builtin_memcpy(&vb, b + k, sizeof(V));
    const V t = va - vb;
    acc += t * t;
  }
  T sum = sum_lanes<T>(acc);
#else
  H lo = {}, hi = {};
  for (; k + L <= d; k += L) {
    H a0, a1, b0, b1;
    __builtin_memcpy(&a0, a + k, sizeof(H));
    __builtin_memcpy(&a1, a + k + L / 2, sizeof(H));
    __builtin_memcpy(&b0, b + k, sizeof(H));
    __builtin_memcpy(&b1, b + k + L / 2, sizeof(H));
    const H t0 = a0 - b0, t1 = a1 - b1;
    lo += t0 * t0;
    hi += t1 * t1;
  }
  T sum = sum_halves<T>(lo, hi);
#endif
  if (k + L / 2 <= d) {  // one half-width step of the tail
    H ha, hb;
    __builtin_memcpy(&ha, a + k, sizeof(H));
    __builtin_memcpy(&hb, b + k, sizeof(H));
    const H t = ha - hb;
    const H t2 = t * t;
    T part = T(0);
    for (int i = 0; i < L / 2; ++i) part += t2[i];
    sum += part;
    k += L / 2;
  }
  T tail[4] = {T(0), T(0), T(0), T(0)};
  for (index_t j = 0; k < d; ++k, ++j) {
    const T t = a[k] - b[k];
    tail[j & 3] += t * t;
  }
  return sum + ((tail[0] + tail[1]) + (tail[2] + tail[3]));
}
#else
/// ||a - b||^2 for two rows of length d, computed in T (vectorized).
template <typename T>
inline T squared_distance(const T* a, const T* b, index_t d) {
  return (ConstVectorMap<T>(a, d) - ConstVectorMap<T>(b, d)).squaredNorm();
}
#endif

/// A factor f <= 1 with f * squared_distance<float>(a, b, d) <= ||a - b||^2:
/// each difference carries a relative error <= eps, the sum of squares one
/// <= (d + 1) eps in any order; (d + 8) eps covers both. A float distance
/// times f that exceeds a best distance rules the row out without the
/// double one.
inline double float_distance_lower_factor(index_t d) {
  return 1.0 - static_cast<double>(d + 8) *
                   static_cast<double>(std::numeric_limits<float>::epsilon());
}

/// `v`, rounded as a value of its own: an addition of it is never fused with
/// the multiplication that made it into one FMA. GCC fuses where
/// -ffp-contract=fast allows (its default with FMA targets), and not at every
/// inlined copy alike, so the same kernel could round differently at two call
/// sites of one build.
/// (x86 with FMA only: without FMA nothing is fused, and the register
/// constraint is x86's.)
template <typename V>
inline V rounded(V v) {
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__FMA__)
  asm("" : "+x"(v));
#endif
  return v;
}

/// sum_k term(a[k], b[k]) for rows of A and B (float or double), each
/// element converted to double, accumulated in 8 lanes and a fixed order (so
/// the sum never depends on alignment or on the instruction set's width).
/// `term` takes two doubles or two vectors of doubles; its value is rounded
/// before it is added (no FMA), the same at every call site.
template <typename A, typename B, class Term>
inline double lane_sum_in_double(const A* a, const B* b, index_t d, Term term) {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__AVX512F__)
  typedef double V8 __attribute__((vector_size(64)));
  typedef A InA __attribute__((vector_size(8 * sizeof(A))));
  typedef B InB __attribute__((vector_size(8 * sizeof(B))));
  V8 acc = {};
  index_t k = 0;
  for (; k + 8 <= d; k += 8) {
    InA va;
    InB vb;
    __builtin_memcpy(&va, a + k, sizeof(InA));
    __builtin_memcpy(&vb, b + k, sizeof(InB));
    acc += rounded(term(__builtin_convertvector(va, V8), __builtin_convertvector(vb, V8)));
  }
  double tail = 0.0;
  for (; k < d; ++k) tail += rounded(term(static_cast<double>(a[k]), static_cast<double>(b[k])));
  return sum_lanes8(acc) + tail;
#elif defined(__GNUC__) || defined(__clang__)
  // The same 8 lanes as two halves in registers (as squared_distance).
  typedef double V4 __attribute__((vector_size(32)));
  typedef A InA __attribute__((vector_size(4 * sizeof(A))));
  typedef B InB __attribute__((vector_size(4 * sizeof(B))));
  V4 lo = {}, hi = {};
  index_t k = 0;
  for (; k + 8 <= d; k += 8) {
    InA a0, a1;
    InB b0, b1;
    __builtin_memcpy(&a0, a + k, sizeof(InA));
    __builtin_memcpy(&a1, a + k + 4, sizeof(InA));
    __builtin_memcpy(&b0, b + k, sizeof(InB));
    __builtin_memcpy(&b1, b + k + 4, sizeof(InB));
    lo += rounded(term(__builtin_convertvector(a0, V4), __builtin_convertvector(b0, V4)));
    hi += rounded(term(__builtin_convertvector(a1, V4), __builtin_convertvector(b1, V4)));
  }
  double tail = 0.0;
  for (; k < d; ++k) tail += rounded(term(static_cast<double>(a[k]), static_cast<double>(b[k])));
  return sum_halves8(lo, hi) + tail;
#else
  double lanes[8] = {};
  index_t k = 0;
  for (; k + 8 <= d; k += 8) {
    for (int l = 0; l < 8; ++l) {
      lanes[l] += rounded(term(static_cast<double>(a[k + l]), static_cast<double>(b[k + l])));
    }
  }
  double tail = 0.0;
  for (; k < d; ++k) tail += rounded(term(static_cast<double>(a[k]), static_cast<double>(b[k])));
  return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) +
         ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7])) + tail;
#endif
}

/// ||a - b||^2 for rows of A and B (float or double), accumulated in double
/// (lane_sum_in_double's fixed order).
template <typename A, typename B>
inline double squared_distance_in_double(const A* a, const B* b, index_t d) {
  return lane_sum_in_double(a, b, d, [](auto x, auto y) {
    const auto t = x - y;
    return t * t;
  });
}

/// a . b for rows of A and B (float or double), accumulated in double
/// (lane_sum_in_double's fixed order).
template <typename A, typename B>
inline double dot_in_double(const A* a, const B* b, index_t d) {
  return lane_sum_in_double(a, b, d, [](auto x, auto y) { return x * y; });
}

/// Asks for the cache lines of the `bytes` bytes at p: a row read soon, out
/// of memory order (the hardware prefetcher only follows regular strides).
inline void prefetch_bytes(const void* p, std::size_t bytes) {
#if defined(__GNUC__) || defined(__clang__)
  const char* line = static_cast<const char*>(p);
  for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(line + b);
#else
  (void)p;
  (void)bytes;
#endif
}

/// ||a - b||^2 accumulated in double: the exact value used for quality
/// measurements (quantization error, inertia), immune to the cancellation of
/// the GEMM expansion. Fixed summation order, like squared_distance.
template <typename T>
inline double squared_distance_exact(const T* a, const T* b, index_t d) {
  return squared_distance_in_double(a, b, d);
}

/// acc[j] += a * x[j] for j < d, in double (a plain loop: the compiler
/// vectorizes the conversion and the FMA; the order per element is fixed).
template <typename T>
inline void add_scaled_to_double(double* acc, double a, const T* x, index_t d) {
  for (index_t j = 0; j < d; ++j) acc[j] += a * static_cast<double>(x[j]);
}

/// acc[j] += a * (x[j] - center[j]) for j < d, in double (vectorized like
/// add_scaled_to_double). Accumulating about a center (the data mean) keeps
/// means of constant data exact and second moments well conditioned.
template <typename T>
inline void add_scaled_difference_to_double(double* acc, double a, const T* x, const double* center,
                                            index_t d) {
  for (index_t j = 0; j < d; ++j) acc[j] += a * (static_cast<double>(x[j]) - center[j]);
}

/// A per-thread scratch buffer of at least `elements` values, reused across
/// calls (no allocation per task). It keeps its largest size until the
/// thread ends, so callers bound what they ask for (CenterTiles keeps its
/// blocks near kMaxScratchElements).
template <typename T, int Tag = 0>
T* scratch_buffer(index_t elements) {
  // Eigen's allocator aligns for its widest vectors (the maps over these
  // buffers are declared aligned: the matrix products run measurably faster).
  thread_local std::vector<T, Eigen::aligned_allocator<T>> buffer;
  if (static_cast<index_t>(buffer.size()) < elements) buffer.resize(static_cast<size_t>(elements));
  return buffer.data();
}

/// Elements of the largest scratch block a thread keeps for a blocked pass
/// (8 MB of doubles).
constexpr index_t kMaxScratchElements = index_t(1) << 20;

}  // namespace detail
}  // namespace vcgmm
