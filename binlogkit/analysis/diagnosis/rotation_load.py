"""Why a rotation was slow: what the rotated file held and what wrote it.

At rotation the server syncs the finished file while it holds the binlog lock;
how long that takes depends on how much of it was not yet on disk.
``what_filled(path, sync_binlog)`` reads the file's transactions
(:func:`binlogkit.analysis.frames.transactions_frame`) and returns::

    {"bytes": int, "transactions": int,
     "unsynced_bytes": int | null,   # known only with the server's sync_binlog
     "sync_binlog": int | null,
     "top_tables": [{"table", "bytes", "transactions", "rows"}],      # most bytes first
     "biggest": [{"gtid", "position", "bytes", "rows", "tables"}]}     # biggest first

``unsynced_bytes``: with ``sync_binlog=0`` nothing synced the file as it grew,
so all of it; with ``N`` > 0 at most the last ``N`` - 1 transactions' bytes
(commit groups, one transaction each at worst); with 1, none.  A multi-table
transaction's bytes are shared evenly among its tables.
"""
from __future__ import annotations

import pandas as pd

__all__ = ["what_filled", "TOP"]

TOP = 3


def what_filled(path, sync_binlog=None, top=TOP) -> dict:
    import os
    from binlogkit.analysis.frames import transactions_frame
    tx = transactions_frame([path])
    size = os.path.getsize(path)
    out = {"bytes": int(size), "transactions": int(len(tx)), "sync_binlog": sync_binlog,
           "unsynced_bytes": _unsynced(size, tx, sync_binlog), "top_tables": [], "biggest": []}
    if not len(tx):
        return out
    out["top_tables"] = _tables(tx, top)
    big = tx.sort_values(["bytes", "start_pos"], ascending=[False, True]).head(top)
    out["biggest"] = [{"gtid": r["gtid"] if isinstance(r["gtid"], str) else None,
                       "position": int(r["start_pos"]), "bytes": int(r["bytes"]),
                       "rows": None if pd.isna(r["rows"]) else int(r["rows"]),
                       "tables": _names(r["tables"])} for _, r in big.iterrows()]
    return out


def _names(tables) -> list:
    if not isinstance(tables, str) or not tables:
        return []
    return [t.strip() for t in tables.split(",") if t.strip()]


def _tables(tx, top) -> list:
    acc = {}
    for tables, nbytes, rows in zip(tx["tables"], tx["bytes"], tx["rows"]):
        names = _names(tables) or ["(statements: no table map)"]
        share = int(nbytes) / len(names)
        for name in names:
            a = acc.setdefault(name, [0.0, 0, 0])
            a[0] += share
            a[1] += 1
            a[2] += 0 if pd.isna(rows) else int(rows)
    ranked = sorted(acc.items(), key=lambda kv: (-kv[1][0], kv[0]))[:top]
    return [{"table": t, "bytes": int(round(b)), "transactions": n, "rows": r}
            for t, (b, n, r) in ranked]


def _unsynced(size, tx, sync_binlog):
    if sync_binlog is None:
        return None
    if sync_binlog == 0:
        return int(size)
    if sync_binlog == 1 or not len(tx):
        return 0
    return int(pd.to_numeric(tx["bytes"]).tail(sync_binlog - 1).sum())
