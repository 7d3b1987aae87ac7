// Cooperative interruption: a registered callback that answers "stop" makes
// the running computation throw vcgmm::Interrupted, promptly, and only ever
// from the calling thread (the Python binding's callback takes the GIL).
#include <doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "test_helpers.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

// State of the test callback: a plain function pointer cannot capture.
std::atomic<int> g_calls{0};
std::atomic<int> g_stop_after{3};
std::atomic<bool> g_wrong_thread{false};
std::thread::id g_caller;

bool stop_after_a_few_calls() {
  if (std::this_thread::get_id() != g_caller) g_wrong_thread = true;
  return ++g_calls >= g_stop_after;
}

void reset_callback_state(int stop_after) {
  g_calls = 0;
  g_stop_after = stop_after;
  g_wrong_thread = false;
  g_caller = std::this_thread::get_id();
}

// Lloyd on uniform data in 16-D with 500 clusters and tol = 0 runs for over
// a hundred iterations of ~30 ms each (2 threads, AVX-512) before reaching a
// fixed point: seconds, far longer than the ~0.3 s the callback lets it run.
// (30,000 x 8 with 300 clusters once took 0.38 s: too close.) If it ever
// finished first, the CHECK_THROWS below would fail, not pass silently.
struct LongLloyd {
  static constexpr index_t n = 200000, d = 16, C = 500;
  std::vector<float> x;
  std::vector<float> centers;
  LongLloyd() {
    TestRng rng(401);
    x.resize(n * d);
    for (auto& v : x) v = static_cast<float>(rng.uniform());
    centers.assign(x.begin(), x.begin() + C * d);
  }
  vcgmm::LloydResult run(int n_threads) {
    vcgmm::LloydParams p;
    p.max_iter = 1000000;
    p.tol = 0.0;
    return vcgmm::lloyd(vcgmm::DataView<float>{x.data(), n, d, nullptr}, C, p,
                        run_options(0, n_threads), centers.data());
  }
};

}  // namespace

TEST_CASE("set_interrupt_callback registers and clears the callback") {
  CHECK((vcgmm::interrupt_callback() == nullptr));
  {
    InterruptCallbackGuard guard(&stop_after_a_few_calls);
    CHECK((vcgmm::interrupt_callback() == &stop_after_a_few_calls));
  }
  CHECK((vcgmm::interrupt_callback() == nullptr));
}

TEST_CASE("a long lloyd run throws vcgmm::Interrupted when the callback says so") {
  LongLloyd problem;
  for (int n_threads : {1, 2}) {
    CAPTURE(n_threads);
    reset_callback_state(3);
    const auto start = std::chrono::steady_clock::now();
    {
      InterruptCallbackGuard guard(&stop_after_a_few_calls);
      CHECK_THROWS_AS(problem.run(n_threads), vcgmm::Interrupted);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // The callback is polled about every 100 ms: three calls take ~0.2-0.3 s;
    // allow generous slack for a loaded machine, but not "ran to the end".
    CHECK(g_calls == 3);
    CHECK(seconds < 5.0);
    CHECK_FALSE(g_wrong_thread);
  }
  // Unregistered: the same kind of call runs normally again.
  CHECK((vcgmm::interrupt_callback() == nullptr));
  LongLloyd small;
  vcgmm::LloydParams p;
  p.max_iter = 2;
  const vcgmm::LloydResult r =
      vcgmm::lloyd(vcgmm::DataView<float>{small.x.data(), 3000, LongLloyd::d, nullptr}, 30, p,
                   vcgmm::RunOptions{}, small.centers.data());
  CHECK(r.n_iter == 2);
}

TEST_CASE("fit_kmeans is interruptible in its seeding and iterations") {
  // k-means++ with many centers: C - 1 passes over the data, each checked.
  const index_t n = 60000, d = 8, C = 3000;
  std::vector<float> x = gaussian<float>(n, d, 402);
  std::vector<float> centers(C * d);
  vcgmm::KMeansParams p;
  p.n_clusters = C;
  p.seeding.method = vcgmm::SeedingMethod::kmeans_plusplus;
  p.run.n_threads = 2;
  reset_callback_state(2);
  {
    InterruptCallbackGuard guard(&stop_after_a_few_calls);
    vcgmm::FitBuffers<float> buffers;
    buffers.centers = centers.data();
    CHECK_THROWS_AS(vcgmm::fit_kmeans(vcgmm::DataView<float>{x.data(), n, d, nullptr}, p, buffers),
                    vcgmm::Interrupted);
  }
  CHECK(g_calls == 2);
  CHECK_FALSE(g_wrong_thread);
}

TEST_CASE("a callback that never asks to stop changes nothing") {
  // Polled but always false: the result equals the run without a callback.
  const index_t n = 5000, d = 4, C = 20;
  const std::vector<double> x = blobs<double>(n, d, 20, 10.0, 1.0, 403);
  vcgmm::KMeansParams p;
  p.n_clusters = C;
  p.run.seed = 5;
  std::vector<double> a(C * d), b(C * d);
  const vcgmm::DataView<double> data{x.data(), n, d, nullptr};
  vcgmm::FitBuffers<double> out_a, out_b;
  out_a.centers = a.data();
  out_b.centers = b.data();
  const vcgmm::KMeansResult ra = vcgmm::fit_kmeans(data, p, out_a);
  reset_callback_state(1 << 30);
  {
    InterruptCallbackGuard guard(&stop_after_a_few_calls);
    const vcgmm::KMeansResult rb = vcgmm::fit_kmeans(data, p, out_b);
    CHECK(bitwise_equal(ra.objective, rb.objective));
  }
  CHECK(bitwise_equal(a, b));
}
