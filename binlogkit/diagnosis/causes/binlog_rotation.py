"""``binlog_rotation``: commits waited while a binlog file rotated.

At rotation the server syncs the finished file to disk while it holds the
binlog lock; every commit waits for that sync (how long depends on how much of
the file was not yet on disk).  A candidate is a rotation stall when a ROTATE
event (its time is the start, in whole seconds, of the statement whose commit
filled the file) is at its start, or is the second one of its piled statements
began in, and what waited were writes or COMMITs (reads do not need the binlog
lock).  Each rotation explains at most one stall.

The rotation explains only the waits it released: the waiting statements whose
ends cluster at the first release after it.  Waits released later (FLUSH TABLES
WITH READ LOCK or LOCK TABLES taken as the rotation ended) are split off as a
remainder for the other rules; time after the release with nothing waiting is
not part of the stall.
"""
from __future__ import annotations

CAUSE = "binlog_rotation"
MIN_WRITE_SHARE = 0.5
RELEASE_S = 0.5           # waits released together end within this (plus the time resolution)
MIN_REST_S = 0.5          # a shorter remainder is not a stall of its own
LATER_S = 1.0             # a wait ending this much after the release is not the rotation's


def write_share(row) -> float:
    return (row["writes"] + row["commits"]) / row["queries"] if row["queries"] else 0.0


def explains(row) -> bool:
    """A rotation holds commits: a pile-up of writes/COMMITs, a commit gap, or the
    write that filled the file waiting for it."""
    if row["shape"] in ("commit-gap", "wait"):
        return True
    return row["shape"] == "pile-up" and write_share(row) >= MIN_WRITE_SHARE


def decide(row, tl):
    rot = row.get("_rot")
    if rot is None or row.get("_after_rotation") or not explains(row):
        return None
    row.update(cause=CAUSE, rotation_from=rot.from_file, rotation_to=rot.to_file,
               rotation_at=rot.at, rotation_size=rot.size_bytes)
    return _split(row, tl)


def longest_wait(row, waits, prefer_waits=False) -> float:
    """A commit gap's length from the binlogs (whole seconds: an estimate from the
    commits missing) or, when longer (``prefer_waits``: when there is one), the
    longest wait it released (a blocked statement's Query_time): never more than
    the gap's span."""
    dur = float(row["duration_s"])
    if waits:
        span = row["end"] - row["start"] + float(row["time_res_s"])
        longest = min(max(w.query_time for w in waits), span)
        dur = longest if prefer_waits else max(dur, longest)
    return round(dur, 3)


def _opened_bound(row, rot):
    """With nothing waiting to show it, a rotation's stall ends at the latest when
    the next file was open (``opened_by``: the server syncs the finished file,
    then opens the next)."""
    bound = None if rot is None else rot.opened_by
    if row["shape"] != "commit-gap" or bound is None:
        return [row]
    if row["start"] < bound < row["end"]:
        row["end"] = bound
        row["duration_s"] = round(min(float(row["duration_s"]), bound - row["start"]), 3)
    return [row]


def _ended(row, cut):
    """The release ``cut``, or earlier the instant the old file is known to have been
    closed (``ended_by``: it held nothing after; a wait's end may be late by its
    time resolution)."""
    rot = row.get("_rot")
    bound = None if rot is None else rot.ended_by
    return bound if bound is not None and row["start"] < bound < cut else cut


def _rest(row, cut, end) -> dict:
    rest = dict(row, start=cut, end=end, cause=None, rotation_from=None, rotation_to=None,
                rotation_at=None, rotation_size=None, _after_rotation=True,
                duration_s=round(end - cut, 3))
    rest["_rot"] = None
    return rest


def _split(row, tl):
    """[rotation part] or [rotation part, remainder] (module doc)."""
    res = float(row["time_res_s"])
    waits = tl.waits_in(row["start"], row["end"], res)
    if not waits:
        return _opened_bound(row, row.get("_rot"))
    late = [w.start > row["start"] + res + LATER_S for w in waits]
    if all(late) and row["shape"] == "commit-gap":
        # every wait began well after the rotation: they waited for something after it
        cut = min(w.start for w in waits)
        if cut - row["start"] >= MIN_REST_S:
            head = _opened_bound(dict(row, end=cut, duration_s=round(cut - row["start"], 3)),
                                 row.get("_rot"))[0]
            return [head, _rest(row, cut, row["end"])]
    ends = sorted(w.end for w in waits)
    first = ends[0]
    if first <= row["start"]:
        after = [e for e in ends if e > row["start"]]
        first = min(after) if after else first
    opened = _released_after_open(row, first, res)
    if opened is not None:
        return opened
    released = [e for e in ends if e <= first + RELEASE_S + res]
    cut = max(max(released), row["start"])
    later = [w for w in waits if w.end > cut + LATER_S + res]
    mine = [w for w in waits if w.end <= cut]
    tl.claim(mine)
    out = [row]
    if row["shape"] == "commit-gap" and res:
        # whole seconds: the longest wait it released says how long it held
        row["duration_s"] = longest_wait(row, mine, prefer_waits=True)
    if row["shape"] == "commit-gap" and cut < row["end"]:
        old_end = row["end"]
        row["end"] = _ended(row, cut)
        if not res:
            row["duration_s"] = round(row["end"] - row["start"], 6)
        if later and old_end - cut >= MIN_REST_S:
            out.append(_rest(row, cut, old_end))
    return out


def _released_after_open(row, first, res):
    """Nothing was released until well after the rotation is known to have ended
    (``ended_by``): what held the waits after it (a lock taken as it ended) is a
    remainder; None when the first release is the rotation's."""
    rot = row.get("_rot")
    bound = None if rot is None else rot.ended_by
    if (row["shape"] != "commit-gap" or bound is None or not row["start"] < bound < row["end"]
            or first <= bound + LATER_S + res or row["end"] - bound < MIN_REST_S):
        return None
    head = dict(row, end=bound, duration_s=round(min(float(row["duration_s"]),
                                                     bound - row["start"]), 3))
    return [head, _rest(row, bound, row["end"])]


BEFORE_S, AFTER_S = 1.0, 2.0          # rotation time vs a pile-up's start
GAP_ROTATION_BEFORE_S, GAP_ROTATION_AFTER_S = 2.0, 1.0   # rotation time vs a gap's start
LEADER_SLACK_S = 1.05                 # rotation time vs a piled statement's logged start


def match_rotations(cands, rotations) -> dict:
    """{candidate index: Rotation}; each rotation goes to the nearest candidate.

    A pile-up matches when the ROTATE event's time is within [S - 1 s, S + 2 s]
    of its start S, or is the second one of its statements began in
    (``member_starts``: that statement filled the file, then waited for its own
    rotation, however long it ran before); a commit gap when its start is
    within 2 s after / 1 s before the rotation."""
    rots = [(j, r.at) for j, r in enumerate(rotations) if r.at is not None]
    if not rots or not cands:
        return {}
    pairs = []
    for i, row in enumerate(cands):
        s = row["start"]
        starts = row.get("member_starts") or () if row["shape"] == "pile-up" else ()
        gap = row["shape"] == "commit-gap"
        for j, a in rots:
            if gap:
                if a - GAP_ROTATION_AFTER_S <= s <= a + GAP_ROTATION_BEFORE_S:
                    pairs.append((abs(s - a), i, j))
            elif a - BEFORE_S <= s <= a + AFTER_S:
                pairs.append((abs(s - (a + 0.5)), i, j))
            elif starts:
                near = min(abs(m - a) for m in starts)
                if near <= LEADER_SLACK_S:
                    pairs.append((near, i, j))
    out, used = {}, set()
    for _, i, j in sorted(pairs):
        if i not in out and j not in used:
            out[i] = rotations[j]
            used.add(j)
    return out
