#!/usr/bin/env python3
"""Survival parity: survival:cox and survival:aft against XGBoost 3.x.

Usage: survival_parity.py [--rounds 50]

Runs against the database psql reaches with PGHOST/PGPORT/PGUSER/PGDATABASE
(scripts/test.sh's throw-away cluster, extension installed).  The data set
is the German Breast Cancer Study Group 2 table (GBSG2, 686 patients,
recurrence-free survival, 299 events; shipped with the lifelines package):
8 numeric features (the categorical ones coded as numbers); every 4th
patient is held out.

Per case, the same training rows and parameters go to xgboost.train and to
gbdt_train (survival:cox: label = time, negative when censored;
survival:aft: target = lower bound = time, label_upper_bound_column = time
for events and NULL (right-censored) otherwise):
  * gbdt_export -> xgboost.Booster predicts every held-out row within 1e-6
    (relative, as the other parity scripts) of gbdt_predict, and the
    XGBoost model -> gbdt_import -> gbdt_predict within 1e-6 of XGBoost;
  * the held-out metric (cox-nloglik / aft-nloglik, computed by XGBoost's
    own metric code on both models: gbdt's through its export) is within
    the tolerance of XGBoost's model's, or better;
  * survival:cox: gbdt_evaluate's cox-nloglik of the held-out rows equals
    XGBoost's metric of the exported model (1e-6); survival:aft:
    gbdt_evaluate's interval-regression-accuracy and, with
    aft_loss_distribution_scale 1, aft-nloglik (1e-6), read from the
    model's label_upper_bound_column, equal XGBoost's metrics of the
    exported model (XGBoost 3.2 evaluates aft-nloglik at scale 1 whatever
    the scale; gbdt at the model's).

Exits non-zero when a check fails; prints one line per case and a
"survival parity overall" line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import xgboost as xgb

FEATS = ["horth", "age", "meno", "tsize", "tgrade", "pnodes", "progrec", "estrec"]


def psql(sql):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\t", "-c", sql],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()}\nSQL: {sql[:400]}")
    return [ln for ln in r.stdout.splitlines() if ln != ""]


def load_gbsg2():
    from lifelines.datasets import load_gbsg2
    d = load_gbsg2()
    x = np.column_stack([
        (d["horTh"] == "yes").astype(float), d["age"].astype(float),
        (d["menostat"] == "Post").astype(float), d["tsize"].astype(float),
        d["tgrade"].map({"I": 1.0, "II": 2.0, "III": 3.0}).astype(float),
        d["pnodes"].astype(float), d["progrec"].astype(float), d["estrec"].astype(float)])
    return x.astype(np.float32), d["time"].to_numpy(float), d["cens"].to_numpy(int)


def lit(v):
    return "NULL" if v is None or not np.isfinite(v) else repr(float(v))


CASES = [
    # name, objective, extra params, relative tolerance of the held-out metric
    ("cox", "survival:cox", {}, 0.03),
    ("aft-normal", "survival:aft", {"aft_loss_distribution": "normal", "aft_loss_distribution_scale": 1.2}, 0.05),
    ("aft-logistic", "survival:aft", {"aft_loss_distribution": "logistic", "aft_loss_distribution_scale": 1.0}, 0.05),
    ("aft-extreme", "survival:aft", {"aft_loss_distribution": "extreme", "aft_loss_distribution_scale": 0.8}, 0.05),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--tol", type=float, default=1e-6)
    a = ap.parse_args()

    x, time, cens = load_gbsg2()
    n = len(time)
    ids = np.arange(1, n + 1)
    test = ids % 4 == 0
    cox_label = np.where(cens == 1, time, -time)
    upper = np.where(cens == 1, time, np.inf)
    rows = []
    for i in range(n):
        vals = ", ".join(lit(v) for v in x[i])
        rows.append(f"({ids[i]}, {vals}, {lit(cox_label[i])}, {lit(time[i])}, {lit(upper[i])})")
    cols = ", ".join(f"{c} float8" for c in FEATS)
    psql("DROP TABLE IF EXISTS gbsg2 CASCADE; "
         f"CREATE TABLE gbsg2 (id int, {cols}, t float8, lo float8, hi float8); "
         f"INSERT INTO gbsg2 VALUES {', '.join(rows)}; "
         "CREATE VIEW gbsg2_train AS SELECT * FROM gbsg2 WHERE id % 4 <> 0; "
         "CREATE VIEW gbsg2_test AS SELECT * FROM gbsg2 WHERE id % 4 = 0")
    feats_sql = "ARRAY[" + ", ".join(f"'{c}'" for c in FEATS) + "]"

    def dmatrix(mask, objective, names=None):
        d = xgb.DMatrix(x[mask], feature_names=names)
        if objective == "survival:cox":
            d.set_label(cox_label[mask])
        else:
            d.set_float_info("label_lower_bound", time[mask])
            d.set_float_info("label_upper_bound", upper[mask])
        return d

    failures = []
    worst = 0.0
    work = tempfile.mkdtemp(prefix="gbdt_survparity_")
    for name, obj, extra, rtol in CASES:
        params = {"tree_method": "hist", "eta": 0.1, "max_depth": 3, "max_bin": 256, "seed": 0,
                  "objective": obj, "nthread": 2, "min_child_weight": 1}
        params.update(extra)
        dtr, dte = dmatrix(~test, obj), dmatrix(test, obj)
        bst = xgb.train(params, dtr, num_boost_round=a.rounds)
        p_x = bst.predict(dte).astype(np.float64)
        metric_name = "cox-nloglik" if obj == "survival:cox" else "aft-nloglik"
        mx = float(bst.eval(dte).split(":")[-1])

        gparams = {k: v for k, v in params.items() if k not in ("objective", "tree_method")}
        gparams["num_round"] = a.rounds
        target = "t" if obj == "survival:cox" else "lo"
        if obj == "survival:aft":
            gparams["label_upper_bound_column"] = "hi"
        psql(f"DROP TABLE IF EXISTS surv_model; CREATE TABLE surv_model AS SELECT "
             f"gbdt_train('gbsg2_train', '{target}', {feats_sql}, '{obj}', '{json.dumps(gparams)}') AS m")
        lines = psql("SELECT r.id, gbdt_predict(m.m, r) FROM surv_model m, gbsg2_test r ORDER BY r.id")
        p_g = np.array([float(l.split("\t")[1]) for l in lines])

        # gbdt -> XGBoost: same predictions; XGBoost's metric of gbdt's model.
        path = os.path.join(work, f"{name}.json")
        with open(path, "w") as fh:
            fh.write(psql("SELECT gbdt_export(m) FROM surv_model")[0])
        b2 = xgb.Booster(model_file=path)
        dte2 = dmatrix(test, obj, b2.feature_names)
        p_e = b2.predict(dte2).astype(np.float64)
        d_exp = float(np.max(np.abs(p_e - p_g) / np.maximum(1.0, np.abs(p_g))))
        mg = float(b2.eval(dte2).split(":")[-1])

        # XGBoost -> gbdt: gbdt_import of XGBoost's model predicts as XGBoost.
        xpath = os.path.join(work, f"{name}_xgb.json")
        bst.save_model(xpath)
        with open(xpath) as fh:
            xjs = fh.read().replace("'", "''")
        lines = psql(f"SELECT r.id, gbdt_predict(gbdt_import('{xjs}'::jsonb), "
                     f"ARRAY[{', '.join('r.' + c for c in FEATS)}]::float8[]) FROM gbsg2_test r ORDER BY r.id")
        p_i = np.array([float(l.split("\t")[1]) for l in lines])
        d_imp = float(np.max(np.abs(p_i - p_x) / np.maximum(1.0, np.abs(p_x))))
        worst = max(worst, d_exp, d_imp)

        d_models = float(np.max(np.abs(p_g - p_x) / np.maximum(1.0, np.abs(p_x))))
        ok_metric = mg <= mx + rtol * abs(mx)
        ok_exp, ok_imp = d_exp <= a.tol, d_imp <= a.tol
        line = (f"{name:13s} held-out {metric_name} gbdt {mg:.6f} xgboost {mx:.6f} "
                f"(tolerance {rtol:.0%}: {'ok' if ok_metric else 'FAIL'}; models' max |diff| {d_models:.1e}); export |diff| {d_exp:.2e} "
                f"({'ok' if ok_exp else 'FAIL'}); import |diff| {d_imp:.2e} ({'ok' if ok_imp else 'FAIL'})")
        if obj == "survival:cox":
            ev = json.loads(psql("SELECT gbdt_evaluate(m, 'gbsg2_test', 't') FROM surv_model")[0])
            ok_ev = abs(ev["cox-nloglik"] - mg) <= 1e-6 * max(1.0, abs(mg))
            line += f"; gbdt_evaluate cox-nloglik {ev['cox-nloglik']:.6f} ({'ok' if ok_ev else 'FAIL'})"
            if not ok_ev:
                failures.append(f"{name} evaluate")
        else:
            # gbdt_evaluate reads the bound column named in the model ("hi").
            ev = json.loads(psql("SELECT gbdt_evaluate(m, 'gbsg2_test', 'lo') FROM surv_model")[0])
            b2.set_param({"eval_metric": "interval-regression-accuracy"})
            acc = float(b2.eval(dte2).split(":")[-1])
            # XGBoost 3.2's aft-nloglik metric comes out at scale 1 whatever
            # aft_loss_distribution_scale (checked against the formula); gbdt's
            # (training and gbdt_evaluate) uses the model's scale, so the
            # nloglik is compared where the scale is 1.
            same_scale = float(params.get("aft_loss_distribution_scale", 1.0)) == 1.0
            ok_ev = ((not same_scale or abs(ev["aft-nloglik"] - mg) <= 1e-6 * max(1.0, abs(mg)))
                     and abs(ev["interval-regression-accuracy"] - acc) <= 1e-9)
            line += (f"; gbdt_evaluate aft-nloglik {ev['aft-nloglik']:.6f} interval-regression-accuracy "
                     f"{ev['interval-regression-accuracy']:.4f} vs xgboost {acc:.4f} ({'ok' if ok_ev else 'FAIL'})")
            if not ok_ev:
                failures.append(f"{name} evaluate")
        print(line)
        for ok, what in ((ok_metric, "metric"), (ok_exp, "export"), (ok_imp, "import")):
            if not ok:
                failures.append(f"{name} {what}")
    psql("DROP TABLE IF EXISTS surv_model; DROP TABLE gbsg2 CASCADE")
    bad = set(f.split()[0] for f in failures)
    print(f"survival parity overall: {len(CASES) - len(bad)}/{len(CASES)} cases ok, "
          f"prediction max |diff| {worst:.2e}" + (f"; FAILED: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
