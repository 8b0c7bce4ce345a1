"""Render a :class:`~binlogkit.slowlog.digest.Digest` as text, JSON or CSV.

JSON shape (stable; numbers are JSON numbers, times ISO-8601 UTC with ``Z``)::

    {"global": {"count", "unique", "query_time": {...}, "lock_time": {...},
                "first_seen", "last_seen", "qps", "concurrency", "files", "parse": {...}},
     "group_by": "fingerprint",
     "classes": [{"rank", "id", "checksum", "fingerprint", "distill", "count",
                  "query_time": {"sum","min","max","avg","p95"},
                  "lock_time": {...}, "rows_sent": {...}, "rows_examined": {...},
                  "first_seen", "last_seen", "databases", "users", "hosts",
                  "sample"}]}

``id`` is the MD5 of the fingerprint in 32 upper-case hex (pt-query-digest
3.x's ``checksum``); ``checksum`` is its right-most 16 hex digits (the older
pt / go-mysql / PMM form).
"""

from __future__ import annotations

import csv
import io
import json

from binlogkit.slowlog.ptjson import qps_and_concurrency
from binlogkit.slowlog.textreport import to_text as _text_report
from binlogkit.slowlog.timeparse import iso_utc

__all__ = ["iso_utc", "to_json", "to_text", "to_csv", "digest_dict"]



def _s(b):
    return None if b is None else b.decode("utf-8", "surrogateescape").encode(
        "utf-8", "replace").decode("utf-8")


def _names(d, unquote=False):
    """[{value, count}] most frequent first; ``unquote``: `shop` and shop are one name."""
    if unquote:
        merged = {}
        for k, v in d.items():
            if k is not None and len(k) > 1 and k[:1] == b"`" and k[-1:] == b"`":
                k = k[1:-1].replace(b"``", b"`")
            merged[k] = merged.get(k, 0) + v
        d = merged
    return [{"value": _s(k), "count": v} for k, v in sorted(d.items(), key=lambda kv: -kv[1])]


def _counts(metric):
    """A row-count metric with whole numbers as JSON integers."""
    d = metric.as_dict()
    for k in ("sum", "min", "max"):
        v = d[k]
        if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 63:
            d[k] = int(v)
    return d


def _limit(limit):
    return (None, limit) if isinstance(limit, int) else limit


def digest_dict(digest, stats=None, files=(), limit=0, order_by=(b"Query_time", "sum")):
    g = digest.finish().global_
    classes = digest.worst(order_by, _limit(limit), ties="first")
    out_classes = []
    for rank, c in enumerate(classes, 1):
        cid = digest.class_id(c)
        out_classes.append({
            "rank": rank,
            "id": cid,
            "checksum": cid[16:],
            "fingerprint": _s(c.key) if digest.group_by == "fingerprint" else None,
            "group_by": digest.group_by,
            "value": _s(c.key),
            "distill": digest.class_distill(c),
            "count": c.count,
            "query_time": c.query_time.as_dict(),
            "lock_time": c.lock_time.as_dict(),
            "rows_sent": _counts(c.rows_sent),
            "rows_examined": _counts(c.rows_examined),
            "first_seen": iso_utc(c.first_us),
            "last_seen": iso_utc(c.last_us),
            "databases": _names(c.dbs, unquote=True),
            "users": _names(c.users),
            "hosts": _names(c.hosts),
            "sample": {"query": _s(c.sample), "query_time": c.sample_qt if c.sample_qt >= 0 else None,
                       "end": iso_utc(c.sample_end_us)},
        })
    reported = digest.classes()
    rate = qps_and_concurrency(g)      # pt's: over its time range of # Time, 0 within one second
    glob = {
        "count": sum(c.count for c in reported),
        "unique": len(reported),
        "query_time": g.query_time.as_dict(),
        "lock_time": g.lock_time.as_dict(),
        "rows_sent": _counts(g.rows_sent),
        "rows_examined": _counts(g.rows_examined),
        "first_seen": iso_utc(g.first_us),
        "last_seen": iso_utc(g.last_us),
        "qps": rate[0],
        "concurrency": rate[1],
        "files": list(files),
        "filtered_out": digest.filtered_out,
    }
    if stats is not None:
        glob["parse"] = stats.as_dict()
    return {"global": glob, "group_by": digest.group_by, "classes": out_classes}


def to_json(digest, stats=None, files=(), limit=0, order_by=(b"Query_time", "sum")) -> str:
    return json.dumps(digest_dict(digest, stats, files, limit, order_by), indent=1) + "\n"


_CSV_COLS = ["rank", "id", "checksum", "count", "query_time_sum", "query_time_min",
             "query_time_avg", "query_time_p95", "query_time_max", "lock_time_sum",
             "lock_time_max", "rows_sent_sum", "rows_examined_sum", "first_seen",
             "last_seen", "value"]


def to_csv(digest, stats=None, files=(), limit=0, order_by=(b"Query_time", "sum")) -> str:
    d = digest_dict(digest, stats, files, limit, order_by)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(_CSV_COLS)
    for c in d["classes"]:
        qt, lt = c["query_time"], c["lock_time"]
        w.writerow([c["rank"], c["id"], c["checksum"], c["count"], qt["sum"], qt["min"],
                    qt["avg"], qt["p95"], qt["max"], lt["sum"], lt["max"],
                    c["rows_sent"]["sum"], c["rows_examined"]["sum"], c["first_seen"],
                    c["last_seen"], c["value"]])
    return buf.getvalue()


def to_text(digest, stats=None, files=(), limit=0, order_by=(b"Query_time", "sum")) -> str:
    """pt-query-digest's default report (see :mod:`binlogkit.slowlog.textreport`)."""
    return _text_report(digest, stats, files, _limit(limit), order_by)
