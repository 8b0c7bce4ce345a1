"""One module per cause, each a small rule over the evidence timeline.

A rule is ``decide(row, timeline) -> list[dict] | None``: None when it does not
apply to the candidate ``row``; else the rows it makes of it, each with its
``cause`` set, or with ``cause`` None for a remainder the rules after it (in
:data:`RULES` order) decide.  A rule reads the timeline up to its horizon
(:meth:`binlogkit.diagnosis.timeline.Timeline.at`: ``LOOKAHEAD_S`` past the
candidate's end), so it decides the same in a report and online.  A module's
docstring says what the cause means to a DBA; adding a cause is one module here
and one line in :data:`RULES`.

A candidate row is a dict: ``start``, ``end`` (float epoch seconds),
``duration_s``, ``shape`` (``pile-up``, ``spread``, ``commit-gap``, ``wait``,
``restart``), the counts of the slow-log statements in it (``queries``,
``writes``, ``commits``, ``reads``, ``others``, ``max_query_time``,
``lock_share``, ``rows_examined_median``, ``top_classes``, ``members``, and
``member_queries`` / ``member_starts`` for pile-ups), ``time_res_s``,
``evidence``, ``commit_gap_s``, ``trickle`` (the fewest commits in one second
of the gap: 0 when commits stopped) and ``_rot`` (the rotation matched to it,
:func:`binlogkit.diagnosis.causes.binlog_rotation.match_rotations`).
"""
from __future__ import annotations

from binlogkit.diagnosis.causes import (
    binlog_rotation, commit_sync, idle, lock, restart, unknown,
)

from binlogkit.diagnosis.timeline import trickle

__all__ = ["RULES", "CAUSES", "IDLE", "trickle"]

RULES = (restart, idle, binlog_rotation, lock, commit_sync, unknown)
CAUSES = tuple(r.CAUSE for r in RULES if r is not idle)
IDLE = idle.CAUSE

