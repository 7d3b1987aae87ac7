#include "vcgmm/assignment.hpp"

#include "detail/assign.hpp"
#include "detail/validation.hpp"

namespace vcgmm {

template <typename T>
AssignmentStats assign_nearest(const DataView<T>& data, const T* centers, index_t n_centers,
                               std::int32_t* labels, double* min_d2, int n_threads) {
  detail::require_data(data, "assign_nearest", /*allow_zero_weights=*/true);
  detail::require_centers(centers, n_centers, "assign_nearest");
  return detail::assign_nearest(data, centers, n_centers, labels, min_d2, n_threads);
}

template <typename T>
double quantization_error(const DataView<T>& data, const T* centers, index_t n_centers,
                          int n_threads) {
  return assign_nearest(data, centers, n_centers, nullptr, nullptr, n_threads).objective;
}

template AssignmentStats assign_nearest<float>(const DataView<float>&, const float*, index_t,
                                               std::int32_t*, double*, int);
template AssignmentStats assign_nearest<double>(const DataView<double>&, const double*, index_t,
                                                std::int32_t*, double*, int);
template double quantization_error<float>(const DataView<float>&, const float*, index_t, int);
template double quantization_error<double>(const DataView<double>&, const double*, index_t, int);

}  // namespace vcgmm
