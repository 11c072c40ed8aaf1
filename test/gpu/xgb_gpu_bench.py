#!/usr/bin/env python3
"""XGBoost reference timing for test/gpu/gpu_bench.cpp, on the same data.

    build/gpu_bench --rows 1000000 --dump DIR ...      # writes the data
    python3 test/gpu/xgb_gpu_bench.py DIR --rows 1000000 [--device cuda]
        [--rounds 500] [--depth 8] [--eta 0.1] [--max_bin 256] [--json FILE]

Reads DIR/bench_<rows>.{train,test}.{x,y}.f32 (row-major float32, NaN =
missing), trains XGBoost (3.x) with tree_method 'hist' on `device` (default
cuda) with the benchmark's parameters, and prints the times (QuantileDMatrix
construction = XGBoost's binning and host->device transfer; training) and the
held-out AUC as JSON.  Needs numpy and xgboost (pip wheel with CUDA support).
"""
import argparse
import json
import os
import sys
import time

import numpy as np


def auc(y, p):
    # Rank-based AUC with ties averaged.
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    ys = y[order]
    ranks = np.empty(len(p), dtype=np.float64)
    i = 0
    n = len(p)
    # average ranks over tied groups
    bounds = np.flatnonzero(np.diff(ps)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [n]))
    for s, e in zip(starts, ends):
        ranks[s:e] = (s + e + 1) / 2.0
    npos = ys.sum()
    nneg = n - npos
    if npos == 0 or nneg == 0:
        return float("nan")
    return float((ranks[ys == 1].sum() - npos * (npos + 1) / 2.0) / (npos * nneg))


def load(prefix, d):
    x = np.fromfile(prefix + ".x.f32", dtype=np.float32)
    y = np.fromfile(prefix + ".y.f32", dtype=np.float32)
    return x.reshape(len(y), d), y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--rows", type=int, required=True)
    ap.add_argument("--features", type=int, default=28)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--eta", type=float, default=0.1)
    ap.add_argument("--max_bin", type=int, default=256)
    ap.add_argument("--nthread", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="stop training after this many seconds (rounds run are reported)")
    a = ap.parse_args()

    import xgboost as xgb

    pre = os.path.join(a.dir, "bench_%d" % a.rows)
    xtr, ytr = load(pre + ".train", a.features)
    xte, yte = load(pre + ".test", a.features)
    params = {
        "objective": "binary:logistic",
        "tree_method": "hist",
        "device": a.device,
        "max_depth": a.depth,
        "eta": a.eta,
        "max_bin": a.max_bin,
        "eval_metric": "auc",
    }
    if a.nthread > 0:
        params["nthread"] = a.nthread
    # Warm-up: CUDA context creation outside the timings.
    xgb.train(params, xgb.DMatrix(xtr[:1000], label=ytr[:1000]), 1)

    t0 = time.perf_counter()
    dtrain = xgb.QuantileDMatrix(xtr, label=ytr, max_bin=a.max_bin)
    t_dm = time.perf_counter() - t0
    callbacks = []
    if a.max_seconds > 0:
        class StopAfter(xgb.callback.TrainingCallback):
            """Stops boosting once --max-seconds have passed."""

            def __init__(self, start, limit):
                super().__init__()
                self.start, self.limit = start, limit

            def after_iteration(self, model, epoch, evals_log):
                return time.perf_counter() - self.start > self.limit

    t1 = time.perf_counter()
    if a.max_seconds > 0:
        callbacks.append(StopAfter(t1, a.max_seconds))
    bst = xgb.train(params, dtrain, a.rounds, callbacks=callbacks)
    # Force completion of the asynchronous GPU work.
    bst.save_raw()
    t_train = time.perf_counter() - t1
    pred = bst.predict(xgb.DMatrix(xte))
    res = {
        "library": "xgboost",
        "version": xgb.__version__,
        "device": a.device,
        "rows": a.rows,
        "features": a.features,
        "rounds": a.rounds,
        "depth": a.depth,
        "rounds_run": bst.num_boosted_rounds(),
        "seconds_per_round": t_train / max(1, bst.num_boosted_rounds()),
        "quantile_dmatrix_s": t_dm,
        "train_s": t_train,
        "total_s": t_dm + t_train,
        "auc": auc(yte.astype(np.int64), pred.astype(np.float64)),
    }
    out = json.dumps(res)
    print(out)
    if a.json:
        with open(a.json, "w") as f:
            f.write(out + "\n")


if __name__ == "__main__":
    sys.exit(main())
