"""Where event groups (transactions) end, for a copy that never ends mid-group.

`GroupTracker.feed_event(raw, fde)` is told each event in log order and returns
True when the log may end right after it: a whole transaction (GTID ... XID
or COMMIT), a standalone GTID group (GTID + one statement), or an event
outside any group (Format_description, Gtid_list, checkpoints, Rotate...).
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event

_GROUP_END_QUERIES = (b"COMMIT", b"ROLLBACK", b"XA COMMIT", b"XA ROLLBACK")
# the events whose bodies say where a group starts or ends
_DECODED = frozenset({L.GTID_EVENT, L.QUERY_EVENT, L.QUERY_COMPRESSED_EVENT})
_MYSQL_GTIDS = frozenset({L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT, L.GTID_TAGGED_LOG_EVENT})


class GroupTracker:
    __slots__ = ("in_group", "single_pending", "mysql_gtid_pending")

    def __init__(self):
        self.reset()

    def reset(self):
        self.in_group = False
        self.single_pending = False     # a standalone group: ends after one event
        self.mysql_gtid_pending = False  # MySQL GTID: BEGIN opens a group, else one DDL

    def feed_event(self, raw, fde):
        """feed() for a RawEvent: its body decoded only where the group needs it."""
        body = decode_event(raw, fde) if raw.type_code in _DECODED else None
        return self.feed(raw.type_code, body)

    def feed(self, type_code, body):
        """True when a complete group (or a groupless event) ends here."""
        if type_code == L.GTID_EVENT:                # MariaDB
            self.in_group = not body.flags2 & L.FL_STANDALONE
            self.single_pending = not self.in_group
            return False
        if type_code in _MYSQL_GTIDS:
            self.mysql_gtid_pending = True
            return False
        if type_code in (L.QUERY_EVENT, L.QUERY_COMPRESSED_EVENT):
            return self._query(body.query.strip().upper())
        if type_code in (L.XID_EVENT, L.XA_PREPARE_LOG_EVENT):
            self.reset()
            return True
        return self._other()

    def _query(self, text):
        if text == b"BEGIN" or text.startswith(b"XA START"):
            self.in_group = True
            self.single_pending = self.mysql_gtid_pending = False
            return False
        if self.in_group and text.startswith(_GROUP_END_QUERIES):
            self.reset()
            return True
        return self._other()

    def _other(self):
        if self.single_pending or self.mysql_gtid_pending:
            self.reset()
            return True
        return not self.in_group
