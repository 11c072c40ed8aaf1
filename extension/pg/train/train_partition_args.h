// The partition parameters of gbdt_train (partition_by, partition_fallback,
// partition_max_groups) read from the params jsonb and taken out of it
// (train_partition_args.cpp).
#pragma once

#include "pg_includes.h"

#include "gbdt/model.h"

namespace gbdt_pg {

constexpr int kDefaultPartitionGroups = 1000;

struct PartitionArgs {
  int ncols = 0;
  const char** cols = nullptr;        // key column names (database encoding)
  gbdt::PartitionFallback fallback = gbdt::PartitionFallback::kError;
  int max_groups = kDefaultPartitionGroups;
  Jsonb* rest = nullptr;              // the params without the partition keys
};

// The partition parameters of params (errors name the parameter at fault).
void partition_args_from_params(Jsonb* params, PartitionArgs* out);

// Whether params (may be NULL) has key `key` at its top level.
bool params_have_key(Jsonb* params, const char* key);

}  // namespace gbdt_pg
