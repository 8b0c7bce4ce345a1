"""``lock``: commits held by a lock, not by the binlog.

FLUSH TABLES WITH READ LOCK (backups), LOCK TABLES ... WRITE, metadata locks,
a long transaction's row locks.  Shown by: the waiting statements spent most
of their time in Lock_time; or only UPDATE/DELETE statements waited (rows
another transaction held); or commits stopped (not slowed) while writes waited
across the stop, with no rotation explaining it.  The last is what FLUSH TABLES
WITH READ LOCK leaves on MySQL, whose blocked INSERTs log a Lock_time of ~0:
their statements began before the stop and committed after it.
"""
from __future__ import annotations

from binlogkit.diagnosis.timeline import trickle

from binlogkit.diagnosis.causes.binlog_rotation import longest_wait

CAUSE = "lock"
LOCK_SHARE = 0.5
_ROW_LOCKERS = frozenset({"UPDATE", "DELETE"})


def row_lock_shape(row) -> bool:
    """Only UPDATE/DELETE statements waited (no INSERT, no COMMIT): they wait for
    the rows another transaction holds; a commit-path stall holds every commit."""
    queries = row.get("member_queries")
    if row["shape"] != "pile-up" or not queries:
        return False
    words = set()
    for q in queries:
        if not isinstance(q, str):
            return False
        words.add(q.lstrip().split(None, 1)[0].upper() if q.strip() else "")
    return bool(words) and words <= _ROW_LOCKERS


def decide(row, tl):
    got = _decide(row, tl)
    if got and row["shape"] == "commit-gap":
        waits = tl.waits_in(row["start"], row["end"], row["time_res_s"])
        row["duration_s"] = longest_wait(row, waits)
        tl.claim(waits)
    return got


def _decide(row, tl):
    if row["queries"] and row["lock_share"] >= LOCK_SHARE:
        row.update(cause=CAUSE, hint=(
            f"lock waits: Lock_time is {row['lock_share']:.0%} of the statements' time (row, "
            "table or metadata locks); look for the session holding them (a long transaction, "
            "LOCK TABLES, FLUSH TABLES WITH READ LOCK)"))
        return [row]
    if row_lock_shape(row):
        row.update(cause=CAUSE, hint=(
            "only UPDATE/DELETE statements waited and were released together (no INSERT, no "
            "COMMIT): they waited for rows another transaction held until it ended; look for "
            "a long transaction on these tables"))
        return [row]
    if row["shape"] == "commit-gap" and not trickle(row):
        waits = tl.waits_in(row["start"], row["end"], row["time_res_s"])
        if waits:
            row.update(cause=CAUSE, hint=_stopped_hint(waits))
            return [row]
    return None


def _stopped_hint(waits) -> str:
    n = len(waits)
    src = " and ".join(sorted({w.source for w in waits}))
    lt = sum(w.lock_time for w in waits) / max(sum(w.query_time for w in waits), 1e-9)
    text = (f"commits stopped with no rotation near while {n} write{'s' if n != 1 else ''} "
            f"waited across the stop ({src}: began before, committed after)")
    if lt < 0.1:
        text += ("; their Lock_time is ~0, as for statements held by FLUSH TABLES WITH READ "
                 "LOCK")
    return text + ("; look for FLUSH TABLES WITH READ LOCK (backups), LOCK TABLES or a long "
                   "transaction at that time")
