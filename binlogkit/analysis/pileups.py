"""Slow-log statements on a time line, and pile-ups: many statements released at once.

``statements_frame(paths, zone)`` parses slow logs (with
:class:`binlogkit.slowlog.parser.SlowlogParser`) into one row per statement:

=============  ===============================================================
start, end     ``datetime64[ns, UTC]``: earliest possible start and end
time_res_s     how much later the true instants may be: 1.0 when the log's
               time has whole seconds, 0.0 when it has microseconds
query_time,    seconds
lock_time
rows_examined  float (NaN when absent)
kind           category: ``write`` (INSERT/UPDATE/DELETE/REPLACE/LOAD/DDL...),
               ``commit`` (COMMIT, XA COMMIT), ``read`` (SELECT/SHOW...), ``other``
query          statement text (None below ``query_from_s`` when given)
file, line     where the entry starts (file is a category)
=============  ===============================================================

Which instant ``# Time`` is depends on the server.  MySQL writes the time it
logs the statement (its end).  MariaDB writes the statement's *start*
(``thd->start_time``, whole seconds): a 3 s INSERT blocked behind a binlog
rotation is logged with the ``# Time`` and ``SET timestamp`` of the second it
began.  So for MariaDB logs (a ``mariadbd``/``MariaDB`` header, or its
``QC_hit`` attribute) start = ``# Time`` and end = start + ``Query_time``; the
parser does that, and reads zone-less times in the server offset that the
entries' ``SET timestamp`` shows (:mod:`binlogkit.slowlog.clock`).

``find_pileups(statements)``: a pile-up is at least ``min_statements``
statements with ``Query_time >= min_latency`` (not counting ``SLEEP()``
calls, slow on purpose) that were released at one
instant R (their end intervals overlap) and whose starts (R - Query_time) fall
back to a common instant S (at least ``min_common`` of them start within
``start_window`` s of each other; S is the earliest such start).  That is the
footprint of a lock held from S to R: whoever needed it arrived during
[S, R] and left at R.  Columns: ``start`` (S), ``end`` (R), ``duration_s``,
``members`` (index labels of the statements), plus :func:`describe` columns.
"""
from __future__ import annotations

import re
from array import array

import numpy as np
import pandas as pd

from binlogkit.errors import SlowlogError
from binlogkit.slowlog.timeparse import in_range

__all__ = ["statements_frame", "find_pileups", "describe", "statement_kind", "slow_statements",
           "STATEMENT_COLUMNS", "PILEUP_COLUMNS"]

STATEMENT_COLUMNS = ["start", "end", "time_res_s", "query_time", "lock_time", "rows_examined",
                     "kind", "query", "file", "line"]
PILEUP_COLUMNS = ["start", "end", "duration_s", "queries", "writes", "commits", "reads",
                  "others", "max_query_time", "lock_share", "rows_examined_median",
                  "top_classes", "members"]

_FIRST_WORD = re.compile(rb"\s*(?:/\*.*?\*/\s*|--[^\n]*\n\s*|#[^\n]*\n\s*|\(\s*)*([A-Za-z]+)",
                         re.S)
_WORD = re.compile(rb"[A-Za-z]+")
_XA_COMMIT = re.compile(rb"\s*XA\s+COMMIT", re.I)
_WRITE = frozenset({b"INSERT", b"UPDATE", b"DELETE", b"REPLACE", b"LOAD", b"CREATE", b"ALTER",
                    b"DROP", b"TRUNCATE", b"RENAME", b"GRANT", b"REVOKE", b"CALL", b"OPTIMIZE"})
_READ = frozenset({b"SELECT", b"SHOW", b"DESCRIBE", b"DESC", b"EXPLAIN", b"WITH", b"VALUES",
                   b"TABLE", b"HANDLER"})


def statement_kind(query: bytes) -> str:
    """``write``, ``commit``, ``read`` or ``other`` from the statement's first word."""
    m = _WORD.match(query)                               # the usual case: no comment first
    if m:
        word = m.group(0).upper()
    else:
        m = _FIRST_WORD.match(query or b"")
        if not m:
            return "other"
        word = m.group(1).upper()
    if word in _WRITE:
        return "write"
    if word == b"COMMIT" or (word == b"XA" and _XA_COMMIT.match(query)):
        return "commit"
    if word in _READ:
        return "read"
    return "other"


# -- the statements frame -------------------------------------------------------------

def _times(entry):
    """(start_us, end_us, res_s) for one entry; None when the entry has no time.

    The parser gives one time base (binlogkit.slowlog.clock): zone-less times
    in the offset SET timestamp shows, MariaDB's ``# Time`` read as the start."""
    if entry.end_us is None:
        return None
    res = 0.0 if (entry.ts is not None and b"." in entry.ts) else 1.0
    qt_us = round((entry.query_time or 0.0) * 1e6)
    start = entry.start_us if entry.start_us is not None else entry.end_us - qt_us
    return _in_range(start, entry.end_us, res)


def _in_range(start, end, res):
    """An absurd time or Query_time is no time (the entry is skipped), not an overflow."""
    if in_range(start) is None or in_range(end) is None:
        return None
    return start, end, res


def statements_frame(paths, zone=None, min_end_us=None, stats=None,
                     query_from_s=None) -> pd.DataFrame:
    """Statements of the slow log(s) ``paths`` (columns in the module doc).

    ``zone``: the server's zone for zone-less times (name or ServerZone; None
    = local).  ``min_end_us`` drops statements that ended earlier.  ``stats``
    (a ParseStats) is filled in.  ``query_from_s`` keeps the text only of
    statements at least that slow (None for faster ones; saves memory on big
    logs).  Entries without any time are skipped.
    """
    from binlogkit.slowlog.parser import SlowlogParser
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    cols = _Columns()
    for path in paths:
        parser = SlowlogParser(path, zone=zone)
        for entry in parser:
            t = _times(entry)
            if t is None or (min_end_us is not None and t[1] < min_end_us):
                continue
            cols.add(entry, t, query_from_s)
        if stats is not None:
            stats.add(parser.stats)
    return cols.frame()


_KINDS = ("write", "commit", "read", "other")
_KIND_CODE = {k: i for i, k in enumerate(_KINDS)}


class _Columns:
    """Typed arrays while parsing (a list of Python objects per column costs ~10x)."""

    def __init__(self):
        self.i64 = {c: array("q") for c in ("start", "end", "line")}
        self.f64 = {c: array("d") for c in ("time_res_s", "query_time", "lock_time",
                                            "rows_examined")}
        self.kind = array("b")
        self.file = array("l")
        self.files = {}
        self.query = []

    def add(self, entry, t, query_from_s):
        start, end, res = t
        qt = entry.query_time or 0.0
        i64, f64 = self.i64, self.f64
        i64["start"].append(start)
        i64["end"].append(end)
        i64["line"].append(entry.line)
        f64["time_res_s"].append(res)
        f64["query_time"].append(qt)
        f64["lock_time"].append(entry.lock_time or 0.0)
        f64["rows_examined"].append(np.nan if entry.rows_examined is None
                                    else entry.rows_examined)
        self.kind.append(_KIND_CODE[statement_kind(entry.query)])
        self.file.append(self.files.setdefault(entry.file, len(self.files)))
        self.query.append(entry.query.decode("utf-8", "replace")
                          if query_from_s is None or qt >= query_from_s else None)

    def frame(self) -> pd.DataFrame:
        def np_of(a, dtype):
            return np.frombuffer(a, dtype=dtype) if len(a) else np.zeros(0, dtype)
        order = np.argsort(np_of(self.i64["end"], np.int64), kind="stable")
        data = {c: np_of(a, np.int64)[order] for c, a in self.i64.items()}
        data.update({c: np_of(a, np.float64)[order] for c, a in self.f64.items()})
        for c in ("start", "end"):
            data[c] = pd.to_datetime(data[c], unit="us", utc=True).astype("datetime64[ns, UTC]")
        data["kind"] = pd.Categorical.from_codes(np_of(self.kind, np.int8)[order],
                                                 categories=list(_KINDS))
        data["file"] = pd.Categorical.from_codes(np_of(self.file, np.int_)[order],
                                                 categories=list(self.files) or [""])
        data["query"] = np.asarray(self.query, dtype=object)[order]
        return pd.DataFrame(data, columns=STATEMENT_COLUMNS)


def seconds(series: pd.Series) -> np.ndarray:
    """datetime64[ns, UTC] values as float epoch seconds."""
    return series.to_numpy(dtype="datetime64[ns]").astype("int64") / 1e9


def check_statements(df: pd.DataFrame, names) -> None:
    if df.empty:
        raise SlowlogError("no slow-log entries with a time (is this a slow query log?)",
                           path=", ".join(map(str, names)))


# -- pile-ups ---------------------------------------------------------------------------

_SLEEPS = re.compile(r"\bsleep\s*\(", re.I)


def slow_statements(statements: pd.DataFrame, min_latency=0.5) -> pd.DataFrame:
    """Statements at least ``min_latency`` slow, except those slow on purpose (SLEEP())."""
    cand = statements[statements["query_time"] >= min_latency]
    if len(cand) and "query" in cand:
        asleep = cand["query"].map(lambda q: isinstance(q, str) and _SLEEPS.search(q) is not None)
        cand = cand[~asleep.astype(bool)]
    return cand


def _max_depth(lo: np.ndarray, hi: np.ndarray):
    """The region covered by the most intervals [lo, hi]: (depth, a, b)."""
    points = np.concatenate([lo, hi])
    delta = np.concatenate([np.ones(len(lo)), -np.ones(len(hi))])
    order = np.lexsort((-delta, points))          # at a tie, open before close
    depth = np.cumsum(delta[order])
    k = int(np.argmax(depth))
    return int(depth[k]), points[order][k], points[order][k + 1]


def _common_start(starts: np.ndarray, window: float):
    """(earliest start of the densest ``window``, how many start in it)."""
    s = np.sort(starts)
    counts = np.searchsorted(s, s + window, side="right") - np.arange(len(s))
    k = int(np.argmax(counts))
    return s[k], int(counts[k])


def _chains(end_lo: np.ndarray, gap: float):
    """Split sorted end times where consecutive ones are more than ``gap`` apart."""
    cuts = np.nonzero(np.diff(end_lo) > gap)[0] + 1
    return np.split(np.arange(len(end_lo)), cuts)


def find_pileups(statements: pd.DataFrame, min_latency=0.5, min_statements=3, min_common=2,
                 start_window=0.5, release_slack=0.05, min_duration=0.5) -> pd.DataFrame:
    """Pile-ups in ``statements`` (a statements_frame); see the module doc."""
    cand = slow_statements(statements, min_latency)
    if len(cand) < min_statements:
        return pileup_frame([], statements)
    end_lo = seconds(cand["end"])
    order = np.argsort(end_lo, kind="stable")
    labels = cand.index.to_numpy()[order]
    end_lo = end_lo[order]
    end_hi = end_lo + cand["time_res_s"].to_numpy()[order]
    qt = cand["query_time"].to_numpy()[order]
    found = []
    for chain in _chains(end_lo, 1.0 + release_slack):
        found.extend(_piles_in_chain(chain, end_lo, end_hi, qt, labels, min_statements,
                                     min_common, start_window, release_slack, min_duration))
    found.sort(key=lambda p: p[0])
    return pileup_frame(found, statements)


def _piles_in_chain(idx, end_lo, end_hi, qt, labels, min_statements, min_common,
                    start_window, slack, min_duration):
    out = []
    pool = idx
    while len(pool) >= min_statements:
        lo, hi = end_lo[pool] - slack, end_hi[pool] + slack
        depth, a, b = _max_depth(lo, hi)
        if depth < min_statements:
            break
        inside = (lo <= a) & (hi >= b)
        members = pool[inside]
        pool = pool[~inside]
        release = (a + b) / 2
        start, common = _common_start(release - qt[members], start_window)
        if common >= min_common and release - start >= min_duration:
            out.append((start, release, labels[members]))
    return out


def pileup_frame(found, statements) -> pd.DataFrame:
    """One PILEUP_COLUMNS row per (start, end, member labels) of `found`."""
    rows = []
    for start, end, members in found:
        row = {"start": start, "end": end, "duration_s": round(end - start, 3),
               "members": list(members)}
        row.update(describe(statements.loc[members]))
        rows.append(row)
    df = pd.DataFrame(rows, columns=PILEUP_COLUMNS)
    for col in ("start", "end"):
        df[col] = pd.to_datetime(df[col].astype("float64") * 1e6, unit="us", utc=True)
    return df


def describe(members: pd.DataFrame, top=3) -> dict:
    """Counts by kind, latency, lock share, rows examined and top query classes."""
    from binlogkit.slowlog.fingerprint import fingerprint, query_id
    kinds = members["kind"].value_counts()
    qt_sum = float(members["query_time"].sum())
    classes = {}
    for q in members["query"]:
        fp = fingerprint(q)
        classes[fp] = classes.get(fp, 0) + 1
    ranked = sorted(classes.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {
        "queries": int(len(members)),
        "writes": int(kinds.get("write", 0)), "commits": int(kinds.get("commit", 0)),
        "reads": int(kinds.get("read", 0)), "others": int(kinds.get("other", 0)),
        "max_query_time": float(members["query_time"].max()) if len(members) else 0.0,
        "lock_share": float(members["lock_time"].sum()) / qt_sum if qt_sum > 0 else 0.0,
        "rows_examined_median": float(members["rows_examined"].median()) if len(members) else 0.0,
        "top_classes": [{"fingerprint": fp, "count": n, "id": query_id(fp)} for fp, n in ranked],
    }
