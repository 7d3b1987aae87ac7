// vcgmm from C++: the "LWCS" k-means baseline in one call.
//
// Build it against an installed vcgmm (see CMakeLists.txt next to this file):
//
//   cmake -S cpp/examples -B build-example -DCMAKE_PREFIX_PATH=/path/to/vcgmm/prefix
//   cmake --build build-example && ./build-example/kmeans_example
//
// What it does:
//   1. makes 200,000 points in 4-D around 8 well-separated "blob" centers;
//   2. fits 8 clusters with vcgmm::fit_kmeans the way the vc-GMM papers'
//      "LWCS" baseline does: a lightweight coreset of 4,000 weighted points,
//      AFK-MC^2 seeding on the coreset, weighted Lloyd on the coreset, and a
//      final evaluation (labels, inertia) on all points;
//   3. for comparison, runs the "k-means++" baseline (D^2 seeding and Lloyd
//      on all points) and prints how many point-to-center distances each one
//      evaluated -- the cost measure of the papers;
//   4. checks the answer: it exits with a non-zero status unless every blob
//      center was recovered and the inertia is close to that of the true
//      centers. (This program doubles as the test that the installed library
//      works for a downstream CMake project.)
#include <vcgmm/vcgmm.hpp>  // the whole public API; link vcgmm::core

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

namespace {

constexpr vcgmm::index_t kN = 200000;  // points
constexpr vcgmm::index_t kD = 4;       // features
constexpr vcgmm::index_t kBlobs = 8;   // true clusters
constexpr double kSpread = 1.0;        // standard deviation of a blob, per feature

struct Blobs {
  std::vector<float> x;        // (kN, kD) row-major: vcgmm's layout for data
  std::vector<float> centers;  // (kBlobs, kD) the true centers
};

// Blob centers uniform in a box of side 100, points = center + N(0, kSpread^2 I).
// The box is large enough that blobs are tens of standard deviations apart.
Blobs make_blobs(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> box(0.0, 100.0);
  std::normal_distribution<double> noise(0.0, kSpread);
  std::uniform_int_distribution<vcgmm::index_t> pick(0, kBlobs - 1);
  Blobs b;
  b.centers.resize(kBlobs * kD);
  for (float& v : b.centers) v = static_cast<float>(box(rng));
  b.x.resize(kN * kD);
  for (vcgmm::index_t i = 0; i < kN; ++i) {
    const vcgmm::index_t k = pick(rng);
    for (vcgmm::index_t j = 0; j < kD; ++j) {
      b.x[i * kD + j] = static_cast<float>(b.centers[k * kD + j] + noise(rng));
    }
  }
  return b;
}

double distance(const float* a, const float* b) {
  double s = 0.0;
  for (vcgmm::index_t j = 0; j < kD; ++j) s += (double(a[j]) - double(b[j])) * (double(a[j]) - double(b[j]));
  return std::sqrt(s);
}

void print_costs(const char* name, const vcgmm::KMeansResult& r) {
  const vcgmm::DistanceCounts& n = r.n_distance_evals;
  const vcgmm::PhaseTimes& t = r.timings;
  std::printf("%s: %d Lloyd iterations (%s), inertia %.6g\n", name, r.n_iter,
              r.converged ? "converged" : "max_iter reached", r.inertia);
  std::printf("  %-11s %15s %10s\n", "phase", "distances", "seconds");
  std::printf("  %-11s %15lld %10.4f\n", "coreset", static_cast<long long>(n.coreset), t.coreset);
  std::printf("  %-11s %15lld %10.4f\n", "seeding", static_cast<long long>(n.seeding), t.seeding);
  std::printf("  %-11s %15lld %10.4f\n", "iterations", static_cast<long long>(n.iterations), t.iterations);
  std::printf("  %-11s %15lld %10.4f\n", "algorithm", static_cast<long long>(n.algorithm()), t.algorithm());
  std::printf("  %-11s %15lld %10.4f  (labels + inertia on all points)\n", "evaluation",
              static_cast<long long>(n.evaluation), t.evaluation);
}

/// Every true blob recovered, and an inertia close to the true centers'.
bool check_recovery(const Blobs& data, const vcgmm::DataView<float>& view,
                    const std::vector<float>& centers, double inertia) {
  bool ok = std::isfinite(inertia) && inertia > 0.0;
  if (!ok) std::printf("FAIL: inertia %g is not a finite positive number\n", inertia);

  // Every true blob center must have a fitted center nearby. A fitted center
  // is a (coreset-weighted) mean of ~500 points of its blob, so it lands
  // within ~0.1 spread of the truth; 0.5 spread is generous, while a missed
  // blob leaves its nearest fitted center tens of spreads away.
  std::printf("\n%-6s %-40s %s\n", "blob", "fitted center", "distance to true center");
  for (vcgmm::index_t k = 0; k < kBlobs; ++k) {
    const float* truth = data.centers.data() + k * kD;
    vcgmm::index_t best = 0;
    double best_dist = std::numeric_limits<double>::infinity();
    for (vcgmm::index_t c = 0; c < kBlobs; ++c) {
      const double dist = distance(truth, centers.data() + c * kD);
      if (dist < best_dist) {
        best_dist = dist;
        best = c;
      }
    }
    const float* f = centers.data() + best * kD;
    std::printf("%-6lld (%8.3f, %8.3f, %8.3f, %8.3f)  %8.4f\n", static_cast<long long>(k), f[0], f[1],
                f[2], f[3], best_dist);
    if (!(best_dist < 0.5 * kSpread)) {
      std::printf("FAIL: blob %lld was not recovered\n", static_cast<long long>(k));
      ok = false;
    }
  }

  // The true centers' inertia is about n d spread^2; recovered centers can
  // only be a little worse on the data they were fitted to approximate.
  const double true_inertia = vcgmm::quantization_error(view, data.centers.data(), kBlobs, 0);
  std::printf("inertia: fitted %.6g, true centers %.6g (ratio %.4f)\n", inertia, true_inertia,
              inertia / true_inertia);
  if (!(inertia <= 1.02 * true_inertia)) {
    std::printf("FAIL: inertia more than 2%% above that of the true centers\n");
    ok = false;
  }

  return ok;
}

}  // namespace

int main() {
  std::printf("vcgmm %s (%s, OpenMP %s)\n", vcgmm::version(), vcgmm::compiled_arch(),
              vcgmm::have_openmp() ? "on" : "OFF: one thread");
  const Blobs data = make_blobs(42);

  // A DataView is a non-owning view: pointer, shape, optional sample weights
  // (nullptr = every point has weight 1).
  const vcgmm::DataView<float> view{data.x.data(), kN, kD, nullptr};

  // --- The LWCS baseline -------------------------------------------------------
  // KMeansParams = the pipeline's parameters (clusters, coreset, seeding,
  // evaluation, run options) + the Lloyd iterations' own (lwcs.lloyd).
  vcgmm::KMeansParams lwcs;
  lwcs.n_clusters = kBlobs;
  lwcs.coreset_size = 4000;  // fit on 4,000 weighted points instead of 200,000
  lwcs.seeding.method = vcgmm::SeedingMethod::afkmc2;  // Markov-chain approximation of D^2 seeding
  // The papers use short chains (2..20) with thousands of clusters, where a
  // seed landing in an already-covered cluster costs little. With 8 blobs
  // every seed counts: Bachem et al.'s default of 200 makes missing a blob
  // vanishingly unlikely and still costs only m C^2 / 2 = 6,400 distances.
  lwcs.seeding.afkmc2.chain_length = 200;
  lwcs.lloyd.tol = 1e-4;  // stop when the objective improves by less than 0.01 %
  lwcs.run.seed = 2024;   // same seed, same result -- whatever the thread count
  lwcs.run.n_threads = 0; // 0: all threads OpenMP offers
  // lwcs.evaluate is true by default for k-means: inertia on all points.

  // Outputs go into caller-owned buffers sized beforehand; only `centers` is
  // required (init_centers is read only with SeedingMethod::given, and the
  // coreset's indices and weights are written only when asked for).
  std::vector<float> centers(kBlobs * kD);
  std::vector<std::int32_t> labels(kN);
  vcgmm::FitBuffers<float> out;
  out.centers = centers.data();
  out.labels = labels.data();  // nearest fitted center of every point
  vcgmm::KMeansResult fit;
  try {
    fit = vcgmm::fit_kmeans(view, lwcs, out);
  } catch (const vcgmm::InvalidArgument& e) {  // a violated precondition, e.g. coreset_size < C
    std::fprintf(stderr, "invalid argument: %s\n", e.what());
    return EXIT_FAILURE;
  }
  print_costs("LWCS (coreset + AFK-MC^2 + Lloyd on the coreset)", fit);

  // --- The k-means++ baseline, for comparison --------------------------------
  vcgmm::KMeansParams kmpp = lwcs;
  kmpp.coreset_size = 0;  // all points
  kmpp.seeding.method = vcgmm::SeedingMethod::kmeans_plusplus;
  std::vector<float> kmpp_centers(kBlobs * kD);
  vcgmm::FitBuffers<float> kmpp_out;
  kmpp_out.centers = kmpp_centers.data();  // no labels: evaluate = true still gives the inertia
  const vcgmm::KMeansResult ref = vcgmm::fit_kmeans(view, kmpp, kmpp_out);
  print_costs("k-means++ (D^2 seeding + Lloyd on all points)", ref);
  std::printf("LWCS used %.1fx fewer distance evaluations; relative inertia %+.3g%%\n",
              double(ref.n_distance_evals.algorithm()) / double(fit.n_distance_evals.algorithm()),
              100.0 * (fit.inertia - ref.inertia) / ref.inertia);

  // --- Is the answer right? ----------------------------------------------------
  bool ok = check_recovery(data, view, centers, fit.inertia);
  // labels[i] is the index of the fitted center nearest to point i.
  vcgmm::index_t in_each[kBlobs] = {};
  for (std::int32_t l : labels) {
    if (l < 0 || l >= kBlobs) {
      std::printf("FAIL: label %d out of range\n", l);
      return EXIT_FAILURE;
    }
    ++in_each[l];
  }
  std::printf("points per cluster:");
  for (vcgmm::index_t c = 0; c < kBlobs; ++c) std::printf(" %lld", static_cast<long long>(in_each[c]));
  std::printf("\n%s\n", ok ? "OK" : "FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
