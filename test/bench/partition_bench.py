#!/usr/bin/env python3
"""partition_by against separate trainings, same machine, same run.

Times one gbdt_train(..., params => {"partition_by": "g", ...}) over a
table of --groups groups against --groups separate gbdt_train_query calls,
one per group (SELECT the group's rows, as a user without partition_by
would), with the same parameters, and prints both times and their ratio
(the target: partition_by <= 0.7x the separate calls at 100 groups of 1M
rows).  It also checks that one group's sub-model is byte for byte its
separate model.  Connects with psql through the PG* environment (a
cluster with the extension installed: source /work/tools/cluster.sh PORT).

  python3 test/bench/partition_bench.py                 # 100 groups, 100k rows
  python3 test/bench/partition_bench.py --rows 1000000  # the issue's size
"""
import argparse
import subprocess
import time


def psql(sql):
    out = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def timed(sql):
    t = time.monotonic()
    out = psql("SET client_min_messages = warning; " + sql)
    return time.monotonic() - t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--groups", type=int, default=100)
    ap.add_argument("--features", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side, fastest kept")
    a = ap.parse_args()
    feats = ", ".join(f"sin(i * {0.1 + 0.07 * f:.2f} + (i % {a.groups}))::float8 AS x{f}"
                      for f in range(a.features))
    cols = ", ".join(f"x{f}" for f in range(a.features))
    psql("DROP TABLE IF EXISTS gbdt_partition_bench; "
         f"CREATE TABLE gbdt_partition_bench AS SELECT (i % {a.groups}) AS g, {feats}, "
         f"(sin(i * 0.1) + (i % {a.groups}) * 0.01 + cos(i * 0.37))::float8 AS y "
         f"FROM generate_series(1, {a.rows}) i; ANALYZE gbdt_partition_bench")
    params = f'"num_round": {a.rounds}, "max_depth": 6'
    one = ("SELECT length(gbdt_train('gbdt_partition_bench', 'y', "
           f"params => '{{\"partition_by\": \"g\", {params}}}')::text)")
    sep = ("SELECT sum(length(gbdt_train_query("
           f"'SELECT {cols}, y FROM gbdt_partition_bench WHERE g = ' || k, 'y', "
           f"params => '{{{params}}}')::text)) FROM generate_series(0, {a.groups - 1}) k")
    t_one = min(timed(one)[0] for _ in range(a.repeat))
    t_sep = min(timed(sep)[0] for _ in range(a.repeat))
    # The separate query without a parallel scan (its workers interleave
    # rows), so that it reads the group in the relation's order.
    same = psql("SET client_min_messages = warning; SET max_parallel_workers_per_gather = 0; SELECT gbdt_partition_model(gbdt_train('gbdt_partition_bench', 'y', "
                f"params => '{{\"partition_by\": \"g\", {params}}}'), ARRAY['1'])::text = "
                f"gbdt_train_query('SELECT {cols}, y FROM gbdt_partition_bench WHERE g = 1', 'y', "
                f"params => '{{{params}}}')::text")
    psql("DROP TABLE gbdt_partition_bench")
    print(f"rows {a.rows}, groups {a.groups}, features {a.features}, rounds {a.rounds}")
    print(f"partition_by (one call):     {t_one:8.2f} s")
    print(f"{a.groups} separate calls:        {t_sep:8.2f} s")
    print(f"ratio partition_by/separate: {t_one / t_sep:8.2f}  (target <= 0.70: {'met' if t_one / t_sep <= 0.7 else 'NOT met'})")
    print(f"group 1 sub-model == its separate model: {same == 't'}")


if __name__ == "__main__":
    main()
