// Internal (variational loop): the variational parameters -- the truncation
// sets K(n) of the points with their responsibilities, and the
// neighbourhoods G_c of the clusters -- and their random initialisation.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "detail/parallel.hpp"
#include "detail/random.hpp"
#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

struct TruncationSets {
  index_t N = 0, C = 0;
  int G = 0;
  bool full = false;               // G == C: every set holds all clusters (exact EM)
  std::vector<std::int32_t> K;     // (N, G) K(n), nearest first after an E-step
  std::vector<double> resp;        // (N, G) responsibilities of the last E-step
  std::vector<std::int32_t> Gc;    // (C, G) G_c, c first

  /// G is already clamped to C.
  TruncationSets(index_t n_points, index_t n_clusters, int g)
      : N(n_points), C(n_clusters), G(g), full(g == n_clusters), K(n_points * g),
        resp(n_points * g), Gc(n_clusters * g) {}

  std::int32_t* k_of(index_t n) { return &K[n * G]; }
  const std::int32_t* k_of(index_t n) const { return &K[n * G]; }
  double* resp_of(index_t n) { return &resp[n * G]; }
  const double* resp_of(index_t n) const { return &resp[n * G]; }
  const std::int32_t* g_of(index_t c) const { return &Gc[c * G]; }

  /// K(n): G distinct random clusters; G_c: c and G-1 distinct random others
  /// (with G == C: all clusters in order).
  void init(std::uint64_t seed, int n_threads) {
    if (full) {
      for (index_t n = 0; n < N; ++n) std::iota(&K[n * G], &K[n * G] + G, 0);
      for (index_t c = 0; c < C; ++c) std::iota(&Gc[c * G], &Gc[c * G] + G, 0);
      return;
    }
    const index_t n_tasks = n_chunks(N, kEStepPointsPerTask);
    parallel_for(n_tasks, n_threads, [&](index_t t) {
      Rng rng(seed, Stream::variational_init, static_cast<std::uint64_t>(t));
      const index_t r0 = t * kEStepPointsPerTask, r1 = std::min(N, r0 + kEStepPointsPerTask);
      for (index_t n = r0; n < r1; ++n) draw_distinct(rng, &K[n * G], 0);
    }, 10.0 * kEStepPointsPerTask * G);
    Rng rng(seed, Stream::variational_neighbourhood);
    for (index_t c = 0; c < C; ++c) {
      Gc[c * G] = static_cast<std::int32_t>(c);
      draw_distinct(rng, &Gc[c * G], 1);
    }
  }

 private:
  // Fills out[first..G) with distinct clusters, none equal to out[0..first)
  // (rejection; G < C here, and G is small in practice).
  void draw_distinct(Rng& rng, std::int32_t* out, int first) const {
    for (int g = first; g < G; ++g) {
      std::int32_t c;
      bool dup;
      do {
        c = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(C)));
        dup = false;
        for (int h = 0; h < g; ++h) dup |= out[h] == c;
      } while (dup);
      out[g] = c;
    }
  }
};

/// Responsibilities of one point from its G squared distances r[0..G)
/// (nearest first; replaced by the responsibilities), with the log-sum-exp
/// shift by the smallest distance; returns the point's term of the free
/// energy, logsumexp_g(-r_g / (2 sigma^2)).
inline double point_responsibilities(double* r, int G, double sigma2) {
  const double dmin = r[0];
  const double scale = 0.5 / sigma2;
  double sum = 0.0;
  for (int g = 0; g < G; ++g) {
    r[g] = std::exp(-(r[g] - dmin) * scale);
    sum += r[g];
  }
  for (int g = 0; g < G; ++g) r[g] /= sum;
  return -dmin * scale + std::log(sum);
}

/// The same with per-component parameters (CovarianceType::spherical): r[0..G)
/// holds the energies e_g = -log joint (smallest first; +inf for a component
/// of weight 0), replaced by the responsibilities softmax(-e); returns the
/// point's term logsumexp_g(-e_g). If every energy is +inf (only for a point
/// all of whose candidates have weight 0), the first gets responsibility 1
/// and the term is -inf.
inline double energy_responsibilities(double* r, int G) {
  const double emin = r[0];
  if (!(emin < std::numeric_limits<double>::infinity())) {
    r[0] = 1.0;
    for (int g = 1; g < G; ++g) r[g] = 0.0;
    return -std::numeric_limits<double>::infinity();
  }
  double sum = 0.0;
  for (int g = 0; g < G; ++g) {
    r[g] = std::exp(-(r[g] - emin));
    sum += r[g];
  }
  for (int g = 0; g < G; ++g) r[g] /= sum;
  return -emin + std::log(sum);
}

}  // namespace detail
}  // namespace vcgmm
