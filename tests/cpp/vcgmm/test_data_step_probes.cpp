// detail::fewest_agreeing_probes (cpp/src/vcgmm/data_step_probes.hpp), the
// first data step's probe count: one probe on well-separated blobs whose
// means share a cell, more on one cloud of noise, the most below the sample's
// row threshold; the same count and evaluations on 1, 2 and 3 threads, and
// the index left probing the most; set_n_probe's bounds.
#include <doctest.h>

#include <cstdint>
#include <vector>

#include "test_helpers.hpp"
#include "vcgmm/data_step_probes.hpp"

using vcgmm::index_t;
using namespace vcgmm_test;

namespace {

constexpr int kMost = 4;

// n points around `blobs` centers spread `spread` apart (std 1), and C means:
// the blob centers plus small offsets, C / blobs per blob.
std::vector<float> blob_points(index_t n, index_t d, index_t blobs, double spread,
                               std::uint64_t seed, std::vector<float>* means, index_t C) {
  const std::vector<float> centers = gaussian<float>(blobs, d, seed, spread);
  const std::vector<float> noise = gaussian<float>(n, d, seed + 1);
  const std::vector<float> offsets = gaussian<float>(C, d, seed + 2, 0.5);
  std::vector<float> x(n * d);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < d; ++j) x[i * d + j] = centers[(i % blobs) * d + j] + noise[i * d + j];
  }
  means->resize(C * d);
  for (index_t c = 0; c < C; ++c) {
    for (index_t j = 0; j < d; ++j) {
      (*means)[c * d + j] = centers[(c % blobs) * d + j] + offsets[c * d + j];
    }
  }
  return x;
}

int probes_on(const std::vector<float>& x, index_t n, index_t d, const std::vector<float>& means,
              index_t C, int threads, std::int64_t* evals) {
  vcgmm::ApproximateAssignmentParams params;
  params.n_probe = kMost;
  vcgmm::CenterCellIndex<float> index(means.data(), C, d, params, threads);
  const vcgmm::DataView<float> data{x.data(), n, d, nullptr};
  *evals = 0;
  const int k = vcgmm::detail::fewest_agreeing_probes(data, index, kMost, threads, evals);
  CHECK(index.n_probe() == kMost);
  return k;
}

// The fraction of all rows whose label with `k` probes is farther than with kMost.
double farther_fraction(const std::vector<float>& x, index_t n, index_t d,
                        const std::vector<float>& means, index_t C, int k) {
  vcgmm::ApproximateAssignmentParams params;
  params.n_probe = kMost;
  vcgmm::CenterCellIndex<float> index(means.data(), C, d, params, 2);
  const vcgmm::DataView<float> data{x.data(), n, d, nullptr};
  std::vector<double> most(n), d2(n);
  index.assign(data, nullptr, most.data(), 2);
  index.set_n_probe(k);
  index.assign(data, nullptr, d2.data(), 2);
  index_t farther = 0;
  for (index_t i = 0; i < n; ++i) farther += d2[i] > most[i];
  return static_cast<double>(farther) / static_cast<double>(n);
}

}  // namespace

TEST_CASE("fewest_agreeing_probes: one cell where the means' cells hold the blobs") {
  const index_t n = vcgmm::detail::kProbeSampleMinRatio * vcgmm::detail::kProbeSampleRows;
  const index_t d = 8, blobs = 20, C = 400;  // 20 coarse cells (sqrt C), 20 means per blob
  std::vector<float> means;
  const std::vector<float> x = blob_points(n, d, blobs, 40.0, 11, &means, C);
  std::int64_t evals1 = 0;
  const int k = probes_on(x, n, d, means, C, 1, &evals1);
  CHECK(k == 1);
  CHECK(evals1 > 0);
  // The sample speaks for all rows: one probe leaves few labels farther.
  CHECK(farther_fraction(x, n, d, means, C, 1) <= 2 * vcgmm::detail::kProbeSampleFarther);
  for (int threads : {2, 3}) {
    std::int64_t evals = 0;
    CHECK(probes_on(x, n, d, means, C, threads, &evals) == k);
    CHECK(evals == evals1);
  }
}

TEST_CASE("fewest_agreeing_probes: more cells on one cloud of noise") {
  const index_t n = vcgmm::detail::kProbeSampleMinRatio * vcgmm::detail::kProbeSampleRows;
  const index_t d = 8, C = 400;
  const std::vector<float> x = gaussian<float>(n, d, 21);
  const std::vector<float> means = gaussian<float>(C, d, 22);
  std::int64_t evals1 = 0;
  const int k = probes_on(x, n, d, means, C, 1, &evals1);
  CHECK(k > 1);
  // ... as the rows say: one probe leaves many labels farther.
  CHECK(farther_fraction(x, n, d, means, C, 1) > 2 * vcgmm::detail::kProbeSampleFarther);
  for (int threads : {2, 3}) {
    std::int64_t evals = 0;
    CHECK(probes_on(x, n, d, means, C, threads, &evals) == k);
    CHECK(evals == evals1);
  }
}

TEST_CASE("fewest_agreeing_probes: below the sample's row threshold, the most, no search") {
  const index_t n = vcgmm::detail::kProbeSampleMinRatio * vcgmm::detail::kProbeSampleRows - 1;
  const index_t d = 4, blobs = 20, C = 400;
  std::vector<float> means;
  const std::vector<float> x = blob_points(n, d, blobs, 40.0, 31, &means, C);
  std::int64_t evals = 0;
  CHECK(probes_on(x, n, d, means, C, 2, &evals) == kMost);
  CHECK(evals == 0);
}

TEST_CASE("CenterCellIndex::set_n_probe clips to the cells and refuses < 1") {
  const std::vector<float> means = gaussian<float>(100, 4, 41);
  vcgmm::CenterCellIndex<float> index(means.data(), 100, 4, vcgmm::ApproximateAssignmentParams{}, 1);
  index.set_n_probe(1000);
  CHECK(index.n_probe() == index.n_cells());
  index.set_n_probe(1);
  CHECK(index.n_probe() == 1);
  CHECK_THROWS_AS(index.set_n_probe(0), vcgmm::InvalidArgument);
  CHECK(index.n_probe() == 1);
}
