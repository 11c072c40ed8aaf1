-- The backend's cache of decoded models (model_cache_pg.h) keeps
-- decoded models across queries, keyed on all their stored bytes, at most
-- 8 of them (LRU), with the trees laid out for batch scoring.  Twelve models
-- (more than it holds; several of equal serialized length; inline and
-- TOASTed) scored one query each, forward, backward and by
-- gbdt_predict_table, give every query its own model's predictions; a
-- stored model replaced by another is scored as the new one at once.
BEGIN;
SELECT plan(8);
SET LOCAL client_min_messages = warning;

CREATE TEMP TABLE t59_data AS
SELECT i AS id, sin(i * 0.37)::float8 AS f0, cos(i * 0.11)::float8 AS f1,
       ((i * 7919) % 101 / 100.0)::float8 AS f2,
       (sin(i * 0.37) + cos(i * 0.11) > 0.2)::int::float8 AS label
FROM generate_series(1, 600) i;

-- k < 9: depth 2, 3 rounds (same shapes, different eta: equal lengths);
-- k >= 9: 60 rounds, large enough to be TOASTed.
CREATE TEMP TABLE t59_models (k int PRIMARY KEY, m gbdt_model);
INSERT INTO t59_models
SELECT k, gbdt_train('t59_data', 'label', ARRAY['f0', 'f1', 'f2'], 'binary:logistic',
                     jsonb_build_object('num_round', CASE WHEN k < 9 THEN 3 ELSE 60 END,
                                        'max_depth', CASE WHEN k < 9 THEN 2 ELSE 4 + k - 9 END,
                                        'eta', 0.05 + 0.03 * k))
FROM generate_series(0, 11) k;

SELECT cmp_ok((SELECT max(c)::int FROM (SELECT count(*) AS c FROM t59_models
                                         GROUP BY length(m::text)) s), '>', 1,
              'some models have serialized forms of equal length');
SELECT cmp_ok((SELECT max(pg_column_size(m)) FROM t59_models), '>', 2000,
              'some models are TOASTed');

CREATE TEMP TABLE t59_fwd (k int, id int, p float8);
CREATE TEMP TABLE t59_rev (k int, id int, p float8);
CREATE TEMP TABLE t59_tab (k int, id int, p float8);
DO $$
BEGIN
  FOR i IN 0 .. 11 LOOP
    INSERT INTO t59_fwd SELECT i, d.id, gbdt_predict((SELECT m FROM t59_models WHERE k = i), d)
                        FROM t59_data d;
  END LOOP;
  FOR i IN REVERSE 11 .. 0 LOOP
    INSERT INTO t59_rev SELECT i, d.id, gbdt_predict((SELECT m FROM t59_models WHERE k = i), d)
                        FROM t59_data d;
    INSERT INTO t59_tab SELECT i, t.key::int, t.prediction
                        FROM gbdt_predict_table((SELECT m FROM t59_models WHERE k = i), 't59_data', 'id') t;
  END LOOP;
END $$;

SELECT is((SELECT count(*)::int FROM t59_fwd), 12 * 600, 'every model scored every row');
SELECT is((SELECT count(DISTINCT s)::int FROM (SELECT string_agg(p::text, ',' ORDER BY id) AS s
                                              FROM t59_fwd GROUP BY k) x), 12,
          'the twelve models give twelve different prediction vectors');
SELECT is_empty($$SELECT * FROM t59_fwd EXCEPT SELECT * FROM t59_rev$$,
                'scoring in reverse order (cache hits and evictions) gives the same predictions');
SELECT is_empty($$SELECT * FROM t59_fwd EXCEPT SELECT * FROM t59_tab$$,
                'gbdt_predict_table on a cached model (shared tree layout) = scalar gbdt_predict');

-- Replace model 0 by model 5's bytes and model 5 by a new one: the next
-- queries score the new values.
UPDATE t59_models SET m = (SELECT m FROM t59_models WHERE k = 5) WHERE k = 0;
UPDATE t59_models SET m = gbdt_train('t59_data', 'label', ARRAY['f0', 'f1', 'f2'], 'binary:logistic',
                                     '{"num_round": 3, "max_depth": 2, "eta": 0.9}') WHERE k = 5;
SELECT is_empty($$SELECT 5, d.id, gbdt_predict((SELECT m FROM t59_models WHERE k = 0), d) FROM t59_data d
                  EXCEPT SELECT * FROM t59_fwd WHERE k = 5$$,
                'a replaced model is scored as its new value');
SELECT is((SELECT count(*)::int FROM t59_data d
           JOIN gbdt_predict_table((SELECT m FROM t59_models WHERE k = 5), 't59_data', 'id') t
             ON t.key = d.id::text
           JOIN t59_fwd f ON f.k = 5 AND f.id = d.id
           WHERE t.prediction IS NOT DISTINCT FROM f.p), 0,
          'a retrained model replacing a cached one is scored as the new model');

SELECT * FROM finish();
ROLLBACK;
