"""Slow query log parsing, fingerprinting and digests (no pandas: frames of slow-log
entries are binlogkit.frames.slowlog_frame / read_slowlog, one layer up).

    from binlogkit.slowlog import parse_slowlog, fingerprint, query_id
    for entry in parse_slowlog("slow.log", zone="Europe/Berlin"):
        print(entry.end_us, entry.query_time, query_id(fingerprint(entry.query)))
"""

from binlogkit.slowlog.fingerprint import distill, fingerprint, query_id, short_id
from binlogkit.slowlog.parser import Entry, ParseStats, SlowlogParser, parse_slowlog

__all__ = ["Entry", "ParseStats", "SlowlogParser", "parse_slowlog", "fingerprint",
           "query_id", "short_id", "distill"]

