-- gbdt 0.3 (install script of the current release; built as sql/gbdt--0.3.sql).
-- Every change here also goes into the release's upgrade script sql/gbdt--0.2--0.3.sql.
--
-- Search path: every SQL and PL/pgSQL function pins
-- SET search_path = pg_catalog, pg_temp and names the extension's own objects
-- as @extschema@.x (the extension is not relocatable, so the schema is
-- substituted here).  A role that may CREATE in the extension's schema
-- (public before PostgreSQL 15) could otherwise capture a call: an exact
-- match such as public.count(text) beats pg_catalog.count("any").  C
-- functions have no SET clause (it would cost a GUC save/restore per scoring
-- call); the query texts they run through SPI are fully qualified instead
-- (scripts/check-sql-safety.sh checks both).
\echo Use "CREATE EXTENSION gbdt" to load this file. \quit

-- ---------------------------------------------------------------------------
-- The model type: a varlena holding the engine's versioned binary format.
-- Text form: 'gbdt1:' || base64.
-- ---------------------------------------------------------------------------
CREATE TYPE gbdt_model;

CREATE FUNCTION gbdt_model_in(cstring) RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_model_in'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_model_in(cstring) IS
  'Input function of gbdt_model: reads the text form gbdt1:<base64>, validating the model';

CREATE FUNCTION gbdt_model_out(gbdt_model) RETURNS cstring
  AS 'MODULE_PATHNAME', 'gbdt_model_out'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_model_out(gbdt_model) IS
  'Output function of gbdt_model: the text form gbdt1:<base64>';

CREATE FUNCTION gbdt_model_recv(internal) RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_model_recv'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_model_recv(internal) IS
  'Binary input function of gbdt_model (COPY BINARY, binary protocol), validating the model';

CREATE FUNCTION gbdt_model_send(gbdt_model) RETURNS bytea
  AS 'MODULE_PATHNAME', 'gbdt_model_send'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_model_send(gbdt_model) IS
  'Binary output function of gbdt_model: the model bytes';

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
                           objective text DEFAULT NULL, params jsonb DEFAULT '{}',
                           init_model gbdt_model DEFAULT NULL)
  RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_train'
  LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_train(regclass, text, text[], text, jsonb, gbdt_model) IS
  'Trains a gradient-boosted tree model on the rows of a table or view; init_model: add num_round rounds to that model (continued training)';

-- Which rows the hashed validation_fraction split holds out (docs/registry.md).
CREATE FUNCTION gbdt_validation_row(ordinal bigint, fraction float8, seed bigint DEFAULT 0)
  RETURNS bool
  AS 'MODULE_PATHNAME', 'gbdt_validation_row'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_validation_row(bigint, float8, bigint) IS
  'True when row number ordinal (from 0, rows with a non-NULL target in the order gbdt_train reads them) is a validation row of a training with these validation_fraction and seed parameters';

-- ---------------------------------------------------------------------------
-- Scoring
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_predict(model gbdt_model, "row" record) RETURNS float8
  AS 'MODULE_PATHNAME', 'gbdt_predict_row'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_predict(gbdt_model, record) IS
  'Prediction for one row, features matched by column name (probability for binary:logistic, class label for multiclass)';

CREATE FUNCTION gbdt_predict(model gbdt_model, features float8[]) RETURNS float8
  AS 'MODULE_PATHNAME', 'gbdt_predict_array'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_predict(gbdt_model, float8[]) IS
  'Prediction for one feature vector in the model''s feature order (NULL or NaN = missing)';

CREATE FUNCTION gbdt_predict_proba(model gbdt_model, "row" record)
  RETURNS TABLE(class float8, probability float8, class_name text)
  AS 'MODULE_PATHNAME', 'gbdt_predict_proba'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 2;

COMMENT ON FUNCTION gbdt_predict_proba(gbdt_model, record) IS
  'Class probabilities for one row of a classification model, one row per class: class index or label value, probability, and the class name (the text/enum/bool label, or the label value as text)';

-- Q: several quantiles in one reg:quantileerror model (quantile_alpha list).
CREATE FUNCTION gbdt_predict_quantiles(model gbdt_model, "row" record) RETURNS float8[]
  AS 'MODULE_PATHNAME', 'gbdt_predict_quantiles'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_predict_quantiles(gbdt_model, record) IS
  'Predictions of a reg:quantileerror model for one row, one per quantile in the order of its quantile_alpha list';

CREATE FUNCTION gbdt_predict_class(model gbdt_model, "row" record) RETURNS text
  AS 'MODULE_PATHNAME', 'gbdt_predict_class'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_predict_class(gbdt_model, record) IS
  'The most probable class of one row by name: the text, enum or bool label the model was trained on (binary: the second class when its probability > 0.5), else the label value as text';

CREATE FUNCTION gbdt_predict_table(model gbdt_model, relation regclass, key text)
  RETURNS TABLE(key text, prediction float8)
  AS 'MODULE_PATHNAME', 'gbdt_predict_table'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_predict_table(gbdt_model, regclass, text) IS
  'Scores every row of a table or view: (key, prediction), key read from the named column';

-- ---------------------------------------------------------------------------
-- Introspection and evaluation
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_model_info(model gbdt_model) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_model_info'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_model_info(gbdt_model) IS
  'Model summary as jsonb: objective, features, classes, trees, parameters and the training report';

CREATE FUNCTION gbdt_partition_model(model gbdt_model, key text[]) RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_partition_model'
  LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_partition_model(gbdt_model, text[]) IS
  'One sub-model of a partitioned model (params partition_by): the model of key (one text value per key column, NULL for a NULL value), as trained; NULL when there is none; key NULL: the global model (partition_fallback global)';

CREATE FUNCTION gbdt_trees(model gbdt_model)
  RETURNS TABLE(tree int, node int, class int, feature text, threshold float8,
                default_left bool, left_child int, right_child int, leaf_value float8,
                gain float8, cover float8, categories text[])
  AS 'MODULE_PATHNAME', 'gbdt_trees'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_trees(gbdt_model) IS
  'Every node of every tree: split feature, threshold, missing-value direction, children, leaf value, gain and cover; a categorical split has no threshold and lists in categories the values that go to the right child (all others, and unseen ones, go left)';

CREATE FUNCTION gbdt_feature_importance(model gbdt_model, kind text DEFAULT 'gain')
  RETURNS TABLE(feature text, importance float8)
  AS 'MODULE_PATHNAME', 'gbdt_feature_importance'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_feature_importance(gbdt_model, text) IS
  'Feature importance by kind: gain, total_gain, weight, cover or total_cover';

CREATE FUNCTION gbdt_evaluate(model gbdt_model, relation regclass, target text) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_evaluate'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_evaluate(gbdt_model, regclass, text) IS
  'Metrics of a model on the rows of a table or view against a target column';

CREATE FUNCTION gbdt_build_info() RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_build_info'
  LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_build_info() IS
  'Build facts as jsonb: extension version, whether CUDA was compiled in and a device is usable, default thread count, gbdt.device setting';

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
  spec_quarantined bool  NOT NULL DEFAULT false,
  PRIMARY KEY (name, version)
);
-- At most one deployed version per name.
CREATE UNIQUE INDEX gbdt_models_deployed ON gbdt_models (name) WHERE deployed;
SELECT pg_catalog.pg_extension_config_dump('gbdt_models', '');

COMMENT ON TABLE gbdt_models IS
  'gbdt model registry: one row per saved version; deployed marks the version gbdt_model(name) returns. '
  'DROP EXTENSION gbdt drops this table and every saved version with it (pg_dump the table first). '
  'A model discloses values of its training data (thresholds, cuts, leaf means): whoever can read a row can read those.';
COMMENT ON COLUMN gbdt_models.name IS 'Model name; owned by the role recorded in gbdt_model_names';
COMMENT ON COLUMN gbdt_models.version IS 'Version number within the name, 1, 2, ... in save order';
COMMENT ON COLUMN gbdt_models.created_at IS 'When the version was saved';
COMMENT ON COLUMN gbdt_models.created_by IS 'Role that saved the version (current_user at save time; a retrain saves as the name''s owner)';
COMMENT ON COLUMN gbdt_models.model IS 'The model value';
COMMENT ON COLUMN gbdt_models.spec IS 'Training spec (relation, target, features, objective, params, deploy) that gbdt_retrain re-runs; NULL when saved without one';
COMMENT ON COLUMN gbdt_models.metrics IS 'eval_metric, validation value at the kept iteration, best_iteration, train metric, rounds, rows used and held out';
COMMENT ON COLUMN gbdt_models.deployed IS 'True for the one version of the name that gbdt_model(name) returns';
COMMENT ON COLUMN gbdt_models.spec_quarantined IS 'True for a spec stored before release 0.3 (written under weaker checks): gbdt_retrain refuses it until a member of the name''s owner approves it with gbdt_approve_spec(name, version)';

-- ---- Ownership and row-level security (0.2) ----
-- A name belongs to the role that first saved it.  Only members of that role
-- (superusers are members of every role) save versions under it, deploy or
-- retrain it, or write its rows; gbdt_retrain runs the stored spec as the
-- owner.  The registry functions run with the caller's rights; the row-level
-- security policies below hold the same rules for direct INSERT, UPDATE and
-- DELETE (docs/registry.md explains the choice and the grants).
CREATE TABLE gbdt_model_names (
  name       text        PRIMARY KEY CHECK (name <> ''),
  owner      regrole     NOT NULL DEFAULT current_user::regrole,
  created_at timestamptz NOT NULL DEFAULT now()
);
SELECT pg_catalog.pg_extension_config_dump('gbdt_model_names', '');

COMMENT ON TABLE gbdt_model_names IS
  'Owners of gbdt registry names: the role that first saved a name owns it; only its members save, deploy or retrain versions of it. '
  'DROP EXTENSION gbdt drops this table too.';
COMMENT ON COLUMN gbdt_model_names.name IS 'Model name (gbdt_models.name)';
COMMENT ON COLUMN gbdt_model_names.owner IS 'Owning role; gbdt_retrain trains with its rights';
COMMENT ON COLUMN gbdt_model_names.created_at IS 'When the name was first saved';

-- True when the current role is a member of the owner of a name (false for
-- an unknown name).
CREATE FUNCTION gbdt_registry_is_owner(name text) RETURNS bool
  LANGUAGE sql STABLE STRICT PARALLEL SAFE
  SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce((SELECT pg_catalog.pg_has_role(n.owner, 'MEMBER')
                   FROM @extschema@.gbdt_model_names n WHERE n.name = $1), false)
$$;

COMMENT ON FUNCTION gbdt_registry_is_owner(text) IS
  'Registry internal: whether the current role is a member of the role owning a model name (used by the row-level security policies)';

-- The owner of a name, NULL for an unknown name; an error unless the current
-- role is a member of it.
CREATE FUNCTION gbdt_registry_owner(name text) RETURNS regrole
  LANGUAGE plpgsql STABLE STRICT
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_owner regrole;
BEGIN
  SELECT n.owner INTO v_owner FROM @extschema@.gbdt_model_names n WHERE n.name = gbdt_registry_owner.name;
  IF v_owner IS NOT NULL AND NOT pg_catalog.pg_has_role(v_owner, 'MEMBER') THEN
    RAISE EXCEPTION 'permission denied for model "%"', name
      USING ERRCODE = 'insufficient_privilege',
            DETAIL = format('Model "%s" is owned by role %s; only members of that role may save, deploy or retrain it.',
                            name, v_owner),
            HINT = 'Save under another name, or ask the owner to grant you membership in its role.';
  END IF;
  RETURN v_owner;
END
$$;

COMMENT ON FUNCTION gbdt_registry_owner(text) IS
  'Registry internal: the role owning a model name (NULL if unknown); raises insufficient_privilege unless the current role is a member of it';

-- True, or an error when the relation named by a training spec is not
-- readable by the current role (SELECT on it and USAGE on its schema).
CREATE FUNCTION gbdt_registry_check_spec(spec jsonb) RETURNS bool
  LANGUAGE plpgsql STABLE
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_key text;
  v_val jsonb;
  v_rel regclass;
  v_nsp name;
  v_persistence "char";
BEGIN
  IF spec IS NULL OR jsonb_typeof(spec) <> 'object' THEN
    RETURN true;
  END IF;
  -- A query (gbdt_train_query_and_save) is read by a retrain with the
  -- owner's rights too: one SELECT the author can run, nothing temporary.
  IF spec->'query' IS NOT NULL AND spec->'query' <> 'null'::jsonb THEN
    IF jsonb_typeof(spec->'query') <> 'string' THEN
      RAISE EXCEPTION 'the "query" of a training spec must be a string, not %', spec->'query'
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF spec->'relation' IS NOT NULL AND spec->'relation' <> 'null'::jsonb THEN
      RAISE EXCEPTION 'a training spec names a "relation" or a "query", not both'
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM @extschema@.gbdt_registry_check_query(spec->>'query');
  END IF;
  -- The training relation and the validation relation are both read by a
  -- retrain with the owner's rights: the author must be able to read each.
  FOR v_key, v_val IN
    SELECT 'relation', spec->'relation'
    UNION ALL
    SELECT 'params.validation_relation', spec->'params'->'validation_relation'
    WHERE jsonb_typeof(spec->'params') = 'object'
  LOOP
    CONTINUE WHEN v_val IS NULL OR v_val = 'null'::jsonb;
    IF jsonb_typeof(v_val) <> 'string' THEN
      RAISE EXCEPTION 'the "%" of a training spec must be a string, not %', v_key, v_val
        USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Resolved under this function's search path (pg_catalog, pg_temp), as a
    -- retrain resolves it: a spec names its relations schema-qualified.
    v_rel := to_regclass(v_val #>> '{}');
    IF v_rel IS NULL THEN
      RAISE EXCEPTION 'relation "%" named in the training spec (%) does not exist', v_val #>> '{}', v_key
        USING ERRCODE = 'undefined_table',
              HINT = 'Name it with its schema (schema.table): a spec is resolved with search_path = pg_catalog, pg_temp.';
    END IF;
    SELECT n.nspname, c.relpersistence INTO v_nsp, v_persistence
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE c.oid = v_rel;
    IF v_persistence = 't' THEN
      RAISE EXCEPTION 'relation % named in the training spec (%) is temporary', v_val #>> '{}', v_key
        USING ERRCODE = 'invalid_parameter_value',
              DETAIL = 'A temporary table or view (also a view reading one) exists only in the session that made it; a retrain of the spec would not find it.',
              HINT = 'Train from a permanent table or view.';
    END IF;
    IF NOT pg_catalog.has_schema_privilege(v_nsp, 'USAGE')
       OR NOT pg_catalog.has_table_privilege(v_rel, 'SELECT') THEN
      RAISE EXCEPTION 'permission denied for relation % named in the training spec', v_val #>> '{}'
        USING ERRCODE = 'insufficient_privilege',
              HINT = format('Role %s needs SELECT on the relation and USAGE on schema %s to save a spec naming it.',
                            current_user, v_nsp);
    END IF;
  END LOOP;
  RETURN true;
END
$$;

COMMENT ON FUNCTION gbdt_registry_check_spec(jsonb) IS
  'Registry internal: true, or an error when the current role cannot read a relation a training spec names (relation, params.validation_relation) or run its query, or one of them is temporary';

-- Saved versions are history: only "deployed" may change.
CREATE FUNCTION gbdt_registry_immutable() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  RAISE EXCEPTION 'version % of model "%" cannot be changed: only column "deployed" of gbdt_models may be updated',
    OLD.version, OLD.name
    USING ERRCODE = 'insufficient_privilege',
          HINT = 'Save a new version with gbdt_save(), or deploy one with gbdt_deploy().';
END
$$;

COMMENT ON FUNCTION gbdt_registry_immutable() IS
  'Registry internal: trigger function refusing updates of any gbdt_models column but deployed';

CREATE TRIGGER gbdt_models_immutable
  BEFORE UPDATE OF name, version, created_at, created_by, model, spec, metrics ON gbdt_models
  FOR EACH ROW EXECUTE FUNCTION gbdt_registry_immutable();

-- Lifting the quarantine of a spec (spec_quarantined true -> false) is an
-- approval: the approving role must be able to read what the spec names, as
-- if it saved the spec itself (gbdt_approve_spec, or a direct UPDATE).
CREATE FUNCTION gbdt_registry_approval_check() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM @extschema@.gbdt_registry_check_spec(NEW.spec);
  RETURN NEW;
END
$$;

COMMENT ON FUNCTION gbdt_registry_approval_check() IS
  'Registry internal: trigger function checking, when a quarantined spec is approved, that the approving role can read the relations it names';

CREATE TRIGGER gbdt_models_approval
  BEFORE UPDATE OF spec_quarantined ON gbdt_models
  FOR EACH ROW WHEN (OLD.spec_quarantined AND NOT NEW.spec_quarantined)
  EXECUTE FUNCTION gbdt_registry_approval_check();

ALTER TABLE gbdt_model_names ENABLE ROW LEVEL SECURITY;
-- Names and owners are public to the table's grantees; a role claims a new
-- name for itself (or a role it is a member of); ownership changes and name
-- deletions are left to superusers.
CREATE POLICY gbdt_model_names_read ON gbdt_model_names FOR SELECT USING (true);
CREATE POLICY gbdt_model_names_claim ON gbdt_model_names FOR INSERT
  WITH CHECK (pg_catalog.pg_has_role(owner, 'MEMBER'));

ALTER TABLE gbdt_models ENABLE ROW LEVEL SECURITY;
-- Everyone granted SELECT reads deployed versions; the owner's members read
-- every version.  Writes only by the owner's members, created_by is the
-- writer, and a spec must name a relation the writer can read.
CREATE POLICY gbdt_models_read ON gbdt_models FOR SELECT
  USING (deployed OR gbdt_registry_is_owner(name));
CREATE POLICY gbdt_models_insert ON gbdt_models FOR INSERT
  WITH CHECK (gbdt_registry_is_owner(name) AND created_by = current_user AND gbdt_registry_check_spec(spec));
CREATE POLICY gbdt_models_update ON gbdt_models FOR UPDATE
  USING (gbdt_registry_is_owner(name)) WITH CHECK (gbdt_registry_is_owner(name));
CREATE POLICY gbdt_models_delete ON gbdt_models FOR DELETE
  USING (gbdt_registry_is_owner(name));

-- DROP EXTENSION gbdt deletes gbdt_models and every saved version with it.
-- An event trigger warns before it happens (best effort: it sees the text of
-- the top-level statement, so a DROP EXTENSION run from dynamic SQL inside a
-- function is not recognised; it never blocks a command).
CREATE FUNCTION gbdt_drop_extension_warning() RETURNS event_trigger
  LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  n bigint;
  k bigint;
  v_all bool;
BEGIN
  IF current_query() !~* '\mgbdt\M' THEN
    RETURN;
  END IF;
  -- Runs with the rights of the role issuing DROP EXTENSION (any role can
  -- issue it; the ownership check comes after this trigger), so it counts
  -- only the rows that role may read (row-level security, grants).
  v_all := (SELECT r.rolsuper OR r.rolbypassrls FROM pg_catalog.pg_roles r WHERE r.rolname = current_user)
           OR pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c
                                      WHERE c.oid = '@extschema@.gbdt_models'::pg_catalog.regclass), 'USAGE');
  BEGIN
    SELECT count(*), count(DISTINCT m.name) INTO n, k FROM @extschema@.gbdt_models m;
  EXCEPTION WHEN insufficient_privilege THEN
    RAISE WARNING 'DROP EXTENSION gbdt deletes the model registry %.gbdt_models with every saved version', '@extschema@';
    RETURN;
  END;
  IF n > 0 AND v_all THEN
    RAISE WARNING 'DROP EXTENSION gbdt deletes the model registry: % saved version(s) of % model name(s) in %.gbdt_models',
      n, k, '@extschema@'
      USING HINT = 'Keep them first: pg_dump --table=gbdt_models --table=gbdt_model_names (or COPY the rows to a table of your own).';
  ELSIF n > 0 THEN
    RAISE WARNING 'DROP EXTENSION gbdt deletes the model registry %.gbdt_models with every saved version (role % can read % of them)',
      '@extschema@', current_user, n;
  END IF;
EXCEPTION WHEN OTHERS THEN
  RETURN;  -- a warning only: never stand in the way of a command
END
$$;

COMMENT ON FUNCTION gbdt_drop_extension_warning() IS
  'Event trigger function: WARNING with the number of saved model versions before DROP EXTENSION gbdt deletes them';

CREATE EVENT TRIGGER gbdt_drop_extension_warning ON ddl_command_start
  WHEN TAG IN ('DROP EXTENSION')
  EXECUTE FUNCTION gbdt_drop_extension_warning();

COMMENT ON EVENT TRIGGER gbdt_drop_extension_warning IS
  'Warns before DROP EXTENSION gbdt deletes the saved model versions of gbdt_models';

-- Registry metrics of a model: its evaluation metric and the validation value
-- at the kept iteration (best_iteration when early-stopped, else the last).
CREATE FUNCTION gbdt_registry_metrics(model gbdt_model) RETURNS jsonb
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  SET search_path = pg_catalog, pg_temp
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
  FROM (SELECT @extschema@.gbdt_model_info(model) AS i) s
$$;

COMMENT ON FUNCTION gbdt_registry_metrics(gbdt_model) IS
  'Registry internal: the metrics a saved version records (eval_metric, validation value at the kept iteration, rounds, rows)';

-- Takes the per-name registry lock (transaction scoped): saves, deploys and
-- retrains of one name are serialized; other names are not blocked.
CREATE FUNCTION gbdt_registry_lock(name text) RETURNS void
  LANGUAGE sql VOLATILE STRICT
  SET search_path = pg_catalog, pg_temp
AS $$ SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('gbdt_models'), pg_catalog.hashtext(name)) $$;

COMMENT ON FUNCTION gbdt_registry_lock(text) IS
  'Registry internal: takes the transaction-scoped advisory lock that serializes saves, deploys and retrains of one name';

CREATE FUNCTION gbdt_save(name text, model gbdt_model, spec jsonb DEFAULT NULL,
                          deploy text DEFAULT 'always')
  RETURNS int
  LANGUAGE plpgsql VOLATILE
  SET search_path = pg_catalog, pg_temp
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
  -- The saver must be able to read what the spec names (a retrain runs it
  -- with the owner's rights, never with more than its author had).
  PERFORM @extschema@.gbdt_registry_check_spec(spec);

  v_metrics := @extschema@.gbdt_registry_metrics(model);
  PERFORM @extschema@.gbdt_registry_lock(name);
  -- Statements after the lock see every name and version committed before it.
  -- The first save of a name claims it for the current role.
  IF @extschema@.gbdt_registry_owner(name) IS NULL THEN
    INSERT INTO @extschema@.gbdt_model_names (name) VALUES (gbdt_save.name);
  END IF;
  SELECT coalesce(max(m.version), 0) + 1 INTO v_version FROM @extschema@.gbdt_models m WHERE m.name = gbdt_save.name;

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
    SELECT m.metrics INTO v_old FROM @extschema@.gbdt_models m WHERE m.name = gbdt_save.name AND m.deployed;
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
    UPDATE @extschema@.gbdt_models m SET deployed = false WHERE m.name = gbdt_save.name AND m.deployed;
  END IF;
  -- created_by is left to its default, current_user (a policy checks it).
  INSERT INTO @extschema@.gbdt_models (name, version, model, spec, metrics, deployed)
  VALUES (name, v_version, model,
          CASE WHEN spec IS NULL THEN NULL ELSE spec || jsonb_build_object('deploy', deploy) END,
          v_metrics, v_deploy);
  RETURN v_version;
END
$$;

COMMENT ON FUNCTION gbdt_save(text, gbdt_model, jsonb, text) IS
  'Saves a model as the next version of a name (the first save makes the current role its owner; later saves need membership in it); deploy: always, if_better (validation metric at least as good as the deployed version''s) or never';

CREATE FUNCTION gbdt_deploy(name text, version int) RETURNS void
  LANGUAGE plpgsql VOLATILE STRICT
  SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  PERFORM @extschema@.gbdt_registry_lock(name);
  PERFORM @extschema@.gbdt_registry_owner(name);   -- an error unless the current role is a member of the owner
  PERFORM 1 FROM @extschema@.gbdt_models m WHERE m.name = gbdt_deploy.name AND m.version = gbdt_deploy.version;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'model "%" has no version %', name, version USING ERRCODE = 'undefined_object';
  END IF;
  UPDATE @extschema@.gbdt_models m SET deployed = false
  WHERE m.name = gbdt_deploy.name AND m.deployed AND m.version <> gbdt_deploy.version;
  UPDATE @extschema@.gbdt_models m SET deployed = true
  WHERE m.name = gbdt_deploy.name AND m.version = gbdt_deploy.version AND NOT m.deployed;
END
$$;

COMMENT ON FUNCTION gbdt_deploy(text, int) IS
  'Makes a saved version the deployed one (rollback); only members of the name''s owner role';

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
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_model @extschema@.gbdt_model;
  v_spec jsonb;
BEGIN
  IF name IS NULL OR name = '' THEN
    RAISE EXCEPTION 'model name must not be NULL or empty' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF deploy IS NULL OR deploy NOT IN ('always', 'if_better', 'never') THEN
    RAISE EXCEPTION 'deploy strategy "%" is not supported', deploy
      USING ERRCODE = 'invalid_parameter_value', HINT = 'Use always, if_better or never.';
  END IF;
  SELECT jsonb_build_object(
           'relation', format('%I.%I', n.nspname, c.relname),
           'target', target,
           'features', to_jsonb(features),
           'objective', objective,
           'params', coalesce(params, '{}'::jsonb))
  INTO v_spec
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = relation;
  -- Refused before training, not after: a spec the saver cannot read, or one
  -- naming a temporary relation (gone at the next retrain).
  PERFORM @extschema@.gbdt_registry_check_spec(v_spec);
  v_model := @extschema@.gbdt_train(relation, target, features, objective, coalesce(params, '{}'));
  RETURN @extschema@.gbdt_save(name, v_model, v_spec, deploy);
END
$$;

COMMENT ON FUNCTION gbdt_train_and_save(text, regclass, text, text[], text, jsonb, text) IS
  'Trains a model and saves it (with its training spec) as the next version of a name';

-- Trains from a stored spec with the current role's rights and saves the
-- result as the next version of name (gbdt_retrain calls it as the owner).
CREATE FUNCTION gbdt_retrain_spec(name text, spec jsonb) RETURNS int
  LANGUAGE plpgsql VOLATILE STRICT
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  v_init @extschema@.gbdt_model;
  v_model @extschema@.gbdt_model;
  v_features text[];
  v_deploy text := coalesce(spec->>'deploy', 'always');
  v_spec jsonb := spec - 'continue_from_deployed' - 'deploy';
BEGIN
  IF jsonb_typeof(spec) <> 'object' OR coalesce(spec->>'relation', spec->>'query') IS NULL
     OR spec->>'target' IS NULL THEN
    RAISE EXCEPTION 'the training spec of model "%" lacks "relation" or "target"', name
      USING ERRCODE = 'invalid_parameter_value',
            HINT = 'A spec names a "relation" (or a "query") and a "target".';
  END IF;
  IF spec->>'relation' IS NOT NULL AND spec->>'query' IS NOT NULL THEN
    RAISE EXCEPTION 'the training spec of model "%" names both a "relation" and a "query"', name
      USING ERRCODE = 'invalid_parameter_value';
  END IF;
  v_features := CASE WHEN jsonb_typeof(spec->'features') = 'array'
                     THEN ARRAY(SELECT jsonb_array_elements_text(spec->'features')) END;
  IF spec->'continue_from_deployed' = 'true'::jsonb THEN
    -- gbdt_retrain(name, continue_from_deployed => true): add the spec's
    -- num_round rounds to the deployed version (continued training).
    SELECT m.model INTO v_init FROM @extschema@.gbdt_models m WHERE m.name = gbdt_retrain_spec.name AND m.deployed;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'model "%" has no deployed version to continue from', name
        USING ERRCODE = 'object_not_in_prerequisite_state',
              HINT = 'Deploy a version with gbdt_deploy(), or retrain without continue_from_deployed.';
    END IF;
  END IF;
  IF spec->>'query' IS NOT NULL THEN
    -- What gbdt_train_and_save refuses before training, refused here too.
    IF name = '' THEN
      RAISE EXCEPTION 'model name must not be NULL or empty' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF v_deploy NOT IN ('always', 'if_better', 'never') THEN
      RAISE EXCEPTION 'deploy strategy "%" is not supported', v_deploy
        USING ERRCODE = 'invalid_parameter_value', HINT = 'Use always, if_better or never.';
    END IF;
    PERFORM @extschema@.gbdt_registry_check_spec(v_spec);
    v_model := @extschema@.gbdt_train_query(spec->>'query', spec->>'target', v_features, spec->>'objective',
                                            coalesce(spec->'params', '{}'::jsonb), v_init);
    RETURN @extschema@.gbdt_save(name, v_model, v_spec, v_deploy);
  END IF;
  IF v_init IS NOT NULL THEN
    v_model := @extschema@.gbdt_train((spec->>'relation')::regclass, spec->>'target', v_features,
                                      spec->>'objective', coalesce(spec->'params', '{}'::jsonb), v_init);
    RETURN @extschema@.gbdt_save(name, v_model, v_spec, v_deploy);
  END IF;
  RETURN @extschema@.gbdt_train_and_save(name, (spec->>'relation')::regclass, spec->>'target', v_features,
                                         spec->>'objective', coalesce(spec->'params', '{}'::jsonb), v_deploy);
END
$$;

COMMENT ON FUNCTION gbdt_retrain_spec(text, jsonb) IS
  'Registry internal: trains from a training spec with the current role''s rights and saves the next version of a name';

-- Runs gbdt_retrain_spec as a role inside a security-restricted operation
-- (extension/pg/registry_run_as.cpp); the caller must be a member of it.
CREATE FUNCTION gbdt_registry_retrain_as(owner regrole, name text, spec jsonb) RETURNS int
  AS 'MODULE_PATHNAME', 'gbdt_registry_retrain_as'
  LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_registry_retrain_as(regrole, text, jsonb) IS
  'Registry internal: runs gbdt_retrain_spec as the given role (the caller must be a member of it) in a security-restricted operation';

CREATE FUNCTION gbdt_retrain(name text, continue_from_deployed bool DEFAULT false, version int DEFAULT NULL)
  RETURNS int
  LANGUAGE plpgsql VOLATILE
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s jsonb;
  v_owner regrole;
  v_version int;
  v_quarantined bool;
  v_which text;
BEGIN
  -- Not STRICT (version may be NULL); a NULL name or flag returns NULL as before.
  IF name IS NULL OR continue_from_deployed IS NULL THEN
    RETURN NULL;
  END IF;
  -- An error unless the current role is a member of the name's owner.
  v_owner := @extschema@.gbdt_registry_owner(name);
  -- The spec re-run: the named version's, else the deployed version's (the
  -- model in use; a newer version that was not deployed, such as a rejected
  -- if_better experiment, is not the one to retrain), else, when nothing is
  -- deployed, the newest version's.
  IF version IS NOT NULL THEN
    v_which := 'requested';
    SELECT m.version, m.spec, m.spec_quarantined INTO v_version, s, v_quarantined
    FROM @extschema@.gbdt_models m WHERE m.name = gbdt_retrain.name AND m.version = gbdt_retrain.version;
    IF NOT FOUND AND EXISTS (SELECT 1 FROM @extschema@.gbdt_models m WHERE m.name = gbdt_retrain.name) THEN
      RAISE EXCEPTION 'model "%" has no version %', name, version USING ERRCODE = 'undefined_object';
    END IF;
  ELSE
    v_which := 'deployed';
    SELECT m.version, m.spec, m.spec_quarantined INTO v_version, s, v_quarantined
    FROM @extschema@.gbdt_models m WHERE m.name = gbdt_retrain.name AND m.deployed;
    IF NOT FOUND THEN
      v_which := 'newest; none is deployed';
      SELECT m.version, m.spec, m.spec_quarantined INTO v_version, s, v_quarantined
      FROM @extschema@.gbdt_models m WHERE m.name = gbdt_retrain.name
      ORDER BY m.version DESC LIMIT 1;
    END IF;
  END IF;
  IF v_version IS NULL THEN
    RAISE EXCEPTION 'no model named "%" in the gbdt registry', name USING ERRCODE = 'undefined_object';
  END IF;
  IF s IS NULL THEN
    IF NOT EXISTS (SELECT 1 FROM @extschema@.gbdt_models m WHERE m.name = gbdt_retrain.name AND m.spec IS NOT NULL) THEN
      RAISE EXCEPTION 'model "%" has no stored training spec to retrain from', name
        USING ERRCODE = 'object_not_in_prerequisite_state',
              HINT = 'Save it with gbdt_train_and_save() or pass a spec to gbdt_save().';
    END IF;
    RAISE EXCEPTION 'version % of model "%" (%) has no stored training spec to retrain from', v_version, name, v_which
      USING ERRCODE = 'object_not_in_prerequisite_state',
            HINT = 'Name a version that has one: gbdt_retrain(name, version => n).';
  END IF;
  IF v_quarantined THEN
    RAISE EXCEPTION 'the training spec of version % of model "%" is quarantined', v_version, name
      USING ERRCODE = 'object_not_in_prerequisite_state',
            DETAIL = 'It was stored before gbdt 0.3, under weaker checks of what a spec may name; a retrain does not run it unapproved.',
            HINT = format('Check it (SELECT spec FROM gbdt_models WHERE name = %L AND version = %s); a member of the owner role approves it with SELECT gbdt_approve_spec(%L, %s).',
                          name, v_version, name, v_version);
  END IF;
  RAISE NOTICE 'gbdt_retrain: "%" from the training spec of version % (%)', name, v_version, v_which;
  -- Only the argument chooses continued training, never a stored spec.
  s := s - 'continue_from_deployed';
  IF continue_from_deployed THEN
    s := s || '{"continue_from_deployed": true}'::jsonb;
  END IF;
  -- Train and save with the owner's rights, never the caller's: a superuser's
  -- nightly job must not read what the owner cannot, and the owner's code
  -- reached by the training must not get the caller's rights back (SET ROLE
  -- would allow RESET ROLE); hence a security-restricted operation as the
  -- owner, whoever calls.
  RETURN @extschema@.gbdt_registry_retrain_as(coalesce(v_owner, current_user::regrole), name, s);
END
$$;

COMMENT ON FUNCTION gbdt_retrain(text, bool, int) IS
  'Re-runs a stored training spec of a model on the current data, with the rights of the name''s owner, and saves (and deploys per the stored strategy) a new version; the spec is that of version (when given), else of the deployed version, else of the newest; continue_from_deployed: add the spec''s num_round rounds to the deployed version instead of starting over';

-- Lifts the quarantine of a spec stored before 0.3 (docs/registry.md).
CREATE FUNCTION gbdt_approve_spec(name text, version int) RETURNS void
  LANGUAGE plpgsql VOLATILE STRICT
  SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  s jsonb;
  v_quarantined bool;
BEGIN
  PERFORM @extschema@.gbdt_registry_lock(name);
  IF @extschema@.gbdt_registry_owner(name) IS NULL THEN   -- an error unless a member of the owner
    RAISE EXCEPTION 'no model named "%" in the gbdt registry', name USING ERRCODE = 'undefined_object';
  END IF;
  SELECT m.spec, m.spec_quarantined INTO s, v_quarantined
  FROM @extschema@.gbdt_models m WHERE m.name = gbdt_approve_spec.name AND m.version = gbdt_approve_spec.version;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'model "%" has no version %', name, version USING ERRCODE = 'undefined_object';
  END IF;
  IF s IS NULL THEN
    RAISE EXCEPTION 'version % of model "%" has no training spec to approve', version, name
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  IF NOT v_quarantined THEN
    RAISE NOTICE 'gbdt_approve_spec: the spec of version % of "%" is not quarantined', version, name;
    RETURN;
  END IF;
  -- The approver must be able to read what the spec names, as its saver
  -- must (the trigger on gbdt_models checks it again for a direct UPDATE).
  PERFORM @extschema@.gbdt_registry_check_spec(s);
  UPDATE @extschema@.gbdt_models m SET spec_quarantined = false
  WHERE m.name = gbdt_approve_spec.name AND m.version = gbdt_approve_spec.version;
  RAISE NOTICE 'gbdt_approve_spec: the spec of version % of "%" is approved: gbdt_retrain may run it', version, name;
END
$$;

COMMENT ON FUNCTION gbdt_approve_spec(text, int) IS
  'Approves the quarantined training spec of a saved version (stored before 0.3) so that gbdt_retrain may run it; only members of the name''s owner role, who must be able to read the relations it names';

-- ---- explanations (issue 13) ----

CREATE FUNCTION gbdt_explain(model gbdt_model, "row" record, top_k int DEFAULT NULL)
  RETURNS TABLE(feature text, value float8, contribution float8, class float8, value_text text)
  AS 'MODULE_PATHNAME', 'gbdt_explain'
  LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_explain(gbdt_model, record, int) IS
  'Exact TreeSHAP contributions of one row (as XGBoost pred_contribs): one row per feature with its value (as read, and value_text: as the row has it, category or date text), plus a bias row; they sum to the margin; per class for multiclass models; top_k keeps the k largest |contribution| per class';

CREATE FUNCTION gbdt_explain_interactions(model gbdt_model, "row" record)
  RETURNS TABLE(feature1 text, feature2 text, interaction float8, class float8)
  AS 'MODULE_PATHNAME', 'gbdt_explain_interactions'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_explain_interactions(gbdt_model, record) IS
  'SHAP interaction values of one row (as XGBoost pred_interactions): every pair of features plus the bias, per class';

CREATE FUNCTION gbdt_explain_table(model gbdt_model, relation regclass, key text)
  RETURNS TABLE(key text, feature text, contribution float8, class float8, value_text text)
  AS 'MODULE_PATHNAME', 'gbdt_explain_table'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_explain_table(gbdt_model, regclass, text) IS
  'TreeSHAP contributions of every row of a table or view: (key, feature, contribution, class, value_text: the feature''s value as the row has it), a bias row per row and class';

CREATE FUNCTION gbdt_feature_importance(model gbdt_model, kind text, relation regclass)
  RETURNS TABLE(feature text, importance float8)
  AS 'MODULE_PATHNAME', 'gbdt_feature_importance_shap'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_feature_importance(gbdt_model, text, regclass) IS
  'Global importance over the rows of a relation: kind ''shap'' = mean |TreeSHAP contribution| per feature (summed over classes), most important first';

CREATE FUNCTION gbdt_evaluate(model gbdt_model, relation regclass, target text, group_column text)
  RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_evaluate_ranking'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_evaluate(gbdt_model, regclass, text, text) IS
  'Ranking metrics of a model per query group (group_column): ndcg, ndcg@k, map, map@k, pre@k';

CREATE FUNCTION gbdt_evaluate(model gbdt_model, relation regclass, target text, group_column text,
                              weight_column text)
  RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_evaluate_ranking'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_evaluate(gbdt_model, regclass, text, text, text) IS
  'Ranking metrics of a model per query group (group_column), weighted by the groups'' weights (weight_column: one weight per group, as XGBoost): sum(w * metric) / sum(w)';

-- Evaluation metrics: gbdt_evaluate with a decision threshold (binary
-- models' accuracy, precision, recall and f1 count a row as positive when
-- P(class 1) > threshold).  The three-argument form stays as it was.
CREATE FUNCTION gbdt_evaluate(model gbdt_model, relation regclass, target text, threshold float8)
  RETURNS jsonb
  AS 'MODULE_PATHNAME', 'gbdt_evaluate'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_evaluate(gbdt_model, regclass, text, float8) IS
  'Metrics of a model on the rows of a table or view against a target column, binary threshold metrics at threshold (in [0, 1])';

-- Evaluation curves: the ROC / precision-recall points, the confusion
-- matrix at a threshold and the calibration bins of a classification
-- model on the rows of a relation.
CREATE FUNCTION gbdt_roc_curve(model gbdt_model, relation regclass, target text)
  RETURNS TABLE(threshold float8, tpr float8, fpr float8, "precision" float8, recall float8)
  AS 'MODULE_PATHNAME', 'gbdt_roc_curve'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION gbdt_roc_curve(gbdt_model, regclass, text) IS
  'ROC and precision-recall curve of a binary model: one row per distinct P(class 1) (rows with P >= threshold positive) after a first row at +Infinity; its trapezoid area is the AUC';

CREATE FUNCTION gbdt_confusion_matrix(model gbdt_model, relation regclass, target text,
                                      threshold float8 DEFAULT 0.5)
  RETURNS TABLE(actual text, predicted text, count bigint)
  AS 'MODULE_PATHNAME', 'gbdt_confusion_matrix'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 4;

COMMENT ON FUNCTION gbdt_confusion_matrix(gbdt_model, regclass, text, float8) IS
  'Confusion matrix of a classification model: one row per (actual, predicted) class pair; binary models predict class 1 when P(class 1) > threshold';

CREATE FUNCTION gbdt_calibration(model gbdt_model, relation regclass, target text,
                                 bins int DEFAULT 10)
  RETURNS TABLE(bin int, mean_predicted float8, observed_rate float8, count bigint)
  AS 'MODULE_PATHNAME', 'gbdt_calibration'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 10;

COMMENT ON FUNCTION gbdt_calibration(gbdt_model, regclass, text, int) IS
  'Calibration of a binary model: equal-width bins of P(class 1) (1 .. bins, those holding rows), their mean prediction, the observed rate of class 1 and the row count';

-- Batch outputs: gbdt_predict_table's output argument ('value': the
-- prediction as text; 'class': the class name of a classification model)
-- and the class probabilities of every row of a relation.
CREATE FUNCTION gbdt_predict_table(model gbdt_model, relation regclass, key text, output text)
  RETURNS TABLE(key text, prediction text)
  AS 'MODULE_PATHNAME', 'gbdt_predict_table'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION gbdt_predict_table(gbdt_model, regclass, text, text) IS
  'Scores every row of a table or view: (key::text, prediction as text); output ''value'' (the prediction) or ''class'' (class name, classification models)';

CREATE FUNCTION gbdt_predict_proba_table(model gbdt_model, relation regclass, key text)
  RETURNS TABLE(key text, class text, probability float8)
  AS 'MODULE_PATHNAME', 'gbdt_predict_proba_table'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 1000;

COMMENT ON FUNCTION gbdt_predict_proba_table(gbdt_model, regclass, text) IS
  'Class probabilities of every row of a table or view: one row (key::text, class name, probability) per row and class, as gbdt_predict_proba';

-- Explanations of a relation, top features only: gbdt_explain_table with
-- top_k (NULL = every feature), as gbdt_explain's top_k.
CREATE FUNCTION gbdt_explain_table(model gbdt_model, relation regclass, key text, top_k int)
  RETURNS TABLE(key text, feature text, contribution float8, class float8, value_text text)
  AS 'MODULE_PATHNAME', 'gbdt_explain_table'
  LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gbdt_explain_table(gbdt_model, regclass, text, int) IS
  'TreeSHAP contributions of every row of a table or view: per row and class the top_k features of largest |contribution| (most first) and a bias row; top_k NULL = every feature';
-- ---------------------------------------------------------------------------
-- Model-building workflow: cross-validation folds and gbdt_cv
-- (docs/sql-api.md "Cross-validation").  The "exclude" parameter needs no
-- SQL object: it is a params key of gbdt_train and gbdt_cv.
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_fold(ordinal bigint, nfold int, seed bigint DEFAULT 0)
  RETURNS int
  AS 'MODULE_PATHNAME', 'gbdt_fold'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gbdt_fold(bigint, int, bigint) IS
  'The gbdt_cv fold (0 .. nfold-1) of row number ordinal (from 0, rows with a non-NULL target in the order gbdt_train reads them; for ranking, the query group number in order of first appearance), by the hash of gbdt_validation_row';

CREATE FUNCTION gbdt_cv(relation regclass, target text, features text[] DEFAULT NULL,
                        objective text DEFAULT NULL, params jsonb DEFAULT '{}',
                        nfold int DEFAULT 5, stratified bool DEFAULT false,
                        seed bigint DEFAULT 0)
  RETURNS TABLE(round int, metric text, train_mean float8, train_std float8,
                test_mean float8, test_std float8)
  AS 'MODULE_PATHNAME', 'gbdt_cv'
  LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_cv(regclass, text, text[], text, jsonb, int, bool, bigint) IS
  'Cross-validation as xgboost.cv: one booster per fold (test rows: gbdt_fold(ordinal, nfold, seed) = k), one row per round and metric with the folds'' mean and standard deviation of the train and test metric; early_stopping_rounds stops on the mean test metric';

-- ---------------------------------------------------------------------------
-- Model-building workflow: parameter search by cross-validation, gbdt_tune
-- (docs/sql-api.md "Parameter search").
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_tune(relation regclass, target text, features text[] DEFAULT NULL,
                          objective text DEFAULT NULL, params jsonb DEFAULT '{}',
                          search jsonb DEFAULT '{}', trials int DEFAULT NULL,
                          nfold int DEFAULT 3, seed bigint DEFAULT 0)
  RETURNS TABLE(trial int, params jsonb, metric text, score float8, score_std float8,
                rounds int)
  AS 'MODULE_PATHNAME', 'gbdt_tune'
  LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_tune(regclass, text, text[], text, jsonb, jsonb, int, int, bigint) IS
  'Parameter search: each trial (a grid point of the search lists, or a draw of its ranges with the seed) cross-validated as gbdt_cv on the same binned rows and folds; score: the mean test metric at the trial''s best round';

-- ---------------------------------------------------------------------------
-- Model-building workflow: training on the rows of a query, gbdt_train_query
-- (docs/sql-api.md "Training on a query").
-- ---------------------------------------------------------------------------
CREATE FUNCTION gbdt_train_query(query text, target text, features text[] DEFAULT NULL,
                                 objective text DEFAULT NULL, params jsonb DEFAULT '{}',
                                 init_model gbdt_model DEFAULT NULL)
  RETURNS gbdt_model
  AS 'MODULE_PATHNAME', 'gbdt_train_query'
  LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_train_query(text, text, text[], text, jsonb, gbdt_model) IS
  'Trains as gbdt_train on the rows of a SELECT (run with the caller''s rights, in the query''s order, through a temporary view dropped afterwards)';

-- Drift of a relation against the model's training rows, on the model's
-- own bins: PSI and KS per feature and for the prediction, most shifted
-- first (models trained before 0.3 and imported models have no training
-- distribution: an error says so).
CREATE FUNCTION gbdt_drift(model gbdt_model, relation regclass)
  RETURNS TABLE(feature text, psi float8, ks float8, missing_rate_train float8,
                missing_rate_now float8, unseen_category_rate float8)
  AS 'MODULE_PATHNAME', 'gbdt_drift'
  LANGUAGE C STABLE STRICT PARALLEL RESTRICTED ROWS 100;

COMMENT ON FUNCTION gbdt_drift(gbdt_model, regclass) IS
  'Drift of a table or view against the model''s training rows on the model''s bins: per feature and for the prediction PSI, KS, missing rates (training, now) and the rate of unseen categories; by PSI descending';

-- Training across servers: the shard side (docs/distributed.md "Training on
-- foreign partitions").  Internal: the coordinator's gbdt_train calls it on
-- each shard server, one statement per step, through its own sessions.
-- No SET clause (scripts/check-sql-safety.sh: C functions qualify their SPI
-- texts instead): the relation name it gets is schema-qualified and
-- resolved as a name, and its one query names every object by schema.
CREATE FUNCTION gbdt_shard_step(token text, step text, payload bytea)
  RETURNS bytea
  AS 'MODULE_PATHNAME', 'gbdt_shard_step'
  LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_shard_step(text, text, bytea) IS
  'Internal (training across servers): one step of a shard training of this session, under a 32-hex-digit token: open (reads the named relation with the caller''s rights), close, or a step of the coordinator''s protocol';

-- Training specs that hold a query (docs/registry.md "Specs from a query"):
-- gbdt_train_query_and_save stores the query in its canonical form, the spec
-- check runs it with LIMIT 0 as the saver, and gbdt_retrain re-runs it with
-- the owner's rights.
CREATE FUNCTION gbdt_registry_check_query(query text) RETURNS text
  AS 'MODULE_PATHNAME', 'gbdt_registry_check_query'
  LANGUAGE C STABLE PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_registry_check_query(text) IS
  'Registry internal: the canonical form of a training spec''s query (one SELECT, schema-qualified names), or an error when it is not one SELECT, reads something temporary, or the current role cannot run it';

CREATE FUNCTION gbdt_train_query_and_save(name text, query text, target text,
                                          features text[] DEFAULT NULL, objective text DEFAULT NULL,
                                          params jsonb DEFAULT '{}', deploy text DEFAULT 'always')
  RETURNS int
  AS 'MODULE_PATHNAME', 'gbdt_train_query_and_save'
  LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gbdt_train_query_and_save(text, text, text, text[], text, jsonb, text) IS
  'Trains on the rows of a SELECT (as gbdt_train_query) and saves the model under name with a spec holding the query (schema-qualified), which gbdt_retrain re-runs with the owner''s rights; returns the version';
