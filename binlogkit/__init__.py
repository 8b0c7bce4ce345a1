"""binlogkit: exact, fast MySQL/MariaDB binary-log and slow-log toolkit."""
from binlogkit.errors import BinlogError, BinlogkitError, SlowlogError

__all__ = ["BinlogError", "BinlogkitError", "SlowlogError"]
