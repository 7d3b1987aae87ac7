// The region trace (vcgmm::start_region_trace, cpp/src/detail/parallel.cpp):
// while on, every parallel_for of the calling thread runs its tasks on that
// thread and the outermost ones are recorded, one duration per task in task
// order, with the region's work cap; nested regions are not recorded
// separately; resolve_threads reports the thread count as asked, beyond the
// machine's cap; results and the calling code are unchanged.
#include <doctest.h>

#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "detail/parallel.hpp"
#include "vcgmm/common.hpp"

using vcgmm::index_t;
using vcgmm::detail::parallel_for;

TEST_CASE("region trace: outermost regions on the calling thread, one time per task") {
  const int many = vcgmm::detail::max_threads() + 5;
  std::set<std::thread::id> ids;
  vcgmm::start_region_trace();
  CHECK(vcgmm::detail::resolve_threads(many) == many);
  std::vector<int> out(10, 0);
  parallel_for(10, many, [&](index_t t) {
    ids.insert(std::this_thread::get_id());  // one thread: no race
    out[t] = static_cast<int>(t);
    if (t == 3) {
      parallel_for(4, many, [&](index_t) { ids.insert(std::this_thread::get_id()); });
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }, 3e6);  // work cap: 10 * 3e6 / kMinWorkPerThread = 15 threads
  parallel_for(2, many, [&](index_t) {}, 1.0);
  const std::vector<vcgmm::RegionTrace> trace = vcgmm::stop_region_trace();
  CHECK(ids.size() == 1);
  CHECK((*ids.begin() == std::this_thread::get_id()));
  for (int t = 0; t < 10; ++t) CHECK(out[t] == t);
  REQUIRE(trace.size() == 2);  // the nested region is inside task 3
  CHECK(trace[0].task_seconds.size() == 10);
  CHECK(trace[0].worth == doctest::Approx(10 * 3e6 / vcgmm::detail::kMinWorkPerThread));
  CHECK(trace[0].task_seconds[3] >= 0.004);
  double sum = 0.0;
  for (double s : trace[0].task_seconds) sum += s;
  CHECK(sum <= trace[0].end - trace[0].start + 1e-9);
  CHECK(trace[1].task_seconds.size() == 2);
  CHECK(trace[1].start >= trace[0].end);
  // Off again: the cap is back, and nothing is recorded.
  CHECK(vcgmm::detail::resolve_threads(many) < many);
  parallel_for(4, 2, [&](index_t) {});
  CHECK(vcgmm::stop_region_trace().empty());
}

TEST_CASE("region trace: a region that throws is closed, and the trace goes on") {
  vcgmm::start_region_trace();
  CHECK_THROWS_AS(parallel_for(3, 2, [&](index_t t) {
    if (t == 1) throw std::runtime_error("task failed");
  }), std::runtime_error);
  parallel_for(2, 2, [&](index_t) {});
  const auto trace = vcgmm::stop_region_trace();
  REQUIRE(trace.size() == 2);
  CHECK(trace[0].task_seconds.size() == 2);  // tasks 0 and 1 ran; 2 was skipped
  CHECK(trace[1].task_seconds.size() == 2);
}
