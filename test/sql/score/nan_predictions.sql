-- Predictions that come out NaN (a hostile model) never hang a
-- scoring path.  Finite leaves can still overflow: two classes whose
-- margins both add up to +inf give softmax inf - inf = NaN probabilities.
-- Every scoring function returns (under a statement_timeout that turns a
-- hang into a failure), and gbdt_evaluate reports NaN metrics as null.
-- A single-output model whose predictions are NaN (stored non-finite
-- floats, which the model validator rejects) gets a clear error from
-- gbdt_evaluate instead of an AUC over unordered values (evaluate.cpp).
BEGIN;
SELECT plan(7);

\ir ../lib/multiclass_model.sql

CREATE TEMP TABLE t34_model AS SELECT gbdt_import(pg_temp.multiclass_model(2, 3e38, 2)) AS m;
CREATE TEMP TABLE t34_rows AS
SELECT i AS id, (i % 2)::float8 AS y, ((i % 3) / 2.0)::float8 AS a FROM generate_series(1, 5000) i;
SET LOCAL statement_timeout = '20s';

SELECT is((SELECT count(*)::int FROM t34_model, t34_rows r, gbdt_predict_proba(m, r) p
           WHERE r.a < 0.5 AND p.probability = 'NaN'::float8), 2 * (SELECT count(*)::int FROM t34_rows WHERE a < 0.5),
          'margins +inf in both classes: NaN probabilities');
SELECT is((SELECT count(*)::int FROM t34_model, t34_rows r WHERE gbdt_predict(m, r) IN (0, 1)), 5000,
          'gbdt_predict still answers a class for every row');
SELECT is((SELECT count(*)::int FROM t34_model, gbdt_predict_table(m, 't34_rows', 'id') p WHERE p.prediction IN (0, 1)), 5000,
          'gbdt_predict_table returns every row');
SELECT is((SELECT gbdt_evaluate(m, 't34_rows', 'y')->'mlogloss' FROM t34_model), 'null'::jsonb,
          'gbdt_evaluate returns; NaN mlogloss is null');
SELECT is((SELECT (gbdt_evaluate(m, 't34_rows', 'y')->>'rows')::int FROM t34_model), 5000, 'gbdt_evaluate counts every row');
SELECT is((SELECT count(*)::int FROM t34_model, gbdt_feature_importance(m) f), 1, 'gbdt_feature_importance returns');
SELECT is((SELECT count(*)::int FROM t34_model, gbdt_trees(m) t), 12, 'gbdt_trees returns every node');

SELECT * FROM finish();
ROLLBACK;
