// Internal: a k-d tree over the subspace projections of a growing set of
// centers, for exact nearest-center queries whose cost does not grow with
// the number of centers chosen so far (AFK-MC^2's chains, blocks/afkmc2.cpp).
//
// The splits are fixed in advance from the projections of a sample of the
// data (median of the widest axis, until a node holds a set share of the
// sample); the centers are then inserted one by one into the leaf their
// projection falls in, and every node keeps the bounding box of the
// projections of the centers below it. For a query projection p the box
// gives, per node, sum_j dist(p_j, [lo_j, hi_j])^2, lowered by its rounding
// margin: at most the computed subspace bound (SubspaceScreen::bounds) of
// every center below the node, so a node whose box bound exceeds the
// screen's threshold holds no center the screen would measure. The search
// visits the near child first and skips the others by that test: the same
// exact nearest distance as a scan of every center, with the leaves near the
// query read and the far ones skipped whole. The tree changes only how many
// bounds are computed, never a result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "detail/subspace_screen.hpp"

namespace vcgmm {
namespace detail {

template <typename T>
class CenterTree {
 public:
  static constexpr index_t kLanes = SubspaceScreen<T>::kLanes;
  /// Box axes per vector of the vectorised box bound.
  static constexpr index_t kBoxLanes = 8;

  CenterTree() = default;

  /// Splits from `sample` (s, k) projections into about `n_leaves` leaves
  /// (a power of two, at most s / 2; at least one); the boxes span the
  /// first `box_dims` <= k axes.
  CenterTree(const T* sample, index_t s, index_t k, index_t n_leaves, index_t box_dims)
      : k_(k),
        kb_(box_dims),
        shrink_(1.0 - 2.0 * static_cast<double>(k + 2) *
                          static_cast<double>(std::numeric_limits<T>::epsilon())) {
    std::vector<index_t> rows(static_cast<std::size_t>(s));
    std::iota(rows.begin(), rows.end(), index_t(0));
    index_t depth = 0;
    while ((index_t(2) << depth) <= std::min(n_leaves, s / 2)) ++depth;
    build(sample, rows.data(), s, depth);
    lo_.assign(nodes_.size() * kb_, std::numeric_limits<T>::infinity());
    hi_.assign(nodes_.size() * kb_, -std::numeric_limits<T>::infinity());
  }

  /// Adds center `id` with projection p (k values): its leaf's packed
  /// projections (panels of kLanes, dimension-major, padding +infinity
  /// bounds as in SubspaceScreen::pack) and the boxes on its path.
  void insert(std::int32_t id, const T* p) {
    index_t v = 0;
    for (;;) {
      grow(v, p);
      const Node& node = nodes_[v];
      if (node.left < 0) break;
      v = p[node.axis] < node.split ? node.left : node.right;
    }
    Leaf& leaf = leaves_[nodes_[v].leaf];
    const index_t t = static_cast<index_t>(leaf.ids.size());
    if (t % kLanes == 0) {
      leaf.packed.resize(leaf.packed.size() + static_cast<std::size_t>(k_ * kLanes),
                         std::numeric_limits<T>::max());
    }
    T* panel = leaf.packed.data() + (t / kLanes) * k_ * kLanes;
    for (index_t j = 0; j < k_; ++j) panel[j * kLanes + t % kLanes] = p[j];
    leaf.ids.push_back(id);
  }

  struct Leaf {
    std::vector<std::int32_t> ids;  ///< the centers, in insertion order
    std::vector<T> packed;          ///< their projections, panels of kLanes
  };

  /// Depth-first over the nodes whose box bound for p does not exceed
  /// limit() (a screen threshold, SubspaceScreen::threshold), near child
  /// first; visit(leaf) for each leaf reached (it lowers the limit as it
  /// measures centers). The limit is read again at every node, so later
  /// nodes are tested against the latest one.
  template <class Limit, class Visit>
  void search(const T* p, Limit&& limit, Visit&& visit, std::vector<index_t>& stack) const {
    stack.clear();
    stack.push_back(0);
    while (!stack.empty()) {
      const index_t v = stack.back();
      stack.pop_back();
      if (box_bound(v, p) > limit()) continue;
      const Node& node = nodes_[v];
      if (node.left < 0) {
        visit(leaves_[node.leaf]);
        continue;
      }
      const bool left_first = p[node.axis] < node.split;
      stack.push_back(left_first ? node.right : node.left);
      stack.push_back(left_first ? node.left : node.right);
    }
  }

 private:
  struct Node {
    index_t left = -1, right = -1;  ///< children; -1 for a leaf
    index_t axis = 0;
    T split = T(0);
    index_t leaf = -1;  ///< a leaf's index in leaves_
  };

  // The subtree of rows[0, s) with `depth` levels of splits below it;
  // returns its root's index.
  index_t build(const T* sample, index_t* rows, index_t s, index_t depth) {
    const index_t v = static_cast<index_t>(nodes_.size());
    nodes_.emplace_back();
    if (depth == 0 || s < 2) {
      nodes_[v].leaf = static_cast<index_t>(leaves_.size());
      leaves_.emplace_back();
      return v;
    }
    index_t axis = 0;
    T widest = T(-1);
    for (index_t j = 0; j < kb_; ++j) {
      T a = std::numeric_limits<T>::infinity(), b = -a;
      for (index_t r = 0; r < s; ++r) {
        a = std::min(a, sample[rows[r] * k_ + j]);
        b = std::max(b, sample[rows[r] * k_ + j]);
      }
      if (b - a > widest) widest = b - a, axis = j;
    }
    const index_t half = s / 2;
    std::nth_element(rows, rows + half, rows + s, [&](index_t a, index_t b) {
      const T va = sample[a * k_ + axis], vb = sample[b * k_ + axis];
      return va < vb || (va == vb && a < b);
    });
    const T split = sample[rows[half] * k_ + axis];
    const index_t left = build(sample, rows, half, depth - 1);
    const index_t right = build(sample, rows + half, s - half, depth - 1);
    nodes_[v].left = left;
    nodes_[v].right = right;
    nodes_[v].axis = axis;
    nodes_[v].split = split;
    return v;
  }

  void grow(index_t v, const T* p) {
    T* lo = lo_.data() + v * kb_;
    T* hi = hi_.data() + v * kb_;
    for (index_t j = 0; j < kb_; ++j) {
      lo[j] = std::min(lo[j], p[j]);
      hi[j] = std::max(hi[j], p[j]);
    }
  }

  // sum_j dist(p_j, [lo_j, hi_j])^2 over the box's axes, computed in T
  // and lowered by 2 (k + 2) eps of T: below the screen's computed bound of
  // every center in the box (each gap is at most the center's difference on
  // that axis, rounding being monotone; the two sums, in any order or
  // contraction, are within (k + 2) eps of their exact values); +infinity
  // for an empty node.
  double box_bound(index_t v, const T* p) const {
    const T* lo = lo_.data() + v * kb_;
    const T* hi = hi_.data() + v * kb_;
    if (!(lo[0] <= hi[0])) return std::numeric_limits<double>::infinity();
    T sum = T(0);
#if defined(__GNUC__) || defined(__clang__)
    if (kb_ % kBoxLanes == 0) {
      typedef T V __attribute__((vector_size(kBoxLanes * sizeof(T))));
      V acc = {};
      const V zero = {};
      for (index_t j0 = 0; j0 < kb_; j0 += kBoxLanes) {
        V a, b, x;
        __builtin_memcpy(&a, lo + j0, sizeof(V));
        __builtin_memcpy(&b, hi + j0, sizeof(V));
        __builtin_memcpy(&x, p + j0, sizeof(V));
        const V below = a - x, above = x - b;
        V gap = below > above ? below : above;
        gap = gap > zero ? gap : zero;
        acc += gap * gap;
      }
      for (index_t j = 0; j < kBoxLanes; ++j) sum += acc[j];
      return static_cast<double>(sum) * shrink_;
    }
#endif
    for (index_t j = 0; j < kb_; ++j) {
      const T gap = p[j] < lo[j] ? lo[j] - p[j] : (p[j] > hi[j] ? p[j] - hi[j] : T(0));
      sum += gap * gap;
    }
    return static_cast<double>(sum) * shrink_;
  }

  index_t k_ = 0, kb_ = 0;
  double shrink_ = 1.0;
  std::vector<Node> nodes_;
  std::vector<Leaf> leaves_;
  std::vector<T> lo_, hi_;  // (nodes, box_dims) boxes
};

}  // namespace detail
}  // namespace vcgmm
