#include "distributed/shard_scan.h"

#include "distributed/shard_connect.h"
#include "settings.h"

extern "C" {
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

namespace gbdt_pg {

namespace {

// The longest sleep between two looks at the coordinator's interrupts.
constexpr long kPollMs = 100;

GBDT_NORETURN void connection_lost(const ShardSession* s) {
  ereport(ERROR, (errcode(ERRCODE_CONNECTION_EXCEPTION),
                  errmsg("%s: connection lost: %s", s->label,
                         pchomp(PQerrorMessage(s->conn)))));
}

// The shard's error result r, worded as a training's: its message, its
// detail and its SQLSTATE.  Frees r.
GBDT_NORETURN void shard_failed(const ShardSession* s, PGresult* r) {
  StringInfoData msg;
  initStringInfo(&msg);
  appendStringInfo(&msg, "%s: ", s->label);
  if (PQstatus(s->conn) == CONNECTION_BAD) appendStringInfoString(&msg, "connection lost: ");
  const char* primary = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
  if (primary != nullptr) {
    appendStringInfoString(&msg, primary);
  } else {
    // libpq's own errors (a lost connection) carry no fields: their first
    // line says what happened.
    char* own = pchomp(PQresultErrorMessage(r));
    char* nl = strchr(own, '\n');
    if (nl != nullptr) *nl = '\0';
    appendStringInfoString(&msg, own);
  }
  const char* detail = PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL);
  if (detail != nullptr) appendStringInfo(&msg, ": %s", detail);
  const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
  if (state != nullptr) appendStringInfo(&msg, " (SQLSTATE %s)", state);
  const ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_FATAL_ERROR && st != PGRES_NONFATAL_ERROR)
    appendStringInfo(&msg, " (unexpected result %s)", PQresStatus(st));
  PQclear(r);
  ereport(ERROR, (errcode(ERRCODE_CONNECTION_EXCEPTION), errmsg("%s", msg.data)));
}

// Hands row r to fn; r is freed also when fn raises an error.
void take_row(PGresult* r, ShardRowFn fn, void* arg) {
  PG_TRY();
  { fn(arg, r); }
  PG_CATCH();
  {
    PQclear(r);
    PG_RE_THROW();
  }
  PG_END_TRY();
  PQclear(r);
}

// Waits up to ms for the session's socket (readable, and writeable while
// a request is still being flushed) or the latch; processes interrupts.
void wait_shard(ShardSession* s, bool flushing, long ms) {
  const int events = WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | WL_TIMEOUT | WL_SOCKET_READABLE |
                     (flushing ? WL_SOCKET_WRITEABLE : 0);
  const int rc = WaitLatchOrSocket(MyLatch, events, PQsocket(s->conn), ms, PG_WAIT_EXTENSION);
  if (rc & WL_LATCH_SET) {
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
  }
  if ((rc & WL_SOCKET_READABLE) && !PQconsumeInput(s->conn)) connection_lost(s);
}

}  // namespace

ShardSessions* shard_scan_open(int n, const Oid* servers, const char* const* labels,
                               const char* settings, const char** version_problem) {
  ShardSessions* g = shard_sessions_create(n, labels);
  if (version_problem != nullptr) *version_problem = nullptr;
  for (int i = 0; i < n; i++) {
    const char* problem = nullptr;
    shard_connect(&g->s[i], servers[i], guc_shard_timeout, g->cxt, settings,
                  version_problem != nullptr ? &problem : nullptr);
    if (problem != nullptr) {
      *version_problem = problem;
      return g;
    }
  }
  return g;
}

void shard_scan_send(ShardSessions* g, int i, const char* sql, int nparams,
                     const char* const* values, const int* lengths, const int* formats) {
  ShardSession* s = &g->s[i];
  if (s->conn == nullptr || s->busy ||
      !PQsendQueryParams(s->conn, sql, nparams, nullptr, values, lengths, formats, 1))
    ereport(ERROR, (errcode(ERRCODE_CONNECTION_EXCEPTION),
                    errmsg("%s: could not send the scoring query: %s", s->label,
                           s->conn != nullptr ? pchomp(PQerrorMessage(s->conn)) : "session closed")));
  s->busy = true;
  if (!PQsetSingleRowMode(s->conn))
    ereport(ERROR, (errcode(ERRCODE_CONNECTION_EXCEPTION),
                    errmsg("%s: could not read the scoring query's rows one at a time", s->label)));
}

void shard_scan_read(ShardSessions* g, int i, ShardRowFn fn, void* arg) {
  ShardSession* s = &g->s[i];
  const int timeout_ms = guc_shard_timeout;
  TimestampTz last = GetCurrentTimestamp();  // the last progress
  bool ended = false;
  uint64 rows = 0;
  for (;;) {
    const int f = PQflush(s->conn);
    if (f < 0) connection_lost(s);
    if (f == 0 && !PQisBusy(s->conn)) {
      PGresult* r = PQgetResult(s->conn);
      if (r == nullptr) break;
      const ExecStatusType st = PQresultStatus(r);
      if (st == PGRES_SINGLE_TUPLE) {
        take_row(r, fn, arg);
        if ((++rows & 4095) == 0) CHECK_FOR_INTERRUPTS();
      } else if (st == PGRES_TUPLES_OK) {
        PQclear(r);
        ended = true;
      } else {
        shard_failed(s, r);
      }
      last = GetCurrentTimestamp();
      continue;
    }
    long wait_ms = kPollMs;
    if (timeout_ms > 0) {
      const long left = timeout_ms - TimestampDifferenceMilliseconds(last, GetCurrentTimestamp());
      if (left <= 0)
        ereport(ERROR, (errcode(ERRCODE_CONNECTION_EXCEPTION),
                        errmsg("%s did not answer within gbdt.shard_timeout (%d ms)", s->label,
                               timeout_ms)));
      if (left < wait_ms) wait_ms = left;
    }
    wait_shard(s, f == 1, wait_ms);
  }
  s->busy = false;
  if (!ended) {
    if (PQstatus(s->conn) == CONNECTION_BAD) connection_lost(s);
    ereport(ERROR, (errcode(ERRCODE_CONNECTION_EXCEPTION),
                    errmsg("%s: the scoring query ended without its result", s->label)));
  }
}

}  // namespace gbdt_pg
