#!/usr/bin/env bash
# The gbdt demo (README): from a fresh Debian 12 machine, as root,
#
#   bash scripts/demo.sh
#
#  1. installs missing dependencies (scripts/install-deps.sh, as root)
#  2. make && make install
#  3. starts a throw-away cluster (scripts/lib-cluster.sh: initdb in a temp dir,
#     server run by the `postgres` user, unix socket only)
#  4. loads the shared Higgs sample (../shared/data/higgs_7k.train.tsv) and
#     holds out every 5th row for testing
#  5. trains with gbdt_train, shows gbdt_model_info, feature importance and a
#     few gbdt_predict rows, and prints the held-out AUC (gbdt_evaluate)
#  6. stops and removes the cluster (also on failure: EXIT trap)
#
# Environment: GBDT_SHARED (default ../shared beside the repository),
# GBDT_PGPORT (default 5433; the socket lives in the temp dir, so it never
# clashes with a running server), GBDT_SKIP_DEPS=1 skips step 1,
# GBDT_KEEP_CLUSTER=1 keeps the cluster dir.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SHARED=${GBDT_SHARED:-$ROOT/../shared}
HIGGS=$SHARED/data/higgs_7k.train.tsv

banner() { echo; echo "==== $* ===="; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if [ ! -f "$HIGGS" ]; then
  echo "demo: $HIGGS not found (set GBDT_SHARED to the directory holding data/)" >&2
  exit 1
fi
HIGGS=$(cd "$(dirname "$HIGGS")" && pwd)/$(basename "$HIGGS")

# ---- 1. dependencies --------------------------------------------------------
if [ "${GBDT_SKIP_DEPS:-0}" != 1 ]; then
  banner "dependencies (scripts/install-deps.sh)"
  as_root bash "$ROOT/scripts/install-deps.sh"
  echo "dependencies present"
fi

# ---- 2. build and install ---------------------------------------------------
banner "build (make && make install)"
make -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
as_root make install >/dev/null
echo "installed gbdt into $(pg_config --pkglibdir) and $(pg_config --sharedir)/extension"

# ---- 3. throw-away cluster --------------------------------------------------
banner "throw-away cluster"
# shellcheck source=scripts/lib-cluster.sh
source "$ROOT/scripts/lib-cluster.sh"
cluster_start "${GBDT_PGPORT:-5433}"   # installs the EXIT trap that stops and removes it

# ---- 4. data ----------------------------------------------------------------
banner "load the Higgs sample ($HIGGS)"
FEATURES=$(seq -s, -f 'f%g' 0 27)
cluster_psql <<SQL
CREATE EXTENSION gbdt;

-- 7000 rows: label (0/1) then 28 float features, tab-separated.
CREATE TABLE higgs (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label float8,
  $(seq -s, -f 'f%g float8' 0 27));
\\copy higgs (label, $FEATURES) FROM '$HIGGS'

-- Every 5th row is held out.  The training view has no id column, so the
-- default feature list (every numeric column but the target) is f0..f27.
CREATE VIEW higgs_train AS SELECT label, $FEATURES FROM higgs WHERE id % 5 <> 0;
CREATE VIEW higgs_test  AS SELECT * FROM higgs WHERE id % 5 = 0;
SELECT (SELECT count(*) FROM higgs_train) AS train_rows, (SELECT count(*) FROM higgs_test) AS test_rows;
SQL

# ---- 5. train, inspect, score -----------------------------------------------
banner "train, inspect, score"
cluster_psql <<'SQL'
\pset footer off
\set ECHO queries
SELECT gbdt_build_info();

\echo
\echo '-- Train on the training view (binary 0/1 target: objective binary:logistic is inferred)'
\timing on
CREATE TABLE models AS
SELECT 'higgs' AS name,
       gbdt_train('higgs_train', 'label',
                  params => '{"eta": 0.1, "max_depth": 6, "num_round": 100}') AS model;
\timing off

\echo
\echo '-- gbdt_model_info (a few of its keys)'
SELECT i->>'objective' AS objective, i->'rounds' AS rounds, i->'nodes' AS nodes,
       i->'rows_used' AS rows_used, i->>'eval_metric' AS eval_metric,
       round((i->>'train_metric')::numeric, 4) AS train_metric,
       pg_column_size(model) AS model_bytes
FROM models, gbdt_model_info(model) AS i;

\echo
\echo '-- Top 5 features by average gain'
SELECT feature, round(importance::numeric, 3) AS gain
FROM models, gbdt_feature_importance(model)
LIMIT 5;

\echo
\echo '-- Score held-out rows: whole-row argument, features matched by column name; result = P(label = 1)'
SELECT t.id, t.label, round(gbdt_predict(m.model, t)::numeric, 4) AS p_label_1
FROM higgs_test t, models m
ORDER BY t.id
LIMIT 5;

SELECT p.class, round(p.probability::numeric, 4) AS probability
FROM higgs_test t, models m, gbdt_predict_proba(m.model, t) AS p
WHERE t.id = 5;

\echo
\echo '-- Held-out metrics'
SELECT jsonb_pretty(gbdt_evaluate(model, 'higgs_test', 'label')) AS evaluation FROM models;
SQL

AUC=$(cluster_psql -At -c "SELECT round((gbdt_evaluate(model, 'higgs_test', 'label')->>'auc')::numeric, 4) FROM models")
echo
echo "held-out AUC: $AUC"

# ---- 6. the EXIT trap stops and removes the cluster -------------------------
