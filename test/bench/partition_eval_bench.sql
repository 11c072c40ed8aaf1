-- gbdt_evaluate of a partitioned model (one copy of the relation, then an
-- index range per key) against one gbdt_evaluate per key on a view of the
-- relation's rows of that key (a scan of the relation per key, what
-- gbdt_evaluate did before it copied the rows), in one session:
--
--   psql -d DB -v keys=200 -f test/bench/partition_eval_bench.sql
--
-- keys: the number of keys (default 20) of a 200,000-row table, 5 features,
-- 10 rounds.  Both runs print \timing; the pooled and per-key metrics agree.
\set ON_ERROR_STOP 1
\if :{?keys}
\else
  \set keys 20
\endif
SET client_min_messages = warning;
DROP TABLE IF EXISTS pe_bench, pe_bench_model;
CREATE TABLE pe_bench AS
SELECT i AS id, 'k' || (i % :keys) AS k, sin(i * 0.1) AS a, cos(i * 0.3) AS b, sin(i * 0.7) AS c,
       cos(i * 0.013) AS d, (i % 7)::float8 AS e, sin(i * 0.1) * 2 + (i % 20) * 0.3 + cos(i * 0.3) AS y
FROM generate_series(1, 200000) i;
ANALYZE pe_bench;
CREATE TABLE pe_bench_model AS
SELECT gbdt_train('pe_bench', 'y', ARRAY['a', 'b', 'c', 'd', 'e'],
                  params => '{"partition_by": "k", "num_round": 10}') AS m;
\timing on
-- gbdt_evaluate of the partitioned model (every key's metrics and the pooled ones)
SELECT jsonb_array_length(gbdt_evaluate(m, 'pe_bench', 'y')->'partitions') AS keys FROM pe_bench_model;
-- one gbdt_evaluate per key on a view of its rows
DO $$
DECLARE r record; j jsonb;
BEGIN
  FOR r IN SELECT DISTINCT k FROM pe_bench LOOP
    EXECUTE format('CREATE TEMP VIEW pe_bench_key AS SELECT * FROM pe_bench r '
                   'WHERE pg_catalog.format(''%%s'', r.k) = %L', r.k);
    SELECT gbdt_evaluate(gbdt_partition_model(m, ARRAY[r.k]), 'pe_bench_key', 'y') INTO j FROM pe_bench_model;
    DROP VIEW pe_bench_key;
  END LOOP;
END $$;
\timing off
DROP TABLE pe_bench, pe_bench_model;
