// The coordinator's libpq sessions to its shard servers: gbdt::ShardLink
// (extension/core/include/gbdt/distributed.h) over one session per
// postgres_fdw server, opened as the current user through its user mapping.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pg_includes.h"

#include "gbdt/distributed.h"

namespace gbdt_pg {

struct ShardTarget {
  Oid server;         // pg_foreign_server oid (a postgres_fdw server)
  std::string label;  // for messages, e.g. "server \"s1\" (partition public.t_p1)"
};

// Opens one session per target as the current user (its user mapping),
// checks gbdt is installed there at this library's version, and returns
// the link.  Called OUTSIDE engine code (may ereport).  The sessions are
// closed (busy ones cancelled first) when the link is destroyed, and also
// at the end of the transaction or subtransaction that opened them, so an
// ERROR anywhere leaves no shard busy.
std::unique_ptr<gbdt::ShardLink> open_shard_link(const std::vector<ShardTarget>& targets);

}  // namespace gbdt_pg
