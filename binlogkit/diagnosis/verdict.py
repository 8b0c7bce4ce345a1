"""The verdict: each candidate through the cause rules, in order, into stalls and idle time.

``decide(candidates, timeline)`` returns ``(stalls, idle)``, lists of row
dicts (times as float epoch seconds): ``stalls`` one per stall with its
``cause``, ``hint`` and rotation fields; ``idle`` the commit gaps where nothing
waited.  Each candidate is decided with the timeline's horizon at its end +
``LOOKAHEAD_S`` (+ its time resolution), as a watcher decides it online.

A rule may split a candidate (a rotation explains only the waits it released);
the remainder goes through the rules again from the first, without the rotation.
"""
from __future__ import annotations

from binlogkit.diagnosis.causes import IDLE, RULES
from binlogkit.diagnosis.causes.binlog_rotation import match_rotations
from binlogkit.diagnosis.timeline import hhmmss

__all__ = ["decide", "decide_one", "merge", "restart_notes", "hhmmss", "RESTART_BEFORE_S"]

RESTART_BEFORE_S = 10.0


def _chain(row, tl) -> list:
    for rule in RULES:
        got = rule.decide(row, tl)
        if got is None:
            continue
        out = []
        for r in got:
            out += [r] if r["cause"] is not None else _chain(r, tl)
        return out
    return [row]


def decide_one(row, tl) -> list:
    """The rows one candidate (``_rot`` already matched) is decided into."""
    row = dict(row)
    row.update(cause=None, rotation_from=None, rotation_to=None, rotation_at=None,
               rotation_size=None, hint=None)
    row.setdefault("_rot", None)
    tl.at(row["end"], float(row.get("time_res_s") or 0.0))
    try:
        return _chain(row, tl)
    finally:
        tl.at(float("inf"))


def decide(cands: list, tl):
    """(stalls, idle) of the candidates (module doc)."""
    near = match_rotations(cands, tl.rotations)
    decided = []
    order = sorted(range(len(cands)), key=lambda i: cands[i]["start"])  # claims in time order
    for i in order:
        decided += decide_one(dict(cands[i], _rot=near.get(i)), tl)
    stalls = merge([r for r in decided if r["cause"] != IDLE])
    idle = [r for r in decided if r["cause"] == IDLE]
    for r in stalls:
        if r["cause"] != "restart":
            notes = restart_notes(r["start"], r["end"], tl.restarts)
            if notes:
                r["hint"] = "; ".join([r["hint"]] + notes) if r["hint"] else "; ".join(notes)
    return stalls, idle


def merge(rows) -> list:
    """Overlapping stalls of one cause other than a rotation as one (a rotation's
    remainder and the commit gap that goes on after it)."""
    rows = sorted(rows, key=lambda r: r["start"])
    out = []
    for r in rows:
        last = out[-1] if out else None
        if (last is not None and last["cause"] == r["cause"] and r["cause"] != "binlog_rotation"
                and r["start"] <= last["end"]):
            if r["end"] > last["end"]:
                last["end"] = r["end"]
            last["duration_s"] = round(max(last["duration_s"], r["duration_s"],
                                           last["end"] - last["start"]), 3)
            last["members"] = list(last["members"]) + [m for m in r["members"]
                                                       if m not in last["members"]]
            continue
        out.append(r)
    return out


def restart_notes(start, end, restarts) -> list:
    """Server starts during the stall or in the ``RESTART_BEFORE_S`` before it
    (cold caches, recovery)."""
    out = []
    for r in restarts:
        if start - RESTART_BEFORE_S <= r.at <= end:
            ago = start - r.at
            when = f"{ago:.0f} s before it" if ago > 0 else "during it"
            out.append(f"the server started {when} ({r.file} was created at start-up at "
                       f"{hhmmss(r.at)}Z)")
    return out
