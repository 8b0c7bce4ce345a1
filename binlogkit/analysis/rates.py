"""Commit rate and binlog growth over time, from an events or transactions frame.

Plain functions over DataFrames made by `binlogkit.analysis.frames`; the
``df.binlogkit`` accessor forwards to them.  matplotlib is imported only by
the ``plot_*`` functions.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["frame_kind", "commit_times", "commit_rate", "binlog_growth",
           "plot_commit_rate", "plot_binlog_growth"]

EVENTS_COLUMNS = frozenset({"timestamp", "type", "bytes", "gtid"})
TRANSACTIONS_COLUMNS = frozenset({"commit", "kind", "bytes"})
SLOWLOG_COLUMNS = frozenset({"start", "end", "query_time"})
COMMIT_TYPES = ("Xid", "XA_prepare")


def frame_kind(df):
    """'transactions', 'events' or 'slowlog' from the columns, else None."""
    cols = set(df.columns)
    if TRANSACTIONS_COLUMNS <= cols:
        return "transactions"
    if EVENTS_COLUMNS <= cols:
        return "events"
    if SLOWLOG_COLUMNS <= cols:
        return "slowlog"
    return None


def _require(df, *kinds):
    kind = frame_kind(df)
    if kind not in kinds:
        raise ValueError(f"needs a {' or '.join(kinds)} frame from binlogkit.frames; "
                         f"got columns {list(df.columns)[:8]}")
    return kind


def commit_times(df):
    """Instants of the commits: a transactions frame's ``commit`` (kind commit/ddl/
    statement/xa_prepare); for an events frame, the last event of each GTID group,
    or Xid events when the log has no GTIDs."""
    kind = _require(df, "transactions", "events")
    if kind == "transactions":
        return df.loc[df["kind"] != "rollback", "commit"].dropna()
    with_gtid = df.dropna(subset=["gtid"])
    if len(with_gtid):
        return with_gtid.groupby(["file", "gtid"], observed=True, sort=False)["timestamp"].max()
    return df.loc[df["type"].isin(COMMIT_TYPES), "timestamp"]


def _per_interval(times, values, freq, name):
    times = pd.DatetimeIndex(pd.Series(times).array)
    if times.tz is None:
        times = times.tz_localize("UTC")
    s = pd.Series(values, index=times, name=name).sort_index()
    if s.empty:
        return pd.Series([], index=pd.DatetimeIndex([], tz="UTC"), name=name, dtype="int64")
    _check_bins(s.index, freq)
    return s.resample(freq).sum().astype("int64")


MAX_BINS = 5_000_000


def _check_bins(index, freq):
    """Refuse a resample that would make millions of empty intervals."""
    try:
        step = pd.tseries.frequencies.to_offset(freq).nanos
    except ValueError:      # calendar frequencies (months...) are never that many
        return
    bins = (index[-1] - index[0]).value // step
    if bins > MAX_BINS:
        raise ValueError(f"{bins} intervals of {freq} between {index[0]} and {index[-1]}; "
                         f"use a longer freq or select a time range first")


def commit_rate(df, freq="1s"):
    """Commits per `freq` interval (a Series indexed by interval start, UTC)."""
    times = commit_times(df)
    return _per_interval(times, [1] * len(times), freq, "commits")


def binlog_growth(df, freq="1min", cumulative=False):
    """Binlog bytes written per `freq` interval (by commit time for transactions,
    event time for events); `cumulative=True` gives the running total."""
    kind = _require(df, "transactions", "events")
    when = "commit" if kind == "transactions" else "timestamp"
    s = _per_interval(df[when], df["bytes"].to_numpy(), freq, "bytes")
    return s.cumsum() if cumulative else s


def _axes(ax, title):
    if ax is None:
        from binlogkit.analysis.plot import quiet_matplotlib_cache
        quiet_matplotlib_cache()
        import matplotlib.pyplot as plt
        _, ax = plt.subplots(figsize=(10, 3.5), layout="constrained")
    ax.set_title(title)
    ax.set_xlabel("time (UTC)")
    ax.grid(True, alpha=0.3)
    return ax


def _step(ax, s, freq):
    """Each interval drawn as a flat step from its start to its end."""
    if len(s):
        end = s.index[-1] + pd.tseries.frequencies.to_offset(freq)
        edges = s.index.append(pd.DatetimeIndex([end]))
        values = np.append(s.to_numpy(), s.to_numpy()[-1])
        ax.step(edges.tz_convert("UTC").tz_localize(None), values, where="post", linewidth=1.2)
    ax.set_ylim(bottom=0)
    return ax


def plot_commit_rate(df, freq="1s", ax=None):
    """Step plot of commit_rate(df, freq); returns the matplotlib Axes."""
    ax = _axes(ax, f"commits per {freq}")
    ax.set_ylabel("commits")
    return _step(ax, commit_rate(df, freq), freq)


def plot_binlog_growth(df, freq="1min", ax=None, cumulative=False):
    """Step plot of binlog_growth(df, freq) in MiB; returns the matplotlib Axes."""
    title = "binlog size written" if cumulative else f"binlog growth per {freq}"
    ax = _axes(ax, title)
    ax.set_ylabel("MiB")
    return _step(ax, binlog_growth(df, freq, cumulative) / (1 << 20), freq)
