// Internal: work arrays of O(C) kept in a known state between the tasks of
// a parallel_for, owned by one object (and freed with it).
//
// Some tasks need an array indexed by cluster that is all `fill` between
// uses (the E-step's "already in S(n)" flags, the neighbourhood fold's
// candidate positions). Allocating and clearing one per task costs O(C) per
// task -- at C = 2^18 more than the task's own work -- and a thread_local one
// would outlive the fit. A ScratchPool hands each running task an array
// (created on first need, so at most one per concurrently running task) and
// takes it back when the task's lease ends; the task must leave it all
// `fill` again. Which array a task gets never matters (they are equal), so
// results do not depend on the threads.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "vcgmm/common.hpp"

namespace vcgmm {
namespace detail {

template <typename T>
class ScratchPool {
 public:
  /// Arrays of `size` values, all `fill` between leases.
  ScratchPool(index_t size, T fill) : size_(size), fill_(fill) {}

  /// One array for the duration of a task (taken from the pool, or created);
  /// returned on destruction (the holder must have restored every value to
  /// `fill`).
  class Lease {
   public:
    explicit Lease(ScratchPool& pool) : pool_(pool), array_(pool.take()) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { pool_.give_back(std::move(array_)); }
    T* data() { return array_->data(); }

   private:
    ScratchPool& pool_;
    std::unique_ptr<std::vector<T>> array_;
  };

 private:
  std::unique_ptr<std::vector<T>> take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<std::vector<T>> array = std::move(free_.back());
        free_.pop_back();
        return array;
      }
    }
    auto array = std::make_unique<std::vector<T>>(static_cast<std::size_t>(size_), fill_);
    std::lock_guard<std::mutex> lock(mutex_);
    free_.reserve(++created_);  // so that give_back (in a destructor) never allocates
    return array;
  }

  void give_back(std::unique_ptr<std::vector<T>> array) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(array));
  }

  index_t size_;
  T fill_;
  std::mutex mutex_;
  std::size_t created_ = 0;  // arrays created (free_ has room for all)
  std::vector<std::unique_ptr<std::vector<T>>> free_;
};

}  // namespace detail
}  // namespace vcgmm
