// The coordinator's shard plan: whether a relation's rows can be trained on
// where they live (training across servers, gbdt/distributed.h), and how.
//
// Only a partitioned table whose partitions are all postgres_fdw foreign
// tables qualifies.  Its partitions are taken in PartitionDesc order (bound
// order, the order in which the executor's Append scans them), so the rows
// in shard order are the rows the local path reads.  For each partition:
// its foreign server, the remote relation (the table's schema_name and
// table_name options; by default the partition's own schema and name, as
// postgres_fdw) and each needed column's remote name (its column_name
// option, else its name).
#pragma once

#include "pg_includes.h"

namespace gbdt_pg {

struct ShardPart {
  Oid server;
  const char* label;     // server "s1" (partition public.t_p1), for messages
  const char* relation;  // the remote relation's quoted qualified name
  const char* target;    // the remote column names
  const char* weight;    // null: unweighted
  const char** features;
};

struct ShardPlan {
  bool partitioned = false;   // the relation is a partitioned table
  bool any_foreign = false;   // with at least one foreign partition
  const char* reason = nullptr;  // why it cannot train shard-side; null: it can
  int n = 0;
  ShardPart* parts = nullptr;
  int nf = 0;
};

// The plan for relation relid (opened and locked by the caller) and its
// columns (local names; weight may be null).  Never an error for a
// relation that does not qualify: the reason says why, naming the
// partition.
ShardPlan* build_shard_plan(Oid relid, const char* target, const char* weight,
                            const char* const* features, int nf);

// The pieces of a plan, also for scoring (score/shard_scoring.h):
// why partition `part` (of quoted qualified name `qual`) cannot be a shard,
// or null; a foreign partition's remote relation (quoted qualified name);
// a column's remote name (its column_name option, else its name); the
// label of its shard in messages.
const char* partition_refusal(Oid part, const char* qual);
const char* remote_relation(Oid part);
const char* remote_column(Oid relid, const char* name);
const char* shard_label(Oid part, const char* qual);

}  // namespace gbdt_pg
