"""``df.binlogkit``: a pandas accessor forwarding to binlogkit's plain functions.

Registered when `binlogkit.frames` (or `binlogkit.analysis.frames`) is imported::

    tx = transactions_frame(paths)
    tx.binlogkit.commit_rate("1s")          # Series
    tx.binlogkit.plot_binlog_growth("1min")  # matplotlib Axes
    slow.binlogkit.timeline(rotations=rot, stalls=stalls)

Each method is one line over a function of `binlogkit.analysis.rates` or
`binlogkit.analysis.plot`.  A frame without the needed columns raises
AttributeError, as pandas recommends for accessors.
"""
from __future__ import annotations

import pandas as pd

from binlogkit.analysis import rates

__all__ = ["BinlogkitAccessor"]


@pd.api.extensions.register_dataframe_accessor("binlogkit")
class BinlogkitAccessor:
    """Analysis and plots for frames made by binlogkit.frames."""

    def __init__(self, df):
        self._kind = rates.frame_kind(df)
        if self._kind is None:
            raise AttributeError("df.binlogkit needs an events, transactions or slowlog frame "
                                 "from binlogkit.frames")
        self._df = df

    @property
    def kind(self):
        """'events', 'transactions' or 'slowlog'."""
        return self._kind

    def timeline(self, rotations=None, stalls=None, threshold=None, ax=None, title=None):
        """Statement latency over time (a slowlog frame), rotation markers, shaded
        stalls: `binlogkit.analysis.plot`.  Draws on `ax` and returns it, else
        returns a new Figure."""
        from binlogkit.analysis import plot
        if self._kind != "slowlog":
            raise ValueError("timeline() plots statement latency: call it on a slowlog frame")
        df = self._df
        if "time_res_s" not in df:      # read_slowlog frames: times as logged
            df = df.assign(time_res_s=0.0)
        if ax is not None:
            return plot.plot_timeline(ax, df, rotations, stalls, threshold)
        return plot.timeline_figure(df, rotations, stalls, threshold, title)

    def commit_rate(self, freq="1s"):
        return rates.commit_rate(self._df, freq)

    def binlog_growth(self, freq="1min", cumulative=False):
        return rates.binlog_growth(self._df, freq, cumulative)

    def plot_commit_rate(self, freq="1s", ax=None):
        return rates.plot_commit_rate(self._df, freq, ax)

    def plot_binlog_growth(self, freq="1min", ax=None, cumulative=False):
        return rates.plot_binlog_growth(self._df, freq, ax, cumulative)
