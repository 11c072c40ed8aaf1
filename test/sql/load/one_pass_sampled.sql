-- One-pass load of a plain table larger than its cut sample
-- (extension/pg/train_load.cpp load_one_pass): when the planner's
-- estimate puts the table's float copy within the cut sample's own bound
-- (64 MiB) and gbdt.max_memory, the table is read once instead of in three
-- passes (count, sample, bin); the column checks run on the sample's rows
-- (a near-copy of the target is reported "sampled", a constant column is
-- kept, as the passes do), the cuts come from the same sample rows, and the
-- model bytes equal those of the passes (the same table with the
-- one pass off) at nthread 1 and 2.  A table that outgrew its estimate (more
-- rows than twice the estimate and than the sample) falls back to the
-- passes.  The estimate is the planner's: ANALYZE's rows per page times the
-- pages now; for a table never analyzed (just loaded), the rows on its
-- first page times its pages; SET gbdt.enable_one_pass_load = off reads in
-- passes.  The verbose NOTICE (a second session prints it) gives the passes.
BEGIN;
SELECT plan(12);

\ir ../lib/psql_lines.sql

CREATE TEMP TABLE out59 AS
SELECT * FROM pg_temp.psql_lines(
  -- 30000 rows: NULLs, NaNs, a constant column, a near-copy of the label,
  -- NULL targets.
  'CREATE TEMP TABLE t59 AS SELECT (i * 7919 % 1000) / 10.0 AS x1, '
    || 'CASE WHEN i % 13 = 0 THEN NULL ELSE sin(i) END AS x2, '
    || 'CASE WHEN i % 17 = 0 THEN ''NaN''::float8 ELSE (i % 5)::float8 END AS x3, '
    || '7.0::float8 AS k, y, CASE WHEN i % 1000 = 0 THEN -1 ELSE y END AS leak '
    || 'FROM (SELECT i, CASE WHEN i % 41 = 0 THEN NULL WHEN (i * 7919 % 1000) / 10.0 + (i % 5) * 10 '
    || '+ sin(i) * 20 > 60 THEN 1 ELSE 0 END AS y FROM generate_series(1, 30000) i) s',
  'ANALYZE t59',
  'CREATE TEMP TABLE u59 AS SELECT * FROM t59',  -- never analyzed: estimated from its first page
  -- An estimate far below its 30000 rows: ANALYZE saw 5000 live rows among
  -- 60000 deleted ones (few rows per page), then 25000 rows were added.
  'CREATE TEMP TABLE g59 AS SELECT * FROM t59 LIMIT 5000',
  'INSERT INTO g59 SELECT x1, x2, x3, k, 7, leak FROM t59, generate_series(1, 2)',
  'DELETE FROM g59 WHERE y = 7',
  'ANALYZE g59',
  'INSERT INTO g59 SELECT * FROM t59 OFFSET 5000',
  'SELECT ''g59rows '' || count(*) FROM g59',
  'EXPLAIN SELECT * FROM g59',
  'SELECT ''t59 '' || md5(gbdt_train(''t59'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 6, "bin_sample_rows": 3000, "nthread": 2, "verbose": true}'')::text)',
  'SELECT ''t59nt1 '' || md5(gbdt_train(''t59'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 6, "bin_sample_rows": 3000, "nthread": 1}'')::text)',
  'SELECT ''n59 '' || md5(gbdt_train(''u59'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 6, "bin_sample_rows": 3000, "nthread": 2, "verbose": true}'')::text)',
  'SET gbdt.enable_one_pass_load = off',
  'SELECT ''u59 '' || md5(gbdt_train(''u59'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 6, "bin_sample_rows": 3000, "nthread": 2, "verbose": true}'')::text)',
  'SELECT ''u59nt1 '' || md5(gbdt_train(''u59'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 6, "bin_sample_rows": 3000, "nthread": 1}'')::text)',
  'RESET gbdt.enable_one_pass_load',
  'SELECT ''g59 '' || md5(gbdt_train(''g59'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 6, "bin_sample_rows": 3000, "nthread": 2, "verbose": true}'')::text)');

CREATE FUNCTION pg_temp.h(text) RETURNS text LANGUAGE sql AS
$$ SELECT split_part(line, ' ', 2) FROM out59 WHERE line LIKE $1 || ' %' $$;
-- The i-th "loaded" NOTICE (1: t59, 2: u59 in one pass, 3: u59 in passes, 4: g59).
CREATE FUNCTION pg_temp.loaded(int) RETURNS text LANGUAGE sql AS
$$ SELECT regexp_replace(line, '.* in [0-9.]+ s ', '') FROM out59 WHERE line LIKE '%gbdt_train: loaded %'
   ORDER BY n OFFSET $1 - 1 LIMIT 1 $$;

SELECT is(pg_temp.loaded(1), '(1 pass, cuts from 3000 rows)',
          'an analyzed table larger than its cut sample is read in one pass');
SELECT is(pg_temp.loaded(2), '(1 pass, cuts from 3000 rows)', 'a table never analyzed too (its rows estimated from its first page)');
SELECT is(pg_temp.h('n59'), pg_temp.h('t59'), 'the table never analyzed gives the same model');
SELECT is(pg_temp.loaded(3), '(3 passes, cuts from 3000 rows)', 'gbdt.enable_one_pass_load off: the three passes');
SELECT is(pg_temp.h('t59'), pg_temp.h('u59'), 'one pass and three passes give the same model bytes');
SELECT is(pg_temp.h('t59nt1'), pg_temp.h('t59'), 'one-pass sampled load: nthread 1 = nthread 2');
SELECT is(pg_temp.h('u59nt1'), pg_temp.h('t59'), 'three passes at nthread 1 = one pass at nthread 2');
SELECT ok((SELECT (regexp_match(line, 'rows=([0-9]+)'))[1]::int * 2 FROM out59 WHERE line LIKE 'Seq Scan on g59 %')
          < (SELECT split_part(line, ' ', 2)::int FROM out59 WHERE line LIKE 'g59rows %'),
          'the planner estimates g59 at under half its rows');
SELECT is(pg_temp.loaded(4), '(3 passes, cuts from 3000 rows)', 'a table that outgrew its estimate falls back to the passes');
SELECT is(pg_temp.h('g59'), pg_temp.h('t59'), 'the fallback gives the same model');
SELECT is((SELECT count(*)::int FROM out59
           WHERE line LIKE 'WARNING:  gbdt_train: feature column nearly equal to the target "y": leak (equal to the target on %\% of the rows sampled)'), 6,
          'the near-copy of the target is found on the sample rows, in one pass as in three');
SELECT is((SELECT count(*)::int FROM out59 WHERE line LIKE '%5 features: x1, x2, x3, k, leak%'), 6,
          'the constant column is kept in one pass as in three (all six trainings)');

SELECT * FROM finish();
ROLLBACK;
