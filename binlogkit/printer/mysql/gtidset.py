"""--include-gtids / --exclude-gtids / --skip-gtids (mysqlbinlog shall_skip_gtids).

`GtidSet.parse(text)` reads a GTID set the way Gtid_set::add_gtid_text does:
``uuid[:interval...][:tag:interval...]`` items separated by commas, intervals
``N`` or ``N-M``, tags (8.4+) ``[a-z_][a-z0-9_]{0,31}`` case-insensitive.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.mysql_events import GtidSetEntry, encode_gtid_set
from binlogkit.errors import BinlogkitError

_UUID = r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
_INTERVAL = r"^(\d+)(?:-(\d+))?$"
_TAG = r"^[A-Za-z_][A-Za-z0-9_]{0,31}$"
GNO_END = (1 << 63) - 1


class GtidSet:
    def __init__(self):
        self.intervals = {}     # (sid bytes, tag bytes) -> [(start, end_inclusive)]

    @classmethod
    def parse(cls, text):
        """A GtidSet, or ValueError when the text is not a GTID set."""
        import re       # here: only --include/--exclude-gtids need it (start-up)
        gtids = cls()
        for item in text.split(","):
            item = item.strip()
            if not item:
                continue
            parts = [p.strip() for p in item.split(":")]
            if not re.match(_UUID, parts[0]):
                raise ValueError(item)
            sid = bytes.fromhex(parts[0].replace("-", ""))
            tag = b""
            for part in parts[1:]:
                match = re.match(_INTERVAL, part)
                if match:
                    start = int(match.group(1))
                    end = int(match.group(2) or start)
                    if not 1 <= start <= end < GNO_END:
                        raise ValueError(part)
                    gtids.intervals.setdefault((sid, tag), []).append((start, end))
                elif re.match(_TAG, part):
                    tag = part.lower().encode()
                else:
                    raise ValueError(part)
        return gtids

    def encoded(self):
        """The set as Gtid_set::encode writes it (COM_BINLOG_DUMP_GTID): SIDs and
        tags in order, intervals merged, ends exclusive."""
        entries = []
        for (sid, tag), intervals in sorted(self.intervals.items()):
            merged = []
            for start, end in sorted(intervals):
                if merged and start <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], end + 1))
                else:
                    merged.append((start, end + 1))
            entries.append(GtidSetEntry(sid, tag, merged))
        return encode_gtid_set(entries)

    def contains(self, sid, tag, gno):
        for start, end in self.intervals.get((bytes(sid), bytes(tag)), ()):
            if start <= gno <= end:
                return True
        return False


class GtidFilter:
    """The three GTID options of mysqlbinlog."""

    def __init__(self, include=None, exclude=None, skip=False):
        self.include, self.exclude, self.skip = include, exclude, skip

    @classmethod
    def from_options(cls, include_text, exclude_text, skip):
        """args_post_process(): a bad set is an error before anything is printed."""
        include = exclude = None
        if include_text is not None:
            try:
                include = GtidSet.parse(include_text)
            except ValueError:
                raise BinlogkitError(f"Could not configure --include-gtids '{include_text}'") from None
        if exclude_text is not None:
            try:
                exclude = GtidSet.parse(exclude_text)
            except ValueError:
                raise BinlogkitError(f"Could not configure --exclude-gtids '{exclude_text}'") from None
        return cls(include, exclude, bool(skip))

    def filters(self, body):
        """Whether a GTID event's transaction is left out by --include/--exclude-gtids."""
        if body.type_code == L.ANONYMOUS_GTID_LOG_EVENT:
            sid, tag, gno = bytes(16), b"", 0
        else:
            sid, tag, gno = body.sid, body.tag, body.gno
        filtered = False
        if self.include is not None:
            filtered = not self.include.contains(sid, tag, gno)
        if self.exclude is not None:
            filtered = filtered or self.exclude.contains(sid, tag, gno)
        return filtered
