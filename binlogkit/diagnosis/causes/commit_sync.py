"""``commit_sync``: every commit was slow, none held by a lock or a rotation.

Writes and COMMITs waited and were released together without lock waits, with
no rotation near, inside the binlogs' time; or commits slowed down (a few in
each second), not stopped, while writes waited: time in the commit path (the
binlog or redo log sync: ``sync_binlog``, ``innodb_flush_log_at_trx_commit``)
or the disk under it.  Online, commits that stop again and again with only a
small burst between (``binlogkit watch``'s gap chains) and slowed writes
released one after another are such a trickle.
"""
from __future__ import annotations

from binlogkit.diagnosis.timeline import trickle

CAUSE = "commit_sync"
MIN_WRITE_SHARE = 0.5


def _covers(covered, t) -> bool:
    return covered is not None and covered[0] <= t <= covered[1]


def decide(row, tl):
    if row["shape"] == "commit-gap" and trickle(row):
        row.update(cause=CAUSE, hint=row.get("_trickle_hint") or (
            f"the binlogs show commits slowed down (at least {trickle(row)} in each of its "
            f"seconds) for about {row['commit_gap_s']:.1f} s, not stopped, with no rotation and "
            "no lock wait in the slow log: every commit was slow, i.e. the commit path (binlog "
            "or redo log sync, disk)"))
        return [row]
    writes = row["writes"] + row["commits"]
    share = writes / row["queries"] if row["queries"] else 0.0
    if (row["shape"] == "pile-up" and writes and not row["reads"] and share >= MIN_WRITE_SHARE
            and _covers(tl.covered, row["start"])):
        row.update(cause=CAUSE, hint=(
            "writes and COMMITs released together with no binlog rotation near: a commit-path "
            "stall (binlog or redo log sync, disk)"))
        return [row]
    return None
