"""`binlogkit stats`: what wrote a binlog.  Per file and per table the rows and bytes
of each DML type (insert, update, delete: the rows events' sizes), and the biggest and
longest transactions (GTID or position, rows, bytes, duration from the event times),
as a document (`collect`) rendered as a text table, Markdown or JSON (`render`).
"""
import json

from binlogkit.sqlgen import schema as S
from binlogkit.sqlgen.walk import iter_transactions

__all__ = ["collect", "render", "KINDS"]

KINDS = ("insert", "update", "delete")
_KIND = {"write": "insert", "update": "update", "delete": "delete"}


def _counter():
    out = {}
    for kind in KINDS:
        out[f"{kind}_rows"] = 0
        out[f"{kind}_bytes"] = 0
    return out


def collect(paths, window=None, row_filter=None, top=10):
    """The stats document of `paths` (a dict of plain values); `top`: how many of the
    biggest and longest transactions to keep (None: all)."""
    files, tables, txns = {}, {}, []
    for txn in iter_transactions(paths, window):
        rows = size = 0
        touched = set()
        for change in txn.changes:
            db, table = S.table_name(change.table_map)
            if row_filter is not None and not (row_filter.table_ok(db, table)
                                               and row_filter.kind_ok(change.kind)):
                continue
            kind = _KIND[change.kind]
            n = len(change.rows)
            for key, bucket in (((db, table), tables), ((change.path, db, table), files)):
                entry = bucket.get(key)
                if entry is None:
                    entry = bucket[key] = _counter()
                entry[f"{kind}_rows"] += n
                entry[f"{kind}_bytes"] += change.size
            rows += n
            size += change.size
            touched.add(f"{db}.{table}")
        if not touched:
            continue
        txns.append({"file": txn.path, "start_pos": txn.start_pos, "end_pos": txn.end_pos,
                     "gtid": txn.gtid, "start": txn.when, "rows": rows,
                     "row_bytes": size, "bytes": txn.size,
                     "duration_s": max(0, txn.commit_when - txn.when),
                     "tables": sorted(touched)})
    by_bytes = sorted(txns, key=lambda t: (-t["bytes"], t["file"], t["start_pos"]))[:top]
    by_time = sorted(txns, key=lambda t: (-t["duration_s"], -t["bytes"], t["file"],
                                          t["start_pos"]))[:top]
    return {
        "files": [dict(file=k[0], db=k[1], table=k[2], **v) for k, v in files.items()],
        "tables": sorted((dict(db=k[0], table=k[1], **v) for k, v in tables.items()),
                         key=lambda t: -sum(t[f"{k}_bytes"] for k in KINDS)),
        "transactions": {"count": len(txns), "rows": sum(t["rows"] for t in txns),
                         "bytes": sum(t["bytes"] for t in txns),
                         "biggest": by_bytes, "longest": by_time},
    }


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _safe(text):
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("|", "\\|")


_TEXT_COLUMNS = frozenset({"db", "table", "file", "transaction", "tables"})


def _table(headers, rows, markdown):
    rows = [[_safe(str(c)) for c in row] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    fmt = "  ".join("{:<%d}" % w if h in _TEXT_COLUMNS else "{:>%d}" % w
                    for h, w in zip(headers, widths))
    lines = [fmt.format(*headers).rstrip(), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*row).rstrip() for row in rows]
    return "\n".join(lines) + "\n"


def _change_rows(entries, first):
    out = []
    for t in entries:
        row = [t[k] for k in first]
        for kind in KINDS:
            row += [t[f"{kind}_rows"], _size(t[f"{kind}_bytes"])]
        out.append(row)
    return out


def _txn_rows(entries):
    return [[t["gtid"] or f"{t['file']}:{t['start_pos']}", t["rows"], _size(t["bytes"]),
             t["duration_s"], ", ".join(t["tables"][:3]) + (" ..." if len(t["tables"]) > 3 else "")]
            for t in entries]


def render(doc, fmt="table"):
    if fmt == "json":
        return json.dumps(doc, indent=2, allow_nan=False) + "\n"
    md = fmt == "markdown"
    head = "## " if md else ""
    kinds = []
    for kind in KINDS:
        kinds += [f"{kind} rows", f"{kind} bytes"]
    tx = doc["transactions"]
    parts = [f"{head}Tables\n\n",
             _table(["db", "table"] + kinds, _change_rows(doc["tables"], ("db", "table")), md),
             f"\n{head}Per file\n\n",
             _table(["file", "table"] + kinds,
                    [[f["file"], f"{f['db']}.{f['table']}"] + r[1:] for f, r in zip(
                        doc["files"], _change_rows(doc["files"], ("file",)))], md),
             f"\n{head}Transactions: {tx['count']}, {tx['rows']} rows, {_size(tx['bytes'])}\n\n",
             f"{head}Biggest transactions\n\n" if md else "Biggest transactions\n",
             _table(["transaction", "rows", "bytes", "duration s", "tables"],
                    _txn_rows(tx["biggest"]), md),
             f"\n{head}Longest transactions\n\n" if md else "\nLongest transactions\n",
             _table(["transaction", "rows", "bytes", "duration s", "tables"],
                    _txn_rows(tx["longest"]), md)]
    return "".join(parts)
