#!/usr/bin/env python3
"""Categorical tables as they are: gbdt in the database vs XGBoost
enable_categorical vs LightGBM categorical_feature (run by test/bench/run).

For each real table of real_tables.py (text columns kept as text): rows with
i % 5 == 4 are held out.  gbdt trains end to end from the table (SELECT
gbdt_train: read, dictionary, bin, boost); XGBoost and LightGBM train on an
in-memory pandas DataFrame with `category` columns (training only, each in a
fresh process, after the DataFrame is built).  Same parameters for all: 100
rounds, depth 6 (LightGBM: max_depth 6, num_leaves 63), eta 0.1, 256 bins,
XGBoost's categorical defaults (max_cat_to_onehot 4, max_cat_threshold 64).
Prints a markdown table: times, the ratios gbdt/XGBoost and gbdt/LightGBM,
and held-out AUC (binary) or RMSE (regression) of each.
"""
import argparse
import io
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_tables  # noqa: E402

THREADS = int(os.environ.get("GBDT_BENCH_THREADS", "2"))
ROUNDS, DEPTH, ETA, BINS = 100, 6, 0.1, 256


def split(n):
    test = np.arange(n) % 5 == 4
    return ~test, test


def auc(y, p):
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(len(p))
    ps = p[order]
    i = 0
    while i < len(ps):
        j = i
        while j + 1 < len(ps) and ps[j + 1] == ps[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1
        i = j + 1
    pos = y == 1
    npos, nneg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - npos * (npos + 1) / 2) / (npos * nneg)


def metric(task, y, p):
    if task == "binary":
        return "AUC", auc(np.asarray(y), np.asarray(p))
    return "RMSE", float(np.sqrt(np.mean((np.asarray(y) - np.asarray(p)) ** 2)))


def frame(t):
    """The DataFrame with category dtype for the text columns."""
    import pandas as pd
    df = t["df"].copy()
    for c in t["categorical"]:
        df[c] = df[c].astype("string").astype("category")
    return df


PEER = r"""
import json, sys, time, pickle
import numpy as np
kind, path, task, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
with open(path, "rb") as f:
    Xtr, ytr, Xte = pickle.load(f)
if kind == "xgboost":
    import xgboost as xgb
    d = xgb.DMatrix(Xtr, ytr, enable_categorical=True, nthread=threads)
    params = dict(tree_method="hist", max_depth=%(depth)d, eta=%(eta)r, max_bin=%(bins)d,
                  nthread=threads, objective="binary:logistic" if task == "binary" else "reg:squarederror")
    t0 = time.perf_counter()
    b = xgb.train(params, d, %(rounds)d)
    secs = time.perf_counter() - t0
    p = b.inplace_predict(Xte)
else:
    import lightgbm as lgb
    d = lgb.Dataset(Xtr, ytr, params=dict(max_bin=%(bins)d - 1, verbose=-1), free_raw_data=False)
    d.construct()
    params = dict(objective="binary" if task == "binary" else "regression", max_depth=%(depth)d,
                  num_leaves=63, learning_rate=%(eta)r, num_threads=threads, verbose=-1,
                  min_data_in_leaf=1, min_sum_hessian_in_leaf=1.0, lambda_l2=1.0)
    t0 = time.perf_counter()
    b = lgb.train(params, d, %(rounds)d)
    secs = time.perf_counter() - t0
    p = b.predict(Xte)
print(json.dumps(dict(seconds=secs, pred=[float(v) for v in p])))
""" % dict(depth=DEPTH, eta=ETA, bins=BINS, rounds=ROUNDS)


def peer(kind, data_path, task):
    out = subprocess.run([sys.executable, "-c", PEER, kind, data_path, task, str(THREADS)],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def load_table(conn, name, t):
    df = t["df"]
    cats = set(t["categorical"])
    cols = []
    for c in df.columns:
        if c in cats:
            cols.append(f'"{c}" text')
        elif c == t["target"]:
            cols.append(f'"{c}" {"int" if t["task"] == "binary" else "float8"}')
        else:
            cols.append(f'"{c}" float8')
    cur = conn.cursor()
    cur.execute(f"DROP TABLE IF EXISTS {name}_all, {name}_train, {name}_test")
    cur.execute(f"CREATE TABLE {name}_all (rid bigint, {', '.join(cols)})")
    buf = io.StringIO()
    out = df.copy()
    out.insert(0, "rid", np.arange(len(df)))
    out.to_csv(buf, index=False, header=False, na_rep="")
    buf.seek(0)
    cur.copy_expert(f"COPY {name}_all FROM STDIN (FORMAT csv)", buf)
    collist = ", ".join(f'"{c}"' for c in df.columns)
    cur.execute(f"CREATE TABLE {name}_train AS SELECT {collist} FROM {name}_all WHERE rid % 5 <> 4 ORDER BY rid")
    cur.execute(f"CREATE TABLE {name}_test AS SELECT rid, {collist} FROM {name}_all WHERE rid % 5 = 4 ORDER BY rid")
    cur.execute(f"DROP TABLE {name}_all")
    cur.execute(f"VACUUM ANALYZE {name}_train")
    cur.execute(f"VACUUM ANALYZE {name}_test")
    conn.commit()


def indb(conn, name, t):
    obj = "binary:logistic" if t["task"] == "binary" else "reg:squarederror"
    params = json.dumps(dict(num_round=ROUNDS, max_depth=DEPTH, eta=ETA, max_bin=BINS, nthread=THREADS))
    cur = conn.cursor()
    cur.execute("CREATE TEMP TABLE IF NOT EXISTS cat_models (name text PRIMARY KEY, m gbdt_model)")
    cur.execute("DELETE FROM cat_models WHERE name = %s", (name,))
    t0 = time.perf_counter()
    cur.execute(f"INSERT INTO cat_models SELECT %s, gbdt_train('{name}_train', %s, NULL, %s, %s::jsonb)",
                (name, t["target"], obj, params))
    secs = time.perf_counter() - t0
    cur.execute(f"SELECT p.prediction FROM cat_models c, gbdt_predict_table(c.m, '{name}_test', 'rid') p "
                f"WHERE c.name = %s ORDER BY p.key::bigint", (name,))
    pred = [r[0] for r in cur.fetchall()]
    conn.commit()
    return dict(seconds=secs, pred=pred)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("tables", nargs="*", default=["flights", "insteval", "diamonds", "adult"])
    a = ap.parse_args()
    import pickle
    import tempfile

    import psycopg2
    conn = psycopg2.connect("")
    conn.cursor().execute("CREATE EXTENSION IF NOT EXISTS gbdt")
    conn.commit()
    lines = [f"Categorical tables, {THREADS} threads, {ROUNDS} rounds, depth {DEPTH}, eta {ETA}, {BINS} bins: "
             "gbdt end to end from the table vs XGBoost enable_categorical / LightGBM categorical_feature "
             "training only (DataFrame with category columns)", "",
             "| table | rows (train) | text columns (levels) | gbdt s | XGBoost s | LightGBM s | gbdt/XGB | gbdt/LGB | "
             "metric | gbdt | XGBoost | LightGBM |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in a.tables:
        t = real_tables.load(name)
        if t is None:
            print(f"== categorical bench: {name} not available, skipped", flush=True)
            continue
        df = t["df"]
        tr, te = split(len(df))
        tname = f"cat_{name}"
        load_table(conn, tname, t)
        g = indb(conn, tname, t)
        fr = frame(t)
        X = fr.drop(columns=[t["target"]])
        y = df[t["target"]].to_numpy()
        with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as f:
            pickle.dump((X[tr], y[tr], X[te]), f)
            path = f.name
        try:
            x = peer("xgboost", path, t["task"])
            lg = peer("lightgbm", path, t["task"])
        finally:
            os.unlink(path)
        mname, mg = metric(t["task"], y[te], g["pred"])
        _, mx = metric(t["task"], y[te], x["pred"])
        _, ml = metric(t["task"], y[te], lg["pred"])
        levels = ", ".join(f"{c} {df[c].nunique()}" for c in t["categorical"])
        row = (f"| {name} | {int(tr.sum())} | {levels} | {g['seconds']:.2f} | {x['seconds']:.2f} | "
               f"{lg['seconds']:.2f} | {g['seconds'] / x['seconds']:.2f} | {g['seconds'] / lg['seconds']:.2f} | "
               f"{mname} | {mg:.4f} | {mx:.4f} | {ml:.4f} |")
        print(row, flush=True)
        lines.append(row)
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
