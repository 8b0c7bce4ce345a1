"""Binary-log decoding: layouts, framing, event bodies (no printing)."""
from binlogkit.binlog import events, rows  # noqa: F401  (registers all decoders)
