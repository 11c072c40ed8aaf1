// Reads gbdt_train's relation into binned training data (gbdt::BinnedInput).
//
// Plain tables (the direct heap scan, see relation_reader.h) take three
// passes under one snapshot, so the float copy of the table is never
// resident: (1) count the rows with a target, deforming only up to the
// target; (2) read the cut sample (gbdt::cut_sample_row, every row when
// there are at most gbdt::cut_sample_rows(d)) as floats; (3) bin every row
// as it is read (gbdt::RowBinner) into the 1-byte matrix.  When the sample
// is the whole table, pass (3) is not needed: the sample is binned as the
// in-memory engine bins its input.  A plain table whose planner estimate
// puts its float copy within the cut sample's own bound (64 MiB) and
// gbdt.max_memory is read in one pass instead (load_one_pass in
// train_load.cpp), with the same column checks, cuts and bins as the
// passes; it falls back to them when the table outgrew its estimate.  The
// column checks, cuts and bins run on spec.nthread threads after the
// (single-threaded) scan; results never depend on the thread count.  Views, tables with row-level security
// and the like are read once through SPI into float columns, binned, and
// the floats freed before training.  Either way the cuts and bins equal
// those of gbdt::train_model on the same rows in the same order.
#pragma once

#include "pg_includes.h"

#include "gbdt/load_internals.h"
#include "train/label_classes.h"
#include "read/relation_reader.h"
#include "train/train_data.h"
#include "gbdt/train.h"

namespace gbdt_pg {

using gbdt::ColumnCheck;  // column_checks.h (engine)
using gbdt::check_columns;

struct FeatureSet {
  int n;                     // columns read
  const char** names;        // column names (database encoding)
  const char** model_names;  // the same in UTF-8, as stored in the model
  ValKind* kinds;            // kArray: an array column of widths[i] features
  // array columns (array_features.h) expand to several features; the
  // features trained on are the x_* (nx of them; the columns themselves
  // when there is no array column).
  bool has_arrays;
  int* widths;               // per column: 1, or the array length
  ValKind* elem_kinds;       // per column: the array's element kind
  int nx;
  const char** x_names;      // per feature (database encoding)
  const char** x_model_names;
  gbdt::FeatureType* x_types;
};

// Takes a column with a role of its own (group_column,
// label_upper_bound_column) out of the feature list: an error when the
// caller named it as a feature (features_given) or when no feature is left.
void remove_role_column(const RelInfo* rel, const char* target, const char* column,
                        const char* role, bool features_given, FeatureSet* fs);

struct LoadSpec {
  const RelInfo* rel;
  const char* target;
  ValKind target_kind;
  const FeatureSet* features;
  int max_bin;
  size_t sample_rows;  // rows of the cut sample (0 = gbdt::cut_sample_rows)
  int nthread;
  MemoryShape memory;  // for the gbdt.max_memory checks
  // text labels looked up in their classes (null: numeric target), and
  // the weight column (null: none), read after the target.
  const LabelClasses* labels;
  const char* weight_column;
  ValKind weight_kind;
  // Leave constant columns out (the default feature list) when every row
  // is checked (the relation fits the cut sample).
  bool drop_constant;
  // the query-group column (ranking), read as text with every row into
  // BinnedInput::query_group (train_groups.h); null = none.
  const char* group_column = nullptr;
  // survival:aft's label_upper_bound_column (numeric), read with every
  // row into BinnedInput::labels_upper (train_bounds.h); null = none.
  const char* upper_column = nullptr;
  ValKind upper_kind = ValKind::kNone;
  // the most distinct values of a categorical column (max_categories).
  int max_categories = gbdt::kMaxCategories;  // distinct values of a categorical column
};

struct LoadResult {
  gbdt::BinnedInput* data;  // owned by the memory context given to load_training_data
  uint64 rows_read;         // including rows skipped for a NULL target
  int passes;               // over the relation
  size_t sample_rows;       // rows the cuts were computed from
  // column_checks.h per feature of spec.features, on every row when
  // checked_all_rows, else on the cut sample; the features trained on
  // (kept[i] indexes spec.features; n_kept of them: all unless constant
  // columns were dropped).
  ColumnCheck* checks;
  bool checked_all_rows;
  int* kept;
  int n_kept;
  // Per feature: value_checks.h on the same rows for categorical and
  // integer features (checked false for the others), and why the feature
  // is an identifier (feature_selection.h identifier_reason; null: it is
  // not).  The default feature list leaves identifiers out when every row
  // is checked.
  gbdt::ValueCheck* values;
  const char** identifier;
};

// Loads into `cxt`: the result and every engine object of the load belong
// to it (freed when it is deleted, also on error or cancel).  Errors (no
// rows, all targets NULL, infinities, memory limit) are raised here.
void load_training_data(const LoadSpec& spec, MemoryContext cxt, LoadResult* out);

}  // namespace gbdt_pg
