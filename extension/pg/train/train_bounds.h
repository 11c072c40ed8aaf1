// gbdt_train's label_upper_bound_column (survival:aft): checked against
// the relation, kept out of the features, and read with the training rows
// (a numeric column; NULL = +Infinity, right-censored) into
// BinnedInput::labels_upper.  The engine checks the bounds (survival.h).
#pragma once

#include <vector>

#include "pg_includes.h"

#include "read/relation_reader.h"
#include "train/train_load.h"
#include "gbdt/model.h"

namespace gbdt_pg {

// Errors: the column does not exist, is not numeric, is the target or the
// weight column (each naming it).  An explicitly listed feature of that
// name is an error; one picked by default is dropped from `fs`.  Returns
// the column's kind.
ValKind check_upper_bound_column(const RelInfo* rel, const char* column, const char* target,
                                 const char* weight_column, bool features_given, FeatureSet* fs);

// the value of parameter `key` recorded in a model's params (a
// survival:aft init_model's label_upper_bound_column and distribution,
// which its continued training takes when not given), palloc'd; null when
// it has none.
const char* init_model_param(const gbdt::Model* init, const char* key);

struct UpperBounds;

// A collector whose memory belongs to `cxt` (freed when it is reset/deleted).
UpperBounds* upper_bounds_create(MemoryContext cxt);

// One row's value as the reader converted it (NULL: +Infinity).
void upper_bounds_add(UpperBounds* u, float value, bool isnull);

size_t upper_bounds_rows(const UpperBounds* u);

// Moves the values out (one per row added, in order).
void upper_bounds_take(UpperBounds* u, std::vector<float>* out);

}  // namespace gbdt_pg
