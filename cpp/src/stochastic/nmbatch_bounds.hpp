// Internal (nmbatch): the reassignment of a reused row (Alg. 1 of
// 002_90178638363679ef.txt) with Elkan bounds, Yinyang group bounds or none,
// and the rounding rules that keep float32 bounds rigorous.
//
// Exactness: a center is skipped only when its bound exceeds
// thr = d_best (1 + 2 delta), where delta bounds the relative error of a
// distance computed by squared_distance<T> + sqrt. A bound is a lower bound
// of the TRUE distance (rounded down when stored, decreased by center moves
// rounded up, with a margin for the float32 subtraction), so a skipped
// center's computed distance is strictly larger than d_best: it could never
// have won, whatever the order of evaluation. Ties go to the lowest index.
// Hence every bounds choice gives the same labels and centers bit for bit.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {
namespace nmbatch {

/// Relative margin of the float32 bound decrement (l - p) - m l: covers the
/// two roundings of the float operations (each at most 2^-24 l).
constexpr float kDecrementMargin = 0x1.0p-21f;

/// The bound of a group that holds no center to bound (finite, so that
/// decreasing it never gives inf - inf).
constexpr float kNoBound = std::numeric_limits<float>::max();

inline float round_down(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}

inline float round_up(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

/// A bound decreased by a center move p_up (rounded up), kept a lower bound.
inline float decrease(float l, float p_up) { return (l - p_up) - kDecrementMargin * l; }

/// Relative error bound of a distance sqrt(squared_distance<T>) in d dimensions.
template <typename T>
double distance_delta(index_t d) {
  return static_cast<double>(d + 8) * static_cast<double>(std::numeric_limits<T>::epsilon());
}

/// The centers as a reused row sees them in one iteration.
template <typename T>
struct Step {
  const T* centers = nullptr;     // (C, d)
  index_t C = 0, d = 0;
  const float* p_up = nullptr;    // (C,) last move of every center, rounded up
  const float* group_p_up = nullptr;  // (G,) Yinyang: the largest move in each group
  double delta = 0.0;             // distance_delta<T>(d)

  double dist(const T* x, std::int32_t j) const {
    return std::sqrt(static_cast<double>(squared_distance(x, centers + j * d, d)));
  }
  float threshold(double best) const { return round_up(best * (1.0 + 2.0 * delta)); }
  float bound_of(double dist) const { return round_down(dist * (1.0 - delta)); }
};

/// The outcome of one reassignment and what it cost.
struct Choice {
  std::int32_t label = 0;
  double d2 = 0.0;  // squared distance to the label's center, as computed
  std::int64_t computed = 0;
  std::int64_t skipped = 0;
};

/// Running best (distance, index): ties to the lowest index.
struct Best {
  double dist;
  std::int32_t label;
  bool improves(double d, std::int32_t j) const { return d < dist || (d == dist && j < label); }
};

/// Alg. 1 without bounds: every center.
template <typename T>
Choice reassign_all(const Step<T>& s, const T* x, std::int32_t a) {
  Best best{s.dist(x, a), a};
  for (std::int32_t j = 0; j < s.C; ++j) {
    if (j == a) continue;
    const double dj = s.dist(x, j);
    if (best.improves(dj, j)) best = {dj, j};
  }
  return {best.label, best.dist * best.dist, s.C, 0};
}

/// Alg. 1 with C bounds l (C,) of this row: decrease, test, tighten.
template <typename T>
Choice reassign_elkan(const Step<T>& s, const T* x, std::int32_t a, float* l) {
  for (index_t j = 0; j < s.C; ++j) l[j] = decrease(l[j], s.p_up[j]);
  const double d_a = s.dist(x, a);
  Best best{d_a, a};
  float thr = s.threshold(d_a);
  Choice out;
  out.computed = 1;
  for (std::int32_t j = 0; j < s.C; ++j) {
    if (j == a) continue;
    if (l[j] > thr) {
      ++out.skipped;
      continue;
    }
    const double dj = s.dist(x, j);
    ++out.computed;
    l[j] = s.bound_of(dj);
    if (best.improves(dj, j)) {
      best = {dj, j};
      thr = s.threshold(dj);
    }
  }
  if (best.label != a) l[a] = s.bound_of(d_a);  // a's bound was stale while it was assigned
  out.label = best.label;
  out.d2 = best.dist * best.dist;
  return out;
}

/// The centers by group (Yinyang): group g holds members[offsets[g] ..
/// offsets[g + 1]), ascending.
struct Groups {
  std::vector<index_t> offsets;
  std::vector<std::int32_t> members;
  std::vector<std::int32_t> group_of;  // (C,)
  int size() const { return static_cast<int>(offsets.size()) - 1; }
};

/// Alg. 1 with one bound per group, lg (G,) of this row (each a lower bound
/// of the distances to the group's centers other than the assigned one); a
/// group that fails its test is searched center by center with the local
/// bound old - p(j) (Ding et al.), and its bound is rebuilt.
template <typename T>
Choice reassign_yinyang(const Step<T>& s, const Groups& g, const T* x, std::int32_t a,
                        float* lg) {
  const double d_a = s.dist(x, a);
  Best best{d_a, a};
  float thr = s.threshold(d_a);
  Choice out;
  out.computed = 1;
  const int G = g.size();
  for (int k = 0; k < G; ++k) {
    const float old = lg[k];
    const float bound = decrease(old, s.group_p_up[k]);
    const index_t m0 = g.offsets[k], m1 = g.offsets[k + 1];
    if (bound > thr) {
      lg[k] = bound;
      out.skipped += (m1 - m0) - (g.group_of[a] == k ? 1 : 0);
      continue;
    }
    float rebuilt = kNoBound;
    for (index_t m = m0; m < m1; ++m) {
      const std::int32_t j = g.members[m];
      if (j == a) continue;
      const float local = decrease(old, s.p_up[j]);
      if (local > thr) {
        ++out.skipped;
        rebuilt = std::min(rebuilt, local);
        continue;
      }
      const double dj = s.dist(x, j);
      ++out.computed;
      rebuilt = std::min(rebuilt, s.bound_of(dj));
      if (best.improves(dj, j)) {
        best = {dj, j};
        thr = s.threshold(dj);
      }
    }
    lg[k] = rebuilt;
  }
  if (best.label != a) {  // a joins the bound of its group
    float& b = lg[g.group_of[a]];
    b = std::min(b, s.bound_of(d_a));
  }
  out.label = best.label;
  out.d2 = best.dist * best.dist;
  return out;
}

}  // namespace nmbatch
}  // namespace detail
}  // namespace vcgmm
