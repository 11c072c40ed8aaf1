#!/usr/bin/env bash
# Cancel latency of every long-running SQL function of gbdt, against an
# already running cluster (PGHOST, PGPORT, PGUSER, PGDATABASE as
# scripts/test.sh exports them; the gbdt extension may or may not be
# created there).  Each case runs the worst input found so far under
# statement_timeout = 1 s and must end with the cancel error within
# GBDT_CANCEL_LATENCY_MAX seconds (default 2).  It builds its own tables in
# the schema cancel_latency (dropped at the start and at the end) and its
# hostile models with scripts/cancel_latency_models.py (python3, standard
# library only).
#
#   bash scripts/test-cancel-latency.sh
#
# Prints one line per case, then "test-cancel-latency: ok: ..." or
# "test-cancel-latency: FAIL: ..." last; exits non-zero on a failure.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-python3}
BINDIR=${GBDT_PG_BINDIR:-$(pg_config --bindir)}
MAX=${GBDT_CANCEL_LATENCY_MAX:-2}
TMP=$(mktemp -d)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT

psql_q() { "$BINDIR/psql" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

fail_setup() {
  echo "test-cancel-latency: FAIL: setup: $1"
  exit 1
}

# ---- hostile models (XGBoost JSON) -------------------------------------------
# A chain of 10^6 nodes (every row below 0.5 walks 500,000 splits) and one
# TreeSHAP tree 498 levels deep (2^8 chains of 490 splits under a full
# binary tree of 8 levels, every level its own feature).
"$PY" "$ROOT/scripts/cancel_latency_models.py" chain 1000001 >"$TMP/chain.json" \
  || fail_setup "chain model"
"$PY" "$ROOT/scripts/cancel_latency_models.py" shap 490 8 >"$TMP/shap.json" \
  || fail_setup "TreeSHAP model"

# ---- tables -------------------------------------------------------------------
psql_q <<SQL || fail_setup "tables (see the error above)"
CREATE EXTENSION IF NOT EXISTS gbdt;
DROP SCHEMA IF EXISTS cancel_latency CASCADE;
CREATE SCHEMA cancel_latency;
SET search_path = cancel_latency, public;
CREATE TABLE model_json (name text, j text);
\\copy model_json (j) FROM '$TMP/chain.json'
UPDATE model_json SET name = 'chain' WHERE name IS NULL;
\\copy model_json (j) FROM '$TMP/shap.json'
UPDATE model_json SET name = 'shap' WHERE name IS NULL;
CREATE TABLE model_jsonb AS SELECT name, j::jsonb AS j FROM model_json;
CREATE TABLE models AS SELECT name, gbdt_import(j) AS m FROM model_jsonb;
DROP TABLE model_json;
SELECT setseed(0.5);
-- Training shapes: many rounds, deep trees, many classes (20,000 rows).
CREATE TABLE t20k AS
SELECT i AS id, random() AS x1, random() AS x2, random() AS x3, random() AS x4, random() AS x5,
       random() * 10 AS y, (i % 500)::float8 AS y500
FROM generate_series(1, 20000) i;
-- Wide rows: 400 features x 5,000 rows.
SELECT format('CREATE TABLE wide AS SELECT random() AS y, %s FROM generate_series(1, 5000) i',
              string_agg(format('random() AS f%s', k), ', '))
FROM generate_series(1, 400) k \\gexec
-- Many quantiles: 1,000,000 rows.
CREATE TABLE q1m AS SELECT i, (i % 1000)::float8 / 7 AS x, random() * 100 AS y
FROM generate_series(1, 1000000) i;
-- Ranking: one query group of 200,000 documents.
CREATE TABLE rank1 AS SELECT 1 AS qid, random() AS f0, random() AS f1, (i % 5)::float8 AS rel
FROM generate_series(1, 200000) i;
-- Scoring rows for the chain (a < 0.5: every split walked) and for TreeSHAP.
CREATE TABLE r20k AS SELECT i AS id, 0.25::float8 AS a, 1.0::float8 AS y
FROM generate_series(1, 20000) i;
SELECT format('CREATE TABLE srows AS SELECT i AS id, %s FROM generate_series(1, 64) i',
              string_agg(format('0.25::float8 AS f%s', k), ', '))
FROM generate_series(0, 497) k \\gexec
ANALYZE;
SQL

# ---- cases --------------------------------------------------------------------
# name|statement (cancel_latency objects qualified; models by name).
QALPHA=$(seq 1 64 | awk '{ printf "%s%.6f", (NR > 1 ? "," : ""), $1 / 65 }')
CASES=(
  "gbdt_train rounds|SELECT gbdt_train('cancel_latency.t20k', 'y', ARRAY['x1','x2','x3','x4','x5'], 'reg:squarederror', '{\"num_round\": 100000, \"max_depth\": 8}')"
  "gbdt_train deep trees|SELECT gbdt_train('cancel_latency.t20k', 'y', ARRAY['x1','x2','x3','x4','x5'], 'reg:squarederror', '{\"num_round\": 100000, \"max_depth\": 16}')"
  "gbdt_train 500 classes|SELECT gbdt_train('cancel_latency.t20k', 'y500', ARRAY['x1','x2','x3','x4','x5'], 'multi:softprob', '{\"num_round\": 100000}')"
  "gbdt_train 400 features|SELECT gbdt_train('cancel_latency.wide', 'y', NULL, 'reg:squarederror', '{\"num_round\": 100000, \"max_depth\": 10}')"
  "gbdt_train 64 quantiles, 1M rows|SELECT gbdt_train('cancel_latency.q1m', 'y', ARRAY['x'], 'reg:quantileerror', '{\"num_round\": 100000, \"quantile_alpha\": [$QALPHA]}')"
  "gbdt_train one ranking group of 200k rows|SELECT gbdt_train('cancel_latency.rank1', 'rel', ARRAY['f0','f1'], 'rank:ndcg', '{\"group_column\": \"qid\", \"num_round\": 100000, \"lambdarank_num_pair_per_sample\": 1000}')"
  "gbdt_import 10^6-node chain|SELECT gbdt_import(j) FROM cancel_latency.model_jsonb WHERE name = 'chain'"
  "gbdt_predict_table chain x 20k rows|SELECT count(*) FROM cancel_latency.models, gbdt_predict_table(m, 'cancel_latency.r20k', 'id') WHERE name = 'chain'"
  "gbdt_evaluate chain x 20k rows|SELECT gbdt_evaluate(m, 'cancel_latency.r20k', 'y') FROM cancel_latency.models WHERE name = 'chain'"
  "gbdt_predict chain per row x 20k rows|SELECT sum(gbdt_predict(mo.m, r)) FROM cancel_latency.models mo, cancel_latency.r20k r WHERE mo.name = 'chain'"
  "gbdt_explain deep wide tree|SELECT gbdt_explain(mo.m, s) FROM cancel_latency.models mo, cancel_latency.srows s WHERE mo.name = 'shap' AND s.id = 1"
  "gbdt_explain_table deep wide tree|SELECT count(*) FROM cancel_latency.models, gbdt_explain_table(m, 'cancel_latency.srows', 'id') WHERE name = 'shap'"
)

{
  echo '\set ON_ERROR_STOP 1'
  # pg_temp.timed(q): the statement's cancel message and seconds, the
  # helper the pgTAP files use too.
  echo "\\i '$ROOT/test/sql/lib/timed.sql'"
  for c in "${CASES[@]}"; do
    name=${c%%|*}
    stmt=${c#*|}
    echo "SET statement_timeout = '1s';"
    echo "SELECT format('%s|%s|%s', \$n\$$name\$n\$, round(seconds::numeric, 2), err) FROM pg_temp.timed(\$q\$$stmt\$q\$);"
    echo "RESET statement_timeout;"
  done
} >"$TMP/cases.sql"

START=$(date +%s)
OUT=$TMP/cases.out
psql_q -f "$TMP/cases.sql" >"$OUT" 2>&1
psql_rc=$?
n_ok=0
n_fail=0
failed=()
while IFS='|' read -r name secs err; do
  [ -n "$name" ] || continue
  if [ "$err" = "canceling statement due to statement timeout" ] &&
     awk -v s="$secs" -v m="$MAX" 'BEGIN { exit !(s < m) }'; then
    verdict=ok
    n_ok=$((n_ok + 1))
  else
    verdict=FAIL
    n_fail=$((n_fail + 1))
    failed+=("$name")
  fi
  printf '  %-45s %6ss  %s  (%s)\n' "$name" "$secs" "$verdict" "$err"
done < <(grep '|' "$OUT")
n_cases=${#CASES[@]}
if [ "$psql_rc" != 0 ] || [ $((n_ok + n_fail)) != "$n_cases" ]; then
  echo "--- psql output:"
  cat "$OUT"
  n_fail=$((n_cases - n_ok))
  failed+=("psql rc $psql_rc, $((n_ok + n_fail)) results")
fi
psql_q -c "DROP SCHEMA IF EXISTS cancel_latency CASCADE" >/dev/null 2>&1
if [ "$n_fail" = 0 ]; then
  echo "test-cancel-latency: ok: $n_ok/$n_cases cases ended within ${MAX}s of a 1s statement_timeout ($(( $(date +%s) - START ))s)"
else
  echo "test-cancel-latency: FAIL: $n_fail/$n_cases cases not cancelled within ${MAX}s: $(IFS=';'; echo "${failed[*]}")"
  exit 1
fi
