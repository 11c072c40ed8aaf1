// The relation-level scoring functions of a partitioned model
// (partition_table.cpp, partition_evaluate.cpp): rows routed to their
// key's sub-model.
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"
#include "read/rel_info.h"

namespace gbdt_pg {

// The key columns of pm in rel (database encoding, quoted), each checked
// to exist and to be of the training's type (errors naming the column).
const char** partition_key_columns(const gbdt::PartitionedModel& pm, const RelInfo* rel);

// gbdt_predict_table(model, relation, key [, output]) of partitioned model
// m: one pass over the relation through SQL, each row scored by
// gbdt_predict (partition_route.h: its key's sub-model or the fallback);
// output (null: the float8 form) "value" gives that value as text,
// "class" gbdt_predict_class's class name.
Datum partition_predict_table(FunctionCallInfo fcinfo, const gbdt::Model* m, const char* output);

// gbdt_predict_proba_table(model, relation, key) of partitioned model m:
// one pass over the relation through SQL, each row's gbdt_predict_proba
// (its key's sub-model's classes and probabilities; no rows for an unseen
// key with fallback null).
Datum partition_predict_proba_table(FunctionCallInfo fcinfo, const gbdt::Model* m);

// gbdt_evaluate(model, relation, target [, threshold]) of partitioned
// model m (partition_evaluate.cpp): the metrics of each key's rows by its
// sub-model (gbdt_evaluate's of a view of them), the rows of keys without a
// sub-model by the fallback (an error naming the first such key; uncounted
// with "null", reported as rows_unscored; the global model's metrics on
// them with "global"), and the pooled metrics of every scored row
// (partition_pool.h).
Datum partition_evaluate(FunctionCallInfo fcinfo, const gbdt::Model* m);

// gbdt_explain_table(model, relation, key [, top_k]) of partitioned model
// m: one pass over the relation through SQL, each row explained by
// gbdt_explain (its key's sub-model; no rows for an unseen key with
// fallback null); top_k < 0: every feature.
Datum partition_explain_table(FunctionCallInfo fcinfo, const gbdt::Model* m, int top_k);

}  // namespace gbdt_pg
