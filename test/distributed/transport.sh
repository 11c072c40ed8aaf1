#!/usr/bin/env bash
# Transport faults of a distributed training (the coordinator's libpq
# sessions, extension/pg/distributed/shard_link.cpp), on throw-away
# clusters from scripts/shard-clusters.sh: a coordinator and 3 shards, the
# table dist_parent(x1..x8, y) with one postgres_fdw partition per shard
# (100k rows each), trained by the password-mapped non-superuser.
#
#   bash test/distributed/transport.sh [BASEPORT]
#
# Checks:
#  1. statement_timeout on the coordinator mid-training: every shard's gbdt
#     session is idle (or gone) within 2 s of the coordinator's error;
#  2. pg_terminate_backend of shard s2's gbdt session mid-training: an error
#     naming server "s2", the other shards idle within 2 s;
#  3. a stopped shard (its gbdt backend sent SIGSTOP): an error naming
#     server "s3" within gbdt.shard_timeout (+2 s);
# and of scoring on the shards (gbdt_predict_table on slow_parent, whose
# partitions are remote views that sleep per row):
#  4. statement_timeout on the coordinator mid-scoring: every shard idle
#     within 2 s;
#  5. pg_terminate_backend of shard s1's session mid-scoring: an error
#     naming server "s1", the other shards idle within 2 s;
#  6. a stopped shard s1, gbdt.shard_timeout = 2s: an error naming server
#     "s1" within 4 s;
# and last (it stops a shard for good):
#  7. a shard server shut down mid-training (pg_ctl stop -m immediate): an
#     error naming server "s3" within 2 s.
# Exit 0 all passed, 1 a check failed, 77 skipped (no gbdt_shard_step in
# this build).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/scripts/shard-clusters.sh" start 4 "${1:-${GBDT_SHARD_BASEPORT:-56170}}" || exit 1
trap shard_clusters_stop EXIT
WORK=$GBDT_SHARDS_DIR/transport
mkdir -p "$WORK" && chmod 777 "$WORK"
fails=0
pass() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
shard_port() { echo "$GBDT_SHARD_PORTS" | cut -d' ' -f"$1"; }

# GBDT_TRANSPORT_SETUP (a file sourced here) and GBDT_TRANSPORT_TRAIN (the
# statement) replace the shard function and the training, to check this
# script itself with a stand-in before the distributed training exists.
[ -n "${GBDT_TRANSPORT_SETUP:-}" ] && source "$GBDT_TRANSPORT_SETUP"
if [ "$(shard_psql "$(shard_port 1)" postgres -At -c \
      "SELECT count(*) > 0 FROM pg_catalog.pg_proc WHERE proname = 'gbdt_shard_step'")" != t ]; then
  echo "SKIP: gbdt_shard_step(text, text, bytea) is not in this build of gbdt"
  exit 77
fi

# The data: 100k rows per shard, seeded per shard; the coordinator's
# partitioned table over them (hash partitions: foreign partitions' bounds
# are not checked against the remote rows, and training reads them all).
for k in 1 2 3; do
  shard_psql "$(shard_port $k)" postgres <<SQL || exit 1
CREATE TABLE dist_part (x1 float8, x2 float8, x3 float8, x4 float8,
                        x5 float8, x6 float8, x7 float8, x8 float8, y float8);
DO \$\$ BEGIN PERFORM setseed(0.$k); END \$\$;
INSERT INTO dist_part
SELECT a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
       a[1] * 2 - a[2] + sin(a[3] * 6) + (a[4] > 0.5)::int + random() * 0.1
FROM (SELECT ARRAY(SELECT random() FROM generate_series(1, 8) WHERE g > 0) AS a
      FROM generate_series(1, 100000) g) s;
GRANT SELECT ON dist_part TO $GBDT_SHARD_ROLE;
-- About 5 s to read: a sleep of 50 us per row.
CREATE VIEW slow_part AS SELECT d.* FROM dist_part d, LATERAL (SELECT pg_sleep(0.00005 + 0 * d.x1)) s;
GRANT SELECT ON slow_part TO $GBDT_SHARD_ROLE;
SQL
done
shard_psql "$GBDT_COORD_PORT" postgres <<SQL || exit 1
CREATE TABLE dist_parent (x1 float8, x2 float8, x3 float8, x4 float8,
                          x5 float8, x6 float8, x7 float8, x8 float8, y float8)
  PARTITION BY HASH (x1);
CREATE FOREIGN TABLE dist_p1 PARTITION OF dist_parent FOR VALUES WITH (MODULUS 3, REMAINDER 0)
  SERVER s1 OPTIONS (table_name 'dist_part');
CREATE FOREIGN TABLE dist_p2 PARTITION OF dist_parent FOR VALUES WITH (MODULUS 3, REMAINDER 1)
  SERVER s2 OPTIONS (table_name 'dist_part');
CREATE FOREIGN TABLE dist_p3 PARTITION OF dist_parent FOR VALUES WITH (MODULUS 3, REMAINDER 2)
  SERVER s3 OPTIONS (table_name 'dist_part');
GRANT SELECT ON dist_parent, dist_p1, dist_p2, dist_p3 TO $GBDT_SHARD_ROLE;
CREATE TABLE slow_parent (x1 float8, x2 float8, x3 float8, x4 float8,
                          x5 float8, x6 float8, x7 float8, x8 float8, y float8)
  PARTITION BY HASH (x1);
CREATE FOREIGN TABLE slow_p1 PARTITION OF slow_parent FOR VALUES WITH (MODULUS 3, REMAINDER 0)
  SERVER s1 OPTIONS (table_name 'slow_part');
CREATE FOREIGN TABLE slow_p2 PARTITION OF slow_parent FOR VALUES WITH (MODULUS 3, REMAINDER 1)
  SERVER s2 OPTIONS (table_name 'slow_part');
CREATE FOREIGN TABLE slow_p3 PARTITION OF slow_parent FOR VALUES WITH (MODULUS 3, REMAINDER 2)
  SERVER s3 OPTIONS (table_name 'slow_part');
GRANT SELECT ON slow_parent TO $GBDT_SHARD_ROLE;
SQL

TRAIN=${GBDT_TRANSPORT_TRAIN:-"SELECT gbdt_train('dist_parent', 'y', ARRAY['x1','x2','x3','x4','x5','x6','x7','x8'], params => '{\"distributed\": \"on\", \"num_round\": 2000}') IS NOT NULL"}

# gbdt sessions on shard k (the coordinator's libpq sessions say
# application_name 'gbdt'), all or only the active ones.
gbdt_sessions() {
  shard_psql "$(shard_port "$1")" postgres -At -c \
    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gbdt' ${2:+AND state = '$2'}" 2>/dev/null || echo 0
}
gbdt_pid() {
  shard_psql "$(shard_port "$1")" postgres -At -c \
    "SELECT pid FROM pg_stat_activity WHERE application_name = 'gbdt' LIMIT 1"
}
# Waits up to $2 s for shard $1 to have a gbdt session.
wait_session() {
  local end=$(($(date +%s) + $2))
  while [ "$(date +%s)" -lt "$end" ]; do
    [ "$(gbdt_sessions "$1")" -gt 0 ] && return 0
    sleep 0.1
  done
  return 1
}
# Waits up to 2 s for no active gbdt session on shards $@; echoes the time.
wait_idle() {
  local t0 k busy
  t0=$(now)
  while :; do
    busy=0
    for k in "$@"; do busy=$((busy + $(gbdt_sessions "$k" active))); done
    [ $busy = 0 ] && { since "$t0"; return 0; }
    [ "$(echo "$(since "$t0") > 2" | bc)" = 1 ] && return 1
    sleep 0.05
  done
}
# Starts sql in the background as the mapped role (extra psql arguments
# after it), output in $WORK/$1.out.
run_bg() {
  local name=$1 sql=$2; shift 2
  ( shard_psql "$GBDT_COORD_PORT" "$GBDT_SHARD_ROLE" -At "$@" -c "$sql" \
      >"$WORK/$name.out" 2>&1; echo $? >"$WORK/$name.rc" ) &
}
train_bg() { local name=$1; shift; run_bg "$name" "$TRAIN" "$@"; }

# NAME SQL TIMEOUT WHEN: a statement_timeout on the coordinator while sql
# runs; every shard had a gbdt session, and all are idle within 2 s after.
fault_timeout() {
  local name=$1 sql=$2 timeout=$3 when=$4
  run_bg "$name" "$sql" -c "SET statement_timeout = '$timeout'"
  if wait_session 1 5 && wait_session 2 5 && wait_session 3 5; then pass "every shard has a gbdt session $when"
  else fail "the shards never had gbdt sessions: $(cat "$WORK/$name.out")"; fi
  wait
  if grep -q "statement timeout" "$WORK/$name.out"; then
    if t=$(wait_idle 1 2 3); then pass "all shards idle ${t}s after the coordinator's timeout"
    else fail "a shard was still busy 2 s after the coordinator's timeout"; fi
  else fail "expected a statement timeout: $(cat "$WORK/$name.out")"; fi
}

# NAME SQL K OTHER...: shard K's gbdt session is terminated while sql runs;
# the error names sK and the other shards are idle within 2 s.
fault_terminate() {
  local name=$1 sql=$2 k=$3; shift 3
  local others; others=$(printf 's%s, ' "$@"); others=${others%, }
  run_bg "$name" "$sql"
  if wait_session "$k" 10; then
    sleep 1
    shard_psql "$(shard_port "$k")" postgres -At -c \
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gbdt'" >/dev/null
    local t0; t0=$(now)
    wait
    if grep -q "server \"s$k\"" "$WORK/$name.out"; then pass "error names s$k after $(since "$t0")s: $(grep -m1 ERROR "$WORK/$name.out")"
    else fail "no error naming s$k: $(cat "$WORK/$name.out")"; fi
    if t=$(wait_idle "$@"); then pass "shards $others idle ${t}s later"; else fail "$others still busy 2 s later"; fi
  else wait; fail "s$k never had a gbdt session: $(cat "$WORK/$name.out")"; fi
}

# NAME SQL K SHARD_TIMEOUT LIMIT PAUSE: shard K's gbdt backend is stopped
# (SIGSTOP) PAUSE seconds into sql; the error names sK and
# gbdt.shard_timeout within LIMIT seconds, and every shard is idle within
# 2 s after it resumes.
fault_stopped() {
  local name=$1 sql=$2 k=$3 shard_timeout=$4 limit=$5 pause=$6
  run_bg "$name" "$sql" -c "SET gbdt.shard_timeout = '$shard_timeout'"
  if wait_session "$k" 10; then
    sleep "$pause"
    local pid; pid=$(gbdt_pid "$k")
    kill -STOP "$pid"
    local t0; t0=$(now)
    wait
    local el; el=$(since "$t0")
    kill -CONT "$pid" 2>/dev/null
    if grep -q "server \"s$k\".*gbdt.shard_timeout" "$WORK/$name.out" && [ "$(echo "$el < $limit" | bc)" = 1 ]; then
      pass "error names s$k after ${el}s: $(grep -m1 ERROR "$WORK/$name.out")"
    else fail "after ${el}s: $(cat "$WORK/$name.out")"; fi
    if t=$(wait_idle 1 2 3); then pass "all shards idle ${t}s after s$k resumed"; else fail "a shard still busy 2 s later"; fi
  else wait; fail "s$k never had a gbdt session: $(cat "$WORK/$name.out")"; fi
}

echo "== 1. statement_timeout on the coordinator"
fault_timeout timeout "$TRAIN" 6s mid-training

echo "== 2. pg_terminate_backend of shard s2's session"
fault_terminate terminate "$TRAIN" 2 1 3

echo "== 3. a stopped shard (SIGSTOP of s3's gbdt backend), gbdt.shard_timeout = 3s"
fault_stopped stopped "$TRAIN" 3 3s 5 1

SCORE="SET gbdt.distributed_scoring = on; SELECT count(*) FROM gbdt_predict_table((SELECT m FROM score_model), 'slow_parent', 'y')"
shard_psql "$GBDT_COORD_PORT" postgres -q \
  -c "CREATE TABLE score_rows AS SELECT random() AS x1, random() AS x2, random() AS x3, random() AS x4, random() AS x5, random() AS x6, random() AS x7, random() AS x8, random() AS y FROM generate_series(1, 2000)" \
  -c "CREATE TABLE score_model AS SELECT gbdt_train('score_rows', 'y', ARRAY['x1','x2','x3','x4','x5','x6','x7','x8'], params => '{\"num_round\": 5}') AS m" \
  -c "GRANT SELECT ON score_model TO $GBDT_SHARD_ROLE" >/dev/null 2>&1 || fail "could not train the scoring model"
echo "== 4. statement_timeout on the coordinator mid-scoring"
fault_timeout score_timeout "$SCORE" 2s mid-scoring

echo "== 5. pg_terminate_backend of shard s1's session mid-scoring"
fault_terminate score_terminate "$SCORE" 1 2 3

echo "== 6. a stopped shard (SIGSTOP of s1's gbdt backend) mid-scoring, gbdt.shard_timeout = 2s"
fault_stopped score_stopped "$SCORE" 1 2s 4 0.5

echo "== 7. shard s3's server shut down mid-training"
train_bg shutdown
if wait_session 3 10; then
  sleep 1
  shard_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$(shard_sockdir "$(shard_port 3)")/data" -m immediate stop >/dev/null
  t0=$(now)
  wait
  el=$(since "$t0")
  if grep -q 'server "s3"' "$WORK/shutdown.out" && [ "$(echo "$el < 2" | bc)" = 1 ]; then
    pass "error names s3 after ${el}s: $(grep -m1 ERROR "$WORK/shutdown.out")"
  else fail "after ${el}s: $(cat "$WORK/shutdown.out")"; fi
  if t=$(wait_idle 1 2); then pass "s1, s2 idle ${t}s later"; else fail "s1 or s2 still busy 2 s later"; fi
else wait; fail "s3 never had a gbdt session: $(cat "$WORK/shutdown.out")"; fi

[ $fails = 0 ] && echo "transport: PASS" || echo "transport: $fails FAILED"
[ $fails = 0 ]
