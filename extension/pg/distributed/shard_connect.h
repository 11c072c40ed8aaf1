// Opening one shard session: the connection options postgres_fdw would use
// for the server and the current user's mapping, its privilege and
// password rules, a connection that waits interruptibly, and the check that
// gbdt is installed on the shard at this library's version.  Every function
// here may ereport; none runs inside engine code.
#pragma once

#include "distributed/shard_sessions.h"

namespace gbdt_pg {

// Connects s to foreign server `server` as the current user and fills
// s->call_sql with the shard function's qualified call.  timeout_ms
// bounds the connection and the version query (0: no limit).  On an ERROR
// the half-open connection stays in s, for the group's cleanup.
void shard_connect(ShardSession* s, Oid server, int timeout_ms, MemoryContext cxt);

}  // namespace gbdt_pg
