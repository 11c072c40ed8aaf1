// gbdt_train's step "train where the rows live" (training across servers,
// gbdt/distributed.h): a partitioned table whose partitions are postgres_fdw
// foreign tables trains on its shard servers, which send histograms, not
// rows.  Parameter "distributed": "auto" (the default: shard-side when it
// can, else a NOTICE naming the reason and the local path), "on" (an ERROR
// naming the reason when it cannot), "off" (always the local path).
#pragma once

#include "pg_includes.h"

#include "train/train_steps.h"

namespace gbdt_pg {

// The serialized model trained on the shards, or null: train locally
// (plain tables, "off", or "auto" with a reason not to).  Frees the plan's
// TrainParams (as train_and_store) when it trains.
struct varlena* train_on_shards(const RelInfo* rel, TrainRequest* req, EnginePlan* plan,
                                ColumnRoles* cols);

}  // namespace gbdt_pg
