-- Small tables in one pass (extension/pg/train_load.cpp): a plain
-- table that the planner's estimate puts well under the cut sample is read
-- once, its category values coded provisionally and remapped afterwards,
-- instead of a counting pass and a reading pass.  The estimate is the
-- planner's (estimate_rel_size): ANALYZE's rows per page times the pages
-- now; for a table never analyzed (just loaded), the rows on its first page
-- times its pages.  The model bytes are those of the passes (SET
-- gbdt.enable_one_pass_load = off), and a table that outgrew its estimate
-- falls back to them.  The verbose NOTICE says how many passes were made (a
-- second session prints it).
BEGIN;
SELECT plan(13);

\ir ../lib/psql_lines.sql

CREATE TEMP TABLE out54 AS
SELECT * FROM pg_temp.psql_lines(
  -- 3000 rows: a text category, a text label with NULLs, weights.
  'CREATE TEMP TABLE s54 AS SELECT (i % 37) * 0.25 AS x, ''c'' || (i * 7 % 23) AS c, '
    || 'CASE WHEN i % 29 = 0 THEN NULL WHEN (i % 37) + (i * 7 % 23) > 30 THEN ''hi'' ELSE ''lo'' END AS y, '
    || '(1 + i % 3)::float8 AS w FROM generate_series(1, 3000) i',
  'ANALYZE s54',
  'CREATE TEMP TABLE u54 AS SELECT * FROM s54',  -- never analyzed: estimated from its first page
  -- An estimate far below its rows: ANALYZE saw 3000 live rows among 18000
  -- deleted ones (few rows per page), then 9000 rows were added.
  'CREATE TEMP TABLE g54 AS SELECT x, c, ''junk'' AS y, w FROM s54, generate_series(1, 6)',
  'DELETE FROM g54',
  'INSERT INTO g54 SELECT * FROM s54',
  'ANALYZE g54',
  'INSERT INTO g54 SELECT s54.* FROM s54, generate_series(1, 3)',
  'SELECT ''g54rows '' || count(*) FROM g54',
  'EXPLAIN SELECT * FROM g54',
  'CREATE TEMP TABLE h54 AS SELECT * FROM g54',
  'SELECT ''s54 '' || md5(gbdt_train(''s54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 8, "weight_column": "w", "verbose": true}'')::text)',
  'SELECT ''s54nt1 '' || md5(gbdt_train(''s54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 8, "weight_column": "w", "nthread": 1}'')::text)',
  'SELECT ''u54 '' || md5(gbdt_train(''u54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 8, "weight_column": "w", "verbose": true}'')::text)',
  'SET gbdt.enable_one_pass_load = off',
  'SELECT ''p54 '' || md5(gbdt_train(''s54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 8, "weight_column": "w", "verbose": true}'')::text)',
  'RESET gbdt.enable_one_pass_load',
  'SELECT ''g54 '' || md5(gbdt_train(''g54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 8, "weight_column": "w", "bin_sample_rows": 7000, "verbose": true}'')::text)',
  'SELECT ''h54 '' || md5(gbdt_train(''h54'', ''y'', NULL, ''binary:logistic'', ''{"num_round": 8, "weight_column": "w", "bin_sample_rows": 7000, "verbose": true}'')::text)',
  -- Never analyzed, rows far wider than their column types say (a 40-element
  -- array, 1280 characters of text): the planner's estimate from the widths
  -- is ten times the rows, whose float copy (40 features) would be over a
  -- 2 MB gbdt.max_memory; the rows on the first page put it right.
  'CREATE TEMP TABLE n54 AS SELECT s54.*, ARRAY(SELECT (x * g)::float8 FROM generate_series(1, 40) g) AS emb, '
    || '(SELECT string_agg(md5(x::text || g::text), '''') FROM generate_series(1, 40) g) AS note FROM s54',
  'EXPLAIN SELECT * FROM n54',
  'SET gbdt.max_memory = ''2MB''',
  'SELECT ''n54 '' || md5(gbdt_train(''n54'', ''y'', ARRAY[''x'', ''c'', ''emb''], ''binary:logistic'', ''{"num_round": 2, "weight_column": "w", "verbose": true}'')::text)',
  'RESET gbdt.max_memory');

CREATE FUNCTION pg_temp.h(text) RETURNS text LANGUAGE sql AS
$$ SELECT split_part(line, ' ', 2) FROM out54 WHERE line LIKE $1 || ' %' $$;
-- The i-th "loaded" NOTICE (1: s54, 2: u54, 3: s54 without one pass, 4: g54, 5: h54, 6: n54).
CREATE FUNCTION pg_temp.loaded(int) RETURNS text LANGUAGE sql AS
$$ SELECT regexp_replace(line, '.* in [0-9.]+ s ', '') FROM out54 WHERE line LIKE '%gbdt_train: loaded %'
   ORDER BY n OFFSET $1 - 1 LIMIT 1 $$;

SELECT is(pg_temp.loaded(1), '(1 pass, cuts from 2897 rows)', 'an analyzed small table is read in one pass');
SELECT is(pg_temp.loaded(2), '(1 pass, cuts from 2897 rows)', 'a table never analyzed is read in one pass too (its rows estimated from its first page)');
SELECT is(pg_temp.loaded(3), '(2 passes, cuts from 2897 rows)', 'gbdt.enable_one_pass_load = off: a counting pass and a reading pass');
SELECT is(pg_temp.h('s54'), pg_temp.h('p54'), 'one pass and two passes give the same model bytes (text categories, text label, NULL targets, weights)');
SELECT is(pg_temp.h('u54'), pg_temp.h('s54'), 'the table never analyzed gives the same model');
SELECT is(pg_temp.h('s54nt1'), pg_temp.h('s54'), 'one-pass load: nthread 1 = nthread 2');
SELECT ok((SELECT (regexp_match(line, 'rows=([0-9]+)'))[1]::int * 2 FROM out54 WHERE line LIKE 'Seq Scan on g54 %')
          < (SELECT split_part(line, ' ', 2)::int FROM out54 WHERE line LIKE 'g54rows %'),
          'the planner estimates g54 at under half its rows');
SELECT is(pg_temp.loaded(4), '(3 passes, cuts from 7000 rows)', 'a table that outgrew its estimate falls back to the passes');
SELECT is(pg_temp.h('g54'), pg_temp.h('h54'), 'the fallback gives the model of one pass');
SELECT is((SELECT count(*)::int FROM out54 WHERE line LIKE '%skipped 103 rows with a NULL target%'), 5,
          'NULL targets skipped and counted in one pass (s54 twice, u54, n54) as in two (s54 without one pass)');
SELECT ok((SELECT (regexp_match(line, 'rows=([0-9]+)'))[1]::int FROM out54 WHERE line LIKE 'Seq Scan on n54 %') >= 5 * 3000,
          'the planner estimates the wide rows of n54 at five times their number or more');
SELECT is(pg_temp.loaded(6), '(1 pass, cuts from 2897 rows)',
          'never analyzed: the rows on its first page give the estimate (one pass within gbdt.max_memory)');
SELECT is((SELECT count(*)::int FROM out54 WHERE line ~ '^(s54|s54nt1|u54|p54|g54|h54|n54) [0-9a-f]{32}$'), 7, 'all seven trainings ran');

SELECT * FROM finish();
ROLLBACK;
