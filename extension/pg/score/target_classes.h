// The target of a classification model's evaluation rows (gbdt_evaluate)
// and of a training's validation_relation, mapped to the class indices the
// model was trained on:
//  - a model trained on class names (a text, enum or bool target): a text,
//    varchar, char or enum target is looked up by its text, a bool target as
//    'false' / 'true';
//  - a model whose classes are numeric label values other than 0 .. K-1
//    (labels 0/10/20 trained as 3 classes): the value is looked up among
//    them;
//  - otherwise the value is used as it is (the objective's checks apply).
// A value that is not a class is an error naming the column, the value and
// the classes.
#pragma once

#include "pg_includes.h"

#include "convert.h"
#include "gbdt/model.h"
#include "read/relation_reader.h"

namespace gbdt_pg {

struct TargetClasses {
  enum class Mode : uint8_t { kAsIs, kNames, kValues };
  Mode mode = Mode::kAsIs;
  ValKind kind = ValKind::kNone;  // how the reader reads the target column
  bool is_bool = false;           // kNames with a bool column
  const char* target = nullptr;
  const char* where = "";         // " of validation_relation \"v\"" (messages)
  int k = 0;
  char** names = nullptr;         // kNames: class names (database encoding), class order
  int* by_bytes = nullptr;        // kNames: class indices sorted by strcmp of the names
  double* values = nullptr;       // kValues: label values, class order
  int* by_value = nullptr;        // kValues: class indices sorted by value
};

// For gbdt_evaluate: target column `target` of rel for model m.  A text
// target for a model without class names, a column of an unsupported type:
// errors naming the column.
void target_classes_for_model(const RelInfo* rel, const char* target, const gbdt::Model* m,
                              TargetClasses* out);

// For a validation_relation: the training's classes (names in the database
// encoding, or label values; k of them); `where` is worded into messages.
void target_classes_from_names(const char* target, const char* where, int k,
                               char* const* names, bool is_bool, TargetClasses* out);
void target_classes_from_values(const char* target, const char* where, int k,
                                const double* values, TargetClasses* out);

// The class index (as float) of a non-NULL target read as tc->kind (vals
// entry `val`, or the text datum in the slot for kNames with a text
// column); kAsIs: val unchanged.
float target_class(const TargetClasses* tc, Datum d, float val);

}  // namespace gbdt_pg
