#!/usr/bin/env python3
"""Learning-to-rank parity: gbdt rank:ndcg, rank:pairwise and rank:map against
XGBoost 3.x.

Usage: ranking_parity.py [--shared DIR] [--tol 0.01] [--rounds 100]

Runs against the database psql reaches (PGHOST, PGPORT, PGUSER, PGDATABASE)
with the gbdt extension installed.  Data: the shared ranking set
(DIR/rank.train.svm + rank.train.query, LightGBM's lambdarank example:
graded relevance 0..4, 201 queries).  Queries are split by position: every
4th query (3, 7, 11, ...) is held out, the rest train.  The rows of the
training table are stored in a scrambled order, so the groups are not
contiguous (gbdt groups rows by the value of the group column).  XGBoost
needs contiguous groups: it gets each group's rows in the order gbdt reads
them (the table's physical order, read_order()).  That order matters: in
the first round every score ties, and LambdaMART (both libraries) ranks tied
documents in row order, so the pairs and their NDCG deltas follow it; with
XGBoost reading the rows in id order instead, the first trees differ and
held-out NDCG@10 moved by +0.025 (unweighted) and -0.014 (weighted) between
the libraries.

Checks, each printed; exits non-zero when one fails:
  * rank:pairwise (held-out NDCG@10) and rank:map (labels rel > 0, held-out
    MAP@10) of gbdt >= XGBoost's - tol with the same params and row order,
    and their exports score in XGBoost within 1e-6 (other_objectives_case);
  * held-out NDCG@10 (gain 2^rel - 1, per query, mean over queries; queries
    without relevant documents count 1, as XGBoost's ndcg@10) of gbdt
    >= XGBoost's - tol, both trained with the same eta, max_depth, rounds,
    max_bin (tree_method hist, default lambdarank parameters);
  * training time of both (gbdt: the gbdt_train statement, reading the
    table included, less a psql round trip; XGBoost: DMatrix construction +
    xgboost.train), reported as a ratio (not asserted: the machine is shared);
  * export: gbdt_export of the gbdt model loaded by xgboost.Booster scores
    the held-out rows within 1e-6 of gbdt_predict_table;
  * import: XGBoost's rank:ndcg model through gbdt_import scores them
    within 1e-6 of XGBoost;
  * gbdt_evaluate(model, table, target, group_column) reports the same
    ndcg@10 as computed here (1e-9);
  * weighted gradients, exactly: one round (max_depth 2) of rank:ndcg on a
    small synthetic set whose only feature has 4 values (so both libraries
    have the same cut points), with and without group weights: gbdt's
    predictions within 1e-6 of XGBoost's (set_weight, one per group);
  * weighted (weight_column, one weight per query group, derived from the
    query id: 1 + (qid % 3) / 2) on the shared set: held-out NDCG@10 of
    gbdt >= XGBoost's - wtol (0.01), the weighted training
    metric ndcg@10 of gbdt equal to XGBoost's weighted ndcg@10 of gbdt's
    exported model on the training rows (1e-6), gbdt_evaluate(..., group_column,
    weight_column) on the held-out rows equal to XGBoost's weighted ndcg@10
    of the exported model (1e-6), and export / import of the weighted models
    within 1e-6;
  * first round on the shared set (max_depth 6), with and without group
    weights: gbdt_predict of every training row within 1e-6 of XGBoost's;
  * lambdarank_pair_method mean on queries of two documents (one possible
    partner, so the two libraries' random generators cannot differ): 5
    rounds within 1e-6; on larger queries the difference the generators make
    is printed.
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


def psql(sql, stdin=None):
    r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-F", "\t", "-c", sql],
                       input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"psql failed ({r.returncode}): {r.stderr.strip()}\nSQL: {sql[:300]}")
    return [ln for ln in r.stdout.splitlines() if ln != ""]


def load_svm(path):
    rows, ys, mx = [], [], 0
    with open(path) as f:
        for line in f:
            t = line.split()
            ys.append(float(t[0]))
            r = {}
            for kv in t[1:]:
                i, v = kv.split(":")
                r[int(i)] = float(v)
                mx = max(mx, int(i))
            rows.append(r)
    X = np.full((len(rows), mx + 1), np.nan, dtype=np.float32)
    for i, r in enumerate(rows):
        for k, v in r.items():
            X[i, k] = v
    return X, np.array(ys)


def ndcg_at(scores, y, qid, k=10):
    """Mean over queries of NDCG@k, exp gain, ties in row order."""
    out = []
    for q in np.unique(qid):
        idx = np.where(qid == q)[0]
        order = idx[np.argsort(-scores[idx], kind="stable")]
        gains = 2.0 ** y - 1.0
        disc = 1.0 / np.log2(np.arange(2, k + 2))
        top = order[:k]
        dcg = float(np.sum(gains[top] * disc[:len(top)]))
        ideal = np.sort(gains[idx])[::-1][:k]
        idcg = float(np.sum(ideal * disc[:len(ideal)]))
        out.append(dcg / idcg if idcg > 0 else 1.0)
    return float(np.mean(out))


def copy_table(name, ids, qid, y, X, cols):
    psql(f"DROP TABLE IF EXISTS {name}")
    psql(f"CREATE TABLE {name} (id int, qid int, rel float8, "
         + ", ".join(f"{c} real" for c in cols) + ")")
    lines = []
    for i in range(len(ids)):
        vals = ["" if np.isnan(v) else repr(float(v)) for v in X[i]]
        lines.append(",".join([str(ids[i]), str(qid[i]), repr(float(y[i]))] + vals))
    psql(f"\\copy {name} FROM STDIN WITH (FORMAT csv)", stdin="\n".join(lines) + "\n")
    psql(f"ANALYZE {name}")


def read_order(table, qid):
    """The training rows as gbdt reads them (the table's physical order, a
    sequential scan), grouped for XGBoost (contiguous groups, in order of
    first appearance, each group's rows in read order): (row ids, the groups,
    their sizes).  LambdaMART ranks tied scores in row order (every score
    ties in the first round), so both libraries must see each group's rows
    in the same order to be compared."""
    phys = np.array([int(v) for v in psql(f"SELECT id FROM {table} ORDER BY ctid")])
    groups = list(dict.fromkeys(int(q) for q in qid[phys]))
    order = np.concatenate([phys[qid[phys] == q] for q in groups])
    sizes = [int(np.sum(qid[phys] == q)) for q in groups]
    return order, groups, sizes


def group_weight(q):
    """The weight of query q (the same on every row of the query)."""
    return 1.0 + (q % 3) / 2.0


def weighted_gradient_case(failures):
    """One round on a feature with 4 values: the same cuts in both libraries,
    so the trees (and the weighted LambdaMART gradients) can be compared."""
    rng = np.random.RandomState(3)
    sizes = rng.randint(3, 9, 12)
    q = np.repeat(np.arange(len(sizes)), sizes)
    x = rng.randint(0, 4, len(q)).astype(float)
    y = np.clip(np.round(x / 1.5 + rng.randn(len(q))), 0, 4)
    psql("DROP TABLE IF EXISTS rank_parity_small")
    psql("CREATE TABLE rank_parity_small (qid int, rel float8, x float8, w float8)")
    psql("\\copy rank_parity_small FROM STDIN WITH (FORMAT csv)",
         stdin="\n".join(f"{q[i]},{y[i]},{x[i]},{group_weight(q[i])}" for i in range(len(q))) + "\n")
    base = {"eta": 1.0, "max_depth": 2, "reg_lambda": 1, "min_child_weight": 0, "nthread": 1}
    worst = 0.0
    for weighted in (False, True):
        ours_params = dict(base, num_round=1, group_column="qid", seed=0)
        if weighted:
            ours_params["weight_column"] = "w"
        ours = np.array([float(v) for v in psql(
            f"WITH m AS (SELECT gbdt_train('rank_parity_small', 'rel', ARRAY['x'], 'rank:ndcg', "
            f"'{json.dumps(ours_params)}') AS m) SELECT gbdt_predict(m, ARRAY[v]::float8[]) "
            "FROM m, (VALUES (0), (1), (2), (3)) t(v) ORDER BY v")])
        d = xgb.DMatrix(x.reshape(-1, 1), y)
        d.set_group(sizes)
        if weighted:
            d.set_weight(np.array([group_weight(g) for g in range(len(sizes))]))
        bst = xgb.train(dict(base, objective="rank:ndcg", tree_method="hist"), d, 1)
        theirs = bst.predict(xgb.DMatrix(np.arange(4.0).reshape(-1, 1)))
        diff = float(np.max(np.abs(ours - theirs)))
        worst = max(worst, diff)
        print(f"one round {'weighted' if weighted else 'unweighted'}: gbdt {np.round(ours, 7)} "
              f"xgboost {np.round(theirs, 7)} max |diff| {diff:.1e}")
        if not diff <= 1e-6:
            failures.append(f"one round {'weighted' if weighted else 'unweighted'} max |diff| {diff}")
    psql("DROP TABLE rank_parity_small")
    return worst


def first_round_case(params, X, y, qid, tr, cols, feats, failures):
    """One round (max_depth 6) on the shared set, with and without group
    weights, XGBoost reading each group's rows in gbdt's read order: the two
    first trees split the training rows alike and give them the same leaf
    values, so gbdt_predict of every training row is XGBoost's within 1e-6.
    (Held-out rows may differ: where a node's rows leave bins empty between
    two cuts, equal-gain thresholds are broken differently.)"""
    worst = 0.0
    for weighted in (False, True):
        op = dict(params, num_round=1, group_column="qid", seed=0)
        if weighted:
            op["weight_column"] = "w"
        psql("DROP TABLE IF EXISTS rank_parity_m1")
        psql(f"CREATE TABLE rank_parity_m1 AS SELECT gbdt_train('rank_parity_train', 'rel', {feats}, "
             f"'rank:ndcg', '{json.dumps(op)}') AS m")
        pred = {int(k): float(v) for k, v in (ln.split("\t") for ln in psql(
            "SELECT p.key, p.prediction FROM rank_parity_m1 m, "
            "gbdt_predict_table(m.m, 'rank_parity_train', 'id') p"))}
        order, groups, gsizes = read_order("rank_parity_train", qid)
        d = xgb.DMatrix(X[order], y[order], feature_names=cols)
        d.set_group(gsizes)
        if weighted:
            d.set_weight(np.array([group_weight(q) for q in groups]))
        bst = xgb.train(dict(params, objective="rank:ndcg", tree_method="hist"), d, 1)
        theirs = bst.predict(d)
        ours = np.array([pred[int(i)] for i in order])
        diff = float(np.max(np.abs(ours - theirs)))
        worst = max(worst, diff)
        what = "weighted" if weighted else "unweighted"
        print(f"first round (max_depth {params['max_depth']}) {what}, training rows: max |diff| {diff:.1e}")
        if not diff <= 1e-6:
            failures.append(f"first round {what} max |diff| {diff}")
    psql("DROP TABLE rank_parity_m1")
    return worst


def mean_pairs_case(failures):
    """lambdarank_pair_method mean: XGBoost draws each document's partners
    from outside its relevance bucket with its own generator (minstd_rand
    seeded from its global mt19937), gbdt with its own; the construction
    around the draw (buckets, num_pair partners per document, 1 / num_pair
    normalization, ties in row order) is the same.  Queries of two documents
    with different relevance leave one possible partner, so the draws
    cannot differ: 5 rounds, 3 pairs per document, predictions within
    1e-6.  Queries of 3-8 documents (several partners) show how far the
    generators alone move the models (printed, not checked)."""
    rng = np.random.RandomState(11)
    out = {}
    for name, lo, hi in (("2-document queries", 2, 3), ("3-8-document queries", 3, 9)):
        sizes = rng.randint(lo, hi, 40)
        q = np.repeat(np.arange(len(sizes)), sizes)
        x = rng.randint(0, 4, len(q)).astype(float)
        if lo == 2:
            y = np.zeros(len(q))
            first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            y[first + rng.randint(0, 2, len(sizes))] = 1 + rng.randint(0, 3, len(sizes))
        else:
            y = np.clip(np.round(x / 1.5 + rng.randn(len(q))), 0, 4)
        psql("DROP TABLE IF EXISTS rank_parity_mean")
        psql("CREATE TABLE rank_parity_mean (qid int, rel float8, x float8)")
        psql("\\copy rank_parity_mean FROM STDIN WITH (FORMAT csv)",
             stdin="\n".join(f"{q[i]},{y[i]},{x[i]}" for i in range(len(q))) + "\n")
        base = {"eta": 0.5, "max_depth": 2, "reg_lambda": 1, "min_child_weight": 0, "nthread": 1,
                "lambdarank_pair_method": "mean", "lambdarank_num_pair_per_sample": 3}
        ours = np.array([float(v) for v in psql(
            f"WITH m AS (SELECT gbdt_train('rank_parity_mean', 'rel', ARRAY['x'], 'rank:ndcg', "
            f"'{json.dumps(dict(base, num_round=5, group_column='qid', seed=0))}') AS m) "
            "SELECT gbdt_predict(m, ARRAY[v]::float8[]) FROM m, (VALUES (0), (1), (2), (3)) t(v) ORDER BY v")])
        d = xgb.DMatrix(x.reshape(-1, 1), y)
        d.set_group(sizes)
        bst = xgb.train(dict(base, objective="rank:ndcg", tree_method="hist", seed=0), d, 5)
        theirs = bst.predict(xgb.DMatrix(np.arange(4.0).reshape(-1, 1)))
        out[name] = float(np.max(np.abs(ours - theirs)))
        print(f"mean pairs, {name}: gbdt {np.round(ours, 6)} xgboost {np.round(theirs, 6)} "
              f"max |diff| {out[name]:.1e}" + ("" if lo == 2 else " (generators differ: not checked)"))
    psql("DROP TABLE rank_parity_mean")
    if not out["2-document queries"] <= 1e-6:
        failures.append(f"mean pairs, 2-document queries max |diff| {out['2-document queries']}")
    return out["2-document queries"]


def weighted_case(args, params, X, y, qid, tr, te, ids, cols, feats, unweighted, perm, failures):
    """Ranking with a weight column (one weight per query group) vs XGBoost."""
    psql("ALTER TABLE rank_parity_train ADD COLUMN w float8")
    psql("UPDATE rank_parity_train SET w = 1 + (qid % 3) / 2.0")
    first_round_case(params, X, y, qid, tr, cols, feats, failures)
    ours_params = dict(params, num_round=args.rounds, group_column="qid", seed=0,
                       weight_column="w", eval_metric="ndcg@10")
    psql("DROP TABLE IF EXISTS rank_parity_mw")
    psql(f"CREATE TABLE rank_parity_mw AS SELECT gbdt_train('rank_parity_train', 'rel', {feats}, "
         f"'rank:ndcg', '{json.dumps(ours_params)}') AS m")
    pred = {int(k): float(v) for k, v in (ln.split("\t") for ln in psql(
        "SELECT p.key, p.prediction FROM rank_parity_mw m, "
        "gbdt_predict_table(m.m, 'rank_parity_test', 'id') p"))}
    ours = np.array([pred[int(i)] for i in ids[te]])
    train_metric = float(json.loads(psql(
        "SELECT gbdt_model_info(m)->'train_metric' FROM rank_parity_mw")[0]))

    # XGBoost reads each group's rows in gbdt's read order (the UPDATE above
    # moved rows).
    order, groups, gsizes = read_order("rank_parity_train", qid)
    dtr = xgb.DMatrix(X[order], y[order], feature_names=cols)
    dtr.set_group(gsizes)
    dtr.set_weight(np.array([group_weight(q) for q in groups]))
    bst = xgb.train(dict(params, objective="rank:ndcg", tree_method="hist",
                         eval_metric="ndcg@10"), dtr, args.rounds)
    theirs = bst.predict(xgb.DMatrix(X[te], feature_names=cols))
    n_ours = ndcg_at(ours, y[te], qid[te])
    n_xgb = ndcg_at(theirs, y[te], qid[te])
    moved = float(np.max(np.abs(ours - unweighted)))
    print(f"weighted: held-out NDCG@10 gbdt {n_ours:.5f}  xgboost {n_xgb:.5f}  "
          f"(diff {n_ours - n_xgb:+.5f}, tolerance {args.wtol}); predictions moved by the "
          f"weights up to {moved:.3g}")
    if not n_ours >= n_xgb - args.wtol:
        failures.append(f"weighted NDCG@10 {n_ours:.5f} < xgboost {n_xgb:.5f} - {args.wtol}")
    if not moved > 0:
        failures.append("weighted: the weights changed no prediction")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mw.json")
        with open(path, "w") as f:
            f.write(psql("SELECT gbdt_export(m) FROM rank_parity_mw")[0])
        b2 = xgb.Booster(model_file=path)
        p2 = b2.predict(xgb.DMatrix(X[te], feature_names=cols))
        d = float(np.max(np.abs(p2 - ours)))
        # XGBoost's weighted ndcg@10 of gbdt's model on the training rows,
        # each group's rows in the table's order (ties of the predictions
        # rank in row order in both).
        b2.set_param({"eval_metric": "ndcg@10"})
        x_metric = float(b2.eval(dtr).split(":")[-1])
        print(f"weighted: export max |diff| {d:.2e}; train ndcg@10 gbdt {train_metric:.6f} "
              f"xgboost (weighted, of gbdt's model) {x_metric:.6f}")
        if not d <= 1e-6:
            failures.append(f"weighted export max |diff| {d}")
        if not abs(train_metric - x_metric) <= 1e-6:
            failures.append(f"weighted train ndcg@10 {train_metric} != xgboost {x_metric}")
        # gbdt_evaluate with a weight column: XGBoost's weighted ndcg@10 of
        # the same (exported) model on the held-out rows.
        psql("ALTER TABLE rank_parity_test ADD COLUMN IF NOT EXISTS w float8")
        psql("UPDATE rank_parity_test SET w = 1 + (qid % 3) / 2.0")
        ev = json.loads(psql("SELECT gbdt_evaluate(m, 'rank_parity_test', 'rel', 'qid', 'w') "
                             "FROM rank_parity_mw")[0])
        tgroups = np.unique(qid[te])
        dte_w = xgb.DMatrix(X[te], y[te], feature_names=cols)
        dte_w.set_group(np.bincount(qid[te])[tgroups])
        dte_w.set_weight(np.array([group_weight(q) for q in tgroups]))
        x_eval = float(b2.eval(dte_w).split(":")[-1])
        print(f"weighted: gbdt_evaluate(..., 'qid', 'w') ndcg@10 {ev['ndcg@10']:.6f} "
              f"xgboost (weighted, of gbdt's model) {x_eval:.6f}")
        if not abs(ev["ndcg@10"] - x_eval) <= 1e-6:
            failures.append(f"weighted gbdt_evaluate ndcg@10 {ev['ndcg@10']} != xgboost {x_eval}")

        bst.save_model(path)
        with open(path) as f:
            js = f.read()
        psql("DROP TABLE IF EXISTS rank_parity_json")
        psql("CREATE TABLE rank_parity_json (j jsonb)")
        psql("\\copy rank_parity_json FROM STDIN WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')",
             stdin=js + "\n")
        pi = {int(k): float(v) for k, v in (ln.split("\t") for ln in psql(
            "SELECT p.key, p.prediction FROM rank_parity_json, "
            "gbdt_predict_table(gbdt_import(j), 'rank_parity_test', 'id') p"))}
        imp = np.array([pi[int(i)] for i in ids[te]])
        d = float(np.max(np.abs(imp - theirs)))
        print(f"weighted: import max |diff| {d:.2e}")
        if not d <= 1e-6:
            failures.append(f"weighted import max |diff| {d}")
    return n_ours, n_xgb


def map_at(scores, rel, qid, k=10):
    """Mean over queries with a relevant document of AP@k (binary relevance
    rel > 0, ties in row order): sum of precision@i over the relevant
    documents in the top k, divided by min(k, relevant)."""
    out = []
    for q in np.unique(qid):
        idx = np.where(qid == q)[0]
        n_rel = int(np.sum(rel[idx] > 0))
        if n_rel == 0:
            continue
        order = idx[np.argsort(-scores[idx], kind="stable")][:k]
        hits, ap = 0, 0.0
        for i, r in enumerate(order):
            if rel[r] > 0:
                hits += 1
                ap += hits / (i + 1)
        out.append(ap / min(k, n_rel))
    return float(np.mean(out))


def other_objectives_case(args, params, X, y, qid, te, ids, cols, feats, failures):
    """rank:pairwise (graded labels, held-out NDCG@10) and rank:map (binary
    labels rel > 0, held-out MAP@10) trained by both libraries with the same
    params on the same rows, each group's rows in gbdt's read order; gbdt's
    held-out metric must be at least XGBoost's minus the tolerance, and the
    exported model must score in XGBoost as in gbdt."""
    psql("DROP VIEW IF EXISTS rank_parity_train_bin")
    psql("CREATE VIEW rank_parity_train_bin AS SELECT *, (rel > 0)::int::float8 AS relb "
         "FROM rank_parity_train")
    order, _, gsizes = read_order("rank_parity_train", qid)
    ybin = (y > 0).astype(float)
    out = {}
    for obj, table, target, labels, metric, name in (
            ("rank:pairwise", "rank_parity_train", "rel", y, ndcg_at, "NDCG@10"),
            ("rank:map", "rank_parity_train_bin", "relb", ybin, map_at, "MAP@10")):
        ours_params = dict(params, num_round=args.rounds, group_column="qid", seed=0)
        psql("DROP TABLE IF EXISTS rank_parity_mo")
        psql(f"CREATE TABLE rank_parity_mo AS SELECT gbdt_train('{table}', '{target}', {feats}, "
             f"'{obj}', '{json.dumps(ours_params)}') AS m")
        pred = {int(k): float(v) for k, v in (ln.split("\t") for ln in psql(
            "SELECT p.key, p.prediction FROM rank_parity_mo m, "
            "gbdt_predict_table(m.m, 'rank_parity_test', 'id') p"))}
        ours = np.array([pred[int(i)] for i in ids[te]])
        dtr = xgb.DMatrix(X[order], labels[order])
        dtr.set_group(gsizes)
        bst = xgb.train(dict(params, objective=obj, tree_method="hist"), dtr, args.rounds)
        theirs = bst.predict(xgb.DMatrix(X[te]))
        m_ours, m_xgb = metric(ours, labels[te], qid[te]), metric(theirs, labels[te], qid[te])
        print(f"{obj}: held-out {name} gbdt {m_ours:.5f}  xgboost {m_xgb:.5f}  "
              f"(diff {m_ours - m_xgb:+.5f}, tolerance {args.tol})")
        if not m_ours >= m_xgb - args.tol:
            failures.append(f"{obj} {name} {m_ours:.5f} < xgboost {m_xgb:.5f} - {args.tol}")
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m.json")
            with open(path, "w") as f:
                f.write(psql("SELECT gbdt_export(m) FROM rank_parity_mo")[0])
            b = xgb.Booster(model_file=path)
            d = float(np.max(np.abs(b.predict(xgb.DMatrix(X[te], feature_names=cols)) - ours)))
            print(f"{obj}: export max |diff| {d:.2e}")
            if not d <= 1e-6:
                failures.append(f"{obj} export max |diff| {d}")
        out[obj] = (m_ours, m_xgb)
    psql("DROP TABLE IF EXISTS rank_parity_mo")
    psql("DROP VIEW IF EXISTS rank_parity_train_bin")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.environ.get("GBDT_SHARED_DATA", "/work/shared/data"))
    ap.add_argument("--tol", type=float, default=0.01)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--wtol", type=float, default=0.01)
    args = ap.parse_args()
    failures = []

    X, y = load_svm(os.path.join(args.shared, "rank.train.svm"))
    sizes = np.loadtxt(os.path.join(args.shared, "rank.train.query"), dtype=int)
    qid = np.repeat(np.arange(len(sizes)), sizes)
    test_q = (qid % 4) == 3
    # Columns that have a value somewhere (the others carry nothing).
    keep = np.where(~np.all(np.isnan(X), axis=0))[0]
    X = X[:, keep]
    cols = [f"f{j}" for j in keep]
    tr, te = np.where(~test_q)[0], np.where(test_q)[0]
    # Training rows stored scrambled: groups are not contiguous in the table.
    rng = np.random.RandomState(7)
    perm = rng.permutation(tr)
    ids = np.arange(len(y))
    copy_table("rank_parity_train", ids[perm], qid[perm], y[perm], X[perm], cols)
    copy_table("rank_parity_test", ids[te], qid[te], y[te], X[te], cols)

    params = {"eta": 0.1, "max_depth": 6, "max_bin": 256, "nthread": 1}
    ours_params = dict(params, num_round=args.rounds, group_column="qid", seed=0)
    feats = "ARRAY[" + ",".join(f"'{c}'" for c in cols) + "]"
    psql("DROP TABLE IF EXISTS rank_parity_m")
    t0 = time.perf_counter()
    psql("SELECT 1")
    t_conn = time.perf_counter() - t0
    t0 = time.perf_counter()
    psql(f"CREATE TABLE rank_parity_m AS SELECT gbdt_train('rank_parity_train', 'rel', {feats}, "
         f"'rank:ndcg', '{json.dumps(ours_params)}') AS m")
    t_ours = time.perf_counter() - t0 - t_conn
    pred = {int(k): float(v) for k, v in (ln.split("\t") for ln in psql(
        "SELECT p.key, p.prediction FROM rank_parity_m m, "
        "gbdt_predict_table(m.m, 'rank_parity_test', 'id') p"))}
    ours = np.array([pred[int(i)] for i in ids[te]])

    # XGBoost: training rows in group order (it needs contiguous groups),
    # each group's rows in the order gbdt reads them.
    order, _, gsizes = read_order("rank_parity_train", qid)
    t0 = time.perf_counter()
    dtr = xgb.DMatrix(X[order], y[order])
    dtr.set_group(gsizes)
    bst = xgb.train(dict(params, objective="rank:ndcg", tree_method="hist"), dtr, args.rounds)
    t_xgb = time.perf_counter() - t0
    theirs = bst.predict(xgb.DMatrix(X[te]))

    n_ours = ndcg_at(ours, y[te], qid[te])
    n_xgb = ndcg_at(theirs, y[te], qid[te])
    print(f"held-out NDCG@10: gbdt {n_ours:.5f}  xgboost {n_xgb:.5f}  "
          f"(diff {n_ours - n_xgb:+.5f}, tolerance {args.tol})")
    if not n_ours >= n_xgb - args.tol:
        failures.append(f"NDCG@10 {n_ours:.5f} < xgboost {n_xgb:.5f} - {args.tol}")
    print(f"training time: gbdt {t_ours:.3f} s  xgboost {t_xgb:.3f} s  "
          f"ratio {t_ours / t_xgb:.2f}x (nthread 1 both: the machine is shared)")

    # gbdt_evaluate with the group column.
    try:
        ev = json.loads(psql("SELECT gbdt_evaluate(m, 'rank_parity_test', 'rel', 'qid') "
                             "FROM rank_parity_m")[0])
        v = float(ev.get("ndcg@10", "nan"))
        print(f"gbdt_evaluate ndcg@10 {v:.6f}")
        if not abs(v - n_ours) <= 1e-9:
            failures.append(f"gbdt_evaluate ndcg@10 {v} != {n_ours}")
    except RuntimeError as e:
        failures.append(f"gbdt_evaluate: {e}")

    # Export: XGBoost loads gbdt's model and scores identically.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.json")
        with open(path, "w") as f:
            f.write(psql("SELECT gbdt_export(m) FROM rank_parity_m")[0])
        b2 = xgb.Booster(model_file=path)
        cfg = json.loads(b2.save_config())
        oname = cfg["learner"]["objective"]["name"]
        p2 = b2.predict(xgb.DMatrix(X[te], feature_names=cols))
        d = float(np.max(np.abs(p2 - ours)))
        print(f"export: xgboost loads objective {oname}, max |diff| {d:.2e}")
        if oname != "rank:ndcg":
            failures.append(f"export objective {oname}")
        if not d <= 1e-6:
            failures.append(f"export max |diff| {d}")

        # Import: XGBoost's model scored by gbdt.
        bst.save_model(path)
        with open(path) as f:
            js = f.read()
        psql("DROP TABLE IF EXISTS rank_parity_json")
        psql("CREATE TABLE rank_parity_json (j jsonb)")
        psql("\\copy rank_parity_json FROM STDIN WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')",
             stdin=js + "\n")
        # Feature names: XGBoost's f0.. are positions; rename to the columns.
        psql("DROP TABLE IF EXISTS rank_parity_mi")
        psql("CREATE TABLE rank_parity_mi AS SELECT gbdt_import(j) AS m FROM rank_parity_json")
        imp_feats = json.loads(psql("SELECT gbdt_model_info(m) FROM rank_parity_mi")[0])["features"]
        names = [f["name"] for f in imp_feats]
        sel = ", ".join(f"{c} AS \"{n}\"" for c, n in zip(cols, names))
        psql(f"CREATE OR REPLACE VIEW rank_parity_test_v AS SELECT id, {sel} FROM rank_parity_test")
        pi = {int(k): float(v) for k, v in (ln.split("\t") for ln in psql(
            "SELECT p.key, p.prediction FROM rank_parity_mi m, "
            "gbdt_predict_table(m.m, 'rank_parity_test_v', 'id') p"))}
        imp = np.array([pi[int(i)] for i in ids[te]])
        d = float(np.max(np.abs(imp - theirs)))
        oi = json.loads(psql("SELECT gbdt_model_info(m) FROM rank_parity_mi")[0])["objective"]
        print(f"import: gbdt reads objective {oi}, max |diff| {d:.2e}")
        if oi != "rank:ndcg":
            failures.append(f"import objective {oi}")
        if not d <= 1e-6:
            failures.append(f"import max |diff| {d}")

    weighted_gradient_case(failures)
    mean_pairs_case(failures)
    others = other_objectives_case(args, params, X, y, qid, te, ids, cols, feats, failures)
    n_w_ours, n_w_xgb = weighted_case(args, params, X, y, qid, tr, te, ids, cols, feats, ours, perm,
                                      failures)

    for t in ("rank_parity_m", "rank_parity_mi", "rank_parity_json", "rank_parity_mw"):
        psql(f"DROP TABLE IF EXISTS {t}")
    psql("DROP VIEW IF EXISTS rank_parity_test_v")
    psql("DROP TABLE IF EXISTS rank_parity_train")
    psql("DROP TABLE IF EXISTS rank_parity_test")
    summary = (f"ndcg@10 gbdt {n_ours:.4f} xgboost {n_xgb:.4f}, weighted gbdt {n_w_ours:.4f} "
               f"xgboost {n_w_xgb:.4f}, time ratio {t_ours / t_xgb:.2f}x, "
               + ", ".join(f"{o} gbdt {a:.4f} xgboost {b:.4f}" for o, (a, b) in others.items()))
    if failures:
        print("ranking parity FAIL: " + "; ".join(failures))
        print(f"ranking parity overall {summary}")
        return 1
    print(f"ranking parity overall {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
