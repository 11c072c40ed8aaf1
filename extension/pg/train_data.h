// Helpers shared by the functions that read relations: feature column
// resolution, memory estimate, byte formatting.
#pragma once

#include "pg_includes.h"

#include "relation_reader.h"

namespace gbdt_pg {

// Estimated training memory in bytes: the 1-byte bin matrix, 32 bytes per
// row (labels, gradients, positions, margins) and the float copy held while
// binning, of `float_rows` rows (every row when the relation is read in one
// pass, the cut sample when it is read in passes).
inline double training_bytes_estimate(double rows, int nfeatures, double float_rows) {
  return rows * (double)nfeatures + rows * 32.0 + float_rows * (double)nfeatures * 4.0;
}

// Refuses (ERROR, with estimate and limit in the message) when the
// estimate for rows x nfeatures exceeds gbdt.max_memory.  `at_least`:
// rows is a count so far, not the total.
void check_memory_estimate(double rows, int nfeatures, double float_rows, bool at_least);

// "12.3 MB" style text (palloc'd).
char* format_bytes(double bytes);

// Column `name` of rel as a numeric input column (feature or target):
// errors for a missing column and for an unsupported type, naming both.
ValKind require_numeric_column(const RelInfo* rel, const char* name, const char* role);

}  // namespace gbdt_pg
