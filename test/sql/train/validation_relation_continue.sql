-- The user's own validation rows (params {"validation_relation": ...},
-- XGBoost's evals), the rows the hashed validation_fraction holds out
-- (gbdt_validation_row), continued training (gbdt_train(..., init_model =>
-- m), XGBoost's xgb_model) and the registry's retrain from the deployed
-- version (gbdt_retrain(name, continue_from_deployed => true)), with the
-- errors that name the parameter or column at fault.
BEGIN;
SELECT plan(50);

CREATE TABLE vc_train AS
SELECT sin(i)::float8 AS x1, cos(i * 0.7)::float8 AS x2, ((i * 37) % 11)::float8 AS x3,
       (2 * sin(i) + cos(i * 0.7) * ((i * 37) % 11) / 5.0)::float8 AS y
FROM generate_series(1, 3000) i;
-- Validation rows: other rows, one column order changed, an extra column,
-- a NULL target (skipped).
CREATE TABLE vc_val AS
SELECT (2 * sin(i) + cos(i * 0.7) * ((i * 37) % 11) / 5.0)::float8 AS y, 'x' AS note,
       ((i * 37) % 11)::float8 AS x3, cos(i * 0.7)::float8 AS x2, sin(i)::float8 AS x1
FROM generate_series(5001, 5600) i;
INSERT INTO vc_val VALUES (NULL, 'null target', 1, 2, 3);
CREATE VIEW vc_val_view AS SELECT * FROM vc_val WHERE x3 < 5;
CREATE TABLE vc_val_nox3 AS SELECT y, x1, x2 FROM vc_val;
CREATE TABLE vc_val_noy AS SELECT x1, x2, x3 FROM vc_val;

-- ---- validation_relation ----
CREATE TEMP TABLE vm AS
SELECT gbdt_train('vc_train', 'y', ARRAY['x1', 'x2', 'x3'], NULL,
                  '{"num_round": 8, "max_depth": 3, "validation_relation": "vc_val"}') AS m;
SELECT is((SELECT (gbdt_model_info(m)->>'rows_validation')::int FROM vm), 600,
          'rows_validation: the validation relation''s rows with a target');
SELECT is((SELECT (gbdt_model_info(m)->>'rows_used')::int FROM vm), 3000,
          'every training row trains (no hashed split)');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'validation_relation' FROM vm), 'public.vc_val',
          'the model records the validation relation, schema-qualified');
SELECT is((SELECT jsonb_array_length(gbdt_model_info(m)->'validation_history') FROM vm), 8,
          'one validation value per round');
SELECT ok((SELECT abs((gbdt_model_info(m)->'validation_history'->>7)::float8
                      - (gbdt_evaluate(m, 'vc_val', 'y')->>'rmse')::float8) < 1e-5 FROM vm),
          'the last validation rmse is gbdt_evaluate''s rmse on the validation relation');
SELECT is((SELECT (gbdt_model_info(gbdt_train('vc_train', 'y', ARRAY['x1', 'x2', 'x3'], NULL,
                  '{"num_round": 3, "validation_relation": "vc_val_view"}'))->>'rows_validation')::int),
          (SELECT count(*)::int FROM vc_val_view WHERE y IS NOT NULL), 'a view as validation relation');
SELECT ok((SELECT (gbdt_model_info(gbdt_train('vc_train', 'y', NULL, NULL,
                  '{"num_round": 300, "eta": 1, "max_depth": 8, "validation_relation": "vc_val", "early_stopping_rounds": 2}'))->>'rounds')::int < 300),
          'early_stopping_rounds works with a validation relation');
SELECT is((SELECT gbdt_model_info(m)->'params'->>'validation_relation'
           FROM (SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 2}') AS m) s), NULL,
          'no validation_relation recorded without one');

-- ---- errors: each names the parameter or the column ----
SELECT throws_ok($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"validation_relation": "vc_nope"}')$$,
                 '42P01', 'relation "vc_nope" of parameter "validation_relation" does not exist',
                 'a validation relation that does not exist');
SELECT throws_ok($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"validation_relation": "vc_val_nox3"}')$$,
                 '42703', 'feature column "x3" of the training does not exist in validation_relation "vc_val_nox3"',
                 'a validation relation without a feature column');
SELECT throws_ok($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"validation_relation": "vc_val_noy"}')$$,
                 '42703', 'target column "y" of the training does not exist in validation_relation "vc_val_noy"',
                 'a validation relation without the target');
SELECT throws_ok($$SELECT gbdt_train('vc_train', 'y', NULL, NULL,
                   '{"validation_relation": "vc_val", "validation_fraction": 0.2}')$$,
                 '22023', 'parameters "validation_relation" and "validation_fraction" both choose the validation rows: give only one of them',
                 'validation_relation and validation_fraction together');
SELECT throws_like($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"validation_relation": 7}')$$,
                   '%"validation_relation" must be a relation name%', 'validation_relation must be a string');
SELECT throws_like($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 2, "early_stopping_rounds": 2}')$$,
                   '%needs validation_fraction > 0 or a validation_relation%', 'early stopping without validation rows');
-- The caller's privileges: a role that may read the training rows but not
-- the validation relation.
CREATE ROLE gbdt_vc_bob NOLOGIN;
GRANT SELECT ON vc_train TO gbdt_vc_bob;
GRANT SELECT ON gbdt_models, gbdt_model_names TO gbdt_vc_bob;
CREATE FUNCTION pg_temp.as_bob(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
  PERFORM set_config('role', 'gbdt_vc_bob', true);
  EXECUTE q INTO v;
  PERFORM set_config('role', 'none', true);
  RETURN v;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT is(pg_temp.as_bob($q$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 2, "validation_relation": "vc_val"}')::text$q$),
          '42501: permission denied for table vc_val', 'the validation relation is read with the caller''s privileges');
SELECT is(left(pg_temp.as_bob($q$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 2}')::text$q$), 6),
          'gbdt1:', 'the same role trains without it');

-- ---- the rows validation_fraction holds out ----
SELECT is((SELECT count(*)::int FROM generate_series(0, 2999) i WHERE gbdt_validation_row(i, 0.25, 7)),
          (SELECT (gbdt_model_info(gbdt_train('vc_train', 'y', NULL, NULL,
                     '{"num_round": 2, "validation_fraction": 0.25, "seed": 7}'))->>'rows_validation')::int),
          'gbdt_validation_row selects as many rows as the training held out');
-- The documented query: row numbers in the order the table is read.
CREATE TEMP TABLE vc_pick AS
SELECT t.*, gbdt_validation_row(row_number() OVER () - 1, 0.25, 7) AS is_val
FROM (SELECT * FROM vc_train ORDER BY ctid) t;
SELECT ok((SELECT abs((gbdt_model_info(gbdt_train('vc_train', 'y', ARRAY['x1', 'x2', 'x3'], NULL,
                  '{"num_round": 1, "validation_fraction": 0.25, "seed": 7}'))->>'base_score')::float8
                  - (SELECT avg(y) FROM vc_pick WHERE NOT is_val)) < 1e-6),
          'the hashed split trained on exactly the rows gbdt_validation_row leaves (base_score = their mean label)');
SELECT is(gbdt_validation_row(5, 0, 0), false, 'fraction 0: no validation rows');
SELECT throws_like($$SELECT gbdt_validation_row(1, 1.5, 0)$$, '%"validation_fraction" = 1.5 is out of range%',
                   'gbdt_validation_row checks the fraction');
SELECT throws_like($$SELECT gbdt_validation_row(-1, 0.2, 0)$$, '%ordinal = -1 is out of range%',
                   'gbdt_validation_row checks the row number');

-- ---- continued training ----
CREATE TEMP TABLE cm AS
SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 10, "max_depth": 3, "subsample": 0.8, "seed": 3}') AS m10,
       gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 20, "max_depth": 3, "subsample": 0.8, "seed": 3}') AS m20;
ALTER TABLE cm ADD COLUMN c20 gbdt_model;
UPDATE cm SET c20 = gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 10, "max_depth": 3, "subsample": 0.8, "seed": 3}',
                               init_model => m10);
SELECT is((SELECT (gbdt_model_info(c20)->>'rounds')::int FROM cm), 20, '10 rounds continued by 10: 20 rounds');
SELECT is((SELECT count(*)::int FROM cm, vc_val v WHERE gbdt_predict(c20, v) IS DISTINCT FROM gbdt_predict(m20, v)), 0,
          '10 + 10 rounds predict exactly as 20 rounds at once (same rows, same cuts)');
SELECT is((SELECT gbdt_model_info(c20)->'params'->>'init_model_rounds' FROM cm), '10',
          'the model records the init model''s rounds');
SELECT is((SELECT count(*)::int FROM cm, vc_val v WHERE gbdt_predict(m10, v) IS DISTINCT FROM gbdt_predict(c20, v)), 601,
          'the continued model differs from its init model');
-- The objective is the init model's (none given); a view (read through SPI).
CREATE VIEW vc_train_view AS SELECT * FROM vc_train WHERE x3 < 8;
SELECT is((SELECT gbdt_model_info(gbdt_train('vc_train_view', 'y', NULL, NULL, '{"num_round": 2}', m10))->>'objective' FROM cm),
          'reg:squarederror', 'continuing on a view; the objective is the init model''s');
-- With a validation relation: the history covers the whole model.
SELECT is((SELECT jsonb_array_length(gbdt_model_info(gbdt_train('vc_train', 'y', NULL, NULL,
                  '{"num_round": 4, "validation_relation": "vc_val"}', m10))->'validation_history') FROM cm),
          14, 'validation history: the init model''s 10 rounds and the 4 new ones');
-- Errors.
CREATE TABLE vc_train_nox2 AS SELECT x1, x3, y FROM vc_train;
SELECT throws_ok($$SELECT gbdt_train('vc_train_nox2', 'y', NULL, NULL, '{"num_round": 2}', m10) FROM cm$$,
                 '42703', 'column "x2" of relation "vc_train_nox2" does not exist, but init_model was trained on it',
                 'init_model with a feature the relation lacks: the column is named');
SELECT throws_ok($$SELECT gbdt_train('vc_train', 'y', NULL, 'count:poisson', '{"num_round": 2}', m10) FROM cm$$,
                 '22023', 'parameter "objective" = "count:poisson" differs from the objective of init_model, "reg:squarederror"',
                 'init_model with another objective');
SELECT throws_like($$SELECT gbdt_train('vc_train', 'y', ARRAY['x1', 'x2'], NULL, '{"num_round": 2}', m10) FROM cm$$,
                   'features must be those of init_model%', 'init_model with other features');
SELECT throws_like($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"base_score": 1}', m10) FROM cm$$,
                   '%"base_score" cannot be given with init_model%', 'init_model with a base_score');
SELECT throws_ok($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{}', init_model => 'gbdt1:AAAA'::text)$$,
                 '42883', NULL, 'init_model must be a gbdt_model');
SELECT throws_like($$SELECT gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 2}',
                       gbdt_import('{"learner": {}}'::jsonb))$$, '%', 'an invalid imported model is refused');
SELECT is(left(gbdt_train('vc_train', 'y', NULL, NULL, '{"num_round": 2}', NULL)::text, 6), 'gbdt1:',
          'init_model => NULL trains from scratch');

-- ---- registry: retrain from the deployed version ----
SELECT is(gbdt_train_and_save('vc_reg', 'vc_train', 'y', ARRAY['x1', 'x2', 'x3'], NULL,
                              '{"num_round": 5, "max_depth": 3}'), 1, 'version 1 saved');
SELECT is(gbdt_retrain('vc_reg', continue_from_deployed => true), 2, 'continued retrain saves version 2');
SELECT is((SELECT (gbdt_model_info(model)->>'rounds')::int FROM gbdt_models WHERE name = 'vc_reg' AND version = 2), 10,
          'version 2 = the deployed 5 rounds + 5 more');
SELECT is((SELECT count(*)::int FROM gbdt_models a, gbdt_models b, vc_val v
           WHERE a.name = 'vc_reg' AND a.version = 2 AND b.name = 'vc_reg' AND b.version = 1
             AND gbdt_predict(a.model, v) = gbdt_predict(b.model, v)), 0,
          'version 2 predicts differently from version 1');
SELECT is((SELECT spec ? 'continue_from_deployed' FROM gbdt_models WHERE name = 'vc_reg' AND version = 2), false,
          'the stored spec is the plain one');
SELECT is(gbdt_retrain('vc_reg'), 3, 'a plain retrain starts over');
SELECT is((SELECT (gbdt_model_info(model)->>'rounds')::int FROM gbdt_models WHERE name = 'vc_reg' AND version = 3), 5,
          'version 3 has the spec''s 5 rounds');
SELECT gbdt_deploy('vc_reg', 2);
SELECT is(gbdt_retrain('vc_reg', true), 4, 'continue from the deployed version 2');
SELECT is((SELECT (gbdt_model_info(model)->>'rounds')::int FROM gbdt_models WHERE name = 'vc_reg' AND version = 4), 15,
          'version 4 = version 2''s 10 rounds + 5');

-- The continued retrain keeps the registry's security: it runs as the
-- name's owner (created_by, the owner's privileges), whoever calls it.
CREATE ROLE gbdt_vc_alice NOLOGIN;
GRANT SELECT, INSERT, DELETE ON gbdt_models TO gbdt_vc_alice;
GRANT UPDATE (deployed) ON gbdt_models TO gbdt_vc_alice;
GRANT SELECT, INSERT ON gbdt_model_names TO gbdt_vc_alice;
CREATE TABLE vc_alice AS SELECT * FROM vc_train;
GRANT SELECT ON vc_alice TO gbdt_vc_alice;
CREATE FUNCTION pg_temp.as_alice(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE v text;
BEGIN
  PERFORM set_config('role', 'gbdt_vc_alice', true);
  EXECUTE q INTO v;
  PERFORM set_config('role', 'none', true);
  RETURN v;
END $$;
SELECT is(pg_temp.as_alice($q$SELECT gbdt_train_and_save('vc_alice_m', 'vc_alice', 'y', NULL, NULL, '{"num_round": 3}')::text$q$),
          '1', 'alice saves vc_alice_m');
SELECT is(gbdt_retrain('vc_alice_m', continue_from_deployed => true), 2, 'a superuser continues alice''s model');
SELECT is((SELECT created_by::text || ' ' || (gbdt_model_info(model)->>'rounds') FROM gbdt_models
           WHERE name = 'vc_alice_m' AND version = 2), 'gbdt_vc_alice 6',
          'the continued version was trained and saved as the owner');
SELECT is(pg_temp.as_bob($q$SELECT gbdt_retrain('vc_alice_m', true)::text$q$),
          '42501: permission denied for model "vc_alice_m"', 'a non-member cannot continue it');
REVOKE SELECT ON vc_alice FROM gbdt_vc_alice;
SELECT throws_ok($$SELECT gbdt_retrain('vc_alice_m', true)$$, '42501', 'permission denied for table vc_alice',
                 'the owner''s privileges, not the superuser caller''s, read the rows');

-- ---- the validation rows within gbdt.max_memory ----
-- Their float columns count against gbdt.max_memory as they are read: a
-- validation relation larger than it is refused by name, not read whole.
CREATE TABLE vc_val_big AS
SELECT sin(i)::float8 AS x1, cos(i * 0.7)::float8 AS x2, ((i * 37) % 11)::float8 AS x3,
       (2 * sin(i) + cos(i * 0.7) * ((i * 37) % 11) / 5.0)::float8 AS y
FROM generate_series(1, 200000) i;
SET LOCAL gbdt.max_memory = '2MB';
SELECT ok((SELECT (gbdt_model_info(gbdt_train('vc_train', 'y', ARRAY['x1', 'x2', 'x3'], NULL,
                  '{"num_round": 2, "max_depth": 3, "validation_relation": "vc_val"}'))->>'rows_validation')::int = 600),
          'a validation relation within gbdt.max_memory is read');
SELECT throws_like($$SELECT gbdt_train('vc_train', 'y', ARRAY['x1', 'x2', 'x3'], NULL,
                  '{"num_round": 2, "max_depth": 3, "validation_relation": "vc_val_big"}')$$,
                   'validation relation "vc_val_big" needs more than gbdt.max_memory = 2048 kB%',
                   'a validation relation beyond gbdt.max_memory is refused by name');
RESET gbdt.max_memory;

SELECT * FROM finish();
ROLLBACK;
