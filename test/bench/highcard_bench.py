#!/usr/bin/env python3
"""High-cardinality text columns: gbdt in-database against LightGBM.

Generates a binary-target table of --rows rows with 12 text columns of
1,000 to 16,000 levels (Zipf-like frequencies, so most levels are rare)
and 15 numeric columns (27 features), holds out row i when i % 5 == 4,
and times, at nthread 1 and 2, with LightGBM's categorical regularization
off and on (cat_smooth 10, cat_l2 10, min_data_per_group 100):
  * gbdt: SELECT gbdt_train(...) end to end from the table;
  * LightGBM: training only, on pandas `category` columns (the Dataset is
    constructed before the clock starts), in this process.
Prints one table row per (tool, threads, regularization): the fastest of
--repeat runs and the held-out AUC.  Both use 100 rounds, eta 0.1, max_depth
6 (LightGBM num_leaves 63), lambda 1, min_child_weight 1 (LightGBM
min_sum_hessian_in_leaf 1, min_data_in_leaf 1), max_cat_to_onehot 4,
max_cat_threshold 64.  LightGBM's "off" is cat_smooth 0, cat_l2 0,
min_data_per_group 1 (it refuses 0).  Connects with psql through the PG*
environment (a cluster with the extension installed).

  python3 test/bench/highcard_bench.py              # 80k rows
  python3 test/bench/highcard_bench.py --rows 20000 --repeat 1
"""
import argparse
import os
import subprocess
import tempfile
import time

import numpy as np
import pandas as pd

from suite import auc  # the suite's AUC (ties take their average rank)

LEVELS = [1000, 1500, 2000, 3000, 4000, 5000, 6000, 8000, 10000, 12000, 14000, 16000]
N_NUM = 15
REG = {"cat_smooth": 10, "cat_l2": 10, "min_data_per_group": 100}


def psql(sql):
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def make_table(rows, seed):
    """The columns and the labels: each level of each text column has its
    own effect (most levels rare, so their effects are noisy to learn)."""
    rng = np.random.default_rng(seed)
    cols = {}
    logit = np.zeros(rows)
    for j, n in enumerate(LEVELS):
        # Zipf-like: level k drawn with weight 1 / (k + 10).
        w = 1.0 / (np.arange(n) + 10.0)
        codes = rng.choice(n, size=rows, p=w / w.sum())
        effect = rng.normal(0.0, 0.35, n)
        logit += effect[codes]
        cols[f"c{j}"] = np.array([f"v{j}_{k}" for k in range(n)])[codes]
    for j in range(N_NUM):
        x = rng.normal(size=rows)
        cols[f"x{j}"] = x
        logit += (0.25 if j < 5 else 0.0) * np.sin(2 * x) + (0.15 * x if j % 3 == 0 else 0.0)
    y = (rng.random(rows) < 1.0 / (1.0 + np.exp(-(logit - 0.2)))).astype(int)
    df = pd.DataFrame(cols)
    df.insert(0, "id", np.arange(rows))
    df["y"] = y
    return df


def load(df):
    text = [c for c in df.columns if c.startswith("c")]
    ddl = ", ".join(["id int"] + [f"{c} text" for c in text] +
                    [f"x{j} float8" for j in range(N_NUM)] + ["y int"])
    psql(f"DROP TABLE IF EXISTS hc_all, hc_train, hc_test; CREATE TABLE hc_all ({ddl});")
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        df.to_csv(f, sep="\t", header=False, index=False)
        path = f.name
    try:
        subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                        f"\\copy hc_all FROM '{path}'"], check=True)
    finally:
        os.unlink(path)
    psql("CREATE TABLE hc_train AS SELECT * FROM hc_all WHERE id % 5 <> 4;"
         "CREATE TABLE hc_test AS SELECT * FROM hc_all WHERE id % 5 = 4;")


def gbdt_run(threads, reg, repeat):
    import json
    params = {"num_round": 100, "max_depth": 6, "eta": 0.1, "nthread": threads}
    if reg:
        params.update(REG)
    best = None
    for _ in range(repeat):
        psql("DROP TABLE IF EXISTS hc_model")
        t = time.monotonic()
        psql("SET client_min_messages = warning; CREATE TABLE hc_model AS SELECT "
             f"gbdt_train('hc_train', 'y', NULL, 'binary:logistic', '{json.dumps(params)}') AS m")
        dt = time.monotonic() - t
        best = dt if best is None else min(best, dt)
    out = psql("SELECT t.y || ' ' || gbdt_predict(m.m, t) FROM hc_test t, hc_model m ORDER BY t.id")
    yp = np.array([[float(v) for v in line.split()] for line in out.splitlines()])
    return best, auc(yp[:, 0], yp[:, 1])


def lgb_run(df, threads, reg, repeat):
    import lightgbm as lgb
    feats = [c for c in df.columns if c not in ("id", "y")]
    X = df[feats].copy()
    for c in feats:
        if c.startswith("c"):
            X[c] = X[c].astype("category")
    train = (df["id"] % 5 != 4).to_numpy()
    params = {"objective": "binary", "num_leaves": 63, "max_depth": 6, "learning_rate": 0.1,
              "lambda_l2": 1.0, "min_sum_hessian_in_leaf": 1.0, "min_data_in_leaf": 1,
              "max_bin": 255, "max_cat_to_onehot": 4, "max_cat_threshold": 64,
              "num_threads": threads, "verbose": -1, "seed": 0}
    params.update(REG if reg else {"cat_smooth": 0.0, "cat_l2": 0.0, "min_data_per_group": 1})
    best, model = None, None
    for _ in range(repeat):
        ds = lgb.Dataset(X[train], label=df["y"][train], params=params, free_raw_data=False)
        ds.construct()
        t = time.monotonic()
        model = lgb.train(params, ds, num_boost_round=100)
        dt = time.monotonic() - t
        best = dt if best is None else min(best, dt)
    return best, auc(df["y"][~train].to_numpy(), model.predict(X[~train]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=80000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each training, fastest kept")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-load", action="store_true", help="hc_* tables already loaded")
    a = ap.parse_args()
    df = make_table(a.rows, a.seed)
    if not a.skip_load:
        load(df)
    print("| tool | threads | categorical regularization | training s | held-out AUC |")
    print("| --- | ---: | --- | ---: | ---: |")
    res = {}
    for threads in (1, 2):
        for reg in (False, True):
            for tool in ("gbdt", "LightGBM"):
                s, u = gbdt_run(threads, reg, a.repeat) if tool == "gbdt" else lgb_run(df, threads, reg, a.repeat)
                res[(tool, threads, reg)] = s
                print(f"| {tool} | {threads} | {'on' if reg else 'off'} | {s:.2f} | {u:.4f} |", flush=True)
    for threads in (1, 2):
        for reg in (False, True):
            r = res[("gbdt", threads, reg)] / res[("LightGBM", threads, reg)]
            print(f"gbdt / LightGBM, {threads} thread(s), regularization {'on' if reg else 'off'}: {r:.2f}")


if __name__ == "__main__":
    main()
