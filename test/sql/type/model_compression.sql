-- A new model value (gbdt_train, gbdt_model_in, the import
-- functions) larger than a TOAST chunk comes out LZ4-compressed
-- (model_type.h: compressed_model_value), so storing it costs an LZ4 pass
-- instead of PostgreSQL's default pglz one.  The value is stored as given,
-- whatever default_toast_compression says; its text form, its predictions
-- and its inline use are those of the uncompressed bytes; a small model
-- stays as it is.
BEGIN;
SELECT plan(8);
SET LOCAL client_min_messages = warning;
SET LOCAL default_toast_compression = pglz;

CREATE TEMP TABLE t61_data AS
SELECT i AS id, sin(i * 0.37)::float8 AS f0, cos(i * 0.11)::float8 AS f1,
       ((i * 7919) % 101 / 100.0)::float8 AS f2,
       (sin(i * 0.37) + cos(i * 0.11) > 0.2)::int::float8 AS label
FROM generate_series(1, 600) i;

CREATE TEMP TABLE t61_models (k text PRIMARY KEY, m gbdt_model);
INSERT INTO t61_models
SELECT 'big', gbdt_train('t61_data', 'label', ARRAY['f0', 'f1', 'f2'], 'binary:logistic',
                         '{"num_round": 60, "max_depth": 5, "eta": 0.1}');
-- 20 rows: few cuts, a model of about a kilobyte.
CREATE TEMP TABLE t61_few AS SELECT * FROM t61_data WHERE id <= 20;
INSERT INTO t61_models
SELECT 'small', gbdt_train('t61_few', 'label', ARRAY['f0', 'f1', 'f2'], 'binary:logistic',
                           '{"num_round": 1, "max_depth": 1}');
-- Through the text form: gbdt_model_in makes a new value too.
INSERT INTO t61_models SELECT 'text', (m::text)::gbdt_model FROM t61_models WHERE k = 'big';

-- A server built without LZ4 (--without-lz4: the PyPI builds of 16 and 18)
-- stores the model as given, uncompressed: the three LZ4 checks are skipped
-- there, with the reason; the rest hold on every server.
SELECT 'lz4' = ANY (enumvals) AS has_lz4 FROM pg_settings WHERE name = 'default_toast_compression' \gset
\if :has_lz4
SELECT is((SELECT pg_column_compression(m) FROM t61_models WHERE k = 'big'), 'lz4',
          'a trained model is stored LZ4-compressed although default_toast_compression is pglz');
SELECT is((SELECT pg_column_compression(m) FROM t61_models WHERE k = 'text'), 'lz4',
          'a model read from its text form is stored LZ4-compressed');
SELECT ok((SELECT pg_column_size(m) < length(m::text) * 3 / 4 * 3 / 4 FROM t61_models WHERE k = 'big'),
          'the stored value is smaller than its bytes');
\else
SELECT skip('the server is built without LZ4 (default_toast_compression offers no lz4)', 3);
\endif
SELECT ok((SELECT pg_column_compression(m) IS NULL AND pg_column_size(m) < 2000
           FROM t61_models WHERE k = 'small'),
          'a model under a TOAST chunk is left uncompressed');
SELECT is((SELECT m::text FROM t61_models WHERE k = 'text'),
          (SELECT m::text FROM t61_models WHERE k = 'big'),
          'the text form of the compressed value is the model''s');

-- Predictions: stored and compressed, inline (never stored), and the
-- decoded model of the same text all agree.
SELECT is((SELECT count(*) FROM t61_data d
           WHERE gbdt_predict((SELECT m FROM t61_models WHERE k = 'big'), d)
                 IS DISTINCT FROM gbdt_predict((SELECT m FROM t61_models WHERE k = 'text'), d)),
          0::bigint, 'the stored model and its text copy predict the same');
SELECT is((SELECT count(*) FROM t61_data d,
                  (SELECT gbdt_train('t61_data', 'label', ARRAY['f0', 'f1', 'f2'], 'binary:logistic',
                                     '{"num_round": 60, "max_depth": 5, "eta": 0.1}') AS m) fresh
           WHERE gbdt_predict(fresh.m, d)
                 IS DISTINCT FROM gbdt_predict((SELECT m FROM t61_models WHERE k = 'big'), d)),
          0::bigint, 'an inline (compressed, never stored) model predicts as the stored one');
SELECT is((SELECT count(*) FROM gbdt_predict_table((SELECT m FROM t61_models WHERE k = 'text'),
                                                   't61_data', 'id') p
           JOIN t61_data d ON d.id = p.key::int
           WHERE p.prediction IS DISTINCT FROM
                 gbdt_predict((SELECT m FROM t61_models WHERE k = 'big'), d)),
          0::bigint, 'gbdt_predict_table on the compressed model matches gbdt_predict');

SELECT * FROM finish();
ROLLBACK;
