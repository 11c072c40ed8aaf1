#!/usr/bin/env python3
"""Synthetic tables shaped like real ones, deterministic (numpy).

The old generator (shared/tools/gen_synth.py) draws nearly uniform, all
distinct features.  Real columns are low-cardinality, tied, skewed, sparse,
partly missing, sometimes constant.  Each named shape here mixes column kinds
in the proportions seen in the real tables of real_tables.py:

  lowcard  like fertility / military: every column has 2-60 distinct values
           with skewed (Zipf-like) frequencies; regression.
  missing  like flights+weather / batting: skewed (log-normal) and rounded
           (tied) columns, 5-90% of them NULL; regression.
  sparse   like the issue's table D: sparse columns (95-99.7% zeros), rare
           binary flags, constant columns, a few continuous ones; binary.
  mixed    every kind above plus continuous columns; binary.
  wide     mixed kinds, mostly sparse, for 100-500 columns; binary.
  grid     like the issue's table A (and SGEMM GPU kernel performance, a
           grid of tuning parameters): every column 2-4 values of equal
           frequency, so rows are nearly all distinct combinations;
           regression.

Column kinds: cont (normal), skew (log-normal, rounded to 3 digits: ties),
lowcard (k levels, Zipf frequencies), grid (2-4 levels, uniform), flag (binary, 1-20% ones), sparse
(mostly 0, else log-normal), missing (skew with a NULL share), const.
The target is a sum of per-column step/smooth effects (a NULL has an effect
of its own) plus two pairwise interactions and noise; binary targets are
drawn from the logistic of it.

  python3 test/bench/shapes.py SHAPE ROWS FEATURES [SEED]   # prints properties
"""
import sys

import numpy as np

SHAPES = {
    # shape: (task, kind weights)
    "lowcard": ("regression", dict(lowcard=0.75, flag=0.25)),
    "missing": ("regression", dict(missing=0.5, skew=0.25, lowcard=0.125, cont=0.125)),
    "sparse": ("binary", dict(sparse=0.37, flag=0.2, const=0.1, lowcard=0.1, cont=0.23)),
    "mixed": ("binary", dict(cont=0.2, skew=0.15, lowcard=0.2, flag=0.1, sparse=0.15, missing=0.15, const=0.05)),
    "wide": ("binary", dict(sparse=0.4, flag=0.15, lowcard=0.15, missing=0.1, cont=0.1, skew=0.05, const=0.05)),
    "grid": ("regression", dict(grid=1.0)),
}


def kinds_for(shape, features):
    """Column kinds, in a fixed interleaved order (largest remainder)."""
    w = SHAPES[shape][1]
    names = sorted(w)
    counts = {k: int(np.floor(w[k] * features)) for k in names}
    rest = features - sum(counts.values())
    for k in sorted(names, key=lambda k: -(w[k] * features - counts[k]))[:rest]:
        counts[k] += 1
    out, i = [], 0
    while len(out) < features:
        k = names[i % len(names)]
        if counts[k] > 0:
            out.append(k)
            counts[k] -= 1
        i += 1
    return out


def column(kind, n, rng):
    if kind == "cont":
        return rng.standard_normal(n)
    if kind == "skew":
        return np.round(rng.lognormal(0.0, 1.5, n), 3)
    if kind == "lowcard":
        k = int(rng.choice([2, 3, 5, 7, 12, 15, 24, 31, 53, 60]))
        p = 1.0 / np.arange(1, k + 1) ** rng.uniform(0.5, 1.5)
        levels = np.sort(rng.choice(1000, k, replace=False)).astype(np.float64)
        return levels[rng.choice(k, n, p=p / p.sum())]
    if kind == "grid":
        k = int(rng.choice([2, 3, 4]))
        levels = 2.0 ** np.sort(rng.choice(8, k, replace=False))
        return levels[rng.integers(0, k, n)]
    if kind == "flag":
        return (rng.random(n) < rng.uniform(0.01, 0.2)).astype(np.float64)
    if kind == "sparse":
        nz = rng.random(n) < rng.uniform(0.003, 0.05)
        v = np.zeros(n)
        v[nz] = np.round(rng.lognormal(1.0, 1.0, nz.sum()), 2)
        return v
    if kind == "missing":
        v = np.round(rng.lognormal(0.0, 1.0, n), 2)
        v[rng.random(n) < rng.choice([0.05, 0.1, 0.3, 0.6, 0.9])] = np.nan
        return v
    if kind == "const":
        return np.full(n, 1.0)
    raise ValueError(kind)


def effect(x, rng):
    """A per-column effect: steps on quantiles of the column plus a smooth
    part; NULL gets an effect of its own."""
    out = np.zeros(len(x))
    ok = ~np.isnan(x)
    if not ok.any():
        return out
    xv = x[ok]
    qs = np.unique(np.quantile(xv, rng.uniform(0.05, 0.95, 3)))
    steps = rng.normal(0, 1, len(qs) + 1)
    e = steps[np.searchsorted(qs, xv, side="right")]
    s = xv.std()
    if s > 0:
        e = e + 0.5 * np.tanh((xv - xv.mean()) / s) * rng.normal()
    out[ok] = e
    out[~ok] = rng.normal(0, 1)
    return out


def make(shape, rows, features, seed=15):
    """dict(X float32 [rows, features] with NaN for NULL, y float64, task,
    kinds).  Deterministic in (shape, rows, features, seed); blocks of
    100k rows draw from their own streams so memory stays modest."""
    task, _ = SHAPES[shape]
    kinds = kinds_for(shape, features)
    X = np.empty((rows, features), dtype=np.float32)
    z = np.zeros(rows)
    # Column parameters (levels, effects) are fixed per column: draw them
    # once from a column stream, then fill rows.
    for j, k in enumerate(kinds):
        crng = np.random.default_rng([seed, j])
        col = column(k, rows, crng)
        X[:, j] = col.astype(np.float32)
    def col(j):
        return X[:, j].astype(np.float64)

    trng = np.random.default_rng([seed, 10 ** 6])
    informative = [j for j, k in enumerate(kinds) if k != "const"]
    for j in informative:
        z += effect(col(j), trng) * trng.uniform(0.2, 1.0)
    for _ in range(2):
        if len(informative) >= 2:
            a, b = trng.choice(informative, 2, replace=False)
            ea, eb = effect(col(a), trng), effect(col(b), trng)
            z += 0.7 * ea * eb
    z = (z - z.mean()) / (z.std() + 1e-12)
    noise = np.random.default_rng([seed, 10 ** 6 + 1]).standard_normal(rows)
    if task == "binary":
        p = 1.0 / (1.0 + np.exp(-(1.5 * z)))
        y = (np.random.default_rng([seed, 10 ** 6 + 2]).random(rows) < p).astype(np.float64)
    else:
        y = np.round(3.0 * z + 1.0 * noise, 3)
    return dict(X=X, y=y, task=task, kinds=kinds, names=[f"{k[:2]}{j}" for j, k in enumerate(kinds)])


if __name__ == "__main__":
    import props
    shape, rows, feats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    d = make(shape, rows, feats, int(sys.argv[4]) if len(sys.argv) > 4 else 15)
    print(shape, d["task"], d["X"].shape, "kinds", d["kinds"])
    print(props.describe_matrix(d["X"]))
    print("label mean", d["y"].mean())
