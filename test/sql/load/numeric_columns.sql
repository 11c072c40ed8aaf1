-- numeric columns are read from their base-10000 digits when they have at
-- most 16 significant digits and a magnitude of 1e-22 .. 1e22
-- (extension/core/nbase_decimal.h, extension/pg/convert.cpp), else printed
-- and parsed as numeric -> float8 does.  Either way a value gives the
-- double of its float8 cast: a table of numeric columns trains the same
-- model bytes as its float8 copy, and scores the same.  The few-valued
-- column's values are cuts of the model (each distinct value starts a
-- bin), so a value decoded wrongly (sign, weight, digits) changes the
-- bytes; that each double is strtod's to the bit, unit test NbaseDecimal
-- checks (features are float4, which hides most one-ulp differences).
BEGIN;
SELECT plan(6);

CREATE TEMP TABLE n63 AS
SELECT i,
       (ARRAY[0.1, 0.3, 2.675, -7.5, 0, 1.0000000000000002, 9007199254740993, 123456789012.3456,
              0.000000000000000000000123, 1e25, -0.0000001, 33.333333333333333333, 1e-30,
              4503599627370497.5, 0.7])[1 + (i * 7) % 15]::numeric AS few,
       ((i * 37) % 1000)::numeric / 7 AS sevenths,                 -- 20 digits after the point
       round(((i * 7919) % 100003)::numeric / 1000, 3) AS money,
       (i % 97)::numeric AS whole,
       ((i * 2654435761) % 4294967291)::numeric * 1000000 AS big,
       CASE WHEN i % 11 = 0 THEN NULL WHEN i % 13 = 0 THEN 'NaN'::numeric
            ELSE ((i * 31) % 211)::numeric / 64 END AS holes,
       (((i * 7) % 15) * 0.25 + ((i * 37) % 1000) / 400.0 + (i % 97) / 50.0)::numeric(20, 6) AS y,
       (((i * 7) % 15) + (i % 97) / 10 > 12)::int AS yb
FROM generate_series(1, 4000) i;

CREATE TEMP TABLE f63 AS
SELECT i, few::float8 AS few, sevenths::float8 AS sevenths, money::float8 AS money, whole::float8 AS whole,
       big::float8 AS big, holes::float8 AS holes, y::float8 AS y, yb
FROM n63;

CREATE TEMP TABLE m63 AS
SELECT t, o, gbdt_train(t, tgt, ARRAY['few', 'sevenths', 'money', 'whole', 'big', 'holes'], o,
                        '{"num_round": 12, "max_depth": 4}') AS m
FROM (VALUES ('n63', 'y', 'reg:squarederror'), ('f63', 'y', 'reg:squarederror'),
             ('n63', 'yb', 'binary:logistic'), ('f63', 'yb', 'binary:logistic')) AS c(t, tgt, o);

SELECT is((SELECT m::text FROM m63 WHERE t = 'n63' AND o = 'reg:squarederror'),
          (SELECT m::text FROM m63 WHERE t = 'f63' AND o = 'reg:squarederror'),
          'numeric features and target: the model of the float8 copy, byte for byte');
SELECT is((SELECT m::text FROM m63 WHERE t = 'n63' AND o = 'binary:logistic'),
          (SELECT m::text FROM m63 WHERE t = 'f63' AND o = 'binary:logistic'),
          'numeric features, binary target: the same bytes');

-- The few-valued column keeps its 15 values as bins (NaN/NULL aside).
SELECT is((SELECT count(DISTINCT few)::int FROM f63), 15, 'the few-valued column has 15 float8 values');

-- Scoring rows of numeric columns gives the float8 rows' predictions.
SELECT is((SELECT array_agg(gbdt_predict((SELECT m FROM m63 WHERE t = 'n63' AND o = 'reg:squarederror'), n) ORDER BY i)
           FROM n63 n),
          (SELECT array_agg(gbdt_predict((SELECT m FROM m63 WHERE t = 'n63' AND o = 'reg:squarederror'), f) ORDER BY i)
           FROM f63 f),
          'gbdt_predict on numeric rows = on their float8 copies');
SELECT is((SELECT array_agg(prediction ORDER BY key::int)
           FROM gbdt_predict_table((SELECT m FROM m63 WHERE t = 'n63' AND o = 'binary:logistic'), 'n63', 'i')),
          (SELECT array_agg(prediction ORDER BY key::int)
           FROM gbdt_predict_table((SELECT m FROM m63 WHERE t = 'n63' AND o = 'binary:logistic'), 'f63', 'i')),
          'gbdt_predict_table on a numeric table = on its float8 copy');

-- A numeric beyond the float4 range is still an error naming the column.
CREATE TEMP TABLE b63 AS SELECT i, CASE WHEN i = 7 THEN 1e39 ELSE i END::numeric AS x, i % 2 AS y
FROM generate_series(1, 20) i;
SELECT throws_like($$SELECT gbdt_train('b63', 'y', ARRAY['x'])$$,
                   '%column "x" contains a value out of range for single precision%',
                   'a numeric above the float4 range: an error naming the column');

SELECT * FROM finish();
