// gbdt_predict_table on the shard servers (score/shard_scoring.h): every
// foreign partition runs its own server's gbdt_predict_table on its remote
// table and streams (key, prediction) back; local partitions are scored
// here by the caller.
#pragma once

#include "pg_includes.h"

#include "score/shard_scoring.h"

namespace gbdt_pg {

struct PredictShardsOut {
  Tuplestorestate* store;
  TupleDesc desc;
  Oid key_type;    // the key column's type here
  bool as_class;   // output 'class': the shards' class names
  bool as_text;    // output 'value': the prediction as float8's text here
};

// Why a key of type key_type cannot come back from the shards as the text
// the rows read here would give (null: it can).
const char* predict_key_refusal(const char* key, Oid key_type);

// The rows of every partition of sc, in partition order: a shard's from
// its server, a local partition's from score_local(arg, its oid).
void predict_on_shards(ShardScoring* sc, const PredictShardsOut* out,
                       void (*score_local)(void* arg, Oid relid), void* arg);

}  // namespace gbdt_pg
