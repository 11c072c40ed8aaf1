#!/usr/bin/env python3
"""Objective parity: the 0.2 objectives against XGBoost 3.x.

Usage: objectives_parity.py DATADIR [--rounds 60]

Runs against the database psql reaches with PGHOST/PGPORT/PGUSER/PGDATABASE
(scripts/test.sh's throw-away cluster) after test/parity/schema.sql's tables
are loaded from DATADIR (the CSV files test/parity/reference.py writes).

Per objective: the same training rows and parameters (tree_method hist,
max_bin 256, eta 0.1, max_depth 6, the objective's parameter) go to
xgboost.train and to gbdt_train (through views over the *_train tables whose
label is derived in SQL exactly as here in Python); both score the *_test
rows and the held-out metric of each (the objective's default metric,
computed here with numpy the same way for both) must be within the stated
tolerance of XGBoost's (relative; an absolute floor for metrics near 0).
Then gbdt_export -> xgboost.Booster must predict every test row within 1e-6
of gbdt_predict (the class for multi:softmax and binary:hinge).

Derived labels: "pos" = exp(0.5 * standardized reg label) (> 0, for
squaredlog/gamma), "cnt" = floor(2 * pos) (counts with zeros, for tweedie).

Exits non-zero when a check fails; prints one line per objective and an
"objectives parity overall" line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import xgboost as xgb

NFEAT = 28
FEATS = [f"f{j}" for j in range(NFEAT)]


def psql(sql):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\t", "-c", sql],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()}\nSQL: {sql[:400]}")
    return [ln for ln in r.stdout.splitlines() if ln != ""]


def load_json(table, text):
    """A JSON document into a fresh one-row table (COPY from stdin: no argument size limit)."""
    payload = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    script = (f"DROP TABLE IF EXISTS {table};\nCREATE TABLE {table} (j jsonb);\n"
              f"COPY {table} FROM STDIN;\n{payload}\n\\.\n")
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"], input=script,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()}")


def gbdt_scores(model_table, test_view, ids, multi):
    """gbdt_predict per test row (ids order); several quantiles: gbdt_predict_quantiles, n x K."""
    fn = "gbdt_predict_quantiles" if multi else "gbdt_predict"
    lines = psql(f"SELECT t.id, {fn}(m.m, t) FROM {model_table} m, {test_view} t ORDER BY t.id")
    got = {}
    for l in lines:
        k, v = l.split("\t")
        got[int(k)] = [float(x) for x in v.strip("{}").split(",")] if multi else float(v)
    return np.array([got[int(k)] for k in ids])


def read_csv(path, has_id):
    ids, ys, xs = [], [], []
    with open(path) as f:
        next(f)
        for line in f:
            row = line.rstrip("\n").split(",")
            if has_id:
                ids.append(int(row[0]))
                row = row[1:]
            ys.append(float(row[0]))
            xs.append([float(v) if v != "" else np.nan for v in row[1:]])
    return np.array(ids, dtype=np.int64), np.array(ys), np.array(xs, dtype=np.float32)


# ---- metrics (the objective's default; the same code scores both) ----
def m_mae(p, y): return float(np.mean(np.abs(p - y)))
def m_mphe(p, y, s=1.0): return float(np.mean(s * s * (np.sqrt(1 + ((y - p) / s) ** 2) - 1)))
def m_quantile(p, y, a): d = y - p; return float(np.mean(np.where(d >= 0, a * d, (a - 1) * d)))
def m_rmsle(p, y): return float(np.sqrt(np.mean((np.log1p(p) - np.log1p(y)) ** 2)))
def m_gamma_dev(p, y): r = y / (p + 1e-16); return float(2 * np.mean(r - np.log(r) - 1))
def m_tweedie(p, y, rho):
    return float(np.mean(-y * np.exp((1 - rho) * np.log(p)) / (1 - rho) + np.exp((2 - rho) * np.log(p)) / (2 - rho)))
def m_logloss_margin(p, y):
    q = np.clip(1 / (1 + np.exp(-p)), 1e-15, 1 - 1e-15)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))
def m_error(p, y): return float(np.mean(p != y))
def m_rmse(p, y): return float(np.sqrt(np.mean((p - y) ** 2)))
def m_quantiles(p, y, alphas):
    # XGBoost's quantile metric with several alphas: pinball loss over rows and alphas.
    return float(np.mean([m_quantile(p[:, k], y, a) for k, a in enumerate(alphas)]))


# name, dataset, label ("label", "pos", "cnt"), extra params, metric fn, rel tol, abs tol
CASES = [
    ("reg:absoluteerror", "reg", "label", {}, m_mae, 0.10, 0.0),
    ("reg:pseudohubererror", "reg", "label", {"huber_slope": 1.0}, lambda p, y: m_mphe(p, y, 1.0), 0.05, 0.0),
    ("reg:quantileerror", "reg", "label", {"quantile_alpha": 0.9}, lambda p, y: m_quantile(p, y, 0.9), 0.10, 0.0),
    ("reg:squaredlogerror", "reg", "pos", {}, m_rmsle, 0.05, 0.0),
    ("reg:gamma", "reg", "pos", {}, m_gamma_dev, 0.05, 0.0),
    ("reg:tweedie", "reg", "cnt", {"tweedie_variance_power": 1.5}, lambda p, y: m_tweedie(p, y, 1.5), 0.03, 0.0),
    ("binary:logitraw", "higgs", "label", {}, m_logloss_margin, 0.03, 0.0),
    ("binary:hinge", "higgs", "label", {}, m_error, 0.05, 0.01),
    ("multi:softmax", "multi", "label", {"num_class": 5}, m_error, 0.05, 0.01),
    # boosted random forest (num_parallel_tree trees per round, each its
    # own row/column sample; the samples' random streams differ from
    # XGBoost's, hence the wider tolerance).  "_rounds" overrides --rounds;
    # "_import" also loads XGBoost's model with gbdt_import and compares
    # gbdt_predict with XGBoost's predictions.
    # several quantiles in one model (n x 3 predictions: gbdt_predict_quantiles).
    ("reg:quantileerror", "reg", "label", {"quantile_alpha": [0.1, 0.5, 0.9], "_import": True},
     lambda p, y: m_quantiles(p, y, [0.1, 0.5, 0.9]), 0.10, 0.0),
    ("reg:squarederror", "reg", "label",
     {"num_parallel_tree": 6, "subsample": 0.7, "colsample_bynode": 0.6, "eta": 0.5,
      "_rounds": 12, "_import": True}, m_rmse, 0.05, 0.0),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("datadir")
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--tol", type=float, default=1e-6)
    a = ap.parse_args()

    data = {}
    for ds in ("reg", "higgs", "multi"):
        _, ytr, xtr = read_csv(os.path.join(a.datadir, f"{ds}_train.csv"), False)
        ids, yte, xte = read_csv(os.path.join(a.datadir, f"{ds}_test.csv"), True)
        data[ds] = (ytr, xtr, ids, yte, xte)
    ytr_reg = data["reg"][0]
    mu, sd = float(np.mean(ytr_reg)), float(np.std(ytr_reg))
    pos_sql = f"exp(0.5 * ((label - ({mu!r})) / ({sd!r})))"
    derive = {
        "label": (lambda y: y, "label"),
        "pos": (lambda y: np.exp(0.5 * ((y - mu) / sd)), pos_sql),
        "cnt": (lambda y: np.floor(2 * np.exp(0.5 * ((y - mu) / sd))), f"floor(2 * {pos_sql})"),
    }
    cols = ", ".join(FEATS)
    failures = []
    worst_diff = 0.0
    work = tempfile.mkdtemp(prefix="gbdt_objparity_")
    for i, (obj, ds, lab, extra, metric, rtol, atol) in enumerate(CASES):
        ytr, xtr, ids, yte, xte = data[ds]
        f, expr = derive[lab]
        ytr_d, yte_d = f(ytr).astype(np.float32).astype(np.float64), f(yte).astype(np.float32).astype(np.float64)
        params = {"tree_method": "hist", "eta": 0.1, "max_depth": 6, "max_bin": 256, "seed": 0,
                  "objective": obj, "nthread": 2}
        extra = dict(extra)
        rounds = extra.pop("_rounds", a.rounds)
        check_import = extra.pop("_import", False)
        params.update(extra)
        bst = xgb.train(params, xgb.DMatrix(xtr, label=ytr_d), num_boost_round=rounds)
        p_x = bst.predict(xgb.DMatrix(xte)).astype(np.float64)

        view = f"objparity_{i}"
        psql(f"DROP VIEW IF EXISTS {view}_train, {view}_test; "
             f"CREATE VIEW {view}_train AS SELECT {expr} AS label, {cols} FROM {ds}_train; "
             f"CREATE VIEW {view}_test AS SELECT id, {expr} AS label, {cols} FROM {ds}_test")
        gparams = {k: v for k, v in params.items() if k not in ("objective", "tree_method")}
        gparams["num_round"] = rounds
        psql(f"DROP TABLE IF EXISTS {view}_model; CREATE TABLE {view}_model AS "
             f"SELECT gbdt_train('{view}_train', 'label', NULL, '{obj}', '{json.dumps(gparams)}') AS m")
        multi = isinstance(params.get("quantile_alpha"), list)
        p_g = gbdt_scores(f"{view}_model", f"{view}_test", ids, multi)
        mx, mg = metric(p_x, yte_d), metric(p_g, yte_d)
        ok_metric = abs(mg - mx) <= max(rtol * abs(mx), atol) or mg < mx
        # Export -> XGBoost.
        js = psql(f"SELECT gbdt_export(m) FROM {view}_model")[0]
        path = os.path.join(work, f"{view}.json")
        with open(path, "w") as fh:
            fh.write(js)
        b2 = xgb.Booster(model_file=path)
        # gbdt_export names the features (the view's columns).
        p_e = b2.predict(xgb.DMatrix(xte, feature_names=b2.feature_names)).astype(np.float64)
        diff = float(np.max(np.abs(p_e.reshape(p_g.shape) - p_g) / np.maximum(1.0, np.abs(p_g))))
        worst_diff = max(worst_diff, diff)
        ok_export = diff <= a.tol
        print(f"{obj:24s} {ds}/{lab}: held-out metric gbdt {mg:.6f} xgboost {mx:.6f} "
              f"(tolerance {rtol:.0%} rel{f', {atol} abs' if atol else ''}: {'ok' if ok_metric else 'FAIL'}); "
              f"export max |diff| {diff:.2e} ({'ok' if ok_export else 'FAIL'})")
        if not ok_metric:
            failures.append(f"{obj} metric")
        if not ok_export:
            failures.append(f"{obj} export")
        if check_import:
            # XGBoost's model -> gbdt_import -> gbdt_predict.
            xpath = os.path.join(work, f"{view}_xgb.json")
            bst.save_model(xpath)
            with open(xpath) as fh:
                xjs = fh.read()
            load_json(f"{view}_json", xjs)
            psql(f"DROP TABLE IF EXISTS {view}_imp; CREATE TABLE {view}_imp AS "
                 f"SELECT gbdt_import(j) AS m FROM {view}_json")
            info = json.loads(psql(f"SELECT gbdt_model_info(m) FROM {view}_imp")[0])
            p_i = gbdt_scores(f"{view}_imp", f"{view}_test", ids, multi)
            idiff = float(np.max(np.abs(p_i - p_x.reshape(p_i.shape)) / np.maximum(1.0, np.abs(p_i))))
            worst_diff = max(worst_diff, idiff)
            ok_import = idiff <= a.tol and info.get("rounds") == rounds
            print(f"{'':24s} import of XGBoost's model: {info.get('rounds')} rounds, "
                  f"max |diff| {idiff:.2e} ({'ok' if ok_import else 'FAIL'})")
            if not ok_import:
                failures.append(f"{obj} import")
            psql(f"DROP TABLE {view}_imp, {view}_json")
        psql(f"DROP TABLE {view}_model; DROP VIEW {view}_train, {view}_test")
    print(f"objectives parity overall: {len(CASES) - len(set(x.split()[0] for x in failures))}/{len(CASES)} "
          f"objectives ok, export max |diff| {worst_diff:.2e}" + (f"; FAILED: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
