// Internal: drawing indices with probability proportional to a mass that is
// known per point and summed per fixed-size chunk: one index (k-means++,
// AFK-MC^2 first center) or many i.i.d. indices by sorted uniforms (the
// lightweight coreset, whole or per chunk). The chunk sums are combined in
// chunk order, so the draws depend on the seed only, never on the thread
// count.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "detail/parallel.hpp"
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

/// The chunk masses of a draw by weight (sample_by_chunks with mass w_i):
/// per chunk of `chunk` rows the sum of the weights, in row order (its row
/// count without weights).
template <typename T>
std::vector<double> chunk_weight_sums(const DataView<T>& data, index_t chunk) {
  std::vector<double> sums(n_chunks(data.n, chunk), 0.0);
  for (index_t t = 0; t < static_cast<index_t>(sums.size()); ++t) {
    const index_t r0 = t * chunk, r1 = std::min(data.n, r0 + chunk);
    if (!data.w) {
      sums[t] = static_cast<double>(r1 - r0);
    } else {
      for (index_t i = r0; i < r1; ++i) sums[t] += data.w[i];
    }
  }
  return sums;
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

/// m i.i.d. uniforms on [0, scale), in increasing order, in O(m) without a
/// sort (interruptible): the order statistics of m uniforms are distributed as
/// S_k / S_{m+1}, S_k the partial sums of m + 1 standard exponentials.
inline std::vector<double> sorted_uniforms(index_t m, double scale, Rng& rng) {
  constexpr index_t kCheck = index_t(1) << 20;  // draws between interrupt checks
  std::vector<double> u(m);
  double s = 0.0;
  for (index_t k = 0; k < m; ++k) {
    if (k % kCheck == kCheck - 1) check_interrupt();
    s -= std::log1p(-rng.uniform());  // an Exp(1) draw: -log(1 - U), U in [0, 1)
    u[k] = s;
  }
  s -= std::log1p(-rng.uniform());
  const double factor = scale / s;
  for (index_t k = 0; k < m; ++k) u[k] = std::min(u[k] * factor, std::nextafter(scale, 0.0));
  return u;
}

/// Resolves sorted uniforms to rows: many i.i.d. draws by inverting the
/// cumulative distribution of n masses (inverting with sorted uniforms gives
/// the same multiset of draws as independent inversions). Rows are in blocks
/// of `block` rows; block t owns the mass interval [block_start[t],
/// block_start[t + 1]) (block_start: the prefix sums of the block masses,
/// n_chunks(n, block) + 1 entries, the last one the total the uniforms were
/// scaled to). Blocks are resolved in parallel, each writing only its own
/// draws: indices[k] = the row of draw k, weights[k] = weight_of(row, mass(row)).
/// Never returns a row of zero mass (rounding that leaves a uniform just above
/// a block's running sum is given to the block's last row of positive mass).
template <typename Mass, typename WeightOf>
void resolve_sorted_uniforms(index_t n, index_t block, const std::vector<double>& block_start,
                             const std::vector<double>& u, int n_threads, Mass&& mass,
                             WeightOf&& weight_of, index_t* indices, double* weights) {
  const index_t m = static_cast<index_t>(u.size()), n_tasks = n_chunks(n, block);
  std::vector<index_t> first_draw(n_tasks + 1);
  for (index_t t = 0; t <= n_tasks; ++t) {
    first_draw[t] = t == n_tasks ? m
                                 : std::lower_bound(u.begin(), u.end(), block_start[t]) - u.begin();
  }
  parallel_for(n_tasks, n_threads, [&](index_t t) {
    index_t k = first_draw[t];
    const index_t k_end = first_draw[t + 1];
    if (k == k_end) return;
    const index_t r0 = t * block, r1 = std::min(n, r0 + block);
    double cum = block_start[t];
    index_t last_positive = r0;
    for (index_t i = r0; i < r1 && k < k_end; ++i) {
      const double qi = mass(i);
      if (qi <= 0.0) continue;
      last_positive = i;
      cum += qi;
      while (k < k_end && u[k] < cum) {
        indices[k] = i;
        weights[k] = weight_of(i, qi);
        ++k;
      }
    }
    // Rounding may leave the last uniforms just above the block's running sum.
    for (; k < k_end; ++k) {
      indices[k] = last_positive;
      weights[k] = weight_of(last_positive, mass(last_positive));
    }
  }, 10.0 * block);
}

}  // namespace detail
}  // namespace vcgmm
