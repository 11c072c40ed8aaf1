// The coordinator's libpq sessions with its shard servers (one per shard),
// as a gbdt::ShardLink (gbdt/distributed.h).  The transport's own file;
// this is its declaration, which the training step codes against.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pg_includes.h"

#include "gbdt/distributed.h"

namespace gbdt_pg {

// One shard: the foreign server whose user mapping connects to it, and a
// label for messages (server "s1" (partition public.t_p1)).
struct ShardTarget {
  Oid server;
  std::string label;
};

// Opens one session per target (outside run_engine: it may ereport).
std::unique_ptr<gbdt::ShardLink> open_shard_link(const std::vector<ShardTarget>& targets);

}  // namespace gbdt_pg
