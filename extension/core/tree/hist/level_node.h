// A node of the depth-wise tree being grown, as the parts of the CPU driver
// (updater.cpp) hand it to each other: its rows (a segment of one of the two
// row lists), its gradient sum and its histogram.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../split_math.h"

namespace gbdt {

struct LevelNode {
  int32_t id;         // node id in the tree
  size_t begin, end;  // segment of `rows`
  GradSum sum;
  GradSum* hist;      // nullptr when not needed (last level)
  // When set, hist still holds the parent's histogram and this node's is
  // hist - pending_small: the split scan subtracts it feature by feature, in
  // place, right before reading it (one pass over memory fewer).
  const GradSum* pending_small = nullptr;
  // The row list holding the node's rows at [begin, end): one of the
  // partitioner's two lists (RowPartitioner routes a node's rows from one
  // into the other).
  uint32_t* rows = nullptr;
  size_t size() const { return end - begin; }
};

}  // namespace gbdt
