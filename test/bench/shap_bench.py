#!/usr/bin/env python3
"""TreeSHAP throughput: gbdt_explain_table against XGBoost's CPU
pred_contribs on the same model, rows and threads.

Usage: shap_bench.py [--rows N] [--threads T] [--repeat R] [--out FILE]

Runs against the database psql reaches (PGHOST, PGPORT, ...; test/bench/run
starts one).  For depth 6 and 8 with 100 and 500 trees: trains a binary model
in SQL (eta 0.1) on a deterministic table of N rows x 28 features, exports it
with gbdt_export and loads it in xgboost.Booster, then times (fastest of R)
  - SELECT count(*) FROM gbdt_explain_table(model, table, 'id')   (in-database,
    reading the table, all contributions into the tuplestore, nthread = T via
    gbdt.max_threads in PGOPTIONS)
  - Booster.predict(DMatrix(X), pred_contribs=True) with nthread = T on the
    same rows already in a numpy matrix (XGBoost's time excludes loading),
checks that both give the same contributions (max |diff| <= 1e-4 on the
first rows) and prints rows/s and the ratio gbdt / XGBoost (>= 1.0 is the
target).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import xgboost as xgb

NF = 28


def psql(sql):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\t", "-c", sql],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()}\nSQL: {sql[:300]}")
    return [ln for ln in r.stdout.splitlines() if ln]


def timed_sql(sql):
    """Seconds the statement took inside the server (clock_timestamp)."""
    script = ("SELECT clock_timestamp() AS t0 \\gset\n" + sql + ";\n"
              "SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz);\n")
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"], input=script,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed: {r.stderr.strip()}")
    return float(r.stdout.split()[-1])


def make_table(rows):
    feats = ", ".join(
        f"((hashint4(i * {NF} + {k}) & 65535) / 65536.0)::float8 AS f{k}" for k in range(NF))
    psql("DROP TABLE IF EXISTS shap_bench")
    psql(f"CREATE TABLE shap_bench AS SELECT i AS id, {feats} FROM generate_series(1, {rows}) i")
    # A label that depends on several features, with noise.
    psql("ALTER TABLE shap_bench ADD COLUMN label int")
    psql("UPDATE shap_bench SET label = (f0 + f1 * f2 - f3 + 0.5 * f4 + 0.3 * sin(6 * f5) "
         "+ ((hashint4(id) & 1023) / 1024.0 - 0.5) > 0.6)::int")
    psql("VACUUM ANALYZE shap_bench")
    lines = psql("SELECT " + ", ".join(f"f{k}" for k in range(NF)) + " FROM shap_bench ORDER BY id")
    return np.array([[float(v) for v in ln.split("\t")] for ln in lines], dtype=np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=int(os.environ.get("GBDT_SHAP_BENCH_ROWS", 5000)))
    ap.add_argument("--threads", type=int, default=int(os.environ.get("GBDT_BENCH_THREADS", 2)))
    ap.add_argument("--repeat", type=int, default=int(os.environ.get("GBDT_BENCH_REPEAT", 2)))
    ap.add_argument("--out")
    a = ap.parse_args()

    X = make_table(a.rows)
    # Scoring threads of every session of this run (superuser-set GUC).
    os.environ["PGOPTIONS"] = (os.environ.get("PGOPTIONS", "") + f" -c gbdt.max_threads={a.threads}").strip()
    print(f"xgboost {xgb.__version__}; {a.rows} rows x {NF} features, {a.threads} threads, "
          f"fastest of {a.repeat}")
    out = ["| model | gbdt_explain_table rows/s | XGBoost pred_contribs rows/s | ratio (>= 1.0) | max abs diff |",
           "| --- | --- | --- | --- | --- |"]
    worst = None
    for depth in (6, 8):
        for trees in (100, 500):
            params = json.dumps({"num_round": trees, "max_depth": depth, "eta": 0.1,
                                 "nthread": a.threads})
            psql("DROP TABLE IF EXISTS shap_bench_m")
            feats = "ARRAY[" + ", ".join(f"'f{k}'" for k in range(NF)) + "]"
            psql(f"CREATE TABLE shap_bench_m AS SELECT gbdt_train('shap_bench', 'label', {feats}, "
                 f"'binary:logistic', '{params}') AS m")
            js = psql("SELECT gbdt_export(m) FROM shap_bench_m")[0]
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                f.write(js)
                path = f.name
            bst = xgb.Booster(model_file=path)
            os.unlink(path)
            bst.set_param({"nthread": a.threads})
            dm = xgb.DMatrix(X, feature_names=[f"f{k}" for k in range(NF)])
            t_x = t_g = float("inf")
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                ref = bst.predict(dm, pred_contribs=True)
                t_x = min(t_x, time.perf_counter() - t0)
                t_g = min(t_g, timed_sql("SELECT count(*) FROM shap_bench_m, "
                                         "gbdt_explain_table(shap_bench_m.m, 'shap_bench', 'id')"))
            # Same contributions on the first rows (bias last in both).
            names = [f"f{k}" for k in range(NF)] + ["bias"]
            ours = np.zeros((20, NF + 1))
            for ln in psql("SELECT b.id, e.feature, e.contribution FROM shap_bench_m, "
                           "shap_bench b, gbdt_explain(shap_bench_m.m, b) e WHERE b.id <= 20"):
                key, feat, val = ln.split("\t")
                ours[int(key) - 1, names.index(feat)] = float(val)
            diff = float(np.max(np.abs(ours - ref[:20])))
            ratio = (a.rows / t_g) / (a.rows / t_x)
            worst = ratio if worst is None else min(worst, ratio)
            line = (f"| depth {depth}, {trees} trees | {a.rows / t_g:,.0f} | {a.rows / t_x:,.0f} | "
                    f"{ratio:.2f} | {diff:.1e} |")
            print(line, flush=True)
            out.append(line)
            if diff > 1e-4:
                print(f"shap bench: contributions differ by {diff}", file=sys.stderr)
                return 1
    print(f"shap bench: worst ratio {worst:.2f}")
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
