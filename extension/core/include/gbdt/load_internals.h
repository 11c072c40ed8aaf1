// gbdt engine: the parts of the load the glue still drives itself while
// the loaders move behind load_binned (gbdt/data_source.h).  Transitional:
// each entry goes when its last glue user does.
//   binned_matrix.h, quantile.h  - RowBinner, cuts_from_sample,
//       cut_sample_row, set_value_range: train_load.cpp's sample and
//       binning passes
//   raw_rows.h, row_columns.h     - the raw pass (read/relation_reader.cpp,
//       read/raw_layout.h, read/tuple_walk.h) and its sinks (train_load.cpp)
//   column_checks.h, value_checks.h - the column checks of the default
//       feature list (train_load.cpp, train/feature_selection.h)
//   unseen_categories.h           - continued training (train_continue.cpp)
//   nbase_decimal.h               - numeric conversion (convert.cpp,
//       read/tuple_walk.cpp)
#pragma once

#include "data_source.h"
#include "threads.h"
#include "../../data/binned_matrix.h"
#include "../../data/quantile.h"
#include "../../data/raw_rows.h"
#include "../../data/row_columns.h"
#include "../../data/column_checks.h"
#include "../../data/value_checks.h"
#include "../../data/unseen_categories.h"
#include "../../data/nbase_decimal.h"
