// JSON views of a partitioned model (partitioned.h): gbdt_model_info's
// summary and gbdt_export's object of XGBoost JSON sub-models.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "partitioned.h"

namespace gbdt {

// {"partitioned": true, "partition_by": [names], "partition_types": [types],
//  "partition_fallback": "error"|"null"|"global", "objective": (of the
//  first sub-model), "num_partitions": n, "partitions": [{"key": [values
//  or null], "rows": n, "metric": {name: value} or null}, ...],
//  "global": {"rows": n} (only with a global model)}.  UTF-8.
std::string partitioned_info_json(const PartitionedModel& pm);

// {"partition_by": [names], "partition_types": [types],
//  "partition_fallback": ..., "models": [{"key": [...], "rows": n,
//  "model": <XGBoost JSON of the sub-model>}, ...], "global": <XGBoost
//  JSON> or null}.  UTF-8.
std::string export_partitioned_json(const PartitionedModel& pm);

// gbdt_import: the serialized model of an exported JSON document, plain
// (an XGBoost JSON model) or partitioned (export_partitioned_json's object,
// recognized by its "partition_by" member).  Each sub-model is imported as
// an XGBoost model within lim; a partitioned object's shape (key columns,
// one key per model, distinct keys, a global model iff fallback "global")
// is checked, and the container decoded again before it is returned.
// Throws InvalidInput naming what is wrong.
struct XgbImportLimits;
std::vector<uint8_t> import_model_json(const std::string& json, const XgbImportLimits& lim);

}  // namespace gbdt
