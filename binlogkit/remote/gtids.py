"""The GTID set a GTID-mode backup (COM_BINLOG_DUMP_GTID) asks the server to leave out.

It starts as the user's --exclude-gtids set (encoded as the dump sends it) and
grows by the GTID of each transaction the copy holds, so that a dump after a
reconnect sends only what is neither excluded nor copied yet.
"""
from binlogkit.binlog.mysql_events import GtidSetEntry, decode_gtid_set, encode_gtid_set


class GtidAccumulator:
    def __init__(self, encoded=b""):
        self.intervals = {}         # (sid, tag) -> [[start, end_exclusive], ...] sorted
        if encoded:
            _, entries, _ = decode_gtid_set(memoryview(encoded), 0, len(encoded))
            for entry in entries:
                for start, stop in entry.intervals:
                    self._add_range(bytes(entry.sid), bytes(entry.tag), start, stop)

    def add(self, sid, tag, gno):
        self._add_range(bytes(sid), bytes(tag or b""), gno, gno + 1)

    def _add_range(self, sid, tag, start, stop):
        merged = []
        for lo, hi in sorted(self.intervals.get((sid, tag), []) + [[start, stop]]):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        self.intervals[(sid, tag)] = merged

    def encoded(self):
        """Gtid_set::encode of the set: SIDs and tags in order."""
        return encode_gtid_set([GtidSetEntry(sid, tag, [tuple(i) for i in intervals])
                                for (sid, tag), intervals in sorted(self.intervals.items())])
