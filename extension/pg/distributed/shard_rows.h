// A shard's rows for training across servers: the target, the weight
// column and the features of one relation of THIS server, read with the
// caller's rights (read_relation: SPI, so privileges and row-level security
// apply) and converted as the local training loader converts them.
#pragma once

#include "pg_includes.h"

namespace gbdt_pg {

struct ShardRows {
  size_t n = 0;              // rows kept (those with a target)
  uint64 skipped = 0;        // rows left out for a NULL or NaN target
  int nf = 0;                // features
  float* labels = nullptr;   // n
  float* weights = nullptr;  // n, or null without a weight column
  float** cols = nullptr;    // nf columns of n floats (NaN: missing)
};

// Reads relation `relation` (a qualified name, parsed, never pasted into
// SQL) into *out, in memory context cxt.  Rows with a NULL or NaN target
// are left out, as the local loader leaves them out; a NULL, negative or
// non-finite weight is the local loader's error.  A column of a type that
// is not a plain number (text, arrays, ...) is an error naming it.
void read_shard_rows(const char* relation, const char* target, const char* weight,
                     const char* const* features, int nf, MemoryContext cxt, ShardRows* out);

}  // namespace gbdt_pg
