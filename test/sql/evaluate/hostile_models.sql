-- The 0.3 evaluation and batch-output functions on a hostile model whose
-- probabilities come out NaN (two classes whose finite leaves add up to
-- +inf: softmax inf - inf) and on bad arguments: each returns or errors
-- cleanly, under a statement_timeout that turns a hang into a failure.
BEGIN;
SELECT plan(8);

\ir ../lib/multiclass_model.sql

CREATE TEMP TABLE h5_model AS SELECT gbdt_import(pg_temp.multiclass_model(2, 3e38, 2)) AS m;
CREATE TEMP TABLE h5_rows AS
SELECT i AS id, (i % 2)::float8 AS y, ((i % 3) / 2.0)::float8 AS a FROM generate_series(1, 3000) i;
SET LOCAL statement_timeout = '20s';

SELECT ok((SELECT gbdt_evaluate(m, 'h5_rows', 'y') ?& ARRAY['f1_macro', 'f1_micro'] FROM h5_model),
          'gbdt_evaluate returns the F1 scores of a NaN-probability model');
SELECT is((SELECT sum(count) FROM h5_model, gbdt_confusion_matrix(m, 'h5_rows', 'y')), 3000::numeric,
          'gbdt_confusion_matrix counts every row (NaN probabilities: a class still)');
SELECT is((SELECT count(*) FROM h5_model, gbdt_predict_proba_table(m, 'h5_rows', 'id') WHERE probability = 'NaN'::float8),
          2 * (SELECT count(*) FROM h5_rows WHERE a < 0.5), 'gbdt_predict_proba_table returns the NaN probabilities');
SELECT is((SELECT count(*) FROM h5_model, gbdt_predict_table(m, 'h5_rows', 'id', 'class') WHERE prediction IN ('0', '1')),
          3000::bigint, 'output class: a class for every row');
SELECT is((SELECT count(*) FROM h5_model, gbdt_explain_table(m, 'h5_rows', 'id', 1)), 4 * 3000::bigint,
          'gbdt_explain_table top_k 1 returns every row and class');
-- NULL arguments of the non-strict four-argument gbdt_explain_table
SELECT is((SELECT count(*) FROM gbdt_explain_table(NULL::gbdt_model, 'h5_rows', 'id', 1)), 0::bigint,
          'gbdt_explain_table with a NULL model: no rows');
SELECT throws_like($$SELECT * FROM gbdt_calibration(gbdt_train('h5_rows', 'y', ARRAY['a'], 'binary:logistic', '{"num_round": 1}'),
                                                   'h5_rows', 'y', 2147483647)$$,
                   '%bins 2147483647 is outside [1, 10000]%', 'calibration with too many bins');
SELECT throws_like($$SELECT * FROM h5_model, gbdt_evaluate(m, 'h5_rows', 'y', 'Infinity'::float8)$$,
                   '%threshold Infinity is outside [0, 1]%', 'an infinite threshold');

SELECT * FROM finish();
ROLLBACK;
