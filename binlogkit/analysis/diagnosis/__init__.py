"""Stall diagnosis: evidence -> candidate stalls -> cause rules -> verdict.

* :mod:`.evidence`: one timeline per run (rotations, restarts, commit gaps, the
  slow log, waiting work);
* :mod:`.candidates`: every stretch that may be a stall (pile-ups, slow periods,
  commit gaps);
* :mod:`.causes`: one module per cause (``restart``, ``idle``,
  ``binlog_rotation``, ``lock``, ``commit_sync``, ``unknown``), each a rule over
  the timeline;
* :mod:`.verdict`: each candidate through the rules, in order, into stalls and
  idle time.

``diagnose(...)`` is what ``binlogkit report`` and ``binlogkit.frames.stalls_frame``
both read.
"""
from __future__ import annotations

import pandas as pd

from binlogkit._record import field, record
from binlogkit.analysis.diagnosis.candidates import find_candidates
from binlogkit.analysis.diagnosis.causes import binlog_rotation, restart
from binlogkit.analysis.diagnosis.evidence import (
    Timeline, commit_instants, restart_windows, waits_frame,
)
from binlogkit.analysis.diagnosis.verdict import STALL_COLUMNS, decide

__all__ = ["Diagnosis", "diagnose", "STALL_COLUMNS"]


@record(slots=False)
class Diagnosis:
    stalls: object            # DataFrame, STALL_COLUMNS
    idle: object              # DataFrame: start, end, duration_s, hint
    timeline: object          # the evidence (Timeline)
    notes: list = field(default_factory=list)


def diagnose(statements, rotations=None, restarts=None, covered=None, gaps=None,
             commit_times=None, files=None, min_latency=0.5, min_duration=0.5) -> Diagnosis:
    """Stalls and idle time of one run (module doc).

    ``rotations``: a rotations_table; ``restarts``: binlog files created at
    start-up (rotations.restarts); ``covered``: (first, last) instants the
    binlogs cover; ``gaps``: a commit_gaps frame; ``commit_times``: the
    CommitTimes of the binlogs (MySQL commit timestamps give waits);
    ``files``: the rotations_frame (down windows of restarts)."""
    exact = bool(commit_times) and any(c.micros for c in commit_times)
    tl = Timeline(statements, rotations, restart_windows(files, restarts), covered, gaps,
                  waits_frame(statements, commit_times if exact else None, min_latency),
                  commit_res=0.0 if exact else 1.0, exact_commits=exact,
                  commits=commit_instants(commit_times))
    cands = find_candidates(statements, gaps, min_latency=min_latency, min_duration=min_duration)
    extra = restart.candidates(tl, list(zip(cands["start"], cands["end"])))
    extra += binlog_rotation.lone_waits(statements, rotations, cands, min_latency)
    if extra:
        cands = pd.concat([cands, pd.DataFrame(extra)], ignore_index=True) if len(cands) \
            else pd.DataFrame(extra)
    stalls, idle = decide(cands, tl)
    return Diagnosis(stalls, idle, tl, _notes(idle, tl))


def _notes(idle, tl) -> list:
    blind = [r for _, r in idle.iterrows() if tl.blind(r["start"])]
    if not blind:
        return []
    n = len(blind)
    return [f"{n} commit gap{'s' if n != 1 else ''} (longest {max(r['duration_s'] for r in blind):.1f} s) "
            "had no evidence either way: the slow log logs none of the statements around "
            f"{'them' if n != 1 else 'it'} and the binlogs show no transaction waiting, so "
            f"{'they were' if n != 1 else 'it was'} taken as idle.  With long_query_time at or "
            "below the stalls you care about, waiting statements would show."]
