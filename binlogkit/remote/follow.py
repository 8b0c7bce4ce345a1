"""Following a server's binlog as it is written: event headers with their arrival times.

`BinlogFollower` is what `binlogkit watch` reads from a live server: one blocking
COM_BINLOG_DUMP (heartbeats every `heartbeat` s, so an idle server still ticks),
started where the server writes now (SHOW MASTER STATUS / SHOW BINARY LOG STATUS)
unless told where.  Each event becomes an `Arrival`: the instant its packet was read
(this machine's clock), the header fields, the file and position it has on the
server, and the few decoded fields the stall evidence needs (a Rotate's next file,
a format description's `created`, a MySQL GTID's commit timestamp).  No copy of the
events is kept.

Like the raw backup, it survives faults: a lost connection (server restarted or
killed, dump thread KILLed, network) is retried with backoff (0.2 s doubling to
10 s) and the dump resumes after the last event received, so no event is seen twice
and none is skipped.  Events the server had written before the (re)connection are
flagged `catchup`: they arrive late because the follower was away, not because the
server was slow, and the stall rules leave them out.
"""
import time

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.remote.framer import ReceivedEvents
from binlogkit.remote.protocol import (
    ER_MASTER_FATAL_ERROR_READING_BINLOG, ConnectionLost, DumpStream, ServerError,
)

__all__ = ["Arrival", "BinlogFollower", "FollowStopped", "server_position", "arrival_of", "MARKERS"]

# events that mark a file's life rather than a transaction's
MARKERS = frozenset({L.ROTATE_EVENT, L.FORMAT_DESCRIPTION_EVENT, L.STOP_EVENT,
                     L.GTID_LIST_EVENT, L.BINLOG_CHECKPOINT_EVENT, L.PREVIOUS_GTIDS_LOG_EVENT,
                     L.START_ENCRYPTION_EVENT, L.HEARTBEAT_LOG_EVENT, L.IGNORABLE_LOG_EVENT})
HEARTBEAT_V2 = 41
_MYSQL_GTIDS = (L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT, L.GTID_TAGGED_LOG_EVENT)


class FollowStopped(Exception):
    """The follower was asked to stop."""


class Arrival:
    """One event (or heartbeat) as it arrived.  `kind` names what the watcher needs:
    'event' (a transaction's), 'rotate', 'fde', 'stop', 'heartbeat', 'marker'."""

    __slots__ = ("at", "kind", "type_code", "when", "file", "pos", "end", "size", "catchup",
                 "next_file", "created", "commit_us", "server_version", "is_commit")

    def __init__(self, at, kind, type_code, when, file, pos, size, catchup):
        self.at, self.kind, self.type_code, self.when = at, kind, type_code, when
        self.file, self.pos, self.size, self.catchup = file, pos, size, catchup
        self.end = pos + size
        self.next_file = None
        self.created = 0
        self.commit_us = 0
        self.server_version = None
        self.is_commit = False

    def __repr__(self):
        return (f"Arrival({self.kind}, type={self.type_code}, when={self.when}, "
                f"{self.file}:{self.pos}, catchup={self.catchup})")


def server_position(stream):
    """(file, position) the server writes now, or None when binary logging is off."""
    for sql in ("SHOW BINARY LOG STATUS", "SHOW MASTER STATUS"):
        try:
            rows = stream.query(sql)
        except ServerError as exc:
            if exc.errno in (1064, 1227, 1044, 1045, 1142):   # syntax (older/newer server), privilege
                continue
            raise
        if rows:
            return rows[0][0], int(rows[0][1])
        return None
    return None


class BinlogFollower:
    """Follows the server's binlog; `run(sink)` calls sink(Arrival) for each event."""

    def __init__(self, connect, *, start=None, server_id=0, heartbeat=0.5, retries=None,
                 notice=None, sleep=time.sleep, clock=time.time):
        self.connect = connect
        self.start = start              # (file, pos) or None: where the server writes now
        self.server_id = server_id or 0
        self.heartbeat = heartbeat
        self.retries = retries          # None: for ever
        self.notice = notice or (lambda kind, message: None)
        self.sleep = sleep
        self.clock = clock
        self.file = None                # where the next event comes from
        self.pos = 0
        self.stopping = False
        self.stream = None
        self.connected_once = False
        self.reconnects = 0
        self.dumping = False
        self.version = ""

    def stop(self):
        self.stopping = True
        stream = self.stream
        if stream is not None:
            stream.close()

    def run(self, sink):
        failures = 0
        while not self.stopping:
            self.dumping = False
            try:
                self._dump(sink)
            except ConnectionLost as exc:
                if self.stopping:
                    break
                failures = 1 if self.dumping else failures + 1
                if self.retries is not None and failures > self.retries:
                    raise
                delay = min(0.2 * 2 ** min(failures - 1, 6), 10.0)
                if self.dumping:
                    self.reconnects += 1
                    self.notice("disconnect", f"connection lost ({exc.message}); "
                                              f"reconnecting with backoff from {delay:.1f} s")
                self._pause(delay)
        raise FollowStopped()

    def _pause(self, delay):
        end = time.monotonic() + delay
        while not self.stopping and time.monotonic() < end:
            self.sleep(min(0.1, max(0.0, end - time.monotonic())))

    def _open(self):
        try:
            return DumpStream(self.connect())
        except ServerError as exc:
            if not self.connected_once:         # a wrong password: no retry
                raise
            raise ConnectionLost(exc.message, exc.errno) from None

    def _dump(self, sink):
        stream = self._open()
        self.stream = stream
        try:
            if self.stopping:
                return
            now = server_position(stream)
            if now is None:
                raise ServerError("the server does not write a binary log (log_bin is off)")
            self.version = stream.server_version()
            if self.file is None:
                self.file, self.pos = self.start or now
            first = not self.connected_once
            self.connected_once = True
            if not first:
                self.notice("reconnect", f"reconnected; following {self.file} from {self.pos}")
            stream.start(self.file, max(self.pos, L.BIN_LOG_HEADER_SIZE), blocking=True,
                         server_id=self.server_id or 1, heartbeat=self.heartbeat)
            self.dumping = True
            self._receive(stream, sink, now)
        except ServerError as exc:
            if isinstance(exc, ConnectionLost):
                raise
            if exc.errno == ER_MASTER_FATAL_ERROR_READING_BINLOG:
                raise ServerError(f"{self.file} at {self.pos}: the server cannot send it "
                                  f"({exc.message})", exc.errno) from None
            raise
        finally:
            self.stream = None
            stream.close()

    def _receive(self, stream, sink, live_from):
        framer = ReceivedEvents(self.file or "", verify_checksum=False)
        clock = self.clock
        catchup = is_before(self.file, self.pos, live_from)
        resent_fde = self.pos > L.BIN_LOG_HEADER_SIZE
        for data in stream.events():
            at = clock()
            type_code = data[4]
            if type_code in (L.HEARTBEAT_LOG_EVENT, HEARTBEAT_V2):
                catchup = False
                sink(Arrival(at, "heartbeat", type_code, 0, self.file, self.pos, 0, False))
                continue
            raw = framer.frame(data, self.pos)
            if type_code == L.ROTATE_EVENT and raw.when == 0:         # the dump's own
                name = decode_event(raw, framer.fde).new_log_ident.decode()
                if name != self.file:
                    self.file, self.pos = name, L.BIN_LOG_HEADER_SIZE
                    resent_fde = False
                continue
            if type_code == L.FORMAT_DESCRIPTION_EVENT and (resent_fde or raw.log_pos == 0):
                resent_fde = False
                self.version = _fde_version(raw) or self.version
                continue            # the description sent again at a dump's start
            if catchup:
                catchup = is_before(self.file, self.pos, live_from)
            arrival = arrival_of(at, raw, framer.fde, self.file, self.pos, catchup)
            if raw.log_pos:
                self.pos = raw.log_pos
            else:
                self.pos += raw.event_size
            arrival.end = self.pos
            sink(arrival)
            if type_code == L.ROTATE_EVENT:
                self.file, self.pos = arrival.next_file, L.BIN_LOG_HEADER_SIZE
        raise ConnectionLost("the server ended the dump")

def arrival_of(at, raw, fde, file, pos, catchup=False):
    """The Arrival of one framed event (RawEvent `raw`, read under `fde`) at (file, pos)."""
    type_code = raw.type_code
    if type_code not in MARKERS:
        arrival = Arrival(at, "event", type_code, raw.when, file, pos, raw.event_size, catchup)
        if type_code in _MYSQL_GTIDS:
            arrival.commit_us = decode_event(raw, fde).immediate_commit_timestamp
        elif type_code == L.XID_EVENT:
            arrival.is_commit = True
        elif type_code in (L.QUERY_EVENT, L.QUERY_COMPRESSED_EVENT):
            arrival.is_commit = _ends_transaction(raw)
        return arrival
    if type_code == L.ROTATE_EVENT:
        arrival = Arrival(at, "rotate", type_code, raw.when, file, pos, raw.event_size, catchup)
        arrival.next_file = decode_event(raw, fde).new_log_ident.decode()
        return arrival
    if type_code == L.FORMAT_DESCRIPTION_EVENT:
        arrival = Arrival(at, "fde", type_code, raw.when, file, pos, raw.event_size, catchup)
        arrival.created = _fde_created(raw)
        arrival.server_version = _fde_version(raw)
        return arrival
    kind = "stop" if type_code == L.STOP_EVENT else "marker"
    return Arrival(at, kind, type_code, raw.when, file, pos, raw.event_size, catchup)


def is_before(file, pos, live_from):
    """True while (file, pos) is before the position the server wrote at connection."""
    live_file, live_pos = live_from
    if file is None:
        return False
    return (_sequence(file), pos) < (_sequence(live_file), live_pos)


def _sequence(name):
    tail = name.rpartition(".")[2]
    return int(tail) if tail.isdigit() else 0


_BEGIN = b"BEGIN"


def _ends_transaction(raw):
    """A Query event that ends a transaction: COMMIT, or any statement but BEGIN
    (DDL, statement-based writes in autocommit)."""
    data = raw.data
    # post-header: thread id 4, exec time 4, db len 1, error 2, status len 2
    at = L.LOG_EVENT_HEADER_LEN
    if len(data) < at + 13:
        return False
    db_len = data[at + 8]
    status_len = data[at + 11] | data[at + 12] << 8
    start = at + 13 + status_len + db_len + 1
    head = bytes(data[start:start + 8]).upper()
    return not head.startswith(_BEGIN) and not head.startswith(b"XA START")


def _fde_created(raw):
    at = L.LOG_EVENT_HEADER_LEN + 2 + 50
    data = raw.data
    return L.UINT32.unpack_from(data, at)[0] if len(data) >= at + 4 else 0


def _fde_version(raw):
    data = raw.data
    at = L.LOG_EVENT_HEADER_LEN + 2
    return bytes(data[at:at + 50]).split(b"\0", 1)[0].decode("ascii", "replace") or None
