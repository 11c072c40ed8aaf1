#!/usr/bin/env bash
# Scoring a partitioned table of postgres_fdw partitions on its shards
# (gbdt.distributed_scoring = on) against reading every row through the
# coordinator (off), side by side on throw-away local clusters
# (scripts/shard-clusters.sh: a coordinator and 3 shards on loopback).
#
#   bash test/bench/scoring_shards.sh [ROWS_PER_SHARD] [BASEPORT]
#
# Each shard holds ROWS_PER_SHARD rows (default 200000) of 28 float8
# features; the model has 100 trees of depth 6.  Prints the best of 3 runs
# of gbdt_predict_table (count(*) of its rows), gbdt_evaluate and
# gbdt_explain_table (on 1/20 of the rows: a view) per mode, and the ratio.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ROWS=${1:-200000}
source "$ROOT/scripts/shard-clusters.sh" start 4 "${2:-56270}" >/dev/null || exit 1
trap shard_clusters_stop EXIT
shard_port() { echo "$GBDT_SHARD_PORTS" | cut -d' ' -f"$1"; }
COLS=$(for i in $(seq 1 28); do printf 'x%d float8, ' "$i"; done)"y float8"
VALS=$(for i in $(seq 1 28); do printf 'a[%d] AS x%d, ' "$i" "$i"; done)"a[1] * 2 - a[2] + sin(a[3] * 6) + random() * 0.1 AS y"
for k in 1 2 3; do
  shard_psql "$(shard_port $k)" postgres <<SQL || exit 1
CREATE TABLE part ($COLS);
DO \$\$ BEGIN PERFORM setseed(0.$k); END \$\$;
INSERT INTO part SELECT $VALS
FROM (SELECT ARRAY(SELECT random() FROM generate_series(1, 28) WHERE g > 0) AS a
      FROM generate_series(1, $ROWS) g) s;
CREATE VIEW part_few AS SELECT * FROM part WHERE x1 < 0.05;
GRANT SELECT ON part, part_few TO $GBDT_SHARD_ROLE;
SQL
done
shard_psql "$GBDT_COORD_PORT" postgres <<SQL || exit 1
CREATE TABLE parent ($COLS) PARTITION BY HASH (y);
CREATE TABLE parent_few ($COLS) PARTITION BY HASH (y);
DO \$\$ BEGIN FOR k IN 1..3 LOOP
  EXECUTE format('CREATE FOREIGN TABLE p%s PARTITION OF parent FOR VALUES WITH (MODULUS 3, REMAINDER %s)
                    SERVER s%s OPTIONS (table_name %L)', k, k - 1, k, 'part');
  EXECUTE format('CREATE FOREIGN TABLE pf%s PARTITION OF parent_few FOR VALUES WITH (MODULUS 3, REMAINDER %s)
                    SERVER s%s OPTIONS (table_name %L)', k, k - 1, k, 'part_few');
END LOOP; END \$\$;
CREATE TABLE train_rows AS SELECT $VALS
FROM (SELECT ARRAY(SELECT random() FROM generate_series(1, 28) WHERE g > 0) AS a
      FROM generate_series(1, 20000) g) s;
CREATE TABLE model AS SELECT gbdt_train('train_rows', 'y', NULL, 'reg:squarederror',
                                        '{"num_round": 100, "max_depth": 6}') AS m;
GRANT SELECT ON parent, parent_few, model TO $GBDT_SHARD_ROLE;
SQL
best() {  # mode statement: the best of 3 runs, in seconds
  local b=
  for _ in 1 2 3; do
    local t
    t=$(shard_psql "$GBDT_COORD_PORT" "$GBDT_SHARD_ROLE" -At \
          -c "SET gbdt.distributed_scoring = $1" -c '\timing on' -c "$2" 2>&1 |
        sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
  done
  echo "scale=3; $b / 1000" | bc
}
echo "rows: 3 shards x $ROWS, 28 float8 features, 100 trees of depth 6"
for q in "predict_table|SELECT count(*) FROM gbdt_predict_table((SELECT m FROM model), 'parent', 'x1')" \
         "evaluate|SELECT gbdt_evaluate((SELECT m FROM model), 'parent', 'y') IS NOT NULL" \
         "explain_table (1/20 of the rows)|SELECT count(*) FROM gbdt_explain_table((SELECT m FROM model), 'parent_few', 'x1', 3)"; do
  name=${q%%|*}; sql=${q#*|}
  off=$(best off "$sql"); on=$(best on "$sql")
  echo "$name: off ${off}s, on ${on}s, off/on $(echo "scale=2; $off / $on" | bc)"
done
