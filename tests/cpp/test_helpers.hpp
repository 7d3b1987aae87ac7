// Shared helpers of the C++ tests: a tiny portable random generator for test
// data, brute-force double-precision references, and bitwise comparisons.
//
// The generator is our own (SplitMix64 + Box-Muller) rather than <random>'s
// distributions, whose output differs between standard libraries: the test
// data, and so every assertion on it, are the same on every platform.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <vcgmm/vcgmm.hpp>

namespace vcgmm_test {

using vcgmm::index_t;

/// SplitMix64: small, fast, good enough to make test data.
class TestRng {
 public:
  explicit TestRng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform on [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n) (modulo bias is irrelevant for test data).
  index_t below(index_t n) { return static_cast<index_t>(next() % static_cast<std::uint64_t>(n)); }
  /// Standard normal (Box-Muller, one value per call).
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t state_;
};

/// (n, d) standard normal values, row-major.
template <typename T>
std::vector<T> gaussian(index_t n, index_t d, std::uint64_t seed, double scale = 1.0) {
  TestRng rng(seed);
  std::vector<T> x(static_cast<size_t>(n * d));
  for (auto& v : x) v = static_cast<T>(scale * rng.normal());
  return x;
}

/// Positive weights in [0.25, 4), spread over a factor of 16.
inline std::vector<double> positive_weights(index_t n, std::uint64_t seed) {
  TestRng rng(seed);
  std::vector<double> w(static_cast<size_t>(n));
  for (auto& v : w) v = 0.25 * std::pow(16.0, rng.uniform());
  return w;
}

/// Isotropic Gaussian blobs: `k` true centers drawn uniformly in a box of side
/// `box`, points = center + spread * N(0, I). Returns X; the centers go to
/// `true_centers` (k, d) and the blob of each point to `blob` (if given).
template <typename T>
std::vector<T> blobs(index_t n, index_t d, index_t k, double box, double spread, std::uint64_t seed,
                     std::vector<T>* true_centers = nullptr, std::vector<index_t>* blob = nullptr) {
  TestRng rng(seed);
  std::vector<double> c(static_cast<size_t>(k * d));
  for (auto& v : c) v = box * rng.uniform();
  std::vector<T> x(static_cast<size_t>(n * d));
  if (blob) blob->resize(static_cast<size_t>(n));
  for (index_t i = 0; i < n; ++i) {
    const index_t b = rng.below(k);
    if (blob) (*blob)[i] = b;
    for (index_t j = 0; j < d; ++j) x[i * d + j] = static_cast<T>(c[b * d + j] + spread * rng.normal());
  }
  if (true_centers) true_centers->assign(c.begin(), c.end());
  return x;
}

/// ||a - b||^2 in double, plain sequential loop (the reference).
template <typename T>
double naive_d2(const T* a, const T* b, index_t d) {
  double s = 0.0;
  for (index_t j = 0; j < d; ++j) {
    const double diff = static_cast<double>(a[j]) - static_cast<double>(b[j]);
    s += diff * diff;
  }
  return s;
}

/// Brute-force nearest center (ties: lowest index) and its squared distance.
template <typename T>
index_t naive_nearest(const T* x, const T* centers, index_t c, index_t d, double* best_d2) {
  index_t best = 0;
  double best_v = std::numeric_limits<double>::infinity();
  for (index_t j = 0; j < c; ++j) {
    const double v = naive_d2(x, centers + j * d, d);
    if (v < best_v) {
      best_v = v;
      best = j;
    }
  }
  *best_d2 = best_v;
  return best;
}

/// Brute-force weighted quantization error.
template <typename T>
double naive_quantization_error(const T* x, index_t n, index_t d, const double* w, const T* centers,
                                index_t c) {
  double q = 0.0;
  for (index_t i = 0; i < n; ++i) {
    double v;
    naive_nearest(x + i * d, centers, c, d, &v);
    q += (w ? w[i] : 1.0) * v;
  }
  return q;
}

/// Bitwise equality of two arrays (stricter than ==: tells -0.0 from 0.0).
template <typename T>
bool bitwise_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), sizeof(T) * a.size()) == 0);
}

/// Bitwise equality of two doubles.
inline bool bitwise_equal(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

/// Rows `rows` of X gathered into a new (rows.size(), d) array.
template <typename T>
std::vector<T> gather_rows(const std::vector<T>& x, index_t d, const std::vector<index_t>& rows) {
  std::vector<T> out(rows.size() * static_cast<size_t>(d));
  for (size_t k = 0; k < rows.size(); ++k) {
    std::memcpy(out.data() + k * d, x.data() + rows[k] * d, sizeof(T) * d);
  }
  return out;
}

/// The determinism contract in one call: `fit(n_threads)` returns everything
/// a run produced that must not depend on the thread count, flattened into a
/// std::vector<double> (centers, objective traces, counts...). Runs it with 1,
/// 2 and 3 threads; returns the first thread count whose output differs bit
/// for bit from the 1-thread output, or 0 if none does (CHECK(... == 0)).
template <typename Fit>
int first_thread_count_that_differs(Fit&& fit) {
  const std::vector<double> reference = fit(1);
  for (int n_threads : {2, 3}) {
    if (!bitwise_equal(fit(n_threads), reference)) return n_threads;
  }
  return 0;
}

/// Appends `values` (any arithmetic type) to `out` as doubles: builds the
/// fingerprints first_thread_count_that_differs compares.
template <typename V>
void append(std::vector<double>* out, const std::vector<V>& values) {
  for (const V& v : values) out->push_back(static_cast<double>(v));
}

/// How to run a call: a seed and a thread count, no progress logger.
inline vcgmm::RunOptions run_options(std::uint64_t seed, int n_threads) {
  vcgmm::RunOptions run;
  run.seed = seed;
  run.n_threads = n_threads;
  return run;
}

/// Restores "no interrupt callback" on scope exit, also when a CHECK throws.
struct InterruptCallbackGuard {
  explicit InterruptCallbackGuard(vcgmm::InterruptCallback cb) { vcgmm::set_interrupt_callback(cb); }
  ~InterruptCallbackGuard() { vcgmm::set_interrupt_callback(nullptr); }
  InterruptCallbackGuard(const InterruptCallbackGuard&) = delete;
  InterruptCallbackGuard& operator=(const InterruptCallbackGuard&) = delete;
};

/// The LWCS sampling probabilities q(x), computed here from the definition
/// (ALGORITHMS.md section 1) with plain double loops.
template <typename T>
std::vector<double> lwcs_probabilities(const std::vector<T>& x, index_t n, index_t d,
                                       const double* w) {
  std::vector<double> mu(d, 0.0);
  double w_total = 0.0;
  for (index_t i = 0; i < n; ++i) {
    const double wi = w ? w[i] : 1.0;
    w_total += wi;
    for (index_t j = 0; j < d; ++j) mu[j] += wi * static_cast<double>(x[i * d + j]);
  }
  for (auto& v : mu) v /= w_total;
  std::vector<double> d2(n);
  double wd2_total = 0.0;
  for (index_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (index_t j = 0; j < d; ++j) {
      const double diff = static_cast<double>(x[i * d + j]) - mu[j];
      s += diff * diff;
    }
    d2[i] = s;
    wd2_total += (w ? w[i] : 1.0) * s;
  }
  std::vector<double> q(n);
  for (index_t i = 0; i < n; ++i) {
    const double wi = w ? w[i] : 1.0;
    q[i] = 0.5 * wi / w_total + 0.5 * wi * d2[i] / wd2_total;
  }
  return q;
}

}  // namespace vcgmm_test
