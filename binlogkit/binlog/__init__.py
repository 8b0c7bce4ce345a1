"""Binary-log decoding: layouts, framing, event bodies (no printing)."""
from binlogkit.binlog import events, rows  # noqa: F401  (registers all decoders)
from binlogkit.binlog import legacy_events, mysql_events  # noqa: F401  (MySQL 5.0-9.x)
