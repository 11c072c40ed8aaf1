-- gbdt 0.1: gradient-boosted decision trees inside PostgreSQL.
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
