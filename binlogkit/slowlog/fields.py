"""Typed, unit-normalised views of entries (shared by the events writer and pandas).

* each attribute has pt-query-digest's type (:func:`binlogkit.slowlog.attrs.type_of`,
  the grammar the digest uses): pt's fixed table first (``Thread_id``,
  ``Last_errno``, ``Error_no``, ``InnoDB_trx_id``, ``Statement_id`` ... are
  strings, ``Killed`` is a boolean), else the value decides;
* numbers become int or float; booleans True for ``Yes`` (or a non-zero number,
  as ``Killed: 1``), False otherwise; strings stay strings (``Thread_id: 8`` is
  ``"8"``, ``Last_errno: -1`` is ``"-1"``);
* every ``*_time`` / ``*_wait`` attribute is in **seconds**; MariaDB's
  ``Pages_read_time`` and ``Engine_time`` (log_slow_verbosity=engine, 10.6.15+)
  are written in milliseconds and are divided by 1000 here;
* ``QC_hit`` (MariaDB) and ``QC_Hit`` (Percona) both map to ``QC_Hit``.
"""

from __future__ import annotations

import json

from binlogkit.slowlog.attrs import BOOL, NUM, type_of
from binlogkit.slowlog.fingerprint import fingerprint, query_id
from binlogkit.slowlog.timeparse import iso_utc

__all__ = ["typed_attrs", "entry_row", "attrs_text", "BASE_COLUMNS", "MILLISECOND_FIELDS"]

MILLISECOND_FIELDS = frozenset({b"Pages_read_time", b"Engine_time"})
_RENAME = {b"QC_hit": b"QC_Hit"}
_SKIP = frozenset({b"Query_time", b"Lock_time", b"Rows_sent", b"Rows_examined",
                   b"Schema", b"Start", b"End", b"Time"})

BASE_COLUMNS = ["file", "offset", "line", "start", "end", "ts_inherited", "user", "host",
                "ip", "db", "cmd", "query_time", "lock_time", "rows_sent", "rows_examined",
                "id", "fingerprint", "query"]


def _value(key, raw):
    kind = type_of(key, raw)
    if kind == NUM:
        v = int(raw) if raw.isdigit() else float(raw)
        return v / 1000.0 if key in MILLISECOND_FIELDS else v
    if kind == BOOL:
        if raw in (b"Yes", b"No"):
            return raw == b"Yes"
        try:
            return float(raw) != 0
        except ValueError:
            return False
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


def attrs_text(attrs):
    """An entry's `attrs` where a cell holds text (CSV, Parquet): compact JSON, UTF-8 kept,
    keys in log order -- the same text in `slowlog events` and `export`."""
    return json.dumps(attrs, ensure_ascii=False, separators=(",", ":"))
