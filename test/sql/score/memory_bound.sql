-- Scoring memory is bounded by rows x classes.  A
-- 2000-class model (imported XGBoost JSON, one stump per class) evaluated
-- on 7000 rows needed rows x classes x 8 bytes (112 MB) of predictions and
-- predict_table two batches of up to 16384 rows x classes; now batches are
-- sized from work_mem divided by the classes and multiclass metrics are
-- summed batch by batch.  Measured as the backend's peak resident memory
-- (VmHWM, reset through /proc/self/clear_refs) grown by the call: under
-- half of what the rows x classes predictions alone would take.
BEGIN;
SELECT plan(8);

\ir ../lib/multiclass_model.sql

CREATE FUNCTION pg_temp.hwm_kb() RETURNS bigint LANGUAGE sql AS $$
  SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s*(\d+)'))[1]::bigint $$;
-- Resets the peak to the current resident size (Linux clear_refs "5").
CREATE FUNCTION pg_temp.reset_hwm() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  COPY (SELECT 5) TO '/proc/self/clear_refs';
END $$;

CREATE TEMP TABLE t33_model AS SELECT gbdt_import(pg_temp.multiclass_model(2000)) AS m;
CREATE TEMP TABLE t33_rows AS
SELECT i AS id, (i % 2000)::float8 AS y, ((i % 3) / 2.0)::float8 AS a FROM generate_series(1, 7000) i;
SELECT is((SELECT (gbdt_model_info(m)->>'num_class')::int FROM t33_model), 2000, 'a 2000-class model');

SET LOCAL work_mem = '4MB';
-- 7000 rows x 2000 classes x 8 bytes, in kB.
CREATE TEMP TABLE t33_full AS SELECT (7000 * 2000 * 8 / 1024)::bigint AS kb;

SELECT pg_temp.reset_hwm();
CREATE TEMP TABLE t33_before AS SELECT pg_temp.hwm_kb() AS kb;
CREATE TEMP TABLE t33_eval AS SELECT gbdt_evaluate(m, 't33_rows', 'y') AS j FROM t33_model;
CREATE TEMP TABLE t33_after AS SELECT pg_temp.hwm_kb() AS kb;
SELECT cmp_ok((SELECT a.kb - b.kb FROM t33_after a, t33_before b), '<', (SELECT kb / 2 FROM t33_full),
              format('gbdt_evaluate: peak memory grew by %s kB (rows x classes = %s kB)',
                     (SELECT a.kb - b.kb FROM t33_after a, t33_before b), (SELECT kb FROM t33_full)));

-- Streaming metrics equal their definitions, computed from the per-row
-- functions.
SELECT cmp_ok((SELECT abs((j->>'mlogloss')::float8 - (
                 SELECT avg(-ln(greatest(probability, 1e-15))) FROM (
                   SELECT DISTINCT ON (r.id) r.id, p.probability
                   FROM t33_rows r, t33_model, gbdt_predict_proba(m, r) p WHERE p.class = r.y ORDER BY r.id) s))
               FROM t33_eval), '<', 1e-9::float8, 'mlogloss = mean -ln p(true class) (from gbdt_predict_proba)');
SELECT is((SELECT (j->>'rows')::int FROM t33_eval), 7000, 'all rows evaluated');
SELECT cmp_ok((SELECT abs((j->>'accuracy')::float8 - (
                 SELECT avg((gbdt_predict(m, r) = r.y)::int) FROM t33_rows r, t33_model))
               FROM t33_eval), '<', 1e-12::float8, 'accuracy = share of rows whose predicted class is the label');

SELECT pg_temp.reset_hwm();
CREATE TEMP TABLE t33_before2 AS SELECT pg_temp.hwm_kb() AS kb;
CREATE TEMP TABLE t33_pt AS SELECT p.* FROM t33_model, gbdt_predict_table(m, 't33_rows', 'id') p;
CREATE TEMP TABLE t33_after2 AS SELECT pg_temp.hwm_kb() AS kb;
SELECT cmp_ok((SELECT a.kb - b.kb FROM t33_after2 a, t33_before2 b), '<', (SELECT kb / 2 FROM t33_full),
              format('gbdt_predict_table: peak memory grew by %s kB (rows x classes = %s kB)',
                     (SELECT a.kb - b.kb FROM t33_after2 a, t33_before2 b), (SELECT kb FROM t33_full)));
SELECT is_empty($$SELECT p.key::int, p.prediction FROM t33_pt p
                  EXCEPT SELECT r.id, gbdt_predict(m, r) FROM t33_rows r, t33_model$$,
                'gbdt_predict_table with small batches = gbdt_predict row by row');

-- A tiny work_mem still scores (at least one row per batch).
SET LOCAL work_mem = '64kB';
SELECT is((SELECT count(*)::int FROM t33_model, gbdt_predict_table(m, 't33_rows', 'id') p), 7000, 'work_mem 64kB: every row scored');

SELECT * FROM finish();
ROLLBACK;
