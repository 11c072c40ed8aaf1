-- gbdt_fold and gbdt_cv: the folds are reproducible in SQL (the hash of
-- gbdt_validation_row), gbdt_cv's per-round means are those of boosters
-- trained by hand on the other folds' rows, early stopping on the mean
-- test metric, ranking and stratified folds, and the bad inputs (each an
-- error naming the value, nothing left behind).
BEGIN;
SELECT plan(23);

-- Integer-valued features with few distinct values: every fold's rows hold
-- every value, so a training on a fold's rows alone has the cuts of all rows
-- (which gbdt_cv uses) and the same trees.
CREATE TABLE cv_data AS
SELECT i - 1 AS o, (i % 7)::float8 AS a, (i % 11)::float8 AS b, ((i * 7) % 13)::float8 AS c,
       ((i % 7) * 2 + (i % 11) + ((i * 7) % 13) * 0.5 + (i % 3))::float8 AS y
FROM generate_series(1, 600) i;

SET client_min_messages = warning;  -- the training NOTICEs

-- ---- gbdt_fold ----
SELECT is((SELECT count(*)::int FROM generate_series(0, 999) o
           WHERE gbdt_fold(o, 4, 9) NOT BETWEEN 0 AND 3), 0, 'gbdt_fold lies in [0, nfold)');
SELECT is((SELECT count(*)::int FROM generate_series(0, 999) o, LATERAL (SELECT gbdt_fold(o, 5, 3) AS k) f
           WHERE NOT (CASE WHEN k = 4 THEN true ELSE gbdt_validation_row(o, (k + 1) / 5.0, 3) END
                      AND NOT gbdt_validation_row(o, k / 5.0, 3))),
          0, 'fold k is the band [k/nfold, (k+1)/nfold) of gbdt_validation_row''s hash');
SELECT ok((SELECT count(DISTINCT gbdt_fold(o, 5, 0)) = 5 AND count(DISTINCT gbdt_fold(o, 5, 0) = gbdt_fold(o, 5, 1)) = 2
           FROM generate_series(0, 999) o), 'every fold is used; the seed changes the folds');
SELECT throws_like($$SELECT gbdt_fold(0, 1)$$, 'nfold = 1 is out of range: must be in [2, 1000]', 'nfold < 2');
SELECT throws_like($$SELECT gbdt_fold(-1, 3)$$, 'ordinal = -1 is out of range%', 'negative ordinal');
SELECT throws_like($$SELECT gbdt_fold(0, 3, -5)$$, 'seed = -5 is out of range%', 'negative seed');

-- ---- gbdt_cv against boosters trained by hand on each fold ----
CREATE TEMP TABLE cv AS
SELECT * FROM gbdt_cv('cv_data', 'y', ARRAY['a', 'b', 'c'], NULL,
                      '{"num_round": 8, "max_depth": 3, "eta": 0.3}', nfold => 3, seed => 4);
CREATE VIEW cv_rest_0 AS SELECT * FROM cv_data WHERE gbdt_fold(o, 3, 4) <> 0;
CREATE VIEW cv_rest_1 AS SELECT * FROM cv_data WHERE gbdt_fold(o, 3, 4) <> 1;
CREATE VIEW cv_rest_2 AS SELECT * FROM cv_data WHERE gbdt_fold(o, 3, 4) <> 2;
CREATE TEMP TABLE hand AS
SELECT t.k, sqrt(avg((gbdt_predict(t.m, d) - d.y) ^ 2)) AS test_rmse
FROM (SELECT k, gbdt_train(format('cv_rest_%s', k)::regclass, 'y', ARRAY['a', 'b', 'c'], NULL,
                           '{"num_round": 8, "max_depth": 3, "eta": 0.3}') AS m
      FROM generate_series(0, 2) k) t
     JOIN cv_data d ON gbdt_fold(d.o, 3, 4) = t.k
GROUP BY t.k;
SELECT is((SELECT count(*)::int FROM cv), 8, 'one row per round');
SELECT is((SELECT array_agg(round ORDER BY round) FROM cv), ARRAY[1, 2, 3, 4, 5, 6, 7, 8], 'rounds 1..num_round');
SELECT is((SELECT DISTINCT metric FROM cv), 'rmse', 'the objective''s metric');
SELECT ok((SELECT abs(test_mean - (SELECT avg(test_rmse) FROM hand)) < 1e-5 * test_mean FROM cv WHERE round = 8),
          'the last test mean is the mean of the hand-trained folds'' test rmse');
SELECT ok((SELECT abs(test_std - (SELECT stddev_pop(test_rmse) FROM hand)) < 1e-5 FROM cv WHERE round = 8),
          'test_std is the population standard deviation over the folds');
SELECT ok((SELECT bool_and(train_mean < test_mean AND train_std >= 0) FROM cv WHERE round > 2),
          'train metric below the test metric');

-- ---- early stopping, ranking, stratified ----
CREATE TEMP TABLE es AS
SELECT * FROM gbdt_cv('cv_data', 'y', ARRAY['a', 'b', 'c'], NULL,
                      '{"num_round": 200, "eta": 1, "max_depth": 6, "early_stopping_rounds": 3}', nfold => 3);
SELECT ok((SELECT count(*) < 200 AND max(round) = count(*) FROM es)
          AND (SELECT test_mean FROM es ORDER BY round DESC LIMIT 1) = (SELECT min(test_mean) FROM es),
          'early stopping ends at the best mean test round');
CREATE TABLE cv_rank AS
SELECT i / 10 AS qid, (i % 5)::float8 AS a, ((i * 3) % 7)::float8 AS b, (i % 5 > 2)::int::float8 AS rel
FROM generate_series(0, 299) i;
SELECT is((SELECT count(*)::int FROM gbdt_cv('cv_rank', 'rel', ARRAY['a', 'b'], 'rank:ndcg',
                                            '{"num_round": 3, "group_column": "qid"}', nfold => 3)),
          3, 'ranking: folds of whole query groups');
SELECT is((SELECT count(*)::int FROM gbdt_cv('cv_data', 'y', ARRAY['a', 'b'], 'reg:squarederror',
                                            '{"num_round": 2}', nfold => 4, stratified => true)),
          2, 'stratified folds');

-- ---- bad input: clear errors, and a training works after each ----
SELECT throws_like($$SELECT * FROM gbdt_cv('cv_data', 'y', nfold => 1)$$, 'nfold = 1 is out of range%', 'nfold < 2');
SELECT throws_like($$SELECT * FROM gbdt_cv((SELECT 'cv_data'::regclass WHERE false), 'y')$$,
                   'relation must not be NULL', 'NULL relation');
SELECT throws_like($$SELECT * FROM gbdt_cv('cv_data', 'y', nfold => NULL)$$, 'nfold must not be NULL', 'NULL nfold');
CREATE TABLE cv_small AS SELECT i::float8 AS a, (i % 2)::float8 * 3 + i AS y FROM generate_series(1, 5) i;
SELECT throws_like($$SELECT * FROM gbdt_cv('cv_small', 'y', nfold => 6)$$, 'nfold = 6 is more than the 5 rows',
                   'nfold more than the rows');
SELECT throws_like($$SELECT * FROM gbdt_cv('cv_data', 'y', params => '{"validation_fraction": 0.2}')$$,
                   'parameter "validation_fraction" is not for cross-validation%', 'validation_fraction refused');
SELECT throws_like($$SELECT * FROM gbdt_cv('cv_rank', 'rel', ARRAY['a', 'b'], 'rank:ndcg',
                                           '{"group_column": "qid"}', stratified => true)$$,
                   'stratified folds are not for query groups%', 'stratified with query groups refused');
SELECT throws_like($$SELECT * FROM gbdt_cv('cv_data', 'nope')$$, '%nope%', 'an unknown target names it');
SELECT ok(gbdt_train('cv_small', 'y', params => '{"num_round": 2}') IS NOT NULL,
            'gbdt_train after failed gbdt_cv calls trains a model (no request left behind)');
SELECT * FROM finish();
ROLLBACK;
