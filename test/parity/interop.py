#!/usr/bin/env python3
"""XGBoost JSON interop parity: gbdt_export / gbdt_import against Python XGBoost.

Usage: interop.py DATADIR [--tol 1e-6]

Runs against the database that psql reaches with the environment's PGHOST,
PGPORT, PGUSER, PGDATABASE (scripts/test.sh sets them for its throw-away
cluster), after the tables of test/parity/schema.sql are loaded from DATADIR
(the CSV files test/parity/reference.py writes).

Export (SQL -> Python): for each case, trains a model in SQL, exports it with
gbdt_export, loads the JSON with xgboost.Booster(model_file=...) and compares
XGBoost's predictions on the *_test rows with gbdt's own predictions in SQL
(probabilities for classification, every class for multiclass).  Also checks
that the feature names arrive in XGBoost, including a table whose columns have
spaces, dashes, non-ASCII letters and the types float8/int/bool (XGBoost
feature types float/int/c: a boolean column is categorical) with NULLs.

Import (Python -> SQL): trains XGBoost (tree_method=hist) on the *_train rows,
saves the model as JSON, imports it with gbdt_import and compares gbdt's SQL
predictions on the *_test rows with XGBoost's.  One case uses custom feature
names and scores rows by column name through a view that renames the columns.

Exits non-zero when any |prediction difference| exceeds --tol or a check
fails; prints the max |diff| per case and overall.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import xgboost as xgb

NFEAT = 28
FEATS = [f"f{j}" for j in range(NFEAT)]


def psql(sql, stdin=None):
    """Runs SQL with psql (unaligned, tuples only); returns stdout lines."""
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\t", "-c", sql],
                       input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed ({r.returncode}): {r.stderr.strip()}\nSQL: {sql[:500]}")
    return [ln for ln in r.stdout.splitlines() if ln != ""]


def psql_script(script):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\t"],
                       input=script, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed ({r.returncode}): {r.stderr.strip()}")
    return [ln for ln in r.stdout.splitlines() if ln != ""]


def read_csv(path, has_id):
    ids, ys, xs = [], [], []
    with open(path) as f:
        rd = csv.reader(f)
        next(rd)
        for row in rd:
            if has_id:
                ids.append(int(row[0]))
                row = row[1:]
            ys.append(float(row[0]))
            xs.append([float(v) if v != "" else np.nan for v in row[1:]])
    return np.array(ids, dtype=np.int64), np.array(ys), np.array(xs, dtype=np.float32)


def sql_predictions(model_sql, table, multiclass, nclass=0):
    """gbdt's predictions of the test rows: {id: value} or {id: [p_0..p_K-1]}."""
    if multiclass:
        lines = psql(f"WITH m AS MATERIALIZED (SELECT {model_sql} AS m) "
                     f"SELECT t.id, p.class, p.probability FROM m, {table} t, "
                     f"LATERAL gbdt_predict_proba(m.m, t) p ORDER BY t.id, p.class")
        out = {}
        for ln in lines:
            i, c, p = ln.split("\t")
            out.setdefault(int(i), []).append(float(p))
        return out
    lines = psql(f"WITH m AS MATERIALIZED (SELECT {model_sql} AS m) "
                 f"SELECT t.id, gbdt_predict(m.m, t) FROM m, {table} t ORDER BY t.id")
    return {int(i): float(p) for i, p in (ln.split("\t") for ln in lines)}


def compare(name, ids, ours, theirs, tol, failures, relative=False):
    """Max |ours - theirs|; must be <= tol (relative=True: <= tol * max(1, |theirs|),
    for count:poisson, whose predictions are exp(margin) computed by XGBoost in
    float: the float rounding of large counts alone is ~6e-8 relative)."""
    a = np.array([ours[int(i)] for i in ids], dtype=np.float64)
    b = np.asarray(theirs, dtype=np.float64).reshape(a.shape)
    d = float(np.max(np.abs(a - b))) if a.size else float("nan")
    scale = np.maximum(1.0, np.abs(b)) if relative else 1.0
    ok = a.size > 0 and bool(np.all(np.abs(a - b) <= tol * scale)) and bool(np.all(np.isfinite(a)))
    print(f"  {name:<50} rows {len(ids):5d}  max |diff| {d:.3e}  {'ok' if ok else 'FAIL'}"
          + ("  (relative tolerance)" if relative else ""))
    if not ok:
        failures.append(f"{name}: max |diff| {d:.3e} > {tol}")
    return d


def load_json_into_sql(tmp_table, json_text):
    """Stores a JSON document in a fresh table (COPY text format from stdin)."""
    payload = json_text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    psql_script(f"DROP TABLE IF EXISTS {tmp_table};\n"
                f"CREATE TABLE {tmp_table} (j jsonb);\n"
                f"COPY {tmp_table} FROM STDIN;\n{payload}\n\\.\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("datadir")
    ap.add_argument("--tol", type=float, default=1e-6)
    a = ap.parse_args()
    tol = a.tol
    failures = []
    overall = 0.0
    required = 0.0  # regression, binary, multiclass (the objectives the 1e-6 promise names)
    work = tempfile.mkdtemp(prefix="gbdt-interop-")

    data = {}
    for ds in ("higgs", "multi", "reg"):
        _, ytr, xtr = read_csv(os.path.join(a.datadir, f"{ds}_train.csv"), False)
        ids, yte, xte = read_csv(os.path.join(a.datadir, f"{ds}_test.csv"), True)
        data[ds] = (xtr, ytr, ids, xte, yte)
    print(f"xgboost {xgb.__version__}; tolerance {tol}")

    # ---------------- export: SQL -> XGBoost ----------------
    print("export (gbdt_train -> gbdt_export -> xgboost.Booster):")
    export_cases = [
        ("higgs binary:logistic", "higgs", "binary:logistic",
         {"num_round": 40, "eta": 0.1, "max_depth": 6}),
        ("higgs binary:logistic early-stopped", "higgs", "binary:logistic",
         {"num_round": 200, "eta": 0.3, "max_depth": 4, "validation_fraction": 0.2,
          "early_stopping_rounds": 5}),
        ("multi multi:softprob (5 classes)", "multi", "multi:softprob",
         {"num_round": 30, "eta": 0.1, "max_depth": 6}),
        ("reg reg:squarederror (2% missing)", "reg", "reg:squarederror",
         {"num_round": 40, "eta": 0.1, "max_depth": 8, "max_bin": 64}),
        ("reg count:poisson", "reg_pois", "count:poisson",
         {"num_round": 30, "eta": 0.1, "max_depth": 5}),
    ]
    # Poisson needs a non-negative count target: a view over the regression set.
    psql("CREATE OR REPLACE VIEW reg_pois_train AS SELECT floor(abs(label))::float8 AS label, "
         + ", ".join(FEATS) + " FROM reg_train; "
         "CREATE OR REPLACE VIEW reg_pois_test AS SELECT id, floor(abs(label))::float8 AS label, "
         + ", ".join(FEATS) + " FROM reg_test")
    for name, ds, obj, params in export_cases:
        base = "reg" if ds == "reg_pois" else ds
        _, _, ids, xte, _ = data[base]
        psql(f"DROP TABLE IF EXISTS interop_m; CREATE TABLE interop_m AS SELECT "
             f"gbdt_train('{ds}_train', 'label', NULL, '{obj}', '{json.dumps(params)}') AS m")
        js = psql("SELECT gbdt_export(m) FROM interop_m")[0]
        path = os.path.join(work, f"export_{ds}_{len(params)}.json")
        with open(path, "w") as f:
            f.write(js)
        bst = xgb.Booster(model_file=path)
        if list(bst.feature_names or []) != FEATS:
            failures.append(f"{name}: feature names in XGBoost {bst.feature_names} != {FEATS}")
        info = json.loads(psql("SELECT gbdt_model_info(m) FROM interop_m")[0])
        if bst.num_boosted_rounds() != info["rounds"]:
            failures.append(f"{name}: XGBoost sees {bst.num_boosted_rounds()} rounds, gbdt {info['rounds']}")
        theirs = bst.predict(xgb.DMatrix(xte, missing=np.nan, feature_names=FEATS))
        ours = sql_predictions("(SELECT m FROM interop_m)", f"{ds}_test", obj == "multi:softprob")
        d = compare(name, ids, ours, theirs, tol, failures, obj == "count:poisson")
        overall = max(overall, d)
        if obj != "count:poisson":
            required = max(required, d)

    # Named columns of three types (float8, int, bool): names and types arrive
    # in XGBoost, which scores the rows as gbdt does.
    name = "named float/int/bool columns"
    psql('DROP TABLE IF EXISTS interop_named; CREATE TABLE interop_named AS '
         'SELECT i AS id, (i % 7)::float8 + sin(i) AS "Target", sin(i * 0.3)::float8 AS "Col A", '
         '(i % 13)::int AS "b-2", (i % 3 = 0) AS "flag ü", '
         'CASE WHEN i % 11 = 0 THEN NULL ELSE cos(i)::float8 END AS "x.nulls" '
         'FROM generate_series(1, 3000) i')
    psql("DROP TABLE IF EXISTS interop_m; CREATE TABLE interop_m AS SELECT gbdt_train('interop_named', "
         "'Target', ARRAY['Col A', 'b-2', 'flag ü', 'x.nulls'], 'reg:squarederror', "
         "'{\"num_round\": 20, \"max_depth\": 5}') AS m")
    path = os.path.join(work, "export_named.json")
    with open(path, "w") as f:
        f.write(psql("SELECT gbdt_export(m) FROM interop_m")[0])
    bst = xgb.Booster(model_file=path)
    # A boolean feature is categorical: codes false = 0 (the more frequent
    # value), true = 1, which is flag::int below.
    want_names, want_types = ["Col A", "b-2", "flag ü", "x.nulls"], ["float", "int", "c", "float"]
    if list(bst.feature_names or []) != want_names or list(bst.feature_types or []) != want_types:
        failures.append(f"{name}: XGBoost sees names {bst.feature_names} types {bst.feature_types}")
    rows = [ln.split("\t") for ln in psql(
        'SELECT t.id, t."Col A", t."b-2", t."flag ü"::int, coalesce(t."x.nulls"::text, \'NaN\'), '
        "gbdt_predict(m.m, t) FROM interop_named t, interop_m m ORDER BY t.id")]
    ids = np.array([int(r[0]) for r in rows])
    xn = np.array([[float(v) for v in r[1:5]] for r in rows], dtype=np.float32)
    ours = {int(r[0]): float(r[5]) for r in rows}
    theirs = bst.predict(xgb.DMatrix(xn, missing=np.nan, feature_names=bst.feature_names,
                                     feature_types=bst.feature_types))
    d = compare(name, ids, ours, theirs, tol, failures)
    overall = max(overall, d)
    required = max(required, d)
    psql("DROP TABLE IF EXISTS interop_named")

    # ---------------- import: XGBoost -> SQL ----------------
    print("import (xgboost.train -> save_model(json) -> gbdt_import):")
    import_cases = [
        ("higgs binary:logistic", "higgs", {"objective": "binary:logistic"}, 40, None),
        ("higgs binary:logistic base_score=0.3", "higgs",
         {"objective": "binary:logistic", "base_score": 0.3}, 20, None),
        ("multi multi:softprob (5 classes)", "multi",
         {"objective": "multi:softprob", "num_class": 5}, 30, None),
        ("multi multi:softmax (5 classes, as probabilities)", "multi",
         {"objective": "multi:softmax", "num_class": 5}, 10, None),
        ("reg reg:squarederror (2% missing), depth 10", "reg",
         {"objective": "reg:squarederror", "max_depth": 10, "eta": 0.2}, 40, None),
        ("reg count:poisson", "reg_pois", {"objective": "count:poisson"}, 30, None),
        ("reg tree_method=exact (>255 thresholds/feature)", "reg",
         {"objective": "reg:squarederror", "tree_method": "exact", "max_depth": 8}, 60, None),
        ("reg reg:squarederror, named features by row", "reg",
         {"objective": "reg:squarederror"}, 25, [f"Feat {j}" for j in range(NFEAT)]),
    ]
    named_cols = ", ".join(f'f{j} AS "Feat {j}"' for j in range(NFEAT))
    psql(f"CREATE OR REPLACE VIEW reg_named_test AS SELECT id, label, {named_cols} FROM reg_test")
    for name, ds, params, rounds, fnames in import_cases:
        base = "reg" if ds == "reg_pois" else ds
        xtr, ytr, ids, xte, _ = data[base]
        if ds == "reg_pois":
            ytr = np.floor(np.abs(ytr))
        p = {"tree_method": "hist", "eta": 0.1, "max_depth": 6, "max_bin": 256, "seed": 0}
        p.update(params)
        dtr = xgb.DMatrix(xtr, label=ytr, missing=np.nan, feature_names=fnames or FEATS)
        bst = xgb.train(p, dtr, num_boost_round=rounds)
        path = os.path.join(work, f"import_{len(failures)}_{ds}.json")
        bst.save_model(path)
        with open(path) as f:
            js = f.read()
        load_json_into_sql("interop_json", js)
        psql("DROP TABLE IF EXISTS interop_m; "
             "CREATE TABLE interop_m AS SELECT gbdt_import(j) AS m FROM interop_json")
        info = json.loads(psql("SELECT gbdt_model_info(m) FROM interop_m")[0])
        want_names = fnames or FEATS
        got_names = [f["name"] for f in info["features"]]
        if got_names != want_names:
            failures.append(f"{name}: imported feature names {got_names[:3]}... != {want_names[:3]}...")
        multiclass = params["objective"].startswith("multi:")
        dte = xgb.DMatrix(xte, missing=np.nan, feature_names=fnames or FEATS)
        if params["objective"] == "multi:softmax":
            theirs = bst.predict(dte, output_margin=True)
            theirs = np.exp(theirs - theirs.max(axis=1, keepdims=True))
            theirs /= theirs.sum(axis=1, keepdims=True)
        else:
            theirs = bst.predict(dte)
        table = "reg_named_test" if fnames else f"{ds}_test"
        ours = sql_predictions("(SELECT m FROM interop_m)", table, multiclass)
        d = compare(name, ids, ours, theirs, tol, failures, params["objective"] == "count:poisson")
        overall = max(overall, d)
        if params["objective"] != "count:poisson":
            required = max(required, d)
        if not multiclass:
            # The batch path (gbdt_predict_table) must agree with the row path.
            batch = {int(k): float(v) for k, v in (ln.split("\t") for ln in psql(
                f"SELECT p.key, p.prediction FROM interop_m m, gbdt_predict_table(m.m, '{table}', 'id') p"))}
            nbad = sum(1 for i in ids if batch.get(int(i)) != ours[int(i)])
            if nbad:
                failures.append(f"{name}: gbdt_predict_table differs from gbdt_predict on {nbad} rows")
        # And back: export the imported model and let XGBoost score it again.
        js2 = psql("SELECT gbdt_export(m) FROM interop_m")[0]
        path2 = path + ".roundtrip.json"
        with open(path2, "w") as f:
            f.write(js2)
        bst2 = xgb.Booster(model_file=path2)
        if params["objective"] == "multi:softmax":
            # multi:softmax round-trips as multi:softmax (0.2), whose predict
            # is the class: compare its probabilities, as above.
            t2 = bst2.predict(dte, output_margin=True)
            t2 = np.exp(t2 - t2.max(axis=1, keepdims=True))
            t2 /= t2.sum(axis=1, keepdims=True)
        else:
            t2 = bst2.predict(dte)
        d2 = float(np.max(np.abs(np.asarray(t2, dtype=np.float64).reshape(np.shape(theirs))
                                 - np.asarray(theirs, dtype=np.float64))))
        print(f"  {'  ... re-exported, XGBoost vs XGBoost':<50} rows {len(ids):5d}  max |diff| {d2:.3e}  "
              f"{'ok' if d2 <= tol else 'FAIL'}")
        overall = max(overall, d2)
        if params["objective"] != "count:poisson":
            required = max(required, d2)
        if not d2 <= tol:
            failures.append(f"{name}: re-exported model differs by {d2:.3e}")

    psql("DROP TABLE IF EXISTS interop_m, interop_json; DROP VIEW IF EXISTS reg_named_test, "
         "reg_pois_train, reg_pois_test")
    print(f"interop overall max |diff| {required:.3e} regression/binary/multiclass, "
          f"{overall:.3e} with count:poisson (tolerance {tol}, relative for poisson)")
    if failures:
        print(f"(model files kept in {work})")
        print("FAILURES:")
        for f in failures:
            print("  " + f)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
