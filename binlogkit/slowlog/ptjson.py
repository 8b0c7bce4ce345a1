"""``--format pt-json``: the JSON pt-query-digest 3.x writes with ``--output json``.

Same structure, keys and values (pt's JSONReportFormatter), so a consumer of
pt's JSON can switch:

* ``global``: ``files`` (name, size), ``metrics`` (number attributes: sum, min,
  max, avg, median, pct_95, stddev; Yes/No attributes: ``cnt`` of Yes),
  ``query_count`` (entries with a Query_time), ``unique_query_count``,
  ``queries_per_second`` and ``concurrency`` (over pt's time range), ``rate_limit``;
* ``classes``, worst first: ``checksum``, ``fingerprint``, ``distillate``,
  ``attribute``, ``query_count``, ``ts_min``/``ts_max``, ``example`` (worst
  sample: query, ts, Query_time, ``as_select``), ``metrics`` (per attribute, with
  ``pct`` of the global count; strings as ``value``, Yes/No as ``yes``),
  ``histograms`` (Query_time, 8 decades) and ``tables``.

Numbers are strings formatted as pt formats them: attributes ending in
``_time``/``_wait`` with 6 decimals, others as truncated integers.  Text is
passed through byte for byte as pt does (each byte one character).
"""

from __future__ import annotations

import calendar
import json
import os
import re

from binlogkit.slowlog.attrs import BOOL, NUM, STRING
from binlogkit.slowlog.fingerprint import query_id
from binlogkit.slowlog.metric import histogram, pt_metrics
from binlogkit.slowlog.ptsql import as_select, table_statements

__all__ = ["pt_json", "pt_json_dict", "parse_timestamp", "qps_and_concurrency", "unix_seconds"]

_MYSQL_TS = re.compile(rb"(\d\d)(\d\d)(\d\d) +(\d+):(\d+):(\d+)(\.\d+)?\Z")
_PROPER_TS = re.compile(rb"(\d\d\d\d)-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(\.\d+)?\Z")
_QT_CLEAN = re.compile(rb"(\d+(?:\.\d+)?)")
_NO_ROWS_AFFECTED = re.compile(r"(?:SELECT|SHOW|SET|ADMIN)")
_NAMES = {b"bytes": b"Query_length"}


def _s(b):
    return None if b is None else b.decode("latin-1")


def parse_timestamp(raw):
    """pt's Transformers::parse_timestamp of a ``ts`` value."""
    if raw is None:
        return None
    m = _MYSQL_TS.match(raw)
    if m:
        y, mo, d, h, mi, sec, frac = m.groups()
        if frac is not None:
            return "%d-%02d-%02d %02d:%02d:%09.6f" % (int(y) + 2000, int(mo), int(d), int(h),
                                                      int(mi), int(sec) + float(frac))
        return "%d-%02d-%02d %02d:%02d:%02d" % (int(y) + 2000, int(mo), int(d), int(h), int(mi),
                                                int(sec))
    return _s(raw)


def unix_seconds(ts):
    m = _PROPER_TS.match(ts.encode("latin-1"))
    if not m:
        return None
    y, mo, d, h, mi, sec = (int(x) for x in m.groups()[:6])
    try:
        return calendar.timegm((y, mo, d, h, mi, sec))
    except (ValueError, OverflowError):      # not a date (pt's timelocal would die too)
        return None


def _int(v):
    try:
        return "%d" % int(v or 0)
    except (OverflowError, ValueError):
        return "0"


def _fmt(v, as_time):
    return "%.6f" % (v or 0) if as_time else _int(v)


def _num_stats(st, as_time, pct=None):
    p95, stddev, median = pt_metrics(st)
    out = {"sum": _fmt(st.sum, as_time), "min": _fmt(st.min, as_time),
           "max": _fmt(st.max, as_time), "pct_95": _fmt(p95, as_time),
           "stddev": _fmt(stddev, as_time), "median": _fmt(median, as_time)}
    out["avg"] = _fmt(st.sum / st.cnt if st.sum and st.cnt else 0, as_time)
    if pct is not None:
        out["pct"] = _fmt(pct, as_time)
    return out


def _kind(digest, name):
    if name in (b"Query_time", b"Lock_time", b"Rows_sent", b"Rows_examined", b"bytes"):
        return NUM
    return digest.types.get(name) or STRING


def _global(digest, files):
    g = digest.global_
    metrics = {}
    for name, st in g.attributes():
        kind = _kind(digest, name)
        label = _NAMES.get(name, name).decode("latin-1")
        if kind == NUM:
            metrics[label] = _num_stats(st, name.endswith((b"time", b"wait")))
        elif kind == BOOL:
            metrics[label] = {"cnt": "%d" % st.sum}
    out = {"metrics": metrics, "files": [_file(f) for f in files]}
    qt = g.query_time
    out["query_count"] = qt.cnt
    out["unique_query_count"] = len(digest.by_key)
    # pt 3.x computes queries_per_second and concurrency here, but the function it
    # calls (unix_timestamp) is not imported into its JSON formatter: the eval around
    # it fails and neither key is ever written.  binlogkit's own formats carry them.
    rate = g.extra.get(b"rate_limit")
    if rate is not None and rate.cnt:
        m = re.match(rb"(\w+):(\d+)\Z", rate.min)
        out["rate_limit"] = ({"type": _s(m.group(1)), "limit": int(m.group(2))} if m
                             else {"error": "Invalid rate limit: " + _s(rate.min)})
        if rate.min != rate.max:
            out["rate_limit"]["diff"] = 1
    return out


def _perl_num(v):
    """A float as Perl prints it (15 significant digits)."""
    return float("%.15g" % v)


def _file(name):
    try:
        size = os.path.getsize(name)
    except (OSError, TypeError):
        size = None
    return {"name": name, "size": size}


def _class(digest, cls):
    g = digest.global_
    by_fp = digest.group_by == "fingerprint"
    distill = digest.class_distill(cls) if by_fp else None
    key = cls.key if isinstance(cls.key, bytes) else str(cls.key).encode()
    out = {"checksum": query_id(key), "fingerprint": _s(key[:5000]), "distillate": distill,
           "attribute": digest.group_by, "query_count": cls.count}
    qt_raw = cls.sample_qt_raw
    if qt_raw is not None:
        m = _QT_CLEAN.match(qt_raw)
        qt_raw = m.group(1) if m else qt_raw
    example = {"query": _s((cls.sample or b"")[:10000]),
               "ts": parse_timestamp(cls.sample_ts) if cls.sample_ts else None,
               "Query_time": _s(qt_raw)}
    metrics = {}
    skip_affected = bool(distill and _NO_ROWS_AFFECTED.match(distill))
    for name, st in cls.attributes():
        label = _NAMES.get(name, name).decode("latin-1")
        if label == "Rows_affected" and skip_affected:
            continue
        kind = _kind(digest, name)
        if kind == NUM:
            gst = g.stat(name)
            pct = st.cnt / gst.cnt if gst is not None and gst.cnt else 0
            metrics[label] = _num_stats(st, name.endswith((b"_time", b"_wait")), pct)
        elif kind == BOOL:
            metrics[label] = {"yes": "%d" % st.sum}
        else:
            metrics[label] = {"value": _s(st.max)}
    if cls.ts_min is not None:
        out["ts_min"] = parse_timestamp(cls.ts_min)
        out["ts_max"] = parse_timestamp(cls.ts_max)
    if by_fp:
        db = cls.sample_db if cls.sample_db and cls.sample_db != b"0" else _first_db(cls)
        tables = table_statements(cls.sample or b"", db)
        if not re.match(rb"(?:[(\s]*select|insert|replace)", key):
            converted = as_select(cls.sample or b"")
            if converted and re.match(rb"[(\s]*select", converted, re.I):
                example["as_select"] = _s(converted)
    else:
        tables = []
    out["example"] = example
    if cls.query_time.cnt:
        out["histograms"] = {"Query_time": histogram(cls.query_time)}
    out["metrics"] = metrics
    if tables:
        out["tables"] = [{"status": _s(st), "create": _s(cr)} for st, cr in tables]
    return out


def _first_db(cls):
    """pt's default database for a sample without one: ``keys %{db unq}`` in scalar
    context, i.e. the number of distinct databases of the class (a pt quirk)."""
    st = cls.extra.get(b"db")
    if st is None or not st.unq:
        return None
    return b"%d" % len(st.unq)


def pt_json_dict(digest, files=(), order_by=(b"Query_time", "sum"), limit=(None, 0)):
    digest.finish()
    return {"global": _global(digest, files),
            "classes": [_class(digest, c) for c in digest.worst(order_by, limit)]}


def pt_json(digest, files=(), order_by=(b"Query_time", "sum"), limit=(None, 0)) -> str:
    return json.dumps(pt_json_dict(digest, files, order_by, limit), ensure_ascii=False,
                      separators=(",", ":")) + "\n"


def qps_and_concurrency(cls):
    """(QPS, concurrency) over pt's time range of the class (0, 0 when one second)."""
    if cls.ts_min is None or not cls.ts_max > cls.ts_min:
        return 0, 0
    lo, hi = unix_seconds(parse_timestamp(cls.ts_min)), unix_seconds(parse_timestamp(cls.ts_max))
    if lo is None or hi is None or hi == lo:
        return 0, 0
    return cls.query_time.cnt / (hi - lo), cls.query_time.sum / (hi - lo)
