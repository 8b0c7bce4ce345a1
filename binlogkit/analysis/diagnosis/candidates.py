"""Candidate stalls: every stretch that *may* be a stall, before any cause is decided.

Three shapes (columns as :data:`binlogkit.analysis.diagnosis.verdict.STALL_COLUMNS`):

* ``pile-up``: slow statements released at one instant after waiting since a
  common one (:mod:`binlogkit.analysis.pileups`);
* ``spread``: at least three slow but cheap statements at once, not released
  together (:func:`find_spread`);
* ``commit-gap``: a stretch of the binlogs with no commit (or far fewer) where the
  rate around it says commits were due (:mod:`binlogkit.analysis.commitgaps`),
  that no slow-log candidate covers (one that does is marked ``slow log +
  binlog``).

Whether work waited in a candidate, and why, is for the cause rules.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from binlogkit.analysis.pileups import (
    PILEUP_COLUMNS, describe, find_pileups, pileup_frame, seconds, slow_statements,
)

__all__ = ["find_candidates", "find_spread", "join_gaps", "trickle", "lone_waits", "CHEAP_ROWS"]

CHEAP_ROWS = 1000                     # a "spread" slowdown counts statements this cheap


def find_spread(statements: pd.DataFrame, exclude=(), min_latency=0.5, min_concurrent=3,
                min_duration=0.5, merge_gap=1.0, cheap_rows=CHEAP_ROWS) -> pd.DataFrame:
    """Periods when ``min_concurrent`` slow but cheap statements ran at once (not pile-ups).

    Cheap: at most ``cheap_rows`` rows examined (or not logged).  Statements
    slow because they do a lot of work are not a stall.
    """
    cand = slow_statements(statements, min_latency).drop(index=list(exclude), errors="ignore")
    cand = cand[~(cand["rows_examined"] > cheap_rows)]
    if len(cand) < min_concurrent:
        return pd.DataFrame(columns=PILEUP_COLUMNS)
    half = cand["time_res_s"].to_numpy() / 2
    t0, t1 = seconds(cand["start"]) + half, seconds(cand["end"]) + half
    points = np.concatenate([t0, t1])
    delta = np.concatenate([np.ones(len(t0)), -np.ones(len(t1))])
    order = np.lexsort((delta, points))               # at a tie, close before open
    pts, depth = points[order], np.cumsum(delta[order])
    periods = []
    for k in range(len(pts) - 1):
        if depth[k] >= min_concurrent:
            if periods and pts[k] - periods[-1][1] <= merge_gap:
                periods[-1][1] = pts[k + 1]
            else:
                periods.append([pts[k], pts[k + 1]])
    found = []
    for a, b in periods:
        if b - a < min_duration:
            continue
        found.append((a, b, cand.index[(t0 < b) & (t1 > a)]))
    return pileup_frame(found, statements)


def find_candidates(statements, gaps=None, min_latency=0.5, min_duration=0.5) -> pd.DataFrame:
    """Pile-ups, spread periods and commit gaps, by start (module doc)."""
    piles = find_pileups(statements, min_latency=min_latency, min_duration=min_duration)
    piles.insert(3, "shape", "pile-up")
    taken = [m for ms in piles["members"] for m in ms]
    spread = find_spread(statements, exclude=taken, min_latency=min_latency,
                         min_duration=min_duration)
    spread.insert(3, "shape", "spread")
    frames = [f for f in (piles, spread) if len(f)]
    cands = (pd.concat(frames, ignore_index=True) if frames
             else pd.DataFrame(columns=PILEUP_COLUMNS[:3] + ["shape"] + PILEUP_COLUMNS[3:]))
    cands = _time_res(cands, statements)
    cands = join_gaps(cands, gaps, statements, min_latency)
    return cands.sort_values("start", kind="stable").reset_index(drop=True)


def _time_res(stalls, statements):
    """Whole seconds when any member's time has whole seconds only."""
    stalls = stalls.copy()
    res = [float(statements.loc[m, "time_res_s"].max()) if len(m) and "time_res_s" in statements
           else 1.0 for m in stalls["members"]]
    stalls["time_res_s"] = pd.Series(res, index=stalls.index, dtype="float64")
    stalls["evidence"] = "slow log"
    stalls["commit_gap_s"] = np.nan
    stalls["trickle"] = 0
    return stalls


def join_gaps(stalls, gaps, statements, min_latency=0.5):
    """Mark slow-log candidates that a commit gap overlaps; a gap no candidate
    covers becomes a candidate of its own (shape ``commit-gap``, members: the
    statements slower than ``min_latency`` that were running during it)."""
    if gaps is None or not len(gaps):
        return stalls
    stalls = stalls.copy()
    extra = []
    for _, g in gaps.iterrows():
        pad = pd.Timedelta(seconds=g["time_res_s"])
        hit = (stalls["start"] <= g["end"] + pad) & (stalls["end"] >= g["start"] - pad)
        if hit.any():
            for i in stalls.index[hit]:
                stalls.at[i, "evidence"] = "slow log + binlog"
                old = stalls.at[i, "commit_gap_s"]
                stalls.at[i, "commit_gap_s"] = max(g["duration_s"], 0 if pd.isna(old) else old)
            continue
        extra.append(gap_candidate(g, statements, min_latency))
    if extra:
        stalls = pd.concat([stalls, pd.DataFrame(extra)], ignore_index=True) if len(stalls) \
            else pd.DataFrame(extra)
    return stalls


def gap_candidate(g, statements, min_latency=0.5) -> dict:
    """A commit gap as a candidate row."""
    during = statements[(statements["start"] < g["end"]) & (statements["end"] > g["start"])
                        & (statements["query_time"] >= min_latency)]
    row = {"start": g["start"], "end": g["end"], "duration_s": round(float(g["duration_s"]), 3),
           "shape": "commit-gap", "members": list(during.index)}
    row.update(describe(during))
    row.update(time_res_s=float(g["time_res_s"]), evidence="binlog",
               commit_gap_s=float(g["duration_s"]), trickle=trickle(g))
    return row


def trickle(row) -> int:
    """The fewest commits in one second of a whole-second gap (0: commits stopped)."""
    got = row.get("trickle", 0)
    return 0 if got is None or pd.isna(got) else int(got)


def lone_waits(statements, rotations, cands, min_wait=0.5) -> list:
    """Candidates of shape ``wait`` for rotations no candidate starts near: a
    write or COMMIT at least ``min_wait`` s slow that began in the ROTATE event's
    second (the statement whose commit filled the file, waiting for the
    rotation; a single writer leaves no pile-up, and a commit gap next to idle
    time or low traffic may not stand out from the rate around it)."""
    from binlogkit.diagnosis.causes.binlog_rotation import AFTER_S, BEFORE_S, LEADER_SLACK_S
    if rotations is None or not len(rotations) or statements is None or not len(statements):
        return []
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
