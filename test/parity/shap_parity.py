#!/usr/bin/env python3
"""TreeSHAP parity: gbdt_explain_table / gbdt_explain_interactions against
XGBoost's pred_contribs / pred_interactions (approx_contribs=False).

Usage: shap_parity.py DATADIR [--tol 1e-5] [--interaction-rows 15]

Runs against the database psql reaches (PGHOST, PGPORT, PGUSER, PGDATABASE),
after scripts/test.sh has loaded the tables of test/parity/schema.sql from
DATADIR (the CSV files of test/parity/reference.py), as interop.py does; it
reuses interop.py's way of talking to the cluster (psql subprocesses).

Trained in SQL (gbdt_train -> gbdt_export -> xgboost.Booster): regression,
binary and multiclass models; trained by XGBoost (xgboost.train ->
save_model(json) -> gbdt_import): binary, multiclass and a deep regression
with missing values.  For every case, every *_test row, every class and
every feature plus the bias: |gbdt contribution - XGBoost pred_contribs|
<= tol; for the first rows also the interaction values.  Prints the max
|diff| per case and overall ("shap parity overall ..."); exits non-zero
when one exceeds tol or a check fails.
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np
import xgboost as xgb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interop import FEATS, load_json_into_sql, psql, read_csv  # noqa: E402


def model_features(model_sql):
    info = json.loads(psql(f"SELECT gbdt_model_info({model_sql})")[0])
    # Output groups: one per class for multi:*, else one (binary included).
    K = int(info.get("num_class") or 1) if str(info["objective"]).startswith("multi:") else 1
    return [f["name"] for f in info["features"]], max(1, K)


def ours_contribs(table, ids, feats, K):
    """gbdt_explain_table of the table's rows: array (n, K, nf + 1), bias last."""
    col = {f: j for j, f in enumerate(feats)}
    col["bias"] = len(feats)
    row = {int(i): r for r, i in enumerate(ids)}
    out = np.full((len(ids), K, len(feats) + 1), np.nan)
    lines = psql(f"SELECT e.key, coalesce(e.class, 0), e.feature, e.contribution "
                 f"FROM shap_m, gbdt_explain_table(shap_m.m, '{table}', 'id') e")
    for ln in lines:
        key, cls, feat, val = ln.split("\t")
        out[row[int(key)], int(float(cls)), col[feat]] = float(val)
    return out


def ours_interactions(table, ids, feats, K):
    """gbdt_explain_interactions of the given rows: (n, K, nf + 1, nf + 1)."""
    col = {f: j for j, f in enumerate(feats)}
    col["bias"] = len(feats)
    row = {int(i): r for r, i in enumerate(ids)}
    W = len(feats) + 1
    out = np.full((len(ids), K, W, W), np.nan)
    id_list = ",".join(str(int(i)) for i in ids)
    lines = psql(f"SELECT t.id, coalesce(e.class, 0), e.feature1, e.feature2, e.interaction "
                 f"FROM shap_m, {table} t, gbdt_explain_interactions(shap_m.m, t) e "
                 f"WHERE t.id IN ({id_list})")
    for ln in lines:
        key, cls, f1, f2, val = ln.split("\t")
        out[row[int(key)], int(float(cls)), col[f1], col[f2]] = float(val)
    return out


def compare(name, what, ours, theirs, tol, failures):
    if ours.shape != theirs.shape:
        failures.append(f"{name} {what}: shape {ours.shape} != xgboost {theirs.shape}")
        print(f"  {name:<52} {what:<13} shape mismatch {ours.shape} vs {theirs.shape}")
        return float("inf")
    if np.isnan(ours).any():
        failures.append(f"{name} {what}: {int(np.isnan(ours).sum())} values missing from gbdt's output")
        return float("inf")
    d = float(np.max(np.abs(ours - theirs))) if ours.size else 0.0
    ok = d <= tol
    print(f"  {name:<52} {what:<13} values {ours.size:>8}  max |diff| {d:.3e}  {'ok' if ok else 'FAIL'}")
    if not ok:
        failures.append(f"{name} {what}: max |diff| {d:.3e} > {tol}")
    return d


def run_case(name, ds, bst, ids, xte, tol, nint, failures):
    feats, K = model_features("(SELECT m FROM shap_m)")
    dte = xgb.DMatrix(xte, missing=np.nan, feature_names=FEATS)
    theirs = bst.predict(dte, pred_contribs=True, approx_contribs=False)
    if theirs.ndim == 2:
        theirs = theirs[:, None, :]
    # XGBoost's columns are the booster's features; ours are named.
    order = [FEATS.index(f) for f in feats] + [len(FEATS)]
    theirs = theirs[:, :, order]
    ours = ours_contribs(f"{ds}_test", ids, feats, K)
    worst = compare(name, "contributions", ours, theirs, tol, failures)
    if nint > 0:
        sub = slice(0, nint)
        ti = bst.predict(xgb.DMatrix(xte[sub], missing=np.nan, feature_names=FEATS),
                         pred_interactions=True, approx_contribs=False)
        if ti.ndim == 3:
            ti = ti[:, None, :, :]
        ti = ti[:, :, order][:, :, :, order]
        oi = ours_interactions(f"{ds}_test", ids[sub], feats, K)
        worst = max(worst, compare(name, "interactions", oi, ti, tol, failures))
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("datadir")
    ap.add_argument("--tol", type=float, default=1e-5)
    ap.add_argument("--interaction-rows", type=int, default=15)
    a = ap.parse_args()
    failures = []
    overall = 0.0
    work = tempfile.mkdtemp(prefix="gbdt-shap-")
    data = {}
    for ds in ("higgs", "multi", "reg"):
        _, ytr, xtr = read_csv(os.path.join(a.datadir, f"{ds}_train.csv"), False)
        ids, _, xte = read_csv(os.path.join(a.datadir, f"{ds}_test.csv"), True)
        data[ds] = (xtr, ytr, ids, xte)
    print(f"xgboost {xgb.__version__}; tolerance {a.tol}")

    print("trained in SQL (gbdt_train -> gbdt_export -> xgboost.Booster):")
    sql_cases = [
        ("reg reg:squarederror (2% missing), 60 rounds", "reg", "reg:squarederror",
         {"num_round": 60}),
        ("reg reg:squarederror, depth 8, 30 rounds", "reg", "reg:squarederror",
         {"num_round": 30, "max_depth": 8}),
        ("higgs binary:logistic, 60 rounds", "higgs", "binary:logistic", {"num_round": 60}),
        ("multi multi:softprob (5 classes), 25 rounds", "multi", "multi:softprob",
         {"num_round": 25}),
    ]
    for name, ds, obj, params in sql_cases:
        _, _, ids, xte = data[ds]
        psql("DROP TABLE IF EXISTS shap_m; CREATE TABLE shap_m AS SELECT "
             f"gbdt_train('{ds}_train', 'label', NULL, '{obj}', '{json.dumps(params)}') AS m")
        path = os.path.join(work, f"sql_{ds}_{len(failures)}.json")
        with open(path, "w") as f:
            f.write(psql("SELECT gbdt_export(m) FROM shap_m")[0])
        bst = xgb.Booster(model_file=path)
        overall = max(overall, run_case(name, ds, bst, ids, xte, a.tol, a.interaction_rows, failures))

    print("trained by XGBoost (xgboost.train -> save_model(json) -> gbdt_import):")
    xgb_cases = [
        ("higgs binary:logistic, 40 rounds", "higgs", {"objective": "binary:logistic"}, 40),
        ("multi multi:softprob (5 classes), 20 rounds", "multi",
         {"objective": "multi:softprob", "num_class": 5}, 20),
        ("reg reg:squarederror (2% missing), depth 10", "reg",
         {"objective": "reg:squarederror", "max_depth": 10, "eta": 0.2}, 30),
    ]
    for name, ds, params, rounds in xgb_cases:
        xtr, ytr, ids, xte = data[ds]
        p = {"tree_method": "hist", "eta": 0.1, "max_depth": 6, "max_bin": 256, "seed": 0}
        p.update(params)
        bst = xgb.train(p, xgb.DMatrix(xtr, label=ytr, missing=np.nan, feature_names=FEATS),
                        num_boost_round=rounds)
        path = os.path.join(work, f"xgb_{ds}_{len(failures)}.json")
        bst.save_model(path)
        with open(path) as f:
            load_json_into_sql("shap_json", f.read())
        psql("DROP TABLE IF EXISTS shap_m; CREATE TABLE shap_m AS SELECT gbdt_import(j) AS m FROM shap_json")
        overall = max(overall, run_case(name, ds, bst, ids, xte, a.tol, a.interaction_rows, failures))

    psql("DROP TABLE IF EXISTS shap_m; DROP TABLE IF EXISTS shap_json")
    status = "ok" if not failures else "FAIL"
    print(f"shap parity overall {status}: max |diff| {overall:.3e} (tol {a.tol}), "
          f"{len(sql_cases) + len(xgb_cases)} models")
    for f in failures:
        print("  FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
