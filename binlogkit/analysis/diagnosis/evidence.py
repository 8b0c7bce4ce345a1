"""The evidence of one run as frames: what the logs show, before it becomes the
shared timeline's records (:mod:`binlogkit.diagnosis.timeline`, via
:mod:`binlogkit.analysis.diagnosis.records`).

* ``waits_frame``: *waiting work*, one interval per statement or transaction
  that waited: ``start``, ``end`` (UTC), ``source`` (``slow log`` or
  ``binlog``), ``kind`` (write/commit/read/other), ``lock_time``.  From the
  slow log: writes and COMMITs at least ``min_wait`` s slow (start = end -
  Query_time; not ``SLEEP()``).  From MySQL binlogs: transactions whose commit
  timestamp (GTID ``immediate_commit_timestamp``, µs) is at least ``min_wait``
  s after the end of the whole second their statement began in (the GTID
  event's header time): a statement blocked by FLUSH TABLES WITH READ LOCK
  shows here even with Lock_time 0 and with no slow log at all.  From Query
  events of either server: ``exec_time`` of a second or more (a
  statement-format write, as MariaDB's default MIXED format logs an INSERT,
  held by a lock).  ``binlogkit watch`` makes the same waits online
  (:mod:`binlogkit.watch.diagnosis`).
* ``restart_windows``: binlog files created at a server start, with their down
  window;
* ``commit_instants``: every commit instant.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from binlogkit.analysis.pileups import slow_statements

from binlogkit.diagnosis.timeline import MIN_WAIT_S, RESTART_AFTER_S

__all__ = ["waits_frame", "binlog_waits", "restart_windows", "commit_instants",
           "WAIT_COLUMNS", "MIN_WAIT_S"]

WAIT_COLUMNS = ["start", "end", "source", "kind", "lock_time", "query_time"]
_WAITERS = ("write", "commit")


def _ts(values_us) -> pd.Series:
    return pd.to_datetime(np.asarray(values_us, dtype="int64"), unit="us", utc=True)


def binlog_waits(commit_times, min_wait=MIN_WAIT_S) -> pd.DataFrame:
    """Transactions of MySQL binlogs that waited to commit (module doc)."""
    starts, ends = [], []
    for c in commit_times or ():
        s = np.asarray(getattr(c, "starts", []), dtype="int64")
        e = np.asarray(c.micros, dtype="int64")
        if len(s) != len(e) or not len(e):
            continue
        late = e - (s + 1) * 1_000_000 >= int(min_wait * 1e6)
        starts.append(s[late] * 1_000_000)
        ends.append(e[late])
    if not starts:
        return pd.DataFrame(columns=WAIT_COLUMNS)
    s, e = np.concatenate(starts), np.concatenate(ends)
    # query_time: at least this long (the statement began at the latest at the end of its second)
    return pd.DataFrame({"start": _ts(s), "end": _ts(e), "source": "binlog", "kind": "commit",
                         "lock_time": 0.0,
                         "query_time": (e - s - 1_000_000) / 1e6})[WAIT_COLUMNS]


def query_waits(commit_times, min_wait=MIN_WAIT_S) -> pd.DataFrame:
    """Query events logged at least a second after their statement began
    (``exec_time``, whole seconds): statement-format writes (MariaDB's default
    MIXED format logs an INSERT so) held by a lock, DDL, a BEGIN created late."""
    # whole seconds: an exec_time of e says the statement took more than e - 1 s
    rows = [(w, e) for c in commit_times or () for w, e in getattr(c, "queries", ())
            if e - 1 >= min_wait]
    if not rows:
        return pd.DataFrame(columns=WAIT_COLUMNS)
    w = np.asarray([r[0] for r in rows], dtype="int64")
    e = np.asarray([r[1] for r in rows], dtype="int64")
    return pd.DataFrame({"start": _ts(w * 1_000_000), "end": _ts((w + e + 1) * 1_000_000),
                         "source": "binlog", "kind": "write", "lock_time": 0.0,
                         "query_time": (e - 1).astype("float64")})[WAIT_COLUMNS]


def waits_frame(statements, commit_times=None, min_wait=MIN_WAIT_S) -> pd.DataFrame:
    """All waiting work of the slow log and the binlogs, by start."""
    parts = []
    if statements is not None and len(statements):
        slow = slow_statements(statements, min_wait)
        slow = slow[slow["kind"].astype(str).isin(_WAITERS)]
        if len(slow):
            end = slow["end"] + pd.to_timedelta(slow["time_res_s"], unit="s")  # the latest
            parts.append(pd.DataFrame({"start": slow["start"], "end": end,
                                       "source": "slow log",
                                       "kind": slow["kind"].astype(str),
                                       "lock_time": slow["lock_time"],
                                       "query_time": slow["query_time"]}))
    for got in (binlog_waits(commit_times, min_wait), query_waits(commit_times, min_wait)):
        if len(got):
            parts.append(got)
    if not parts:
        return pd.DataFrame(columns=WAIT_COLUMNS)
    out = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return out.sort_values("start", kind="stable").reset_index(drop=True)


def commit_instants(commit_times) -> np.ndarray:
    """Every commit instant (epoch µs, sorted): GTID commit timestamps where the
    binlogs have them, else the XID events' whole seconds."""
    exact = any(c.micros for c in commit_times or ())
    vals = [np.asarray(c.micros if exact else c.seconds, dtype="int64") * (1 if exact else 1_000_000)
            for c in commit_times or ()]
    vals = [v for v in vals if len(v)]
    return np.sort(np.concatenate(vals)) if vals else np.zeros(0, dtype="int64")


def restart_windows(files, restarts) -> pd.DataFrame:
    """``restarts`` with ``down_from`` (the previous file's last instant on the
    server's clock) and ``down_to`` (the new file's creation + a little)."""
    rs = restarts.copy() if restarts is not None else pd.DataFrame(
        columns=["file", "at", "previous_end"])
    down_from = []
    names = list(files["file"]) if files is not None and len(files) else []
    for _, r in rs.iterrows():
        i = names.index(r["file"]) if r["file"] in names else -1
        prev = files.iloc[i - 1] if i > 0 else None
        last = pd.NaT
        if prev is not None:
            last = prev["clock_last"] if pd.notna(prev["clock_last"]) else prev["last_event"]
        down_from.append(last if pd.notna(last) else r["at"])
    rs["down_from"] = pd.to_datetime(pd.Series(down_from, index=rs.index, dtype="object"),
                                     utc=True)
    rs["down_to"] = pd.to_datetime(rs["at"], utc=True) + pd.Timedelta(seconds=RESTART_AFTER_S)
    return rs
