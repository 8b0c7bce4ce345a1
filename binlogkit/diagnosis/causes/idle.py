"""``idle``: no commit, and no work waiting for one.  Never reported as a stall.

A commit gap is a stall only when something shows work that waited through it:
a slow-log write or COMMIT that ran across it, or a transaction whose commit
came long after its statement began (MySQL's commit timestamps; online, the
arrival of its events).  Without such evidence the server simply had nothing to
commit (a quiet night, a paused job, the end of a batch), even right after
``FLUSH BINARY LOGS`` or a rotation.

Where the slow log logs none of the statements around the gap (MariaDB binlogs
carry no commit times; MySQL's show only transactions queued behind another), a
gap that begins at a size rotation is left to the rotation rule (the statement
whose commit filled the file waited for that rotation); any other such gap is
idle.  A live watcher is never so blind: the arrival of every transaction shows
whether it was written late.
"""
from __future__ import annotations

CAUSE = "idle"
SIZE_SHARE = 0.9        # a file this close to the largest rotated file was rotated by size


def decide(row, tl):
    if row["shape"] != "commit-gap":
        return None                       # slow-log shapes: statements did wait
    if tl.waits_in(row["start"], row["end"], row["time_res_s"]):
        return None
    if tl.blind(row["start"]) and _size_rotation_at(row, tl):
        return None
    row.update(cause=CAUSE, hint="no statement waited: nothing to commit")
    return [row]


def _size_rotation_at(row, tl) -> bool:
    rot = row.get("_rot")
    if rot is None or rot.size_bytes is None:
        return False
    sizes = [r.size_bytes for r in tl.rotations if r.size_bytes is not None]
    return bool(sizes) and int(rot.size_bytes) >= SIZE_SHARE * int(max(sizes))
