// gbdt_train's partition_by (train_partition.cpp): one sub-model per
// distinct value of the key columns, stored as one partitioned gbdt_model
// (gbdt/model.h, partitioned.h).
#pragma once

#include "pg_includes.h"

namespace gbdt_pg {

// Whether gbdt_train's params (argument 4) hold "partition_by".
bool partition_requested(FunctionCallInfo fcinfo);

// gbdt_train with partition_by: the relation is read once into a
// temporary table clustered by key (rows of a key in the relation's read
// order), and each key's rows are trained by gbdt_train itself, with the
// same arguments and parameters minus the partition ones, through a
// temporary view of that key's rows; the sub-models' bytes are those of a
// gbdt_train on that key's rows alone.
Datum train_partitioned(FunctionCallInfo fcinfo);

}  // namespace gbdt_pg
