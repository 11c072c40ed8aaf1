#!/usr/bin/env bash
# The pg_cron retraining recipe, tested end to end (docs/registry.md):
#
#   bash scripts/test-cron.sh
#
# Starts its own throw-away cluster (scripts/lib-cluster.sh) restarted with
# shared_preload_libraries = 'pg_cron' (Debian package postgresql-15-cron),
# creates pg_cron and gbdt, trains and saves a model with gbdt_train_and_save,
# adds rows to the training table, schedules SELECT gbdt_retrain('...') with
# cron.schedule, waits for the job to run (pg_cron 1.4 schedules by the
# minute: up to ~70 s), asserts that version 2 exists, was trained on the new
# rows and is deployed, unschedules the job and removes the cluster.
#
# Environment: GBDT_CRON_PGPORT (default 5434; the server listens on a unix
# socket in its temp dir only), GBDT_CRON_WAIT (seconds to wait, default 150),
# GBDT_KEEP_CLUSTER=1 keeps the cluster dir.  Prints a last line
# "test-cron: ..." and exits non-zero on failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
WAIT=${GBDT_CRON_WAIT:-150}
MODEL=cron_demo

fail() {
  echo "--- server log (tail):"
  cluster_log_tail 30
  echo "test-cron: FAIL: $*"
  exit 1
}

# shellcheck source=scripts/lib-cluster.sh
GBDT_CLUSTER_DIR=
source "$ROOT/scripts/lib-cluster.sh"

if [ ! -f "$("$GBDT_PG_BINDIR/pg_config" --sharedir 2>/dev/null || pg_config --sharedir)/extension/pg_cron.control" ]; then
  echo "test-cron: FAIL: pg_cron is not installed (apt-get install postgresql-15-cron)"
  exit 1
fi

PORT=${GBDT_CRON_PGPORT:-5434}
cluster_start "$PORT" || { echo "test-cron: FAIL: cluster did not start"; exit 1; }
# lib-cluster starts the server without preloaded libraries; restart it with
# pg_cron preloaded (the recipe's postgresql.conf settings, as -c options).
cluster_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$GBDT_CLUSTER_DIR/data" -m fast -w stop >/dev/null \
  || fail "could not stop the cluster for the restart"
OPTS="-p $PORT -k $GBDT_CLUSTER_DIR -c listen_addresses= -c fsync=off -c max_worker_processes=16"
OPTS="$OPTS -c shared_preload_libraries=pg_cron -c cron.database_name=$PGDATABASE"
OPTS="$OPTS -c cron.use_background_workers=on -c cron.host=$GBDT_CLUSTER_DIR"
if ! cluster_as_owner "$GBDT_PG_BINDIR/pg_ctl" -D "$GBDT_CLUSTER_DIR/data" -w -t 60 \
      -l "$GBDT_CLUSTER_DIR/server.log" \
      -o "$OPTS" \
      start >/dev/null; then
  fail "server did not start with shared_preload_libraries=pg_cron"
fi
echo "== test-cron: cluster restarted with pg_cron preloaded"

cluster_psql -o /dev/null <<SQL || fail "setup failed"
CREATE EXTENSION pg_cron;
CREATE EXTENSION gbdt;
SELECT setseed(0.42);
CREATE TABLE cron_train AS
SELECT (x1 + 2 * x2 - x3 + 0.1 * (random() - 0.5) > 1)::int::float8 AS label, x1, x2, x3
FROM (SELECT random() AS x1, random() AS x2, random() AS x3 FROM generate_series(1, 2000)) s;
SELECT gbdt_train_and_save('$MODEL', 'cron_train', 'label', NULL, 'binary:logistic',
                           '{"num_round": 20, "max_depth": 3, "validation_fraction": 0.2}', 'always');
-- New data arrives before the nightly job.
INSERT INTO cron_train
SELECT (x1 + 2 * x2 - x3 > 1)::int::float8, x1, x2, x3
FROM (SELECT random() AS x1, random() AS x2, random() AS x3 FROM generate_series(1, 500)) s;
SQL

JOBID=$(cluster_psql -At -c "SELECT cron.schedule('gbdt-retrain-$MODEL', '* * * * *', \$\$SELECT gbdt_retrain('$MODEL')\$\$)") \
  || fail "cron.schedule failed"
echo "== test-cron: scheduled job $JOBID ('* * * * *': SELECT gbdt_retrain('$MODEL')); waiting up to ${WAIT}s"

t0=$(date +%s)
v=1
while :; do
  v=$(cluster_psql -At -c "SELECT max(version) FROM gbdt_models WHERE name = '$MODEL'") || v=?
  [ "$v" = 2 ] || [ "$v" = 3 ] && break
  failed=$(cluster_psql -At -c "SELECT string_agg(return_message, '; ') FROM cron.job_run_details
                                WHERE jobid = $JOBID AND status = 'failed'") || failed=
  [ -n "$failed" ] && fail "the cron job failed: $failed"
  if [ $(($(date +%s) - t0)) -ge "$WAIT" ]; then
    cluster_psql -c "SELECT * FROM cron.job_run_details" || true
    fail "no version 2 of '$MODEL' after ${WAIT}s (latest version: $v)"
  fi
  sleep 2
done
waited=$(($(date +%s) - t0))
cluster_psql -At -c "SELECT cron.unschedule($JOBID)" >/dev/null || fail "cron.unschedule failed"

# Version 2: made by the job, trained on the current 2500 rows, deployed.
check=$(cluster_psql -At -F ' ' -c "
  SELECT (SELECT (metrics->>'rows_used')::int + (metrics->>'rows_validation')::int
          FROM gbdt_models WHERE name = '$MODEL' AND version = 2),
         (SELECT deployed FROM gbdt_models WHERE name = '$MODEL' AND version = 2),
         (SELECT count(*) FROM cron.job_run_details WHERE jobid = $JOBID AND status = 'succeeded'),
         (SELECT count(*) FROM cron.job WHERE jobid = $JOBID),
         (SELECT gbdt_model_info(gbdt_model('$MODEL'))->>'rounds')") || fail "checks failed"
read -r rows deployed runs left rounds <<<"$check"
echo "== test-cron: version 2 after ${waited}s: rows $rows, deployed $deployed, succeeded runs $runs, job left $left, rounds $rounds"
[ "$rows" = 2500 ] || fail "version 2 was trained on $rows rows, expected 2500"
[ "$deployed" = t ] || fail "version 2 is not deployed"
[ "${runs:-0}" -ge 1 ] || fail "cron.job_run_details has no succeeded run"
[ "$left" = 0 ] || fail "the job is still scheduled after cron.unschedule"

cluster_stop >/dev/null
echo "test-cron: ok: gbdt_retrain via pg_cron made version 2 in ${waited}s"
exit 0
