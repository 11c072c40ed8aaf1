// gbdt_train's query-group column (ranking objectives, param group_column):
// checked against the relation, kept out of the features, and read with the
// training rows (as text, so any integer, text or other column works) into
// a dense code per row, groups numbered in the order of their first row.
#pragma once

#include <vector>

#include "pg_includes.h"

#include "read/relation_reader.h"
#include "train/train_load.h"

namespace gbdt_pg {

// Errors: the column does not exist (names it and the relation) or is the
// target.  An explicitly listed feature of that name is an error; one picked
// by default is dropped from `fs`.
void check_group_column(const RelInfo* rel, const char* group, const char* target,
                        bool features_given, FeatureSet* fs);

struct GroupCoder;

// A coder whose memory belongs to `cxt` (freed when it is reset/deleted).
GroupCoder* group_coder_create(MemoryContext cxt, const char* column);

// One row's value (a text datum, as the reader passes through): NULL is an
// error naming the column.
void group_coder_add(GroupCoder* c, Datum value, bool isnull);

// Rows coded so far.
size_t group_coder_rows(const GroupCoder* c);

// The codes so far (engine code may read them; never throws).
const std::vector<uint32_t>& group_coder_codes(const GroupCoder* c);

// Ranking weighs whole query groups (XGBoost: one weight per group): two
// rows of one group with different weights are an error naming the weight
// column, the group (its value) and the two weights.  `weights`: one per
// row coded so far.
void group_coder_check_weights(const GroupCoder* c, const float* weights,
                               const char* weight_column);

// Moves the codes out (one per row added, in order).
void group_coder_take(GroupCoder* c, std::vector<uint32_t>* out);

}  // namespace gbdt_pg
