"""``binlogkit.frames``: binary logs and slow logs as typed pandas DataFrames.

The public name for `binlogkit.analysis.frames` (columns and dtypes are
documented there).  Importing it registers the ``df.binlogkit`` accessor.
"""
from binlogkit.analysis.frames import (  # noqa: F401
    EVENT_DTYPES, TRANSACTION_DTYPES, empty_frame, events_chunks, events_frame, file_frame,
    rotations_frame, slowlog_frame, stalls_frame, transactions_chunks, transactions_frame,
)
from binlogkit.analysis.dml import dml_frame, dml_transactions_frame  # noqa: F401
from binlogkit.analysis.slowlog_frame import read_slowlog  # noqa: F401

__all__ = ["events_frame", "transactions_frame", "rotations_frame", "slowlog_frame",
           "read_slowlog", "stalls_frame", "events_chunks", "transactions_chunks", "file_frame",
           "empty_frame", "EVENT_DTYPES", "TRANSACTION_DTYPES", "dml_frame",
           "dml_transactions_frame"]
