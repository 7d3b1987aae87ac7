// Internal: exact nearest-center assignment without argument checks (the
// public assign_nearest in assignment.hpp checks, then calls this; the
// algorithms call this directly on arguments they already checked).
#pragma once

#include <cstdint>

#include "detail/blocked_scan.hpp"
#include "vcgmm/assignment.hpp"

namespace vcgmm {
namespace detail {

template <typename T>
struct AssignHandler {
  struct Partial {
    double objective = 0.0;
    index_t n_changed = 0;
    Partial& operator+=(const Partial& o) {
      objective += o.objective;
      n_changed += o.n_changed;
      return *this;
    }
  };
  using Block = NoBlock;
  static constexpr bool kVisitsTiles = false;

  const DataView<T>& data;
  std::int32_t* labels;  // IN/OUT or nullptr
  double* min_d2;        // OUT or nullptr

  void row(Block&, Partial& part, index_t row, index_t, const std::int32_t* idx, const double* d2,
           int) const {
    part.objective += data.weight(row) * d2[0];
    if (min_d2) min_d2[row] = d2[0];
    if (labels) {
      part.n_changed += labels[row] != idx[0];
      labels[row] = idx[0];
    }
  }
};

/// See vcgmm::assign_nearest (assignment.hpp); arguments are not checked.
template <typename T>
AssignmentStats assign_nearest(const DataView<T>& data, const T* centers, index_t n_centers,
                               std::int32_t* labels, double* min_d2, int n_threads) {
  const CenterTiles<T> tiles(centers, n_centers, data.d);
  const AssignHandler<T> handler{data, labels, min_d2};
  const auto total = scan_nearest(data, tiles, 1, handler, n_threads, 2.0 * data.d);
  AssignmentStats stats;
  stats.objective = total.objective;
  stats.n_changed = total.n_changed;
  return stats;
}

}  // namespace detail
}  // namespace vcgmm
