#include "distributed/shard_connect.h"

#include <cstring>

extern "C" {
#include "catalog/pg_foreign_server.h"
#include "commands/defrem.h"
#include "foreign/foreign.h"
#include "mb/pg_wchar.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

namespace gbdt_pg {

namespace {

// postgres_fdw's own options: never libpq keywords, listed so that a libpq
// that one day knew one of these names would still not receive it.
const char* const kFdwOnlyOptions[] = {
    "use_remote_estimate", "fdw_startup_cost", "fdw_tuple_cost",  "extensions",
    "updatable",           "truncatable",      "fetch_size",      "batch_size",
    "async_capable",       "parallel_commit",  "parallel_abort",  "keep_connections",
    "analyze_sampling",    "password_required", "use_scram_passthrough"};

// True when `name` is a libpq connection keyword a server or user mapping
// may set: libpq's own list less its debug options and the two keywords set
// here (fallback_application_name, client_encoding), as postgres_fdw's
// option.c decides.
bool is_libpq_option(const char* name, const PQconninfoOption* libpq_opts) {
  for (const char* fdw : kFdwOnlyOptions)
    if (strcmp(name, fdw) == 0) return false;
  if (strcmp(name, "fallback_application_name") == 0 || strcmp(name, "client_encoding") == 0)
    return false;
  for (const PQconninfoOption* o = libpq_opts; o->keyword != nullptr; o++)
    if (strcmp(o->keyword, name) == 0) return strchr(o->dispchar, 'D') == nullptr;
  return false;
}

// The mapping's password_required, as postgres_fdw reads it.  Its validator
// lets only a superuser set it to false; another wrapper's validator (or
// none) might not, so 'false' counts only on a postgres_fdw server.
bool password_required(const UserMapping* um, const ForeignServer* server) {
  const ForeignDataWrapper* fdw = GetForeignDataWrapper(server->fdwid);
  char* validator = OidIsValid(fdw->fdwvalidator) ? get_func_name(fdw->fdwvalidator) : nullptr;
  if (validator == nullptr || strcmp(validator, "postgres_fdw_validator") != 0) return true;
  ListCell* lc;
  foreach (lc, um->options) {
    DefElem* d = (DefElem*)lfirst(lc);
    if (strcmp(d->defname, "password_required") == 0) return defGetBoolean(d);
  }
  return true;
}

// keywords/values (NULL-terminated) for PQconnectStartParams: the server's
// options, then the mapping's (libpq takes the last of a repeated keyword),
// then fallback_application_name and client_encoding; settings (may be
// null) appended to the last `options` given, or as `options`.
void connection_options(const ForeignServer* server, const UserMapping* um, const char* settings,
                        const char*** kw_out, const char*** val_out) {
  const int n = list_length(server->options) + list_length(um->options) + 4;
  const char** kw = (const char**)palloc0(sizeof(char*) * n);
  const char** val = (const char**)palloc0(sizeof(char*) * n);
  PQconninfoOption* libpq_opts = PQconndefaults();
  if (libpq_opts == nullptr) ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
  int k = 0;
  List* lists[2] = {server->options, um->options};
  for (List* options : lists) {
    ListCell* lc;
    foreach (lc, options) {
      DefElem* d = (DefElem*)lfirst(lc);
      if (!is_libpq_option(d->defname, libpq_opts)) continue;
      kw[k] = d->defname;
      val[k] = defGetString(d);
      k++;
    }
  }
  PQconninfoFree(libpq_opts);
  if (settings != nullptr) {
    int last = -1;
    for (int i = 0; i < k; i++)
      if (strcmp(kw[i], "options") == 0) last = i;
    if (last >= 0) {
      val[last] = psprintf("%s %s", val[last], settings);
    } else {
      kw[k] = "options";
      val[k++] = settings;
    }
  }
  kw[k] = "fallback_application_name";
  val[k++] = "gbdt";
  kw[k] = "client_encoding";
  val[k++] = GetDatabaseEncodingName();
  kw[k] = val[k] = nullptr;
  *kw_out = kw;
  *val_out = val;
}

// postgres_fdw's rule before connecting: a non-superuser's mapping must
// carry a non-empty password (else the connection could ride on this
// server's own credentials: .pgpass, trust, peer), unless a superuser said
// password_required 'false'.
void check_password_given(const char* const* kw, const char* const* val, bool required,
                          const UserMapping* um, const char* srvname) {
  if (superuser_arg(um->userid) || !required) return;
  for (int i = 0; kw[i] != nullptr; i++)
    if (strcmp(kw[i], "password") == 0 && val[i][0] != '\0') return;
  ereport(ERROR, (errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
                  errmsg("password is required to connect to server \"%s\"", srvname),
                  errdetail("Non-superusers must provide a password in the user mapping.")));
}

// Milliseconds left before deadline (-1: no deadline; 0: passed).
long ms_left(TimestampTz deadline) {
  if (deadline == 0) return -1;
  long left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
  return left;
}

GBDT_NORETURN void timed_out(const char* srvname, int timeout_ms, const char* what) {
  ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE),
                  errmsg("server \"%s\" did not answer within gbdt.shard_timeout (%d ms) %s",
                         srvname, timeout_ms, what)));
}

// Waits for `io` on the session's socket, the latch (then processes
// interrupts) or the deadline; returns whether the socket is ready.
bool wait_socket(PGconn* conn, int io, TimestampTz deadline, const char* srvname, int timeout_ms,
                 const char* what) {
  long left = ms_left(deadline);
  if (left == 0) timed_out(srvname, timeout_ms, what);
  int events = WL_LATCH_SET | WL_EXIT_ON_PM_DEATH | io | (left > 0 ? WL_TIMEOUT : 0);
  int rc = WaitLatchOrSocket(MyLatch, events, PQsocket(conn), left > 0 ? left : -1,
                             PG_WAIT_EXTENSION);
  if (rc & WL_LATCH_SET) {
    ResetLatch(MyLatch);
    CHECK_FOR_INTERRUPTS();
  }
  return (rc & io) != 0;
}

void connect_polling(PGconn* conn, TimestampTz deadline, const char* srvname, int timeout_ms) {
  PostgresPollingStatusType st = PGRES_POLLING_WRITING;
  while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
    int io = st == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
    if (wait_socket(conn, io, deadline, srvname, timeout_ms, "while connecting"))
      st = PQconnectPoll(conn);
  }
  if (PQstatus(conn) != CONNECTION_OK)
    ereport(ERROR, (errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
                    errmsg("could not connect to server \"%s\"", srvname),
                    errdetail_internal("%s", pchomp(PQerrorMessage(conn)))));
}

// Runs the extension query (no parameters) and returns its result; the
// session is busy meanwhile, so an ERROR here (cancel, timeout) leaves it
// for the group's cleanup to cancel.
PGresult* query_extension(ShardSession* s, TimestampTz deadline, const char* srvname,
                          int timeout_ms) {
  static const char* const kSql =
      "SELECT e.extversion, n.nspname FROM pg_catalog.pg_extension e "
      "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'gbdt'";
  PGconn* conn = s->conn;
  if (PQsetnonblocking(conn, 1) != 0 ||
      !PQsendQueryParams(conn, kSql, 0, nullptr, nullptr, nullptr, nullptr, 0))
    ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE),
                    errmsg("could not send a query to server \"%s\"", srvname),
                    errdetail_internal("%s", pchomp(PQerrorMessage(conn)))));
  s->busy = true;
  int flushed;
  while ((flushed = PQflush(conn)) == 1)
    wait_socket(conn, WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE, deadline, srvname, timeout_ms,
                "the gbdt version query");
  PGresult* first = nullptr;
  while (flushed == 0) {
    if (PQisBusy(conn)) {
      if (wait_socket(conn, WL_SOCKET_READABLE, deadline, srvname, timeout_ms,
                      "the gbdt version query") &&
          !PQconsumeInput(conn))
        break;
      continue;
    }
    PGresult* r = PQgetResult(conn);
    if (r == nullptr) {
      s->busy = false;
      return first;
    }
    if (first == nullptr)
      first = r;
    else
      PQclear(r);
  }
  if (first != nullptr) PQclear(first);
  ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE),
                  errmsg("lost the connection to server \"%s\"", srvname),
                  errdetail_internal("%s", pchomp(PQerrorMessage(conn)))));
}

// gbdt must be installed on the shard at this library's version; its
// schema names the shard function in s->call_sql.  problem non-null: a
// missing gbdt or another version is no error, *problem says it instead.
void check_remote_gbdt(ShardSession* s, TimestampTz deadline, const char* srvname, int timeout_ms,
                       MemoryContext cxt, const char** problem) {
  PGresult* r = query_extension(s, deadline, srvname, timeout_ms);
  char version[64], schema[NAMEDATALEN * 2];
  bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
  int rows = ok ? PQntuples(r) : 0;
  if (ok && rows == 1) {
    strlcpy(version, PQgetvalue(r, 0, 0), sizeof version);
    strlcpy(schema, PQgetvalue(r, 0, 1), sizeof schema);
  }
  char* remote_err = ok ? nullptr : pstrdup(PQresultErrorMessage(r));
  PQclear(r);
  if (!ok)
    ereport(ERROR, (errcode(ERRCODE_CONNECTION_FAILURE),
                    errmsg("could not read the extensions of server \"%s\"", srvname),
                    errdetail_internal("%s", pchomp(remote_err))));
  if (problem != nullptr) {
    *problem = nullptr;
    if (rows == 0)
      *problem = psprintf("gbdt is not installed on server \"%s\"", srvname);
    else if (strcmp(version, GBDT_EXTVERSION) != 0)
      *problem = psprintf("gbdt on server \"%s\" is version %s, not %s", srvname, version,
                          GBDT_EXTVERSION);
    if (*problem != nullptr) return;
  }
  if (rows == 0)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("gbdt is not installed on server \"%s\"", srvname),
                    errhint("Run CREATE EXTENSION gbdt in the database the server points to.")));
  if (strcmp(version, GBDT_EXTVERSION) != 0)
    ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                    errmsg("gbdt on server \"%s\" is version %s, this server's gbdt library is %s",
                           srvname, version, GBDT_EXTVERSION),
                    errhint("Install gbdt %s on the shard (ALTER EXTENSION gbdt UPDATE).",
                            GBDT_EXTVERSION)));
  s->schema = MemoryContextStrdup(cxt, schema);
  s->call_sql = MemoryContextStrdup(
      cxt, psprintf("SELECT %s.gbdt_shard_step($1, $2, $3)", quote_identifier(schema)));
}

}  // namespace

void shard_connect(ShardSession* s, Oid serverid, int timeout_ms, MemoryContext cxt,
                   const char* settings, const char** version_problem) {
  ForeignServer* server = GetForeignServer(serverid);
  AclResult acl = gbdt_foreign_server_aclcheck(serverid, GetUserId(), ACL_USAGE);
  if (acl != ACLCHECK_OK) aclcheck_error(acl, OBJECT_FOREIGN_SERVER, server->servername);
  UserMapping* um = GetUserMapping(GetUserId(), serverid);
  const bool required = password_required(um, server);
  const char **kw, **val;
  connection_options(server, um, settings, &kw, &val);
  check_password_given(kw, val, required, um, server->servername);

  const TimestampTz deadline =
      timeout_ms > 0 ? TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms) : 0;
  // fd.c's limit on descriptors outside its own files, as postgres_fdw.
  if (!AcquireExternalFD())
    ereport(ERROR, (errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
                    errmsg("could not connect to server \"%s\"", server->servername),
                    errdetail("There are too many open files on the local server.")));
  s->holds_fd = true;
  s->conn = PQconnectStartParams(kw, val, false);
  if (s->conn == nullptr)
    ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
  if (PQstatus(s->conn) == CONNECTION_BAD)
    ereport(ERROR, (errcode(ERRCODE_SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION),
                    errmsg("could not connect to server \"%s\"", server->servername),
                    errdetail_internal("%s", pchomp(PQerrorMessage(s->conn)))));
  connect_polling(s->conn, deadline, server->servername, timeout_ms);
  // After connecting: the password must have been used, or a non-superuser
  // would be riding on this server's own identity (postgres_fdw's rule).
  if (!superuser_arg(um->userid) && required && !PQconnectionUsedPassword(s->conn))
    ereport(ERROR, (errcode(ERRCODE_S_R_E_PROHIBITED_SQL_STATEMENT_ATTEMPTED),
                    errmsg("password is required to connect to server \"%s\"", server->servername),
                    errdetail("Non-superuser cannot connect if the server does not request a "
                              "password."),
                    errhint("Change the shard's authentication method, or have a superuser set "
                            "password_required 'false' in the user mapping.")));
  check_remote_gbdt(s, deadline, server->servername, timeout_ms, cxt, version_problem);
}

}  // namespace gbdt_pg
