// The libpq sessions of every open shard link of this backend, kept as
// plain PostgreSQL memory outside any C++ object, so that the end of the
// transaction (commit or abort, an ERROR that longjmped over the link)
// closes them even when no C++ destructor runs.
//
// A group is one link's sessions, in shard order.  It lives in its own
// memory context under TopMemoryContext and is registered with the
// (sub)transaction that opened it: aborting that subtransaction, or ending
// the top transaction, cancels every busy session, closes all of them and
// frees the group.  The C++ link holds only the group's id and looks it up.
#pragma once

#include "pg_includes.h"

extern "C" {
#include "libpq-fe.h"
}

namespace gbdt_pg {

struct ShardSession {
  PGconn* conn;     // NULL once closed
  char* label;      // for messages: server "s1" (partition public.t_p1)
  char* call_sql;   // SELECT <schema>.gbdt_shard_step($1, $2, $3)
  char* schema;     // the schema of gbdt on the shard (unquoted)
  bool busy;        // a request was sent and its last result not yet read
  bool holds_fd;    // counted by AcquireExternalFD
};

struct ShardSessions {
  int id;
  int n;
  ShardSession* s;
  char token[33];   // 32 hex digits, sent with every request
  MemoryContext cxt;
  SubTransactionId subid;
  ShardSessions* next;
};

// A new, registered group of n closed sessions with a random token (may
// ereport).  Labels are copied into the group.
ShardSessions* shard_sessions_create(int n, const char* const* labels);
// The open group with this id, or NULL when it was closed.
ShardSessions* shard_sessions_find(int id) noexcept;
// Sends a cancel request for every busy session (libpq's PQcancel, which
// blocks only for the short connection that carries the request).
void shard_sessions_cancel_busy(ShardSessions* g) noexcept;
// Cancels every busy session, closes all of them and frees the group.
// Nothing happens when no open group has this id.
void shard_sessions_close(int id) noexcept;

}  // namespace gbdt_pg
