"""Binlog rotations from a header-only pass over binlog files.

``scan_binlog(path)`` reads one file event by event, looking at the common
header only (plus the format description, the ROTATE event's target name, and
MySQL GTID events when the decoder gives their commit timestamps):

==================  ==========================================================
file, path          base name and the path as given
size_bytes          file size
first_event,        header times (UTC) of the first and last event; header
last_event          times are statement starts with one-second resolution
events              number of events
server_version      from the format description event (FDE)
created             FDE ``created`` as a time, NaT when 0.  Non-zero means the
                    server wrote this file at start-up (a restart); 0 means
                    the file was opened by a rotation
in_use              the FDE's LOG_EVENT_BINLOG_IN_USE flag: the file was not
                    closed (the live file, or a crash)
rotate_to,          ROTATE event: next file name and header time (the start of
rotated_at          the statement whose commit filled the file)
stopped             the file ends in a STOP event (clean shutdown)
first_commit,       MySQL 8: first/last GTID immediate_commit_timestamp (µs);
last_commit         NaT for MariaDB and older MySQL
max_commit_gap_s    MySQL 8: largest gap between consecutive commit timestamps
max_commit_group    MySQL 5.7+: most transactions sharing one last_committed
clock_first,        the file's span on the server's clock: header times a
clock_last,         client set (``SET TIMESTAMP``) left out, see
clock_outliers      :mod:`binlogkit.analysis.fileclock`; events outside it
truncated_at        the last file of a sequence cut inside an event (being
                    written, or copied while it was): the offset where the
                    cut event starts; the file is read up to there
==================  ==========================================================

``rotated_at`` is the ROTATE event's header time, or the file's ``clock_last``
when that time is a client's (outside the file's clock span).

``rotations_frame(paths)`` gives that table for several files (in binlog
order), and ``rotations_table(files)`` one row per rotation: ``from_file``,
``to_file``, ``at``, ``size_bytes``, ``opened_at`` (``clock_first``),
``lifetime_s`` (never negative), ``next_given`` (the next file is among the
inputs), ``next_opened_at`` (its ``clock_first``), ``missing_before`` (files of the sequence absent
between this file and the previous one given: purged, or not supplied),
``restart_after`` (the next file was created at a server start), and with
MySQL 8 ``commit_gap_s`` (first commit of the next file minus last commit of
this one: an upper bound on how long the rotation blocked commits).  A file
opened by a rotation (FDE ``created`` 0) whose predecessor was not given
still yields a row, ``inferred`` True: ``at`` is its FDE time (the same
statement-start second as the ROTATE event), ``size_bytes`` is <NA>.
"""
from __future__ import annotations

import datetime
import os
import re

import pandas as pd

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.analysis.commitgaps import CommitTimes
from binlogkit.analysis.fileclock import SLACK_S, FileTimes, clock_spans
from binlogkit.errors import BinlogError, BinlogkitError, TruncatedEventError

__all__ = ["scan_binlog", "rotations_frame", "rotations_table", "binlog_sort_key",
           "restarts", "FILE_COLUMNS", "ROTATION_COLUMNS"]

FILE_COLUMNS = ["file", "path", "size_bytes", "first_event", "last_event", "events",
                "server_version", "created", "in_use", "rotate_to", "rotated_at", "stopped",
                "first_commit", "last_commit", "max_commit_gap_s", "max_commit_group",
                "clock_first", "clock_last", "clock_outliers", "truncated_at"]
ROTATION_COLUMNS = ["from_file", "to_file", "at", "size_bytes", "opened_at", "lifetime_s",
                    "next_given", "next_opened_at", "missing_before", "restart_after",
                    "commit_gap_s", "inferred"]

_GTID_CODES = frozenset({L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT,
                         getattr(L, "GTID_TAGGED_LOG_EVENT", 42)})
_SEQ = re.compile(r"^(.*)\.(\d+)$")
MAX_EXEC_S = 3600            # a larger Query exec_time is a client's SET TIMESTAMP, not a wait
_UTC = datetime.timezone.utc


def binlog_sort_key(name: str):
    """(base, sequence number) so that mariadb-bin.000010 sorts after .000009."""
    m = _SEQ.match(os.path.basename(str(name)))
    if not m:
        return (os.path.basename(str(name)), -1)
    return (m.group(1), int(m.group(2)))


def _ts(seconds):
    if seconds is None:
        return pd.NaT
    return pd.Timestamp(datetime.datetime.fromtimestamp(seconds, tz=_UTC))


def _us_ts(us):
    return pd.Timestamp(us, unit="us", tz="UTC") if us else pd.NaT


class _CommitClock:
    """MySQL 8 GTID commit timestamps and commit-group sizes of one file."""

    __slots__ = ("first", "last", "max_gap", "group_key", "group_size", "max_group")

    def __init__(self):
        self.first = self.last = None
        self.max_gap = 0.0
        self.group_key = None
        self.group_size = self.max_group = 0

    def add(self, body):
        ict = getattr(body, "immediate_commit_timestamp", None)
        if ict:
            if self.last is not None:
                self.max_gap = max(self.max_gap, (ict - self.last) / 1e6)
            if self.first is None:
                self.first = ict
            self.last = ict
        key = getattr(body, "last_committed", None)
        if key is not None:
            self.group_size = self.group_size + 1 if key == self.group_key else 1
            self.group_key = key
            self.max_group = max(self.max_group, self.group_size)


def _gtid_body(raw, fde):
    """The decoded MySQL GTID body, or None when no decoder for it is loaded."""
    try:
        body = decode_event(raw, fde)
    except BinlogkitError:
        return None
    return None if type(body).__name__ == "UnknownBody" else body


def scan_binlog(path, partial_ok=False, times=None, commits=None) -> dict:
    """One row of the per-file table (see the module doc) for binlog ``path``.

    ``partial_ok``: a file cut short inside an event (being written, or copied
    while it was) is read up to its last complete event and ``truncated_at``
    says where; otherwise that is a BinlogError.  ``times`` (a FileTimes) and
    ``commits`` (a CommitTimes) collect event times and commit instants when given."""
    row = {"file": os.path.basename(str(path)), "path": str(path), "events": 0,
           "rotate_to": None, "rotated_at": pd.NaT, "stopped": False, "truncated_at": pd.NA}
    try:
        row["size_bytes"] = os.path.getsize(path)
    except OSError as exc:
        raise BinlogError(f"cannot read: {exc.strerror}", path=str(path), offset=0) from None
    state = {"fde": False, "rotate_when": None}
    clock = _CommitClock()
    times = FileTimes() if times is None else times
    with BinlogReader(path, exact_v1=True) as reader:
        reader.read_magic()
        reader.check_start_v3()     # a 3.23-4.1 log (v1/v3) starts with Start_v3
        try:
            first, last = _scan_events(reader, row, state, clock, times, commits)
        except _Truncated as cut:
            exc, first, last = cut.args
            if not partial_ok or not state["fde"]:
                raise exc from None
            row["truncated_at"] = exc.offset
    if not state["fde"]:
        raise BinlogError("no format description event: not a v4 binary log", path=str(path),
                          offset=4)
    row.update(first_event=_ts(first), last_event=_ts(last),
               first_commit=_us_ts(clock.first), last_commit=_us_ts(clock.last),
               max_commit_gap_s=clock.max_gap if clock.first else float("nan"),
               max_commit_group=clock.max_group or pd.NA, rotate_when=state["rotate_when"])
    return row


class _Truncated(Exception):
    """(TruncatedEventError, first time, last time) of a file cut inside an event."""


_RARE = frozenset({L.FORMAT_DESCRIPTION_EVENT, L.QUERY_EVENT, L.ROTATE_EVENT, L.STOP_EVENT}
                  | _GTID_CODES)


def _scan_events(reader, row, state, clock, times, commits):
    """The header pass (one tight loop; rare events in _scan_event); returns the
    first event's time and the latest one."""
    n = 0
    prev = run_start = None
    first = last = None
    xids = commits.seconds if commits is not None else None
    xid, rare = L.XID_EVENT, _RARE
    try:
        for raw in reader.events():
            when = raw.when
            if when != prev:
                if prev is not None:
                    times.add_run(prev, n - run_start, run_start, n - 1)
                    if last is None or prev > last:
                        last = prev
                else:
                    first = when
                prev, run_start = when, n
            code = raw.type_code
            if code == xid:
                if xids is not None:
                    xids.append(when)
            elif code in rare:
                _scan_event(raw, reader, row, state, clock, times, commits, n)
            n += 1
    except TruncatedEventError as exc:
        _close_run(times, prev, run_start, n, row)
        raise _Truncated(exc, first, prev if last is None or prev > last else last) from None
    _close_run(times, prev, run_start, n, row)
    return first, (prev if last is None or (prev is not None and prev > last) else last)


def _close_run(times, prev, run_start, n, row):
    if prev is not None:
        times.add_run(prev, n - run_start, run_start, n - 1)
    times.n = n
    row["events"] = n


def _scan_event(raw, reader, row, state, clock, times, commits, index):
    when = raw.when
    code = raw.type_code
    if code == L.FORMAT_DESCRIPTION_EVENT and not state["fde"]:
        state["fde"] = True
        row["server_version"] = reader.fde.server_version.decode("ascii", "replace")
        row["created"] = _ts(reader.fde.created or None)
        row["in_use"] = bool(reader.fde.flags & L.LOG_EVENT_BINLOG_IN_USE_F)
        times.add_trusted(reader.fde.created, index)
    elif code == L.QUERY_EVENT and len(raw.data) >= 27:
        exec_time = int.from_bytes(raw.data[23:27], "little")
        times.add_query(when, exec_time, index)
        if commits is not None and 1 <= exec_time <= MAX_EXEC_S:
            commits.queries.append((when, exec_time))
    elif code == L.ROTATE_EVENT and index > 0:
        body = decode_event(raw, reader.fde)
        row["rotate_to"] = bytes(body.new_log_ident).decode("utf-8", "replace")
        row["rotated_at"] = _ts(when)
        state["rotate_when"] = when
    elif code == L.STOP_EVENT:
        row["stopped"] = True
        times.add_trusted(when, index)
    elif code in _GTID_CODES:
        body = _gtid_body(raw, reader.fde)
        if body is not None:
            clock.add(body)
            if commits is not None and getattr(body, "immediate_commit_timestamp", None):
                commits.micros.append(int(body.immediate_commit_timestamp))
                commits.starts.append(when)


def rotations_frame(paths, commits=None) -> pd.DataFrame:
    """One row per binlog file, in binlog order (columns in the module doc).

    The last file of each sequence may be cut short (the live file): it is
    read to its last complete event (``truncated_at``).  ``commits``: a list,
    filled with each file's CommitTimes (see :mod:`binlogkit.analysis.commitgaps`)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    paths = sorted(paths, key=lambda p: binlog_sort_key(str(p)))
    groups = [binlog_sort_key(str(p))[0] for p in paths]
    rows, times = [], []
    for i, p in enumerate(paths):
        t = FileTimes()
        last_of_group = i + 1 == len(paths) or groups[i + 1] != groups[i]
        got = None
        if commits is not None:
            got = CommitTimes(os.path.basename(str(p)))
            commits.append(got)
        rows.append(scan_binlog(p, partial_ok=last_of_group, times=t, commits=got))
        times.append(t)
    _clock_columns(rows, clock_spans(times, groups))
    df = pd.DataFrame(rows, columns=FILE_COLUMNS)
    for col in ("first_event", "last_event", "created", "rotated_at", "first_commit",
                "last_commit", "clock_first", "clock_last"):
        df[col] = pd.to_datetime(df[col], utc=True)
    for col in ("max_commit_group", "truncated_at", "clock_outliers"):
        df[col] = df[col].astype("Int64")
    return df


def _clock_columns(rows, spans):
    """clock_first/last/outliers from the spans; rotated_at where the ROTATE
    event's time is a client's (outside the file's clock span): the span's end."""
    for row, span in zip(rows, spans):
        when = row.pop("rotate_when")
        if span is None:
            row.update(clock_first=pd.NaT, clock_last=pd.NaT, clock_outliers=row["events"])
            continue
        lo, hi, outliers = span
        row.update(clock_first=_ts(lo), clock_last=_ts(hi), clock_outliers=outliers)
        if when is not None and not (lo - SLACK_S <= when <= hi + SLACK_S):
            row["rotated_at"] = _ts(hi)


def _missing_between(prev_name, name):
    """Names of the sequence files between two given files (purged or not given)."""
    if prev_name is None:
        return []
    (b0, s0), (b1, s1) = binlog_sort_key(prev_name), binlog_sort_key(name)
    if b0 != b1 or s0 < 0 or s1 - s0 <= 1:
        return []
    width = len(_SEQ.match(name).group(2))
    return [f"{b1}.{n:0{width}d}" for n in range(s0 + 1, s1)]


def rotations_table(files: pd.DataFrame) -> pd.DataFrame:
    """One row per ROTATE event of the per-file table ``files`` (module doc)."""
    by_name = {f: i for i, f in enumerate(files["file"])}
    rows = []
    prev = None
    for _, f in files.iterrows():
        missing = _missing_between(prev, f["file"])
        inferred = _inferred(f, prev, files, by_name)
        if inferred:
            rows.append(inferred)
        prev = f["file"]
        if not isinstance(f["rotate_to"], str):
            continue
        j = by_name.get(f["rotate_to"])
        nxt = files.iloc[j] if j is not None else None
        gap = float("nan")
        if nxt is not None and pd.notna(f["last_commit"]) and pd.notna(nxt["first_commit"]):
            gap = (nxt["first_commit"] - f["last_commit"]).total_seconds()
        opened = _opened(f)
        rows.append({
            "from_file": f["file"], "to_file": f["rotate_to"], "at": f["rotated_at"],
            "size_bytes": int(f["size_bytes"]), "opened_at": opened,
            "lifetime_s": _lifetime(opened, f["rotated_at"]),
            "next_given": nxt is not None,
            "next_opened_at": _opened(nxt) if nxt is not None else pd.NaT,
            "missing_before": missing,
            "restart_after": bool(nxt is not None and pd.notna(nxt["created"])),
            "commit_gap_s": gap, "inferred": False,
        })
    df = pd.DataFrame(rows, columns=ROTATION_COLUMNS)
    for col in ("at", "opened_at", "next_opened_at"):
        df[col] = pd.to_datetime(df[col], utc=True)
    df["size_bytes"] = df["size_bytes"].astype("Int64")
    return df


def _opened(f):
    """When the file was opened, on the server's clock (its clock span's start)."""
    got = f["clock_first"] if "clock_first" in f else pd.NaT
    return got if pd.notna(got) else f["first_event"]


def _lifetime(opened, at):
    if pd.isna(opened) or pd.isna(at):
        return float("nan")
    return max((at - opened).total_seconds(), 0.0)


def _predecessor(name):
    base, seq = binlog_sort_key(name)
    if seq <= 1:
        return None
    width = len(_SEQ.match(os.path.basename(name)).group(2))
    return f"{base}.{seq - 1:0{width}d}"


def _inferred(f, prev, files, by_name):
    """A rotation into file ``f`` whose predecessor was not given (or has no ROTATE)."""
    if pd.notna(f["created"]) or pd.isna(_opened(f)):
        return None
    before = _predecessor(f["file"])
    if before is None:
        return None
    i = by_name.get(before)
    if i is not None and isinstance(files.iloc[i]["rotate_to"], str):
        return None
    return {"from_file": before, "to_file": f["file"], "at": _opened(f),
            "size_bytes": pd.NA, "opened_at": pd.NaT, "lifetime_s": float("nan"),
            "next_given": True, "next_opened_at": _opened(f), "missing_before": [],
            "restart_after": False,
            "commit_gap_s": float("nan"), "inferred": True}


def restarts(files: pd.DataFrame) -> pd.DataFrame:
    """Files written at a server start (FDE ``created`` set), with how the one before ended."""
    out = []
    for i in range(len(files)):
        f = files.iloc[i]
        if pd.isna(f["created"]):
            continue
        before = files.iloc[i - 1] if i > 0 else None
        how = None
        if before is not None:
            how = "clean shutdown" if before["stopped"] else (
                "crash (previous file still marked in use)" if before["in_use"] else
                "crash (no STOP event)")     # MySQL's recovery clears the in-use flag
        out.append({"file": f["file"], "at": f["created"], "previous_end": how})
    return pd.DataFrame(out, columns=["file", "at", "previous_end"])


def covered_span(files):
    """(first, last) instant the binlogs of a rotations_frame cover on the server's clock
    (client-set event times left out, see binlogkit.analysis.fileclock); None without files."""
    if files is None or not len(files):
        return None
    first = files["clock_first"].where(files["clock_first"].notna(), files["first_event"])
    last = files["clock_last"].where(files["clock_last"].notna(), files["last_event"])
    return first.min(), last.max()
