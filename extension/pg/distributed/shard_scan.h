// Row queries on shard servers, for scoring where the rows live: one SQL
// statement per shard session (the sessions of shard_sessions.h, opened by
// shard_connect.h as for a training), all sent before any is read, so the
// shards run them at once; the coordinator then reads each shard's rows in
// turn, one row at a time (libpq's single-row mode, binary results).
//
// Everything here runs in glue code and may ereport: an error, a cancel or
// statement_timeout of the coordinator aborts the (sub)transaction, whose
// cleanup cancels every busy shard and closes the sessions.  A shard's
// error, a lost connection or gbdt.shard_timeout is an error naming the
// shard, worded as a training's.
#pragma once

#include "distributed/shard_sessions.h"

namespace gbdt_pg {

// Opens a group of n sessions, session i to foreign server servers[i] as
// the current user (labels[i] in messages), with libpq options `settings`
// (may be null).  version_problem null: gbdt missing on a shard or at
// another version is an error; else *version_problem says why (null when
// every shard has gbdt at this library's version).
ShardSessions* shard_scan_open(int n, const Oid* servers, const char* const* labels,
                               const char* settings, const char** version_problem);

// Sends statement sql on session i (nparams parameters, text unless
// formats[k] is 1, their types inferred by the shard), results in binary,
// one row at a time.
void shard_scan_send(ShardSessions* g, int i, const char* sql, int nparams,
                     const char* const* values, const int* lengths, const int* formats);

// One row of a shard's result (a PGRES_SINGLE_TUPLE result, row 0).
typedef void (*ShardRowFn)(void* arg, const PGresult* row);

// Reads every row of session i's statement into fn, then its end.  Each
// wait (for the next row, or the first while the shard works) is bounded
// by gbdt.shard_timeout and wakes for the coordinator's interrupts.
void shard_scan_read(ShardSessions* g, int i, ShardRowFn fn, void* arg);

}  // namespace gbdt_pg
