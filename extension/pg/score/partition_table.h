// gbdt_predict_table and gbdt_evaluate of a partitioned model
// (partition_table.cpp): rows routed to their key's sub-model.
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"

namespace gbdt_pg {

// gbdt_predict_table(model, relation, key [, output]) of partitioned model
// m: one pass over the relation through SQL, each row scored by
// gbdt_predict (partition_route.h: its key's sub-model or the fallback);
// output (null: the float8 form) "value" gives that value as text,
// "class" gbdt_predict_class's class name.
Datum partition_predict_table(FunctionCallInfo fcinfo, const gbdt::Model* m, const char* output);

// gbdt_evaluate(model, relation, target) of partitioned model m: the
// metrics of each key's rows by its sub-model (gbdt_evaluate of a view of
// them), and the rows of keys without a sub-model by the fallback: an
// error naming the first such key, uncounted ("null", reported as
// rows_unscored), or the global model's metrics on them ("global").
Datum partition_evaluate(FunctionCallInfo fcinfo, const gbdt::Model* m);

// gbdt_explain_table(model, relation, key [, top_k]) of partitioned model
// m: one pass over the relation through SQL, each row explained by
// gbdt_explain (its key's sub-model; no rows for an unseen key with
// fallback null); top_k < 0: every feature.
Datum partition_explain_table(FunctionCallInfo fcinfo, const gbdt::Model* m, int top_k);

}  // namespace gbdt_pg
