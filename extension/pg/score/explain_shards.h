// gbdt_explain_table on the shard servers (score/shard_scoring.h): every
// foreign partition runs its own server's gbdt_explain_table on its remote
// table and streams its rows back, their feature names turned back into
// the model's; local partitions are explained here by the caller.
#pragma once

#include "pg_includes.h"

#include "score/shard_scoring.h"

namespace gbdt_pg {

struct ExplainShardsOut {
  Tuplestorestate* store;
  TupleDesc desc;          // 4 columns (the 0.2 declaration) or 5 (value_text)
  Oid key_type;            // the key column's type here
  const ScoringLayout* layout;  // the model's feature columns here (one each)
  const Oid* feature_types;     // their types here
  const Datum* names;      // the model's feature names as text, then 'bias'
  int top_k;               // < 0: every feature
};

// The rows of every partition of sc, in partition order: a shard's from
// its server, a local partition's from explain_local(arg, its oid).
void explain_on_shards(ShardScoring* sc, const ExplainShardsOut* out,
                       void (*explain_local)(void* arg, Oid relid), void* arg);

}  // namespace gbdt_pg
