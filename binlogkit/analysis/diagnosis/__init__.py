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
                  waits_frame(statements, commit_times, min_latency),
                  commit_res=0.0 if exact else 1.0, exact_commits=exact,
                  commits=commit_instants(commit_times))
    cands = find_candidates(statements, gaps, min_latency=min_latency, min_duration=min_duration)
    extra = restart.candidates(tl, list(zip(cands["start"], cands["end"])))
    extra += binlog_rotation.lone_waits(statements, rotations, cands, min_latency)
    if extra:
        cands = pd.concat([cands, pd.DataFrame(extra)], ignore_index=True) if len(cands) \
            else pd.DataFrame(extra)
    stalls, idle = decide(cands, tl)
    blind_locks = [] if (tl.waits["source"] == "binlog").any() else \
        _lock_blind_note(idle, files, statements)      # statement-format binlogs show them
    return Diagnosis(stalls, idle, tl, _notes(idle, tl) + blind_locks)


LOCK_BLIND_MIN_S = 2.0


def _lock_blind_note(idle, files, statements) -> list:
    """MariaDB compares long_query_time with the time after a statement got its
    locks: with long_query_time > 0 a statement held by FLUSH TABLES WITH READ LOCK
    or LOCK TABLES is not logged, and in ROW binlogs it leaves no trace either."""
    if files is None or not len(files) or not len(idle):
        return []
    mariadb = files["server_version"].astype(str).str.contains("MariaDB").any()
    fastest = float(statements["query_time"].min()) if len(statements) else None
    long_gaps = idle[idle["duration_s"] >= LOCK_BLIND_MIN_S]
    if not mariadb or (fastest is not None and fastest < 0.05) or not len(long_gaps):
        return []
    when = ", ".join(f"{r['start']:%H:%M:%S}Z ({r['duration_s']:.1f} s)"
                     for _, r in long_gaps.head(5).iterrows())
    more = f" and {len(long_gaps) - 5} more" if len(long_gaps) > 5 else ""
    return [f"Commits stopped with no statement waiting in the slow log at {when}{more}: taken "
            "as idle time.  MariaDB logs a statement only when its time after getting its locks "
            "reaches long_query_time, so with long_query_time > 0 writes held by FLUSH TABLES "
            "WITH READ LOCK or LOCK TABLES are not logged and these may be lock stalls; "
            "long_query_time=0 would show them."]


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
