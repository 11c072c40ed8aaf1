// Class names of classification models for SQL: the stored name of a text,
// enum or bool label (Model::class_names), else the label value as text.
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"

namespace gbdt_pg {

// Class k's name as text (database encoding).
Datum class_name_datum(const gbdt::Model* m, int k);

// gbdt_model_info's jsonb with "class_names": [...] added for models that
// store class names (the same object otherwise).
Datum add_class_names(const gbdt::Model* m, Datum info);

}  // namespace gbdt_pg
