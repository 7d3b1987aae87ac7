// The principal axes of the subspace screen (see subspace_screen.hpp): a few
// subspace iterations, then Rayleigh-Ritz. Kept out of the header so that
// Eigen's QR and eigensolver are compiled once, not in every unit that screens.
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <vector>

#include "detail/parallel.hpp"
#include "detail/subspace_screen.hpp"

namespace vcgmm {
namespace detail {

index_t subspace_axes(const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>& a,
                      double total, index_t k, std::vector<double>* axes, int n_threads) {
  using C = SubspaceScreenConstants;
  using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
  const index_t s = a.rows(), d = a.cols();
  const index_t r = std::min<index_t>(d, (k > 0 ? k : C::kMaxAutoDims) + 8);
  Eigen::MatrixXd q = Eigen::MatrixXd::Zero(d, r);
  for (index_t c = 0; c < r; ++c) {  // start: strided sample rows (unit vectors beyond s)
    if (c < s) {
      q.col(c) = a.row((c * s) / r).transpose().cast<double>();
    } else {
      q(c, c) = 1.0;
    }
  }
  const auto orthonormalize = [&]() {
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(q);
    q = qr.householderQ() * Eigen::MatrixXd::Identity(d, r);
  };
  // a q and a^T (a q), each in fixed blocks of output rows (each block a
  // product of its own: the same sums whatever the threads).
  constexpr index_t kRows = 256, kCols = 16;
  const auto times_q = [&]() {
    const MatrixF qf = q.cast<float>();
    MatrixF aq(s, r);
    parallel_for(n_chunks(s, kRows), n_threads, [&](index_t t) {
      const index_t r0 = t * kRows, nr = std::min(kRows, s - r0);
      aq.middleRows(r0, nr).noalias() = a.middleRows(r0, nr) * qf;
    }, 2.0 * kRows * d * r);
    return aq;
  };
  orthonormalize();
  for (int it = 0; it < C::kIterations; ++it) {
    const MatrixF aq = times_q();
    MatrixF ataq(d, r);
    parallel_for(n_chunks(d, kCols), n_threads, [&](index_t t) {
      const index_t j0 = t * kCols, nj = std::min(kCols, d - j0);
      ataq.middleRows(j0, nj).noalias() = a.middleCols(j0, nj).transpose() * aq;
    }, 2.0 * kCols * s * r);
    q = ataq.cast<double>();
    orthonormalize();
  }
  const MatrixF aq = times_q();
  const Eigen::MatrixXd gram = (aq.transpose() * aq).cast<double>();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram);
  // Ritz values ascending: the leading axes are the last ones.
  const auto value = [&](index_t a_) { return std::max(0.0, eig.eigenvalues()[r - 1 - a_]); };
  if (k < 0) {
    k = 0;
    double kept = 0.0;
    for (index_t a_ = 0; a_ < std::min(r, C::kMaxAutoDims); ++a_) {
      kept += value(a_);
      if ((a_ + 1) % C::kAutoDimsStep == 0 && kept >= C::kAutoVariance * total) {
        k = a_ + 1;
        break;
      }
    }
    if (k == 0 && r >= C::kMaxAutoDims && kept >= C::kMinAutoVariance * total) k = C::kMaxAutoDims;
    if (k > d / 2) k = 0;
    if (k == 0) return 0;
  }
  const Eigen::MatrixXd v = q * eig.eigenvectors();  // orthonormal columns
  axes->resize(static_cast<std::size_t>(k * d));
  for (index_t a_ = 0; a_ < k; ++a_) {
    for (index_t j = 0; j < d; ++j) (*axes)[a_ * d + j] = v(j, r - 1 - a_);
  }
  return k;
}

}  // namespace detail
}  // namespace vcgmm
