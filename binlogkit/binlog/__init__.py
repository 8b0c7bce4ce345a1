"""Binary-log decoding: layouts, framing, event bodies (no printing)."""
from binlogkit.binlog import events, rows  # noqa: F401  (registers the decoders of both flavors)
from binlogkit.binlog import legacy_events  # noqa: F401  (MySQL 5.0 / 4.x and pre-GA 5.1 types)
from binlogkit.binlog import layout as _L

# MySQL 5.6+ only types: binlog/mysql_events.py, loaded with the first one
# (tests/test_events.py checks this list against what that module registers)
MYSQL_ONLY_TYPES = (
    _L.HEARTBEAT_LOG_EVENT, _L.ROWS_QUERY_LOG_EVENT, _L.GTID_LOG_EVENT,
    _L.ANONYMOUS_GTID_LOG_EVENT, _L.PREVIOUS_GTIDS_LOG_EVENT, _L.TRANSACTION_CONTEXT_EVENT,
    _L.VIEW_CHANGE_EVENT, _L.TRANSACTION_PAYLOAD_EVENT, _L.HEARTBEAT_LOG_EVENT_V2,
    _L.GTID_TAGGED_LOG_EVENT,
)
events.DEFERRED.update(dict.fromkeys(MYSQL_ONLY_TYPES, "binlogkit.binlog.mysql_events"))
