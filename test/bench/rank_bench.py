#!/usr/bin/env python3
"""Learning to rank on large query groups: gbdt rank:ndcg in the database vs
XGBoost rank:ndcg vs LightGBM lambdarank, at 1 and 2 threads (run by
test/bench/run after the suite; the cluster is up, PG* variables set).

Usage: rank_bench.py [--out FILE] [--sets "batting_rank synth_rank:150:40"]

Tables (rank_tables.py): batting_rank (Lahman's Batting, one query per
season, ~725 documents a query, binary relevance) and synth_rank (queries of
500-2000 documents, graded relevance 0..4).  Queries with qid % 5 == 4 are
held out.  Every library gets the training rows in the same order (grouped
by query, in the table's order inside one): in the first round every score
ties and LambdaMART ranks tied documents in row order, so the first trees
depend on it.

For each table and thread count (100 rounds, depth 6, eta 0.1, 256 bins,
default lambdarank parameters of each library: topk pairs with the top 32
documents for gbdt and XGBoost, LightGBM's lambdarank_truncation_level 30):
  * gbdt: SELECT gbdt_train(..., 'rank:ndcg', group_column qid) end to end
    from the plain table (read, bin, boost, serialize, insert), wall time seen
    by the client;
  * XGBoost (tree_method hist, rank:ndcg) and LightGBM (lambdarank,
    num_leaves 63, max_depth 6, max_bin 255, lambda_l2 1, min_sum_hessian 1,
    min_data_in_leaf 1, as the suite): training only, the DMatrix / Dataset
    built before the clock starts, each library in a fresh process;
  * held-out NDCG@10 (gain 2^rel - 1, mean over the held-out queries, a
    query without relevant documents counts 1, as XGBoost's ndcg@10) of the
    2-thread models, computed by the same code here.
Targets marked: gbdt <= 0.8 x XGBoost's and <= 0.8 x LightGBM's time, NDCG@10
within 0.003 of XGBoost's.

Environment: GBDT_BENCH_RANK (the tables, default "batting_rank
synth_rank:150:40"), GBDT_BENCH_NTHREADS, GBDT_BENCH_REPEAT,
GBDT_BENCH_QUIET_WAIT, GBDT_BENCH_GBDT_PARAMS (extra gbdt_train parameters,
e.g. '{"lambdarank_num_pair_per_sample": 16}') as suite.py.
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
import rank_tables  # noqa: E402
from suite import (BINS, DATA, DEPTH, ETA, NTHREADS, REPEAT, ROUNDS,  # noqa: E402
                   OMP_POLICY, mark, run_peer_workers, timed_runs, wait_quiet)

DEFAULT_SETS = "batting_rank synth_rank:150:40"
NDCG_K = 10


def ndcg_at(scores, y, qid, k=NDCG_K):
    """Mean over queries of NDCG@k, gain 2^rel - 1, ties in row order; a
    query without relevant documents counts 1."""
    out = []
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
    for a, b in zip(starts[:-1], starts[1:]):
        s, g = scores[a:b], 2.0 ** y[a:b] - 1.0
        top = np.argsort(-s, kind="stable")[:k]
        dcg = float(np.sum(g[top] * disc[:len(top)]))
        ideal = np.sort(g)[::-1][:k]
        idcg = float(np.sum(ideal * disc[:len(ideal)]))
        out.append(dcg / idcg if idcg > 0 else 1.0)
    return float(np.mean(out))


def split(df):
    te = (df["qid"].to_numpy() % 5) == 4
    return df[~te].reset_index(drop=True), df[te].reset_index(drop=True)


def feature_columns(df):
    return [c for c in df.columns if c not in ("qid", "label")]


def load_tables(conn, name, train, test):
    """<name>_train (qid, label, features) and <name>_test (rid first) by
    COPY, float8 columns holding the float32 values the peers get; never
    analyzed, read once (as suite.py's load_table)."""
    feats = feature_columns(train)
    cols = ", ".join(f'"{c}" float8' for c in feats)
    cur = conn.cursor()
    for part, frame, rid in (("train", train, False), ("test", test, True)):
        t = f"{name}_{part}"
        out = frame[["qid", "label"] + feats].copy()
        for c in feats:
            out[c] = out[c].astype(np.float32)
        if rid:
            out.insert(0, "rid", np.arange(len(out)))
        cur.execute(f"DROP TABLE IF EXISTS {t}")
        cur.execute(f"CREATE TABLE {t} ({'rid bigint, ' if rid else ''}qid int, label int, {cols}) "
                    "WITH (autovacuum_enabled = off)")
        buf = io.StringIO()
        out.to_csv(buf, index=False, header=False, na_rep="", float_format="%.9g")
        buf.seek(0)
        cur.copy_expert(f"COPY {t} FROM STDIN (FORMAT csv)", buf)
        conn.commit()
        cur.execute(f"SELECT count(*) FROM {t}")
        conn.commit()


def gbdt_params(nt):
    return dict(num_round=ROUNDS, max_depth=DEPTH, eta=ETA, max_bin=BINS, nthread=nt, group_column="qid",
                **json.loads(os.environ.get("GBDT_BENCH_GBDT_PARAMS", "{}")))


def gbdt_side(conn, name, test):
    cur = conn.cursor()
    cur.execute("SELECT set_config('gbdt.max_memory', '16GB', false)")
    cur.execute("CREATE TABLE IF NOT EXISTS rank_bench_models (name text, nthread int, m gbdt_model, "
                "PRIMARY KEY (name, nthread))")
    conn.commit()
    r = dict(train_s={})
    # The thread counts take turns, as in suite.py.
    runs = {nt: timed_runs(lambda nt=nt: r["train_s"].get(nt)) for nt in NTHREADS}
    while runs:
        for nt in list(runs):
            if next(runs[nt], None) is None:
                del runs[nt]
                continue
            cur.execute("DELETE FROM rank_bench_models WHERE name = %s AND nthread = %s", (name, nt))
            conn.commit()
            wait_quiet()
            t0 = time.perf_counter()
            cur.execute(f"INSERT INTO rank_bench_models SELECT %s, %s, gbdt_train('{name}_train', 'label', "
                        f"NULL, 'rank:ndcg', %s::jsonb)", (name, nt, json.dumps(gbdt_params(nt))))
            conn.commit()
            secs = time.perf_counter() - t0
            r["train_s"][nt] = min(secs, r["train_s"].get(nt, secs))
    nt = max(NTHREADS)
    # The features only: the model scores rid, qid and label as missing inputs otherwise.
    cur.execute(f"SELECT p.prediction FROM gbdt_predict_table((SELECT m FROM rank_bench_models "
                f"WHERE name = %s AND nthread = %s), '{name}_test', 'rid') p ORDER BY p.key::bigint",
                (name, nt))
    pred = np.array([row[0] for row in cur.fetchall()], dtype=np.float64)
    conn.commit()
    r["ndcg"] = ndcg_at(pred, test["label"].to_numpy(np.float64), test["qid"].to_numpy())
    return r


def worker(kind, path):
    with open(path, "rb") as f:
        Xtr, ytr, sizes, Xte, yte, qte = pickle.load(f)
    out = dict(train_s={})
    if kind == "xgb":
        import xgboost as xgb
        b = None
        for nt in NTHREADS:
            d = xgb.DMatrix(Xtr, label=ytr, nthread=nt)
            d.set_group(sizes)
            params = dict(tree_method="hist", max_depth=DEPTH, eta=ETA, max_bin=BINS, nthread=nt,
                          objective="rank:ndcg")
            for _ in timed_runs(lambda: out["train_s"].get(nt)):
                t0 = time.perf_counter()
                b = xgb.train(params, d, ROUNDS)
                secs = time.perf_counter() - t0
                out["train_s"][nt] = min(secs, out["train_s"].get(nt, secs))
            del d
        out["version"] = xgb.__version__
        b.set_param({"nthread": max(NTHREADS)})
        p = b.inplace_predict(Xte)
    else:
        import lightgbm as lgb
        m = None
        for nt in NTHREADS:
            ds = lgb.Dataset(Xtr, label=ytr, group=sizes,
                             params=dict(max_bin=BINS - 1, verbose=-1, min_data_in_leaf=1,
                                         feature_pre_filter=False, num_threads=nt), free_raw_data=False)
            ds.construct()
            params = dict(objective="lambdarank", learning_rate=ETA, max_depth=DEPTH, num_leaves=63,
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
    out["ndcg"] = ndcg_at(np.asarray(p, dtype=np.float64), yte, qte)
    print(json.dumps(out))


def peers(train, test):
    feats = feature_columns(train)
    Xtr = np.ascontiguousarray(train[feats].to_numpy(dtype=np.float32))
    Xte = np.ascontiguousarray(test[feats].to_numpy(dtype=np.float32))
    q = train["qid"].to_numpy()
    sizes = np.diff(np.flatnonzero(np.r_[True, q[1:] != q[:-1], True]))
    os.makedirs(DATA, exist_ok=True)
    path = os.path.join(DATA, f"rank_peer_{os.getpid()}.pkl")
    with open(path, "wb") as f:
        pickle.dump((Xtr, train["label"].to_numpy(np.float64), sizes, Xte,
                     test["label"].to_numpy(np.float64), test["qid"].to_numpy()), f, protocol=4)
    return run_peer_workers(__file__, path)


def report(results, head):
    lines = head + ["| table | rows x features | queries (docs/query) | threads | gbdt s | XGBoost s | "
                    "LightGBM s | gbdt/XGB (<= 0.8) | gbdt/LGBM (<= 0.8) |",
                    "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        for nt in NTHREADS:
            g, x, lg = r["gbdt"]["train_s"][nt], r["xgb"]["train_s"][nt], r["lgb"]["train_s"][nt]
            lines.append(f"| {r['name']} | {r['shape']} | {r['groups']} | {nt} | {g:.2f} | {x:.2f} | "
                         f"{lg:.2f} | {g / x:.2f} {mark(g / x <= 0.8)} | {g / lg:.2f} {mark(g / lg <= 0.8)} |")
    lines += ["", f"Held-out NDCG@{NDCG_K} ({max(NTHREADS)}-thread models):", "",
              "| table | held-out queries | gbdt | XGBoost | LightGBM | gbdt - XGB (>= -0.003) |",
              "|---|---|---|---|---|---|"]
    for r in results:
        g, x, lg = r["gbdt"]["ndcg"], r["xgb"]["ndcg"], r["lgb"]["ndcg"]
        lines.append(f"| {r['name']} | {r['test_groups']} | {g:.4f} | {x:.4f} | {lg:.4f} | "
                     f"{g - x:+.4f} {mark(g - x >= -0.003)} |")
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker")
    ap.add_argument("--data")
    ap.add_argument("--out")
    ap.add_argument("--sets", default=os.environ.get("GBDT_BENCH_RANK", DEFAULT_SETS))
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.data)
        return
    import lightgbm
    import psycopg2
    import xgboost
    conn = psycopg2.connect("")
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS gbdt")
    conn.commit()
    rev = subprocess.run(["git", "-C", os.path.dirname(os.path.dirname(HERE)), "rev-parse", "--short",
                          "HEAD"], capture_output=True, text=True).stdout.strip()
    head = [f"# gbdt learning to rank, large query groups {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            "", f"gbdt {rev}, XGBoost {xgboost.__version__}, LightGBM {lightgbm.__version__}, "
            f"{os.cpu_count()} cores visible, load average at start {os.getloadavg()[0]:.1f}.  {ROUNDS} rounds, "
            f"max_depth {DEPTH}, eta {ETA}, {BINS} bins, default lambdarank parameters; queries with "
            f"qid % 5 == 4 held out.  gbdt: `SELECT gbdt_train(...)` end to end; XGBoost / LightGBM: "
            f"training only (fresh process each).  Fastest of {REPEAT} run(s) per timed training "
            f"(up to 3 for one under 2 s).  OMP_WAIT_POLICY for the peers: "
            f"{OMP_POLICY or 'library default'}.", ""]
    results = []
    for spec in a.sets.split():
        print(f"== rank bench: {spec}", flush=True)
        df = rank_tables.load(spec)
        train, test = split(df)
        name = "rk_" + spec.split(":")[0]
        load_tables(conn, name, train, test)
        r = dict(name=spec, shape=f"{len(df)} x {len(feature_columns(df))}",
                 groups=f"{df['qid'].nunique()} ({len(df) / df['qid'].nunique():.0f})",
                 test_groups=int(test["qid"].nunique()))
        r["gbdt"] = gbdt_side(conn, name, test)
        r.update(peers(train, test))
        results.append(r)
        print(json.dumps({k: r[k] for k in ("gbdt", "xgb", "lgb")}), flush=True)
    text = "\n".join(report(results, head)) + "\n"
    print(text)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            f.write(text)
        print(f"== written {a.out}")


if __name__ == "__main__":
    main()
