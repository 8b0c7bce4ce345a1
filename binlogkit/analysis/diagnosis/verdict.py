"""The verdict: each candidate through the cause rules, in order, into stalls and idle time.

``decide(candidates, timeline)`` returns ``(stalls, idle)``.  ``stalls`` has
one row per stall (:data:`STALL_COLUMNS`, documented in
:mod:`binlogkit.analysis.stalls`); ``idle`` the commit gaps where nothing
waited (``start``, ``end``, ``duration_s``), for the timeline only.

A rule may split a candidate (a rotation explains only the waits it released);
the remainder goes through the rules again from the first, without the rotation.
"""
from __future__ import annotations

import pandas as pd

from binlogkit.analysis.diagnosis.causes import IDLE, RULES
from binlogkit.analysis.diagnosis.causes.binlog_rotation import match_rotations

__all__ = ["decide", "STALL_COLUMNS", "IDLE_COLUMNS"]

STALL_COLUMNS = ["start", "end", "duration_s", "shape", "queries", "writes", "commits", "reads",
                 "others", "max_query_time", "lock_share", "rows_examined_median", "top_classes",
                 "members", "cause", "rotation_from", "rotation_to", "rotation_at",
                 "rotation_size", "hint", "time_res_s", "evidence", "commit_gap_s"]
IDLE_COLUMNS = ["start", "end", "duration_s", "hint"]
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


def decide(cands: pd.DataFrame, tl):
    """(stalls, idle) of the candidates (module doc)."""
    near = match_rotations(cands, tl.rotations, tl.statements)
    decided = []
    cands = cands.sort_values("start", kind="stable")      # waits are claimed in time order
    for i, row in cands.iterrows():
        r = row.to_dict()
        r.update(cause=None, rotation_from=None, rotation_to=None, rotation_at=pd.NaT,
                 rotation_size=pd.NA, hint=None, _rot=near.get(i))
        decided += _chain(r, tl)
    stalls = _merge([r for r in decided if r["cause"] != IDLE])
    idle = [r for r in decided if r["cause"] == IDLE]
    for r in stalls:
        if r["cause"] != "restart":
            notes = _restart_notes(r["start"], r["end"], tl.restarts)
            if notes:
                r["hint"] = "; ".join([r["hint"]] + notes) if r["hint"] else "; ".join(notes)
    return _stall_frame(stalls), _idle_frame(idle)


def _merge(rows) -> list:
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
                                           (last["end"] - last["start"]).total_seconds()), 3)
            last["members"] = list(last["members"]) + [m for m in r["members"]
                                                       if m not in last["members"]]
            continue
        out.append(r)
    return out


def _stall_frame(rows) -> pd.DataFrame:
    df = pd.DataFrame([{c: r.get(c) for c in STALL_COLUMNS} for r in rows], columns=STALL_COLUMNS)
    for col in ("start", "end", "rotation_at"):
        df[col] = pd.to_datetime(df[col], utc=True)
    df["rotation_size"] = pd.array([None if pd.isna(v) else int(v) for v in df["rotation_size"]],
                                   dtype="Int64")
    for col in ("time_res_s", "commit_gap_s", "duration_s", "max_query_time", "lock_share",
                "rows_examined_median"):
        df[col] = df[col].astype("float64")
    for col in ("queries", "writes", "commits", "reads", "others"):
        df[col] = df[col].astype("int64")
    df["hint"] = pd.Series([h if isinstance(h, str) else None for h in df["hint"]],
                           index=df.index, dtype="object")
    df = df.sort_values("start", kind="stable").reset_index(drop=True)
    return df


def _idle_frame(rows) -> pd.DataFrame:
    df = pd.DataFrame([{c: r.get(c) for c in IDLE_COLUMNS} for r in rows], columns=IDLE_COLUMNS)
    for col in ("start", "end"):
        df[col] = pd.to_datetime(df[col], utc=True)
    df["duration_s"] = df["duration_s"].astype("float64")
    return df.sort_values("start", kind="stable").reset_index(drop=True)


def _restart_notes(start, end, restarts):
    """Server starts during the stall or in the minute before it (cold caches, recovery)."""
    if restarts is None or not len(restarts):
        return []
    out = []
    for _, r in restarts.iterrows():
        if start - pd.Timedelta(seconds=RESTART_BEFORE_S) <= r["at"] <= end:
            ago = (start - r["at"]).total_seconds()
            when = f"{ago:.0f} s before it" if ago > 0 else "during it"
            out.append(f"the server started {when} ({r['file']} was created at start-up at "
                       f"{r['at']:%H:%M:%S}Z)")
    return out

