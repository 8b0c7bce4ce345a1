"""``unknown``: work waited, and no rule above explains why.

What the data show is in the hint: reads and writes released together (a
server-wide pause: CPU, swap), cheap statements slowed together (the time-zone
lock of ``time_zone=SYSTEM``), only reads piled up (a metadata or table lock),
or writes released together at a time the binlogs given do not cover.
"""
from __future__ import annotations

CAUSE = "unknown"


def decide(row, tl):
    row.update(cause=CAUSE, hint=_hint(row, tl))
    return [row]


def _hint(row, tl) -> str:
    reads, writes = row["reads"], row["writes"] + row["commits"]
    covered = tl.covered
    if row["shape"] == "commit-gap":
        return ("the binlogs show commits missing where the rate around them says many were due, "
                "and work waited, but neither a rotation nor a lock explains it")
    if row["shape"] == "spread":
        cheap = not (row["rows_examined_median"] > 1000)
        if reads and writes and cheap:
            return ("time-zone lock? cheap reads and writes slowed down together over "
                    f"{row['duration_s']:.1f} s instead of being released at one instant, as "
                    "with time_zone=SYSTEM (glibc tzset lock); try time_zone='+00:00'")
        return ("several slow statements at once, not released together: look at the query "
                "classes (plans, load)")
    if reads and writes and reads >= 0.3 * row["queries"]:
        text = ("reads and writes were released together: a server-wide lock or pause (CPU, "
                "swap, FLUSH TABLES WITH READ LOCK), not the binlog")
    elif writes:
        if covered is None or not (covered[0] <= row["start"] <= covered[1]):
            text = ("writes released together, but the binlogs given do not cover this time; "
                    "pass the binlog files of that period to check for a rotation")
        else:
            text = ("writes and COMMITs released together with no binlog rotation near: a "
                    "commit-path stall (binlog or redo log sync, disk)")
    else:
        text = "only reads piled up: a metadata lock or a table lock (DDL, FLUSH TABLES)"
    rot = row.get("_rot")
    if rot is not None:
        text += (f"; a binlog rotation ({rot.from_file} -> {rot.to_file}) happened at its "
                 "start, but a binlog stall holds writes only")
    return text
