#!/usr/bin/env python3
"""gbdt_evaluate's metrics and the curve / batch-output functions against
scikit-learn on public data with text labels.

Usage: metrics_parity.py [--tol 1e-12]

Runs against the database psql reaches with PGHOST/PGPORT/PGUSER/PGDATABASE
(extension installed).  Needs scikit-learn, whose bundled public datasets
are used (no download):
  breast_cancer  Wisconsin diagnostic (569 rows, 30 features), the label
                 as text 'malignant' / 'benign' -> binary:logistic;
  iris           Fisher's iris (150 rows), the species as text
                 -> multi:softprob;
  diabetes       Efron et al. (442 rows), disease progression (integers)
                 -> reg:squarederror.
Every 3rd row is held out; the model is trained on the others and scored on
the held-out rows by gbdt_predict_proba_table / gbdt_predict_table, and
scikit-learn computes each metric on those very predictions:
  binary: average_precision_score (aucpr), precision / recall / f1 at the
  thresholds 0.5 and 0.3 (a row predicted positive when P > threshold,
  zero_division=0), brier_score_loss, roc_auc_score; the trapezoid area of
  gbdt_roc_curve equals gbdt_evaluate's auc; gbdt_confusion_matrix equals
  sklearn's confusion_matrix and sums to the rows;
  multiclass: f1_score macro and micro;
  regression: r2_score, explained_variance_score,
  mean_absolute_percentage_error.
Prints one line per figure (gbdt, sklearn, difference) and exits non-zero
if a difference exceeds --tol.
"""
import argparse
import io
import subprocess
import sys

import numpy as np
from sklearn import datasets, metrics


def psql(sql, stdin=None):
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-A", "-t", "-F", "\t", "-c", sql],
                       input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    return [line.split("\t") for line in r.stdout.splitlines() if line]


def load(name, X, labels, ytype):
    cols = ", ".join(f"f{j} float8" for j in range(X.shape[1]))
    psql(f"DROP TABLE IF EXISTS {name}; CREATE TABLE {name} (id int, {cols}, y {ytype})")
    buf = io.StringIO()
    for i, (row, lab) in enumerate(zip(X, labels)):
        buf.write("\t".join([str(i)] + [repr(float(v)) for v in row] + [str(lab)]) + "\n")
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                        f"\\copy {name} FROM STDIN"], input=buf.getvalue(), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    psql(f"DROP TABLE IF EXISTS {name}_train, {name}_test;"
         f"CREATE TABLE {name}_train AS SELECT * FROM {name} WHERE id % 3 <> 0;"
         f"CREATE TABLE {name}_test AS SELECT * FROM {name} WHERE id % 3 = 0")
    return ", ".join(f"'f{j}'" for j in range(X.shape[1]))


def train(name, feats, objective):
    psql(f"DROP TABLE IF EXISTS {name}_model; CREATE TABLE {name}_model AS "
         f"SELECT gbdt_train('{name}_train', 'y', ARRAY[{feats}], '{objective}', "
         "'{\"num_round\": 20, \"max_depth\": 3, \"eta\": 0.3}') AS m")


def evaluate(name, extra=""):
    import json
    return json.loads(psql(f"SELECT gbdt_evaluate(m, '{name}_test', 'y'{extra}) FROM {name}_model")[0][0])


class Checker:
    def __init__(self, tol):
        self.tol, self.worst, self.failed = tol, 0.0, []

    def __call__(self, what, ours, theirs):
        d = abs(float(ours) - float(theirs))
        self.worst = max(self.worst, d)
        print(f"{what:40s} gbdt {float(ours):.17g}  sklearn {float(theirs):.17g}  diff {d:.3g}")
        if not d <= self.tol:
            self.failed.append(what)


def binary(check):
    bc = datasets.load_breast_cancer()
    labels = [bc.target_names[t] for t in bc.target]  # 0 malignant, 1 benign
    feats = load("mp_bc", bc.data, labels, "text")
    train("mp_bc", feats, "binary:logistic")
    # the positive class is the second name in sorted order: 'malignant'
    rows = psql("SELECT t.key::int, t.probability, b.y FROM mp_bc_model, "
                "gbdt_predict_proba_table(m, 'mp_bc_test', 'id') t JOIN mp_bc_test b ON b.id::text = t.key "
                "WHERE t.class = 'malignant' ORDER BY 1")
    p = np.array([float(r[1]) for r in rows])
    y = np.array([1 if r[2] == "malignant" else 0 for r in rows])
    print(f"breast_cancer: {len(y)} held-out rows, {y.sum()} malignant")
    for t in (0.5, 0.3):
        ev = evaluate("mp_bc", f", {t}")
        pred = (p > t).astype(int)
        check(f"precision@{t}", ev["precision"], metrics.precision_score(y, pred, zero_division=0))
        check(f"recall@{t}", ev["recall"], metrics.recall_score(y, pred, zero_division=0))
        check(f"f1@{t}", ev["f1"], metrics.f1_score(y, pred, zero_division=0))
        check(f"accuracy@{t}", ev["accuracy"], metrics.accuracy_score(y, pred))
    ev = evaluate("mp_bc")
    check("aucpr", ev["aucpr"], metrics.average_precision_score(y, p))
    check("brier", ev["brier"], metrics.brier_score_loss(y, p))
    check("auc", ev["auc"], metrics.roc_auc_score(y, p))
    roc = psql("SELECT fpr, tpr FROM mp_bc_model, gbdt_roc_curve(m, 'mp_bc_test', 'y') ORDER BY threshold DESC")
    fpr, tpr = np.array([float(r[0]) for r in roc]), np.array([float(r[1]) for r in roc])
    check("ROC trapezoid area = gbdt auc", np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2), ev["auc"])
    cm = psql("SELECT actual, predicted, count FROM mp_bc_model, gbdt_confusion_matrix(m, 'mp_bc_test', 'y')")
    ours = {(a, b): int(c) for a, b, c in cm}
    sk = metrics.confusion_matrix(y, (p > 0.5).astype(int), labels=[0, 1])
    names = ["benign", "malignant"]
    diff = sum(abs(ours[(names[a], names[b])] - sk[a][b]) for a in range(2) for b in range(2))
    check("confusion matrix cells", diff, 0)
    check("confusion matrix sum = rows", sum(ours.values()), len(y))


def multiclass(check):
    ir = datasets.load_iris()
    labels = [ir.target_names[t] for t in ir.target]
    feats = load("mp_iris", ir.data, labels, "text")
    train("mp_iris", feats, "multi:softprob")
    rows = psql("SELECT t.key::int, t.prediction, b.y FROM mp_iris_model, "
                "gbdt_predict_table(m, 'mp_iris_test', 'id', output => 'class') t "
                "JOIN mp_iris_test b ON b.id::text = t.key ORDER BY 1")
    pred, y = [r[1] for r in rows], [r[2] for r in rows]
    ev = evaluate("mp_iris")
    print(f"iris: {len(y)} held-out rows")
    check("f1_macro", ev["f1_macro"], metrics.f1_score(y, pred, average="macro"))
    check("f1_micro", ev["f1_micro"], metrics.f1_score(y, pred, average="micro"))


def regression(check):
    db = datasets.load_diabetes()
    feats = load("mp_diab", db.data, [int(v) for v in db.target], "float8")
    train("mp_diab", feats, "reg:squarederror")
    rows = psql("SELECT t.key::int, t.prediction, b.y FROM mp_diab_model, "
                "gbdt_predict_table(m, 'mp_diab_test', 'id') t JOIN mp_diab_test b ON b.id::text = t.key ORDER BY 1")
    pr, y = np.array([float(r[1]) for r in rows]), np.array([float(r[2]) for r in rows])
    ev = evaluate("mp_diab")
    print(f"diabetes: {len(y)} held-out rows")
    check("r2", ev["r2"], metrics.r2_score(y, pr))
    check("explained_variance", ev["explained_variance"], metrics.explained_variance_score(y, pr))
    check("mape", ev["mape"], metrics.mean_absolute_percentage_error(y, pr))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tol", type=float, default=1e-12)
    args = ap.parse_args()
    check = Checker(args.tol)
    binary(check)
    multiclass(check)
    regression(check)
    psql("DROP TABLE IF EXISTS mp_bc, mp_bc_train, mp_bc_test, mp_bc_model, mp_iris, mp_iris_train, "
         "mp_iris_test, mp_iris_model, mp_diab, mp_diab_train, mp_diab_test, mp_diab_model")
    print(f"metrics_parity: largest difference {check.worst:.3g} (tolerance {args.tol:g})")
    if check.failed:
        print("metrics_parity: FAIL: " + ", ".join(check.failed))
        sys.exit(1)
    print("metrics_parity: ok")


if __name__ == "__main__":
    main()
