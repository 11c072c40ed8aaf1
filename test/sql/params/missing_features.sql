-- A scoring payload (a row, a relation) that lacks some of the model's
-- features: by default one error naming every absent column; with
-- gbdt.missing_features = 'missing' the absent features score as missing
-- values, exactly as NULLs in those columns would.
BEGIN;
SELECT plan(13);

CREATE TABLE pmf AS
SELECT i AS id, sin(i)::float8 AS a, cos(i * 0.7)::float8 AS b, (i % 5)::int AS c,
       (ARRAY['x', 'y', 'z'])[1 + i % 3] AS t,
       sin(i) + 0.5 * cos(i * 0.7) + (i % 5) * 0.1 AS yv
FROM generate_series(1, 400) i;
UPDATE pmf SET b = NULL WHERE id % 11 = 0;
CREATE TEMP TABLE pmm AS
SELECT gbdt_train('pmf', 'yv', ARRAY['a', 'b', 'c', 't'], NULL, '{"num_round": 15}') AS m;
CREATE FUNCTION pg_temp.m() RETURNS gbdt_model LANGUAGE sql STABLE AS $$ SELECT m FROM pmm $$;
-- the same rows without b and t, and with them NULL.
CREATE TABLE pmf_part AS SELECT id, a, c FROM pmf WHERE id <= 100;
CREATE TABLE pmf_null AS SELECT id, a, NULL::float8 AS b, c, NULL::text AS t FROM pmf WHERE id <= 100;

-- Default: one error naming all absent columns.
SELECT is(current_setting('gbdt.missing_features'), 'error', 'gbdt.missing_features defaults to error');
SELECT throws_ok($$SELECT gbdt_predict(pg_temp.m(), ROW(1.0::float8))$$, '42703',
                 'row has no columns "a", "b", "c", "t" required by the model',
                 'a row lacking every feature: all named at once');
SELECT throws_ok($$SELECT gbdt_predict(pg_temp.m(), r) FROM (SELECT 1.0::float8 AS a, 2 AS c) r$$, '42703',
                 'row has no columns "b", "t" required by the model', 'a row lacking two features: both named');
SELECT throws_ok($$SELECT gbdt_predict(pg_temp.m(), r) FROM (SELECT 1.0::float8 AS a, 2 AS c, 0.5::float8 AS b) r$$, '42703',
                 'row has no column "t" required by the model', 'one absent column: the message names it');
SELECT throws_ok($$SELECT * FROM gbdt_predict_table(pg_temp.m(), 'pmf_part', 'id')$$, '42703',
                 'relation "pmf_part" has no columns "b", "t" required by the model',
                 'gbdt_predict_table: all absent columns named');
SELECT throws_ok($$SELECT gbdt_evaluate(pg_temp.m(), 'pmf_part', 'a')$$, '42703',
                 'relation "pmf_part" has no columns "b", "t" required by the model',
                 'gbdt_evaluate: all absent columns named');
SELECT throws_like($$SET gbdt.missing_features = 'sometimes'$$, '%invalid value for parameter "gbdt.missing_features"%',
                   'an unknown setting value is refused');

-- 'missing': absent features are missing values.
SET LOCAL gbdt.missing_features = 'missing';
SELECT is((SELECT max(abs(gbdt_predict(pg_temp.m(), p) - gbdt_predict(pg_temp.m(), n)))
           FROM pmf_part p JOIN pmf_null n USING (id)), 0::float8,
          'a row lacking b and t scores as the row with them NULL');
SELECT is((SELECT count(*) FROM pmf_part p JOIN pmf_null n USING (id)), 100::bigint, 'all rows compared');
SELECT is((SELECT max(abs(p.prediction - q.prediction))
           FROM gbdt_predict_table(pg_temp.m(), 'pmf_part', 'id') p
           JOIN gbdt_predict_table(pg_temp.m(), 'pmf_null', 'id') q USING (key)), 0::float8,
          'gbdt_predict_table of the relation lacking b and t equals the one with them NULL');
SELECT is(gbdt_evaluate(pg_temp.m(), 'pmf_part', 'a'), gbdt_evaluate(pg_temp.m(), 'pmf_null', 'a'),
          'gbdt_evaluate scores absent features as missing values');
SELECT is((SELECT array_agg(contribution ORDER BY key, feature)
           FROM gbdt_explain_table(pg_temp.m(), 'pmf_part', 'id')),
          (SELECT array_agg(contribution ORDER BY key, feature)
           FROM gbdt_explain_table(pg_temp.m(), 'pmf_null', 'id')),
          'gbdt_explain_table of the relation lacking b and t equals the one with them NULL');
-- back to error in the same session: the cached row mapping is rebuilt.
SET LOCAL gbdt.missing_features = 'error';
SELECT throws_ok($$SELECT gbdt_predict(pg_temp.m(), p) FROM pmf_part p$$, '42703',
                 'row has no columns "b", "t" required by the model', 'error again after the setting is reset');

SELECT * FROM finish();
ROLLBACK;
