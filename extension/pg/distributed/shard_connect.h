// Opening one shard session: the connection options postgres_fdw would use
// for the server and the current user's mapping, its privilege and
// password rules, a connection that waits interruptibly, and the check that
// gbdt is installed on the shard at this library's version.  Every function
// here may ereport; none runs inside engine code.
#pragma once

#include "distributed/shard_sessions.h"

namespace gbdt_pg {

// Connects s to foreign server `server` as the current user and fills
// s->call_sql with the shard function's qualified call and s->schema with
// gbdt's schema there.  timeout_ms bounds the connection and the version
// query (0: no limit).  settings (may be null): "-c name=value ..." added
// to the session's libpq `options` (after the server's and the mapping's
// own).  On an ERROR the half-open connection stays in s, for the group's
// cleanup.
//
// version_problem null: gbdt missing on the shard or at another version
// is an error.  Else that is no error: *version_problem says why (null
// when gbdt is there at this library's version).
void shard_connect(ShardSession* s, Oid server, int timeout_ms, MemoryContext cxt,
                   const char* settings = nullptr, const char** version_problem = nullptr);

}  // namespace gbdt_pg
