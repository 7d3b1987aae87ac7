// detail::ScratchPool (cpp/src/detail/scratch_pool.hpp): the (C,) work arrays
// of the variational E-step and neighbourhood fold. Checked: a lease holds
// `size` values equal to `fill`; an array given back is handed out again
// (no new allocation while tasks run one after another); concurrent tasks
// get distinct arrays, at most one per running task; arrays survive their
// holders only in the pool.
#include <doctest.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

#include "detail/parallel.hpp"
#include "detail/scratch_pool.hpp"

using vcgmm::index_t;
using vcgmm::detail::ScratchPool;

TEST_CASE("scratch pool: leases are filled arrays, reused after they are given back") {
  ScratchPool<std::int32_t> pool(1000, -1);
  const std::int32_t* first = nullptr;
  {
    ScratchPool<std::int32_t>::Lease a(pool);
    CHECK(std::all_of(a.data(), a.data() + 1000, [](std::int32_t v) { return v == -1; }));
    a.data()[17] = 5;  // used, then restored, as the pool's holders must
    a.data()[17] = -1;
    first = a.data();
  }
  ScratchPool<std::int32_t>::Lease b(pool);
  CHECK(b.data() == first);  // the same array again, not a new one
  {
    ScratchPool<std::int32_t>::Lease c(pool);  // while b is held: another one
    CHECK(c.data() != b.data());
    CHECK(std::all_of(c.data(), c.data() + 1000, [](std::int32_t v) { return v == -1; }));
  }
}

TEST_CASE("scratch pool: concurrent tasks hold distinct arrays, at most one per thread") {
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    ScratchPool<std::uint8_t> pool(4096, 0);
    std::mutex m;
    std::set<const std::uint8_t*> seen;
    bool clean = true;
    vcgmm::detail::parallel_for(64, threads, [&](index_t t) {
      ScratchPool<std::uint8_t>::Lease lease(pool);
      std::uint8_t* a = lease.data();
      bool all_zero = std::all_of(a, a + 4096, [](std::uint8_t v) { return v == 0; });
      // Mark, work a little, check nobody else wrote into this array, restore.
      for (index_t i = t; i < 4096; i += 64) a[i] = static_cast<std::uint8_t>(t + 1);
      for (index_t i = t; i < 4096; i += 64) all_zero &= a[i] == static_cast<std::uint8_t>(t + 1);
      for (index_t i = t; i < 4096; i += 64) a[i] = 0;
      std::lock_guard<std::mutex> lock(m);
      clean &= all_zero;
      seen.insert(a);
    });
    CHECK(clean);
    CHECK(!seen.empty());
    CHECK(seen.size() <= static_cast<std::size_t>(threads));
  }
}
