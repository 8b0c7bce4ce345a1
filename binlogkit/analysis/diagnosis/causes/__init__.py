"""One module per cause, each a small rule over the evidence timeline.

A rule is ``decide(row, timeline) -> list[dict] | None``: None when it does not
apply to the candidate ``row``; else the rows it makes of it, each with its
``cause`` set, or with ``cause`` None for a remainder the rules after it (in
:data:`RULES` order) decide.  A module's docstring says what the cause means to
a DBA; adding a cause is one module here and one line in :data:`RULES`.
"""
from __future__ import annotations

from binlogkit.analysis.diagnosis.causes import (
    binlog_rotation, commit_sync, idle, lock, restart, unknown,
)

__all__ = ["RULES", "CAUSES", "IDLE"]

RULES = (restart, idle, binlog_rotation, lock, commit_sync, unknown)
CAUSES = tuple(r.CAUSE for r in RULES if r is not idle)
IDLE = idle.CAUSE
