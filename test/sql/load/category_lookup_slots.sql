-- A text value is looked up first in 64 slots of recently seen
-- values (category_dict.cpp), chosen by a hash of its length and its first,
-- middle and last bytes, and a hit is checked byte for byte.  Values that
-- share all of these land in the same slot: alternating them row by row must
-- still give each its own category, in training and in every scoring path,
-- and an unseen value in that slot must score as unseen.
BEGIN;
SELECT plan(6);
SET LOCAL client_min_messages = warning;

-- 'aXbYc', 'aZbWc', 'aQbRc', 'aSbTc': length 5, bytes 0, 2 and 4 equal.
CREATE TEMP TABLE t62 AS
SELECT i AS id, v AS cat,
       CASE v WHEN 'aXbYc' THEN 0 WHEN 'aZbWc' THEN 2 WHEN 'aQbRc' THEN 5 ELSE 9 END::float8 AS y
FROM generate_series(1, 1000) i,
     LATERAL (SELECT (ARRAY['aXbYc', 'aZbWc', 'aQbRc', 'aXbYc', 'aZbWc', 'aXbYc', 'aSbTc',
                            'aQbRc', 'aXbYc', 'aZbWc'])[1 + i % 10] AS v) s;

CREATE TEMP TABLE m62 AS
SELECT gbdt_train('t62', 'y', ARRAY['cat'], 'reg:squarederror',
                  '{"num_round": 50, "max_depth": 3, "eta": 0.3}') AS m;

SELECT is((SELECT (gbdt_model_info(m)->'features'->0->>'categories')::int FROM m62), 4,
          'four values sharing a lookup slot are four categories');
SELECT cmp_ok((SELECT (gbdt_evaluate(m, 't62', 'y')->>'rmse')::float8 FROM m62), '<', 0.01::float8,
              'each value is learned as its own category');
SELECT is((SELECT count(*)::int FROM t62 c, m62 WHERE abs(gbdt_predict(m, c) - c.y) >= 0.01), 0,
          'gbdt_predict scores each value as its own category, values alternating row by row');
SELECT is((SELECT count(*)::int FROM t62 c JOIN gbdt_predict_table((SELECT m FROM m62), 't62', 'id') p
           ON p.key = c.id::text WHERE abs(p.prediction - c.y) >= 0.01), 0,
          'gbdt_predict_table scores each value as its own category');
-- Codes by descending frequency: aXbYc 0, aZbWc 1, aQbRc 2, aSbTc 3; unseen: 4.
SELECT is((SELECT gbdt_predict(m, r) FROM m62, (SELECT 'aSbTc'::text AS cat) r),
          (SELECT gbdt_predict(m, ARRAY[3]::float8[]) FROM m62),
          'the least frequent value scores as its code after the others filled the slot');
SELECT is((SELECT gbdt_predict(m, r) FROM m62, (SELECT 'aVbUc'::text AS cat) r),
          (SELECT gbdt_predict(m, ARRAY[4]::float8[]) FROM m62),
          'an unseen value that shares the slot scores as unseen (code n)');

SELECT * FROM finish();
ROLLBACK;
