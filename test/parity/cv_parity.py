#!/usr/bin/env python3
"""Cross-validation parity: gbdt_cv against xgboost.cv on the same folds.

Usage: cv_parity.py DATADIR [--rounds 50] [--nfold 5] [--threads 1,2]

Runs against the database psql reaches with PGHOST/PGPORT/PGUSER/PGDATABASE.
Loads DATADIR/higgs_7k.train.tsv (label, f0..f27) into table cvp_higgs in
file order (a plain table is read in physical order, so row k of the file is
ordinal k).  The folds come from gbdt_fold(k, nfold, seed) and are passed to
xgboost.cv as its `folds`, on one xgboost.DMatrix of all rows (xgboost.cv
refuses a QuantileDMatrix, so each of its folds sketches its own cuts); both
get tree_method hist, max_bin 256, eta 0.1, max_depth 6 and the objective's
default metric.  For reference, the same folds are also trained by hand as
gbdt_cv does it: each fold's rows in a QuantileDMatrix with ref= the
QuantileDMatrix of all rows (the cuts of all rows), scored on its test rows.

Per case the last round's mean test metric must be within 3% of
xgboost.cv's (relative).  Then, at each thread count, the wall time of
gbdt_cv (the psql call, loading included) over that of xgboost.cv (the
QuantileDMatrix built outside the timing: XGBoost is given an in-memory
matrix) is printed; the target is <= 0.5x, reported, not enforced.

Exits non-zero when a parity check fails; prints one line per case.
"""
import argparse
import json
import os
import subprocess
import sys
import time

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


def load(datadir):
    path = os.path.join(datadir, "higgs_7k.train.tsv")
    cols = ", ".join(f"{f} float8" for f in FEATS)
    script = (f"DROP TABLE IF EXISTS cvp_higgs;\nCREATE TABLE cvp_higgs (label float8, {cols});\n"
              f"\\copy cvp_higgs FROM '{path}'\n")
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"], input=script,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()}")
    data = np.loadtxt(path, delimiter="\t", dtype=np.float64)
    return data[:, 1:].astype(np.float32), data[:, 0].astype(np.float32)


def folds_of(n, nfold, seed):
    f = np.array([int(v) for v in psql(
        f"SELECT gbdt_fold(o, {nfold}, {seed}) FROM generate_series(0, {n - 1}) o ORDER BY o")])
    idx = np.arange(n)
    return [(idx[f != k], idx[f == k]) for k in range(nfold)]


def gbdt_cv(params, nfold, seed):
    t = time.perf_counter()
    rows = psql("SET client_min_messages = warning; "
                f"SELECT round, metric, train_mean, test_mean FROM gbdt_cv('cvp_higgs', 'label', "
                f"NULL, NULL, '{json.dumps(params)}', {nfold}, false, {seed}) ORDER BY round")
    return time.perf_counter() - t, [r.split("\t") for r in rows]


def xgb_cv(dall, params, rounds, folds, nthread, esr=None):
    p = {"tree_method": "hist", "max_bin": 256, "nthread": nthread, **params}
    t = time.perf_counter()
    h = xgb.cv(p, dall, num_boost_round=rounds, folds=folds, early_stopping_rounds=esr,
               verbose_eval=False)
    return time.perf_counter() - t, h


def xgb_same_cuts(X, y, params, rounds, folds, nthread):
    """The last round's mean test metric of boosters on the cuts of all rows."""
    p = {"tree_method": "hist", "max_bin": 256, "nthread": nthread, **params}
    qall = xgb.QuantileDMatrix(X, y, max_bin=256)
    vals = []
    for tr, te in folds:
        dtr = xgb.QuantileDMatrix(X[tr], y[tr], max_bin=256, ref=qall)
        dte = xgb.DMatrix(X[te], y[te])
        bst = xgb.train(p, dtr, num_boost_round=rounds)
        vals.append(float(bst.eval_set([(dte, "test")]).split("\t")[-1].split(":")[1]))
    return float(np.mean(vals))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("datadir")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--nfold", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=1, help="timing runs (the fastest counts)")
    ap.add_argument("--tune", action="store_true", help="also time gbdt_tune (12 trials x 3 folds)")
    ap.add_argument("--skip-cv", action="store_true", help="only the --tune timing")
    a = ap.parse_args()
    X, y = load(a.datadir)
    folds = folds_of(len(y), a.nfold, a.seed)
    dall = xgb.DMatrix(X, y)
    ok = True
    cases = [("binary:logistic", {}, None), ("binary:logistic", {"eval_metric": "auc"}, None),
             ("binary:logistic", {"eta": 0.5}, 5)]
    for obj, extra, esr in ([] if a.skip_cv else cases):
        base = {"objective": obj, "eta": 0.1, "max_depth": 6, **extra}
        g = {**base, "num_round": a.rounds, "max_bin": 256, "nthread": 2}
        if esr:
            g["early_stopping_rounds"] = esr
        _, rows = gbdt_cv(g, a.nfold, a.seed)
        _, h = xgb_cv(dall, base, a.rounds, folds, 2, esr)
        metric = rows[-1][1]
        same = xgb_same_cuts(X, y, base, len(rows), folds, 2)
        ours, theirs = float(rows[-1][3]), float(h[f"test-{metric}-mean"].iloc[-1])
        rel = abs(ours - theirs) / abs(theirs)
        good = rel <= 0.03
        ok &= good
        print(f"cv parity {obj} {json.dumps(extra)} esr={esr}: {len(rows)} vs {len(h)} rounds; "
              f"last test {metric} gbdt {ours:.6f} xgboost {theirs:.6f} (rel {rel:.4%}) "
              f"train gbdt {float(rows[-1][2]):.6f} xgboost "
              f"{float(h[f'train-{metric}-mean'].iloc[-1]):.6f}; xgboost on the cuts of all rows "
              f"{same:.6f} (rel {abs(ours - same) / abs(same):.4%}) {'ok' if good else 'FAIL'}")
    for nt in ([] if a.skip_cv else [int(v) for v in a.threads.split(",")]):
        base = {"objective": "binary:logistic", "eta": 0.1, "max_depth": 6}
        g = {**base, "num_round": a.rounds, "max_bin": 256, "nthread": nt}
        tg = min(gbdt_cv(g, a.nfold, a.seed)[0] for _ in range(a.repeat))
        tx = min(xgb_cv(dall, base, a.rounds, folds, nt)[0] for _ in range(a.repeat))
        print(f"cv time nthread={nt}: gbdt_cv {tg:.3f} s, xgboost.cv {tx:.3f} s, "
              f"ratio {tg / tx:.2f}x (target <= 0.5x)")
    if a.tune:
        # gbdt_tune over 12 trials x 3 folds against the same search written
        # as a loop of xgboost.cv; the best trial of each is printed.
        search = {"max_depth": [2, 4, 6], "eta": [0.05, 0.1, 0.2, 0.3]}
        folds3 = folds_of(len(y), 3, a.seed)
        for nt in [int(v) for v in a.threads.split(",")]:
            t = time.perf_counter()
            rows = psql("SET client_min_messages = warning; SELECT params, score FROM gbdt_tune("
                        f"'cvp_higgs', 'label', NULL, 'binary:logistic', "
                        f"'{json.dumps({'num_round': a.rounds, 'max_bin': 256, 'nthread': nt})}', "
                        f"'{json.dumps(search)}', NULL, 3, {a.seed}) ORDER BY score")
            tg = time.perf_counter() - t
            best_x, tx = None, 0.0
            for md in search["max_depth"]:
                for eta in search["eta"]:
                    dt, h = xgb_cv(dall, {"objective": "binary:logistic", "max_depth": md, "eta": eta},
                                   a.rounds, folds3, nt)
                    tx += dt
                    v = float(h["test-logloss-mean"].min())
                    if best_x is None or v < best_x[0]:
                        best_x = (v, md, eta)
            print(f"tune time nthread={nt}: gbdt_tune {tg:.3f} s, xgboost.cv loop {tx:.3f} s, "
                  f"ratio {tg / tx:.2f}x (target <= 0.5x); best gbdt {rows[0]}, "
                  f"best xgboost logloss {best_x[0]:.6f} max_depth {best_x[1]} eta {best_x[2]}")
    print(f"cv parity overall: {'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
