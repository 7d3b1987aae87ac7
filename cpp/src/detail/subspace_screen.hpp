// Internal: exact lower bounds of squared distances from a projection onto
// the centers' principal axes ("principal-subspace screening").
//
// For rows V (k, d) with orthonormal rows, ||V (x - c)||^2 <= ||x - c||^2 for
// every x and c: the distance in the k-dimensional subspace never exceeds the
// full one. With V the k leading principal axes of the centers, the subspace
// holds most of the spread (image patches, D = 108: 24 axes hold 97% of the
// centers' variance), so the bound is tight: a center whose bound exceeds the
// best full distance found so far cannot be nearer and is skipped without
// touching its D coordinates. Only the survivors are measured in full (in
// double). This is the partial-distance search of vector quantization
// (Bei & Gray, "An improvement of the minimum distortion encoding algorithm
// for vector quantization", IEEE Trans. Commun. 1985) with the coordinates
// ordered by a principal component transform first, as in faiss' PCA
// pre-transform; here the bound is kept exact, rounding included.
//
// Rounding: the projections are computed in T (a matrix product). For
// y = x - mean, each computed coordinate is off by at most
// (d + 3) eps ||y|| (a dot product with a unit row: Cauchy-Schwarz), so the
// computed difference vector of x and c is off by at most
// E = sqrt(k) (d + 3) eps (||x - mean|| + ||c - mean||). threshold(u, ...)
// returns a value t such that ||x - c||^2 <= u implies the computed bound is
// <= t: (sqrt(u) + E)^2 (1 + (k + 8) eps), rounded up. So a skipped center
// is provably farther than u; screening never changes a result, only how
// many full distances it takes.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/parallel.hpp"

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
#endif

namespace vcgmm {
namespace detail {

/// The screen's choices that do not depend on the type of the data.
struct SubspaceScreenConstants {
  /// Centers the axes are computed from, at most.
  static constexpr index_t kAxesSample = 2048;
  /// The automatic choice: the smallest multiple of kAutoDimsStep up to kMaxAutoDims
  /// whose axes hold kAutoVariance of the centers' variance; else
  /// kMaxAutoDims if they hold kMinAutoVariance; else none: on data whose
  /// centers' variance sits in a few axes a small screen pays, on isotropic
  /// centers none does (the measurements: docs/user_guide/performance.rst).
  static constexpr double kAutoVariance = 0.97;
  /// The automatic choice takes multiples of this many axes ...
  static constexpr index_t kAutoDimsStep = 8;
  /// ... and none for data of fewer features.
  static constexpr index_t kMinAutoFeatures = 16;
  static constexpr double kMinAutoVariance = 0.8;
  static constexpr index_t kMaxAutoDims = 32;
  /// Subspace iterations of the axes' computation.
  static constexpr int kIterations = 4;
};

/// The axes of the screen from the centered sample `a` (s, d) of the centers
/// and its total sum of squares (see SubspaceScreen's constructor): returns
/// the number k of axes kept (k < 0 asks for the automatic choice; 0: none)
/// and writes them to `axes` (k, d) in double. Defined once
/// (subspace_axes.cpp): Eigen's QR and eigensolver are costly to compile.
/// Its products with `a` run in fixed blocks of output rows on up to
/// n_threads threads (the same bits on any number).
index_t subspace_axes(const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>& a,
                      double total, index_t k, std::vector<double>* axes, int n_threads);

template <typename T>
class SubspaceScreen : public SubspaceScreenConstants {
 public:
  /// Centers per panel of the packed layout: the kernel keeps four 64-byte
  /// vectors of accumulators per panel (64 floats or 32 doubles).
  static constexpr index_t kLanes = 64 / static_cast<index_t>(sizeof(T));
  SubspaceScreen() = default;

  /// About the k leading principal axes of the u centers (rows of `centers`,
  /// (u, d) row-major; a few subspace iterations on a strided sample of
  /// them, then Rayleigh-Ritz: any orthonormal axes give exact bounds, better
  /// ones tighter bounds) about their mean, and the largest ||c - mean||
  /// over all of them. k in [1, d); k < 0 chooses (see kAutoVariance; none,
  /// dims() == 0, also when d < kMinAutoFeatures or the choice exceeds d / 2).
  /// On up to n_threads threads (the same screen on any number).
  SubspaceScreen(const T* centers, index_t u, index_t d, index_t k, int n_threads)
      : d_(d), k_(k) {
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(d);
    for (index_t i = 0; i < u; ++i) {
      for (index_t j = 0; j < d; ++j) mean[j] += static_cast<double>(centers[i * d + j]);
    }
    mean /= static_cast<double>(u);
    if (k < 0 && d < kMinAutoFeatures) {
      k_ = 0;
      return;
    }
    // A: the centered sample (float products: the axes need not be exact).
    using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
    const index_t cap = std::max<index_t>(512, (index_t(1) << 21) / d);
    const index_t s = std::min<index_t>(u, std::min(kAxesSample, cap));
    // Filled in fixed row blocks (a is column-major: a block's columns are
    // short runs), the sum of squares per block, then in block order.
    MatrixF a(s, d);
    constexpr index_t kFillRows = 256;
    std::vector<double> block_total(static_cast<std::size_t>(n_chunks(s, kFillRows)), 0.0);
    parallel_for(n_chunks(s, kFillRows), n_threads, [&](index_t t) {
      const index_t i0 = t * kFillRows, i1 = std::min(s, i0 + kFillRows);
      const T* row[kFillRows];
      for (index_t i = i0; i < i1; ++i) row[i - i0] = centers + ((i * u) / s) * d;
      double sq = 0.0;
      for (index_t j = 0; j < d; ++j) {
        for (index_t i = i0; i < i1; ++i) {
          const double v = static_cast<double>(row[i - i0][j]) - mean[j];
          a(i, j) = static_cast<float>(v);
          sq += v * v;
        }
      }
      block_total[static_cast<std::size_t>(t)] = sq;
    }, 3.0 * kFillRows * d);
    double total = 0.0;
    for (double v : block_total) total += v;
    std::vector<double> axes;
    k_ = k = subspace_axes(a, total, k, &axes, n_threads);
    if (k == 0) return;
    axes_.assign(axes.begin(), axes.end());  // (k, d), each rounded to T
    mean_.resize(d);
    for (index_t j = 0; j < d; ++j) mean_[j] = static_cast<T>(mean[j]);
    // The largest distance to the mean, in row blocks (a maximum: any order).
    constexpr index_t kRadiusRows = 1024;
    std::vector<double> block_radius(static_cast<std::size_t>(n_chunks(u, kRadiusRows)), 0.0);
    parallel_for(n_chunks(u, kRadiusRows), n_threads, [&](index_t t) {
      double r = 0.0;
      for (index_t i = t * kRadiusRows; i < std::min(u, (t + 1) * kRadiusRows); ++i) {
        r = std::max(r, squared_distance_exact(centers + i * d, mean_.data(), d));
      }
      block_radius[static_cast<std::size_t>(t)] = r;
    }, 3.0 * kRadiusRows * d);
    for (double r : block_radius) radius_ = std::max(radius_, std::sqrt(r));
    const double eps = static_cast<double>(std::numeric_limits<T>::epsilon());
    error_per_norm_ = std::sqrt(static_cast<double>(k)) * static_cast<double>(d + 3) * eps;
    sum_factor_ = 1.0 + static_cast<double>(k + 8) * eps;
  }

  index_t dims() const { return k_; }

  /// Extends the rounding margin to a center c that was not among the rows
  /// the screen was built from (afterwards the radius covers ||c - mean||
  /// too); for screens built from a sample of the centers to come.
  void cover(const T* c) {
    radius_ = std::max(radius_, std::sqrt(squared_distance_exact(c, mean_.data(), d_)));
  }

  /// out (nrows, k) = (x - mean) V^T for the rows x (nrows, d), in T; the
  /// same arithmetic for points and centers. `scratch` holds nrows * d.
  /// With `norm`, also norm[r] >= ||x_r - mean|| (computed in T from the
  /// same differences, then raised by their rounding bound; +infinity when
  /// the squares overflow T).
  void project(const T* x, index_t nrows, T* scratch, T* out, double* norm = nullptr) const {
    RowMap<T> y(scratch, nrows, d_);
    y = ConstRowMap<T>(x, nrows, d_).rowwise() -
        Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>(mean_.data(), d_);
    RowMap<T>(out, nrows, k_).noalias() = y * ConstRowMap<T>(axes_.data(), k_, d_).transpose();
    if (norm) {
      // Each difference carries a relative error <= eps, the sum of squares
      // one <= (d + 1) eps (any order): (d + 8) eps covers both.
      const double up = 1.0 + static_cast<double>(d_ + 8) *
                                  static_cast<double>(std::numeric_limits<T>::epsilon());
      for (index_t r = 0; r < nrows; ++r) {
        norm[r] = std::sqrt(static_cast<double>(y.row(r).squaredNorm()) * up);
      }
    }
  }

  /// ||x - mean||^2 in double (its root is the row's share of the rounding margin).
  double squared_norm_about_mean(const T* x) const {
    return squared_distance_exact(x, mean_.data(), d_);
  }

  /// The largest computed bound that can belong to a center at squared
  /// distance <= u from a row with ||x - mean|| <= xn (see the file comment).
  T threshold(double u, double xn) const {
    if (!(u < std::numeric_limits<double>::infinity())) return std::numeric_limits<T>::infinity();
    const double e = error_per_norm_ * (xn + radius_);
    const double t = (std::sqrt(u) + e) * (std::sqrt(u) + e) * sum_factor_ * (1.0 + 1e-9) +
                     std::numeric_limits<double>::min();
    const T tt = static_cast<T>(t);
    return static_cast<double>(tt) >= t ? tt
                                        : std::nextafter(tt, std::numeric_limits<T>::infinity());
  }

  /// Packs the projections p (rows given by `rows`, count n, each k values;
  /// rows null: the first n) dimension-major in panels of width w = n
  /// rounded up to kLanes, appended to out: out[j * w + t] = p[rows[t]][j];
  /// padding centers get coordinates whose squares overflow (their bounds
  /// are +infinity). Returns w.
  index_t pack(const T* p, const std::int32_t* rows, index_t n, std::vector<T>& out) const {
    const index_t w = padded(n);
    const std::size_t base = out.size();
    out.resize(base + static_cast<std::size_t>(w * k_), std::numeric_limits<T>::max());
    for (index_t j = 0; j < k_; ++j) {
      for (index_t t = 0; t < n; ++t) {
        out[base + j * w + t] = p[(rows ? static_cast<index_t>(rows[t]) : t) * k_ + j];
      }
    }
    return w;
  }

  /// bound[t] = sum_j (packed[j * w + t] - px[j])^2 for t < w (w a multiple
  /// of kLanes; padding gives +infinity), four panels at a time (independent
  /// accumulator chains), then the rest; with `from`, only the panels from
  /// the one holding t = from on.
  void bounds(const T* packed, index_t w, const T* px, T* bound, index_t from = 0) const {
    index_t t0 = from / kLanes * kLanes;
    for (; t0 + 4 * kLanes <= w; t0 += 4 * kLanes) panels<4>(packed, w, t0, px, bound);
    switch ((w - t0) / kLanes) {  // the rest in one pass (0-3 panels)
      case 3: panels<3>(packed, w, t0, px, bound); break;
      case 2: panels<2>(packed, w, t0, px, bound); break;
      case 1: panels<1>(packed, w, t0, px, bound); break;
      default: break;
    }
  }

  /// bounds() summed `step` dimensions at a time, a panel of kLanes ending
  /// early once every lane exceeds `limit`: such lanes keep their partial
  /// sum, which (non-negative terms added in the same order, rounding
  /// monotone) is at most their full bound, so it still exceeds the limit
  /// and every lower one later: no center the full bounds would keep is lost.
  void bounds_until(const T* packed, index_t w, const T* px, T limit, index_t step,
                    T* bound) const {
    for (index_t t0 = 0; t0 < w; t0 += kLanes) {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__AVX512F__)
      using V = typename Lanes<T>::V;
      V acc = {};
      for (index_t j0 = 0; j0 < k_; j0 += step) {
        const index_t j1 = std::min(k_, j0 + step);
        for (index_t j = j0; j < j1; ++j) {
          V c;
          __builtin_memcpy(&c, packed + j * w + t0, sizeof(V));
          const V diff = c - px[j];
          acc += diff * diff;
        }
        if (min_lanes(acc) > limit) break;
      }
      __builtin_memcpy(bound + t0, &acc, sizeof(V));
#elif defined(__GNUC__) || defined(__clang__)
      // The same lanes as two halves in registers (see squared_distance).
      using H = typename Lanes<T>::H;
      constexpr index_t h = kLanes / 2;
      H lo = {}, hi = {};
      for (index_t j0 = 0; j0 < k_; j0 += step) {
        const index_t j1 = std::min(k_, j0 + step);
        for (index_t j = j0; j < j1; ++j) {
          H c0, c1;
          __builtin_memcpy(&c0, packed + j * w + t0, sizeof(H));
          __builtin_memcpy(&c1, packed + j * w + t0 + h, sizeof(H));
          const H d0 = c0 - px[j], d1 = c1 - px[j];
          lo += d0 * d0;
          hi += d1 * d1;
        }
        if (std::min(min_half(lo), min_half(hi)) > limit) break;
      }
      __builtin_memcpy(bound + t0, &lo, sizeof(H));
      __builtin_memcpy(bound + t0 + h, &hi, sizeof(H));
#else
      for (index_t t = t0; t < t0 + kLanes; ++t) {
        T sum = T(0);
        for (index_t j = 0; j < k_; ++j) {
          const T diff = packed[j * w + t] - px[j];
          sum += diff * diff;
        }
        bound[t] = sum;
      }
      (void)limit;
      (void)step;
#endif
    }
  }

  /// The smallest of bound[0..w) (w a multiple of kLanes).
  static T smallest(const T* bound, index_t w) {
#if defined(__GNUC__) || defined(__clang__)
    // Two 32-byte halves (in registers on every build; the minimum is exact).
    using H = typename Lanes<T>::H;
    constexpr index_t h = kLanes / 2;
    H lo, hi;
    __builtin_memcpy(&lo, bound, sizeof(H));
    __builtin_memcpy(&hi, bound + h, sizeof(H));
    for (index_t t = kLanes; t < w; t += kLanes) {
      H c0, c1;
      __builtin_memcpy(&c0, bound + t, sizeof(H));
      __builtin_memcpy(&c1, bound + t + h, sizeof(H));
      lo = c0 < lo ? c0 : lo;
      hi = c1 < hi ? c1 : hi;
    }
    return std::min(min_half(lo), min_half(hi));
#else
    return *std::min_element(bound, bound + w);
#endif
  }

  /// The search over one set of packed centers (s of them, bounds from
  /// bounds()): lowers (best, winner), the exact squared distance of x to the
  /// nearest center measured so far and its id, over the centers whose bound
  /// is at most threshold(best, x_norm), the limit dropping as best does.
  /// Each is measured in double; with float data a float distance first,
  /// skipped when float_distance_lower_factor() puts it above best. Ties go
  /// to the lower id. row(t) is the row of the center at position t, id(t)
  /// its id; the winner is not measured again. survivors: room for s
  /// rounded up to kLanes. Returns the distances evaluated (float and double
  /// ones each count). The loop of the approximate labelling's cells
  /// (approximate/approximate_assignment.cpp) and of AFK-MC^2's candidates
  /// (blocks/afkmc2.cpp).
  template <class Row, class Id>
  std::int64_t lower_nearest(const T* x, double x_norm, const T* bound, index_t s,
                             std::int32_t* survivors, double& best, std::int32_t& winner,
                             Row&& row, Id&& id) const {
    const index_t d = d_;
    T limit = threshold(best, x_norm);
    const index_t n_surv = at_most(bound, s, limit, survivors);
    [[maybe_unused]] const double float_lower = float_distance_lower_factor(d);
    double best_d = best;
    std::int32_t win = winner;
    std::int64_t evals = 0;
    for (index_t f = 0; f < n_surv; ++f) {
      const index_t t = survivors[f];
      const std::int32_t c = id(t);
      if (c == win || !(bound[t] <= limit)) continue;  // (the limit may have dropped)
      const T* center = row(t);
      if constexpr (std::is_same_v<T, float>) {
        // The float distance's relative error is below (d + 8) eps: measured
        // in double only when it may beat or tie.
        const double lower = static_cast<double>(squared_distance(x, center, d)) * float_lower;
        ++evals;
        if (lower > best_d) continue;
      }
      const double dist = squared_distance_exact(x, center, d);
      ++evals;
      if (dist < best_d || (dist == best_d && c < win)) {
        best_d = dist;
        win = c;
        limit = threshold(dist, x_norm);
      }
    }
    best = best_d;
    winner = win;
    return evals;
  }

  /// n rounded up to a multiple of kLanes: the width of n packed centers
  /// (and of their bounds).
  static index_t padded(index_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

  /// The first position t < n holding the smallest of bound[0..w) (w = n
  /// rounded up to kLanes; padding +infinity); 0 when none compares equal
  /// (NaN bounds).
  static index_t first_smallest(const T* bound, index_t w, index_t n) {
    const T lo = smallest(bound, w);
#if defined(__AVX512F__) && defined(__AVX512VL__)
    for (index_t p0 = 0; p0 < n; p0 += kLanes) {
      const unsigned mask = panel_mask<_CMP_EQ_OQ>(bound + p0, lo);
      if (mask) return std::min(n - 1, p0 + static_cast<index_t>(__builtin_ctz(mask)));
    }
    return 0;
#else
    for (index_t t = 0; t < n; ++t) {
      if (bound[t] == lo) return t;
    }
    return 0;
#endif
  }

  /// Writes the positions t < n with bound[t] <= limit to out (ascending;
  /// room for n rounded up to kLanes: whole panels are stored) and returns
  /// their number; bound holds n rounded up to kLanes values. AVX-512: one
  /// compare to a mask per panel and the positions compressed in a register
  /// (a compress straight to memory is slow on Zen 4: measured 8% of the
  /// whole search). Otherwise groups of four panels whose smallest value
  /// exceeds the limit (the common case) are skipped at once.
  static index_t at_most(const T* bound, index_t n, T limit, std::int32_t* out) {
    index_t count = 0;
#if defined(__AVX512F__) && defined(__AVX512VL__)
    // Per panel: a compare to a mask, its positions compressed in a
    // register and stored whole.
    for (index_t p0 = 0; p0 < n; p0 += kLanes) {
      unsigned mask = panel_mask<_CMP_LE_OQ>(bound + p0, limit);
      if (n - p0 < kLanes) mask &= (1u << static_cast<unsigned>(n - p0)) - 1u;
      if (!mask) continue;
      if constexpr (std::is_same_v<T, float>) {
        const __m512i at = _mm512_add_epi32(
            _mm512_set1_epi32(static_cast<int>(p0)),
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
        _mm512_storeu_si512(out + count,
                            _mm512_maskz_compress_epi32(static_cast<__mmask16>(mask), at));
      } else {
        const __m256i at = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(p0)),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + count),
                            _mm256_maskz_compress_epi32(static_cast<__mmask8>(mask), at));
      }
      count += bit_count16(mask);
    }
#else
    for (index_t c0 = 0; c0 < n; c0 += 4 * kLanes) {
      const index_t c1 = std::min(n, c0 + 4 * kLanes);
      if (smallest(bound + c0, padded(c1 - c0)) > limit) continue;
      for (index_t p0 = c0; p0 < c1; p0 += kLanes) {
        if (smallest(bound + p0, kLanes) > limit) continue;
        const index_t p1 = std::min(c1, p0 + kLanes);
        for (index_t t = p0; t < p1; ++t) {
          out[count] = static_cast<std::int32_t>(t);
          count += bound[t] <= limit;
        }
      }
    }
#endif
    return count;
  }

 private:
#if defined(__AVX512F__) && defined(__AVX512VL__)
  /// The lanes t of the panel at p (kLanes values) with p[t] `Compare` v,
  /// as a bit mask (an AVX-512 comparison predicate, e.g. _CMP_LE_OQ).
  template <int Compare>
  static unsigned panel_mask(const T* p, T v) {
    if constexpr (std::is_same_v<T, float>) {
      return _mm512_cmp_ps_mask(_mm512_loadu_ps(p), _mm512_set1_ps(v), Compare);
    } else {
      return _mm512_cmp_pd_mask(_mm512_loadu_pd(p), _mm512_set1_pd(v), Compare);
    }
  }
#endif

  /// Set bits of a 16-bit mask (no POPCNT instruction assumed).
  [[maybe_unused]] static index_t bit_count16(unsigned v) {
    v = v - ((v >> 1) & 0x5555u);
    v = (v & 0x3333u) + ((v >> 2) & 0x3333u);
    v = (v + (v >> 4)) & 0x0F0Fu;
    return static_cast<index_t>((v + (v >> 8)) & 0x1Fu);
  }

#if defined(__GNUC__) || defined(__clang__)
  /// The smallest lane of a 32-byte half, by halving in registers.
  static float min_half(const Lanes<float>::H& v) {
    typedef float V4 __attribute__((vector_size(16)));
    const V4 c = __builtin_shufflevector(v, v, 0, 1, 2, 3);
    const V4 e = __builtin_shufflevector(v, v, 4, 5, 6, 7);
    const V4 m4 = c < e ? c : e;
    return std::min(std::min(m4[0], m4[1]), std::min(m4[2], m4[3]));
  }
  static double min_half(const Lanes<double>::H& v) {
    return std::min(std::min(v[0], v[1]), std::min(v[2], v[3]));
  }
  /// The smallest lane of a 64-byte vector: of its two halves.
  static float min_lanes(const Lanes<float>::V& v) {
    return std::min(min_half(__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7)),
                    min_half(__builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15)));
  }
  static double min_lanes(const Lanes<double>::V& v) {
    return std::min(min_half(__builtin_shufflevector(v, v, 0, 1, 2, 3)),
                    min_half(__builtin_shufflevector(v, v, 4, 5, 6, 7)));
  }
  /// Panels t0 .. t0 + P kLanes of the bounds.
  template <int P>
  void panels(const T* packed, index_t w, index_t t0, const T* px, T* bound) const {
#if defined(__AVX512F__)
    using V = typename Lanes<T>::V;
#else
    using V = typename Lanes<T>::H;  // 2 P halves in registers (see squared_distance)
#endif
    constexpr int n = static_cast<int>(kLanes * sizeof(T) / sizeof(V)) * P;
    constexpr index_t step = static_cast<index_t>(sizeof(V) / sizeof(T));
    V acc[n] = {};
    for (index_t j = 0; j < k_; ++j) {
      const T* row = packed + j * w + t0;
      const V v = V{} + px[j];
      for (int q = 0; q < n; ++q) {
        V c;
        __builtin_memcpy(&c, row + q * step, sizeof(V));
        const V diff = c - v;
        acc[q] += diff * diff;
      }
    }
    for (int q = 0; q < n; ++q) __builtin_memcpy(bound + t0 + q * step, &acc[q], sizeof(V));
  }
#else
  template <int P>
  void panels(const T* packed, index_t w, index_t t0, const T* px, T* bound) const {
    for (index_t t = t0; t < t0 + P * kLanes; ++t) {
      T sum = T(0);
      for (index_t j = 0; j < k_; ++j) {
        const T diff = packed[j * w + t] - px[j];
        sum += diff * diff;
      }
      bound[t] = sum;
    }
  }
#endif

  index_t d_ = 0, k_ = 0;
  std::vector<T> axes_;  // (k, d)
  std::vector<T> mean_;  // (d,)
  double radius_ = 0.0;
  double error_per_norm_ = 0.0;
  double sum_factor_ = 1.0;
};

}  // namespace detail
}  // namespace vcgmm
