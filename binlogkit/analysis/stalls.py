"""Stall episodes: pile-ups and slow periods, attributed to binlog rotations or explained by hints.

``find_stalls(statements, rotations, restarts)`` returns one row per episode:

=====================  =====================================================
start, end             ``datetime64[ns, UTC]``
duration_s             float
shape                  ``pile-up`` (released at one instant, see
                       :mod:`binlogkit.analysis.pileups`) or ``spread``
                       (several slow statements at once, not released
                       together, each examining at most 1000 rows)
queries, writes,       statements involved, by kind
commits, reads, others
max_query_time,        seconds; share of the time spent in Lock_time;
lock_share,            median Rows_examined; top query classes
rows_examined_median,
top_classes, members
cause                  ``binlog_rotation``, ``lock``, ``commit_sync`` or
                       ``unknown`` (below)
rotation_from,         the rotation that caused it (None otherwise)
rotation_to,
rotation_at,
rotation_size
hint                   for other causes: what the data show
time_res_s             1.0 when the times come from whole seconds (MariaDB's
                       ``# Time``, its binlog header times), 0.0 with µs
evidence               ``slow log``, ``binlog`` (a commit gap the slow log did
                       not show as a stall) or ``slow log + binlog``
commit_gap_s           the commit-free stretch of the binlogs in the stall
                       (:mod:`binlogkit.analysis.commitgaps`), NaN if none
=====================  =====================================================

Causes, decided from the data only:

* ``binlog_rotation``: a rotation explains it (below);
* ``lock``: the waiting statements spent most of their time in Lock_time, or
  the binlog shows no commit for that time with no rotation near and the slow
  log shows no pile-up (MariaDB's default ``log_slow_filter`` leaves most
  statements blocked by FLUSH TABLES WITH READ LOCK or LOCK TABLES out);
* ``commit_sync``: writes and COMMITs waited and were released together, not
  on locks, with no rotation near inside the binlogs' time: time spent in
  the commit path (binlog or redo log sync);
* ``unknown``: anything else (reads piled up too, slow periods, no binlogs
  for that time...).

A pile-up is a ``binlog_rotation`` stall when a ROTATE event's time (the
start, in whole seconds, of the statement whose commit filled the file) is
within ``[S - 1 s, S + 2 s]`` of the stall start S, or is the second in which
one of the piled statements began (that statement filled the file, then
waited for its own rotation, however long it ran before), and most piled
statements are writes or COMMITs: a rotation holds the binlog lock, which
reads do not need.  Each rotation explains at most one stall (the nearest).

``cadence(rotations, stalls)`` compares how often files rotate with how often
stalls happen, and counts how many rotations caused a stall (precision) and
how many stalls rotations explain (recall).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from binlogkit.analysis.pileups import (
    PILEUP_COLUMNS, describe, find_pileups, pileup_frame, seconds, slow_statements,
)

__all__ = ["find_stalls", "find_spread", "attribute", "cadence", "STALL_COLUMNS",
           "ROTATION_CAUSE", "LOCK_CAUSE", "COMMIT_SYNC_CAUSE", "UNKNOWN", "UNEXPLAINED", "CAUSES"]

ROTATION_CAUSE = "binlog_rotation"
LOCK_CAUSE = "lock"
COMMIT_SYNC_CAUSE = "commit_sync"
UNKNOWN = "unknown"
UNEXPLAINED = UNKNOWN            # the name before causes other than rotation existed
CAUSES = (ROTATION_CAUSE, LOCK_CAUSE, COMMIT_SYNC_CAUSE, UNKNOWN)
STALL_COLUMNS = ["start", "end", "duration_s", "shape", "queries", "writes", "commits", "reads",
                 "others", "max_query_time", "lock_share", "rows_examined_median", "top_classes",
                 "members", "cause", "rotation_from", "rotation_to", "rotation_at",
                 "rotation_size", "hint", "time_res_s", "evidence", "commit_gap_s"]
LOCK_SHARE = 0.5
GAP_ROTATION_BEFORE_S, GAP_ROTATION_AFTER_S = 2.0, 1.0   # rotation time vs a gap's start
BEFORE_S, AFTER_S = 1.0, 2.0          # rotation time vs stall start
LEADER_SLACK_S = 1.05                 # rotation time vs a piled statement's logged start
CHEAP_ROWS = 1000                     # a "spread" slowdown counts statements this cheap
MIN_WRITE_SHARE = 0.5
RESTART_BEFORE_S = 60.0


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


def find_stalls(statements, rotations=None, restarts=None, covered=None, min_latency=0.5,
                min_duration=0.5, gaps=None) -> pd.DataFrame:
    """Pile-ups and spread periods of ``statements`` and commit gaps of the
    binlogs, attributed (module doc).

    ``rotations``: a rotations_table; ``restarts``: binlog files created at
    start-up; ``covered``: (first, last) instants the binlogs cover; ``gaps``:
    a commit_gaps frame.
    """
    piles = find_pileups(statements, min_latency=min_latency, min_duration=min_duration)
    piles.insert(3, "shape", "pile-up")
    taken = [m for ms in piles["members"] for m in ms]
    spread = find_spread(statements, exclude=taken, min_latency=min_latency,
                         min_duration=min_duration)
    spread.insert(3, "shape", "spread")
    frames = [f for f in (piles, spread) if len(f)]
    stalls = (pd.concat(frames, ignore_index=True) if frames
              else pd.DataFrame(columns=PILEUP_COLUMNS[:3] + ["shape"] + PILEUP_COLUMNS[3:]))
    stalls = _time_res(stalls, statements)
    stalls = join_gaps(stalls, gaps, statements, min_latency)
    stalls = stalls.sort_values("start", kind="stable").reset_index(drop=True)
    return attribute(stalls, rotations, restarts, covered, statements)


def _time_res(stalls, statements):
    """Whole seconds when any member's time has whole seconds only."""
    stalls = stalls.copy()
    res = [float(statements.loc[m, "time_res_s"].max()) if len(m) and "time_res_s" in statements
           else 1.0 for m in stalls["members"]]
    stalls["time_res_s"] = pd.Series(res, index=stalls.index, dtype="float64")
    stalls["evidence"] = "slow log"
    stalls["commit_gap_s"] = np.nan
    return stalls


def join_gaps(stalls, gaps, statements, min_latency=0.5):
    """Mark slow-log stalls that a commit gap overlaps; a gap no stall covers
    becomes a stall of its own (shape ``commit-gap``, members: the statements
    slower than ``min_latency`` that were running during it)."""
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
        extra.append(_gap_stall(g, statements, min_latency))
    if extra:
        stalls = pd.concat([stalls, pd.DataFrame(extra)], ignore_index=True) if len(stalls) \
            else pd.DataFrame(extra)
    return stalls


def _gap_stall(g, statements, min_latency):
    during = statements[(statements["start"] < g["end"]) & (statements["end"] > g["start"])
                        & (statements["query_time"] >= min_latency)]
    row = {"start": g["start"], "end": g["end"], "duration_s": round(float(g["duration_s"]), 3),
           "shape": "commit-gap", "members": list(during.index)}
    row.update(describe(during))
    row.update(time_res_s=float(g["time_res_s"]), evidence="binlog",
               commit_gap_s=float(g["duration_s"]), trickle=_trickle(g))
    return row


def _write_share(row) -> float:
    return (row["writes"] + row["commits"]) / row["queries"] if row["queries"] else 0.0


def attribute(stalls, rotations=None, restarts=None, covered=None,
              statements=None) -> pd.DataFrame:
    """Set cause/rotation_*/hint on each stall (see the module doc).

    With ``statements`` (the frame the stalls' ``members`` index), a rotation
    also matches when a piled statement began in the ROTATE event's second: the
    statement whose commit filled the file carries that time and waits for its
    own rotation, however long it ran before.
    """
    stalls = stalls.copy()
    for col, value in (("cause", UNKNOWN), ("rotation_from", None), ("rotation_to", None),
                       ("rotation_at", pd.NaT), ("rotation_size", pd.NA), ("hint", None)):
        stalls[col] = value
    for col, value in (("time_res_s", 1.0), ("evidence", "slow log"), ("commit_gap_s", np.nan)):
        if col not in stalls:
            stalls[col] = value
    stalls["rotation_at"] = pd.to_datetime(stalls["rotation_at"], utc=True)
    near = _nearest_rotations(stalls, rotations, statements)
    for i, row in stalls.iterrows():
        rot = near.get(i)
        if rot is not None and _rotation_explains(row):
            stalls.loc[i, ["cause", "rotation_from", "rotation_to", "rotation_at",
                           "rotation_size"]] = [ROTATION_CAUSE, rot["from_file"], rot["to_file"],
                                                rot["at"], rot["size_bytes"]]
        else:
            row_locks = _row_lock_shape(row, statements)
            stalls.at[i, "cause"] = other_cause(row, covered, row_locks)
            stalls.at[i, "hint"] = hint(row, rot, restarts, covered, row_locks)
    stalls["rotation_size"] = stalls["rotation_size"].astype("Int64")
    stalls["time_res_s"] = stalls["time_res_s"].astype("float64")
    stalls["commit_gap_s"] = stalls["commit_gap_s"].astype("float64")
    return stalls[STALL_COLUMNS]


def _rotation_explains(row) -> bool:
    """A rotation holds commits: a pile-up of writes/COMMITs, or a commit gap."""
    if row["shape"] == "commit-gap":
        return True
    return row["shape"] == "pile-up" and _write_share(row) >= MIN_WRITE_SHARE


def _covers(covered, t) -> bool:
    return covered is not None and covered[0] <= t <= covered[1]


_ROW_LOCKERS = frozenset({"UPDATE", "DELETE"})


def _row_lock_shape(row, statements) -> bool:
    """Only UPDATE/DELETE statements waited (no INSERT, no COMMIT): they wait for
    the rows another transaction holds; a commit-path stall holds every commit."""
    if statements is None or row["shape"] != "pile-up" or not len(row["members"]) \
            or "query" not in statements:
        return False
    words = set()
    for q in statements.loc[row["members"], "query"]:
        if not isinstance(q, str):
            return False
        words.add(q.lstrip().split(None, 1)[0].upper() if q.strip() else "")
    return bool(words) and words <= _ROW_LOCKERS


def other_cause(row, covered=None, row_locks=False) -> str:
    """``lock``, ``commit_sync`` or ``unknown`` for a stall no rotation explains."""
    if row["queries"] and row["lock_share"] >= LOCK_SHARE:
        return LOCK_CAUSE
    if row["shape"] == "commit-gap" and _trickle(row):
        return COMMIT_SYNC_CAUSE    # commits went on, few and slow: the commit path itself
    if row["shape"] == "commit-gap" or row_locks:
        return LOCK_CAUSE           # commits stopped, no rotation, no slow-log pile-up
    writes = row["writes"] + row["commits"]
    if (row["shape"] == "pile-up" and writes and not row["reads"]
            and _write_share(row) >= MIN_WRITE_SHARE and _covers(covered, row["start"])):
        return COMMIT_SYNC_CAUSE
    return UNKNOWN


def _nearest_rotations(stalls, rotations, statements=None) -> dict:
    """{stall index: rotation row}; each rotation goes to the nearest stall."""
    if rotations is None or not len(rotations) or not len(stalls):
        return {}
    at = seconds(rotations["at"])
    starts = seconds(stalls["start"])
    pairs = []
    for (i, row), s in zip(stalls.iterrows(), starts):
        member_starts = _member_starts(row, statements)
        gap = row["shape"] == "commit-gap"
        for j, a in enumerate(at):
            if gap:
                # whole-second header times: the ROTATE event carries the start
                # of the statement whose commit filled the file
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
    """Logged start times (s) of a pile-up's statements; empty without the frame."""
    if statements is None or row["shape"] != "pile-up" or not len(row["members"]):
        return np.zeros(0)
    return seconds(statements.loc[row["members"], "start"])


def hint(row, rotation=None, restarts=None, covered=None, row_locks=False) -> str:
    """What the data show about a stall no rotation explains, from its shape."""
    start, end = row["start"], row["end"]
    reads, writes = row["reads"], row["writes"] + row["commits"]
    parts = []
    if row["shape"] == "commit-gap":
        parts.append(_gap_hint(row))
    elif row_locks and row["lock_share"] < LOCK_SHARE:
        parts.append("only UPDATE/DELETE statements waited and were released together (no "
                     "INSERT, no COMMIT): they waited for rows another transaction held until "
                     "it ended; look for a long transaction on these tables")
    elif row["lock_share"] >= LOCK_SHARE:
        parts.append(f"lock waits: Lock_time is {row['lock_share']:.0%} of the statements' time "
                     "(row, table or metadata locks); look for the session holding them (a long "
                     "transaction, LOCK TABLES, FLUSH TABLES WITH READ LOCK)")
    elif row["shape"] == "spread":
        cheap = not (row["rows_examined_median"] > 1000)
        if reads and writes and cheap:
            parts.append("time-zone lock? cheap reads and writes slowed down together over "
                         f"{row['duration_s']:.1f} s instead of being released at one instant, "
                         "as with time_zone=SYSTEM (glibc tzset lock); try time_zone='+00:00'")
        else:
            parts.append("several slow statements at once, not released together: "
                         "look at the query classes (plans, load)")
    elif reads and writes and reads >= 0.3 * row["queries"]:
        parts.append("reads and writes were released together: a server-wide lock or pause "
                     "(CPU, swap, FLUSH TABLES WITH READ LOCK), not the binlog")
    elif writes:
        if covered is None or not (covered[0] <= start <= covered[1]):
            parts.append("writes released together, but the binlogs given do not cover this "
                         "time; pass the binlog files of that period to check for a rotation")
        else:
            parts.append("writes and COMMITs released together with no binlog rotation near: "
                         "a commit-path stall (binlog or redo log sync, disk)")
    else:
        parts.append("only reads piled up: a metadata lock or a table lock (DDL, FLUSH TABLES)")
    if rotation is not None:
        parts.append(f"a binlog rotation ({rotation['from_file']} -> {rotation['to_file']}) "
                     "happened at its start, but a binlog stall holds writes only")
    parts += _restart_notes(start, end, restarts)
    return "; ".join(parts)


def _trickle(row) -> int:
    got = row.get("trickle", 0)
    return 0 if got is None or pd.isna(got) else int(got)


def _gap_hint(row) -> str:
    if _trickle(row):
        return (f"the binlogs show commits slowed down (at least {_trickle(row)} in each of its "
                f"seconds) for about {row['commit_gap_s']:.1f} s, not stopped, with no rotation "
                "and no lock wait in the slow log: every commit was slow, i.e. the commit path "
                "(binlog or redo log sync, disk)")
    if row["time_res_s"]:
        gap = f"commits missing for about {row['commit_gap_s']:.1f} s"
    else:
        gap = f"no commit for {row['commit_gap_s']:.6f} s"
    text = (f"the binlogs show {gap} where the commit rate around it says many were due, and no rotation near")
    if not row["queries"]:
        return (text + "; the slow log shows no statement waiting then (its filters may leave "
                "them out): commits were held by something outside the binlog, such as FLUSH "
                "TABLES WITH READ LOCK, LOCK TABLES or a long transaction's locks")
    text += f"; {row['queries']} slow statement{'s' if row['queries'] != 1 else ''} ran through it"
    if row["lock_share"] >= LOCK_SHARE:
        text += f", {row['lock_share']:.0%} of their time in Lock_time"
    return text


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


def _spacing(times) -> dict | None:
    t = np.sort(seconds(pd.Series(times)))
    if len(t) < 2:
        return None
    d = np.diff(t)
    med = float(np.median(d))
    return {"median_s": med, "spread_s": float(np.median(np.abs(d - med))), "count": int(len(d))}


def cadence(rotations: pd.DataFrame, stalls: pd.DataFrame) -> dict:
    """Rotation vs stall spacing, precision (rotations that stalled) and recall."""
    explained = stalls[stalls["cause"] == ROTATION_CAUSE]
    n_rot, n_stall = len(rotations), len(stalls)
    return {
        "causes": {c: int((stalls["cause"] == c).sum()) for c in CAUSES} if n_stall else {},
        "rotation_interval": _spacing(rotations["at"]) if n_rot else None,
        "stall_interval": _spacing(stalls["start"]) if n_stall else None,
        "rotations": n_rot, "rotations_with_stall": int(explained["rotation_from"].nunique()),
        "stalls": n_stall, "stalls_explained": int(len(explained)),
    }
