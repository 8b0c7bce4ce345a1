"""Stalls seen in the binlog itself: stretches with no commit where commits were due.

A stall that blocks every commit (a binlog rotation's sync, FLUSH TABLES WITH
READ LOCK, LOCK TABLES, a slow fsync at commit) leaves a hole in the commit
times, whether or not the slow log caught the statements that waited.

* MySQL 5.7+/8 GTID events carry ``immediate_commit_timestamp`` (µs): the gap
  between two consecutive commits is exact.
* MariaDB (and MySQL without those) has only header times, whole seconds,
  of the statement that committed (its start): a gap is a run of seconds in
  which no committing statement began (writers blocked at commit begin no
  new statement), so a stall shows about one second shorter than it was.

A gap counts when the commit rate around it (``CONTEXT_S`` before and after,
the gap excluded) would have put at least ``MIN_EXPECTED`` commits in it (a
Poisson process would leave it empty with probability e^-5 < 1 %), so quiet
periods of a quiet server are not stalls.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["CommitTimes", "commit_gaps", "GAP_COLUMNS"]

GAP_COLUMNS = ["start", "end", "duration_s", "time_res_s", "commits_before", "commits_after",
               "expected", "file", "next_file"]
CONTEXT_S = 10.0
MIN_EXPECTED = 5.0


class CommitTimes:
    """The commit instants of one binlog file, collected by the header pass."""

    __slots__ = ("file", "seconds", "micros")

    def __init__(self, file):
        self.file = file
        self.seconds = []     # XID header times (s): the committing statement's start
        self.micros = []      # GTID immediate_commit_timestamp (µs), when the server writes it


def _instants(commit_times):
    """(µs instants, file index per instant, resolution s) over all files, file order."""
    exact = any(c.micros for c in commit_times)
    vals, owner = [], []
    for i, c in enumerate(commit_times):
        got = c.micros if exact else [s * 1_000_000 for s in c.seconds]
        vals += got
        owner += [i] * len(got)
    t = np.asarray(vals, dtype=np.int64)
    o = np.asarray(owner, dtype=np.int64)
    order = np.argsort(t, kind="stable")
    return t[order], o[order], 0.0 if exact else 1.0


def commit_gaps(commit_times, min_gap_s=1.0, context_s=CONTEXT_S,
                min_expected=MIN_EXPECTED) -> pd.DataFrame:
    """Commit-free stretches of at least ``min_gap_s`` where commits were due.

    ``start``/``end``: the last commit before and the first after (µs data),
    or the first and last empty second (+1) for whole seconds; ``file`` and
    ``next_file``: the binlogs holding those commits."""
    t, owner, res = _instants(commit_times)
    rows = []
    if len(t) < 2:
        return _frame(rows)
    ctx = int(context_s * 1e6)
    for k in np.nonzero(np.diff(t) > 0)[0]:
        a, b = int(t[k]), int(t[k + 1])
        start, end = (a, b) if res == 0.0 else (a + 1_000_000, b)
        dur = (end - start) / 1e6
        if dur < min_gap_s:
            continue
        before = int(np.searchsorted(t, a, side="right") - np.searchsorted(t, a - ctx, side="left"))
        after = int(np.searchsorted(t, b + ctx, side="right") - np.searchsorted(t, b, side="left"))
        window = (min(ctx, a - int(t[0])) + min(ctx, int(t[-1]) - b)) / 1e6 + 2 * res
        if window <= 0:
            continue
        expected = (before + after) / window * dur
        if expected < min_expected:
            continue
        rows.append({"start": start, "end": end, "duration_s": dur, "time_res_s": res,
                     "commits_before": before, "commits_after": after,
                     "expected": round(expected, 1),
                     "file": commit_times[int(owner[k])].file,
                     "next_file": commit_times[int(owner[k + 1])].file})
    return _frame(rows)


def _frame(rows) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=GAP_COLUMNS)
    for col in ("start", "end"):
        df[col] = pd.to_datetime(df[col].astype("int64"), unit="us", utc=True)
    return df
