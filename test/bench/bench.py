#!/usr/bin/env python3
"""gbdt benchmark driver (run by test/bench/run, which starts the cluster).

For each dataset: loads it into PostgreSQL (train/test split: row i is a
test row when i % 5 == 4), then times, in this order and one at a time:
  * SELECT gbdt_train(...) end to end from the table, with its phases
    (gbdt.log_progress NOTICEs), held-out metric (gbdt_evaluate), backend memory;
  * the engine alone (build/engine_bench) on the same float32 matrix;
  * XGBoost hist and LightGBM on that numpy matrix (fresh processes);
  * the user path COPY -> pandas -> XGBoost (fresh process);
  * scoring: gbdt_predict_table vs XGBoost inplace_predict, and the scalar
    gbdt_predict vs a trivial SQL function over the test table.
Memory: peak resident set of each training process measured during training
(VmHWM after a reset through /proc/<pid>/clear_refs); for the backend also
its peak private memory (RssAnon, sampled every 5 ms).
"""
import argparse
import io
import json
import os
import re
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc_mem import PeakSampler, reset_hwm, status_kb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("GBDT_SHARED") or os.path.join(os.path.dirname(ROOT), "shared")
DATA = os.path.join(ROOT, "results", "data")
THREADS = int(os.environ.get("GBDT_BENCH_THREADS", "2"))
ROWS = int(os.environ.get("GBDT_BENCH_ROWS", "1000000"))
WIDE_ROWS = int(os.environ.get("GBDT_BENCH_WIDE_ROWS", "200000"))
ROUNDS, DEPTH, ETA, BINS = 100, 6, 0.1, 256
# Timed steps are repeated and the fastest run kept (others' load on a shared
# machine only ever slows a run down).
REPEAT = max(1, int(os.environ.get("GBDT_BENCH_REPEAT", "1")))


def best_of(fn, key):
    best = None
    for _ in range(REPEAT):
        r = fn()
        if best is None or r[key] < best[key]:
            best = r
    return best


def datasets():
    return {
        "binary": dict(desc=f"synthetic binary {ROWS//1000}k x 28", gen=[str(ROWS), "--task", "binary"],
                       csv=f"synth_binary_{ROWS}.csv", objective="binary:logistic"),
        "regression": dict(desc=f"synthetic regression {ROWS//1000}k x 28",
                           gen=[str(ROWS), "--task", "regression"],
                           csv=f"synth_regression_{ROWS}.csv", objective="reg:squarederror"),
        "wide": dict(desc=f"synthetic wide {WIDE_ROWS//1000}k x 500",
                     gen=[str(WIDE_ROWS), "--features", "500", "--task", "binary"],
                     csv=f"synth_wide_{WIDE_ROWS}.csv", objective="binary:logistic"),
        "higgs": dict(desc="Higgs sample 7k x 28 (shared)",
                      path=os.path.join(SHARED, "data", "higgs_7k.train.tsv"),
                      objective="binary:logistic"),
    }


# ---------------------------------------------------------------- helpers

def cpu_idle_fraction(seconds=0.5):
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[3] + v[4], sum(v)
    i0, t0 = read()
    time.sleep(seconds)
    i1, t1 = read()
    return (i1 - i0) / max(1, t1 - t0)


QUIET_WAITS = [0.0]


def wait_quiet(limit=45.0):
    """Other processes on the machine skew timings: wait (up to `limit` s)
    until the CPUs are at least 85% idle."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        if cpu_idle_fraction() >= 0.85:
            break
    QUIET_WAITS[0] += time.perf_counter() - t0


def auc(y, p):
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    ranks = np.empty(len(p))
    # average ranks for ties
    i = 0
    r = np.arange(1, len(p) + 1, dtype=np.float64)
    _, idx, counts = np.unique(ps, return_index=True, return_counts=True)
    avg = idx + (counts + 1) / 2.0
    ranks_sorted = np.repeat(avg, counts)
    ranks[order] = ranks_sorted
    pos = y == 1
    npos, nneg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def metric(objective, y, p):
    if objective.startswith("binary"):
        return ("auc", auc(y, p))
    return ("rmse", float(np.sqrt(np.mean((p.astype(np.float64) - y) ** 2))))


def split(a):
    te = (np.arange(a.shape[0]) % 5) == 4
    X = np.ascontiguousarray(a[~te, 1:])
    y = np.ascontiguousarray(a[~te, 0])
    Xt = np.ascontiguousarray(a[te, 1:])
    yt = np.ascontiguousarray(a[te, 0])
    return X, y, Xt, yt


# ---------------------------------------------------------------- workers
# Each peer runs in its own process (python3 bench.py --worker KIND ...) so
# that its peak memory is its own.

def worker(kind, npy, objective, threads, table):
    out = {}
    if kind in ("xgb", "lgb"):
        a = np.load(npy)
        X, y, Xt, yt = split(a)
        del a
        reset_hwm()
        rss0 = status_kb("self", "VmHWM")
        t0 = time.perf_counter()
        if kind == "xgb":
            import xgboost as xgb
            d = xgb.DMatrix(X, label=y, nthread=threads)
            t1 = time.perf_counter()
            b = xgb.train(dict(tree_method="hist", max_depth=DEPTH, eta=ETA, max_bin=BINS,
                               nthread=threads, objective=objective), d, ROUNDS)
            t2 = time.perf_counter()
            out.update(version=xgb.__version__, prepare_s=t1 - t0, fit_s=t2 - t1)
            b.set_param({"nthread": threads})
            p = b.inplace_predict(Xt)
            best = 1e9
            for _ in range(3):
                s = time.perf_counter()
                p = b.inplace_predict(Xt)
                best = min(best, time.perf_counter() - s)
            out["predict_rows_per_s"] = len(Xt) / best
        else:
            import lightgbm as lgb
            lobj = "binary" if objective.startswith("binary") else "regression"
            params = dict(objective=lobj, learning_rate=ETA, max_depth=DEPTH, num_leaves=2 ** DEPTH,
                          max_bin=BINS - 1, num_threads=threads, verbose=-1, lambda_l2=1.0,
                          min_sum_hessian_in_leaf=1.0, min_data_in_leaf=1, force_col_wise=True)
            ds = lgb.Dataset(X, label=y, params=dict(max_bin=BINS - 1, verbose=-1, min_data_in_leaf=1,
                                                     feature_pre_filter=False, num_threads=threads))
            ds.construct()
            t1 = time.perf_counter()
            m = lgb.train(params, ds, ROUNDS)
            t2 = time.perf_counter()
            out.update(version=lgb.__version__, prepare_s=t1 - t0, fit_s=t2 - t1)
            p = m.predict(Xt, num_threads=threads)
        out["train_s"] = t2 - t0
        out["rss_peak_kb"] = status_kb("self", "VmHWM")
        out["rss_input_kb"] = rss0
        out["metric"] = metric(objective, yt, np.asarray(p, dtype=np.float64))
    elif kind == "user":
        import pandas as pd
        import psycopg2
        import xgboost as xgb
        conn = psycopg2.connect("")
        cur = conn.cursor()
        t0 = time.perf_counter()
        buf = io.BytesIO()
        cur.copy_expert(f"COPY {table}_train TO STDOUT (FORMAT csv, HEADER)", buf)
        buf.seek(0)
        t1 = time.perf_counter()
        df = pd.read_csv(buf)
        del buf
        y = df["label"].to_numpy(np.float32)
        X = df.drop(columns=["label"]).to_numpy(np.float32)
        del df
        t2 = time.perf_counter()
        d = xgb.DMatrix(X, label=y, nthread=threads)
        b = xgb.train(dict(tree_method="hist", max_depth=DEPTH, eta=ETA, max_bin=BINS,
                           nthread=threads, objective=objective), d, ROUNDS)
        t3 = time.perf_counter()
        out.update(copy_s=t1 - t0, pandas_s=t2 - t1, fit_s=t3 - t2, train_s=t3 - t0,
                   rss_peak_kb=status_kb("self", "VmHWM"))
    print(json.dumps(out))


def run_worker(kind, npy, objective, table):
    wait_quiet()
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", kind, "--npy", npy,
                        "--objective", objective, "--table", table],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"worker {kind} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- data

def prepare(name, ds):
    os.makedirs(DATA, exist_ok=True)
    if "path" in ds:
        src = ds["path"]
    else:
        src = os.path.join(DATA, ds["csv"])
        if not os.path.exists(src):
            print(f"   generating {src}", flush=True)
            with open(src + ".tmp", "w") as f:
                subprocess.run([sys.executable, os.path.join(SHARED, "tools", "gen_synth.py")] + ds["gen"],
                               stdout=f, check=True)
            os.replace(src + ".tmp", src)
    npy = os.path.splitext(os.path.join(DATA, os.path.basename(src)))[0] + ".npy"
    if not os.path.exists(npy) or os.path.getmtime(npy) < os.path.getmtime(src):
        import pandas as pd
        tsv = src.endswith(".tsv")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = pd.read_csv(src, sep="\t" if tsv else ",", header=None if tsv else 0,
                             dtype=np.float64, float_precision="round_trip")
        np.save(npy, np.ascontiguousarray(df.to_numpy(dtype=np.float32)))
        del df
    ncols = int(np.load(npy, mmap_mode="r").shape[1])
    return src, npy, ncols - 1


def load_table(conn, name, src, d):
    cur = conn.cursor()
    feats = [f"f{i}" for i in range(d)]
    cols = ", ".join(f"{f} float8" for f in feats)
    cur.execute(f"DROP TABLE IF EXISTS {name}_all, {name}_train, {name}_test")
    cur.execute(f"CREATE UNLOGGED TABLE {name}_all (id bigserial, label float8, {cols})")
    collist = "label, " + ", ".join(feats)
    t0 = time.perf_counter()
    with open(src) as f:
        if src.endswith(".tsv"):
            cur.copy_expert(f"COPY {name}_all ({collist}) FROM STDIN", f)
        else:
            cur.copy_expert(f"COPY {name}_all ({collist}) FROM STDIN (FORMAT csv, HEADER)", f)
    t_copy = time.perf_counter() - t0
    # Physical order = file order (no parallel workers), so the training
    # table holds exactly the engine's training rows in the same order.
    cur.execute(f"CREATE TABLE {name}_train AS SELECT {collist} FROM {name}_all WHERE id % 5 <> 0")
    cur.execute(f"CREATE TABLE {name}_test AS SELECT id, {collist} FROM {name}_all WHERE id % 5 = 0")
    cur.execute(f"DROP TABLE {name}_all")
    conn.commit()
    old = conn.autocommit
    conn.autocommit = True
    cur.execute(f"VACUUM (FREEZE, ANALYZE) {name}_train")
    cur.execute(f"VACUUM (FREEZE, ANALYZE) {name}_test")
    conn.autocommit = old
    # Reference: one sequential scan that deforms every column (warm, best of 2).
    scan = 1e9
    for _ in range(2):
        t0 = time.perf_counter()
        allc = ["label"] + feats
        nn = " + ".join(f"num_nulls({', '.join(allc[i:i + 100])})" for i in range(0, len(allc), 100))
        cur.execute(f"SELECT sum({nn}) FROM {name}_train")
        cur.fetchall()
        scan = min(scan, time.perf_counter() - t0)
    cur.execute(f"SELECT count(*) FROM {name}_train")
    n = cur.fetchone()[0]
    return dict(copy_in_s=t_copy, scan_s=scan, n_train=n)


# ---------------------------------------------------------------- gbdt

def gbdt_params():
    return json.dumps(dict(num_round=ROUNDS, max_depth=DEPTH, eta=ETA, max_bin=BINS, nthread=THREADS))


def indb_train(name, objective):
    import psycopg2
    conn = psycopg2.connect("")
    cur = conn.cursor()
    cur.execute("SELECT pg_backend_pid()")
    pid = cur.fetchone()[0]
    cur.execute("SELECT set_config('gbdt.log_progress', 'on', false)")
    cur.execute("SELECT set_config('gbdt.max_memory', '16GB', false)")
    cur.execute("CREATE TABLE IF NOT EXISTS bench_models (name text PRIMARY KEY, m gbdt_model)")
    cur.execute("DELETE FROM bench_models WHERE name = %s", (name,))
    conn.commit()
    reset_ok = reset_hwm(pid)
    anon0 = status_kb(pid, "RssAnon")
    del conn.notices[:]
    wait_quiet()
    with PeakSampler(pid) as ps:
        t0 = time.perf_counter()
        cur.execute("INSERT INTO bench_models SELECT %s, gbdt_train(%s::regclass, 'label', NULL, %s, %s::jsonb)",
                    (name, f"{name}_train", objective, gbdt_params()))
        conn.commit()
        total = time.perf_counter() - t0
    hwm = status_kb(pid, "VmHWM")
    notices = "".join(conn.notices)
    r = dict(total_s=total, rss_peak_kb=hwm if reset_ok else -1, anon_peak_kb=ps.peak_anon,
             anon_base_kb=anon0, notices=notices)
    m = re.search(r"load ([0-9.]+) s, bin ([0-9.]+) s, train ([0-9.]+) s", notices)
    if m:
        r.update(load_s=float(m.group(1)), bin_s=float(m.group(2)), boost_s=float(m.group(3)))
    else:
        m = re.search(r"loaded \d+ rows x \d+ features in ([0-9.]+) s", notices)
        if m:
            r["load_s"] = float(m.group(1))
    cur.execute("SELECT gbdt_evaluate(m, %s::regclass, 'label'), encode(sha256(gbdt_model_send(m)), 'hex') "
                "FROM bench_models WHERE name = %s", (f"{name}_test", name))
    ev, sha = cur.fetchone()
    ev = ev if isinstance(ev, dict) else json.loads(ev)
    key = "auc" if objective.startswith("binary") else "rmse"
    r["metric"] = (key, ev.get(key))
    r["model_sha"] = sha
    conn.close()
    return r


def query_seconds(cur, sql, args=None):
    """Wall time of one query, its rows fetched."""
    t0 = time.perf_counter()
    cur.execute(sql, args)
    cur.fetchall()
    return time.perf_counter() - t0


def indb_scoring(name, d):
    import psycopg2
    conn = psycopg2.connect("")
    cur = conn.cursor()
    cur.execute(f"SELECT count(*) FROM {name}_test")
    n = cur.fetchone()[0]
    best = 1e9
    wait_quiet()
    for _ in range(3):
        best = min(best, query_seconds(cur, f"SELECT count(*), sum(p.prediction) FROM bench_models b, "
                                            f"gbdt_predict_table(b.m, '{name}_test', 'id') p WHERE b.name = %s",
                                       (name,)))
    r = dict(n_test=n, table_s=best, table_rows_per_s=n / best)
    # References for the scoring query: a bare sequential scan of the test
    # table (the floor of any in-database read of it), and the same query on
    # an empty copy (per-query overhead: model fetch, detoast, decode, setup).
    cur.execute(f"DROP TABLE IF EXISTS {name}_test_empty")
    cur.execute(f"CREATE TABLE {name}_test_empty AS SELECT * FROM {name}_test WHERE false")
    conn.commit()
    scan, fixed = 1e9, 1e9
    for _ in range(3):
        scan = min(scan, query_seconds(cur, f"SELECT count(*) FROM {name}_test"))
        fixed = min(fixed, query_seconds(cur, f"SELECT count(*), sum(p.prediction) FROM bench_models b, "
                                              f"gbdt_predict_table(b.m, '{name}_test_empty', 'id') p "
                                              f"WHERE b.name = %s", (name,)))
    cur.execute(f"DROP TABLE {name}_test_empty")
    conn.commit()
    r.update(test_scan_s=scan, table_empty_s=fixed)
    # Scalar path vs the same query calling a trivial SQL function.
    # Two trivial SQL functions: one the planner inlines (no call at all) and
    # one it calls (STRICT with a field selection is never inlined).
    cur.execute(f"CREATE OR REPLACE FUNCTION bench_trivial_{name}(m gbdt_model, r {name}_test) "
                f"RETURNS float8 LANGUAGE sql AS 'SELECT ($2).f0'")
    cur.execute(f"CREATE OR REPLACE FUNCTION bench_called_{name}(m gbdt_model, r {name}_test) "
                f"RETURNS float8 LANGUAGE sql STRICT AS 'SELECT ($2).f0'")
    conn.commit()
    ts, tt, tc = 1e9, 1e9, 1e9
    for _ in range(2):
        tc = min(tc, query_seconds(cur, f"SELECT sum(bench_called_{name}(b.m, t)) FROM bench_models b, "
                                        f"{name}_test t WHERE b.name = %s", (name,)))
        ts = min(ts, query_seconds(cur, f"SELECT sum(gbdt_predict(b.m, t)) FROM bench_models b, "
                                        f"{name}_test t WHERE b.name = %s", (name,)))
        tt = min(tt, query_seconds(cur, f"SELECT sum(bench_trivial_{name}(b.m, t)) FROM bench_models b, "
                                        f"{name}_test t WHERE b.name = %s", (name,)))
    r.update(scalar_s=ts, trivial_s=tt, called_s=tc)
    conn.close()
    return r


def engine_alone(npy, objective, model_out):
    exe = os.path.join(ROOT, "build", "engine_bench")
    wait_quiet()
    env = dict(os.environ, GBDT_PHASES="1")
    r = subprocess.run([exe, npy, f"objective={objective}", f"num_round={ROUNDS}", f"max_depth={DEPTH}",
                        f"eta={ETA}", f"max_bin={BINS}", f"nthread={THREADS}", "test_every=5",
                        f"model_out={model_out}"], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("engine_bench failed: " + r.stderr)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["phases"] = {m.group(1): float(m.group(2))
                     for m in re.finditer(r"phase (\w+) ([0-9.]+)", r.stderr)}
    key = "auc" if objective.startswith("binary") else "rmse"
    out["metric"] = (key, out.get("test_" + key))
    import hashlib
    with open(model_out, "rb") as f:
        out["model_sha"] = hashlib.sha256(f.read()).hexdigest()
    return out


# ---------------------------------------------------------------- report

def mb(kb):
    return "n/a" if kb is None or kb < 0 else f"{kb / 1024:.0f}"


def fmt_ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "n/a"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--npy")
    ap.add_argument("--objective")
    ap.add_argument("--table")
    ap.add_argument("--out")
    ap.add_argument("--datasets", default=os.environ.get("GBDT_BENCH_DATASETS", "binary regression wide higgs"))
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.npy, a.objective, THREADS, a.table)
        return

    import psycopg2
    import xgboost
    import lightgbm
    lines = []

    def emit(s=""):
        print(s, flush=True)
        lines.append(s)

    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except Exception:
        pass
    conn = psycopg2.connect("")
    cur = conn.cursor()
    cur.execute("SHOW server_version")
    pgv = cur.fetchone()[0]
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    emit(f"# gbdt benchmark {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    emit()
    emit(f"Machine: {cpu}, {os.cpu_count()} cores visible; threads = {THREADS} for every trainer. "
         f"PostgreSQL {pgv}, gbdt {head}, XGBoost {xgboost.__version__}, LightGBM {lightgbm.__version__}, "
         f"numpy {np.__version__}.  Params: {ROUNDS} rounds, max_depth {DEPTH}, eta {ETA}, {BINS} bins "
         f"(LightGBM: num_leaves {2 ** DEPTH}, max_bin {BINS - 1}, lambda_l2 1, min_sum_hessian 1).  "
         f"Split: row i is held out when i % 5 == 4 (80% train / 20% test).")
    emit()
    summary = []
    for name in a.datasets.split():
        ds = datasets()[name]
        print(f"== {name}: {ds['desc']}", flush=True)
        src, npy, d = prepare(name, ds)
        obj = ds["objective"]
        ld = load_table(conn, name, src, d)
        n = ld["n_train"]
        print(f"   loaded {n} training rows ({ld['copy_in_s']:.1f} s COPY)", flush=True)
        ind = best_of(lambda: indb_train(name, obj), "total_s")
        print(f"   in-db {ind['total_s']:.2f} s", flush=True)
        eng = best_of(lambda: engine_alone(npy, obj, os.path.join(DATA, f"{name}.engine.model")), "train_s")
        print(f"   engine {eng['train_s']:.2f} s", flush=True)
        xg = best_of(lambda: run_worker("xgb", npy, obj, name), "train_s")
        print(f"   xgboost {xg['train_s']:.2f} s", flush=True)
        lg = best_of(lambda: run_worker("lgb", npy, obj, name), "train_s")
        print(f"   lightgbm {lg['train_s']:.2f} s", flush=True)
        us = best_of(lambda: run_worker("user", npy, obj, name), "train_s")
        print(f"   COPY->pandas->xgboost {us['train_s']:.2f} s", flush=True)
        sc = indb_scoring(name, d)
        budget_kb = (1.5 * (n * d + 32 * n) + 100 * 2 ** 20) / 1024
        E, X, L = eng["train_s"], xg["train_s"], lg["train_s"]
        T = ind["total_s"]
        mname = ind["metric"][0].upper()

        def m(v):
            return f"{v:.4f}" if isinstance(v, float) else "n/a"

        emit(f"## {name}: {ds['desc']} ({n} training rows, {sc['n_test']} test rows)")
        emit()
        emit(f"| path | seconds | vs engine | vs XGBoost | test {mname} | peak RSS MB |")
        emit("| --- | ---: | ---: | ---: | ---: | ---: |")
        emit(f"| `SELECT gbdt_train(...)` end to end | {T:.2f} | {fmt_ratio(T, E)} | {fmt_ratio(T, X)} | "
             f"{m(ind['metric'][1])} | {mb(ind['rss_peak_kb'])} (private {mb(ind['anon_peak_kb'])}) |")
        if "load_s" in ind:
            emit(f"| &nbsp; load: scan + convert | {ind['load_s']:.2f} | {fmt_ratio(ind['load_s'], E)} | | | |")
        if "bin_s" in ind:
            emit(f"| &nbsp; bin (quantiles + binned matrix) | {ind['bin_s']:.2f} | | | | |")
            emit(f"| &nbsp; boost ({ROUNDS} rounds) | {ind['boost_s']:.2f} | | | | |")
            rest = T - ind["load_s"] - ind["bin_s"] - ind["boost_s"]
            emit(f"| &nbsp; other (params, serialize, insert) | {rest:.2f} | | | | |")
        ph = eng.get("phases", {})
        emit(f"| engine alone (bin + boost, in-memory matrix) | {E:.2f} | 1.00x | {fmt_ratio(E, X)} | "
             f"{m(eng['metric'][1])} | {mb(eng['rss_peak_kb'])} |")
        emit(f"| &nbsp; bin | {eng['bin_s']:.2f} | | | | |")
        if ph:
            emit("| &nbsp; boost: " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items()) +
                 f" | {eng['boost_s']:.2f} | | | | |")
        emit(f"| XGBoost hist (DMatrix {xg['prepare_s']:.2f} + train {xg['fit_s']:.2f}) | {X:.2f} | "
             f"{fmt_ratio(X, E)} | 1.00x | {m(xg['metric'][1])} | {mb(xg['rss_peak_kb'])} |")
        emit(f"| LightGBM (Dataset {lg['prepare_s']:.2f} + train {lg['fit_s']:.2f}) | {L:.2f} | "
             f"{fmt_ratio(L, E)} | {fmt_ratio(L, X)} | {m(lg['metric'][1])} | {mb(lg['rss_peak_kb'])} |")
        emit(f"| COPY -> pandas -> XGBoost (COPY {us['copy_s']:.2f} + pandas {us['pandas_s']:.2f} + "
             f"train {us['fit_s']:.2f}) | {us['train_s']:.2f} | {fmt_ratio(us['train_s'], E)} | "
             f"{fmt_ratio(us['train_s'], X)} | | {mb(us['rss_peak_kb'])} |")
        emit(f"| reference: seq scan deforming every column | {ld['scan_s']:.2f} | | | | |")
        emit()
        same = "identical" if ind["model_sha"] == eng["model_sha"] else "different"
        emit(f"Scoring ({sc['n_test']} rows): `gbdt_predict_table` {sc['table_rows_per_s'] / 1e3:.0f}k rows/s vs "
             f"XGBoost `inplace_predict` {xg['predict_rows_per_s'] / 1e3:.0f}k rows/s "
             f"({sc['table_rows_per_s'] / xg['predict_rows_per_s']:.2f}x; XGBoost {sc['n_test'] / xg['predict_rows_per_s'] * 1e3:.1f} ms, "
             f"`gbdt_predict_table` {sc['table_s'] * 1e3:.1f} ms, of which per-query overhead (same query on an "
             f"empty table: model fetch and decode) {sc['table_empty_s'] * 1e3:.1f} ms; reference: "
             f"`SELECT count(*)` of the test table {sc['test_scan_s'] * 1e3:.1f} ms); scalar `gbdt_predict` "
             f"{sc['scalar_s']:.2f} s vs a trivial SQL function {sc['called_s']:.2f} s when called "
             f"({sc['scalar_s'] / sc['called_s']:.2f}x), {sc['trivial_s']:.2f} s when inlined "
             f"({sc['scalar_s'] / sc['trivial_s']:.2f}x).  In-db and engine-alone model bytes: {same}.  "
             f"Backend memory budget 1.5 x (n*d + 32n) + 100 MB = {budget_kb / 1024:.0f} MB.")
        emit()
        summary.append((name, dict(
            eng_xgb=E / X, eng_lgb=E / L, indb_eng=T / E, indb_xgb=T / X, user_indb=us["train_s"] / T,
            mem=ind["rss_peak_kb"] / budget_kb if ind["rss_peak_kb"] > 0 else float("nan"),
            mem_priv=ind["anon_peak_kb"] / budget_kb,
            pred=sc["table_rows_per_s"] / xg["predict_rows_per_s"], scalar=sc["scalar_s"] / sc["called_s"],
            scalar_inl=sc["scalar_s"] / sc["trivial_s"],
            dmetric=(ind["metric"][1] - xg["metric"][1]) if ind["metric"][1] is not None else float("nan"),
            rel=(ind["metric"][1] / xg["metric"][1] - 1) if ind["metric"][1] else float("nan"),
            key=mname)))
    emit("## Targets")
    emit()
    emit("| dataset | engine / XGBoost (<= 0.8) | engine / LightGBM (<= 1.0) | in-db / engine (<= 1.25) | "
         "in-db / XGBoost (<= 0.8) | user path / in-db | backend peak / budget (<= 1.0; private) | "
         "predict_table / XGBoost rows/s (>= 1.0) | scalar / trivial SQL fn, called; inlined (<= 3) | test metric vs XGBoost |")
    emit("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, s in summary:
        dm = (f"AUC {s['dmetric']:+.4f}" if s["key"] == "AUC" else f"RMSE {100 * s['rel']:+.2f}%")
        emit(f"| {name} | {s['eng_xgb']:.2f} | {s['eng_lgb']:.2f} | {s['indb_eng']:.2f} | {s['indb_xgb']:.2f} | "
             f"{s['user_indb']:.2f} | {s['mem']:.2f}; {s['mem_priv']:.2f} | {s['pred']:.2f} | {s['scalar']:.2f}; {s['scalar_inl']:.1f} | {dm} |")
    emit()
    emit(f"Reproduce: `make bench` (GBDT_BENCH_THREADS={THREADS}, GBDT_BENCH_REPEAT={REPEAT}: fastest of "
         f"{REPEAT} run(s) per trainer).  Before each timed step the "
         f"script waited for the CPUs to be >= 85% idle ({QUIET_WAITS[0]:.0f} s waited in all).")
    if a.out:
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"== written {a.out}")


if __name__ == "__main__":
    main()
