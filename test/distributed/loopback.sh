#!/usr/bin/env bash
# Training on foreign partitions, on one cluster: postgres_fdw loopback
# servers pointing at OTHER DATABASES of the running cluster (PGHOST = its
# socket directory, PGPORT, superuser PGUSER, no password).
#
#   bash test/distributed/loopback.sh      # against the cluster of PG* variables
#
# Creates gbdt_shard1..3 (gbdt installed, the same rows layout, deterministic
# rows: generate_series and hashint4, never random()), the coordinator
# database gbdt_shard_coord (postgres_fdw servers s1..s3, user mappings, a
# partitioned table pt of three foreign partitions, range on id, and a local
# table lt with the same rows in partition order), then runs
# test/distributed/identity.sql there and test/distributed/shard_step.sql
# in gbdt_shard1 (the shard function itself) with pg_prove, and
# test/distributed/scoring.sql there (scoring on the shards).  Skips (exit 0, with a
# message) when postgres_fdw is not installed.  Leaves the databases in
# place for inspection; each run drops and recreates them.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PSQL=${PSQL:-psql}
: "${PGHOST:?set PGHOST to the socket directory of the cluster}"
: "${PGPORT:?PGPORT must be set}"
export PGUSER=${PGUSER:-postgres}

if ! "$PSQL" -X -At -d postgres -c \
    "SELECT 1 FROM pg_available_extensions WHERE name = 'postgres_fdw'" | grep -q 1; then
  echo "loopback: skipped: postgres_fdw is not installed on this server"
  exit 0
fi

q() { "$PSQL" -X -q -v ON_ERROR_STOP=1 "$@"; }

# The rows of ids lo..hi, the same expression on every database.  y NULL on
# every 97th row (left out of the training); yb a 0/1 label, yc 3 classes.
rows_sql() {
  cat <<SQL
SELECT i AS id,
       (hashint4(i)::int8 % 1000) / 100.0::float8 AS x1,
       (hashint4(i * 7 + 1)::int8 % 50)::int AS x2,
       round(((hashint4(i * 13 + 5)::int8 % 100000) / 1000.0)::numeric, 3) AS x3,
       date '2020-01-01' + (abs(hashint4(i * 3)::int8) % 900)::int AS d,
       CASE WHEN i % 11 = 0 THEN NULL ELSE (hashint4(i * 17)::int8 % 70) / 7.0::float8 END AS x5,
       (1 + abs(hashint4(i * 19)::int8) % 4)::int AS w,
       CASE WHEN i % 97 = 0 THEN NULL
            ELSE (hashint4(i)::int8 % 1000) / 50.0 + (hashint4(i * 7 + 1)::int8 % 50) / 10.0
                 + (abs(hashint4(i * 23)::int8) % 100) / 100.0 END::float8 AS y,
       ((hashint4(i)::int8 % 1000) / 100.0 + (abs(hashint4(i * 29)::int8) % 300) / 100.0 > 2.5)::int AS yb,
       (abs(hashint4(i * 7 + 1)::int8 + hashint4(i * 31)::int8) % 3)::int AS yc,
       (ARRAY['red', 'green', 'blue'])[(1 + abs(hashint4(i * 37)::int8) % 3)::int] AS c
FROM generate_series($1, $2) AS i
SQL
}

for db in gbdt_shard_coord gbdt_shard1 gbdt_shard2 gbdt_shard3 gbdt_shard4; do
  q -d postgres -c "DROP DATABASE IF EXISTS $db"
  q -d postgres -c "CREATE DATABASE $db"
done
# A role without SELECT on shard 2's table (the permission test).
q -d postgres -c "DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gbdt_shard_reader') THEN
    CREATE ROLE gbdt_shard_reader LOGIN;
  END IF; END \$\$"

# Shard 1: public.t.  Shard 2: "sd"."Rows 2" (schema_name/table_name
# options, quoting).  Shard 3: public.t with x1 called feat_a (column_name).
q -d gbdt_shard1 -c "CREATE EXTENSION gbdt" -c "CREATE EXTENSION pgtap" \
  -c "CREATE TABLE t AS $(rows_sql 1 400)" \
  -c "GRANT SELECT ON t TO gbdt_shard_reader"
q -d gbdt_shard2 -c "CREATE EXTENSION gbdt" -c 'CREATE SCHEMA sd' \
  -c "CREATE TABLE sd.\"Rows 2\" AS $(rows_sql 401 800)" \
  -c 'GRANT USAGE ON SCHEMA sd TO gbdt_shard_reader'
q -d gbdt_shard3 -c "CREATE EXTENSION gbdt" \
  -c "CREATE TABLE t AS $(rows_sql 801 1200)" \
  -c 'ALTER TABLE t RENAME COLUMN x1 TO feat_a' \
  -c "GRANT SELECT ON t TO gbdt_shard_reader"
# Shard 4: no gbdt (scoring there falls back, or refuses with "on"); t
# without x5 in gbdt_shard1 (a shard's own scoring error).
q -d gbdt_shard4 -c "CREATE TABLE t AS $(rows_sql 1 400)"
q -d gbdt_shard1 -c "CREATE TABLE t_no_x5 AS $(rows_sql 1 400)" -c 'ALTER TABLE t_no_x5 DROP COLUMN x5'

COLS="id int, x1 float8, x2 int, x3 numeric, d date, x5 float8, w int, y float8, yb int, yc int, c text"
q -d gbdt_shard_coord <<SQL
CREATE EXTENSION pgtap;
CREATE EXTENSION gbdt;
CREATE EXTENSION postgres_fdw;
CREATE EXTENSION file_fdw;
DO \$\$ BEGIN
  FOR k IN 1..4 LOOP
    EXECUTE format('CREATE SERVER s%s FOREIGN DATA WRAPPER postgres_fdw
                      OPTIONS (host %L, port %L, dbname %L)', k, '$PGHOST', '$PGPORT', 'gbdt_shard' || k);
    EXECUTE format('CREATE USER MAPPING FOR CURRENT_USER SERVER s%s OPTIONS (user %L)', k, '$PGUSER');
    EXECUTE format('CREATE USER MAPPING FOR gbdt_shard_reader SERVER s%s
                      OPTIONS (user %L, password_required %L)', k, 'gbdt_shard_reader', 'false');
    EXECUTE format('GRANT USAGE ON FOREIGN SERVER s%s TO gbdt_shard_reader', k);
  END LOOP;
END \$\$;
CREATE TABLE pt ($COLS) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE pt_1 PARTITION OF pt FOR VALUES FROM (1) TO (401) SERVER s1
  OPTIONS (table_name 't');
CREATE FOREIGN TABLE pt_2 PARTITION OF pt FOR VALUES FROM (401) TO (801) SERVER s2
  OPTIONS (schema_name 'sd', table_name 'Rows 2');
CREATE FOREIGN TABLE pt_3 PARTITION OF pt FOR VALUES FROM (801) TO (1201) SERVER s3
  OPTIONS (schema_name 'public', table_name 't');
ALTER FOREIGN TABLE pt_3 ALTER COLUMN x1 OPTIONS (column_name 'feat_a');
GRANT SELECT ON pt TO gbdt_shard_reader;
GRANT USAGE ON SCHEMA public TO gbdt_shard_reader;

-- The same rows in partition order, on this server.
CREATE TABLE lt AS $(rows_sql 1 1200);

-- Refusals: a partitioned table with a local partition; one with a
-- file_fdw partition; one with a sub-partitioned partition.
CREATE TABLE pt_local ($COLS) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE pt_local_1 PARTITION OF pt_local FOR VALUES FROM (1) TO (401) SERVER s1
  OPTIONS (table_name 't');
CREATE TABLE pt_local_2 PARTITION OF pt_local FOR VALUES FROM (401) TO (1201);
INSERT INTO pt_local_2 SELECT * FROM lt WHERE id > 400;
CREATE SERVER files FOREIGN DATA WRAPPER file_fdw;
CREATE TABLE pt_file ($COLS) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE pt_file_1 PARTITION OF pt_file FOR VALUES FROM (1) TO (401) SERVER s1
  OPTIONS (table_name 't');
CREATE FOREIGN TABLE pt_file_2 PARTITION OF pt_file FOR VALUES FROM (401) TO (1201) SERVER files
  OPTIONS (filename '/dev/null');
CREATE TABLE pt_sub ($COLS) PARTITION BY RANGE (id);
CREATE TABLE pt_sub_1 PARTITION OF pt_sub FOR VALUES FROM (1) TO (1201) PARTITION BY RANGE (id);
-- Scoring: a partition on a server without gbdt; one whose remote table
-- lacks a model column.
CREATE TABLE pt_nogbdt ($COLS) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE pt_nogbdt_1 PARTITION OF pt_nogbdt FOR VALUES FROM (1) TO (401) SERVER s4
  OPTIONS (table_name 't');
CREATE TABLE pt_bad ($COLS) PARTITION BY RANGE (id);
CREATE FOREIGN TABLE pt_bad_1 PARTITION OF pt_bad FOR VALUES FROM (1) TO (401) SERVER s1
  OPTIONS (table_name 't_no_x5');
-- A partitioned table of local partitions only ("auto": silent).
CREATE TABLE pt_sub_plain ($COLS) PARTITION BY RANGE (id);
CREATE TABLE pt_sub_plain_1 PARTITION OF pt_sub_plain FOR VALUES FROM (1) TO (1201);
INSERT INTO pt_sub_plain SELECT * FROM lt;
SQL

echo "loopback: databases ready; running test/distributed/identity.sql"
rc=0
PGDATABASE=gbdt_shard_coord pg_prove --ext .sql "$ROOT/test/distributed/identity.sql" || rc=1
PGDATABASE=gbdt_shard_coord pg_prove --ext .sql "$ROOT/test/distributed/scoring.sql" || rc=1
PGDATABASE=gbdt_shard1 pg_prove --ext .sql "$ROOT/test/distributed/shard_step.sql" || rc=1

# "auto"'s NOTICE (pgTAP cannot see NOTICEs): only for a partitioned table
# with a foreign partition, naming the reason; a plain table trains silently.
notices() {  # relation features [params [objective]]: the NOTICEs of a training
  local params=${3:-'{"num_round": 2}'} objective=${4:-"'reg:squarederror'"}
  "$PSQL" -X -q -v ON_ERROR_STOP=1 -d gbdt_shard_coord -o /dev/null -c \
    "SELECT gbdt_train('$1', 'y', $2, $objective, '$params')" 2>&1
}
check_notice() {  # name expected-substring|"" output
  if { [ -n "$2" ] && grep -qF -- "$2" <<<"$3"; } || { [ -z "$2" ] && ! grep -q 'reading every row' <<<"$3"; }; then
    echo "ok - $1"
  else
    echo "not ok - $1"; echo "$3" | sed 's/^/#   /'; rc=1
  fi
}
check_notice "on: trained on the shard servers" "training on 3 shard servers" \
  "$(notices pt "ARRAY['x1']" '{"num_round": 2, "distributed": "on"}')"
check_notice "on: an objective inferred from the labels says so" "objective inferred from the labels" \
  "$(notices pt "ARRAY['x1']" '{"num_round": 2, "distributed": "on"}' NULL)"
check_notice "auto NOTICE: a local partition" \
  "gbdt: reading every row through this server: partition public.pt_local_2 is not a foreign table" \
  "$(notices pt_local "ARRAY['x1']")"
check_notice "auto NOTICE: the default feature list" \
  "gbdt: reading every row through this server: no feature list given" "$(notices pt NULL)"
check_notice "auto: a plain table trains without that NOTICE" "" "$(notices lt "ARRAY['x1']")"
check_notice "auto: a partitioned table without a foreign partition, no NOTICE" "" \
  "$(notices pt_sub_plain "ARRAY['x1']")"
# Scoring's "auto" NOTICE: a partitioned table with a foreign partition
# that cannot be scored on its servers says why; the shard-side path and a
# plain table are silent.
score_notices() {  # relation: the NOTICEs of a gbdt_predict_table on it
  "$PSQL" -X -q -v ON_ERROR_STOP=1 -d gbdt_shard_coord -o /dev/null -c \
    "SELECT count(*) FROM gbdt_predict_table(gbdt_train('lt', 'y', ARRAY['x1'], 'reg:squarederror', '{\"num_round\": 2}'), '$1', 'id')" 2>&1
}
check_notice "scoring auto NOTICE: a file_fdw partition" \
  "gbdt: reading every row through this server: partition public.pt_file_2 is a foreign table of wrapper \"file_fdw\"" \
  "$(score_notices pt_file)"
check_notice "scoring auto NOTICE: a server without gbdt" \
  "gbdt: reading every row through this server: gbdt is not installed on server \"s4\"" \
  "$(score_notices pt_nogbdt)"
check_notice "scoring auto: the shards score, no NOTICE" "" "$(score_notices pt)"
check_notice "scoring auto: a plain table, no NOTICE" "" "$(score_notices lt)"
if [ "$rc" = 0 ]; then echo "loopback: ok"; else echo "loopback: FAIL"; fi
exit "$rc"
