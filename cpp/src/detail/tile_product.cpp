// The matrix product of the blocked distance scans (see center_tiles.hpp),
// instantiated here once for float and double instead of in every unit that
// scans: the expression and its types are those the scans used inline, so
// the arithmetic is the same.
#include "detail/center_tiles.hpp"

namespace vcgmm {
namespace detail {

template <typename T>
void add_tile_product(T* tile, const T* xs, index_t nrows, index_t d,
                      const RowMatrix<T>& shifted, index_t j0, index_t width) {
  AlignedRowMap<T> ip(tile, CenterTiles<T>::kMaxRowBlock, CenterTiles<T>::kCenterTile);
  const AlignedRowMap<T> xb(const_cast<T*>(xs), nrows, d);
  auto out = ip.topLeftCorner(nrows, width);
  out.noalias() += T(-2) * (xb * shifted.middleRows(j0, width).transpose());
}

template void add_tile_product<float>(float*, const float*, index_t, index_t,
                                      const RowMatrix<float>&, index_t, index_t);
template void add_tile_product<double>(double*, const double*, index_t, index_t,
                                       const RowMatrix<double>&, index_t, index_t);

}  // namespace detail
}  // namespace vcgmm
