-- Exact TreeSHAP in SQL.  gbdt_explain's contributions plus bias
-- sum to the margin for regression, binary and multiclass models on every
-- row (NULL and NaN features take the default direction), top_k keeps the
-- largest, gbdt_explain_table gives gbdt_explain's numbers for every row
-- with the caller's privileges and stops on a cancel,
-- gbdt_feature_importance(model, 'shap', relation) is the mean |SHAP|, and
-- interaction values sum to the contributions.  Errors name what is wrong.
BEGIN;
SELECT plan(39);

CREATE TABLE xp AS
SELECT i AS id, 'k' || i AS tkey,
       sin(i)::float8 AS a, cos(i * 0.7)::real AS b, (i % 7)::int AS c, (i % 3 = 0) AS d,
       round((i * 0.37)::numeric % 5, 2) AS e,
       sin(i) + 0.5 * cos(i * 0.7) + (i % 7) * 0.1 + (i % 3 = 0)::int * 0.3 AS y,
       (sin(i) + 0.3 * cos(i * 0.7) > 0) AS yb,
       least(greatest(width_bucket(sin(i) + 0.4 * cos(i * 0.7), -1.0, 1.0, 3) - 1, 0), 2) AS ym
FROM generate_series(1, 1500) i;
UPDATE xp SET a = NULL WHERE id % 17 = 0;
UPDATE xp SET c = NULL, d = NULL WHERE id % 23 = 0;
UPDATE xp SET b = 'NaN' WHERE id % 29 = 0;

CREATE TEMP TABLE xm AS
SELECT 'reg' AS k, gbdt_train('xp', 'y', ARRAY['a','b','c','d','e'], NULL, '{"num_round": 30}') AS m
UNION ALL SELECT 'bin', gbdt_train('xp', 'yb', ARRAY['e','a','b','c'], NULL, '{"num_round": 20, "max_depth": 4}')
UNION ALL SELECT 'multi', gbdt_train('xp', 'ym', ARRAY['c','b','a','d'], 'multi:softprob', '{"num_round": 8}');
CREATE FUNCTION pg_temp.m(kind text) RETURNS gbdt_model LANGUAGE sql STABLE AS
  $$ SELECT m FROM xm WHERE k = kind $$;
CREATE TEMP TABLE xs AS SELECT * FROM xp WHERE id <= 300;

-- Sums equal the margin.
SELECT cmp_ok((SELECT max(abs(s - gbdt_predict(pg_temp.m('reg'), x)))
               FROM xs x, LATERAL (SELECT sum(contribution) AS s FROM gbdt_explain(pg_temp.m('reg'), x)) e),
              '<', 1e-5::float8, 'regression: contributions + bias = prediction on every row');
SELECT cmp_ok((SELECT max(abs(1 / (1 + exp(-s)) - gbdt_predict(pg_temp.m('bin'), x)))
               FROM xs x, LATERAL (SELECT sum(contribution) AS s FROM gbdt_explain(pg_temp.m('bin'), x)) e),
              '<', 1e-6::float8, 'binary: sigmoid(contributions + bias) = P(class 1) on every row');
SELECT cmp_ok((SELECT max(abs(exp(s.margin) / s.z - p.probability))
               FROM xs x,
                    LATERAL (SELECT class, sum(contribution) AS margin,
                                    sum(exp(sum(contribution))) OVER () AS z
                             FROM gbdt_explain(pg_temp.m('multi'), x) GROUP BY class) s,
                    LATERAL gbdt_predict_proba(pg_temp.m('multi'), x) p
               WHERE p.class = s.class),
              '<', 1e-6::float8, 'multiclass: softmax of the per-class sums = class probabilities on every row');
SELECT is((SELECT count(*)::int FROM xs x, gbdt_explain(pg_temp.m('multi'), x)), 300 * 3 * 5,
          'multiclass: one row per (class, feature) plus a bias per class');
SELECT is((SELECT array_agg(DISTINCT class ORDER BY class) FROM xs x, gbdt_explain(pg_temp.m('multi'), x)),
          ARRAY[0, 1, 2]::float8[], 'multiclass: classes labelled by value');
SELECT is((SELECT count(*)::int FROM xs x, gbdt_explain(pg_temp.m('reg'), x) WHERE class IS NOT NULL), 0,
          'regression: class is NULL');
SELECT is((SELECT array_agg(feature) FROM xs x, gbdt_explain(pg_temp.m('bin'), x) WHERE x.id = 1),
          ARRAY['e','a','b','c','bias'], 'one row per model feature in model order, then the bias');
SELECT ok((SELECT bool_and(value IS NULL) FROM xs x, gbdt_explain(pg_temp.m('reg'), x) WHERE x.id = 17 AND feature IN ('a', 'bias')),
          'value is NULL for a missing feature and for the bias');
SELECT is((SELECT value FROM xs x, gbdt_explain(pg_temp.m('reg'), x) WHERE x.id = 5 AND feature = 'c'), 5::float8,
          'value is the row''s feature value');
SELECT is((SELECT count(DISTINCT contribution)::int FROM xs x, gbdt_explain(pg_temp.m('reg'), x) WHERE feature = 'bias'), 1,
          'the bias is the same for every row');
-- Missing values follow the default direction: the NULL rows' contributions
-- still sum to their prediction (checked above) and a NULL feature still
-- contributes (it is not treated as 0).
SELECT ok((SELECT count(*) FROM xs x, gbdt_explain(pg_temp.m('reg'), x) WHERE x.a IS NULL AND feature = 'a' AND contribution <> 0) > 0,
          'a missing feature gets a contribution (default direction, not a zero value)');

-- top_k.
SELECT is((SELECT count(*)::int FROM xs x, gbdt_explain(pg_temp.m('reg'), x, 2) WHERE x.id = 3), 3, 'top_k 2: two features and the bias');
SELECT is((SELECT count(*)::int FROM xs x, gbdt_explain(pg_temp.m('multi'), x, 1) WHERE x.id = 3), 6, 'top_k 1, multiclass: per class');
SELECT is((SELECT count(*)::int FROM xs x, gbdt_explain(pg_temp.m('reg'), x, 0) WHERE x.id = 3), 1, 'top_k 0: the bias only');
SELECT is((SELECT count(*)::int FROM xs x, gbdt_explain(pg_temp.m('reg'), x, 50) WHERE x.id = 3), 6, 'top_k above the features: all');
SELECT is((SELECT array_agg(feature ORDER BY feature) FROM xs x, gbdt_explain(pg_temp.m('reg'), x, 2) WHERE x.id = 3 AND feature <> 'bias'),
          (SELECT array_agg(feature ORDER BY feature) FROM
             (SELECT feature FROM xs x, gbdt_explain(pg_temp.m('reg'), x) WHERE x.id = 3 AND feature <> 'bias'
              ORDER BY abs(contribution) DESC LIMIT 2) t),
          'top_k keeps the largest |contribution|');

-- Errors: a model/row mismatch as gbdt_predict reports it; bad top_k.
SELECT throws_ok($$SELECT * FROM gbdt_explain(pg_temp.m('reg'), ROW(1.0::float8))$$,
                 '42703', 'row has no columns "a", "b", "c", "d", "e" required by the model', 'row without the model''s columns');
CREATE TEMP TABLE xbad AS SELECT 1.0::float8 AS a, 'x'::text AS b, 1 AS c, true AS d, 1.0 AS e;
SELECT throws_ok($$SELECT * FROM xbad x, gbdt_explain(pg_temp.m('reg'), x)$$,
                 '42804', 'column "b" has unsupported type text', 'feature column of an unsupported type');
SELECT throws_ok($$SELECT * FROM xs x, gbdt_explain(pg_temp.m('reg'), x, -1)$$,
                 '22023', 'top_k must be at least 0, got -1', 'negative top_k');
SELECT is((SELECT count(*)::int FROM gbdt_explain(NULL::gbdt_model, ROW(1))), 0, 'NULL model: no rows');

-- gbdt_explain_table = gbdt_explain, every row.
SELECT is((SELECT count(*)::int FROM
             (SELECT t.key, t.feature, t.class, t.contribution FROM gbdt_explain_table(pg_temp.m('multi'), 'xs', 'id') t
              EXCEPT
              SELECT x.id::text, e.feature, e.class, e.contribution FROM xs x, gbdt_explain(pg_temp.m('multi'), x) e) d), 0,
          'explain_table (multiclass) equals gbdt_explain per row');
SELECT is((SELECT count(*)::int FROM gbdt_explain_table(pg_temp.m('reg'), 'xp', 'tkey')), 1500 * 6,
          'explain_table: one row per (row, feature) and a bias (several batches)');
SELECT is((SELECT count(*)::int FROM
             (SELECT t.key, t.feature, t.contribution FROM gbdt_explain_table(pg_temp.m('reg'), 'xp', 'tkey') t
              EXCEPT
              SELECT x.tkey, e.feature, e.contribution FROM xp x, gbdt_explain(pg_temp.m('reg'), x) e) d), 0,
          'explain_table (regression, text key) equals gbdt_explain per row');
CREATE TEMP VIEW xv AS SELECT id * 10 AS vid, a, b, c, d, e FROM xs WHERE id % 2 = 0;
SELECT is((SELECT count(DISTINCT key)::int FROM gbdt_explain_table(pg_temp.m('reg'), 'xv', 'vid')), 150,
          'explain_table reads views');
SELECT throws_ok($$SELECT * FROM gbdt_explain_table(pg_temp.m('reg'), 'xs', 'nokey')$$,
                 '42703', NULL, 'explain_table: missing key column');
SELECT throws_ok($$SELECT * FROM gbdt_explain_table(pg_temp.m('reg'), 'xbad', 'a')$$,
                 NULL, NULL, 'explain_table: feature column of an unsupported type');

-- Privileges: the caller's (row-level security applies).
CREATE TABLE xp_rls AS SELECT * FROM xs;
CREATE ROLE gbdt_test_xp NOLOGIN;
GRANT USAGE ON SCHEMA public TO gbdt_test_xp;
GRANT SELECT ON xp_rls TO gbdt_test_xp;
ALTER TABLE xp_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY xp_even ON xp_rls FOR SELECT USING (id % 2 = 0);
CREATE TEMP TABLE xm_reg AS SELECT m FROM xm WHERE k = 'reg';
GRANT SELECT ON xm_reg TO gbdt_test_xp;
SET LOCAL ROLE gbdt_test_xp;
SELECT is((SELECT count(DISTINCT key)::int FROM gbdt_explain_table((SELECT m FROM xm_reg), 'xp_rls', 'id')), 150,
          'explain_table: row-level security applies');
SELECT throws_ok($$SELECT * FROM gbdt_explain_table((SELECT m FROM xm_reg), 'xp', 'id')$$,
                 '42501', 'permission denied for table xp', 'explain_table: no SELECT privilege');
SELECT throws_ok($$SELECT * FROM gbdt_feature_importance((SELECT m FROM xm_reg), 'shap', 'xp')$$,
                 '42501', 'permission denied for table xp', 'shap importance: no SELECT privilege');
RESET ROLE;

-- Global importance: mean |SHAP|.
SELECT cmp_ok((SELECT max(abs(i.importance - r.imp)) FROM gbdt_feature_importance(pg_temp.m('multi'), 'shap', 'xs') i
               JOIN (SELECT feature, sum(abs(contribution)) / 300 AS imp FROM gbdt_explain_table(pg_temp.m('multi'), 'xs', 'id')
                     WHERE feature <> 'bias' GROUP BY feature) r USING (feature)),
              '<', 1e-12::float8, 'shap importance = mean over rows of |contribution| summed over classes');
SELECT is((SELECT array_agg(importance ORDER BY importance DESC) FROM gbdt_feature_importance(pg_temp.m('reg'), 'shap', 'xs')),
          (SELECT array_agg(importance) FROM gbdt_feature_importance(pg_temp.m('reg'), 'shap', 'xs')),
          'shap importance: most important first');
SELECT throws_ok($$SELECT * FROM gbdt_feature_importance(pg_temp.m('reg'), 'gain', 'xs')$$,
                 '22023', 'unknown feature importance kind "gain" with a relation', 'importance with a relation: kind must be shap');

-- Interaction values: each feature's row sums to its contribution; symmetric.
SELECT cmp_ok((SELECT max(abs(s.total - e.contribution))
               FROM xs x, LATERAL (SELECT feature1, sum(interaction) AS total FROM gbdt_explain_interactions(pg_temp.m('reg'), x) GROUP BY feature1) s,
                    LATERAL gbdt_explain(pg_temp.m('reg'), x) e
               WHERE x.id <= 40 AND e.feature = s.feature1),
              '<', 1e-9::float8, 'interactions: rows sum to the contributions');
SELECT cmp_ok((SELECT max(abs(p.interaction - q.interaction))
               FROM xs x, gbdt_explain_interactions(pg_temp.m('multi'), x) p, gbdt_explain_interactions(pg_temp.m('multi'), x) q
               WHERE x.id <= 10 AND p.feature1 = q.feature2 AND p.feature2 = q.feature1 AND p.class = q.class),
              '<', 1e-9::float8, 'interactions: symmetric');

\ir ../lib/chain_model.sql
-- Hostile: a tree deeper than TreeSHAP supports is an error, not a crash.
CREATE TEMP TABLE xa AS SELECT 1 AS id, 0.25::float8 AS a;
SELECT throws_ok($$SELECT * FROM xa x, gbdt_explain(gbdt_import(pg_temp.chain_model(1, 600)), x)$$,
                 '22023', 'tree 0 is deeper than 512 levels, the most gbdt_explain supports',
                 'a tree too deep for TreeSHAP is an error');
SELECT is((SELECT sum(contribution) FROM xa x, gbdt_explain(gbdt_import(pg_temp.chain_model(3, 500)), x))::numeric(10, 6),
          0.503::numeric(10, 6), 'a chain tree 500 deep is explained (base 0.5 + 3 x 0.001)');

-- Cancellation: 1000 chain trees 40 deep, splitting on 40 distinct
-- features (every row walks paths of 40 features: tens of ms per row, a
-- 1024-row batch takes many seconds), over 65,536 rows; statement_timeout
-- = 1 s stops explain_table and the shap importance promptly: inside the
-- batch (the calling thread polls between trees, the workers stop at their
-- next tree), not after it.  WHEN OTHERS does not catch query_canceled.
\ir ../lib/timed.sql
CREATE TEMP TABLE xc_model AS SELECT gbdt_import(pg_temp.chain_model(1000, 40, 40)) AS m;
DO $$ BEGIN
  EXECUTE format('CREATE TEMP TABLE xc_rows AS SELECT i AS id, %s FROM generate_series(1, 65536) i',
                 (SELECT string_agg(format('0.25::float8 AS f%s', k), ', ') FROM generate_series(0, 39) k));
END $$;
CREATE TEMP TABLE xc_one AS SELECT * FROM xc_rows WHERE id = 1;
SET LOCAL statement_timeout = '1s';
CREATE TEMP TABLE xc_table AS
SELECT * FROM pg_temp.timed($$SELECT count(*) FROM xc_model, gbdt_explain_table(m, 'xc_rows', 'id')$$);
CREATE TEMP TABLE xc_imp AS
SELECT * FROM pg_temp.timed($$SELECT count(*) FROM xc_model, gbdt_feature_importance(m, 'shap', 'xc_rows')$$);
SET LOCAL statement_timeout = 0;
SELECT is(err || ' in < 4 s: ' || (seconds < 4.0)::text, 'canceling statement due to statement timeout in < 4 s: true',
          'explain_table stops promptly on statement_timeout') FROM xc_table;
SELECT is(err || ' in < 4 s: ' || (seconds < 4.0)::text, 'canceling statement due to statement timeout in < 4 s: true',
          'shap importance stops promptly on statement_timeout') FROM xc_imp;
SELECT is((SELECT round(sum(contribution)::numeric, 4) FROM xc_model, gbdt_explain_table(m, 'xc_one', 'id')), 1.5::numeric,
          'explain_table works after the cancels');

SELECT * FROM finish();
ROLLBACK;
