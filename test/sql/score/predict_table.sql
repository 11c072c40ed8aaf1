-- gbdt_predict_table: every way of reading the relation (direct heap scan
-- with the fixed layout, with NULLs, through a slot, through SPI) gives the
-- predictions of gbdt_predict(model, row) and the key as (key)::text.
BEGIN;
SELECT plan(45);

-- 20000 rows: several batches (pipelined scoring, worker threads).
CREATE TABLE pt AS
SELECT i AS id,
       (i * 3)::bigint - 30000 AS id8,
       (i - 10000)::smallint AS id2,
       sin(i)::float8 AS x1,
       cos(i * 0.7)::real AS x2,
       (i % 10)::int AS x3,
       (i % 3 = 0) AS x4,
       (i % 4)::smallint AS x6,
       ((i * 7 % 11) - 5)::bigint * 1000000007 AS x7,
       round((i * 0.37)::numeric % 5, 2) AS x5,
       'k' || i AS tkey,
       (date '2020-01-01' + i) AS dkey,
       sin(i) + 0.5 * cos(i * 0.7) + (i % 3 = 0)::int * 0.3 AS y_reg,
       (sin(i) + 0.2 * cos(i * 0.7) > 0) AS y_bool,
       least(greatest(width_bucket(sin(i) + 0.4 * cos(i * 0.7), -1.0, 1.0, 3) - 1, 0), 2) AS y_multi
FROM generate_series(1, 20000) i;
-- NULL features in some rows (tuples with a null bitmap), NaN.
UPDATE pt SET x1 = NULL WHERE id % 17 = 0;
UPDATE pt SET x3 = NULL, x4 = NULL WHERE id % 23 = 0;
UPDATE pt SET x2 = 'NaN' WHERE id % 29 = 0;
UPDATE pt SET x5 = NULL WHERE id % 19 = 0;

CREATE TABLE ptm AS
SELECT 'fix' AS k, gbdt_train('pt', 'y_reg', ARRAY['x1','x2','x3','x4','x6','x7'], NULL, '{"num_round": 15}') AS m
UNION ALL SELECT 'num', gbdt_train('pt', 'y_bool', ARRAY['x5','x1','x2','x3'], NULL, '{"num_round": 15}')
UNION ALL SELECT 'multi', gbdt_train('pt', 'y_multi', ARRAY['x7','x6','x4','x3','x2','x1'], 'multi:softprob', '{"num_round": 10}');
-- Infinity is scored as a value (not accepted for training).
UPDATE pt SET x1 = 'Infinity' WHERE id % 31 = 0;
UPDATE pt SET x1 = '-Infinity' WHERE id % 37 = 0;
CREATE FUNCTION pg_temp.m(kind text) RETURNS gbdt_model LANGUAGE sql STABLE AS
  $$ SELECT m FROM ptm WHERE k = kind $$;

-- Rows where gbdt_predict_table(m, rel, key) and gbdt_predict(m, row) disagree
-- (prediction, or a key that is not (key)::text, or a row missing on either
-- side), plus 1000000 when the rows with a NULL key differ.
CREATE FUNCTION pg_temp.mismatches(mdl gbdt_model, rel regclass, key text) RETURNS int
LANGUAGE plpgsql AS $f$
DECLARE
  n int;
  nulls_same bool;
BEGIN
  EXECUTE format($q$
    SELECT count(*)::int
    FROM (SELECT (%2$I)::text AS k, gbdt_predict($1, t) AS p FROM %1$s t WHERE %2$I IS NOT NULL) s
    FULL JOIN (SELECT * FROM gbdt_predict_table($1, %1$L, %2$L) WHERE key IS NOT NULL) q ON q.key = s.k
    WHERE q.prediction IS DISTINCT FROM s.p $q$, rel, key) INTO n USING mdl;
  EXECUTE format($q$
    SELECT (SELECT array_agg(gbdt_predict($1, t) ORDER BY 1) FROM %1$s t WHERE %2$I IS NULL)
           IS NOT DISTINCT FROM
           (SELECT array_agg(prediction ORDER BY 1) FROM gbdt_predict_table($1, %1$L, %2$L) WHERE key IS NULL)
    $q$, rel, key) INTO nulls_same USING mdl;
  RETURN n + CASE WHEN nulls_same THEN 0 ELSE 1000000 END;
END $f$;

-- Plain table, fixed layout (int4 key first, fixed-width features; rows
-- with and without NULLs).
SELECT is(pg_temp.mismatches(pg_temp.m(k), 'pt', 'id'), 0, format('fixed layout, int4 key (%s)', k))
FROM unnest(ARRAY['fix', 'multi']) k;
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('fix'), 'pt', 'id')), 20000, 'one row per row');
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt', 'id8'), 0, 'int8 key (negative values)');
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt', 'id2'), 0, 'int2 key (negative values)');
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt', 'tkey'), 0, 'text key (after a numeric column)');
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt', 'dkey'), 0, 'date key (output function)');
-- A numeric (varlena) feature: no fixed layout, every row deformed.
SELECT is(pg_temp.mismatches(pg_temp.m('num'), 'pt', 'id'), 0, 'numeric feature column');
SELECT is(pg_temp.mismatches(pg_temp.m('num'), 'pt', 'id8'), 0, 'numeric feature column, int8 key');

-- Consecutive float8 features after an int8 key and a label (the usual
-- layout of a table loaded from a file), with NULLs and NaN.
CREATE TABLE pt_f8 AS
SELECT id::bigint AS id, y_reg AS label, CASE WHEN x1 = 'Infinity' OR x1 = '-Infinity' THEN NULL ELSE x1 END AS f0,
       x2::float8 AS f1, x3::float8 AS f2, x6::float8 AS f3, x7::float8 AS f4, sin(id * 1.3) AS f5,
       CASE WHEN id % 13 = 0 THEN NULL ELSE cos(id * 0.3) END AS f6, x4::int::float8 AS f7,
       sin(id * 0.1) AS f8, (id % 7)::float8 AS f9
FROM pt;
INSERT INTO ptm SELECT 'f8', gbdt_train('pt_f8', 'label', ARRAY['f0','f1','f2','f3','f4','f5','f6','f7','f8','f9'],
                                        NULL, '{"num_round": 15}');
UPDATE pt_f8 SET f0 = 'Infinity' WHERE id % 41 = 0;
SELECT is(pg_temp.mismatches(pg_temp.m('f8'), 'pt_f8', 'id'), 0, 'consecutive float8 features');
CREATE VIEW pt_f8_view AS SELECT * FROM pt_f8;
SELECT is(pg_temp.mismatches(pg_temp.m('f8'), 'pt_f8_view', 'id'), 0, 'consecutive float8 features, view');

-- The same rows through a view (SPI path) give the same predictions.
CREATE VIEW pt_view AS SELECT * FROM pt;
SELECT is(pg_temp.mismatches(pg_temp.m(k), 'pt_view', 'id'), 0, format('view (%s)', k))
FROM unnest(ARRAY['fix', 'num', 'multi']) k;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_view', 'id8'), 0, 'view, int8 key');
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('fix'), 'pt', 'id') a
           FULL JOIN gbdt_predict_table(pg_temp.m('fix'), 'pt_view', 'id') b ON a.key = b.key
           WHERE a.prediction IS DISTINCT FROM b.prediction), 0, 'direct scan = SPI path, row by row');
SELECT is((SELECT array_agg(key) FROM gbdt_predict_table(pg_temp.m('fix'), 'pt', 'id2')),
          (SELECT array_agg(key) FROM gbdt_predict_table(pg_temp.m('fix'), 'pt_view', 'id2')),
          'direct scan and SPI path return the rows in the same order');

-- NULL keys: fixed-layout tuples with a NULL key, and text keys.
CREATE TABLE pt_nullkey AS SELECT * FROM pt;
UPDATE pt_nullkey SET id = NULL, id8 = NULL, tkey = NULL WHERE id % 101 = 0;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_nullkey', k), 0, format('NULL keys (%s)', k))
FROM unnest(ARRAY['id', 'id8', 'tkey']) k;
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('fix'), 'pt_nullkey', 'id') WHERE key IS NULL),
          (SELECT count(*)::int FROM pt_nullkey WHERE id IS NULL), 'NULL keys come back as NULL');

-- Extreme integer keys print as (key)::text.
CREATE TABLE pt_ext (k2 smallint, k4 int, k8 bigint, x1 float8, x2 real, x3 int, x4 bool, x6 smallint, x7 bigint);
INSERT INTO pt_ext VALUES (-32768, -2147483648, -9223372036854775808, 1, 1, 1, true, 1, 1),
                          (32767, 2147483647, 9223372036854775807, 2, 2, 2, false, 2, 2),
                          (0, 0, 0, 0, 0, 0, false, 0, 0), (-1, -1, -1, -1, -1, -1, true, -1, -1);
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_ext', k), 0, format('extreme integer keys (%s)', k))
FROM unnest(ARRAY['k2', 'k4', 'k8']) k;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_ext', 'x3'), 0, 'key that is also a feature');

-- A text key after every feature (a varlena as the last attribute read),
-- with and without NULLs before it.
CREATE TABLE pt_tail AS SELECT x1, x2, x3, x4, x6, x7, id8, tkey FROM pt;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_tail', 'tkey'), 0, 'text key after the features');
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_tail', 'id8'), 0, 'int8 key after the features');

-- A dropped column before a feature: fixed-width (layout stays fixed) and
-- varlena (no fixed layout).
CREATE TABLE pt_drop AS SELECT id, 1.5::float8 AS pad8, 7::smallint AS pad2, x1, x2, 'abc'::text AS padt, x3, x4, x6, x7 FROM pt;
ALTER TABLE pt_drop DROP COLUMN pad2;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_drop', 'id'), 0, 'dropped smallint column before a feature');
ALTER TABLE pt_drop DROP COLUMN pad8;
ALTER TABLE pt_drop DROP COLUMN padt;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_drop', 'id'), 0, 'dropped float8 and text columns before features');
INSERT INTO pt_drop (id, x1, x2, x3, x4, x6, x7) SELECT id + 100000, x1, x2, x3, x4, x6, x7 FROM pt WHERE id <= 3000;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_drop', 'id'), 0, 'rows inserted after the drop');

-- A feature added with ALTER TABLE ADD COLUMN ... DEFAULT after rows exist:
-- old tuples have fewer attributes (the default comes from the catalog).
CREATE TABLE pt_add AS SELECT id, x1, x2, x3, x4, x6 FROM pt;
ALTER TABLE pt_add ADD COLUMN x7 bigint DEFAULT 3000000021;
INSERT INTO pt_add SELECT id + 100000, x1, x2, x3, x4, x6, x7 FROM pt WHERE id <= 5000;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_add', 'id'), 0, 'feature added with a default after rows exist');
SELECT is((SELECT count(DISTINCT prediction)::int > 100 FROM gbdt_predict_table(pg_temp.m('fix'), 'pt_add', 'id')), true,
          'added-column table scores distinct rows');
ALTER TABLE pt_add ADD COLUMN x8 int;  -- added after the features: old tuples still have every feature
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_add', 'id'), 0, 'column added after the features');

-- The result respects work_mem (the tuplestore spills to disk).
SET LOCAL work_mem = '64kB';
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt', 'id8'), 0, 'small work_mem');
RESET work_mem;

-- Small relations: empty, one row, fewer rows than one scoring block.
CREATE TABLE pt_small AS SELECT * FROM pt WHERE id <= 1;
SELECT is(pg_temp.mismatches(pg_temp.m('fix'), 'pt_small', 'id'), 0, 'one row');
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('fix'), 'pt_small', 'id')), 1, 'one row back');
DELETE FROM pt_small;
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('fix'), 'pt_small', 'id')), 0, 'empty table');
INSERT INTO pt_small SELECT * FROM pt WHERE id <= 100;
SELECT is(pg_temp.mismatches(pg_temp.m('multi'), 'pt_small', 'id'), 0, '100 rows (one block)');

-- Row-level security: the SPI path, which applies the policy.
CREATE TABLE pt_rls AS SELECT * FROM pt;
CREATE ROLE gbdt_test_pt NOLOGIN;
GRANT USAGE ON SCHEMA public TO gbdt_test_pt;
GRANT SELECT ON pt_rls, ptm TO gbdt_test_pt;
ALTER TABLE pt_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY pt_even ON pt_rls FOR SELECT USING (id % 2 = 0);
SET LOCAL ROLE gbdt_test_pt;
SELECT is((SELECT count(*)::int FROM gbdt_predict_table((SELECT m FROM ptm WHERE k = 'fix'), 'pt_rls', 'id')), 10000,
          'row-level security applies');
SELECT is(pg_temp.mismatches((SELECT m FROM ptm WHERE k = 'fix'), 'pt_rls', 'id'), 0, 'row-level security: same predictions');
RESET ROLE;

-- Cancellation while worker threads are scoring (WHEN OTHERS does not
-- catch query_canceled, so throws_ok cannot be used).
CREATE TABLE pt_big AS SELECT pt.* FROM pt, generate_series(1, 30) g;
CREATE FUNCTION pg_temp.timed_predict(OUT state text) LANGUAGE plpgsql AS $f$
BEGIN
  PERFORM count(*) FROM gbdt_predict_table((SELECT m FROM ptm WHERE k = 'fix'), 'pt_big', 'id');
  state := 'no error';
EXCEPTION WHEN query_canceled THEN
  GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
END $f$;
SET LOCAL statement_timeout = '40ms';
CREATE TEMP TABLE pt_cancel AS SELECT * FROM pg_temp.timed_predict();
SET LOCAL statement_timeout = 0;
SELECT is(state, '57014', 'statement_timeout cancels gbdt_predict_table') FROM pt_cancel;
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('fix'), 'pt_small', 'id')), 100, 'usable after a cancel');

-- Wide rows: 70 consecutive float8 features after an int8 key are decoded
-- by the reading thread straight from the tuple (no raw copy), 8 at a
-- time; rows with a few NULLs, with most NULL, with all NULL, NaN and
-- infinities; a text key after the features.
DO $$
BEGIN
  EXECUTE 'CREATE TABLE ptw AS SELECT i::bigint AS id, '
    || (SELECT string_agg(format('sin(i * %s + %s)::float8 AS f%s', j + 1, j * 0.1, j), ', ' ORDER BY j)
        FROM generate_series(0, 69) j)
    || ', sin(i * 3) + cos(i * 7) + sin(i * 40) AS y, ''w'' || i AS tkey FROM generate_series(1, 3000) i';
  FOR j IN 0..69 LOOP
    EXECUTE format('UPDATE ptw SET f%s = NULL WHERE (id + %s) %% %s = 0', j, j, 5 + j % 9);
  END LOOP;
END $$;
UPDATE ptw SET (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
                f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37,
                f38, f39, f40, f41, f42, f43, f44, f45, f46, f47, f48, f49, f50, f51, f52, f53, f54, f55,
                f56, f57, f58, f59, f60, f61, f62, f63, f64, f65, f66, f67, f68, f69) = (
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL) WHERE id % 101 = 0;
UPDATE ptw SET f68 = 'NaN' WHERE id % 13 = 0;
INSERT INTO ptm SELECT 'wide', gbdt_train('ptw', 'y', ARRAY(SELECT 'f' || j FROM generate_series(0, 69) j),
                                          NULL, '{"num_round": 12, "max_depth": 5}');
UPDATE ptw SET f3 = 'Infinity', f69 = '-Infinity' WHERE id % 13 = 0;
-- Rows with only a few values left.
UPDATE ptw SET (f1, f2, f3, f4, f5, f6, f7, f8, f10, f11, f12, f13, f14, f15, f16, f18, f19, f20, f21, f22,
                f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37, f38, f39, f41,
                f42, f43, f44, f45, f46, f47, f48, f49, f50, f51, f52, f53, f54, f55, f56, f57, f58, f59,
                f60, f61, f62, f64, f65, f66, f67) = (
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) WHERE id % 97 = 0;
SELECT is(pg_temp.mismatches(pg_temp.m('wide'), 'ptw', 'id'), 0, 'wide consecutive float8 rows, int8 key');
SELECT is(pg_temp.mismatches(pg_temp.m('wide'), 'ptw', 'tkey'), 0, 'wide consecutive float8 rows, text key last');
SELECT cmp_ok((SELECT count(DISTINCT prediction)::int FROM gbdt_predict_table(pg_temp.m('wide'), 'ptw', 'id')), '>', 500,
              'wide rows: the predictions vary');

SELECT * FROM finish();
ROLLBACK;
