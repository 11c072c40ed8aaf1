// JSON views of a partitioned model (partitioned.h): gbdt_model_info's
// summary and gbdt_export's object of XGBoost JSON sub-models.
#pragma once
#include <string>

#include "partitioned.h"

namespace gbdt {

// {"partitioned": true, "partition_by": [names], "partition_types": [types],
//  "partition_fallback": "error"|"null"|"global", "objective": (of the
//  first sub-model), "num_partitions": n, "partitions": [{"key": [values
//  or null], "rows": n, "metric": {name: value} or null}, ...],
//  "global": {"rows": n} (only with a global model)}.  UTF-8.
std::string partitioned_info_json(const PartitionedModel& pm);

// {"partition_by": [names], "models": [{"key": [...], "model": <XGBoost
// JSON of the sub-model>}, ...], "global": <XGBoost JSON> or null}.  UTF-8.
std::string export_partitioned_json(const PartitionedModel& pm);

}  // namespace gbdt
