"""Stall diagnosis of a run (``binlogkit report``, ``stalls_frame``): the batch
adapter of the shared diagnosis (:mod:`binlogkit.diagnosis`).

* :mod:`.evidence`: the run's evidence as frames (waiting work of the slow log
  and the binlogs, restarts with their down windows, commit instants);
* :mod:`.candidates`: every stretch that may be a stall (pile-ups, slow periods,
  commit gaps, a lone write waiting at a rotation);
* :mod:`.records`: those frames as the shared timeline's records and
  candidates, and the verdict back as frames (:data:`STALL_COLUMNS`);
* the cause rules and the verdict are :mod:`binlogkit.diagnosis`'s, the same
  ``binlogkit watch`` runs online: each candidate is decided from what lies
  before it and at most ``LOOKAHEAD_S`` (+ its time resolution) after its end.

``diagnose(...)`` is what ``binlogkit report`` and ``binlogkit.frames.stalls_frame``
both read.
"""
from __future__ import annotations

import pandas as pd

from binlogkit._record import field, record
from binlogkit.analysis.diagnosis.candidates import find_candidates, lone_waits
from binlogkit.analysis.diagnosis.evidence import commit_instants, restart_windows, waits_frame
from binlogkit.analysis.diagnosis.records import (
    STALL_COLUMNS, forget, idle_frame, sec, stall_frame, to_candidates, to_timeline,
)
from binlogkit.diagnosis import verdict
from binlogkit.diagnosis.causes import restart

__all__ = ["Diagnosis", "diagnose", "STALL_COLUMNS"]


@record(slots=False)
class Diagnosis:
    stalls: object            # DataFrame, STALL_COLUMNS
    idle: object              # DataFrame: start, end, duration_s, hint
    timeline: object          # the evidence (binlogkit.diagnosis.Timeline)
    restarts: object = None   # DataFrame: file, at, previous_end, down_from, down_to
    notes: list = field(default_factory=list)


def diagnose(statements, rotations=None, restarts=None, covered=None, gaps=None,
             commit_times=None, files=None, min_latency=0.5, min_duration=0.5) -> Diagnosis:
    """Stalls and idle time of one run (module doc).

    ``rotations``: a rotations_table; ``restarts``: binlog files created at
    start-up (rotations.restarts); ``covered``: (first, last) instants the
    binlogs cover; ``gaps``: a commit_gaps frame; ``commit_times``: the
    CommitTimes of the binlogs (MySQL commit timestamps give waits);
    ``files``: the rotations_frame (down windows of restarts)."""
    forget()
    exact = bool(commit_times) and any(c.micros for c in commit_times)
    windows = restart_windows(files, restarts)
    waits = waits_frame(statements, commit_times, min_latency)
    tl = to_timeline(statements, rotations, windows, covered, waits,
                     commit_instants(commit_times), 0.0 if exact else 1.0, exact)
    cands = find_candidates(statements, gaps, min_latency=min_latency, min_duration=min_duration)
    rows = to_candidates(cands, statements)
    rows += restart.candidates(tl, [(r["start"], r["end"]) for r in rows])
    rows += to_candidates(pd.DataFrame(lone_waits(statements, rotations, cands, min_latency)),
                          statements)
    stall_rows, idle_rows = verdict.decide(rows, tl)
    stalls, idle = stall_frame(stall_rows), idle_frame(idle_rows)
    blind_locks = [] if (waits["source"] == "binlog").any() else \
        _lock_blind_note(idle, files, statements)      # statement-format binlogs show them
    notes = _notes(idle, tl) + blind_locks
    forget()
    return Diagnosis(stalls, idle, tl, notes=notes, restarts=windows)

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
    blind = [r for _, r in idle.iterrows() if tl.blind(sec(r["start"]))]
    if not blind:
        return []
    n = len(blind)
    return [f"{n} commit gap{'s' if n != 1 else ''} (longest {max(r['duration_s'] for r in blind):.1f} s) "
            "had no evidence either way: the slow log logs none of the statements around "
            f"{'them' if n != 1 else 'it'} and the binlogs show no transaction waiting, so "
            f"{'they were' if n != 1 else 'it was'} taken as idle.  With long_query_time at or "
            "below the stalls you care about, waiting statements would show."]
