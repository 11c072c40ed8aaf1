#!/usr/bin/env python3
"""The benchmark suite: real public tables and synthetic tables of the
same shapes, gbdt in the database vs XGBoost hist vs LightGBM, at 1 and 2
threads (run by test/bench/run; the cluster is up, PG* variables set).

Data sets (each a table; row i is held out when i % 5 == 4):
  real         numeric real tables of real_tables.py (text columns as codes)
  shapes       synthetic tables of shapes.py, "shape:rows:features"
  categorical  real tables with their text columns as text:
               gbdt categorical splits vs XGBoost enable_categorical and
               LightGBM categorical_feature (pandas category columns)
For each data set and thread count (100 rounds, depth 6, eta 0.1, 256 bins;
LightGBM num_leaves 63, max_depth 6, max_bin 255, lambda_l2 1,
min_sum_hessian 1, min_data_in_leaf 1):
  * gbdt: SELECT gbdt_train(...) end to end from the plain table (read, bin,
    boost, serialize, insert), wall time seen by the client;
  * XGBoost hist and LightGBM: training only (xgb.train / lgb.train on a
    DMatrix / Dataset built beforehand from in-memory float32 data), each
    library in a fresh process;
  * held-out AUC (binary) or RMSE (regression) of each, from the 2-thread
    models, all computed by the same code here;
  * scoring: gbdt_predict_table over the test table vs XGBoost
    inplace_predict (rows/s), and scalar gbdt_predict per row (us/row).
Targets marked in the tables: gbdt/XGBoost <= 0.8, gbdt/LightGBM
<= 1.0, metric within 0.005 AUC / 2% RMSE of XGBoost's, gbdt 2 threads no
slower than 1 thread, predict_table >= XGBoost inplace_predict rows/s, and
the backend's peak memory in one more 2-thread training on a fresh
connection (VmHWM after a reset, else the sampled private RssAnon) within
the classic benchmark's budget, 1.5 x (n*d + 32n) bytes + 100 MB.

Environment (defaults in brackets):
  GBDT_BENCH_SUITE        parts to run ["real shapes categorical"]
  GBDT_BENCH_REAL         ["flights_weather fertility batting movies military_num
                            beijing kdd99"] (beijing only when GBDT_BEIJING_DIR
                          names a folder of its PRSA_Data_*.csv files, kdd99
                          only when GBDT_KDD99 names kddcup.data_10_percent_corrected
                          as .csv or .zip: no PyPI package ships them)
  GBDT_BENCH_SHAPES       ["mixed:10000:20 lowcard:200000:14 grid:240000:14
                            missing:300000:16 sparse:400000:41 mixed:1000000:28
                            wide:50000:500"];
                          bigger on request, e.g. "mixed:10000000:28 wide:1000000:500"
  GBDT_BENCH_CAT          ["flights diamonds insteval military adult"] (adult
                          only when GBDT_ADULT_CSV names a copy of adult.csv)
  GBDT_BENCH_NTHREADS     thread counts ["1 2"]
  GBDT_BENCH_QUIET_WAIT   seconds to wait for idle CPUs before a timed step [3]
  GBDT_BENCH_REPEAT       timed trainings per step, fastest kept [1]; a
                          training faster than GBDT_BENCH_SHORT seconds [2.0]
                          is run up to 3 times in all (every library alike):
                          one run of a 0.1-2 s training is mostly noise (one
                          run of missing 300k x 16 at 2 threads took 1.12 s,
                          a repeat 0.74 s)
  GBDT_BENCH_GBDT_PARAMS  JSON object of extra gbdt_train parameters [{}],
                          e.g. '{"row_dedup": false}' for a before/after run
  GBDT_BENCH_OMP_WAIT_POLICY  OMP_WAIT_POLICY for XGBoost / LightGBM [auto]:
                          "auto" = PASSIVE when the load average at start is
                          above half the cores, else the library default.
                          OpenMP threads spin while they wait; on a machine
                          busy with other work a spinning thread holds a core
                          its partner needs and 2-thread training runs up to
                          10x slower than 1 thread, which says nothing about
                          the library.  The policy used is printed.
"""
import argparse
import io
import json
import os
import pickle
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import props  # noqa: E402
from proc_mem import PeakSampler, reset_hwm, status_kb  # noqa: E402
import real_tables  # noqa: E402
import shapes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "results", "data")
ROUNDS, DEPTH, ETA, BINS = 100, 6, 0.1, 256
NTHREADS = [int(t) for t in os.environ.get("GBDT_BENCH_NTHREADS", "1 2").split()]
QUIET = float(os.environ.get("GBDT_BENCH_QUIET_WAIT", "3"))
REPEAT = max(1, int(os.environ.get("GBDT_BENCH_REPEAT", "1")))
SHORT = float(os.environ.get("GBDT_BENCH_SHORT", "2.0"))


def timed_runs(best):
    """Yields once per timed run of a step: REPEAT times, and while the
    fastest so far (best(), None before the first) is under SHORT seconds, up
    to 3 runs in all."""
    n = 0
    while True:
        b = best()
        if n >= REPEAT and (b is None or b >= SHORT or n >= 3):
            return
        n += 1
        yield n


def omp_policy():
    p = os.environ.get("GBDT_BENCH_OMP_WAIT_POLICY", "auto")
    if p == "auto":
        return "PASSIVE" if os.getloadavg()[0] > 0.5 * (os.cpu_count() or 1) else ""
    return "" if p in ("", "default") else p


OMP_POLICY = omp_policy()
DEFAULT_REAL = "flights_weather fertility batting movies military_num beijing kdd99"
DEFAULT_SHAPES = "mixed:10000:20 lowcard:200000:14 grid:240000:14 missing:300000:16 sparse:400000:41 mixed:1000000:28 wide:50000:500"
DEFAULT_CAT = "flights diamonds insteval military adult"


# ---------------------------------------------------------------- metrics

def auc(y, p):
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    _, idx, counts = np.unique(ps, return_index=True, return_counts=True)
    ranks = np.empty(len(p))
    ranks[order] = np.repeat(idx + (counts + 1) / 2.0, counts)
    pos = y == 1
    npos, nneg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def metric(task, y, p):
    if task == "binary":
        return auc(y, p)
    return float(np.sqrt(np.mean((np.asarray(p, dtype=np.float64) - np.asarray(y, dtype=np.float64)) ** 2)))


def cpu_idle_fraction(seconds=0.5):
    def read():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[3] + v[4], sum(v)
    i0, t0 = read()
    time.sleep(seconds)
    i1, t1 = read()
    return (i1 - i0) / max(1, t1 - t0)


WAITED = [0.0, 0]


def wait_quiet():
    """Others' load on a shared machine only slows a step down: wait (up to
    GBDT_BENCH_QUIET_WAIT s) until the CPUs are >= 85% idle."""
    t0 = time.perf_counter()
    quiet = False
    while time.perf_counter() - t0 < QUIET:
        if cpu_idle_fraction() >= 0.85:
            quiet = True
            break
    WAITED[0] += time.perf_counter() - t0
    if not quiet:
        WAITED[1] += 1


# ---------------------------------------------------------------- data sets

def real_set(name):
    t = real_tables.load(name)
    if t is None:
        return None
    df = t["df"]
    feats = [c for c in df.columns if c != t["target"]]
    return dict(name=name, kind="real", task=t["task"], df=df, target=t["target"], features=feats,
                categorical=list(t["categorical"]))


def shape_set(spec):
    shape, rows, feats = spec.split(":")
    rows, feats = int(rows), int(feats)
    os.makedirs(DATA, exist_ok=True)
    cache = os.path.join(DATA, f"shape_{shape}_{rows}_{feats}.npz")
    if os.path.exists(cache):
        z = np.load(cache)
        X, y, task = z["X"], z["y"], str(z["task"])
        names = [str(n) for n in z["names"]]
    else:
        d = shapes.make(shape, rows, feats)
        X, y, task, names = d["X"], d["y"], d["task"], d["names"]
        np.savez(cache + ".tmp.npz", X=X, y=y, task=task, names=np.array(names))
        os.replace(cache + ".tmp.npz", cache)
    import pandas as pd
    df = pd.DataFrame(X, columns=names)
    df["label"] = y.astype("int32") if task == "binary" else y
    return dict(name=f"{shape} {rows // 1000}k x {feats}", table=f"s_{shape}_{rows}_{feats}", kind="synthetic",
                task=task, df=df, target="label", features=names, categorical=[])


def table_name(ds):
    return ds.get("table") or ("c_" if ds["kind"] == "categorical" else "r_") + ds["name"]


# ---------------------------------------------------------------- PostgreSQL side

def load_table(conn, ds):
    """CREATE <t>_train / <t>_test (rid bigint + columns) by COPY.  Numbers go
    in as float8 holding float32 values (what XGBoost and LightGBM get).
    The tables stay as a user's just-loaded table is: never vacuumed or
    analyzed (no pg_class.reltuples: gbdt's load takes the planner's estimate
    from the pages), autovacuum off on them (it would run in the middle of
    the timed steps), read once (count(*)) so that their hint bits are set,
    as by any first query after a load."""
    name = table_name(ds)
    df = ds["df"]
    cats = set(ds["categorical"])
    cols, out = [], {}
    for c in ds["features"]:
        if c in cats:
            cols.append(f'"{c}" text')
            out[c] = df[c]
        else:
            cols.append(f'"{c}" float8')
            out[c] = df[c].astype(np.float32)
    cols.append(f'"label" {"int" if ds["task"] == "binary" else "float8"}')
    import pandas as pd
    frame = pd.DataFrame(out)
    frame["label"] = df[ds["target"]].to_numpy()
    frame.insert(0, "rid", np.arange(len(df)))
    cur = conn.cursor()
    cur.execute(f"DROP TABLE IF EXISTS {name}_all, {name}_train, {name}_test")
    cur.execute(f"CREATE UNLOGGED TABLE {name}_all (rid bigint, {', '.join(cols)})")
    # COPY in chunks of 200k rows: a 10M-row CSV held whole would take GBs.
    for lo in range(0, len(frame), 200000):
        buf = io.StringIO()
        frame.iloc[lo:lo + 200000].to_csv(buf, index=False, header=False, na_rep="", float_format="%.9g")
        buf.seek(0)
        cur.copy_expert(f"COPY {name}_all FROM STDIN (FORMAT csv)", buf)
        del buf
    del frame
    collist = ", ".join(f'"{c}"' for c in ds["features"]) + ", label"
    keep = "WITH (autovacuum_enabled = off)"
    cur.execute(f"CREATE TABLE {name}_train {keep} AS SELECT {collist} FROM {name}_all WHERE rid % 5 <> 4 ORDER BY rid")
    cur.execute(f"CREATE TABLE {name}_test {keep} AS SELECT rid, {collist} FROM {name}_all WHERE rid % 5 = 4 ORDER BY rid")
    cur.execute(f"DROP TABLE {name}_all")
    conn.commit()
    cur.execute(f"SELECT count(*) FROM {name}_train")
    cur.execute(f"SELECT count(*) FROM {name}_test")
    conn.commit()
    return name


def gbdt_side(conn, ds, name):
    obj = "binary:logistic" if ds["task"] == "binary" else "reg:squarederror"
    cur = conn.cursor()
    cur.execute("SELECT set_config('gbdt.max_memory', '16GB', false)")
    cur.execute("CREATE TABLE IF NOT EXISTS suite_models (name text, nthread int, m gbdt_model, "
                "PRIMARY KEY (name, nthread))")
    conn.commit()
    r = dict(train_s={})
    # The thread counts take turns (1, 2, 1, 2, ...): a slow spell of the
    # machine then slows runs of both, not all the runs of one.
    runs = {nt: timed_runs(lambda nt=nt: r["train_s"].get(nt)) for nt in NTHREADS}
    while runs:
        for nt in list(runs):
            if next(runs[nt], None) is None:
                del runs[nt]
                continue
            params = json.dumps(dict(num_round=ROUNDS, max_depth=DEPTH, eta=ETA, max_bin=BINS, nthread=nt,
                                     **json.loads(os.environ.get("GBDT_BENCH_GBDT_PARAMS", "{}"))))
            cur.execute("DELETE FROM suite_models WHERE name = %s AND nthread = %s", (name, nt))
            conn.commit()
            wait_quiet()
            t0 = time.perf_counter()
            cur.execute(f"INSERT INTO suite_models SELECT %s, %s, gbdt_train('{name}_train', 'label', NULL, %s, "
                        f"%s::jsonb)", (name, nt, obj, params))
            conn.commit()
            secs = time.perf_counter() - t0
            r["train_s"][nt] = min(secs, r["train_s"].get(nt, secs))
    del conn.notices[:]
    nt = max(NTHREADS)
    model = f"(SELECT m FROM suite_models WHERE name = '{name}' AND nthread = {nt})"
    cur.execute(f"SELECT p.prediction FROM gbdt_predict_table({model}, '{name}_test', 'rid') p "
                f"ORDER BY p.key::bigint")
    pred = np.array([row[0] for row in cur.fetchall()], dtype=np.float64)
    cur.execute(f"SELECT label FROM {name}_test ORDER BY rid")
    y = np.array([row[0] for row in cur.fetchall()], dtype=np.float64)
    r["metric"] = metric(ds["task"], y, pred)
    r["n_test"] = len(y)
    wait_quiet()
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter()
        cur.execute(f"SELECT count(*), sum(p.prediction) FROM gbdt_predict_table({model}, '{name}_test', 'rid') p")
        cur.fetchall()
        best = min(best, time.perf_counter() - t0)
    r["predict_table_rows_s"] = len(y) / best
    wait_quiet()
    t0 = time.perf_counter()
    cur.execute(f"SELECT sum(gbdt_predict(b.m, t)) FROM suite_models b, {name}_test t "
                f"WHERE b.name = %s AND b.nthread = %s", (name, nt))
    cur.fetchall()
    r["scalar_us_row"] = (time.perf_counter() - t0) / len(y) * 1e6
    conn.commit()
    r.update(backend_memory(name, obj, json.dumps(dict(
        num_round=ROUNDS, max_depth=DEPTH, eta=ETA, max_bin=BINS, nthread=nt,
        **json.loads(os.environ.get("GBDT_BENCH_GBDT_PARAMS", "{}"))))))
    n_all = len(ds["df"])
    r["mem_budget_kb"] = memory_budget_kb(n_all - (n_all + 1) // 5, len(ds["features"]))
    return r


def memory_budget_kb(n, d):
    """The backend's memory budget of the classic benchmark (bench.py): 1.5 x
    (n*d + 32n) bytes + 100 MB, in kB, for n training rows of d features."""
    return (1.5 * (n * d + 32 * n) + 100 * 2 ** 20) / 1024


def backend_memory(name, obj, params):
    """One more training (untimed) in a fresh backend: its peak resident size
    (VmHWM after a reset; -1 when the reset is refused: not root nor the
    server's user) and its peak private memory (RssAnon sampled every 5 ms)."""
    import psycopg2
    c = psycopg2.connect("")
    try:
        cur = c.cursor()
        cur.execute("SELECT pg_backend_pid(), set_config('gbdt.max_memory', '16GB', false)")
        pid = cur.fetchone()[0]
        ok = reset_hwm(pid)
        with PeakSampler(pid) as ps:
            cur.execute(f"SELECT gbdt_train('{name}_train', 'label', NULL, %s, %s::jsonb) IS NOT NULL",
                        (obj, params))
            cur.fetchall()
        return dict(mem_hwm_kb=status_kb(pid, "VmHWM") if ok else -1, mem_anon_kb=ps.peak_anon)
    finally:
        c.close()


# ---------------------------------------------------------------- peers (fresh processes)

def worker(kind, path, task):
    with open(path, "rb") as f:
        Xtr, ytr, Xte, yte = pickle.load(f)
    cat = not isinstance(Xtr, np.ndarray)
    out = dict(train_s={})
    if kind == "xgb":
        import xgboost as xgb
        objective = "binary:logistic" if task == "binary" else "reg:squarederror"
        b = None
        for nt in NTHREADS:
            d = xgb.DMatrix(Xtr, label=ytr, nthread=nt, enable_categorical=cat)
            params = dict(tree_method="hist", max_depth=DEPTH, eta=ETA, max_bin=BINS, nthread=nt,
                          objective=objective)
            for _ in timed_runs(lambda: out["train_s"].get(nt)):
                t0 = time.perf_counter()
                b = xgb.train(params, d, ROUNDS)
                secs = time.perf_counter() - t0
                out["train_s"][nt] = min(secs, out["train_s"].get(nt, secs))
            del d
        out["version"] = xgb.__version__
        b.set_param({"nthread": max(NTHREADS)})
        p = b.inplace_predict(Xte)
        best = 1e9
        for _ in range(3):
            t0 = time.perf_counter()
            b.inplace_predict(Xte)
            best = min(best, time.perf_counter() - t0)
        out["predict_rows_s"] = len(yte) / best
    else:
        import lightgbm as lgb
        objective = "binary" if task == "binary" else "regression"
        m = None
        for nt in NTHREADS:
            ds = lgb.Dataset(Xtr, label=ytr, params=dict(max_bin=BINS - 1, verbose=-1, min_data_in_leaf=1,
                                                          feature_pre_filter=False, num_threads=nt),
                             free_raw_data=False)
            ds.construct()
            params = dict(objective=objective, learning_rate=ETA, max_depth=DEPTH, num_leaves=63,
                          max_bin=BINS - 1, num_threads=nt, verbose=-1, lambda_l2=1.0,
                          min_sum_hessian_in_leaf=1.0, min_data_in_leaf=1)
            for _ in timed_runs(lambda: out["train_s"].get(nt)):
                t0 = time.perf_counter()
                m = lgb.train(params, ds, ROUNDS)
                secs = time.perf_counter() - t0
                out["train_s"][nt] = min(secs, out["train_s"].get(nt, secs))
            del ds
        out["version"] = lgb.__version__
        p = m.predict(Xte, num_threads=max(NTHREADS))
    out["metric"] = metric(task, yte, p)
    print(json.dumps(out))


def peers(ds):
    df = ds["df"]
    n = len(df)
    te = np.arange(n) % 5 == 4
    y = df[ds["target"]].to_numpy().astype(np.float64)
    if ds["categorical"]:
        import pandas as pd
        X = df[ds["features"]].copy()
        for c in ds["features"]:
            if c in ds["categorical"]:
                # object categories (a pickled string-dtype Categorical does not load back)
                X[c] = pd.Categorical(X[c].astype(object))
            else:
                X[c] = X[c].astype(np.float32)
        Xtr, Xte = X[~te].reset_index(drop=True), X[te].reset_index(drop=True)
    else:
        X = df[ds["features"]].to_numpy(dtype=np.float32)
        Xtr, Xte = np.ascontiguousarray(X[~te]), np.ascontiguousarray(X[te])
    del X
    os.makedirs(DATA, exist_ok=True)
    path = os.path.join(DATA, f"suite_peer_{os.getpid()}.pkl")
    with open(path, "wb") as f:
        pickle.dump((Xtr, y[~te], Xte, y[te]), f, protocol=4)
    del Xtr, Xte
    return run_peer_workers(__file__, path, ["--task", ds["task"]])


def run_peer_workers(script, path, extra_args=()):
    """Runs `script --worker KIND --data path [extra_args]` for XGBoost and
    LightGBM, one after the other on a quiet machine, each in a process of
    its own; their JSON results by kind ("train_s" keyed by thread count).
    The data file is removed afterwards."""
    res = {}
    try:
        for kind in ("xgb", "lgb"):
            wait_quiet()
            env = dict(os.environ)
            if OMP_POLICY:
                env["OMP_WAIT_POLICY"] = OMP_POLICY
            r = subprocess.run([sys.executable, os.path.abspath(script), "--worker", kind, "--data", path,
                                *extra_args], capture_output=True, text=True, env=env)
            if r.returncode != 0:
                raise RuntimeError(f"{kind} worker failed:\n{r.stderr[-3000:]}")
            o = json.loads(r.stdout.strip().splitlines()[-1])
            o["train_s"] = {int(k): v for k, v in o["train_s"].items()}
            res[kind] = o
    finally:
        os.unlink(path)
    return res


# ---------------------------------------------------------------- report

def mark(ok):
    return "ok" if ok else "**miss**"


def run_set(conn, ds):
    t0 = time.perf_counter()
    df = ds["df"]
    n = len(df)
    ds["props"] = props.describe_frame(df, ds["features"])
    name = load_table(conn, ds)
    g = gbdt_side(conn, ds, name)
    p = peers(ds)
    print(f"   {ds['name']}: gbdt {g['train_s']}, xgb {p['xgb']['train_s']}, lgb {p['lgb']['train_s']} "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    cur = conn.cursor()
    cur.execute(f"DROP TABLE IF EXISTS {name}_train, {name}_test")
    conn.commit()
    return dict(ds=ds, n_train=n - int((np.arange(n) % 5 == 4).sum()), g=g, x=p["xgb"], l=p["lgb"])


def report(results, head):
    lines = list(head)
    emit = lines.append
    emit("## Data sets")
    emit("")
    emit("| data set | kind | rows (train / test) | features | task | column properties |")
    emit("| --- | --- | ---: | ---: | --- | --- |")
    for r in results:
        ds = r["ds"]
        cats = f" ({len(ds['categorical'])} text)" if ds["categorical"] else ""
        emit(f"| {ds['name']} | {ds['kind']} | {r['n_train']} / {r['g']['n_test']} | {len(ds['features'])}{cats} | "
             f"{ds['task']} | {ds['props']} |")
    emit("")
    emit("## Training time (gbdt end to end from the table vs XGBoost / LightGBM training only)")
    emit("")
    emit("| data set | threads | gbdt s | XGBoost s | LightGBM s | gbdt / XGBoost (<= 0.8) | gbdt / LightGBM (<= 1.0) |")
    emit("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    met = tot = 0
    for r in results:
        for nt in NTHREADS:
            G, X, L = r["g"]["train_s"][nt], r["x"]["train_s"][nt], r["l"]["train_s"][nt]
            a, b = G / X, G / L
            met += (a <= 0.8) + (b <= 1.0)
            tot += 2
            emit(f"| {r['ds']['name']} | {nt} | {G:.2f} | {X:.2f} | {L:.2f} | {a:.2f} {mark(a <= 0.8)} | "
                 f"{b:.2f} {mark(b <= 1.0)} |")
    emit("")
    nt1, nt2 = min(NTHREADS), max(NTHREADS)
    emit(f"## Accuracy ({nt2}-thread models), threads, scoring")
    emit("")
    emit(f"| data set | metric | gbdt | XGBoost | LightGBM | gbdt vs XGBoost (AUC >= -0.005, RMSE <= +2%) | "
         f"gbdt {nt2} thr / {nt1} thr (<= 1.0) | XGBoost {nt2}/{nt1} | `gbdt_predict_table` rows/s | "
         f"XGBoost inplace_predict rows/s | ratio (>= 1.0) | scalar `gbdt_predict` us/row | "
         f"backend peak MB, VmHWM (private) | peak / budget (<= 1.0) |")
    emit("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in results:
        g, x, l = r["g"], r["x"], r["l"]
        if r["ds"]["task"] == "binary":
            mname, d = "AUC", g["metric"] - x["metric"]
            ok, dtxt = d >= -0.005, f"{d:+.4f}"
        else:
            mname, d = "RMSE", g["metric"] / x["metric"] - 1
            ok, dtxt = d <= 0.02, f"{100 * d:+.2f}%"
        thr = g["train_s"][nt2] / g["train_s"][nt1]
        xthr = x["train_s"][nt2] / x["train_s"][nt1]
        pr = g["predict_table_rows_s"] / x["predict_rows_s"]
        # Peak resident size when the reset was allowed, else the sampled
        # private peak (a lower bound of it).
        peak = g["mem_hwm_kb"] if g["mem_hwm_kb"] > 0 else g["mem_anon_kb"]
        mr = peak / g["mem_budget_kb"]
        met += ok + (thr <= 1.0) + (pr >= 1.0) + (mr <= 1.0)
        tot += 4
        hwm = f"{g['mem_hwm_kb'] / 1024:.0f}" if g["mem_hwm_kb"] > 0 else "n/a"
        emit(f"| {r['ds']['name']} | {mname} | {g['metric']:.4f} | {x['metric']:.4f} | {l['metric']:.4f} | "
             f"{dtxt} {mark(ok)} | {thr:.2f} {mark(thr <= 1.0)} | {xthr:.2f} | {g['predict_table_rows_s'] / 1e3:.0f}k | "
             f"{x['predict_rows_s'] / 1e3:.0f}k | {pr:.2f} {mark(pr >= 1.0)} | {g['scalar_us_row']:.1f} | "
             f"{hwm} ({g['mem_anon_kb'] / 1024:.0f}) | {mr:.2f} {mark(mr <= 1.0)} |")
    emit("")
    emit(f"Targets met: {met} of {tot}.  Load average at the end {os.getloadavg()[0]:.1f}.  Before timed steps the script waited {WAITED[0]:.0f} s in all for idle "
         f"CPUs (GBDT_BENCH_QUIET_WAIT={QUIET:g} s per step; {WAITED[1]} steps ran on a busy machine).")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--data")
    ap.add_argument("--task")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.data, a.task)
        return
    import lightgbm
    import psycopg2
    import xgboost
    parts = os.environ.get("GBDT_BENCH_SUITE", "real shapes categorical").split()
    plan = []
    if "real" in parts:
        plan += [("real", n) for n in os.environ.get("GBDT_BENCH_REAL", DEFAULT_REAL).split()]
    if "shapes" in parts:
        plan += [("shape", s) for s in os.environ.get("GBDT_BENCH_SHAPES", DEFAULT_SHAPES).split()]
    if "categorical" in parts:
        plan += [("categorical", n) for n in os.environ.get("GBDT_BENCH_CAT", DEFAULT_CAT).split()]
    conn = psycopg2.connect("")
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS gbdt")
    cur.execute("SHOW server_version")
    pgv = cur.fetchone()[0]
    conn.commit()
    cpu = "?"

    def isa_cap_note():
        cap = os.environ.get("GBDT_CPU_ISA", "")
        return (f"  gbdt's vector paths capped at GBDT_CPU_ISA={cap} (server and engine; XGBoost and "
                f"LightGBM as they are)." if cap in ("avx2", "scalar") else "")

    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except Exception:
        pass
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    head = [f"# gbdt benchmark suite {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", "",
            f"Machine: {cpu}, {os.cpu_count()} cores visible, load average at start "
            f"{os.getloadavg()[0]:.1f}.  PostgreSQL {pgv}, gbdt {rev}, XGBoost {xgboost.__version__}, "
            f"LightGBM {lightgbm.__version__}.  {ROUNDS} rounds, max_depth {DEPTH}, eta {ETA}, {BINS} bins "
            f"(LightGBM num_leaves 63, max_bin {BINS - 1}, lambda_l2 1, min_sum_hessian 1, min_data_in_leaf 1); "
            f"threads {' and '.join(map(str, NTHREADS))}.  Row i is held out when i % 5 == 4.  gbdt: "
            f"`SELECT gbdt_train(...)` end to end from a plain table as loaded (never analyzed; read once); XGBoost hist / LightGBM: training only "
            f"on in-memory float32 data (DMatrix / Dataset built before the clock starts), fresh process each.  "
            f"Categorical sets: text columns as text for gbdt, pandas `category` columns for XGBoost "
            f"(enable_categorical) and LightGBM (categorical_feature auto).  Fastest of {REPEAT} run(s) per "
            f"timed training ({max(REPEAT, 3)} for one under {SHORT:g} s).  OMP_WAIT_POLICY for XGBoost / LightGBM: "
            f"{OMP_POLICY or 'library default (spinning)'}." + isa_cap_note(), ""]
    results = []
    for kind, n in plan:
        print(f"== suite: {kind} {n}", flush=True)
        if kind == "shape":
            ds = shape_set(n)
        else:
            ds = real_set(n)
            if ds is None:
                print(f"   {n}: not available, skipped", flush=True)
                continue
            if kind == "categorical":
                ds["kind"] = "categorical"
        results.append(run_set(conn, ds))
    lines = report(results, head)
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            f.write(text)
        print(f"== written {a.out}")


if __name__ == "__main__":
    main()
