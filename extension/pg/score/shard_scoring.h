// Scoring a partitioned table where its rows live (gbdt_predict_table,
// gbdt_evaluate and the functions that read rows as it does,
// gbdt_explain_table): each
// postgres_fdw partition is scored by its own server's gbdt, over one libpq
// session per partition (distributed/shard_scan.h), and only results cross
// the network; local partitions are scored here.
//
// gbdt.distributed_scoring decides, as the parameter `distributed` decides
// for a training: "auto" scores on the shards when the relation qualifies
// (else, for a partitioned table with a foreign partition, a NOTICE saying
// why every row is read here), "on" scores on the shards or is an error
// naming the reason, "off" reads every row here (postgres_fdw).
//
// What qualifies: a partitioned table that the current user may SELECT as
// a whole, without row-level security, whose partitions are postgres_fdw
// foreign tables or plain tables (the same privilege and no row-level
// security of their own), at least one of them foreign; every model
// feature a column (no array element, no absent feature); gbdt installed
// on every shard at this library's version.
#pragma once

#include "pg_includes.h"

#include "distributed/shard_scan.h"
#include "gbdt/model.h"
#include "read/rel_info.h"
#include "read/scoring_layout.h"

namespace gbdt_pg {

struct ScorePart {
  Oid relid;             // the partition
  int shard;             // its session, or -1: a plain table, scored here
  const char* relation;  // shards: the remote relation's quoted qualified name
  const char* column;    // shards: the remote name of the key or target column
  char* model;           // shards: the model bytes, features named as on the shard
  int model_len;
};

struct ShardScoring {
  int n = 0;  // partitions, in bound order (the order Append reads them)
  ScorePart* parts = nullptr;
  int nshards = 0;
  ShardSessions* group = nullptr;
};

// The partitions of rel to score for model m (its layout on rel) with the
// key or target `column` (local name), with their sessions open; null when
// rel is read here.  refusal: the caller's reason to read here (null: none),
// e.g. an output or a column type the shards cannot give exactly.
ShardScoring* shard_scoring_plan(const RelInfo* rel, const gbdt::Model* m,
                                 const ScoringLayout* layout, const char* column,
                                 const char* refusal);

// Sends the scoring statement to every shard: sql(schema) is its text for
// gbdt's quoted schema on the shard, with $1 the model (binary), $2 the
// remote relation, $3 the remote column and, when extra is not null, $4 =
// extra.
void shard_scoring_start(ShardScoring* sc, char* (*sql)(const char* schema), const char* extra);

// Reads the rows of partition i's shard into fn.
void shard_scoring_read(ShardScoring* sc, int i, ShardRowFn fn, void* arg);

// Closes the sessions.
void shard_scoring_end(ShardScoring* sc);

// Row pieces in binary format: a text column's bytes as a text datum (null
// when NULL), a float8 column's value.
Datum shard_row_text(const PGresult* row, int col, bool* isnull);
double shard_row_float8(const PGresult* row, int col);

// A value the shard printed as text ((column)::text, under the settings
// of postgres_fdw's sessions) as this session prints it: for a type whose
// text depends on the settings (floats, dates and times), read with the
// type's input function here and printed with its output function, as
// the row postgres_fdw brings would be; other types as they come.
struct PrintedAsHere {
  bool reprint;
  FmgrInfo in;
  Oid ioparam;
  FmgrInfo out;
};
void printed_as_here_init(PrintedAsHere* p, Oid type);
Datum shard_row_printed(const PrintedAsHere* p, const PGresult* row, int col, bool* isnull);

}  // namespace gbdt_pg
