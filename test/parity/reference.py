#!/usr/bin/env python3
"""XGBoost reference for the gbdt parity tests (test/sql/interop/xgboost_parity.sql).

Usage: reference.py OUTDIR [--shared DIR]

Builds three datasets, splits each the same way for both sides, trains XGBoost
(xgboost-cpu, tree_method=hist) with the parameters gbdt is trained with in SQL,
and writes into OUTDIR:

  {higgs,multi,reg}_train.csv          label,f0..f27    (CSV with header, empty field = NULL)
  {higgs,multi,reg}_test.csv           id,label,f0..f27
  parity_reference.csv                 dataset,metric,value   (XGBoost on the test part)
  parity_predictions.csv               dataset,id,prediction  (XGBoost's test predictions)

Datasets (DIR = ../shared by default):
  higgs  DIR/data/higgs_7k.train.tsv       binary, label then 28 floats
  multi  DIR/data/multiclass_7k.train.tsv  5 classes
  reg    DIR/tools/gen_synth.py 20000 --task regression --seed 7 (2% missing values)

Split: id = 1-based row number in the file; rows with id % 5 = 0 are the test
part (20%), the others the training part.

XGBoost parameters: tree_method=hist, eta=0.1, max_depth=6, max_bin=256,
100 rounds, everything else at XGBoost's defaults (min_child_weight 1, lambda 1,
base_score estimated from the target).
"""
import argparse
import csv
import io
import os
import subprocess
import sys

import numpy as np
import xgboost as xgb

PARAMS = {"tree_method": "hist", "eta": 0.1, "max_depth": 6, "max_bin": 256, "seed": 0}
ROUNDS = 100
NFEAT = 28


def read_rows(path, sep):
    with open(path) as f:
        text = f.read()
    return parse_rows(text, sep)


def parse_rows(text, sep):
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        rows.append(line.split(sep))
    return rows


def to_matrix(rows):
    y = np.array([float(r[0]) for r in rows], dtype=np.float64)
    x = np.array([[float(v) if v != "" else np.nan for v in r[1:]] for r in rows], dtype=np.float32)
    return x, y


def auc(y, p):
    """Rank-based AUC (Mann-Whitney U) with average ranks for ties."""
    order = np.argsort(p, kind="mergesort")
    ps = p[order]
    ranks = np.empty(len(p), dtype=np.float64)
    i = 0
    n = len(p)
    while i < n:
        j = i
        while j + 1 < n and ps[j + 1] == ps[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    pos = y == 1
    npos = pos.sum()
    nneg = n - npos
    return (ranks[pos].sum() - npos * (npos + 1) / 2.0) / (npos * nneg)


def write_split(outdir, name, rows):
    train, test = [], []
    for i, r in enumerate(rows, start=1):
        (test if i % 5 == 0 else train).append((i, r))
    for part, data in (("train", train), ("test", test)):
        with open(os.path.join(outdir, f"{name}_{part}.csv"), "w", newline="") as f:
            key = "id," if part == "test" else ""
            f.write(key + "label," + ",".join(f"f{j}" for j in range(NFEAT)) + "\n")
            for i, r in data:
                f.write((f"{i}," if part == "test" else "") + ",".join(r) + "\n")
    return [r for _, r in train], [r for _, r in test], [i for i, _ in test]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--shared", default=os.environ.get("GBDT_SHARED") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared"))
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    shared = a.shared

    datasets = {}
    datasets["higgs"] = read_rows(os.path.join(shared, "data", "higgs_7k.train.tsv"), "\t")
    datasets["multi"] = read_rows(os.path.join(shared, "data", "multiclass_7k.train.tsv"), "\t")
    synth = subprocess.run([sys.executable, os.path.join(shared, "tools", "gen_synth.py"), "20000",
                            "--task", "regression", "--seed", "7"],
                           check=True, capture_output=True, text=True).stdout
    datasets["reg"] = parse_rows(synth, ",")[1:]  # drop the header

    refs = []
    preds = []
    for name, rows in datasets.items():
        assert all(len(r) == NFEAT + 1 for r in rows), name
        train, test, test_ids = write_split(a.outdir, name, rows)
        xtr, ytr = to_matrix(train)
        xte, yte = to_matrix(test)
        params = dict(PARAMS)
        if name == "higgs":
            params["objective"] = "binary:logistic"
        elif name == "multi":
            params["objective"] = "multi:softprob"
            params["num_class"] = 5
        else:
            params["objective"] = "reg:squarederror"
        booster = xgb.train(params, xgb.DMatrix(xtr, label=ytr), num_boost_round=ROUNDS)
        p = booster.predict(xgb.DMatrix(xte)).astype(np.float64)
        if name == "higgs":
            eps = 1e-15
            pc = np.clip(p, eps, 1 - eps)
            refs += [(name, "auc", auc(yte, p)),
                     (name, "logloss", float(-np.mean(yte * np.log(pc) + (1 - yte) * np.log(1 - pc)))),
                     (name, "accuracy", float(np.mean((p > 0.5) == (yte == 1))))]
            scalar = p
        elif name == "multi":
            cls = p.argmax(axis=1)
            pc = np.clip(p[np.arange(len(yte)), yte.astype(int)], 1e-15, 1.0)
            refs += [(name, "accuracy", float(np.mean(cls == yte))),
                     (name, "mlogloss", float(-np.mean(np.log(pc))))]
            scalar = cls.astype(np.float64)
        else:
            refs += [(name, "rmse", float(np.sqrt(np.mean((p - yte) ** 2)))),
                     (name, "mae", float(np.mean(np.abs(p - yte))))]
            scalar = p
        preds += [(name, i, float(v)) for i, v in zip(test_ids, scalar)]
        print(f"xgboost {xgb.__version__} {name}: train {len(train)} rows, test {len(test)} rows: " +
              ", ".join(f"{m}={v:.6f}" for d, m, v in refs if d == name))

    with open(os.path.join(a.outdir, "parity_reference.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dataset", "metric", "value"])
        for d, m, v in refs:
            w.writerow([d, m, repr(float(v))])
    with open(os.path.join(a.outdir, "parity_predictions.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dataset", "id", "prediction"])
        for d, i, v in preds:
            w.writerow([d, i, repr(v)])


if __name__ == "__main__":
    main()
