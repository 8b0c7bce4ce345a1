"""Render a :class:`~binlogkit.slowlog.digest.Digest` as text, JSON or CSV.

JSON shape (stable; numbers are JSON numbers, times ISO-8601 UTC with ``Z``)::

    {"global": {"count", "unique", "query_time": {...}, "lock_time": {...},
                "first_seen", "last_seen", "files", "parse": {...}},
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
import datetime
import io
import json

__all__ = ["iso_utc", "to_json", "to_text", "to_csv", "digest_dict"]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def iso_utc(us):
    """Integer epoch microseconds as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (None stays None)."""
    if us is None:
        return None
    try:
        dt = _EPOCH + datetime.timedelta(microseconds=us)
    except OverflowError:
        return None
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
    g = digest.global_
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
    glob = {
        "count": sum(c.count for c in reported),
        "unique": len(reported),
        "query_time": g.query_time.as_dict(),
        "lock_time": g.lock_time.as_dict(),
        "rows_sent": _counts(g.rows_sent),
        "rows_examined": _counts(g.rows_examined),
        "first_seen": iso_utc(g.first_us),
        "last_seen": iso_utc(g.last_us),
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


# -- text --------------------------------------------------------------------

def _t(v):
    """Seconds with a unit, pt style: 12us, 345ms, 2s."""
    if v is None:
        return "-"
    if v >= 1:
        return f"{v:.0f}s" if v >= 100 else f"{v:.2f}s"
    if v >= 0.001:
        return f"{v * 1000:.0f}ms"
    return f"{v * 1e6:.0f}us"


def _n(v):
    if v is None:
        return "-"
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= div:
            return f"{v / div:.2f}{unit}"
    return f"{v:.0f}"


def _metric_row(name, m, fmt):
    if not m["sum"] and m["max"] is None:
        return None
    return (f"# {name:<13} {fmt(m['sum']):>8} {fmt(m['min']):>8} {fmt(m['max']):>8} "
            f"{fmt(m['avg']):>8} {fmt(m['p95']):>8}")


def _table(block):
    rows = ["# Attribute        total      min      max      avg      95%",
            "# ============= ======== ======== ======== ======== ========"]
    for name, key, fmt in (("Exec time", "query_time", _t), ("Lock time", "lock_time", _t),
                           ("Rows sent", "rows_sent", _n), ("Rows examine", "rows_examined", _n)):
        row = _metric_row(name, block[key], fmt)
        if row:
            rows.append(row)
    return rows


def to_text(digest, stats=None, files=(), limit=0, order_by=(b"Query_time", "sum")) -> str:
    d = digest_dict(digest, stats, files, limit, order_by)
    g = d["global"]
    out = [f"# Files: {', '.join(g['files']) or '-'}",
           f"# Overall: {g['count']} total, {g['unique']} unique, grouped by {d['group_by']}",
           f"# Time range: {g['first_seen'] or '-'} to {g['last_seen'] or '-'}"]
    out += _table(g)
    if stats is not None:
        p = g["parse"]
        out.append(f"# Parsed {p['lines']} lines, {p['entries']} entries; skipped "
                   f"{p['skipped_lines']} lines, {p['dropped_entries']} entries without a "
                   f"query, {p['header_lines']} server header lines, {p['bad_times']} bad times,"
                   f" {p['bad_values']} bad values")
    if g["filtered_out"]:
        out.append(f"# {g['filtered_out']} entries outside --since/--until")
    out += ["", "# Profile",
            "# Rank Query ID                           Response time    Calls  R/Call  Item",
            "# ==== ================================== ================ ====== ======= ====="]
    total = g["query_time"]["sum"] or 0.0
    for c in d["classes"]:
        qt = c["query_time"]
        pct = 100.0 * qt["sum"] / total if total else 0.0
        item = c["distill"] or (c["value"] or "")[:40]
        out.append(f"# {c['rank']:>4} 0x{c['id']} {qt['sum']:>9.4f} {pct:5.1f}% "
                   f"{c['count']:>6} {qt['avg']:>7.4f} {item}")
    for c in d["classes"]:
        out += ["", f"# Query {c['rank']}: ID 0x{c['id']} (checksum {c['checksum']})",
                f"# Count: {c['count']}",
                f"# Time range: {c['first_seen'] or '-'} to {c['last_seen'] or '-'}"]
        out += _table(c)
        for label, key in (("Databases", "databases"), ("Users", "users"), ("Hosts", "hosts")):
            if c[key]:
                vals = ", ".join(f"{n['value']} ({n['count']})" for n in c[key][:5])
                out.append(f"# {label:<10} {vals}")
        if c["fingerprint"] is not None:
            out.append(f"# Fingerprint: {c['fingerprint'][:500]}")
        out.append(f"# Worst sample ({_t(c['sample']['query_time'])} ending "
                   f"{c['sample']['end'] or '-'}):")
        out.append((c["sample"]["query"] or "")[:5000] + "\\G")
    return "\n".join(out) + "\n"
