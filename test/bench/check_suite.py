#!/usr/bin/env python3
"""Self-check of the benchmark suite's pieces (run first by test/bench/run;
a few seconds): the synthetic shapes are deterministic and have the
properties they claim, the property summary sees them, and the suite's AUC /
RMSE agree with brute-force definitions.  Prints 'N passed, N failed' and
exits non-zero on a failure.

  python3 test/bench/check_suite.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import props  # noqa: E402
import shapes  # noqa: E402
import suite  # noqa: E402

RESULTS = [0, 0]


def check(name, ok, detail=""):
    RESULTS[0 if ok else 1] += 1
    print(f"{'ok' if ok else 'FAILED'} - {name}{(': ' + detail) if detail and not ok else ''}")


def brute_auc(y, p):
    pos, neg = p[y == 1], p[y == 0]
    gt = (pos[:, None] > neg[None, :]).sum()
    eq = (pos[:, None] == neg[None, :]).sum()
    return (gt + 0.5 * eq) / (len(pos) * len(neg))


def check_rank_bench():
    """rank_bench.py's NDCG@10 against a hand-computed value, and the
    synthetic ranking table's claims (query sizes, labels, determinism)."""
    import rank_bench
    import rank_tables
    y = np.array([0, 2, 1, 0, 0, 1], dtype=float)
    q = np.array([5, 5, 5, 9, 9, 9])
    s = np.array([0.3, 0.2, 0.1, 0.0, 0.0, 0.0])  # ties: row order
    # Query 5: gains 0, 3, 1 at ranks 1..3 against the ideal 3, 1, 0;
    # query 9: the relevant document ranked last of three.
    q5 = (3 / np.log2(3) + 1 / np.log2(4)) / (3 + 1 / np.log2(3))
    q9 = (1 / np.log2(4)) / 1.0
    check("rank_bench: ndcg@10 by hand", abs(rank_bench.ndcg_at(s, y, q) - (q5 + q9) / 2) < 1e-12)
    check("rank_bench: a query without relevant documents counts 1",
          rank_bench.ndcg_at(np.zeros(3), np.zeros(3), np.zeros(3, dtype=int)) == 1.0)
    a = rank_tables.synth_rank(12, 6)
    b = rank_tables.synth_rank(12, 6)
    sizes = a.groupby("qid").size()
    check("synth_rank: deterministic", a.equals(b))
    check("synth_rank: 500-2000 documents a query", sizes.min() >= 500 and sizes.max() <= 2000,
          f"{sizes.min()}..{sizes.max()}")
    check("synth_rank: graded labels 0..4, every level present",
          sorted(a["label"].unique().tolist()) == [0, 1, 2, 3, 4])
    check("synth_rank: rows grouped by query", bool((np.diff(a["qid"].to_numpy()) >= 0).all()))


def main():
    rows = 20000
    for shape, (task, _) in shapes.SHAPES.items():
        feats = 60 if shape == "wide" else 24
        a = shapes.make(shape, rows, feats, seed=7)
        b = shapes.make(shape, rows, feats, seed=7)
        c = shapes.make(shape, rows, feats, seed=8)
        check(f"{shape}: deterministic", a["X"].tobytes() == b["X"].tobytes() and np.array_equal(a["y"], b["y"]))
        check(f"{shape}: seed changes the data", a["X"].tobytes() != c["X"].tobytes())
        X, kinds = a["X"], a["kinds"]
        check(f"{shape}: {rows} x {feats}, task {task}", X.shape == (rows, feats) and a["task"] == task)
        bad = []
        for j, k in enumerate(kinds):
            col = X[:, j]
            nn = col[~np.isnan(col)]
            d = len(np.unique(nn))
            if k == "const" and d != 1:
                bad.append(f"{j} const has {d} values")
            if k == "lowcard" and not 2 <= d <= 60:
                bad.append(f"{j} lowcard has {d} values")
            if k == "grid" and not 2 <= d <= 4:
                bad.append(f"{j} grid has {d} values")
            if k == "flag" and d > 2:
                bad.append(f"{j} flag has {d} values")
            if k == "sparse" and (nn == 0).mean() < 0.9:
                bad.append(f"{j} sparse has {(nn == 0).mean():.2f} zeros")
            if k == "missing" and not 0.02 < np.isnan(col).mean() < 0.95:
                bad.append(f"{j} missing has {np.isnan(col).mean():.2f} NULLs")
            if k != "missing" and np.isnan(col).any():
                bad.append(f"{j} {k} has NULLs")
            if k == "skew" and d > 0.95 * rows:
                bad.append(f"{j} skew has no ties ({d} values)")
        check(f"{shape}: column kinds hold", not bad, "; ".join(bad))
        y = a["y"]
        if task == "binary":
            check(f"{shape}: binary label balanced", set(np.unique(y)) == {0.0, 1.0} and 0.2 < y.mean() < 0.8,
                  f"mean {y.mean():.3f}")
        else:
            check(f"{shape}: regression label varies", y.std() > 1.0, f"std {y.std():.3f}")
        # The label depends on the features: a one-feature fit explains some of it.
        best = 0.0
        for j in range(feats):
            col = X[:, j].astype(np.float64)
            col = np.where(np.isnan(col), np.nanmin(col) - 1 if np.isfinite(np.nanmin(col)) else 0, col)
            if col.std() > 0:
                best = max(best, abs(np.corrcoef(col, y)[0, 1]))
        check(f"{shape}: label depends on the features", best > 0.05, f"best |corr| {best:.3f}")
    # The property summary counts what the shapes put in.
    m = shapes.make("mixed", rows, 40, seed=3)
    s = props.describe_matrix(m["X"])
    kinds = m["kinds"]
    check("props: constant columns counted", f"constant: {kinds.count('const')}" in s, s)
    check("props: columns with NULLs counted", f"with NULLs: {kinds.count('missing')}" in s, s)
    sparse = sum(1 for j, k in enumerate(kinds) if k in ("sparse", "flag") and (m["X"][:, j] == 0).mean() >= 0.9)
    check("props: sparse columns counted", f"sparse (>= 90% zeros): {sparse}" in s, s)
    # Metrics against brute force.
    rng = np.random.default_rng(1)
    y = (rng.random(500) < 0.4).astype(np.float64)
    p = np.round(rng.random(500) + 0.3 * y, 1)  # many ties
    check("auc: equals the pairwise definition with ties", abs(suite.auc(y, p) - brute_auc(y, p)) < 1e-12,
          f"{suite.auc(y, p)} vs {brute_auc(y, p)}")
    check("auc: perfect ranking is 1", suite.auc(y, y + 0.5) == 1.0)
    yr = rng.standard_normal(100)
    check("rmse: definition", abs(suite.metric("regression", yr, yr + 2.0) - 2.0) < 1e-12)
    # The memory target's budget: 1.5 x (n*d + 32n) bytes + 100 MB, in kB.
    check("memory budget: 1M x 28 is 186 MiB",
          abs(suite.memory_budget_kb(1000000, 28) - (1.5 * 60e6 + 100 * 2 ** 20) / 1024) < 1e-6
          and 185 < suite.memory_budget_kb(1000000, 28) / 1024 < 187)
    import proc_mem
    check("proc_mem: own VmRSS and RssAnon readable",
          proc_mem.status_kb("self", "VmRSS") > 0 and proc_mem.status_kb("self", "RssAnon") > 0)
    with proc_mem.PeakSampler("self") as ps:
        blob = bytearray(64 << 20)  # 64 MB touched while sampled
        blob[::4096] = b"x" * len(blob[::4096])
        import time
        time.sleep(0.05)
    check("proc_mem: the sampler sees 64 MB more", ps.peak_anon >= 64 * 1024, f"{ps.peak_anon} kB")
    del blob
    check_rank_bench()
    print(f"{RESULTS[0]} passed, {RESULTS[1]} failed")
    sys.exit(1 if RESULTS[1] else 0)


if __name__ == "__main__":
    main()
