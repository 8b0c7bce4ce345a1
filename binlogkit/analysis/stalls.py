"""Stall episodes with their causes: the frame `binlogkit report` and `stalls_frame` give.

``find_stalls(statements, rotations, restarts, covered, gaps=...)`` runs the
diagnosis (:mod:`binlogkit.analysis.diagnosis`) and returns one row per stall:

=====================  =====================================================
start, end             ``datetime64[ns, UTC]``
duration_s             float
shape                  ``pile-up`` (released at one instant, see
                       :mod:`binlogkit.analysis.pileups`), ``spread``
                       (several slow statements at once, not released
                       together, each examining at most 1000 rows) or
                       ``commit-gap`` (the binlogs show no commit)
queries, writes,       statements involved, by kind
commits, reads, others
max_query_time,        seconds; share of the time spent in Lock_time;
lock_share,            median Rows_examined; top query classes
rows_examined_median,
top_classes, members
cause                  ``binlog_rotation``, ``lock``, ``commit_sync``,
                       ``restart`` or ``unknown`` (one module each in
                       :mod:`binlogkit.analysis.diagnosis.causes`)
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

A commit gap with no waiting work is idle, not a stall (see
:mod:`binlogkit.analysis.diagnosis.causes.idle`).

``cadence(rotations, stalls)`` compares how often files rotate with how often
stalls happen, and counts how many rotations caused a stall (precision) and
how many stalls rotations explain (recall).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from binlogkit.analysis.diagnosis import STALL_COLUMNS, diagnose
from binlogkit.analysis.diagnosis.candidates import find_spread
from binlogkit.analysis.pileups import seconds

__all__ = ["find_stalls", "find_spread", "cadence", "STALL_COLUMNS",
           "ROTATION_CAUSE", "LOCK_CAUSE", "COMMIT_SYNC_CAUSE", "RESTART_CAUSE", "UNKNOWN",
           "UNEXPLAINED", "CAUSES"]

ROTATION_CAUSE = "binlog_rotation"
LOCK_CAUSE = "lock"
COMMIT_SYNC_CAUSE = "commit_sync"
RESTART_CAUSE = "restart"
UNKNOWN = "unknown"
UNEXPLAINED = UNKNOWN            # the name before causes other than rotation existed
CAUSES = (ROTATION_CAUSE, LOCK_CAUSE, COMMIT_SYNC_CAUSE, RESTART_CAUSE, UNKNOWN)


def find_stalls(statements, rotations=None, restarts=None, covered=None, min_latency=0.5,
                min_duration=0.5, gaps=None, commit_times=None, files=None) -> pd.DataFrame:
    """The stalls of the diagnosis (module doc); arguments as
    :func:`binlogkit.analysis.diagnosis.diagnose`."""
    return diagnose(statements, rotations, restarts, covered, gaps, commit_times, files,
                    min_latency=min_latency, min_duration=min_duration).stalls


def _spacing(times) -> dict | None:
    t = np.sort(seconds(pd.Series(times)))
    if len(t) < 2:
        return None
    d = np.diff(t)
    med = float(np.median(d))
    return {"median_s": med, "spread_s": float(np.median(np.abs(d - med))), "count": int(len(d))}


def _rate(times) -> dict | None:
    """{"count", "span_s", "per_s"}: rotations per second over their span (what the
    cadence says when they come faster than the whole-second ROTATE times resolve)."""
    t = np.sort(seconds(pd.Series(times)))
    if len(t) < 2:
        return None
    span = float(t[-1] - t[0]) + 1.0          # whole-second times: the last second counts
    return {"count": int(len(t)), "span_s": span, "per_s": round(len(t) / span, 3)}


def cadence(rotations: pd.DataFrame, stalls: pd.DataFrame) -> dict:
    """Rotation vs stall spacing, precision (rotations that stalled) and recall."""
    explained = stalls[stalls["cause"] == ROTATION_CAUSE]
    n_rot, n_stall = len(rotations), len(stalls)
    return {
        "causes": {c: int((stalls["cause"] == c).sum()) for c in CAUSES} if n_stall else {},
        "rotation_interval": _spacing(rotations["at"].dropna()) if n_rot else None,
        "rotation_rate": _rate(rotations["at"].dropna()) if n_rot else None,
        "stall_interval": _spacing(stalls["start"]) if n_stall else None,
        "rotations": n_rot, "rotations_with_stall": int(explained["rotation_from"].nunique()),
        "stalls": n_stall, "stalls_explained": int(len(explained)),
    }
