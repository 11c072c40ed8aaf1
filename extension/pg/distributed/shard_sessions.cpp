#include "distributed/shard_sessions.h"

extern "C" {
#include "access/xact.h"
#include "storage/fd.h"
}

namespace gbdt_pg {

namespace {

ShardSessions* open_groups = nullptr;  // every open group of this backend
int next_group_id = 1;
bool callbacks_registered = false;

void close_group(ShardSessions* g) noexcept {
  shard_sessions_cancel_busy(g);
  for (int i = 0; i < g->n; i++) {
    ShardSession& s = g->s[i];
    if (s.conn != nullptr) PQfinish(s.conn);
    s.conn = nullptr;
    s.busy = false;
    if (s.holds_fd) ReleaseExternalFD();
    s.holds_fd = false;
  }
  for (ShardSessions** p = &open_groups; *p != nullptr; p = &(*p)->next) {
    if (*p == g) {
      *p = g->next;
      break;
    }
  }
  MemoryContextDelete(g->cxt);
}

// Ends of the top transaction: a link never outlives the statement that
// opened it, so every group still open is closed (at commit as well: the
// glue destroys its links before, so only a leaked one is left).
void on_xact(XactEvent event, void*) {
  switch (event) {
    case XACT_EVENT_ABORT:
    case XACT_EVENT_PARALLEL_ABORT:
    case XACT_EVENT_COMMIT:
    case XACT_EVENT_PARALLEL_COMMIT:
    case XACT_EVENT_PREPARE:
      while (open_groups != nullptr) close_group(open_groups);
      break;
    default:
      break;
  }
}

// A subtransaction's abort closes the groups it opened (an ERROR caught by
// a PL/pgSQL EXCEPTION block); its commit hands them to its parent.
void on_subxact(SubXactEvent event, SubTransactionId my_subid, SubTransactionId parent_subid,
                void*) {
  if (event == SUBXACT_EVENT_ABORT_SUB) {
    ShardSessions* g = open_groups;
    while (g != nullptr) {
      ShardSessions* next = g->next;
      if (g->subid == my_subid) close_group(g);
      g = next;
    }
  } else if (event == SUBXACT_EVENT_COMMIT_SUB) {
    for (ShardSessions* g = open_groups; g != nullptr; g = g->next)
      if (g->subid == my_subid) g->subid = parent_subid;
  }
}

}  // namespace

ShardSessions* shard_sessions_create(int n, const char* const* labels) {
  if (!callbacks_registered) {
    RegisterXactCallback(on_xact, nullptr);
    RegisterSubXactCallback(on_subxact, nullptr);
    callbacks_registered = true;
  }
  uint8 random_bytes[16];
  if (!pg_strong_random(random_bytes, sizeof random_bytes))
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("could not generate a random token for the shard sessions")));
  MemoryContext cxt = AllocSetContextCreate(TopMemoryContext, "gbdt shard link",
                                            ALLOCSET_SMALL_SIZES);
  ShardSessions* g = (ShardSessions*)MemoryContextAllocZero(cxt, sizeof(ShardSessions));
  g->cxt = cxt;
  g->n = n;
  g->s = (ShardSession*)MemoryContextAllocZero(cxt, sizeof(ShardSession) * (size_t)n);
  for (int i = 0; i < n; i++) g->s[i].label = MemoryContextStrdup(cxt, labels[i]);
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) {
    g->token[2 * i] = hex[random_bytes[i] >> 4];
    g->token[2 * i + 1] = hex[random_bytes[i] & 15];
  }
  g->token[32] = '\0';
  g->subid = GetCurrentSubTransactionId();
  g->id = next_group_id++;
  if (next_group_id <= 0) next_group_id = 1;
  g->next = open_groups;
  open_groups = g;
  return g;
}

ShardSessions* shard_sessions_find(int id) noexcept {
  for (ShardSessions* g = open_groups; g != nullptr; g = g->next)
    if (g->id == id) return g;
  return nullptr;
}

void shard_sessions_cancel_busy(ShardSessions* g) noexcept {
  for (int i = 0; i < g->n; i++) {
    ShardSession& s = g->s[i];
    if (s.conn == nullptr || !s.busy) continue;
    PGcancel* c = PQgetCancel(s.conn);
    if (c != nullptr) {
      char err[256];
      (void)PQcancel(c, err, sizeof err);
      PQfreeCancel(c);
    }
  }
}

void shard_sessions_close(int id) noexcept {
  ShardSessions* g = shard_sessions_find(id);
  if (g != nullptr) close_group(g);
}

}  // namespace gbdt_pg
