"""Slow query log parsing, fingerprinting and digests (pandas-free at import).

    from binlogkit.slowlog import parse_slowlog, fingerprint, query_id, read_slowlog
    for entry in parse_slowlog("slow.log", zone="Europe/Berlin"):
        print(entry.end_us, entry.query_time, query_id(fingerprint(entry.query)))
"""

from binlogkit.slowlog.fingerprint import distill, fingerprint, query_id, short_id
from binlogkit.slowlog.parser import Entry, ParseStats, SlowlogParser, parse_slowlog

__all__ = ["Entry", "ParseStats", "SlowlogParser", "parse_slowlog", "fingerprint",
           "query_id", "short_id", "distill", "read_slowlog"]


def read_slowlog(path, server_tz=None, **kwargs):
    """The entries of ``path`` as a pandas DataFrame (see slowlog_frame)."""
    from binlogkit.analysis.slowlog_frame import read_slowlog as _read
    return _read(path, server_tz=server_tz, **kwargs)
