#!/usr/bin/env bash
# Cancel/terminate soak against a running cluster:
#
#   bash scripts/soak.sh [SECONDS]        (default 60; make soak runs 600)
#
# Connects with the usual libpq variables (PGHOST, PGPORT, PGUSER, PGDATABASE;
# a superuser: the killer calls pg_terminate_backend and the log check may call
# pg_current_logfile()).  Creates the tables soak_data (GBDT_SOAK_ROWS rows) and
# soak_models (a small and a big model) in the current database, then for
# SECONDS runs GBDT_SOAK_SESSIONS concurrent sessions, each picking at random
# gbdt_train, gbdt_predict_table, gbdt_evaluate, gbdt_predict, gbdt_explain_table,
# SHAP importance over the table, or gbdt_trees / gbdt_feature_importance / gbdt_model_info on the big model,
# a third of them under a random statement_timeout (30-800 ms), while a killer
# loop sleeps 10 ms - 1 s and then cancels (pg_cancel_backend) or terminates
# (pg_terminate_backend) one random busy soak backend.  When the time is up it
# terminates the remaining soak backends and checks that
#   - the server still answers,
#   - the server log written during the soak has no line matching
#     'terminated by signal|was terminated|server process .* exited with exit
#     code [^01]|PANIC' and no client saw "crash of another server process",
#   - no gbdt query is still active GBDT_SOAK_STUCK_S seconds after the stop,
#   - the number of client backends is back to what it was before the soak.
# The last line is "soak: ok: ..." or "soak: FAIL: ..."; exit status 0 / 1.
#
# Environment: GBDT_SOAK_SESSIONS (4), GBDT_SOAK_ROWS (100000),
# GBDT_SOAK_STUCK_S (15), GBDT_SOAK_LOG (the server log file; default
# $GBDT_CLUSTER_DIR/server.log when scripts/lib-cluster.sh started the cluster,
# else data_directory/pg_current_logfile()), GBDT_SOAK_KEEP=1 keeps the tables
# and the work dir (client logs), GBDT_PG_BINDIR (psql's directory),
# GBDT_SOAK_ONLY=REGEX runs only the operations whose SQL matches.
set -uo pipefail

DURATION=${1:-${GBDT_SOAK_SECONDS:-60}}
SESSIONS=${GBDT_SOAK_SESSIONS:-4}
ROWS=${GBDT_SOAK_ROWS:-100000}
STUCK_S=${GBDT_SOAK_STUCK_S:-15}
BINDIR=${GBDT_PG_BINDIR:-$(pg_config --bindir)}
PSQL="$BINDIR/psql"
APP=gbdt_soak
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gbdt-soak.XXXXXX")
declare -a CHILDREN=()

cleanup() {
  local p
  for p in "${CHILDREN[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
  if [ "${GBDT_SOAK_KEEP:-0}" = 1 ]; then
    echo "soak: work dir kept in $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT
q() { "$PSQL" -X -q -At -v ON_ERROR_STOP=1 "$@"; }
fail() { echo "soak: FAIL: $*"; exit 1; }

q -c "SELECT 1" >/dev/null || fail "cannot connect (PGHOST=${PGHOST:-} PGPORT=${PGPORT:-} PGDATABASE=${PGDATABASE:-})"

# ---- the server log: where, and how much of it predates the soak ----------
LOG=${GBDT_SOAK_LOG:-}
if [ -z "$LOG" ] && [ -n "${GBDT_CLUSTER_DIR:-}" ] && [ -f "$GBDT_CLUSTER_DIR/server.log" ]; then
  LOG=$GBDT_CLUSTER_DIR/server.log
fi
if [ -z "$LOG" ]; then
  rel=$(q -c "SELECT pg_current_logfile()" 2>/dev/null)
  if [ -n "$rel" ]; then
    case $rel in /*) LOG=$rel ;; *) LOG=$(q -c "SHOW data_directory")/$rel ;; esac
  fi
fi
if [ -n "$LOG" ] && [ -r "$LOG" ]; then
  LOG_START=$(($(stat -c %s "$LOG") + 1))
else
  echo "soak: warning: no readable server log (set GBDT_SOAK_LOG); crashes are seen by their clients only"
  LOG=
fi

# ---- data and models --------------------------------------------------------
echo "soak: setup ($ROWS rows, a small and a big model)"
t0=$(date +%s)
q <<SQL || fail "setup failed"
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gbdt;
DROP TABLE IF EXISTS soak_data, soak_models;
SELECT setseed(0.1);
CREATE TABLE soak_data AS
SELECT i AS id, (x0 + 2 * x1 - x2 + x3 * x4 + 0.3 * random() > 1.2)::int::float8 AS label,
       x0, x1, x2, x3, x4, x5, x6, x7
FROM (SELECT i, random() AS x0, random() AS x1, random() AS x2, random() AS x3,
             random() AS x4, random() AS x5, random() AS x6, random() AS x7
      FROM generate_series(1, $ROWS) i) s;
ANALYZE soak_data;
CREATE TABLE soak_models (name text PRIMARY KEY, model gbdt_model);
INSERT INTO soak_models
SELECT 'small', gbdt_train('soak_data', 'label', ARRAY['x0','x1','x2','x3','x4','x5','x6','x7'],
                           'binary:logistic', '{"num_round": 20, "max_depth": 4}');
INSERT INTO soak_models
SELECT 'big', gbdt_train('soak_data', 'label', ARRAY['x0','x1','x2','x3','x4','x5','x6','x7'],
                         'binary:logistic', '{"num_round": 300, "max_depth": 8, "eta": 0.05}');
SQL
echo "soak: setup took $(($(date +%s) - t0)) s"

# Baseline: client backends other than soak ones (and other than this check).
backends() {
  q -c "SELECT count(*) FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
          AND application_name NOT LIKE '${APP}%'"
}
BASE_BACKENDS=$(backends)

# ---- the workload -----------------------------------------------------------
# One statement per connection, so a terminated session costs nothing but a
# reconnect, and after a crash the sessions come back as soon as the server does.
FEATS="ARRAY['x0','x1','x2','x3','x4','x5','x6','x7']"
OPS=(
  "SELECT length(gbdt_train('soak_data', 'label', $FEATS, 'binary:logistic', '{\"num_round\": 200, \"max_depth\": 6}')::text) > 0"
  "SELECT count(*) FROM soak_models m, gbdt_predict_table(m.model, 'soak_data', 'id') p WHERE m.name = 'big'"
  "SELECT count(*) FROM soak_models m, gbdt_predict_table(m.model, 'soak_data', 'id') p WHERE m.name = 'big'"
  "SELECT gbdt_evaluate(m.model, 'soak_data', 'label')->>'auc' FROM soak_models m WHERE m.name = 'big'"
  "SELECT sum(gbdt_predict(m.model, d)) FROM soak_models m, soak_data d WHERE m.name = 'big'"
  "SELECT sum(gbdt_predict(m.model, ARRAY[d.x0, d.x1, d.x2, d.x3, d.x4, d.x5, d.x6, d.x7])) FROM soak_models m, soak_data d WHERE m.name = 'small'"
  "SELECT count(*) FROM soak_models m, gbdt_trees(m.model) t, generate_series(1, 20) WHERE m.name = 'big'"
  "SELECT count(*) FROM soak_models m, gbdt_feature_importance(m.model, 'cover'), generate_series(1, 200) WHERE m.name = 'big'"
  "SELECT count(*) FROM soak_models m, generate_series(1, 300), LATERAL gbdt_model_info(m.model) i WHERE m.name = 'big'"
  "SELECT count(*) FROM soak_models m, gbdt_explain_table(m.model, 'soak_data', 'id') e WHERE m.name = 'big'"
  "SELECT count(*) FROM soak_models m, gbdt_feature_importance(m.model, 'shap', 'soak_data') WHERE m.name = 'big'"
)
# GBDT_SOAK_ONLY=REGEX keeps the operations whose SQL matches (to narrow a find down).
if [ -n "${GBDT_SOAK_ONLY:-}" ]; then
  kept=()
  for op in "${OPS[@]}"; do [[ $op =~ $GBDT_SOAK_ONLY ]] && kept+=("$op"); done
  [ ${#kept[@]} -gt 0 ] || fail "GBDT_SOAK_ONLY=$GBDT_SOAK_ONLY matches no operation"
  OPS=("${kept[@]}")
fi
DEADLINE=$(($(date +%s) + DURATION))

worker() {  # worker N: runs random operations until the deadline
  local n=$1 op timeout
  RANDOM=$((n * 7919 + $$))
  while [ "$(date +%s)" -lt "$DEADLINE" ]; do
    op=${OPS[$((RANDOM % ${#OPS[@]}))]}
    timeout=0
    [ $((RANDOM % 3)) = 0 ] && timeout=$((30 + RANDOM % 771))
    echo "OP timeout=${timeout}ms: ${op:0:60}"
    PGAPPNAME="${APP}_w$n" PGOPTIONS="-c statement_timeout=$timeout" \
      "$PSQL" -X -q -At -v ON_ERROR_STOP=1 -c "$op" 2>&1
    echo "RC $?"
    sleep 0.0$((RANDOM % 10))
  done
}

killer() {  # cancels or terminates a random busy soak backend every 10 ms - 1 s
  RANDOM=$$
  local ms how pid
  while [ "$(date +%s)" -lt "$DEADLINE" ]; do
    ms=$((10 + RANDOM % 991))
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
    if [ $((RANDOM % 2)) = 0 ]; then how=cancel; else how=terminate; fi
    pid=$(PGAPPNAME="${APP}_killer" "$PSQL" -X -q -At -c \
      "SELECT pid FROM pg_stat_activity
       WHERE application_name LIKE '${APP}_w%' AND state = 'active'
         AND query LIKE '%gbdt_%' AND pid <> pg_backend_pid()
       ORDER BY random() LIMIT 1" 2>/dev/null)
    [ -n "$pid" ] || continue
    PGAPPNAME="${APP}_killer" "$PSQL" -X -q -At -c "SELECT pg_${how}_backend($pid)" >/dev/null 2>&1 \
      && echo "$how $pid after ${ms}ms"
  done
}

echo "soak: $SESSIONS sessions and a killer for ${DURATION}s"
for n in $(seq 1 "$SESSIONS"); do
  worker "$n" >"$WORK/worker$n.log" 2>&1 &
  CHILDREN+=($!)
done
killer >"$WORK/killer.log" 2>&1 &
CHILDREN+=($!)

# ---- stop: terminate the soak backends, wait for the loops, check ----------
problems=()
sleep $((DEADLINE - $(date +%s) > 0 ? DEADLINE - $(date +%s) : 0))
stop_t=$(date +%s)
# Terminate every soak backend once a second (a worker may start one last
# statement after the deadline) until the loops are gone or STUCK_S is over:
# a backend that ignores pg_terminate_backend keeps its client waiting.
left=1
while [ $(($(date +%s) - stop_t)) -lt "$STUCK_S" ]; do
  q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name LIKE '${APP}_w%' AND pid <> pg_backend_pid()" >/dev/null 2>&1
  left=0
  for p in "${CHILDREN[@]}"; do kill -0 "$p" 2>/dev/null && left=1; done
  [ "$left" = 0 ] && break
  sleep 1
done
[ "$left" = 0 ] || problems+=("soak clients still waiting ${STUCK_S}s after the stop")
# The server may be recovering from a crash: wait for it, and for the backends to go.
up=0
while :; do
  if q -c "SELECT 1" >/dev/null 2>&1; then
    up=1
    n_soak=$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE '${APP}_%' AND pid <> pg_backend_pid()")
    [ "$n_soak" = 0 ] && break
  fi
  [ $(($(date +%s) - stop_t)) -lt $((STUCK_S * 2)) ] || break
  sleep 1
done
[ "$up" = 1 ] || problems+=("server does not answer $((STUCK_S * 2))s after the soak")
for p in "${CHILDREN[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
wait 2>/dev/null
CHILDREN=()

stuck=""
if [ "$up" = 1 ]; then
  stuck=$(q -F ' | ' -c "SELECT pid, application_name, round(extract(epoch FROM now() - query_start)), left(query, 80)
                         FROM pg_stat_activity
                         WHERE state = 'active' AND query LIKE '%gbdt_%' AND pid <> pg_backend_pid()
                           AND (application_name LIKE '${APP}_%' OR now() - query_start > interval '$STUCK_S seconds')")
  [ -z "$stuck" ] || problems+=("gbdt queries still active after stop+${STUCK_S}s: $(echo "$stuck" | tr '\n' ';')")
  now_backends=$(backends)
  [ "$now_backends" = "$BASE_BACKENDS" ] \
    || problems+=("client backends $BASE_BACKENDS before, $now_backends after")
fi

# ---- tallies ----------------------------------------------------------------
cat "$WORK"/worker*.log >"$WORK/workers.all"
count() { grep -c -E "$1" "$2" 2>/dev/null || true; }
n_ops=$(count '^RC ' "$WORK/workers.all")
n_ok=$(count '^RC 0$' "$WORK/workers.all")
n_cancel=$(count 'canceling statement due to user request' "$WORK/workers.all")
n_timeout=$(count 'canceling statement due to statement timeout' "$WORK/workers.all")
n_term=$(count 'terminating connection due to administrator command' "$WORK/workers.all")
n_crash_client=$(count 'crash of another server process' "$WORK/workers.all")
n_kill_c=$(count '^cancel ' "$WORK/killer.log")
n_kill_t=$(count '^terminate ' "$WORK/killer.log")
# Errors that neither a cancel, a timeout, a terminate nor a crash explain.
grep -E 'ERROR|FATAL|PANIC' "$WORK/workers.all" \
  | grep -v -E 'canceling statement due to (user request|statement timeout)|terminating connection due to administrator command|crash of another server process|the database system is (in recovery mode|starting up|shutting down|not yet accepting connections)|gbdt training cancelled' \
  | sort | uniq -c | sort -rn >"$WORK/unexpected" || true

n_crash_log=0
if [ -n "$LOG" ]; then
  tail -c +"$LOG_START" "$LOG" >"$WORK/server.log" 2>/dev/null
  grep -E 'terminated by signal|was terminated|server process .* exited with exit code [^01]|PANIC' \
    "$WORK/server.log" >"$WORK/crashes" || true
  n_crash_log=$(count 'was terminated by signal|exited with exit code [^01]|PANIC' "$WORK/crashes")
  if [ -s "$WORK/crashes" ]; then
    problems+=("server log: $n_crash_log crash line(s)")
    echo "--- server log lines (first 10):"; head -n 10 "$WORK/crashes"
    echo "--- context of the first one:"
    first=$(head -n 1 "$WORK/crashes")
    grep -F -B 8 -A 2 -- "$first" "$WORK/server.log" | head -n 14
  fi
fi
[ "$n_crash_client" = 0 ] || problems+=("$n_crash_client client(s) saw 'crash of another server process'")
if [ -s "$WORK/unexpected" ]; then
  problems+=("unexpected errors: $(head -n 5 "$WORK/unexpected" | sed 's/^ *//' | tr '\n' ';')")
fi

summary="$n_ops statements ($n_ok ok, $n_cancel cancelled, $n_timeout timed out, $n_term terminated) in ${DURATION}s x $SESSIONS sessions; killer sent $n_kill_c cancels and $n_kill_t terminates; crashes: $n_crash_log in the log"
if [ "${GBDT_SOAK_KEEP:-0}" != 1 ] && [ "$up" = 1 ]; then
  q -c "DROP TABLE IF EXISTS soak_data, soak_models" >/dev/null 2>&1 || true
fi
echo "soak: stopped $(( $(date +%s) - stop_t ))s after the last statement"
if [ ${#problems[@]} -gt 0 ]; then
  fail "$summary; $(printf '%s; ' "${problems[@]}")"
fi
echo "soak: ok: $summary"
