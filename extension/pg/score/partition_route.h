// Scoring rows with a partitioned model (gbdt_train's partition_by): each
// row goes to the sub-model of its key columns' values (by name in the
// row, compared as the text the training stored), or, for a key no
// sub-model was trained for, to the model's fallback: the global model,
// NULL, or an error naming the key.
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"
#include "model/model_type.h"

namespace gbdt_pg {

struct ModelCategories;

struct PartitionRoute {
  const gbdt::Model* model = nullptr;        // the sub-model (or the global one)
  const ModelCategories* categories = nullptr;  // its category lookups (null: none)
  void** slot = nullptr;                     // its row mapping (row_features_in)
};

// The route of row th for partitioned model m (m->partitions set) at call
// site c; false when the row scores NULL (fallback "null").  The key
// columns are looked up by name once per row type; one missing from the
// row, or of another type than the training's, is an error naming it.
bool partition_route(CallCache* c, const gbdt::Model* m, HeapTupleHeader th, PartitionRoute* out);

// "col1=value, col2=NULL": a key of pm (text[k]: column k's value as text,
// null for NULL) for the error about a key without a sub-model.
char* key_message(const gbdt::PartitionedModel& pm, char** text);

}  // namespace gbdt_pg
