"""Slow-log entries as a pandas DataFrame (pandas is imported here only).

Columns (one row per entry, file order):

=================  ==========================================================
file, offset, line where the entry starts (byte offset, 1-based line)
start, end         ``datetime64[ns, UTC]``: statement start and end instants
ts_inherited       True when ``# Time`` was carried over from an earlier entry
user, host, ip, db identity (db from ``use`` or ``Schema:``; inherited)
cmd                ``Query`` or ``Admin``
query_time,        seconds (float)
lock_time
rows_sent,         ``Int64`` (nullable)
rows_examined
id                 32-hex MD5 of the fingerprint (pt-query-digest 3.x query ID)
fingerprint, query str
<Key>              every other ``Key: value`` attribute, typed (bool/number/str;
                   ``*_time`` in seconds, MariaDB ms converted)
=================  ==========================================================
"""

from __future__ import annotations

__all__ = ["read_slowlog", "entries_frame"]


def entries_frame(entries):
    import pandas as pd

    from binlogkit.slowlog.fields import BASE_COLUMNS, entry_row
    rows = []
    for ev in entries:
        row = entry_row(ev)
        attrs = row.pop("attrs")
        for k, v in attrs.items():
            row.setdefault(k, v)
        rows.append(row)
    df = pd.DataFrame(rows, columns=None if rows else BASE_COLUMNS)
    for col in ("start", "end"):
        df[col] = pd.to_datetime(df[col], utc=True, format="ISO8601")
    for col in ("rows_sent", "rows_examined"):     # a count no int64 holds is corrupt: <NA>
        df[col] = df[col].map(lambda v: v if v != v or -(1 << 63) <= v < (1 << 63) else None,
                              na_action="ignore").astype("Int64")
    for col in ("query_time", "lock_time"):
        df[col] = df[col].astype("float64")
    return df


def read_slowlog(path, server_tz=None, server_version=None):
    """Parse one log (or a list of logs) into a DataFrame; see the module doc.

    Times are UTC; zone-less ones are read in the server offset the entries'
    ``SET timestamp`` shows (``server_tz``, then this machine's zone, only where
    none does, with a ZoneWarning).  ``df.attrs["server_zone"]`` says which
    (e.g. ``UTC-05:00 (from SET timestamp)``), ``df.attrs["utc_offsets"]`` lists
    the derived offsets in seconds (two across a DST change)."""
    from binlogkit.slowlog.clock import describe_zone, warn_zone
    from binlogkit.slowlog.parser import ParseStats, parse_slowlog
    stats = ParseStats()
    df = entries_frame(parse_slowlog(path, zone=server_tz, server_version=server_version,
                                     stats=stats))
    df.attrs["server_zone"] = describe_zone(stats, server_tz)
    df.attrs["utc_offsets"] = sorted(set(stats.utc_offsets))
    warn_zone(stats, server_tz)
    return df
