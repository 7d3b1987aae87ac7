// Internal (variational loop): the per-point search of the E-step.
//
// For each point n: the search space S(n) = union of G_c over c in K(n)
// (deduplicated; with "+1" one uniformly random cluster more), the squared
// distances to the means in S(n), the new K(n) = the G nearest (ties: lower
// cluster index; with per-component parameters the G of smallest energy
// d * scale_c + offset_c = -log joint), and, unless deferred until sigma^2 is known, the
// responsibilities and the point's free-energy term. The search space is
// recorded for the neighbourhood statistics (not with G == C).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "detail/distance_kernels.hpp"
#include "detail/random.hpp"
#include "vcgmm/neighbourhood_statistics.hpp"
#include "vcgmm/truncation_sets.hpp"

namespace vcgmm {
namespace detail {

/// What one task of the E-step sums (combined in task order by the loop).
struct EStepSums {
  double lse = 0.0;         // sum_n w_n logsumexp term (not when deferred)
  double min_sum = 0.0;     // sum_n w_n min_{c in S(n)} d_c(n) (eq. 12)
  std::int64_t evals = 0;   // sum_n |S(n)|
};

template <typename T>
class EStepSearch {
 public:
  /// comp_scale, comp_offset: null (shared model: K(n) by distance), or (C,)
  /// 1 / (2 sigma_c^2) and D/2 log(2 pi sigma_c^2) - log pi_c (spherical).
  EStepSearch(const DataView<T>& data, const T* means, TruncationSets& sets,
              NeighbourhoodStatistics* stats, bool plus1, double sigma2, bool defer_resp,
              const double* comp_scale = nullptr, const double* comp_offset = nullptr)
      : data_(data), means_(means), sets_(sets), stats_(stats), plus1_(plus1), sigma2_(sigma2),
        defer_resp_(defer_resp), comp_scale_(comp_scale), comp_offset_(comp_offset) {}

  /// Points [p0, p1) of the block starting at b0; `rng` is the task's "+1" stream.
  EStepSums run(index_t p0, index_t p1, index_t b0, Rng& rng) const {
    const index_t C = sets_.C, D = data_.d;
    const int G = sets_.G;
    const index_t max_cand = sets_.full ? C : stats_->stride();
    // S(n) in cand, S(n + 1) in next: the next point's search space is
    // collected (its K and the G_c are not written by this point's search)
    // and its means' rows prefetched before this point's distances, so their
    // loads (random rows of the (C, D) means, mostly cache misses at large C)
    // overlap with this point's work.
    std::vector<std::int32_t> cand(max_cand), next(max_cand);
    std::vector<double> d2(max_cand), energy(comp_scale_ ? max_cand : 0);
    // (C,) flags "already in S(n)", all clear between points, from the
    // statistics' pool (a per-task array of C flags cost O(C) per 512 points).
    std::optional<ScratchPool<std::uint8_t>::Lease> flags;
    if (!sets_.full) flags.emplace(stats_->search_flags());
    std::uint8_t* in_space = flags ? flags->data() : nullptr;
    const index_t row_bytes = D * static_cast<index_t>(sizeof(T));
    EStepSums sums;
    index_t m_next = p0 < p1 ? search_space(rng, sets_.k_of(p0), next.data(), in_space) : 0;
    for (index_t n = p0; n < p1; ++n) {
      cand.swap(next);
      const index_t m = m_next;
      if (n + 1 < p1) {
        m_next = search_space(rng, sets_.k_of(n + 1), next.data(), in_space);
        // (Written out here: GCC drops a call to a void function whose only
        // effect is __builtin_prefetch, as it has no side effects.)
        for (index_t j = 0; j < m_next && !sets_.full; ++j) {
          const char* row = reinterpret_cast<const char*>(&means_[next[j] * D]);
          for (index_t off = 0; off < row_bytes; off += 64) __builtin_prefetch(row + off);
          __builtin_prefetch(row + row_bytes - 1);
        }
      }
      const T* y = data_.row(n);
      std::int32_t* kn = sets_.k_of(n);
      double* rn = sets_.resp_of(n);
      int kept = 0;
      // All distances first, then the selection: the distances are then
      // independent of each other and of the selection's branches, so their
      // loads overlap (one iteration ~8% faster at C = 2000, N' = 2^14, same results).
      for (index_t j = 0; j < m; ++j) {
        d2[j] = static_cast<double>(squared_distance(y, &means_[cand[j] * D], D));
      }
      const double* key = d2.data();
      if (comp_scale_) {
        for (index_t j = 0; j < m; ++j) {
          energy[j] = d2[j] * comp_scale_[cand[j]] + comp_offset_[cand[j]];
        }
        key = energy.data();
      }
      for (index_t j = 0; j < m; ++j) kept = keep_nearest(kn, rn, G, kept, cand[j], key[j]);
      sums.evals += m;
      if (comp_scale_) {  // never deferred: the parameters are known
        const double term = energy_responsibilities(rn, G);
        if (data_.weight(n) != 0.0) sums.lse += data_.weight(n) * term;
      } else {
        sums.min_sum += data_.weight(n) * rn[0];
        if (!defer_resp_) sums.lse += data_.weight(n) * point_responsibilities(rn, G, sigma2_);
      }
      if (!sets_.full) stats_->record(n - b0, cand.data(), d2.data(), m, kn[0]);
    }
    return sums;
  }

 private:
  // S(n) of the point with truncation set kn into cand (returns |S(n)|), in
  // order of first occurrence; in_space flags the clusters taken (set while
  // collecting, cleared before returning).
  index_t search_space(Rng& rng, const std::int32_t* kn, std::int32_t* cand,
                       std::uint8_t* in_space) const {
    const index_t C = sets_.C;
    const int G = sets_.G;
    index_t m = 0;
    if (sets_.full) {
      for (index_t c = 0; c < C; ++c) cand[m++] = static_cast<std::int32_t>(c);
      return m;
    }
    for (int g = 0; g < G; ++g) {
      const std::int32_t* gc = sets_.g_of(kn[g]);
      for (int h = 0; h < G; ++h) {
        const std::int32_t c = gc[h];
        if (!in_space[c]) {
          in_space[c] = 1;
          cand[m++] = c;
        }
      }
    }
    if (plus1_) {
      const auto c = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(C)));
      if (!in_space[c]) {
        in_space[c] = 1;
        cand[m++] = c;
      }
    }
    for (index_t j = 0; j < m; ++j) in_space[cand[j]] = 0;
    return m;
  }

  // Inserts (c, dc) into the sorted G nearest kept so far (kn, rn), sorted by
  // insertion (ties: lower cluster index); G is small, so this beats a heap.
  // Returns the new number kept.
  static int keep_nearest(std::int32_t* kn, double* rn, int G, int kept, std::int32_t c,
                          double dc) {
    if (kept == G && !(dc < rn[G - 1] || (dc == rn[G - 1] && c < kn[G - 1]))) return kept;
    int pos = kept < G ? kept++ : G - 1;
    while (pos > 0 && (dc < rn[pos - 1] || (dc == rn[pos - 1] && c < kn[pos - 1]))) {
      rn[pos] = rn[pos - 1];
      kn[pos] = kn[pos - 1];
      --pos;
    }
    rn[pos] = dc;
    kn[pos] = c;
    return kept;
  }

  const DataView<T>& data_;
  const T* means_;
  TruncationSets& sets_;
  NeighbourhoodStatistics* stats_;
  bool plus1_;
  double sigma2_;
  bool defer_resp_;
  const double* comp_scale_;
  const double* comp_offset_;
};

}  // namespace detail
}  // namespace vcgmm
