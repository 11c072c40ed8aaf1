// Helpers shared by the functions that read relations: feature column
// resolution, memory estimate, byte formatting.
#pragma once

#include "pg_includes.h"

#include "read/relation_reader.h"

namespace gbdt_pg {

// What the memory of a training depends on besides its rows and features.
struct MemoryShape {
  int num_class;     // output groups (1 until known)
  int nthread;
  int max_depth;
  int max_bin;
  double validation_fraction;
  bool subsample;
  // num_class counts quantiles (a quantile_alpha list): one backend each.
  bool quantiles = false;
};

// Estimated peak memory in bytes of loading and training on rows x
// nfeatures (gbdt::estimate_training_memory: data, gradients, margins per
// class, row indices, the root's histograms, one tree), or of the load
// itself: the bin matrix plus the float copy of `float_rows` rows (every
// row when the relation is read in one pass, the cut sample when it is read
// in passes), whichever is larger.
double training_bytes_estimate(double rows, int nfeatures, double float_rows,
                               const MemoryShape& ms);

// Refuses (ERROR, ERRCODE_PROGRAM_LIMIT_EXCEEDED, with estimate and limit
// in the message) when the estimate exceeds gbdt.max_memory.  `at_least`:
// rows is a count so far, not the total.
void check_memory_estimate(double rows, int nfeatures, double float_rows, bool at_least,
                           const MemoryShape& ms);

// "12.3 MB" style text (palloc'd).
char* format_bytes(double bytes);

// Column `name` of rel as a numeric input column (feature or target):
// errors for a missing column and for an unsupported type, naming both.
ValKind require_numeric_column(const RelInfo* rel, const char* name, const char* role);

}  // namespace gbdt_pg
