-- The streaming loader (extension/pg/train_load.cpp): a plain table is read
-- in passes under one snapshot (count, cut sample, binning every row as it
-- is read), so its float copy is never resident.  It must give the same
-- model bytes as one pass through SPI into floats (a view over the same
-- table), which is the in-memory engine's path.  bin_sample_rows makes the
-- 5600-row Higgs training table take the 3-pass path.  The passes are what
-- this file tests: gbdt.enable_one_pass_load = off, else a table whose
-- planner estimate puts it within the one pass's bound is read once
-- (load/small_table_one_pass.sql, load/one_pass_sampled.sql).
BEGIN;
SELECT plan(15);
SET LOCAL gbdt.enable_one_pass_load = off;

CREATE TEMP VIEW hv AS SELECT * FROM higgs_train;
-- NULL targets and missing feature values, scattered.
CREATE TEMP TABLE holes AS SELECT * FROM higgs_train;
UPDATE holes SET label = NULL WHERE (f1 * 1000)::int % 11 = 3;
UPDATE holes SET f2 = NULL WHERE (f3 * 1000)::int % 7 = 1;
UPDATE holes SET f4 = 'NaN' WHERE (f5 * 1000)::int % 13 = 2;
CREATE TEMP VIEW holes_v AS SELECT * FROM holes;

CREATE TEMP TABLE sm AS
SELECT k, gbdt_train(rel, 'label', NULL, 'binary:logistic', p) AS m
FROM (VALUES ('t1000', 'higgs_train'::regclass, '{"num_round": 15, "bin_sample_rows": 1000, "nthread": 2}'::jsonb),
             ('v1000', 'hv'::regclass,          '{"num_round": 15, "bin_sample_rows": 1000, "nthread": 2}'::jsonb),
             ('t1000_nt1', 'higgs_train'::regclass, '{"num_round": 15, "bin_sample_rows": 1000, "nthread": 1}'::jsonb),
             ('t_all', 'higgs_train'::regclass, '{"num_round": 15, "nthread": 2}'::jsonb),
             ('t_big', 'higgs_train'::regclass, '{"num_round": 15, "bin_sample_rows": 7000, "nthread": 2}'::jsonb),
             ('v_all', 'hv'::regclass,          '{"num_round": 15, "nthread": 2}'::jsonb),
             ('h500', 'holes'::regclass,        '{"num_round": 15, "bin_sample_rows": 500, "nthread": 2}'::jsonb),
             ('hv500', 'holes_v'::regclass,     '{"num_round": 15, "bin_sample_rows": 500, "nthread": 2}'::jsonb),
             ('h_es', 'holes'::regclass,        '{"num_round": 40, "bin_sample_rows": 700, "validation_fraction": 0.25, "early_stopping_rounds": 3, "eta": 0.5}'::jsonb),
             ('hv_es', 'holes_v'::regclass,     '{"num_round": 40, "bin_sample_rows": 700, "validation_fraction": 0.25, "early_stopping_rounds": 3, "eta": 0.5}'::jsonb)
     ) AS c(k, rel, p);

CREATE FUNCTION pg_temp.b(text) RETURNS text LANGUAGE sql AS $$ SELECT m::text FROM sm WHERE k = $1 $$;

SELECT is(pg_temp.b('t1000'), pg_temp.b('v1000'), 'table read in 3 passes = view read once through SPI (same bytes)');
SELECT is(pg_temp.b('t1000_nt1'), pg_temp.b('t1000'), '3-pass load: nthread 1 = nthread 2');
SELECT is(pg_temp.b('t_all'), pg_temp.b('v_all'), 'table read in 2 passes (sample = all rows) = view');
SELECT results_eq($$SELECT * FROM gbdt_trees((SELECT m FROM sm WHERE k = 't_big'))$$,
                  $$SELECT * FROM gbdt_trees((SELECT m FROM sm WHERE k = 't_all'))$$,
                  'bin_sample_rows >= rows: exact cuts, the trees of the default model');
SELECT isnt(pg_temp.b('t1000'), pg_temp.b('t_all'), 'a 1000-row cut sample gives other cuts than all 7000 rows');
SELECT is(pg_temp.b('h500'), pg_temp.b('hv500'), 'NULL targets skipped and missing values binned alike in both paths');
SELECT is(pg_temp.b('h_es'), pg_temp.b('hv_es'), 'validation split and early stopping on streamed bins = view');
SELECT ok((gbdt_model_info((SELECT m FROM sm WHERE k = 'h_es'))->>'best_iteration')::int >= 0,
          'early stopping ran on the streamed model');
SELECT is((gbdt_model_info((SELECT m FROM sm WHERE k = 't1000'))->'params'->>'bin_sample_rows')::int, 1000,
          'params record bin_sample_rows');
SELECT ok(NOT (gbdt_model_info((SELECT m FROM sm WHERE k = 't_all'))->'params' ? 'bin_sample_rows'),
          'the default (automatic) bin_sample_rows is not recorded');
SELECT is((gbdt_model_info((SELECT m FROM sm WHERE k = 'h500'))->>'rows_used')::bigint,
          (SELECT count(label) FROM holes), 'rows_used counts the rows with a target');
SELECT cmp_ok((gbdt_evaluate((SELECT m FROM sm WHERE k = 't1000'), 'higgs_test', 'label')->>'auc')::float8, '>', 0.7::float8,
              'the 3-pass model scores held-out rows (AUC > 0.7)');

-- Errors raised in a later pass still name the column.
CREATE TEMP TABLE late_inf AS SELECT * FROM higgs_train;
UPDATE late_inf SET f7 = 'Infinity' WHERE ctid = (SELECT ctid FROM late_inf OFFSET 4321 LIMIT 1);
SELECT throws_like($$SELECT gbdt_train('late_inf', 'label', NULL, NULL, '{"num_round": 2, "bin_sample_rows": 100}')$$,
                   '%column "f7" contains infinity%', '+Infinity outside the cut sample: error names the column');
SELECT throws_like($$SELECT gbdt_train('higgs_train', 'label', NULL, NULL, '{"bin_sample_rows": -1}')$$,
                   '%parameter "bin_sample_rows" = -1 is out of range: must be an integer in [0, 2147483647] (0 = automatic)%',
                   'bin_sample_rows < 0 is refused');
-- 300000 rows x 28: the load peaks at 8.0 MB of bins + 1.1 MB of labels + 28 MB of float cut
-- sample (2^18 rows) = 37 MB, more than the training's 21 MB (one pass into floats would
-- need 4 bytes more per value).
SET LOCAL gbdt.max_memory = '30MB';
SELECT throws_like($$SELECT gbdt_train('cancel_big', 'label')$$,
                   '%gbdt training needs an estimated 37 MB of memory (300000 rows x 28 features), more than gbdt.max_memory = 30 MB%',
                   'memory estimate of the pass-wise load is checked against gbdt.max_memory');
RESET gbdt.max_memory;
SELECT * FROM finish();
ROLLBACK;
