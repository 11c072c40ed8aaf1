-- Categorical and array features in scoring and validation: gbdt_predict_table and
-- gbdt_evaluate read array features (one feature per element) and
-- categorical text/enum/bool features through the model's dictionaries;
-- gbdt_evaluate takes a text/enum/bool target for a model trained on class
-- names and maps numeric class labels (0/10/20 trained as 3 classes) as the
-- training did; a validation_relation reads categorical columns through the
-- training's dictionaries (a value not seen in training scores as in
-- gbdt_predict), array columns, text targets through the class names and
-- numeric class labels through the training's values.  Every bad input is
-- an error naming the column and the value.
BEGIN;
SELECT plan(40);

CREATE TYPE size48 AS ENUM ('s', 'm', 'l');
CREATE TABLE g48 (id serial PRIMARY KEY, colour text, sz size48, flag bool, x float8,
                  emb float8[], e4 real[], y float8, ya float8, lab text, lab3 text,
                  c10 int, c12 int, b bool, k int);
INSERT INTO g48 (colour, sz, flag, x, emb, e4, lab3, c10, c12, b, k)
SELECT (ARRAY['red', 'red', 'red', 'green', 'green', 'blue'])[1 + i % 6],
       (ARRAY['s', 'm', 'l']::size48[])[1 + (i / 7) % 3], i % 4 = 0, (i % 11) * 0.3,
       ARRAY[(i % 7) * 1.0, (i % 5) * 0.5, (i % 3) - 1.0]::float8[],
       ARRAY[(i % 4)::real, (i % 9)::real],
       (ARRAY['a', 'b', 'c'])[1 + (i % 7) % 3], 10 * ((i % 7) % 3), 1 + (i % 7 > 3)::int,
       i % 7 > 2, 7
FROM generate_series(1, 600) i;
UPDATE g48 SET y = CASE colour WHEN 'blue' THEN 8 ELSE 0 END + CASE sz WHEN 'l' THEN 3 ELSE 0 END
                   + flag::int * 2 + x,
               ya = emb[1] * 2 + emb[2] - e4[2] * 0.5,
               lab = CASE WHEN colour = 'blue' OR flag THEN 'yes' ELSE 'no' END;
-- A NULL array and a NULL element are missing values.
UPDATE g48 SET emb = NULL WHERE id = 5;
UPDATE g48 SET emb[2] = NULL WHERE id = 6;
ANALYZE g48;

CREATE TEMP TABLE m48 (k text PRIMARY KEY, m gbdt_model);
INSERT INTO m48 VALUES
  ('arr', gbdt_train('g48', 'ya', ARRAY['emb', 'e4', 'x'], NULL, '{"num_round": 20}')),
  ('cat', gbdt_train('g48', 'y', ARRAY['colour', 'sz', 'flag', 'x'], NULL, '{"num_round": 20}')),
  ('bin', gbdt_train('g48', 'lab', ARRAY['colour', 'flag', 'x'], NULL, '{"num_round": 5}')),
  ('multi', gbdt_train('g48', 'lab3', ARRAY['emb', 'x'], NULL, '{"num_round": 5}')),
  ('enum', gbdt_train('g48', 'sz', ARRAY['emb', 'x'], NULL, '{"num_round": 5}')),
  ('bool', gbdt_train('g48', 'b', ARRAY['emb'], NULL, '{"num_round": 5}')),
  ('c10', gbdt_train('g48', 'c10', ARRAY['emb'], 'multi:softprob', '{"num_round": 5}')),
  ('c12', gbdt_train('g48', 'c12', ARRAY['emb'], 'binary:logistic', '{"num_round": 5}')),
  ('rank', gbdt_train('g48', 'c12', ARRAY['emb', 'x'], 'rank:ndcg',
                      '{"num_round": 3, "group_column": "colour"}'));
CREATE FUNCTION pg_temp.m(text) RETURNS gbdt_model LANGUAGE sql AS $$ SELECT m FROM m48 WHERE k = $1 $$;

-- ---- 1. array features in gbdt_predict_table and gbdt_evaluate ----
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('arr'), 'g48', 'id') p
           JOIN g48 g ON g.id::text = p.key
           WHERE p.prediction = gbdt_predict(pg_temp.m('arr'), g)), 600,
          'gbdt_predict_table expands array columns as gbdt_predict does (NULL arrays and elements too)');
CREATE VIEW g48_view AS SELECT * FROM g48;
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('arr'), 'g48_view', 'id') p
           JOIN g48 g ON g.id::text = p.key
           WHERE p.prediction = gbdt_predict(pg_temp.m('arr'), g)), 600,
          'gbdt_predict_table on a view (query path) expands array columns');
SELECT ok((SELECT abs((gbdt_evaluate(pg_temp.m('arr'), 'g48', 'ya')->>'rmse')::float8
                      - sqrt(avg((gbdt_predict(pg_temp.m('arr'), g) - g.ya) ^ 2))) < 1e-9
           FROM g48 g),
          'gbdt_evaluate expands array columns: its rmse is that of gbdt_predict');
SELECT is((gbdt_evaluate(pg_temp.m('arr'), 'g48_view', 'ya')->>'rows')::int, 600,
          'gbdt_evaluate on a view with array columns: every row');
CREATE TABLE g48_short AS SELECT * FROM g48 WHERE id <= 10;
UPDATE g48_short SET emb = ARRAY[1, 2]::float8[] WHERE id = 7;
SELECT throws_like($$SELECT count(*) FROM gbdt_predict_table(pg_temp.m('arr'), 'g48_short', 'id')$$,
                   '%array column "emb" has a row of length 2, expected 3%',
                   'gbdt_predict_table: an array of the wrong length names the column and both lengths');
CREATE TABLE g48_long AS SELECT * FROM g48 WHERE id <= 10;
UPDATE g48_long SET e4 = ARRAY[1, 2, 3]::real[] WHERE id = 3;
SELECT throws_like($$SELECT gbdt_evaluate(pg_temp.m('arr'), 'g48_long', 'ya')$$,
                   '%array column "e4" has a row of length 3, expected 2%',
                   'gbdt_evaluate: a float4[] of the wrong length names the column and both lengths');
SELECT throws_like($$SELECT gbdt_predict(pg_temp.m('arr'), g) FROM g48_long g WHERE id = 3$$,
                   '%array column "e4" has a row of length 3, expected 2%',
                   'gbdt_predict(row): the same error');
CREATE VIEW g48_textemb AS SELECT id, emb::text AS emb, e4, x, ya FROM g48;
SELECT throws_like($$SELECT count(*) FROM gbdt_predict_table(pg_temp.m('arr'), 'g48_textemb', 'id')$$,
                   '%column "emb" has type text, but the model''s feature "emb[1]" is an element of an array column%',
                   'a column of another type for an array feature: named');
CREATE VIEW g48_noemb AS SELECT id, e4, x, ya FROM g48;
SELECT throws_like($$SELECT gbdt_evaluate(pg_temp.m('arr'), 'g48_noemb', 'ya')$$,
                   '%relation "g48_noemb" has no column "emb" required by the model%',
                   'a missing array column: named');

SELECT ok((SELECT max(abs(e.s - gbdt_predict(pg_temp.m('arr'), g))) < 1e-5
           FROM g48 g JOIN (SELECT key, sum(contribution) AS s
                            FROM gbdt_explain_table(pg_temp.m('arr'), 'g48', 'id') GROUP BY key) e
                ON e.key = g.id::text),
          'gbdt_explain_table expands array columns: the contributions add up to gbdt_predict');
SELECT is((gbdt_evaluate(pg_temp.m('rank'), 'g48', 'c12', 'colour')->>'rows')::int, 600,
          'gbdt_evaluate with group_column expands array columns');

-- The default feature list leaves constant columns out, but never an array
-- element: the elements' positions give the array's length when scoring.
CREATE TABLE g48_const AS SELECT id, ARRAY[emb[1], 1, emb[3]]::float8[] AS emb, x, ya FROM g48;
INSERT INTO m48 VALUES ('const', gbdt_train('g48_const', 'ya', NULL, NULL, '{"num_round": 3}'));
SELECT is((SELECT array_agg(f->>'name' ORDER BY o) FROM jsonb_array_elements(gbdt_model_info(pg_temp.m('const'))->'features') WITH ORDINALITY a(f, o)),
          ARRAY['emb[1]', 'emb[2]', 'emb[3]', 'x'],
          'a constant array element stays a feature (the default list drops constant columns and the unique id)');
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('const'), 'g48_const', 'id') p
           JOIN g48_const g ON g.id::text = p.key
           WHERE p.prediction = gbdt_predict(pg_temp.m('const'), g)), 600,
          'a model with a constant array element scores its training table');

-- ---- text, enum and bool categorical features ----
SELECT is((SELECT array_agg(f->>'type' ORDER BY o) FROM jsonb_array_elements(gbdt_model_info(pg_temp.m('cat'))->'features') WITH ORDINALITY a(f, o)),
          ARRAY['categorical', 'categorical', 'categorical', 'float'],
          'text, enum and bool features are categorical');
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('cat'), 'g48', 'id') p
           JOIN g48 g ON g.id::text = p.key
           WHERE p.prediction = gbdt_predict(pg_temp.m('cat'), g)), 600,
          'gbdt_predict_table reads text, enum and bool categories as gbdt_predict does');
CREATE VIEW g48_unseen AS
SELECT id, CASE WHEN id % 10 = 0 THEN 'purple' ELSE colour END AS colour, sz, flag, x, y FROM g48;
SELECT is((SELECT count(*)::int FROM gbdt_predict_table(pg_temp.m('cat'), 'g48_unseen', 'id') p
           JOIN g48_unseen g ON g.id::text = p.key
           WHERE p.prediction = gbdt_predict(pg_temp.m('cat'), g)), 600,
          'a category never seen in training: gbdt_predict_table scores it as gbdt_predict');
SELECT ok((SELECT abs((gbdt_evaluate(pg_temp.m('cat'), 'g48_unseen', 'y')->>'rmse')::float8
                      - sqrt(avg((gbdt_predict(pg_temp.m('cat'), g) - g.y::real) ^ 2))) < 1e-9
           FROM g48_unseen g),
          'gbdt_evaluate reads the categories (unseen ones too) as gbdt_predict');

-- ---- 2. gbdt_evaluate with class-name targets ----
CREATE VIEW g48_idx AS
SELECT g.*, (lab = 'yes')::int AS lab01, array_position(ARRAY['a', 'b', 'c'], lab3) - 1 AS lab3i,
       array_position(enum_range(NULL::size48), sz) - 1 AS szi, b::int AS bi
FROM g48 g;
SELECT is(gbdt_evaluate(pg_temp.m('bin'), 'g48', 'lab'), gbdt_evaluate(pg_temp.m('bin'), 'g48_idx', 'lab01'),
          'binary text target: the labels are looked up in the class names');
SELECT is(gbdt_evaluate(pg_temp.m('multi'), 'g48', 'lab3'), gbdt_evaluate(pg_temp.m('multi'), 'g48_idx', 'lab3i'),
          'multiclass text target: the labels are looked up in the class names');
SELECT is(gbdt_evaluate(pg_temp.m('enum'), 'g48', 'sz'), gbdt_evaluate(pg_temp.m('enum'), 'g48_idx', 'szi'),
          'enum target: the labels are looked up in the class names');
SELECT is(gbdt_evaluate(pg_temp.m('bool'), 'g48', 'b'), gbdt_evaluate(pg_temp.m('bool'), 'g48_idx', 'bi'),
          'bool target: false and true are the classes');
CREATE VIEW g48_badlab AS
SELECT colour, flag, x, CASE WHEN id = 9 THEN 'maybe' ELSE lab END AS lab, emb,
       CASE WHEN id = 9 THEN 5 ELSE c10 END AS c10 FROM g48;
SELECT throws_like($$SELECT gbdt_evaluate(pg_temp.m('bin'), 'g48_badlab', 'lab')$$,
                   '%target column "lab" has value ''maybe'', which is not a class of the model%',
                   'an unknown text label: named');
SELECT throws_like($$SELECT gbdt_evaluate(pg_temp.m('cat'), 'g48', 'lab')$$,
                   '%target column "lab" is text, but the model (objective reg:squarederror) was trained on a numeric target%',
                   'a text target for a regression: refused, naming the column');
SELECT ok((SELECT abs((gbdt_evaluate(pg_temp.m('c10'), 'g48', 'c10')->>'mlogloss')::float8
                      - avg(-ln(greatest(p.probability, 1e-15)))) < 1e-9
           FROM g48 g, gbdt_predict_proba(pg_temp.m('c10'), g) p WHERE p.class = g.c10),
          'labels 0/10/20 trained as 3 classes: gbdt_evaluate maps them the same way (mlogloss)');
SELECT ok((SELECT abs((gbdt_evaluate(pg_temp.m('c10'), 'g48', 'c10')->>'accuracy')::float8
                      - avg((gbdt_predict(pg_temp.m('c10'), g) = g.c10)::int)) < 1e-12
           FROM g48 g),
          'labels 0/10/20: accuracy as gbdt_predict''s class labels');
SELECT throws_like($$SELECT gbdt_evaluate(pg_temp.m('c10'), 'g48_badlab', 'c10')$$,
                   '%target column "c10" has value 5, which is not a class of the model%',
                   'a numeric label that is not a class: named');
SELECT ok((SELECT abs((gbdt_evaluate(pg_temp.m('c12'), 'g48', 'c12')->>'accuracy')::float8
                      - avg(((gbdt_predict(pg_temp.m('c12'), g) > 0.5) = (g.c12 = 2))::int)) < 1e-12
           FROM g48 g),
          'binary labels 1/2: 2 is the positive class in gbdt_evaluate too');

-- ---- 3. validation_relation ----
-- Validation rows: every fifth row, and rows with a colour never seen in
-- training ('purple'; scored as gbdt_predict scores it).
CREATE VIEW v48 AS
SELECT colour, sz, flag, x, emb, e4, y, ya, lab, c10 FROM g48 WHERE id % 5 = 0
UNION ALL
SELECT 'purple', sz, flag, x, emb, e4, y, ya, lab, c10 FROM g48 WHERE id % 5 = 1;
CREATE TEMP TABLE mv48 AS
SELECT gbdt_train('g48', 'y', ARRAY['colour', 'sz', 'flag', 'x'], NULL,
                  '{"num_round": 6, "validation_relation": "v48"}') AS cat,
       gbdt_train('g48', 'lab', ARRAY['colour', 'flag', 'x'], NULL,
                  '{"num_round": 4, "validation_relation": "v48"}') AS txt,
       gbdt_train('g48', 'c10', ARRAY['emb'], 'multi:softprob',
                  '{"num_round": 3, "validation_relation": "v48"}') AS c10,
       gbdt_train('g48', 'ya', ARRAY['emb', 'e4', 'x'], NULL,
                  '{"num_round": 4, "validation_relation": "v48"}') AS arr;
SELECT is((SELECT (gbdt_model_info(cat)->>'rows_validation')::int FROM mv48), 240,
          'validation_relation with categorical features: every row with a target');
SELECT ok((SELECT abs((gbdt_model_info(cat)->'validation_history'->>5)::float8
                      - (gbdt_evaluate(cat, 'v48', 'y')->>'rmse')::float8) < 1e-5 FROM mv48),
          'categorical validation rows (unseen values too) score as gbdt_evaluate scores them');
SELECT ok((SELECT abs((gbdt_model_info(txt)->'validation_history'->>3)::float8
                      - (gbdt_evaluate(txt, 'v48', 'lab')->>'logloss')::float8) < 1e-5 FROM mv48),
          'a text target in the validation_relation: looked up in the training''s classes');
SELECT ok((SELECT abs((gbdt_model_info(c10)->'validation_history'->>2)::float8
                      - (gbdt_evaluate(c10, 'v48', 'c10')->>'mlogloss')::float8) < 1e-5 FROM mv48),
          'labels 0/10/20 in the validation_relation: mapped as the training''s');
SELECT ok((SELECT abs((gbdt_model_info(arr)->'validation_history'->>3)::float8
                      - (gbdt_evaluate(arr, 'v48', 'ya')->>'rmse')::float8) < 1e-5 FROM mv48),
          'array columns in the validation_relation: expanded as the training''s');
SELECT throws_like($$SELECT gbdt_train('g48', 'lab', ARRAY['colour', 'x'], NULL,
                                       '{"num_round": 2, "validation_relation": "g48_badlab"}')$$,
                   '%target column "lab" of validation_relation "g48_badlab" has value ''maybe'', which is not a class of the training%',
                   'validation_relation: an unknown text label is named');
SELECT throws_like($$SELECT gbdt_train('g48', 'c10', ARRAY['emb'], 'multi:softprob',
                                       '{"num_round": 2, "validation_relation": "g48_badlab"}')$$,
                   '%target column "c10" of validation_relation "g48_badlab" has value 5, which is not a class of the training%',
                   'validation_relation: a numeric label that is not a class is named');
SELECT throws_like($$SELECT gbdt_train('g48', 'ya', ARRAY['emb', 'e4'], NULL,
                                       '{"num_round": 2, "validation_relation": "g48_short"}')$$,
                   '%array column "emb" has a row of length 2, expected 3%',
                   'validation_relation: an array of the wrong length is named');
CREATE VIEW g48_nocolour AS SELECT x, y FROM g48;
SELECT throws_like($$SELECT gbdt_train('g48', 'y', ARRAY['colour', 'x'], NULL,
                                       '{"num_round": 2, "validation_relation": "g48_nocolour"}')$$,
                   '%feature column "colour" of the training does not exist in validation_relation "g48_nocolour"%',
                   'validation_relation: a missing categorical column is named');
CREATE VIEW g48_numcolour AS SELECT id::float8 AS colour, x, y FROM g48;
SELECT throws_like($$SELECT gbdt_train('g48', 'y', ARRAY['colour', 'x'], NULL,
                                       '{"num_round": 2, "validation_relation": "g48_numcolour"}')$$,
                   '%column "colour" has type double precision, but the model''s feature "colour" is categorical%',
                   'validation_relation: a numeric column for a categorical feature is named');
CREATE VIEW g48_textlab AS SELECT colour, flag, x, lab AS c10, emb FROM g48;
SELECT throws_like($$SELECT gbdt_train('g48', 'c10', ARRAY['emb'], 'multi:softprob',
                                       '{"num_round": 2, "validation_relation": "g48_textlab"}')$$,
                   '%target column "c10" of validation_relation "g48_textlab" is text, but the training''s target is numeric%',
                   'validation_relation: a text target for a numeric one is refused');
-- The default feature list leaves constant columns out (k here): the
-- validation rows have the training's features.
CREATE VIEW g48_def AS SELECT colour, x, k, y FROM g48;
SELECT is((SELECT (gbdt_model_info(gbdt_train('g48_def', 'y', NULL, NULL,
                   '{"num_round": 2, "validation_relation": "g48_def"}'))->>'rows_validation')::int),
          600, 'validation_relation with a constant column left out of the default features');
SELECT is((SELECT (gbdt_model_info(gbdt_train('g48', 'b', ARRAY['emb'], NULL,
                   '{"num_round": 2, "validation_relation": "g48"}'))->>'rows_validation')::int),
          600, 'a bool target in the validation_relation');

SELECT * FROM finish();
ROLLBACK;
