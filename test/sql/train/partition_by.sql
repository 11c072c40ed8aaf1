-- gbdt_train's partition_by: one sub-model per key, stored as one
-- partitioned gbdt_model, each sub-model exactly a gbdt_train of its key's
-- rows alone; scoring routes each row by its key; the fallback decides
-- what keys without a sub-model get.
BEGIN;
SELECT plan(47);
SET LOCAL client_min_messages = warning;

CREATE TABLE pb AS
SELECT i AS id,
       CASE WHEN i % 4 = 3 THEN NULL ELSE (ARRAY['north', 'south', 'east'])[1 + i % 4] END AS store,
       (i % 5 < 2) AS promo,
       sin(i * 0.37)::float8 AS a, cos(i * 0.11)::float8 AS b,
       (ARRAY['p', 'q', 'r'])[1 + i % 3] AS c,
       (sin(i * 0.37) + (i % 4) * 1.5 + (i % 3) * 0.3 + (i % 5 < 2)::int)::float8 AS y
FROM generate_series(1, 1200) i;

CREATE TEMP TABLE pbm AS
SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "num_round": 6, "max_depth": 3}') AS m;

-- Each key's rows alone, in the relation's order, without the key column.
CREATE TEMP TABLE pb_north AS SELECT id, promo, a, b, c, y FROM pb WHERE store = 'north';
CREATE TEMP TABLE pb_null AS SELECT id, promo, a, b, c, y FROM pb WHERE store IS NULL;
CREATE TEMP TABLE pb_alone AS
SELECT 'north' AS k, gbdt_train('pb_north', 'y', params => '{"num_round": 6, "max_depth": 3}') AS m
UNION ALL
SELECT 'null', gbdt_train('pb_null', 'y', params => '{"num_round": 6, "max_depth": 3}');

SELECT is((SELECT md5(gbdt_partition_model(m, ARRAY['north'])::text) FROM pbm),
          (SELECT md5(m::text) FROM pb_alone WHERE k = 'north'),
          'the sub-model of a key is byte for byte a gbdt_train of its rows alone');
SELECT is((SELECT md5(gbdt_partition_model(m, ARRAY[NULL]::text[])::text) FROM pbm),
          (SELECT md5(m::text) FROM pb_alone WHERE k = 'null'),
          'a NULL key is a group of its own, trained on its rows alone');
SELECT is((SELECT count(*) FROM pbm, pb
           WHERE store = 'north' AND gbdt_predict(pbm.m, pb) = (SELECT gbdt_predict(m, pb) FROM pb_alone WHERE k = 'north')),
          300::bigint, 'gbdt_predict routes every north row to the north sub-model');
SELECT is((SELECT count(*) FROM pbm, pb
           WHERE store IS NULL AND gbdt_predict(pbm.m, pb) = (SELECT gbdt_predict(m, pb) FROM pb_alone WHERE k = 'null')),
          300::bigint, 'rows with a NULL key score with the NULL key''s sub-model');
SELECT is((SELECT count(DISTINCT gbdt_predict(m, pb)) FROM pbm, pb WHERE a > 0.5 AND b > 0.5 AND c = 'p' AND NOT promo) > 1,
          true, 'the keys'' sub-models differ');

SELECT is((SELECT count(*) FROM pg_class WHERE relname LIKE 'gbdt\_partition\_%'), 0::bigint,
          'the temporary table and views of the training are gone after it');
SELECT is((SELECT (m::text::gbdt_model)::text = m::text FROM pbm), true,
          'a partitioned model round-trips through its text form');
SELECT is((SELECT md5(gbdt_partition_model(gbdt_train_query('SELECT * FROM pb WHERE id <= 800', 'y',
                  params => '{"partition_by": "store", "num_round": 3}'), ARRAY['south'])::text)),
          (SELECT md5(gbdt_train_query($q$SELECT id, promo, a, b, c, y FROM pb WHERE id <= 800 AND store = 'south'$q$, 'y',
                  params => '{"num_round": 3}')::text)),
          'gbdt_train_query takes partition_by');

-- gbdt_model_info: the keys, their row counts, no metric without validation.
SELECT is((SELECT gbdt_model_info(m)->'partition_by' FROM pbm), '["store"]'::jsonb, 'model_info names the key column');
SELECT is((SELECT gbdt_model_info(m)->'partitions' FROM pbm),
          '[{"key": ["east"], "rows": 300, "metric": null}, {"key": ["north"], "rows": 300, "metric": null},
            {"key": ["south"], "rows": 300, "metric": null}, {"key": [null], "rows": 300, "metric": null}]'::jsonb,
          'model_info lists every key with its rows');
CREATE TEMP TABLE pbv AS
SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "num_round": 4, "validation_fraction": 0.25, "eval_metric": "rmse"}') AS m;
SELECT ok((SELECT bool_and((p->'metric'->>'rmse')::float8 > 0) FROM pbv, jsonb_array_elements(gbdt_model_info(m)->'partitions') p),
          'model_info gives each key''s validation metric when there was one');

-- gbdt_export: the XGBoost JSON of each key's model.
SELECT is((SELECT jsonb_array_length(gbdt_export(m)->'models') FROM pbm), 4, 'export holds one model per key');
SELECT is((SELECT x->'model' FROM pbm, jsonb_array_elements(gbdt_export(m)->'models') x WHERE x->'key' = '["north"]'),
          (SELECT gbdt_export(m) FROM pb_alone WHERE k = 'north'), 'an exported key''s model is its sub-model''s XGBoost JSON');
SELECT is((SELECT gbdt_export(m)->'global' FROM pbm), 'null'::jsonb, 'no global model without fallback global');

-- Two key columns.
CREATE TEMP TABLE pb2 AS
SELECT gbdt_train('pb', 'y', params => '{"partition_by": ["store", "promo"], "num_round": 4}') AS m;
CREATE TEMP TABLE pb_south_t AS SELECT id, a, b, c, y FROM pb WHERE store = 'south' AND promo;
SELECT is((SELECT (gbdt_model_info(m)->>'num_partitions')::int FROM pb2),
          (SELECT count(*)::int FROM (SELECT DISTINCT store, promo FROM pb) d), 'one sub-model per pair of key values');
SELECT is((SELECT md5(gbdt_partition_model(m, ARRAY['south', 't'])::text) FROM pb2),
          (SELECT md5(gbdt_train('pb_south_t', 'y', params => '{"num_round": 4}')::text)),
          'a two-column key''s sub-model is a gbdt_train of its rows alone');
SELECT is((SELECT count(*) FROM pb2, pb WHERE store = 'south' AND promo
           AND gbdt_predict(pb2.m, pb) = gbdt_predict(gbdt_partition_model(pb2.m, ARRAY['south', 't']), pb)),
          (SELECT count(*) FROM pb WHERE store = 'south' AND promo), 'two-column keys route by both values');

-- Scoring of whole relations.
SELECT is((SELECT count(*) FROM pbm, gbdt_predict_table(pbm.m, 'pb', 'id') p JOIN pb ON pb.id::text = p.key
           WHERE p.prediction = gbdt_predict(pbm.m, pb)), 1200::bigint,
          'gbdt_predict_table scores every row with its key''s sub-model');
CREATE TEMP VIEW pb_north_v AS SELECT * FROM pb WHERE store = 'north';
SELECT is((SELECT p->'metrics' FROM pbm, jsonb_array_elements(gbdt_evaluate(m, 'pb', 'y')->'partitions') p WHERE p->'key' = '["north"]'),
          (SELECT gbdt_evaluate(m, 'pb_north_v', 'y') FROM pb_alone WHERE k = 'north'),
          'gbdt_evaluate gives each key the metrics of its sub-model on its rows');
SELECT is((SELECT (gbdt_evaluate(m, 'pb', 'y')->>'rows')::int FROM pbm), 1200, 'gbdt_evaluate counts every row');

SELECT is((SELECT array_agg(row(e.feature, e.contribution)::text ORDER BY e.feature) FROM pbm, pb, gbdt_explain(pbm.m, pb) e WHERE pb.id = 4),
          (SELECT array_agg(row(e.feature, e.contribution)::text ORDER BY e.feature) FROM pb_alone a, pb, gbdt_explain(a.m, pb) e WHERE a.k = 'north' AND pb.id = 4),
          'gbdt_explain explains a row with its key''s sub-model');

CREATE TEMP TABLE pb_few AS SELECT * FROM pb WHERE id <= 12;
SELECT is((SELECT count(*) FROM pbm, gbdt_explain_table(pbm.m, 'pb_few', 'id') t JOIN pb_few ON pb_few.id::text = t.key
           JOIN LATERAL gbdt_explain(pbm.m, pb_few) e ON e.feature = t.feature AND e.class IS NOT DISTINCT FROM t.class
           WHERE e.contribution = t.contribution),
          (SELECT count(*) FROM pbm, pb_few, gbdt_explain(pbm.m, pb_few) e),
          'gbdt_explain_table explains every row with its key''s sub-model');

-- Keys without a sub-model: the fallback.
CREATE TEMP TABLE pb_new AS SELECT 9999 AS id, 'west'::text AS store, true AS promo, 0.5::float8 AS a, 0.5::float8 AS b, 'p'::text AS c, 1.0::float8 AS y;
SELECT throws_ok($$SELECT gbdt_predict(m, pb_new) FROM pbm, pb_new$$, 'P0002',
                 'the partitioned model has no sub-model for key store=west',
                 'fallback error (the default): an unseen key is an error naming it');
SELECT throws_ok($$SELECT gbdt_evaluate(m, 'pb_new', 'y') FROM pbm$$, 'P0002',
                 'the partitioned model has no sub-model for key store=west', 'gbdt_evaluate applies fallback error');
CREATE TEMP TABLE pbn AS
SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "num_round": 3, "partition_fallback": "null"}') AS m;
SELECT is((SELECT gbdt_predict(m, pb_new) FROM pbn, pb_new), NULL, 'fallback null: an unseen key predicts NULL');
SELECT throws_ok($$SELECT gbdt_predict(m, r) FROM pbm, (SELECT 0.5::float8 AS a, 0.5::float8 AS b) r$$, '42703',
                 'the row has no column "store", a partition_by key of the model',
                 'a row without the key column is an error naming it');
CREATE TEMP TABLE pbg AS
SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "num_round": 3, "partition_fallback": "global"}') AS m;
CREATE TEMP TABLE pb_all AS SELECT id, promo, a, b, c, y FROM pb;
SELECT is((SELECT md5(gbdt_partition_model(m, NULL)::text) FROM pbg),
          (SELECT md5(gbdt_train('pb_all', 'y', params => '{"num_round": 3}')::text)),
          'fallback global: the global model is a gbdt_train of every row');
SELECT is((SELECT gbdt_predict(m, pb_new) FROM pbg, pb_new),
          (SELECT gbdt_predict(gbdt_partition_model(m, NULL), pb_new) FROM pbg, pb_new),
          'fallback global: an unseen key scores with the global model');

-- Errors.
SELECT throws_ok($$SELECT gbdt_train('pb', 'y', params => '{"partition_by": "nope"}')$$, '42703',
                 'partition_by column "nope" does not exist in relation "pb"', 'an unknown key column is an error naming it');
SELECT throws_ok($$SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "partition_max_groups": 3}')$$, '54000',
                 'partition_by gives more than 3 groups (partition_max_groups)', 'too many groups is an error');
SELECT throws_ok($$SELECT gbdt_train('pb', 'y', ARRAY['a', 'store'], params => '{"partition_by": "store"}')$$, '22023',
                 'column "store" is a partition_by key and cannot also be a feature', 'a key column named in features is an error');
SELECT throws_ok($$SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "partition_fallback": "maybe"}')$$, '22023',
                 'parameter "partition_fallback" must be "error", "null" or "global"', 'an unknown fallback is an error');
SELECT throws_ok($$SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "partition_max_groups": 100001}')$$, '22023',
                 'parameter "partition_max_groups" must be an integer from 1 to 100000', 'partition_max_groups is bounded');
CREATE TEMP TABLE pb_long AS SELECT i, repeat('k', 5000) AS k, i::float8 AS x, i::float8 AS y FROM generate_series(1, 50) i;
SELECT throws_ok($$SELECT gbdt_train('pb_long', 'y', params => '{"partition_by": "k"}')$$, '54000',
                 'a value of partition_by column "k" is longer than 4096 bytes', 'a key value beyond the model''s string limit is an error');
UPDATE pb SET y = NULL WHERE store = 'east';
SELECT throws_like($$SELECT gbdt_train('pb', 'y', params => '{"partition_by": "store", "num_round": 2}')$$,
                   'partition store=east: %', 'a key''s training error is prefixed by its key');
SELECT throws_ok($$SELECT gbdt_trees(m) FROM pbm$$, '0A000',
                 'gbdt_trees does not take a partitioned model (one sub-model per partition_by key)',
                 'functions that do not route by key refuse a partitioned model');

-- A classifier per key: probabilities, classes and predict_table's output
-- argument route each row to its key's sub-model too.
CREATE TABLE pb_cls AS
SELECT i AS id, (ARRAY['north', 'south', 'east'])[1 + i % 3] AS store, sin(i * 0.37)::float8 AS a,
       CASE WHEN sin(i * 0.37) + (i % 3) * 0.4 > 0.3 THEN 'yes' ELSE 'no' END AS label
FROM generate_series(1, 900) i;
CREATE TEMP TABLE pbc AS
SELECT gbdt_train('pb_cls', 'label', params => '{"partition_by": "store", "num_round": 4, "max_depth": 2}') AS m;
SELECT is((SELECT count(*)::int FROM pbc, pb_cls r, gbdt_predict_proba(pbc.m, r) p
           JOIN gbdt_predict_proba(gbdt_partition_model(pbc.m, ARRAY[r.store]), r) q ON q.class = p.class
           WHERE p.probability = q.probability AND p.class_name = q.class_name), 1800,
          'gbdt_predict_proba gives each row its key''s sub-model''s probabilities');
SELECT is((SELECT count(*)::int FROM pbc, pb_cls r
           WHERE gbdt_predict_class(pbc.m, r) = gbdt_predict_class(gbdt_partition_model(pbc.m, ARRAY[r.store]), r)), 900,
          'gbdt_predict_class routes each row');
SELECT is((SELECT count(*)::int FROM pbc, pb_cls r, gbdt_predict_table(pbc.m, 'pb_cls', 'id', 'class') t
           WHERE t.key = r.id::text AND t.prediction = gbdt_predict_class(pbc.m, r)), 900,
          'gbdt_predict_table with output => class');
SELECT throws_ok($$SELECT * FROM pbc, gbdt_predict_table(pbc.m, 'pb_cls', 'id', 'odds')$$, '22023',
                 'gbdt_predict_table: output "odds" is not one of value, class', 'an unknown output is an error');

-- gbdt_import reads gbdt_export's object back: the same keys, rows and
-- fallback, predictions as XGBoost JSON keeps them (float32 base score: 1e-6).
SELECT is((SELECT gbdt_model_info(gbdt_import(gbdt_export(m)))->'partitions' FROM pbg),
          (SELECT jsonb_agg(p - 'metric' || '{"metric": null}') FROM pbg, jsonb_array_elements(gbdt_model_info(m)->'partitions') p),
          'an imported partitioned model has the exported keys and rows');
SELECT is((SELECT count(*)::int FROM pbg, pb r
           WHERE abs(gbdt_predict(gbdt_import(gbdt_export(pbg.m)), r) - gbdt_predict(pbg.m, r)) < 1e-6), 1200,
          'it predicts each row as the exported model, unseen keys by the imported global model');
SELECT throws_ok($$SELECT gbdt_import(gbdt_export(m) - 'partition_types') FROM pbg$$, '22023',
                 'invalid partitioned model JSON: missing "partition_types"', 'an export without its key types is refused');
SELECT throws_ok($$SELECT gbdt_import(jsonb_set(gbdt_export(m), '{partition_fallback}', '"error"')) FROM pbg$$, '22023',
                 'invalid partitioned model JSON: a "global" model is given exactly when "partition_fallback" is "global"',
                 'a global model without fallback global is refused');

-- A saved partition_by spec retrains: the retrain runs as the owner inside a
-- security-restricted operation, where the temporary copy of the rows must
-- still be made (the public schema: a spec names a permanent relation).
CREATE TABLE public.pb_saved AS
SELECT i AS id, (ARRAY['north', 'south', 'east'])[1 + i % 3] AS store, sin(i * 0.37)::float8 AS a,
       (sin(i * 0.37) + (i % 3) * 1.5)::float8 AS y
FROM generate_series(1, 900) i;
SELECT is(gbdt_train_and_save('pb_saved', 'public.pb_saved', 'y',
                              params => '{"partition_by": "store", "num_round": 6, "max_depth": 3}'),
          1, 'a partition_by spec saved');
SELECT is(gbdt_retrain('pb_saved'), 2, 'gbdt_retrain of a partition_by spec saves version 2');
SELECT is((SELECT md5(model::text) FROM gbdt_models WHERE name = 'pb_saved' AND version = 2),
          (SELECT md5(model::text) FROM gbdt_models WHERE name = 'pb_saved' AND version = 1),
          'gbdt_retrain of a partition_by spec trains the same model');

SELECT * FROM finish();
ROLLBACK;
