// Internal: drawing one index with probability proportional to a mass that is
// known per point and summed per fixed-size chunk (k-means++, AFK-MC^2 first
// center). The chunk sums are combined in chunk order, so the draw depends on
// the seed only, never on the thread count.
#pragma once

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "detail/random.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

/// Index i in [0, n) drawn with probability mass(i) / sum(mass), where
/// chunk_mass[t] = sum of mass(i) over rows [t*chunk, (t+1)*chunk), u01 a
/// uniform draw on [0, 1). Requires a positive total mass.
template <typename Mass>
index_t sample_by_chunks(double u01, const std::vector<double>& chunk_mass, index_t chunk, index_t n,
                         Mass&& mass) {
  double total = 0.0;
  for (double m : chunk_mass) total += m;
  double u = u01 * total;
  index_t t = 0;
  const index_t n_tasks = static_cast<index_t>(chunk_mass.size());
  index_t last_nonempty = 0;
  for (; t < n_tasks; ++t) {
    if (chunk_mass[t] > 0.0) last_nonempty = t;
    if (u < chunk_mass[t]) break;
    u -= chunk_mass[t];
  }
  if (t == n_tasks) {  // rounding: u ended just above the total
    t = last_nonempty;
    u = chunk_mass[t];
  }
  const index_t r0 = t * chunk, r1 = std::min(n, r0 + chunk);
  double cum = 0.0;
  index_t last_positive = -1;
  for (index_t i = r0; i < r1; ++i) {
    const double mi = mass(i);
    if (mi <= 0.0) continue;
    last_positive = i;
    cum += mi;
    if (u < cum) return i;
  }
  return last_positive >= 0 ? last_positive : r0;
}

/// Cumulative distribution over n masses for many draws: built once in O(n),
/// each draw a binary search, O(log n).
class CumulativeTable {
 public:
  template <typename Mass>
  CumulativeTable(index_t n, Mass&& mass) : cum_(n) {
    double s = 0.0;
    for (index_t i = 0; i < n; ++i) {
      s += mass(i);
      cum_[i] = s;
    }
  }
  double total() const { return cum_.empty() ? 0.0 : cum_.back(); }
  /// Index drawn for a uniform u01 on [0, 1); never an index of zero mass.
  index_t sample(double u01) const {
    const double u = u01 * total();
    auto it = std::upper_bound(cum_.begin(), cum_.end(), u);
    if (it == cum_.end()) {  // rounding: step back to the last positive mass
      it = std::lower_bound(cum_.begin(), cum_.end(), total());
    }
    return static_cast<index_t>(it - cum_.begin());
  }

 private:
  std::vector<double> cum_;
};

/// The first k entries of a uniformly random permutation of [0, n): k
/// distinct rows, every subset equally likely (partial Fisher-Yates, O(n)
/// memory and time, k draws). The first k' entries do not depend on k, so
/// the rows of the "random" seeding (k = C) are the first C of nmbatch's order
/// (k = n) under the same seed.
inline std::vector<index_t> random_permutation_prefix(index_t n, index_t k, std::uint64_t seed,
                                                      Stream stream = Stream::shuffle) {
  std::vector<index_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), index_t(0));
  Rng rng(seed, stream);
  for (index_t i = 0; i < k && i + 1 < n; ++i) {
    const index_t j = i + static_cast<index_t>(rng.below(static_cast<std::uint64_t>(n - i)));
    std::swap(perm[i], perm[j]);
  }
  perm.resize(static_cast<size_t>(k));
  return perm;
}

}  // namespace detail
}  // namespace vcgmm
