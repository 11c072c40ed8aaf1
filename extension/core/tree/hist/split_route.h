// The routing of a chosen split (row_partition.h RowRoute) for the CPU
// paths that move rows by it: the partition and the last level of the
// depth-wise grower (cpu_backend.cpp, last_level_update.h) and the general
// grower (tree_grower.cpp).
#pragma once
#include "row_partitioner.h"
#include "../split_math.h"
#include "../apply_split.h"

namespace gbdt {

// Split s of a feature with nb value bins; set: its right bin set when it
// is categorical (null: numeric).
inline RowRoute row_route(const SplitCandidate& s, int nb, const CatWords* set) {
  RowRoute r;
  r.split_bin = (unsigned)s.bin;
  r.nb = (unsigned)nb;
  r.default_left = s.default_left != 0;
  if (set) {
    r.words = set->words;
    r.nwords = set->nwords;
  }
  return r;
}

}  // namespace gbdt
