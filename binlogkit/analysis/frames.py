"""Binary logs and slow logs as typed pandas DataFrames.

``events_frame(paths)``: one row per event, file order.

============================  ===================  ==========================================
column                        dtype                meaning
============================  ===================  ==========================================
file                          category             the binlog file, as given
pos, end_pos                  int64                byte offset of the event and just past it
timestamp                     datetime64[ns, UTC]  header time, plus the microseconds a Query
                                                   event carries (MariaDB Q_HRNOW)
type                          category             event type name (``Query``, ``Gtid``,
                                                   ``Write_rows_v1``..., as mariadb-binlog)
type_code                     uint8                event type code
server_id                     int64                originating server
bytes                         int64                event size, header and checksum included
db, table                     string               Query default db; Table_map db/table,
                                                   copied onto the rows events using it
rows                          Int64                rows in a rows event (as print_row_count)
gtid                          string               GTID of the transaction the event is in
                                                   (``domain-server-seq`` or ``uuid:gno``)
xid                           UInt64               Xid event (and DDL logged with an xid)
exec_time, thread_id,         Int64                Query event post-header (thread_id also
error_code                                         from a MariaDB GTID event that has it)
original_commit_timestamp,    datetime64[ns, UTC]  MySQL 8 GTID events; NaT when absent
immediate_commit_timestamp
transaction_length            Int64                MySQL 8 GTID events; <NA> when absent
query                         string               only with ``query=True``: Query and
                                                   Annotate_rows / Rows_query text
============================  ===================  ==========================================

``transactions_frame(paths)``: one row per transaction (GTID group, BEGIN..COMMIT, or a lone
statement): ``file`` (category), ``start_pos``/``end_pos`` (int64), ``start``/``commit``
(datetime64[ns, UTC]: first and last event), ``duration`` (timedelta64[ns]), ``kind`` (category:
commit, rollback, ddl, statement, xa_prepare, incomplete), ``gtid`` (string), ``domain_id``
(Int64, MariaDB), ``server_id`` (int64), ``seq_no`` (UInt64: MariaDB seq_no or MySQL gno),
``events``/``bytes`` (int64), ``rows`` (Int64), ``tables`` (string, ``db.table`` comma list),
``xid`` (UInt64), ``thread_id``/``exec_time`` (Int64: first thread id, longest exec_time), and the
MySQL 8 ``original_commit_timestamp``/``immediate_commit_timestamp``/``transaction_length``.

A MySQL 8 compressed transaction (``Transaction_payload``) is one event row here: the events
inside the payload are not expanded (its transaction ends there, ``kind`` commit).

``rotations_frame(paths)``: one row per binlog file (see `binlogkit.analysis.rotations`).
``slowlog_frame(paths)``: slow-log entries (see `binlogkit.analysis.slowlog_frame`).
``stalls_frame(binlogs, slowlogs)``: one row per write stall, with its cause, as
``binlogkit report`` finds them (see `binlogkit.analysis.stalls`).

Files are read in chunks of ``chunk_size`` events; memory holds the typed columns, not the
events.  A progress bar (tqdm) is shown on long reads when stderr is a terminal or in Jupyter.
An empty list of files gives an empty frame with these columns; an unreadable or malformed
file raises `binlogkit.errors.BinlogError` naming the file and byte offset.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from binlogkit.analysis import accessor as _accessor  # noqa: F401  (registers df.binlogkit)
from binlogkit.analysis.commitgaps import gaps_at_rotations
from binlogkit.analysis.pileups import statements_frame
from binlogkit.analysis.progress import progress_bar
from binlogkit.analysis.records import (
    EVENT_FIELDS, TRANSACTION_FIELDS, chunked, event_rows, transaction_rows,
)
from binlogkit.analysis.rotations import covered_span, restarts, rotations_table
from binlogkit.analysis.stalls import find_stalls
from binlogkit.binlog.layout import TYPE_NAMES
from binlogkit.slowlog.clock import warn_zone
from binlogkit.slowlog.parser import ParseStats

__all__ = ["events_frame", "transactions_frame", "rotations_frame", "slowlog_frame",
           "stalls_frame", "events_chunks", "transactions_chunks", "file_frame", "empty_frame",
           "EVENT_DTYPES", "TRANSACTION_DTYPES", "TYPE_DTYPE", "KIND_DTYPE"]

CHUNK_SIZE = 100_000
UTC_NS = "datetime64[ns, UTC]"
_NAT = np.iinfo(np.int64).min

_TYPE_CATEGORIES = sorted(set(TYPE_NAMES.values())) + ["Unknown"]
TYPE_DTYPE = pd.CategoricalDtype(_TYPE_CATEGORIES)
_TYPE_INDEX = np.full(256, len(_TYPE_CATEGORIES) - 1, dtype=np.int16)
for _code, _name in TYPE_NAMES.items():
    _TYPE_INDEX[_code] = _TYPE_CATEGORIES.index(_name)
KIND_DTYPE = pd.CategoricalDtype(["commit", "rollback", "ddl", "statement", "xa_prepare",
                                  "incomplete"])

# column -> dtype of the frames (the file column is a category of the files read)
EVENT_DTYPES = {
    "file": "category", "pos": "int64", "end_pos": "int64", "timestamp": UTC_NS,
    "type": TYPE_DTYPE, "type_code": "uint8", "server_id": "int64", "bytes": "int64",
    "db": "string", "table": "string", "rows": "Int64", "gtid": "string", "xid": "UInt64",
    "exec_time": "Int64", "thread_id": "Int64", "error_code": "Int64",
    "original_commit_timestamp": UTC_NS, "immediate_commit_timestamp": UTC_NS,
    "transaction_length": "Int64",
}
TRANSACTION_DTYPES = {
    "file": "category", "start_pos": "int64", "end_pos": "int64", "start": UTC_NS,
    "commit": UTC_NS, "duration": "timedelta64[ns]", "kind": KIND_DTYPE, "gtid": "string",
    "domain_id": "Int64", "server_id": "int64", "seq_no": "UInt64", "events": "int64",
    "rows": "Int64", "bytes": "int64", "tables": "string", "xid": "UInt64",
    "thread_id": "Int64", "exec_time": "Int64", "original_commit_timestamp": UTC_NS,
    "immediate_commit_timestamp": UTC_NS, "transaction_length": "Int64",
}
_TIME_COLUMNS = {"timestamp", "start", "commit", "original_commit_timestamp",
                 "immediate_commit_timestamp"}


def paths_list(paths):
    """A list of path strings from one path or an iterable of them."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        return [os.fsdecode(paths)]
    return [os.fsdecode(p) for p in paths]


def _times(values):
    """Epoch microseconds (None allowed) to a tz-aware UTC nanosecond array."""
    try:
        us = np.fromiter(values, dtype=np.int64, count=len(values))
        if len(us) and (us.min() < _MIN_US or us.max() >= _MAX_US):
            raise OverflowError
        ns = us * 1000
    except (TypeError, OverflowError):     # None, or a corrupt time pandas cannot hold: NaT
        ns = np.array([v * 1000 if v is not None and _MIN_US <= v < _MAX_US else _NAT
                       for v in values], dtype=np.int64)
    return pd.DatetimeIndex(ns.view("datetime64[ns]")).tz_localize("UTC")


_MIN_US, _MAX_US = -(1 << 63) // 1000 + 1, (1 << 63) // 1000
_INT_RANGES = {"Int64": (-(1 << 63), 1 << 63), "UInt64": (0, 1 << 64)}


def _nullable_ints(values, dtype):
    """pd.array of a nullable integer dtype; a value out of its range is <NA>."""
    try:
        with np.errstate(invalid="ignore"):
            return pd.array(values, dtype=dtype)
    except (OverflowError, TypeError, ValueError):
        low, high = _INT_RANGES[dtype]
        return pd.array([v if v is not None and low <= v < high else None for v in values],
                        dtype=dtype)


def _column(name, dtype, values):
    if name in _TIME_COLUMNS:
        return _times(values)
    if dtype in ("int64", "uint8"):
        return np.fromiter(values, dtype=dtype, count=len(values))
    if dtype in ("Int64", "UInt64"):
        return _nullable_ints(values, dtype)
    if dtype == "string":
        return pd.array(values, dtype="string")
    if dtype is KIND_DTYPE:
        return pd.Categorical(values, dtype=KIND_DTYPE)
    raise AssertionError(f"no converter for {name}: {dtype}")


def _file_dtype(files):
    return pd.CategoricalDtype(list(dict.fromkeys(files)))


def _rows_frame(rows, fields, dtypes, file, file_dtype, query=False):
    """A typed DataFrame from row tuples of one file (plus the query text column)."""
    n = len(rows)
    cols = list(zip(*rows)) if rows else [()] * len(fields)
    data = {"file": pd.Categorical([file] * n, dtype=file_dtype)}
    by_name = dict(zip(fields, cols))
    for name, dtype in dtypes.items():
        if name == "file":
            continue
        if name == "type":
            codes = np.fromiter(by_name["type_code"], dtype=np.uint8, count=n)
            data[name] = pd.Categorical.from_codes(_TYPE_INDEX[codes], dtype=TYPE_DTYPE)
        elif name == "duration":
            data[name] = data["commit"] - data["start"]
        elif name in by_name:
            data[name] = _column(name, dtype, by_name[name])
    if query:
        data["query"] = pd.array(by_name.get("query", ()), dtype="string")
    return pd.DataFrame(data, index=pd.RangeIndex(n))


def empty_frame(what="events", query=False):
    """The frame of `what` (events, transactions) with no rows: right columns and dtypes."""
    fields, dtypes = _SPECS[what]
    return _rows_frame([], fields, dtypes, None, pd.CategoricalDtype([]),
                       query and what == "events")


_SPECS = {"events": (EVENT_FIELDS, EVENT_DTYPES),
          "transactions": (TRANSACTION_FIELDS, TRANSACTION_DTYPES)}


def events_chunks(path, *, query=False, chunk_size=CHUNK_SIZE, progress=None,
                  file_dtype=None):
    """Typed event frames of one binlog, `chunk_size` events at a time."""
    path = os.fsdecode(path)
    file_dtype = file_dtype or _file_dtype([path])
    for rows in chunked(event_rows(path, query=query, progress=progress), chunk_size):
        yield _rows_frame(rows, EVENT_FIELDS, EVENT_DTYPES, path, file_dtype, query)


def transactions_chunks(path, *, chunk_size=CHUNK_SIZE, progress=None, file_dtype=None):
    """Typed transaction frames of one binlog, `chunk_size` transactions at a time."""
    path = os.fsdecode(path)
    file_dtype = file_dtype or _file_dtype([path])
    for rows in chunked(transaction_rows(path, progress=progress), chunk_size):
        yield _rows_frame(rows, TRANSACTION_FIELDS, TRANSACTION_DTYPES, path, file_dtype)


def _concat(frames, what, query=False):
    if not frames:
        return empty_frame(what, query)
    return pd.concat(frames, ignore_index=True)


def _collect(paths, what, progress, **kw):
    paths = paths_list(paths)
    file_dtype = _file_dtype(paths)
    chunks = events_chunks if what == "events" else transactions_chunks
    frames = []
    with progress_bar(paths, enabled=progress) as update:
        for path in paths:
            frames.extend(chunks(path, progress=update, file_dtype=file_dtype, **kw))
    return _concat(frames, what, kw.get("query", False))


def events_frame(paths, *, query=False, progress=None, chunk_size=CHUNK_SIZE):
    """One row per event of the binlog file(s) `paths`; columns in the module doc.

    `query=True` adds the statement text column.  `progress`: None shows a bar
    only when interactive, True/False forces it on/off.
    """
    return _collect(paths, "events", progress, query=query, chunk_size=chunk_size)


def transactions_frame(paths, *, progress=None, chunk_size=CHUNK_SIZE):
    """One row per transaction of the binlog file(s) `paths`; columns in the module doc."""
    return _collect(paths, "transactions", progress, chunk_size=chunk_size)


def rotations_frame(paths, commits=None):
    """One row per binlog file: its size, time span and where it rotated to.

    ``commits`` (a list) receives each file's commit instants, for
    :func:`binlogkit.analysis.commitgaps.commit_gaps`."""
    from binlogkit.analysis.rotations import rotations_frame as frame
    return frame(paths_list(paths), commits=commits)


def slowlog_frame(paths, *, server_tz=None, server_version=None):
    """Slow-log entries of one log or several (plain, gz, bz2, xz); wraps read_slowlog.

    Times are normalised to datetime64[ns, UTC] whatever the pandas version.
    """
    from binlogkit.analysis.slowlog_frame import read_slowlog
    paths = paths_list(paths)
    df = read_slowlog(paths, server_tz=server_tz, server_version=server_version)
    for col in ("start", "end"):
        df[col] = df[col].astype(UTC_NS)
    return df           # df.attrs["server_zone"]: the zone the times were read in


def stalls_frame(binlogs, slowlogs, *, server_tz=None, min_latency=0.5, min_duration=0.5):
    """Write stalls of the slow log(s) `slowlogs` and the binlogs' commit gaps, each
    with its cause (``binlog_rotation``, ``lock``, ``commit_sync``, ``restart``,
    ``unknown``) and the rotation that explains it, as ``binlogkit report`` finds them
    (the same diagnosis, `binlogkit.analysis.diagnosis`; idle time is not a stall);
    columns in `binlogkit.analysis.stalls`.  Times are UTC; `server_tz` is read as in
    slowlog_frame.  Statements at least `min_latency` s slow make a stall of at
    least `min_duration` s."""
    commits = []
    files = rotations_frame(binlogs, commits=commits)
    stats = ParseStats()
    statements = statements_frame(paths_list(slowlogs), zone=server_tz, stats=stats)
    warn_zone(stats, server_tz)
    rotations = rotations_table(files)
    return find_stalls(statements, rotations, restarts(files), covered_span(files),
                       min_latency=min_latency, min_duration=min_duration,
                       gaps=gaps_at_rotations(commits, rotations), commit_times=commits,
                       files=files)


def file_frame(path, what="events", **kw):
    """The whole frame of one file: the per-file function export and Dask run."""
    if what == "slowlog":
        return slowlog_frame([path], **kw)
    chunks = events_chunks if what == "events" else transactions_chunks
    return _concat(list(chunks(path, **kw)), what, kw.get("query", False))
