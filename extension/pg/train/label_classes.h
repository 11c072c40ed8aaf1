// Class labels of a classification target, mapped to the engine's class
// indices 0..K-1 in the glue (the engine trains on indices):
//  - text, varchar, char and enum targets: the classes are the distinct
//    values in the column's sort order (ORDER BY: collation order for text,
//    declaration order for an enum); the model stores them as class_names;
//  - bool targets: false, true (class_names too);
//  - numeric targets with a classification objective: the distinct values,
//    ascending; class i is the i-th smallest value (class_labels keeps the
//    values).  Labels that already are 0..K-1 are left as they are
//    (gbdt::decide_labels maps them, labels.h).
// For binary:logistic the positive class (P(class 1)) is the second one.
#pragma once

#include "pg_includes.h"

#include "read/relation_reader.h"

namespace gbdt_pg {

struct LabelClasses {
  int k = 0;                 // classes (0: labels used as they are)
  bool text = false;         // the target is read as text and looked up
  char** names = nullptr;    // k names (database encoding), in class order
  const char** model_names = nullptr;  // the same in UTF-8
  double* values = nullptr;  // numeric targets: k label values, ascending
  int* by_bytes = nullptr;   // text: class indices ordered by strcmp of the names
};

// Class indices 0 .. k-1 ordered by strcmp of their names (palloc'd), and
// the class index of name s in that order (-1: not a class): the lookup of
// text labels in training, gbdt_evaluate and validation_relation.
int* order_names_by_bytes(char* const* names, int k);
int find_name_by_bytes(char* const* names, const int* by_bytes, int k, const char* s);

// Whether a target of this type is read as text labels (string types, enums).
bool is_text_label_type(Oid typid);

// Distinct non-NULL values of text target `target` (at most kMaxClasses;
// more is an error naming the count), read with the caller's privileges.
void text_label_classes(const RelInfo* rel, const char* target, LabelClasses* out);

// Class index of a text label (a text Datum from the reader).  A value not
// among the classes (the relation changed between reads) is an error.
float text_label_code(const LabelClasses* lc, const char* target, Datum value);

// "'a', 'b', 'c'" (the first `max` values, then ", ..."), palloc'd.
char* quote_class_list(const LabelClasses* lc, int max);

}  // namespace gbdt_pg
