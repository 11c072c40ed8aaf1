#!/usr/bin/env python3
"""Scoring speed on one data set: gbdt_predict_table rows/s and scalar
gbdt_predict us/row against XGBoost inplace_predict on the same test rows
(categorical columns as pandas category dtype with enable_categorical).

    python3 test/bench/profile_predict.py [SET ...]

SET: a real table of real_tables.py (insteval, flights, ...) or a shape
"shape:rows:features" of shapes.py (sparse:100000:200, wide:20000:500).
Default: insteval sparse:100000:200.  GBDT_PROFILE_LIBS="a.so b.so" runs
the sets with each build of gbdt.so in turn (before / after).  Uses the PG* environment (a cluster
with the gbdt extension installed) and the suite's loaders; the model is
the suite's (100 rounds, depth 6, eta 0.1, 256 bins), trained once per set
and kept in profile_models.  Best of 3 for each timing, 2 threads.  Prints
ratios (>= 1.0: gbdt faster).  Short: a few seconds per set once loaded.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402

NT = 2


def best_of(fn, n=3):
    best = 1e9
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def xgb_rows_s(ds):
    import pandas as pd
    import xgboost as xgb
    df = ds["df"]
    cats = set(ds["categorical"])
    X = pd.DataFrame({c: (df[c].astype("category") if c in cats else df[c].astype(np.float32))
                      for c in ds["features"]})
    y = df[ds["target"]].to_numpy()
    rid = np.arange(len(df))
    tr, te = rid % 5 != 4, rid % 5 == 4
    Xtr, Xte = X[tr], X[te]
    if not cats:
        Xtr, Xte = Xtr.to_numpy(), Xte.to_numpy()
    obj = "binary:logistic" if ds["task"] == "binary" else "reg:squarederror"
    d = xgb.DMatrix(Xtr, label=y[tr], nthread=NT, enable_categorical=bool(cats))
    b = xgb.train(dict(tree_method="hist", max_depth=suite.DEPTH, eta=suite.ETA, max_bin=suite.BINS,
                       nthread=NT, objective=obj), d, suite.ROUNDS)
    b.set_param({"nthread": NT})
    b.inplace_predict(Xte)
    return len(Xte) / best_of(lambda: b.inplace_predict(Xte))


def gbdt_rows_s(conn, ds):
    name = suite.table_name(ds)
    cur = conn.cursor()
    cur.execute("SELECT to_regclass(%s) IS NOT NULL", (name + "_test",))
    if not cur.fetchone()[0]:
        suite.load_table(conn, ds)
    cur.execute("CREATE TABLE IF NOT EXISTS profile_models (name text PRIMARY KEY, m gbdt_model)")
    cur.execute("SELECT count(*) FROM profile_models WHERE name = %s", (name,))
    if cur.fetchone()[0] == 0:
        obj = "binary:logistic" if ds["task"] == "binary" else "reg:squarederror"
        params = json.dumps(dict(num_round=suite.ROUNDS, max_depth=suite.DEPTH, eta=suite.ETA,
                                 max_bin=suite.BINS, nthread=NT))
        cur.execute(f"INSERT INTO profile_models SELECT %s, gbdt_train('{name}_train', 'label', NULL, "
                    f"%s, %s::jsonb)", (name, obj, params))
    conn.commit()
    cur.execute(f"SELECT count(*) FROM {name}_test")
    n = cur.fetchone()[0]
    model = f"(SELECT m FROM profile_models WHERE name = '{name}')"

    def table():
        cur.execute(f"SELECT count(*), sum(p.prediction) FROM gbdt_predict_table({model}, '{name}_test', 'rid') p")
        cur.fetchall()

    def scan():  # reading the heap and every column alone
        cur.execute(f"SELECT count(*) FROM (SELECT * FROM {name}_test OFFSET 0) s")
        cur.fetchall()

    def scalar():
        cur.execute(f"SELECT sum(gbdt_predict(b.m, t)) FROM profile_models b, {name}_test t "
                    f"WHERE b.name = %s", (name,))
        cur.fetchall()

    table()
    scalar()
    return dict(n=n, table=n / best_of(table), scan=n / best_of(scan),
                scalar_us=best_of(scalar) / n * 1e6)


def install_lib(path):
    """Before/after: copies a built gbdt.so over the installed one (the
    next connection loads it)."""
    import shutil
    libdir = subprocess.check_output(["pg_config", "--pkglibdir"], text=True).strip()
    shutil.copyfile(path, os.path.join(libdir, "gbdt.so.tmp"))
    os.replace(os.path.join(libdir, "gbdt.so.tmp"), os.path.join(libdir, "gbdt.so"))


def main():
    import psycopg2
    sets = sys.argv[1:] or ["insteval", "sparse:100000:200"]
    # GBDT_PROFILE_LIBS="before.so after.so": the same sets with each build in
    # turn (the last one stays installed); unset: the installed build.
    libs = os.environ.get("GBDT_PROFILE_LIBS", "").split() or [None]
    for s in sets:
        ds = suite.shape_set(s) if ":" in s else suite.real_set(s)
        if ds is None:
            print(f"{s}: not available")
            continue
        if ":" not in s:
            ds["kind"] = "categorical" if ds["categorical"] else "real"
        x = None
        for lib in libs:
            if lib is not None:
                install_lib(lib)
            conn = psycopg2.connect("")
            conn.cursor().execute("SELECT set_config('gbdt.max_memory', '16GB', false)")
            g = gbdt_rows_s(conn, ds)
            conn.close()
            if x is None:
                x = xgb_rows_s(ds)
            tag = os.path.basename(lib) if lib else "installed"
            print(f"{s:20s} {tag:16s} rows {g['n']:7d}  gbdt_predict_table {g['table'] / 1e3:6.0f}k rows/s  "
                  f"XGBoost inplace_predict {x / 1e3:6.0f}k rows/s  ratio {g['table'] / x:5.2f}  "
                  f"(heap scan alone {g['scan'] / 1e3:.0f}k rows/s; scalar gbdt_predict {g['scalar_us']:.2f} us/row)",
                  flush=True)


if __name__ == "__main__":
    main()
