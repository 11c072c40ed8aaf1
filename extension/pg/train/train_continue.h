// gbdt_train's continued training (init_model => m, XGBoost's xgb_model)
// and validation rows from a relation of the user's (params
// {"validation_relation": "name"}, XGBoost's evals): the glue that reads
// those rows with the training's (or the init model's) cuts.
#pragma once

#include "pg_includes.h"

#include "train/train_load.h"
#include "gbdt/train.h"

namespace gbdt_pg {

struct TrainPlus {
  const gbdt::Model* init = nullptr;          // the init_model argument (decoded, cached)
  const char* validation_relation = nullptr;  // the parameter as given
  char* validation_qualname = nullptr;        // resolved, schema-qualified (recorded)
  gbdt::ValidationRows* validation = nullptr; // owned by the data context
  std::vector<float>* init_margins = nullptr; // owned by the data context

  gbdt::TrainExtras extras() const {
    gbdt::TrainExtras e;
    e.init_model = init;
    e.validation = validation;
    e.init_margins = init_margins;
    return e;
  }
};

// The init_model argument `argno` (NULL or absent: none); a corrupt value
// is an ERROR (ERRCODE_DATA_CORRUPTED).
const gbdt::Model* init_model_arg(FunctionCallInfo fcinfo, int argno);

// Features of a continued training: the init model's, by name (a column
// missing from the relation is named); `features`, when given, must list
// the same columns in the same order.
void init_model_features(const RelInfo* rel, const char* target, const gbdt::Model* init,
                         ArrayType* features, FeatureSet* fs);

// the classes of a text target continued from init_model: the init
// model's class names, in its class order (an init model without class
// names is an error naming the target).
void init_label_classes(const gbdt::Model* init, const char* target, LabelClasses* out);

// A numeric target for an init model trained on class names (other than a
// bool target's false/true) is an error naming the target and the classes.
void check_init_target(const gbdt::Model* init, const char* target, bool text_target,
                       ValKind target_kind);

// Loads the training rows for a continued training into `cxt`: read as the
// init model's features (array columns expanded; categorical columns
// through its dictionaries, a value it has not seen scored as unseen and
// binned as missing, unseen_categories.h), binned with its cuts, with its
// margins on every row (plus->init_margins); the weight and group columns
// of spec, a text target through spec.labels (init_label_classes).
void load_continue_data(const LoadSpec& spec, TrainPlus* plus, MemoryContext cxt,
                        LoadResult* out);

// Reads plus->validation_relation (when set) into plus->validation: the
// same target and features as the training's `data` (a missing column is
// named; array columns expanded; categorical columns through its
// dictionaries, a value not seen in training going left at every split as
// in scoring; a text target through the training's classes, an unknown one
// named), read with the caller's privileges, binned with data's cuts.
void load_validation_relation(const LoadSpec& spec, const gbdt::BinnedInput& data,
                              TrainPlus* plus, MemoryContext cxt);

// Numeric class labels trained as classes 0 .. K-1 (labels 0/10/20 as 3
// classes): the validation rows' labels mapped the same way; a label that
// is not among the training's values is an error naming it.
void map_validation_labels(TrainPlus* plus, const char* target, const LabelClasses& classes);

}  // namespace gbdt_pg
