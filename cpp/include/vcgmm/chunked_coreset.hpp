// vcgmm: the lightweight coreset (LWCS) in per-chunk steps, for data that
// arrive in chunks (files on disk, a Dask array's blocks, a stream).
//
// Paper: Bachem, Lucic & Krause, "Scalable k-means clustering via lightweight
// coresets", KDD 2018, as used by vc-GMM (Hirschberger, Forster & Luecke,
// arXiv 2018 / IEEE TPAMI 2022, Sec. 3; the arXiv version streams the 80 M
// Tiny Images coreset from disk). The distribution of lightweight_coreset.hpp:
//   q(x) = w(x) (a + b d(x, mu)^2),  a = 1/(2 sum w),  b = 1/(2 sum w d(x, mu)^2)
//   (a = 1/sum w, b = 0 when every point sits at mu); m = coreset_size i.i.d.
//   draws from q, each with the weight gamma = w(x)/(m q(x)).
//
// X is the rows of chunks 0, 1, ..., K-1 in this order (a chunk may be
// empty). Three steps, two reads of every chunk:
//   1. coreset_chunk_moments, per chunk (any order, any machine);
//   2. plan_chunked_coreset, once, on the K (d + 2) moments the caller
//      gathers in chunk order: mu, q's coefficients, the chunk masses and the
//      split of the m draws over the chunks;
//   3. draw_coreset_chunk, per chunk with n_c > 0 draws.
// A multinomial split followed by i.i.d. draws within each chunk is exactly
// m i.i.d. draws from q, and the weights use the probability each draw
// actually had, so sum(gamma f(x)) stays an exactly unbiased estimate of
// sum(w f(x)) whatever the rounding of the chunk masses.
//
// Cost: step 1 O(n_c d), n_c distance evaluations; step 2 O(K d + m) on one
// machine; step 3 O(n_c d + draws), n_c distance evaluations. Memory: step 1
// O(d), step 3 O(n_c) doubles plus its draws; nothing holds more than one chunk.
// Determinism: chunk c's draws come from a stream keyed by (seed, c), the
// split from one keyed by the seed; sums are combined in chunk order by the
// caller and, inside a chunk, in fixed row blocks. A given chunking and seed
// give the same coreset on any number of threads, processes or machines, in
// any order of the chunks; another chunking, or lightweight_coreset on the
// whole array, gives a different (equally distributed) coreset.
// Use when: X does not fit in memory, or lives in pieces on several
// machines; gather only the m drawn rows and fit on them.
// Do not use for: data in one in-memory array (lightweight_coreset.hpp is one
// call and reads the data twice as well).
#pragma once

#include <cstdint>

#include "vcgmm/common.hpp"
#include "vcgmm/lightweight_coreset.hpp"

namespace vcgmm {

/// Step 1's result for one chunk (its mean is written to the caller's buffer).
/// Cost: phase `coreset` (n_c distance evaluations, to the chunk's mean).
struct ChunkMoments : PhaseCosts {
  double weight = 0.0;   ///< W_c = sum of the chunk's weights (0 for an empty chunk)
  double scatter = 0.0;  ///< S_c = sum w ||x - m_c||^2 about the chunk's mean
};

/// The sampling distribution q(x) = w(x) (a + b d(x, mu)^2) decided by step 2.
struct CoresetPlan {
  double a = 0.0;           ///< weight term of q
  double b = 0.0;           ///< distance term of q (0 when every point sits at mu)
  double total_mass = 0.0;  ///< sum of the chunk masses (1 up to rounding)
};

/// Step 1: moments of one chunk: its weight W_c, weighted mean m_c and
/// scatter S_c = sum w ||x - m_c||^2 (one read of the chunk).
///
/// @param chunk  IN  (n_c, d) rows of the chunk, n_c >= 0, optional weights w >= 0
///               (a row of weight 0 is never drawn; a chunk of total weight 0
///               holds no points: W_c = S_c = 0)
/// @param run    IN  threads (the seed is not used)
/// @param mean   OUT (d,) weighted mean m_c of the chunk (zeros when W_c = 0)
template <typename T>
ChunkMoments coreset_chunk_moments(const DataView<T>& chunk, const RunOptions& run, double* mean);

/// Step 2: the global mean mu = sum W_c m_c / W, q's coefficients, the chunk
/// masses M_c = a W_c + b (S_c + W_c ||m_c - mu||^2) (each chunk's share of
/// sum w d(x, mu)^2 taken about its own mean: no second pass, no
/// cancellation), and a multinomial split (n_c) of the m draws over the
/// chunks with probabilities M_c / sum M (m sorted uniforms, O(m + K)).
///
/// @param n_chunks       IN  K >= 1
/// @param d              IN  number of features, >= 1
/// @param chunk_weight   IN  (K,) W_c >= 0, at least one > 0
/// @param chunk_mean     IN  (K, d) row-major m_c (ignored where W_c = 0)
/// @param chunk_scatter  IN  (K,) S_c >= 0
/// @param coreset_size   IN  m >= 1
/// @param run            IN  seed of the split (threads and log unused)
/// @param mean           OUT (d,) mu, the weighted mean of all chunks
/// @param chunk_mass     OUT (K,) M_c, the q-mass of every chunk
/// @param chunk_draws    OUT (K,) n_c, the draws of every chunk (sum = m)
CoresetPlan plan_chunked_coreset(index_t n_chunks, index_t d, const double* chunk_weight,
                                 const double* chunk_mean, const double* chunk_scatter,
                                 index_t coreset_size, const RunOptions& run, double* mean,
                                 double* chunk_mass, index_t* chunk_draws);

/// Step 3: the n_c i.i.d. draws of one chunk from q restricted to the chunk
/// (d(x, mu)^2 recomputed for its rows). Each weight uses the probability
/// the draw actually had, P(i) = (M_c / sum M) (q(x_i) / sum_chunk q), which
/// equals q(x_i) up to rounding.
///
/// @param chunk         IN  (n_c, d) rows of the chunk (the same as in step 1)
/// @param chunk_id      IN  c, the chunk's position (keys its random stream)
/// @param mean          IN  (d,) mu from step 2
/// @param plan          IN  step 2's result
/// @param chunk_mass    IN  M_c from step 2 (> 0 when chunk_draws > 0)
/// @param chunk_draws   IN  n_c from step 2 (0 draws nothing and reads nothing)
/// @param coreset_size  IN  m, the total number of draws
/// @param run           IN  seed (the same as step 2's) and threads
/// @param indices       OUT (n_c,) row indices into the chunk, sorted ascending
/// @param weights       OUT (n_c,) coreset weights gamma
/// Cost: phase `coreset` (n_c distance evaluations, to mu; 0 if no draws).
template <typename T>
CoresetStats draw_coreset_chunk(const DataView<T>& chunk, index_t chunk_id, const double* mean,
                                const CoresetPlan& plan, double chunk_mass, index_t chunk_draws,
                                index_t coreset_size, const RunOptions& run, index_t* indices,
                                double* weights);

extern template ChunkMoments coreset_chunk_moments<float>(const DataView<float>&,
                                                          const RunOptions&, double*);
extern template ChunkMoments coreset_chunk_moments<double>(const DataView<double>&,
                                                           const RunOptions&, double*);
extern template CoresetStats draw_coreset_chunk<float>(const DataView<float>&, index_t,
                                                       const double*, const CoresetPlan&, double,
                                                       index_t, index_t, const RunOptions&,
                                                       index_t*, double*);
extern template CoresetStats draw_coreset_chunk<double>(const DataView<double>&, index_t,
                                                        const double*, const CoresetPlan&, double,
                                                        index_t, index_t, const RunOptions&,
                                                        index_t*, double*);

}  // namespace vcgmm
