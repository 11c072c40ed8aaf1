-- Scoring with a partitioned (partition_by) model beyond the row routing
-- of train/partition_by.sql: gbdt_evaluate's pooled metrics over every
-- key (the same metric code as an ordinary gbdt_evaluate, each row
-- predicted by its own key's sub-model), gbdt_predict_proba_table and
-- gbdt_explain_interactions routed by key, the fallbacks, NULL keys, keys
-- of the wrong type, an empty relation, and the functions that refuse a
-- partitioned model.
BEGIN;
SELECT plan(54);
SET LOCAL client_min_messages = warning;

-- Metric objects equal: the same members, numbers within tol (relative
-- beyond 1; the pooled sums add up in key order, not the relation's).
CREATE FUNCTION pg_temp.same_metrics(a jsonb, b jsonb, tol float8) RETURNS boolean
LANGUAGE sql AS $$
  SELECT (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(a) k) =
         (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(b) k)
     AND bool_and(CASE WHEN jsonb_typeof(a->k) = 'number'
                       THEN abs((a->>k)::float8 - (b->>k)::float8) <= tol * greatest(1, abs((b->>k)::float8))
                       ELSE a->k = b->k END)
  FROM jsonb_object_keys(a) k
$$;

-- Regression, three stores and NULL; y NULL on some rows.
CREATE TABLE ps AS
SELECT i AS id,
       CASE WHEN i % 4 = 3 THEN NULL ELSE (ARRAY['north', 'south', 'east'])[1 + i % 4] END AS store,
       sin(i * 0.37)::float8 AS a, cos(i * 0.11)::float8 AS b,
       CASE WHEN i % 17 = 0 THEN NULL
            ELSE (sin(i * 0.37) * 2 + (i % 4) * 1.5 + cos(i * 0.11))::float8 END AS y
FROM generate_series(1, 800) i;
CREATE TEMP TABLE psm AS
SELECT gbdt_train('ps', 'y', params => '{"partition_by": "store", "num_round": 5, "max_depth": 3}') AS m;

SELECT ok((SELECT abs((gbdt_evaluate(m, 'ps', 'y')->'metrics'->>'rmse')::float8
                      - (SELECT sqrt(avg((gbdt_predict(psm.m, r) - y::real::float8) ^ 2)) FROM ps r WHERE y IS NOT NULL)) < 1e-12
           FROM psm),
          'pooled rmse is that of each row''s gbdt_predict (its key''s sub-model) over every row');
SELECT ok((SELECT abs((gbdt_evaluate(m, 'ps', 'y')->'metrics'->>'mae')::float8
                      - (SELECT avg(abs(gbdt_predict(psm.m, r) - y::real::float8)) FROM ps r WHERE y IS NOT NULL)) < 1e-12
           FROM psm),
          'pooled mae likewise');
SELECT is((SELECT gbdt_evaluate(m, 'ps', 'y')->'metrics'->'rows' FROM psm),
          (SELECT to_jsonb(count(y)) FROM ps), 'the pooled rows are every row with a target');
SELECT is((SELECT gbdt_evaluate(m, 'ps', 'y')->'metrics'->'rows_skipped' FROM psm),
          (SELECT to_jsonb(count(*) - count(y)) FROM ps), 'the pooled rows_skipped are the rows with a NULL target');
CREATE TEMP TABLE ps_east_null AS SELECT id, store, a, b, CASE WHEN store = 'east' THEN NULL ELSE y END AS y FROM ps;
SELECT is((SELECT array[e->'metrics'->'rows_skipped', to_jsonb(jsonb_array_length(e->'partitions'))]
           FROM psm, gbdt_evaluate(m, 'ps_east_null', 'y') e),
          (SELECT array[to_jsonb(count(*) - count(y)), '3'::jsonb] FROM ps_east_null),
          'a key whose every target is NULL: left out of the keys, its rows counted as skipped');
SELECT is((SELECT gbdt_evaluate(m, 'ps', 'y')->'metrics'->>'objective' FROM psm), 'reg:squarederror',
          'the pooled metrics name the objective');

-- Each key's metrics stay gbdt_evaluate of its sub-model on its rows.
CREATE TEMP VIEW ps_north AS SELECT * FROM ps WHERE store = 'north';
CREATE TEMP VIEW ps_null AS SELECT * FROM ps WHERE store IS NULL;
SELECT is((SELECT p->'metrics' FROM psm, jsonb_array_elements(gbdt_evaluate(m, 'ps', 'y')->'partitions') p WHERE p->'key' = '["north"]'),
          (SELECT gbdt_evaluate(gbdt_partition_model(m, ARRAY['north']), 'ps_north', 'y') FROM psm),
          'a key''s metrics are gbdt_evaluate of its sub-model on its rows');
SELECT is((SELECT p->'metrics' FROM psm, jsonb_array_elements(gbdt_evaluate(m, 'ps', 'y')->'partitions') p WHERE p->'key' = '[null]'),
          (SELECT gbdt_evaluate(gbdt_partition_model(m, ARRAY[NULL]::text[]), 'ps_null', 'y') FROM psm),
          'the NULL key''s metrics are its own sub-model''s on its rows');
SELECT throws_ok($$SELECT gbdt_evaluate(m, 'ps', 'y', 1.5) FROM psm$$, '22023',
                 'gbdt_evaluate: threshold 1.5 is outside [0, 1]', 'a threshold outside [0, 1] is an error');

-- Every key's sub-model the same model: the pooled metrics are that
-- model's gbdt_evaluate on the whole relation (binary, all its metrics;
-- labels 0/1, as an imported model has no class names).
CREATE TABLE pc AS
SELECT i AS id, (ARRAY['north', 'south', 'east'])[1 + i % 3] AS store, sin(i * 0.37)::float8 AS a,
       cos(i * 0.23)::float8 AS b,
       CASE WHEN sin(i * 0.37) + cos(i * 0.23) * 0.5 + (i % 3) * 0.2 > 0.2 THEN 1 ELSE 0 END AS label
FROM generate_series(1, 900) i;
CREATE TEMP TABLE pc_plain AS SELECT id, a, b, label FROM pc;
CREATE TEMP TABLE pcm AS
SELECT gbdt_train('pc', 'label', params => '{"partition_by": "store", "num_round": 4, "max_depth": 2, "objective": "binary:logistic"}') AS m,
       gbdt_train('pc_plain', 'label', params => '{"num_round": 4, "max_depth": 2, "objective": "binary:logistic"}') AS one;
CREATE TEMP TABLE pc_same AS
SELECT gbdt_import(jsonb_set(gbdt_export(m), '{models}',
         (SELECT jsonb_agg(x || jsonb_build_object('model', gbdt_export(one)))
          FROM jsonb_array_elements(gbdt_export(m)->'models') x))) AS m,
       gbdt_import(gbdt_export(one)) AS one
FROM pcm;
SELECT ok((SELECT pg_temp.same_metrics(gbdt_evaluate(m, 'pc', 'label')->'metrics', gbdt_evaluate(one, 'pc', 'label'), 1e-12)
           FROM pc_same),
          'pooled binary metrics equal gbdt_evaluate of the one model every key holds');
SELECT ok((SELECT pg_temp.same_metrics(gbdt_evaluate(m, 'pc', 'label', 0.7)->'metrics', gbdt_evaluate(one, 'pc', 'label', 0.7), 1e-12)
           FROM pc_same),
          'and at another threshold');
SELECT ok((SELECT pg_temp.same_metrics(gbdt_evaluate(m, 'ps', 'y')->'metrics', gbdt_evaluate(gbdt_partition_model(m, ARRAY['east']), 'ps', 'y'), 1e-12)
           FROM (SELECT gbdt_import(jsonb_set(gbdt_export(psm.m), '{models}',
                   (SELECT jsonb_agg(x || jsonb_build_object('model', gbdt_export(gbdt_partition_model(psm.m, ARRAY['east']))))
                    FROM jsonb_array_elements(gbdt_export(psm.m)->'models') x))) AS m FROM psm) s),
          'pooled regression metrics equal gbdt_evaluate of the one model every key holds');
CREATE TEMP VIEW pc_north AS SELECT * FROM pc WHERE store = 'north';
SELECT is((SELECT p->'metrics' FROM pcm, jsonb_array_elements(gbdt_evaluate(m, 'pc', 'label', 0.3)->'partitions') p WHERE p->'key' = '["north"]'),
          (SELECT gbdt_evaluate(gbdt_partition_model(m, ARRAY['north']), 'pc_north', 'label', 0.3) FROM pcm),
          'the threshold argument reaches each key''s metrics');
SELECT isnt((SELECT gbdt_evaluate(m, 'pc', 'label', 0.3)->'metrics'->'precision' FROM pcm),
            (SELECT gbdt_evaluate(m, 'pc', 'label')->'metrics'->'precision' FROM pcm),
            'and the pooled metrics');
SELECT is((SELECT gbdt_evaluate(m, 'pc', 'label')->'metrics'->>'objective' FROM pcm), 'binary:logistic',
          'sub-models of the same two classes pool as binary:logistic');

-- Keys that saw different classes: key 'a' two (binary:logistic), the
-- others three (multi:softprob): multiclass metrics over the union of the
-- classes, checked against each row's gbdt_predict_proba / _class.
CREATE TABLE pu AS
SELECT i AS id, (ARRAY['a', 'b', 'c'])[1 + i % 3] AS k, sin(i * 0.3)::float8 AS x, cos(i * 0.7)::float8 AS z,
       CASE WHEN i % 3 = 0 THEN (ARRAY['u', 'v'])[1 + (i / 3) % 2]
            ELSE (ARRAY['u', 'v', 'w'])[1 + (i / 3) % 3] END AS lab
FROM generate_series(1, 600) i;
CREATE TEMP TABLE pum AS
SELECT gbdt_train('pu', 'lab', ARRAY['x', 'z'], params => '{"partition_by": "k", "num_round": 3, "max_depth": 2}') AS m;
SELECT is((SELECT array_agg(gbdt_model_info(gbdt_partition_model(m, ARRAY[k]))->>'objective' ORDER BY k) FROM pum, (VALUES ('a'), ('b'), ('c')) v(k)),
          ARRAY['binary:logistic', 'multi:softprob', 'multi:softprob'], 'a key with two classes trains a binary sub-model');
CREATE TEMP TABLE pu_rows AS
SELECT r.lab AS y, gbdt_predict_class(pum.m, r) AS p,
       (SELECT probability FROM gbdt_predict_proba(pum.m, r) q WHERE q.class_name = r.lab) AS p_true
FROM pum, pu r;
SELECT is((SELECT gbdt_evaluate(m, 'pu', 'lab')->'metrics'->>'objective' FROM pum), 'multi:softprob',
          'binary and multiclass sub-models pool as multi:softprob');
SELECT ok((SELECT abs((gbdt_evaluate(m, 'pu', 'lab')->'metrics'->>'mlogloss')::float8
                      - (SELECT avg(-ln(greatest(p_true, 1e-15))) FROM pu_rows)) < 1e-12 FROM pum),
          'pooled mlogloss: each row''s probability of its class by its key''s sub-model');
SELECT ok((SELECT abs((gbdt_evaluate(m, 'pu', 'lab')->'metrics'->>'accuracy')::float8
                      - (SELECT avg((p = y)::int) FROM pu_rows)::float8) < 1e-12 FROM pum),
          'pooled accuracy: each row''s gbdt_predict_class');
SELECT ok((SELECT abs((gbdt_evaluate(m, 'pu', 'lab')->'metrics'->>'f1_macro')::float8
                      - (SELECT avg(2.0 * tp / (act + pred))::float8 FROM
                           (SELECT c, count(*) FILTER (WHERE y = c AND p = c) AS tp, count(*) FILTER (WHERE y = c) AS act,
                                   count(*) FILTER (WHERE p = c) AS pred
                            FROM pu_rows, (SELECT y AS c FROM pu_rows UNION SELECT p FROM pu_rows) u GROUP BY c) s)) < 1e-12
           FROM pum),
          'pooled f1_macro over the union of the classes (sklearn''s labels = y_true and y_pred)');

-- Multiclass sub-models of the same classes, each the one model: the
-- pooled metrics are that model's gbdt_evaluate.
CREATE TEMP TABLE pu3 AS SELECT id, k, x, z, (id / 3) % 3 AS lab FROM pu;
CREATE TEMP TABLE pu3m AS
SELECT gbdt_train('pu3', 'lab', ARRAY['x', 'z'], params => '{"partition_by": "k", "num_round": 3, "objective": "multi:softprob", "num_class": 3}') AS m,
       gbdt_train('pu3', 'lab', ARRAY['x', 'z'], params => '{"num_round": 3, "objective": "multi:softprob", "num_class": 3}') AS one;
SELECT ok((SELECT pg_temp.same_metrics(gbdt_evaluate(s.m, 'pu3', 'lab')->'metrics', gbdt_evaluate(s.one, 'pu3', 'lab'), 1e-12)
           FROM (SELECT gbdt_import(jsonb_set(gbdt_export(m), '{models}',
                   (SELECT jsonb_agg(x || jsonb_build_object('model', gbdt_export(one)))
                    FROM jsonb_array_elements(gbdt_export(m)->'models') x))) AS m,
                        gbdt_import(gbdt_export(one)) AS one FROM pu3m) s),
          'pooled multiclass metrics equal gbdt_evaluate of the one model every key holds');
SELECT throws_ok($$SELECT gbdt_evaluate(gbdt_train('pu3', 'lab', ARRAY['x', 'z'],
                          params => '{"partition_by": "k", "num_round": 2, "objective": "rank:ndcg", "group_column": "id"}'), 'pu3', 'lab')$$,
                 '22023', 'gbdt_evaluate: a rank:ndcg model is evaluated per query group: pass group_column',
                 'ranking sub-models: the ordinary refusal without group_column');

-- Binary models of different classes without probabilities do not pool.
CREATE TEMP TABLE pu2 AS
SELECT id, k, x, z, CASE WHEN k = 'a' THEN (ARRAY['u', 'v'])[1 + id % 2] ELSE (ARRAY['u', 'w'])[1 + id % 2] END AS lab FROM pu;
CREATE TEMP TABLE pu2m AS
SELECT gbdt_train('pu2', 'lab', ARRAY['x', 'z'], params => '{"partition_by": "k", "num_round": 2, "objective": "binary:logitraw"}') AS m;
SELECT is((SELECT gbdt_evaluate(m, 'pu2', 'lab') - 'partitions' - 'rows' FROM pu2m),
          '{"partitioned": true, "metrics": null, "rows_unscored": 0,
            "metrics_omitted": "the binary:logitraw models were trained on different classes: key k=a has [u, v], key k=b has [u, w]"}'::jsonb,
          'binary:logitraw sub-models of different classes: no pooled metrics, and why');
SELECT is((SELECT jsonb_array_length(gbdt_evaluate(m, 'pu2', 'lab')->'partitions') FROM pu2m), 3,
          'the per-key metrics are still given');

-- Two key columns (one of them NULL on some rows).
CREATE TABLE ps2 AS SELECT id, store, (id % 2 = 0) AS even, a, b, y FROM ps;
CREATE TEMP TABLE ps2m AS SELECT gbdt_train('ps2', 'y', params => '{"partition_by": ["store", "even"], "num_round": 3}') AS m;
CREATE TEMP VIEW ps2_null_t AS SELECT * FROM ps2 WHERE store IS NULL AND even;
SELECT is((SELECT p->'metrics' FROM ps2m, jsonb_array_elements(gbdt_evaluate(m, 'ps2', 'y')->'partitions') p WHERE p->'key' = '[null, "t"]'),
          (SELECT gbdt_evaluate(gbdt_partition_model(m, ARRAY[NULL, 't']), 'ps2_null_t', 'y') FROM ps2m),
          'two key columns: a key''s metrics are its sub-model''s on its rows');
SELECT ok((SELECT abs((gbdt_evaluate(m, 'ps2', 'y')->'metrics'->>'rmse')::float8
                      - (SELECT sqrt(avg((gbdt_predict(ps2m.m, r) - y::real::float8) ^ 2)) FROM ps2 r WHERE y IS NOT NULL)) < 1e-12
           FROM ps2m),
          'two key columns: the pooled rmse of each row''s gbdt_predict');

-- Fallbacks.
CREATE TEMP TABLE ps_new AS
SELECT * FROM ps UNION ALL
SELECT 9000 + i, 'west', 0.1 * i, 0.2, i::float8 FROM generate_series(1, 5) i;
CREATE TEMP TABLE psg AS
SELECT gbdt_train('ps', 'y', params => '{"partition_by": "store", "num_round": 3, "partition_fallback": "global"}') AS m;
SELECT ok((SELECT abs((gbdt_evaluate(m, 'ps_new', 'y')->'metrics'->>'rmse')::float8
                      - (SELECT sqrt(avg((gbdt_predict(psg.m, r) - y::real::float8) ^ 2)) FROM ps_new r WHERE y IS NOT NULL)) < 1e-12
           FROM psg),
          'fallback global: the pooled metrics take the unseen key''s rows as the global model predicts them');
SELECT is((SELECT gbdt_evaluate(m, 'ps_new', 'y')->'metrics'->'rows' FROM psg), (SELECT to_jsonb(count(y)) FROM ps_new),
          'fallback global: every row is pooled');
CREATE TEMP TABLE psn AS
SELECT gbdt_train('ps', 'y', params => '{"partition_by": "store", "num_round": 3, "partition_fallback": "null"}') AS m;
SELECT ok((SELECT abs((gbdt_evaluate(m, 'ps_new', 'y')->'metrics'->>'rmse')::float8
                      - (SELECT sqrt(avg((gbdt_predict(psn.m, r) - y::real::float8) ^ 2)) FROM ps_new r WHERE y IS NOT NULL)) < 1e-12
           FROM psn),
          'fallback null: the pooled metrics leave the unseen key''s rows out');
SELECT is((SELECT array[e->'metrics'->'rows', e->'rows_unscored'] FROM psn, gbdt_evaluate(m, 'ps_new', 'y') e),
          (SELECT array[to_jsonb(count(y) - 5), '5'::jsonb] FROM ps_new), 'fallback null: they are counted as rows_unscored');
SELECT throws_ok($$SELECT gbdt_evaluate(m, 'ps_new', 'y') FROM psm$$, 'P0002',
                 'the partitioned model has no sub-model for key store=west', 'fallback error: an unseen key is an error naming it');

-- Hostile relations.
CREATE TEMP TABLE ps_empty AS SELECT * FROM ps WHERE false;
SELECT is((SELECT gbdt_evaluate(m, 'ps_empty', 'y') FROM psm),
          '{"partitioned": true, "metrics": null, "metrics_omitted": "no row was scored", "partitions": [], "rows": 0, "rows_unscored": 0}'::jsonb,
          'an empty relation: no metrics, and why');
CREATE TEMP TABLE ps_int AS SELECT id, 1 AS store, a, b, y FROM ps;
SELECT throws_ok($$SELECT gbdt_evaluate(m, 'ps_int', 'y') FROM psm$$, '42804',
                 'partition_by key column "store" is of type integer, the model was trained on type text',
                 'gbdt_evaluate: a key column of another type is an error naming it');

-- A read-only transaction cannot make the temporary copy: a clear error
-- (read_only_error runs q read-only in a subtransaction it rolls back).
CREATE FUNCTION pg_temp.read_only_error(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    SET LOCAL transaction_read_only = on;
    EXECUTE q;
    RAISE EXCEPTION 'no error';
  EXCEPTION WHEN others THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
  END;
END $$;
SELECT is(pg_temp.read_only_error($$SELECT gbdt_evaluate(m, 'ps', 'y') FROM psm$$),
          '25006: gbdt_evaluate of a partitioned model copies the relation''s rows into a temporary table, which a read-only transaction cannot create',
          'a read-only transaction: an error that says why');
CREATE TEMP TABLE ps_clash AS SELECT id, store, a, b, y, 1 AS "gbdt row" FROM ps;
SELECT throws_ok($$SELECT gbdt_evaluate(m, 'ps_clash', 'y') FROM psm$$, '42701',
                 'relation "ps_clash" has a column "gbdt row", a name gbdt_evaluate of a partitioned model gives its copy of the rows',
                 'a column named as the copy''s own columns is an error naming it');
SELECT is((SELECT count(*) FROM pg_class WHERE relname LIKE 'gbdt\_partition\_eval\_%'), 0::bigint,
          'the temporary copy and views of gbdt_evaluate are gone after it');

-- gbdt_predict_proba_table: each row's gbdt_predict_proba.
SELECT is((SELECT count(*) FROM pum, gbdt_predict_proba_table(pum.m, 'pu', 'id') t JOIN pu r ON r.id::text = t.key
           JOIN LATERAL gbdt_predict_proba(pum.m, r) p ON p.class_name = t.class WHERE p.probability = t.probability),
          (SELECT count(*) FROM pum, pu r, gbdt_predict_proba(pum.m, r)),
          'gbdt_predict_proba_table gives each row its key''s sub-model''s probabilities');
SELECT is((SELECT count(*) FROM pum, gbdt_predict_proba_table(pum.m, 'pu', 'id')), 200 * 2 + 400 * 3::bigint,
          'one row per row and class of its own sub-model');
SELECT is((SELECT count(*) FROM pcm, gbdt_predict_proba_table(pcm.m, 'pc', 'id') t JOIN pc r ON r.id::text = t.key
           JOIN LATERAL gbdt_predict_proba(gbdt_partition_model(pcm.m, ARRAY[r.store]), r) p
             ON p.class_name = t.class AND p.probability = t.probability),
          1800::bigint, 'a binary sub-model''s rows are those of the key''s model');
CREATE TEMP TABLE pu_new AS SELECT * FROM pu WHERE id <= 6 UNION ALL SELECT 7000, 'zz', 0.5, 0.5, 'u';
SELECT throws_ok($$SELECT * FROM pum, gbdt_predict_proba_table(pum.m, 'pu_new', 'id')$$, 'P0002',
                 'the partitioned model has no sub-model for key k=zz', 'proba_table, fallback error: an unseen key is an error naming it');
CREATE TEMP TABLE pun AS
SELECT gbdt_train('pu', 'lab', ARRAY['x', 'z'], params => '{"partition_by": "k", "num_round": 2, "partition_fallback": "null"}') AS m;
SELECT is((SELECT count(*) FROM pun, gbdt_predict_proba_table(pun.m, 'pu_new', 'id') WHERE key = '7000'), 0::bigint,
          'proba_table, fallback null: no rows for an unseen key');
CREATE TEMP TABLE pug AS
SELECT gbdt_train('pu', 'lab', ARRAY['x', 'z'], params => '{"partition_by": "k", "num_round": 2, "partition_fallback": "global"}') AS m;
SELECT is((SELECT array_agg(t.class || ':' || t.probability ORDER BY t.class) FROM pug, gbdt_predict_proba_table(pug.m, 'pu_new', 'id') t WHERE key = '7000'),
          (SELECT array_agg(p.class_name || ':' || p.probability ORDER BY p.class_name) FROM pug, pu_new r, gbdt_predict_proba(gbdt_partition_model(pug.m, NULL), r) p WHERE r.id = 7000),
          'proba_table, fallback global: an unseen key gets the global model''s probabilities');
CREATE TEMP TABLE pu_int AS SELECT id, 7 AS k, x, z, lab FROM pu;
SELECT throws_ok($$SELECT * FROM pum, gbdt_predict_proba_table(pum.m, 'pu_int', 'id')$$, '42804',
                 'partition_by key column "k" is of type integer, the model was trained on type text',
                 'proba_table: a key column of another type is an error naming it');
SELECT throws_ok($$SELECT * FROM psm, gbdt_predict_proba_table(psm.m, 'ps', 'id')$$, '42809',
                 'gbdt_predict_proba_table: the model is not a classifier (objective reg:squarederror)',
                 'proba_table of a regression model per key is refused');
CREATE TEMP TABLE pu_empty AS SELECT * FROM pu WHERE false;
SELECT is((SELECT count(*) FROM pum, gbdt_predict_proba_table(pum.m, 'pu_empty', 'id')), 0::bigint,
          'proba_table of an empty relation: no rows');

-- gbdt_explain_interactions: the row's key's sub-model, as trained alone.
CREATE TEMP TABLE ps_north_alone AS SELECT id, a, b, y FROM ps WHERE store = 'north';
CREATE TEMP TABLE ps_alone AS SELECT gbdt_train('ps_north_alone', 'y', params => '{"num_round": 5, "max_depth": 3}') AS m;
SELECT is((SELECT array_agg(row(e.feature1, e.feature2, e.interaction, e.class)::text) FROM psm, ps r, gbdt_explain_interactions(psm.m, r) e WHERE r.id = 4),
          (SELECT array_agg(row(e.feature1, e.feature2, e.interaction, e.class)::text) FROM ps_alone a, ps r, gbdt_explain_interactions(a.m, r) e WHERE r.id = 4),
          'gbdt_explain_interactions explains a row with its key''s sub-model (as trained alone)');
SELECT is((SELECT array_agg(row(e.feature1, e.feature2, e.interaction, e.class)::text) FROM psm, ps r, gbdt_explain_interactions(psm.m, r) e WHERE r.id = 3),
          (SELECT array_agg(row(e.feature1, e.feature2, e.interaction, e.class)::text) FROM psm, ps r, gbdt_explain_interactions(gbdt_partition_model(psm.m, ARRAY[NULL]::text[]), r) e WHERE r.id = 3),
          'a NULL key''s row is explained by the NULL key''s sub-model');
SELECT is((SELECT count(*) FROM pum, pu r, gbdt_explain_interactions(pum.m, r) e
           JOIN gbdt_explain_interactions(gbdt_partition_model(pum.m, ARRAY[r.k]), r) q
             ON q.feature1 = e.feature1 AND q.feature2 = e.feature2 AND q.class IS NOT DISTINCT FROM e.class
           WHERE r.id <= 9 AND q.interaction = e.interaction),
          (SELECT count(*) FROM pum, pu r, gbdt_explain_interactions(gbdt_partition_model(pum.m, ARRAY[r.k]), r) WHERE r.id <= 9),
          'binary and multiclass sub-models: each row''s interactions are its sub-model''s');
SELECT throws_ok($$SELECT * FROM psm, ps_new r, gbdt_explain_interactions(psm.m, r) WHERE r.id = 9001$$, 'P0002',
                 'the partitioned model has no sub-model for key store=west', 'interactions, fallback error: an unseen key is an error naming it');
SELECT is((SELECT count(*) FROM psn, ps_new r, gbdt_explain_interactions(psn.m, r) WHERE r.id = 9001), 0::bigint,
          'interactions, fallback null: no rows for an unseen key');
SELECT is((SELECT array_agg(e.interaction) FROM psg, ps_new r, gbdt_explain_interactions(psg.m, r) e WHERE r.id = 9001),
          (SELECT array_agg(e.interaction) FROM psg, ps_new r, gbdt_explain_interactions(gbdt_partition_model(psg.m, NULL), r) e WHERE r.id = 9001),
          'interactions, fallback global: the global model explains an unseen key');
SELECT throws_ok($$SELECT * FROM psm, ps_int r, gbdt_explain_interactions(psm.m, r) WHERE r.id = 1$$, '42804',
                 'partition_by key column "store" is of type integer, the model was trained on type text',
                 'interactions: a key column of another type is an error naming it');

-- Functions without a routing refuse a partitioned model, naming themselves.
SELECT throws_ok($$SELECT * FROM psm, gbdt_feature_importance(psm.m)$$, '0A000',
                 'gbdt_feature_importance does not take a partitioned model (one sub-model per partition_by key)',
                 'gbdt_feature_importance refuses a partitioned model');
SELECT throws_ok($$SELECT * FROM psm, gbdt_feature_importance(psm.m, 'shap', 'ps')$$, '0A000',
                 'gbdt_feature_importance does not take a partitioned model (one sub-model per partition_by key)',
                 'the SHAP importance refuses a partitioned model');

SELECT * FROM finish();
ROLLBACK;
