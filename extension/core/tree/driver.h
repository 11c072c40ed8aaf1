// The expansion policy of tree growth (XGBoost's src/tree/driver.h): which
// open nodes split next.
//  - depth-wise: a batch is a whole level, in the order its nodes were
//    pushed; the children pushed while it is split make up the next one;
//  - loss-guided: a batch is the one open node with the largest gain (ties:
//    the order `worse` gives, e.g. the lower node id);
//  - max_leaves (0: no limit): each split adds one leaf; a batch holds at
//    most the splits the limit still allows, the nodes left out are handed
//    back by take_dropped() (their histograms can go back to the pool).
// max_depth is the caller's: it pushes only nodes that may split.
#pragma once
#include <cstddef>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace gbdt {

template <typename Entry>
class Driver {
 public:
  // worse(a, b): a splits after b (loss-guided only).
  using Worse = std::function<bool(const Entry&, const Entry&)>;
  Driver(bool lossguide, int max_leaves, Worse worse = Worse())
      : lossguide_(lossguide), max_leaves_(max_leaves), heap_(worse ? worse : Worse(by_default)) {}

  void push(Entry e) {
    if (lossguide_)
      heap_.push(std::move(e));
    else
      next_.push_back(std::move(e));
  }
  void push(std::vector<Entry> es) {
    for (Entry& e : es) push(std::move(e));
  }

  // The next nodes to split; empty when the tree is done.
  std::vector<Entry> pop() {
    std::vector<Entry> batch;
    if (lossguide_) {
      if (heap_.empty() || !room()) return batch;
      batch.push_back(heap_.top());
      heap_.pop();
    } else {
      batch.swap(next_);
      if (max_leaves_ > 0) {
        const size_t allowed = room() ? (size_t)(max_leaves_ - num_leaves_) : 0;
        for (size_t i = allowed; i < batch.size(); ++i) dropped_.push_back(std::move(batch[i]));
        if (batch.size() > allowed) batch.resize(allowed);
      }
      if (!batch.empty()) ++depth_;
    }
    num_leaves_ += (int)batch.size();
    return batch;
  }

  // The open nodes that will not split (max_leaves reached): those left
  // out of a batch and, once pop() has returned empty, the rest.
  std::vector<Entry> take_dropped() {
    while (!heap_.empty() && !room()) {
      dropped_.push_back(heap_.top());
      heap_.pop();
    }
    std::vector<Entry> out;
    out.swap(dropped_);
    return out;
  }

  // Leaves of the tree so far (the root is one).
  int num_leaves() const { return num_leaves_; }
  // Depth-wise: the depth of the last batch's nodes (0: the root).
  int depth() const { return depth_ - 1; }

 private:
  static bool by_default(const Entry&, const Entry&) { return false; }
  bool room() const { return max_leaves_ <= 0 || num_leaves_ < max_leaves_; }

  bool lossguide_;
  int max_leaves_;
  int num_leaves_ = 1;
  int depth_ = 0;
  std::vector<Entry> next_;
  std::vector<Entry> dropped_;
  std::priority_queue<Entry, std::vector<Entry>, Worse> heap_;
};

}  // namespace gbdt
