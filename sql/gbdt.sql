-- gbdt 0.2 (install script of the current release; built as sql/gbdt--0.2.sql).
-- Every change here also goes into the release's upgrade script sql/gbdt--0.1--0.2.sql.
\echo Use "CREATE EXTENSION gbdt" to load this file. \quit

-- ---------------------------------------------------------------------------
-- The model type: a varlena holding the engine's versioned binary format.
-- Text form: 'gbdt1:' || base64.
-- ---------------------------------------------------------------------------
CREATE TYPE gbdt_model;

CREATE FUNCTION gbdt_model_in(cstring) RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_model_in'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_model_out(gbdt_model) RETURNS cstring
  AS 'MODULE_PATHNAME', 'gbdt_model_out'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_model_recv(internal) RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_model_recv'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_model_send(gbdt_model) RETURNS bytea
  AS 'MODULE_PATHNAME', 'gbdt_model_send'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE gbdt_model (
  INTERNALLENGTH = VARIABLE,
  INPUT = gbdt_model_in,
  OUTPUT = gbdt_model_out,
  RECEIVE = gbdt_model_recv,
  SEND = gbdt_model_send,
  STORAGE = extended
);

COMMENT ON TYPE gbdt_model IS 'A trained gradient-boosted tree model';

-- ---------------------------------------------------------------------------
-- Training
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_train(relation regclass, target text, features text[] DEFAULT NULL,
                           objective text DEFAULT NULL, params jsonb DEFAULT '{}')
  RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_train'
  LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_train(regclass, text, text[], text, jsonb) IS
  'Trains a gradient-boosted tree model on the rows of a table or view';

-- ---------------------------------------------------------------------------
-- Scoring
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_predict(model gbdt_model, "row" record) RETURNS float8
  AS 'MODULE_PATHNAME', 'gbdt_predict_row'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_predict(model gbdt_model, features float8[]) RETURNS float8
  AS 'MODULE_PATHNAME', 'gbdt_predict_array'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_predict_proba(model gbdt_model, "row" record)
  RETURNS TABLE(class float8, probability float8)
  AS 'MODULE_PATHNAME', 'gbdt_predict_proba'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 2;

CREATE FUNCTION gbdt_predict_table(model gbdt_model, relation regclass, key text)
  RETURNS TABLE(key text, prediction float8)
  AS 'MODULE_PATHNAME', 'gbdt_predict_table'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

-- ---------------------------------------------------------------------------
-- Introspection and evaluation
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_model_info(model gbdt_model) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_model_info'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_trees(model gbdt_model)
  RETURNS TABLE(tree int, node int, class int, feature text, threshold float8,
                default_left bool, left_child int, right_child int, leaf_value float8,
                gain float8, cover float8)
  AS 'MODULE_PATHNAME', 'gbdt_trees'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_feature_importance(model gbdt_model, kind text DEFAULT 'gain')
  RETURNS TABLE(feature text, importance float8)
  AS 'MODULE_PATHNAME', 'gbdt_feature_importance'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION gbdt_evaluate(model gbdt_model, relation regclass, target text) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_evaluate'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

CREATE FUNCTION gbdt_build_info() RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_build_info'
  LANGUAGE C STABLE PARALLEL SAFE;

-- ==== Registry and interop ====
-- Named, versioned models (gbdt_models), deployment strategies, retraining
-- from the stored training spec (what a pg_cron job calls), and the XGBoost
-- JSON model format in both directions.  Owned by the registry/interop code
-- (extension/pg/interop.cpp, docs/registry.md); keep this section last.

CREATE FUNCTION gbdt_export(model gbdt_model, format text DEFAULT 'xgboost-json') RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_export'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_export(gbdt_model, text) IS
  'The model in XGBoost''s JSON model format (loadable by xgboost.Booster)';

CREATE FUNCTION gbdt_import(model jsonb, format text DEFAULT 'xgboost-json') RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_import'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_import(jsonb, text) IS
  'A gbdt_model from an XGBoost JSON model (Booster.save_model("m.json"))';

CREATE TABLE gbdt_models (
  name       text        NOT NULL CHECK (name <> ''),
  version    int         NOT NULL CHECK (version > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by name        NOT NULL DEFAULT current_user,
  model      gbdt_model  NOT NULL,
  spec       jsonb,
  metrics    jsonb,
  deployed   bool        NOT NULL DEFAULT false,
  PRIMARY KEY (name, version)
);
-- At most one deployed version per name.
CREATE UNIQUE INDEX gbdt_models_deployed ON gbdt_models (name) WHERE deployed;
SELECT pg_catalog.pg_extension_config_dump('gbdt_models', '');

COMMENT ON TABLE gbdt_models IS
  'gbdt model registry: one row per saved version; deployed marks the version gbdt_model(name) returns';

-- Registry metrics of a model: its evaluation metric and the validation value
-- at the kept iteration (best_iteration when early-stopped, else the last).
CREATE FUNCTION gbdt_registry_metrics(model gbdt_model) RETURNS jsonb
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  SET search_path FROM CURRENT
AS $$
  SELECT jsonb_build_object(
           'eval_metric', i->'eval_metric',
           'validation', CASE
             WHEN jsonb_array_length(i->'validation_history') = 0 THEN NULL
             WHEN jsonb_typeof(i->'best_iteration') = 'number'
               THEN i->'validation_history'->((i->>'best_iteration')::int)
             ELSE i->'validation_history'->(jsonb_array_length(i->'validation_history') - 1)
           END,
           'best_iteration', i->'best_iteration',
           'train', i->'train_metric',
           'rounds', i->'rounds',
           'rows_used', i->'rows_used',
           'rows_validation', i->'rows_validation')
  FROM (SELECT gbdt_model_info(model) AS i) s
$$;

-- Takes the per-name registry lock (transaction scoped): saves, deploys and
-- retrains of one name are serialized; other names are not blocked.
CREATE FUNCTION gbdt_registry_lock(name text) RETURNS void
  LANGUAGE sql VOLATILE STRICT
AS $$ SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('gbdt_models'), pg_catalog.hashtext(name)) $$;

CREATE FUNCTION gbdt_save(name text, model gbdt_model, spec jsonb DEFAULT NULL,
                          deploy text DEFAULT 'always')
  RETURNS int
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
AS $$
DECLARE
  v_version int;
  v_metrics jsonb;
  v_deploy bool;
  v_old jsonb;
  v_new_val float8;
  v_old_val float8;
  v_metric text;
BEGIN
  IF name IS NULL OR name = '' THEN
    RAISE EXCEPTION 'model name must not be NULL or empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF model IS NULL THEN
    RAISE EXCEPTION 'model must not be NULL' USING ERRCODE = 'null_value_not_allowed';
  END IF;
  IF deploy IS NULL OR deploy NOT IN ('always', 'if_better', 'never') THEN
    RAISE EXCEPTION 'deploy strategy "%" is not supported', deploy
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Use always, if_better or never.';
  END IF;
  IF spec IS NOT NULL AND jsonb_typeof(spec) <> 'object' THEN
    RAISE EXCEPTION 'spec must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
  END IF;

  v_metrics := gbdt_registry_metrics(model);
  PERFORM gbdt_registry_lock(name);
  -- A statement after the lock: sees every version committed before it.
  SELECT coalesce(max(m.version), 0) + 1 INTO v_version FROM gbdt_models m WHERE m.name = gbdt_save.name;

  IF deploy = 'always' THEN
    v_deploy := true;
  ELSIF deploy = 'never' THEN
    v_deploy := false;
  ELSE
    v_metric := v_metrics->>'eval_metric';
    v_new_val := (v_metrics->>'validation')::float8;
    IF v_new_val IS NULL THEN
      RAISE EXCEPTION 'deploy strategy "if_better" needs a validation metric, and model "%" has none', name
        USING ERRCODE = 'invalid_parameter_value',
              HINT = 'Train with a "validation_fraction" parameter (for example {"validation_fraction": 0.2}).';
    END IF;
    SELECT m.metrics INTO v_old FROM gbdt_models m WHERE m.name = gbdt_save.name AND m.deployed;
    IF NOT FOUND THEN
      v_deploy := true;
    ELSE
      v_old_val := (v_old->>'validation')::float8;
      IF v_old_val IS NULL OR v_old->>'eval_metric' IS DISTINCT FROM v_metric THEN
        RAISE NOTICE 'gbdt_save: the deployed version of "%" has no comparable % validation metric; deploying the new version', name, v_metric;
        v_deploy := true;
      ELSIF v_metric = 'auc' THEN
        v_deploy := v_new_val >= v_old_val;   -- higher is better
      ELSE
        v_deploy := v_new_val <= v_old_val;   -- lower is better
      END IF;
      IF NOT v_deploy THEN
        RAISE NOTICE 'gbdt_save: "%" version % not deployed: validation % = % is worse than the deployed version''s %',
          name, v_version, v_metric, v_new_val, v_old_val;
      END IF;
    END IF;
  END IF;

  IF v_deploy THEN
    UPDATE gbdt_models m SET deployed = false WHERE m.name = gbdt_save.name AND m.deployed;
  END IF;
  INSERT INTO gbdt_models (name, version, model, spec, metrics, deployed)
  VALUES (name, v_version, model,
          CASE WHEN spec IS NULL THEN NULL ELSE spec || jsonb_build_object('deploy', deploy) END,
          v_metrics, v_deploy);
  RETURN v_version;
END
$$;

COMMENT ON FUNCTION gbdt_save(text, gbdt_model, jsonb, text) IS
  'Saves a model as the next version of a name; deploy: always, if_better (validation metric at least as good as the deployed version''s) or never';

CREATE FUNCTION gbdt_deploy(name text, version int) RETURNS void
  LANGUAGE plpgsql VOLATILE STRICT
  SET search_path FROM CURRENT
AS $$
BEGIN
  PERFORM gbdt_registry_lock(name);
  PERFORM 1 FROM gbdt_models m WHERE m.name = gbdt_deploy.name AND m.version = gbdt_deploy.version;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'model "%" has no version %', name, version USING ERRCODE = 'undefined_object';
  END IF;
  UPDATE gbdt_models m SET deployed = false
  WHERE m.name = gbdt_deploy.name AND m.deployed AND m.version <> gbdt_deploy.version;
  UPDATE gbdt_models m SET deployed = true
  WHERE m.name = gbdt_deploy.name AND m.version = gbdt_deploy.version AND NOT m.deployed;
END
$$;

COMMENT ON FUNCTION gbdt_deploy(text, int) IS 'Makes a saved version the deployed one (rollback)';

-- The deployed version; looked up once per statement and call site.
CREATE FUNCTION gbdt_model(name text) RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_model_by_name'
  LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_model(text) IS 'The deployed version of a model in the gbdt_models registry';

-- gbdt_model('churn') with an untyped literal: PostgreSQL would read
-- typename('literal') as a cast of the literal to gbdt_model; this overload
-- matches the literal exactly and looks the name up (a literal in the model
-- text form 'gbdt1:...' is still read as a model value).
CREATE FUNCTION gbdt_model(name unknown) RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_model_by_name_literal'
  LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_model(unknown) IS 'The deployed version of a model in the gbdt_models registry';

CREATE FUNCTION gbdt_train_and_save(name text, relation regclass, target text,
                                    features text[] DEFAULT NULL, objective text DEFAULT NULL,
                                    params jsonb DEFAULT '{}', deploy text DEFAULT 'always')
  RETURNS int
  LANGUAGE plpgsql VOLATILE
  SET search_path FROM CURRENT
AS $$
DECLARE
  v_model gbdt_model;
  v_spec jsonb;
BEGIN
  IF name IS NULL OR name = '' THEN
    RAISE EXCEPTION 'model name must not be NULL or empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF deploy IS NULL OR deploy NOT IN ('always', 'if_better', 'never') THEN
    RAISE EXCEPTION 'deploy strategy "%" is not supported', deploy
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Use always, if_better or never.';
  END IF;
  v_model := gbdt_train(relation, target, features, objective, coalesce(params, '{}'));
  SELECT jsonb_build_object(
           'relation', format('%I.%I', n.nspname, c.relname),
           'target', target,
           'features', to_jsonb(features),
           'objective', objective,
           'params', coalesce(params, '{}'::jsonb))
  INTO v_spec
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = relation;
  RETURN gbdt_save(name, v_model, v_spec, deploy);
END
$$;

COMMENT ON FUNCTION gbdt_train_and_save(text, regclass, text, text[], text, jsonb, text) IS
  'Trains a model and saves it (with its training spec) as the next version of a name';

CREATE FUNCTION gbdt_retrain(name text) RETURNS int
  LANGUAGE plpgsql VOLATILE STRICT
  SET search_path FROM CURRENT
AS $$
DECLARE
  s jsonb;
BEGIN
  SELECT m.spec INTO s FROM gbdt_models m
  WHERE m.name = gbdt_retrain.name AND m.spec IS NOT NULL
  ORDER BY m.version DESC LIMIT 1;
  IF NOT FOUND THEN
    IF EXISTS (SELECT 1 FROM gbdt_models m WHERE m.name = gbdt_retrain.name) THEN
      RAISE EXCEPTION 'model "%" has no stored training spec to retrain from', name
        USING ERRCODE = 'object_not_in_prerequisite_state',
              HINT = 'Save it with gbdt_train_and_save() or pass a spec to gbdt_save().';
    END IF;
    RAISE EXCEPTION 'no model named "%" in the gbdt registry', name USING ERRCODE = 'undefined_object';
  END IF;
  IF s->>'relation' IS NULL OR s->>'target' IS NULL THEN
    RAISE EXCEPTION 'the training spec of model "%" lacks "relation" or "target"', name
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN gbdt_train_and_save(
    name,
    (s->>'relation')::regclass,
    s->>'target',
    CASE WHEN jsonb_typeof(s->'features') = 'array'
         THEN ARRAY(SELECT jsonb_array_elements_text(s->'features')) END,
    s->>'objective',
    coalesce(s->'params', '{}'::jsonb),
    coalesce(s->>'deploy', 'always'));
END
$$;

COMMENT ON FUNCTION gbdt_retrain(text) IS
  'Re-runs the stored training spec of a model on the current data and saves (and deploys per the stored strategy) a new version';
