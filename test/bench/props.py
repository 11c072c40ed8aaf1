"""Column properties of a benchmark table: distinct values per
column, missing share, constant / sparse / skewed columns.  Used by suite.py
to state what each data set looks like."""
import numpy as np


def column_stats(v):
    """v: 1-d float array (NaN = NULL) or an object/category column."""
    import pandas as pd
    s = pd.Series(v)
    miss = float(s.isna().mean())
    nn = s.dropna()
    distinct = int(nn.nunique())
    numeric = pd.api.types.is_numeric_dtype(nn) and not pd.api.types.is_bool_dtype(nn)
    zero = float((nn == 0).mean()) if numeric and len(nn) else 0.0
    skew = float(nn.astype(np.float64).skew()) if numeric and distinct > 2 else 0.0
    return dict(distinct=distinct, missing=miss, zero=zero, skew=skew if np.isfinite(skew) else 0.0)


def summarize(stats):
    d = np.array([s["distinct"] for s in stats])
    miss = [s["missing"] for s in stats if s["missing"] > 0]
    const = sum(1 for s in stats if s["distinct"] <= 1)
    sparse = sum(1 for s in stats if s["zero"] >= 0.9)
    skewed = sum(1 for s in stats if abs(s["skew"]) > 2)
    low = sum(1 for s in stats if 1 < s["distinct"] <= 64)
    parts = [f"distinct per column min/median/max {d.min()}/{int(np.median(d))}/{d.max()}",
             f"<= 64 distinct: {low}"]
    parts.append(f"with NULLs: {len(miss)}" + (f" ({100 * min(miss):.0f}-{100 * max(miss):.0f}%)" if miss else ""))
    parts.append(f"constant: {const}")
    parts.append(f"sparse (>= 90% zeros): {sparse}")
    parts.append(f"skewed (|skew| > 2): {skewed}")
    return "; ".join(parts)


def describe_frame(df, columns):
    return summarize([column_stats(df[c].to_numpy() if str(df[c].dtype) != "category" else df[c])
                      for c in columns])


def describe_matrix(X):
    return summarize([column_stats(X[:, j]) for j in range(X.shape[1])])
