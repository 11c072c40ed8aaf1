// The steps of gbdt_train (train.cpp) and what each hands to the next:
//   TrainRequest  the SQL arguments, parameters as key/value texts
//   EnginePlan    the parameters applied once by the engine
//   ColumnRoles   the target, weight, group, upper-bound and feature columns
//   LoadedData    the training rows (and validation rows) read and binned
//   TrainLabels   the objective and classes (gbdt::decide_labels)
// Everything is palloc'd in the caller's memory context; the engine's
// TrainParams belongs to EnginePlan::cxt and is deleted with it.
#pragma once

#include "pg_includes.h"

#include "read/category_dict.h"
#include "read/relation_reader.h"
#include "train/feature_selection.h"
#include "train/label_classes.h"
#include "train/train_continue.h"
#include "train/train_data.h"
#include "train/train_load.h"

#include "gbdt/train.h"

namespace gbdt_pg {

// Parameters as key/value texts (the jsonb argument plus the keys that
// gbdt_train adds: the objective argument, an init model's carried keys).
struct ParamList {
  int n = 0;
  int cap = 0;
  char** keys = nullptr;
  char** values = nullptr;
  bool* is_string = nullptr;
};

struct TrainRequest {
  Oid relid = InvalidOid;
  char* target = nullptr;
  ArrayType* features = nullptr;     // null: every supported column
  ParamList params;
  bool objective_given = false;      // by the argument or the parameter
  const char* carried_group = nullptr;  // group_column carried from a ranking init_model
  TrainPlus plus;                    // init_model, validation_relation
  ExcludeList exclude;               // parameter "exclude", taken out of params
};

struct EnginePlan {
  MemoryContext cxt = nullptr;       // owns `params`
  gbdt::TrainParams* params = nullptr;  // applied once (engine object)
  // Plain copies of the parameters the glue reads.
  bool verbose = false;
  gbdt::Objective objective = gbdt::Objective::kSquaredError;
  int num_class = 0;
  char* weight_column = nullptr;
  char* group_column = nullptr;      // ranking
  char* upper_column = nullptr;      // survival:aft
  int max_bin = 256;
  size_t sample_rows = 0;
  int nthread = 1;                   // capped by gbdt.max_threads
  MemoryShape memory{1, 1, 6, 256, 0.0, false};
  CategoricalDecl* cat_decl = nullptr;
};

struct ColumnRoles {
  Form_pg_attribute target_att = nullptr;
  bool text_target = false;          // text/enum: class labels (label_classes.h)
  ValKind target_kind = ValKind::kNone;
  LabelClasses classes;              // a text target's classes
  // A text target's objective, decided before the load (its classes are
  // read first); the reason goes into the NOTICE.
  const char* text_reason = nullptr;
  ValKind weight_kind = ValKind::kNone;
  ValKind upper_kind = ValKind::kNone;  // survival:aft's upper bounds
  FeatureSet fs;
  ColumnList left_out;               // the default feature list's omissions
};

struct LoadedData {
  MemoryContext cxt = nullptr;       // owns the data (deleted after training)
  LoadSpec spec;
  LoadResult loaded;
  gbdt::BinnedInput* data = nullptr;
};

struct TrainLabels {
  gbdt::Objective objective = gbdt::Objective::kSquaredError;
  const char* reason = nullptr;
  int n_class_names = 0;             // class names stored in the model (UTF-8)
  const char** class_names = nullptr;
  int n_class_values = 0;            // numeric label values of the classes
  const double* class_values = nullptr;
};

// The request from gbdt_train's arguments (train_request.cpp).
TrainRequest* train_request_from_args(FunctionCallInfo fcinfo);

// Resolves the target (a text target's classes and objective decided),
// the role columns and the features of `rel` (train_columns.cpp).
void resolve_columns(const RelInfo* rel, TrainRequest* req, EnginePlan* plan, ColumnRoles* out);

// A gbdt::LabelPlan's fault as plain text: set() inside run_engine (it
// copies with the *_nothrow helpers), raise() after it: an ERROR with the
// fault's error code, message and hint, or nothing when there is none.
struct LabelFaultText {
  gbdt::LabelFault fault = gbdt::LabelFault::kNone;
  const char* message = nullptr;
  const char* hint = nullptr;
  void set(const gbdt::LabelPlan& p);
  void raise() const;
};

}  // namespace gbdt_pg
