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

import numpy as np
import pandas as pd

from binlogkit.analysis.pileups import seconds

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
    row.update(cause=CAUSE, rotation_from=rot["from_file"], rotation_to=rot["to_file"],
               rotation_at=rot["at"], rotation_size=rot["size_bytes"])
    return _split(row, tl)


def longest_wait(row, waits, prefer_waits=False) -> float:
    """A commit gap's length from the binlogs (whole seconds: an estimate from the
    commits missing) or, when longer (``prefer_waits``: when there is one), the
    longest wait it released (a blocked statement's Query_time): never more than
    the gap's span."""
    dur = float(row["duration_s"])
    if len(waits):
        span = (row["end"] - row["start"]).total_seconds() + float(row["time_res_s"])
        longest = min(float(waits["query_time"].max()), span)
        dur = longest if prefer_waits else max(dur, longest)
    return round(dur, 3)


def _opened_bound(row, rot):
    """With nothing waiting to show it, a rotation's stall ends at the latest a
    second after the next file was opened (its format description's whole-second
    time: the server syncs the finished file, then opens the next)."""
    nxt = rot.get("next_opened_at") if hasattr(rot, "get") else None
    if row["shape"] != "commit-gap" or nxt is None or pd.isna(nxt):
        return [row]
    bound = pd.Timestamp(nxt) + pd.Timedelta(seconds=1)
    if row["start"] < bound < row["end"]:
        row["end"] = bound
        row["duration_s"] = round(min(float(row["duration_s"]),
                                      (bound - row["start"]).total_seconds()), 3)
    return [row]


def _split(row, tl):
    """[rotation part] or [rotation part, remainder] (module doc)."""
    res = float(row["time_res_s"])
    waits = tl.waits_in(row["start"], row["end"], res)
    if not len(waits):
        return _opened_bound(row, row.get("_rot"))
    late = waits["start"] > row["start"] + pd.Timedelta(seconds=res + LATER_S)
    if late.all() and row["shape"] == "commit-gap":
        # every wait began well after the rotation: they waited for something after it
        cut = waits["start"].min()
        if (cut - row["start"]).total_seconds() >= MIN_REST_S:
            head = _opened_bound(dict(row, end=cut, duration_s=round(
                (cut - row["start"]).total_seconds(), 3)), row.get("_rot"))[0]
            rest = dict(row, start=cut, cause=None, rotation_from=None, rotation_to=None,
                        rotation_at=pd.NaT, rotation_size=pd.NA, _after_rotation=True, _rot=None,
                        duration_s=round((row["end"] - cut).total_seconds(), 3))
            return [head, rest]
    ends = waits["end"].sort_values()
    first = ends.iloc[0]
    if first <= row["start"]:
        first = ends[ends > row["start"]].min() if (ends > row["start"]).any() else first
    released = ends[ends <= first + pd.Timedelta(seconds=RELEASE_S + res)]
    cut = max(released.max(), row["start"])
    later = waits[waits["end"] > cut + pd.Timedelta(seconds=LATER_S + res)]
    tl.claim(waits[waits["end"] <= cut])
    out = [row]
    if row["shape"] == "commit-gap" and res:
        # whole seconds: the longest wait it released says how long it held
        row["duration_s"] = longest_wait(row, waits[waits["end"] <= cut], prefer_waits=True)
    if row["shape"] == "commit-gap" and cut < row["end"]:
        old_end = row["end"]
        row["end"] = cut
        if not res:
            row["duration_s"] = round((cut - row["start"]).total_seconds(), 6)
        if len(later) and (old_end - cut).total_seconds() >= MIN_REST_S:
            rest = dict(row, start=cut, end=old_end, cause=None, rotation_from=None,
                        rotation_to=None, rotation_at=pd.NaT, rotation_size=pd.NA,
                        _after_rotation=True,
                        duration_s=round((old_end - cut).total_seconds(), 3))
            rest["_rot"] = None
            out.append(rest)
    return out


BEFORE_S, AFTER_S = 1.0, 2.0          # rotation time vs a pile-up's start
GAP_ROTATION_BEFORE_S, GAP_ROTATION_AFTER_S = 2.0, 1.0   # rotation time vs a gap's start
LEADER_SLACK_S = 1.05                 # rotation time vs a piled statement's logged start


def match_rotations(cands, rotations, statements=None) -> dict:
    """{candidate index: rotation row}; each rotation goes to the nearest candidate.

    A pile-up matches when the ROTATE event's time is within [S - 1 s, S + 2 s]
    of its start S, or is the second one of its statements began in (that
    statement filled the file, then waited for its own rotation, however long
    it ran before); a commit gap when its start is within 2 s after / 1 s
    before the rotation."""
    if rotations is None or not len(rotations) or not len(cands):
        return {}
    at = seconds(rotations["at"])
    starts = seconds(cands["start"])
    pairs = []
    for (i, row), s in zip(cands.iterrows(), starts):
        member_starts = _member_starts(row, statements)
        gap = row["shape"] == "commit-gap"
        for j, a in enumerate(at):
            if gap:
                if a - GAP_ROTATION_AFTER_S <= s <= a + GAP_ROTATION_BEFORE_S:
                    pairs.append((abs(s - a), i, j))
            elif a - BEFORE_S <= s <= a + AFTER_S:
                pairs.append((abs(s - (a + 0.5)), i, j))
            elif len(member_starts) and np.any(np.abs(member_starts - a) <= LEADER_SLACK_S):
                pairs.append((float(np.min(np.abs(member_starts - a))), i, j))
    out, used = {}, set()
    for _, i, j in sorted(pairs):
        if i not in out and j not in used:
            out[i] = rotations.iloc[j]
            used.add(j)
    return out


def _member_starts(row, statements) -> np.ndarray:
    if statements is None or row["shape"] != "pile-up" or not len(row["members"]):
        return np.zeros(0)
    return seconds(statements.loc[row["members"], "start"])


def lone_waits(statements, rotations, cands, min_wait=0.5) -> list:
    """Candidates of shape ``wait`` for rotations no candidate starts near: a
    write or COMMIT at least ``min_wait`` s slow that began in the ROTATE event's
    second (the statement whose commit filled the file, waiting for the
    rotation; a single writer leaves no pile-up, and a commit gap next to idle
    time or low traffic may not stand out from the rate around it)."""
    if rotations is None or not len(rotations) or statements is None or not len(statements):
        return []
    from binlogkit.analysis.pileups import describe, slow_statements
    slow = slow_statements(statements, min_wait)
    slow = slow[slow["kind"].astype(str).isin(("write", "commit"))]
    if not len(slow):
        return []
    starts = seconds(slow["start"])
    cand_starts = seconds(cands["start"]) if len(cands) else np.zeros(0)
    taken = {m for ms in cands["members"] for m in ms} if len(cands) else set()
    out = []
    for a in seconds(rotations["at"].dropna()):
        if np.any((cand_starts >= a - BEFORE_S) & (cand_starts <= a + AFTER_S)):
            continue
        hit = slow[np.abs(starts - a) <= LEADER_SLACK_S]
        if not len(hit) or taken & set(hit.index):
            continue
        res = float(hit["time_res_s"].max())
        end = hit["end"].max()
        row = {"start": hit["start"].min(), "end": end,
               "duration_s": round(float(hit["query_time"].max()), 3), "shape": "wait",
               "members": list(hit.index), "time_res_s": res, "evidence": "slow log",
               "commit_gap_s": float("nan"), "trickle": 0}
        row.update(describe(hit))
        out.append(row)
    return out
