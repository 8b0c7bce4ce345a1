"""Typed, unit-normalised views of entries (shared by the events writer and pandas).

* numbers become int or float; ``Yes``/``No`` become booleans;
* every ``*_time`` / ``*_wait`` attribute is in **seconds**; MariaDB's
  ``Pages_read_time`` and ``Engine_time`` (log_slow_verbosity=engine, 10.6.15+)
  are written in milliseconds and are divided by 1000 here;
* ``QC_hit`` (MariaDB) and ``QC_Hit`` (Percona) both map to ``QC_Hit``.
"""

from __future__ import annotations

from binlogkit.slowlog.fingerprint import fingerprint, query_id
from binlogkit.slowlog.timeparse import iso_utc

__all__ = ["typed_attrs", "entry_row", "BASE_COLUMNS", "MILLISECOND_FIELDS"]

MILLISECOND_FIELDS = frozenset({b"Pages_read_time", b"Engine_time"})
_RENAME = {b"QC_hit": b"QC_Hit"}
_SKIP = frozenset({b"Query_time", b"Lock_time", b"Rows_sent", b"Rows_examined",
                   b"Schema", b"Start", b"End", b"Time"})

BASE_COLUMNS = ["file", "offset", "line", "start", "end", "ts_inherited", "user", "host",
                "ip", "db", "cmd", "query_time", "lock_time", "rows_sent", "rows_examined",
                "id", "fingerprint", "query"]


def _value(key, raw):
    if raw == b"Yes":
        return True
    if raw == b"No":
        return False
    if raw[:1].isdigit() or (raw[:1] == b"-" and raw[1:2].isdigit()):
        try:
            v = int(raw)
        except ValueError:
            try:
                v = float(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")
        if key in MILLISECOND_FIELDS:
            return v / 1000.0
        return v
    return raw.decode("utf-8", "replace")


def typed_attrs(ev):
    """The entry's extra ``Key: value`` pairs as {str: typed value}."""
    out = {}
    for k, raw in ev.attrs.items():
        if k in _SKIP:
            continue
        out[_RENAME.get(k, k).decode("ascii", "replace")] = _value(k, raw)
    return out


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


def entry_row(ev, with_fingerprint=True):
    """A flat dict for one entry: BASE_COLUMNS plus ``attrs`` (typed dict)."""
    fp = ev.fingerprint
    if fp is None and with_fingerprint:
        fp = ev.fingerprint = fingerprint(ev.query)
    return {
        "file": ev.file, "offset": ev.offset, "line": ev.line,
        "start": iso_utc(ev.start_us), "end": iso_utc(ev.end_us),
        "ts_inherited": ev.ts_inherited, "user": _s(ev.user), "host": _s(ev.host),
        "ip": _s(ev.ip), "db": _s(ev.db), "cmd": _s(ev.cmd),
        "query_time": ev.query_time, "lock_time": ev.lock_time,
        "rows_sent": None if ev.rows_sent is None else int(ev.rows_sent),
        "rows_examined": None if ev.rows_examined is None else int(ev.rows_examined),
        "id": query_id(fp) if fp is not None else None,
        "fingerprint": _s(fp), "query": _s(ev.query),
        "attrs": typed_attrs(ev),
    }
