"""The default text report: what pt-query-digest's report says, plus binlogkit's extras.

Sections, as pt-query-digest's ``--report-format`` default: files, the overall
header (total, unique, QPS, concurrency, time range and a table of every
number attribute: total, min, max, avg, 95%, stddev, median; InnoDB ones
grouped; Yes/No attributes as percentages), the profile (rank, query ID,
response time and its share, calls, R/Call, V/M, item; a MISC line for the
classes beyond ``--limit``) and one block per reported class (QPS,
concurrency, ID, byte offset, V/M, time range, the attribute table with each
attribute's share of the total, Yes/No shares, databases/hosts/users with
counts, the Query_time distribution histogram, the Tables statements, the
worst sample and its EXPLAIN form).  binlogkit adds the exact UTC time range,
the fingerprint and the parse statistics.
"""

from __future__ import annotations

import math
import re

from binlogkit.slowlog.attrs import BOOL, NUM, unit_of
from binlogkit.slowlog.metric import histogram, pt_metrics
from binlogkit.slowlog.ptjson import parse_timestamp, qps_and_concurrency
from binlogkit.slowlog.ptsql import as_select, table_statements
from binlogkit.slowlog.timeparse import iso_utc

__all__ = ["to_text"]

_NUM_ORDER = [b"Query_time", b"Exec_orig_time", b"Transmit_time", b"Lock_time", b"Rows_sent",
              b"Rows_examined", b"Rows_affected", b"Rows_read", b"Bytes_sent", b"Merge_passes",
              b"Tmp_tables", b"Tmp_disk_tables", b"Tmp_table_sizes", b"bytes"]
_LABELS = {b"user": "Users", b"db": "Databases", b"Query_time": "Exec time", b"host": "Hosts",
           b"Error_no": "Errors", b"bytes": "Query size", b"Tmp_disk_tables": "Tmp disk tbl",
           b"Tmp_table_sizes": "Tmp tbl size"}
_HIDDEN = {b"ts", b"pos_in_log", b"fingerprint", b"arg"}
_DECADES = ["1us", "10us", "100us", "1ms", "10ms", "100ms", "1s", "10s+"]
_W = 12
_SIX = re.compile(r"\.(\d{1,6})\d*")


def _label(name: bytes) -> str:
    if name in _LABELS:
        return _LABELS[name]
    text = name.decode("latin-1").replace("_", " ")
    if text.startswith("InnoDB "):
        text = text[7:]
        return "InnoDB trxID" if text == "trx id" else text[:_W]
    return text[:_W]


def micro_t(t) -> str:
    """Seconds as pt prints them: 12us, 345ms, 2s."""
    t = max(t or 0.0, 0.0)
    text = "%.15g" % t                                 # Perl's number, then 6 decimals cut
    if "e" in text:
        text = "%.17f" % t
    t = float(_SIX.sub(r".\1", text))
    if 0 < t < 0.001:
        return f"{round(t * 1e6)}us"
    if 0.001 <= t < 1:
        return f"{t * 1000:.0f}ms"
    if t >= 1:
        return f"{t:.0f}s"
    return "0"


def shorten(v, d=1024) -> str:
    """A number with k/M/G... (powers of ``d``), as pt prints sizes and counts."""
    v = v or 0
    n = 0
    units = ["", "k", "M", "G", "T", "P", "E"]
    while v >= d and n < len(units) - 1:
        v /= d
        n += 1
    if n or (isinstance(v, float) and not v.is_integer()):
        return f"{v:.2f}{units[n]}"
    return f"{int(v)}"


def _kind(digest, name):
    if name in (b"Query_time", b"Lock_time", b"Rows_sent", b"Rows_examined", b"bytes"):
        return NUM
    return digest.types.get(name)


def _sorted_attrs(digest, attrs):
    """(num, innodb, bool, string) lists of (name, stat), in pt's order."""
    num, innodb, boolean, string = [], [], [], []
    order = {n: i for i, n in enumerate(_NUM_ORDER)}
    for name, st in attrs:
        if name in _HIDDEN:
            continue
        kind = _kind(digest, name)
        if kind == NUM:
            (innodb if name.startswith(b"InnoDB_") else num).append((name, st))
        elif kind == BOOL:
            boolean.append((name, st))
        else:
            string.append((name, st))
    num.sort(key=lambda ns: (order.get(ns[0], len(order)), ns[0]))
    for group in (innodb, boolean, string):
        group.sort(key=lambda ns: ns[0])
    return num, innodb, boolean, string


def _values(name, st):
    fmt = micro_t if unit_of(name) == "time" else shorten
    p95, stddev, median = pt_metrics(st)
    return [fmt(v) for v in (st.sum, st.min, st.max, st.sum / st.cnt, p95, stddev, median)]


def _share(part, total):
    """Whole percent of `total`; pt prints NaN where a value was 'nan' (Perl reads it so)."""
    ratio = part * 100 / total
    return int(ratio) if math.isfinite(ratio) else "NaN"


def _row(label, pct, values):
    values = [_PERL_NAN.get(v, v) for v in values]
    return ("# %-*s %3s %7s %7s %7s %7s %7s %7s %7s" % (_W, label, pct, *values)).rstrip()


_PERL_NAN = {"nan": "NaN", "-nan": "NaN"}     # how Perl (pt) prints a NaN


def _bool_row(label, st):
    yes = st.sum * 100 // (st.cnt or 1)
    no = (st.cnt - st.sum) * 100 // (st.cnt or 1)
    return "# %-*s %3d%% yes, %3d%% no" % (_W, label, yes, no)


def _attr_table(digest, cls, glob=None):
    out = [_row("Attribute", "pct" if glob is not None else "", ["total", "min", "max", "avg",
                                                                 "95%", "stddev", "median"]),
           _row("=" * _W, "===" if glob is not None else "", ["=" * 7] * 7)]
    if glob is not None:
        n = cls.query_time.cnt
        out.append(_row("Count", n * 100 // (glob.query_time.cnt or 1), [str(n)] + [""] * 6))
    num, innodb, boolean, string = _sorted_attrs(digest, cls.attributes())
    for group, title in ((num, None), (innodb, "# InnoDB:")):
        if group and title:
            out.append(title)
        for name, st in group:
            pct = ""
            if glob is not None:
                g = glob.stat(name)
                pct = _share(st.sum, g.sum) if g is not None and g.sum else 0
            out.append(_row(_label(name), pct, _values(name, st)))
    bools = [(n, st) for n, st in boolean if st.sum]
    if bools:
        out.append("# Boolean:")
        out += [_bool_row(_label(n), st) for n, st in bools]
    if glob is not None and string:
        out.append("# String:")
        for name, st in string:
            out.append("# %-*s %s" % (_W, _label(name), _string_list(st, cls.count)))
    return out


def _string_list(st, total):
    items = sorted(st.unq.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(items) == 1:
        return _text(items[0][0])
    shown = [f"{_text(v)} ({k}/{k * 100 // (total or 1)}%)" for v, k in items[:5]]
    more = f"... {len(items) - 5} more" if len(items) > 5 else ""
    return ", ".join(shown) + (", " + more if more else "")


def _text(b):
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)


def _time_range(cls):
    lo, hi = parse_timestamp(cls.ts_min), parse_timestamp(cls.ts_max)
    if lo is None:
        pt = "no # Time"
    elif lo == hi:
        pt = f"all events occurred at {lo}"
    else:
        pt = f"{lo} to {hi}"
    exact = f"{iso_utc(cls.first_us) or '-'} to {iso_utc(cls.last_us) or '-'}"
    return [f"# Time range: {pt}", f"# UTC (exact, entry ends): {exact}"]


def _vm(st):
    _, stddev, _ = pt_metrics(st)
    mean = st.sum / st.cnt if st.cnt else 0
    return (stddev * stddev) / mean if mean else 0.0     # x*x: inf past the float range


def _histogram(cls):
    counts = histogram(cls.query_time)
    top = max(counts) or 1
    out = ["# Query_time distribution"]
    for label, n in zip(_DECADES, counts):
        marks = n * 64 // top if n else 0
        marks = max(marks, 1) if n else 0
        out.append(("# %5s%s" % (label, "  " + "#" * marks if marks else "")).rstrip())
    return out


def _header(digest, stats, files):
    g = digest.global_
    qps, conc = qps_and_concurrency(g)
    out = [f"# Files: {', '.join(files) or '-'}",
           f"# Overall: {shorten(g.query_time.cnt, 1000)} total, "
           f"{shorten(len(digest.by_key), 1000)} unique, {shorten(round(qps, 2), 1000)} QPS, "
           f"{shorten(round(conc, 2), 1000)}x concurrency"]
    out += _time_range(g)
    if b"rate_limit" in g.extra:
        out.append("# Rate limits apply")
    out += _attr_table(digest, g)
    if stats is not None:
        p = stats.as_dict()
        out.append(f"# Parsed {p['lines']} lines, {p['entries']} entries; skipped "
                   f"{p['skipped_lines']} lines, {p['dropped_entries']} entries without a query, "
                   f"{p['header_lines']} server header lines, {p['bad_times']} bad times, "
                   f"{p['bad_values']} bad values")
    if digest.filtered_out:
        out.append(f"# {digest.filtered_out} entries outside --since/--until or --filter")
    return out


def _profile(digest, chosen, order_by):
    g = digest.global_
    total = g.query_time.sum or 0.0
    out = ["", "# Profile",
           "# Rank Query ID                           Response time    Calls R/Call V/M   Item",
           "# ==== ================================== ================ ===== ====== ===== ===="]
    for rank, c in enumerate(chosen, 1):
        qt = c.query_time
        item = digest.class_distill(c) or _text(c.key)[:40]
        out.append(f"# {rank:>4} 0x{digest.class_id(c)} {qt.sum:>9.4f} {_pct(qt.sum, total):5.1f}% "
                   f"{c.count:>5} {qt.sum / (qt.cnt or 1):>6.4f} {_vm(qt):5.2f} {item}")
    chosen_ids = {id(c) for c in chosen}
    rest = [c for c in digest.by_key.values() if id(c) not in chosen_ids and c.query_time.cnt]
    if rest:
        s = sum(c.query_time.sum for c in rest)
        n = sum(c.count for c in rest)
        out.append(f"# MISC 0xMISC {'':31} {s:>9.4f} {_pct(s, total):5.1f}% {n:>5} "
                   f"{s / (n or 1):>6.4f}   0.0 <{len(rest)} ITEMS>")
    return out


def _pct(v, total):
    return 100.0 * v / total if total else 0.0


def _class_block(digest, rank, c):
    qps, conc = qps_and_concurrency(c)
    offset = c.first_offset[1] if c.first_offset else 0
    out = ["", f"# Query {rank}: {shorten(round(qps, 2), 1000)} QPS, "
               f"{shorten(round(conc, 2), 1000)}x concurrency, ID 0x{digest.class_id(c)} "
               f"at byte {offset}",
           f"# Scores: V/M = {_vm(c.query_time):.2f}"]
    out += _time_range(c)
    out += _attr_table(digest, c, digest.global_)
    if c.query_time.cnt:
        out += _histogram(c)
    sample = c.sample or b""
    if digest.group_by == "fingerprint":
        tables = table_statements(sample, c.sample_db)
        if tables:
            out.append("# Tables")
            for status, create in tables:
                out += ["#    " + _text(status), "#    " + _text(create)]
        out.append(f"# Fingerprint: {_text(c.key)[:500]}")
    worst = f"{micro_t(c.sample_qt)}" if c.sample_qt >= 0 else "-"
    out.append(f"# Worst sample: {worst}, ended {iso_utc(c.sample_end_us) or '-'}")
    if c.sample_db:
        out.append(f"USE `{_text(c.sample_db).strip('`')}`\\G")
    text = _text(sample)[:5000]
    if digest.group_by == "fingerprint" and not c.key.startswith((b"select", b"(select")):
        converted = as_select(sample)
        out.append(text + "\\G")
        if converted and converted.lstrip(b"( \t\n").lower().startswith(b"select"):
            out += ["# Converted for EXPLAIN", "# EXPLAIN /*!50100 PARTITIONS*/",
                    _text(converted)[:5000] + "\\G"]
    else:
        out += ["# EXPLAIN /*!50100 PARTITIONS*/", text + "\\G"]
    return out


def to_text(digest, stats=None, files=(), limit=(None, 20), order_by=(b"Query_time", "sum")):
    limit = (None, limit) if isinstance(limit, int) else limit
    digest.finish()
    chosen = digest.worst(order_by, limit)
    out = _header(digest, stats, list(files))
    out += _profile(digest, chosen, order_by)
    for rank, c in enumerate(chosen, 1):
        out += _class_block(digest, rank, c)
    return "\n".join(out) + "\n"
