// Array columns as features: a float4[], float8[], smallint[], integer[] or
// bigint[] column `emb` of length L is L features named emb[1] .. emb[L]
// (1-based, as SQL subscripts).  Every non-NULL array of the column must
// have the length of the first one (an error names the column, the row's
// length and the expected one); a NULL array is L missing values, as are
// NULL elements.  Scoring finds emb[i] in column emb the same way.  An
// array whose subscripts do not start at 1 is an error (training and
// scoring), as its element emb[1] would not be feature emb[1].
#pragma once

#include "pg_includes.h"

#include "convert.h"
#include "read/relation_reader.h"

namespace gbdt_pg {

// The element kind of a supported one-dimensional numeric array type, else
// kNone.
ValKind array_element_kind(Oid typid);

// "emb[3]" -> base "emb" (palloc'd), index 3; false for other names.
bool parse_element_name(const char* name, char** base, int* index);

// "emb[i]" (palloc'd).
char* element_name(const char* base, int index);

// Length of the first non-empty array of column `col` in scan order (SPI, the
// caller's privileges); 0 when every value is NULL or empty.
int first_array_length(const RelInfo* rel, const char* col);

// Writes the `expected` elements of array d (isnull: all NaN) to dst as
// floats.  A different length is an error naming the column.  reject_inf:
// an infinite element is an error (training).
void expand_array(Datum d, bool isnull, ValKind elem, int expected, const char* col, float* dst,
                  bool reject_inf);

}  // namespace gbdt_pg
