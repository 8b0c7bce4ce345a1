"""Stall diagnosis shared by ``binlogkit report`` and ``binlogkit watch``: one
evidence timeline, one set of cause rules, no pandas.

* :mod:`.timeline`: waits, rotations, restarts, commit instants and slow-log
  statement ends as small records in time order, appendable and forgettable,
  with the queries the rules read (``waits_in``, ``claim``,
  ``commits_between``, ``blind``, ``restart_at``) up to a horizon
  ``LOOKAHEAD_S`` past the candidate being decided;
* :mod:`.causes`: one module per cause (``restart``, ``idle``,
  ``binlog_rotation``, ``lock``, ``commit_sync``, ``unknown``), each
  ``decide(candidate, timeline)``;
* :mod:`.verdict`: candidates through the rules, in order, into stalls and idle.

``binlogkit.analysis.diagnosis`` turns a run's frames into these records and
the verdict back into frames (the report, ``stalls_frame``);
``binlogkit.watch.diagnosis`` turns arrivals into them as they come and
decides each commit gap ``LOOKAHEAD_S`` after it ended.
"""
from binlogkit.diagnosis.timeline import LOOKAHEAD_S, Timeline

__all__ = ["Timeline", "LOOKAHEAD_S"]
