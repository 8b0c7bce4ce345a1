"""`print -R --raw [--stop-never]`: binlog files copied from a server, byte for byte.

Beyond mysqlbinlog --raw, the copy survives faults.  After a lost connection
(dump thread killed, server restarted or killed, network) it reconnects with
backoff and asks for the events after the last complete event group it wrote,
so a copy never ends in a partial event or transaction and no event is
written twice or skipped.  Each event's CRC32 is checked on arrival; a file
is fsynced when it is complete.  When the file it needs is gone from the
server (purged, RESET MASTER) or is another file under the same name, it
stops with one error line instead of leaving a silent gap.

The server clears the in-use flag of the format description event it
sends; the copy of the log the server is writing has the flag set, as the
server's own file has, and cleared once a Rotate or Stop event ends it.  A
log that ended in a crash keeps the flag, as on the server.
"""
import time

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.errors import BinlogError, BinlogkitError
from binlogkit.remote.framer import ReceivedEvents
from binlogkit.remote.groups import GroupTracker
from binlogkit.remote.localcopy import LocalCopy, check_log_name, resume_point, scan_gtids
from binlogkit.remote.gtids import GtidAccumulator
from binlogkit.remote.protocol import (
    CR_SERVER_LOST, ER_MASTER_FATAL_ERROR_READING_BINLOG, ConnectionLost, DumpStream, ServerError,
)



class BackupStopped(Exception):
    """SIGTERM / SIGINT: end cleanly."""


class GapError(BinlogkitError):
    """The server no longer has what the copy needs next."""


class RawBackup:
    """Copies binlogs from `first_log` on into files named prefix + log name."""

    def __init__(self, connect, first_log, *, prefix="", stop_never=False, to_last_log=False,
                 server_id=0, retries=None, heartbeat=None, status=None, notice=None,
                 sleep=time.sleep, gtid_set=None):
        self.connect = connect
        self.first_log = first_log
        self.prefix = prefix
        self.stop_never = stop_never
        self.to_last_log = to_last_log or stop_never
        self.server_id = (server_id or 1) if stop_never else server_id
        self.retries = retries if retries is not None else (None if stop_never else 0)
        # MySQL's BINLOG-DUMP-GTIDS: the copy lacks the transactions of the set, so it
        # is not the server's file and is not resumed by position: each reconnect asks
        # for what is neither in the set nor in the copy (COM_BINLOG_DUMP_GTID)
        self.gtids = None if gtid_set is None else GtidAccumulator(gtid_set)
        self.gtid_pending = None
        self.mysql = False
        self.heartbeat = heartbeat if heartbeat is not None else (5.0 if stop_never else None)
        self.status = status            # callable(copy, events) for a progress line, or None
        self.notice = notice or (lambda message: None)
        self.sleep = sleep
        self.copy = None                # LocalCopy of the log being received
        self.previous = None            # ... and of the one before it
        self.events = 0
        self.received = 0           # events of the dump under way
        self.reconnects = 0
        self.last_when = 0
        self.connected = False      # once connected, a failed connect is retried
        self.checked_at = 0.0       # the last _check_history
        self.heartbeat_checks = True

    # -- the loop -------------------------------------------------------------
    def run(self):
        """Copy until the end (or for ever with stop_never); raises on errors."""
        logname, position = resume_point(self.prefix, self.first_log, self.notice)
        if position > L.BIN_LOG_HEADER_SIZE:
            self.copy = LocalCopy.resume(self.prefix, logname, position)
            if self.gtids is not None:      # what the earlier run copied is not asked again
                copied, self.copy.server_end = scan_gtids(self.prefix, self.first_log, logname)
                for sid, tag, gno in copied:
                    self.gtids.add(sid, tag, gno)
                position = self.copy.server_end
        failures = 0
        bad_events = 0
        try:
            while True:
                try:
                    if self._dump(logname, position):
                        return
                except ConnectionLost as exc:
                    if exc.errno == ER_SLAVE_SAME_ID:
                        raise ServerError(
                            f"another replica or backup connected with server id "
                            f"{self.server_id} and the server dropped this one ({exc.message}); "
                            "give each its own --connection-server-id", exc.errno) from None
                    # a fresh failure only once the copy got further (a server that sends
                    # the same events and drops the connection again and again is one
                    # failure repeated, not a new one each time)
                    failures = 1 if self._progressed(logname, position) else failures + 1
                    if self.retries is not None and failures > self.retries:
                        raise
                    self._pause(failures, exc)
                except BinlogError as exc:      # a bad event (CRC): fetch it again
                    bad_events = 1 if self._progressed(logname, position) else bad_events + 1
                    if bad_events > 5 or (self.retries is not None and bad_events > self.retries):
                        raise
                    self.notice(f"{exc}; fetching it again")
                if self.copy is not None:
                    self.copy.discard_pending()
                    logname, position = self._resume_from()
        finally:
            if self.copy is not None:
                self.copy.close()

    def _resume_from(self):
        """(log, offset) the next dump asks for: after the last complete group."""
        copy = self.copy
        if self.gtids is not None:      # the server's offset (a GTID dump's copy lacks some)
            return copy.name, copy.server_end
        if copy.fd is None:         # complete: ask for what follows it
            return copy.name, copy.size
        return copy.name, copy.safe_end

    def _progressed(self, logname, position):
        """Did the dump that started at (logname, position) add a complete group?"""
        return self.copy is not None and self._resume_from() != (logname, position)

    def _pause(self, failures, exc):
        self.reconnects += 1
        delay = min(0.2 * 2 ** min(failures - 1, 6), 10.0)
        self.notice(f"connection lost ({exc.message}); reconnecting in {delay:.1f} s")
        self.sleep(delay)

    def _dump(self, logname, position):
        """One COM_BINLOG_DUMP from (logname, position); True when the copy is done."""
        self.received = 0
        try:
            stream = DumpStream(self.connect())
        except ServerError as exc:
            if self.retries == 0 or not self.connected:     # a wrong password: no retry
                raise
            raise ConnectionLost(exc.message, exc.errno) from None
        self.connected = True
        try:
            self.mysql = stream.is_mysql()
            stream.start(logname, position, blocking=self.stop_never, server_id=self.server_id,
                         heartbeat=self.heartbeat, gtid_set=self._gtid_request(),
                         mysql=self.mysql)
            return self._receive(stream, logname, position)
        except ServerError as exc:
            if exc.errno == ER_MASTER_FATAL_ERROR_READING_BINLOG:
                raise GapError(f"{logname} at {position}: the server cannot send it "
                               f"({exc.message}); it was purged or the binlog history "
                               "was reset: stopping, so the copy has no gap") from None
            raise
        finally:
            stream.close()

    def _receive(self, stream, logname, position):
        framer = ReceivedEvents(logname, verify_checksum=True)
        resuming = position > L.BIN_LOG_HEADER_SIZE or self.gtids is not None and self.copy
        groups = GroupTracker()
        resume_encryption = False
        for data in stream.events():
            type_code = data[4]
            if type_code in _HEARTBEATS:        # MySQL v1 or v2, MariaDB: never in the file
                self._check_history()
                self._show()
                continue
            raw = framer.frame(data, self.copy.size if self.copy else 0)
            if type_code == L.ROTATE_EVENT and raw.when == 0:
                name = decode_event(raw, framer.fde).new_log_ident.decode("utf-8", "surrogateescape")
                if not self._switch(name, logname, resuming):
                    return True
                resuming = self.copy.size > L.BIN_LOG_HEADER_SIZE
                groups.reset()
                continue
            if type_code == L.FORMAT_DESCRIPTION_EVENT and resuming:
                self.copy.check_same_log(raw)
                resume_encryption = True
                resuming = self.gtids is not None      # GTID mode: the log is sent again
                continue
            if resume_encryption:       # an encrypted log's Start_encryption, sent again
                resume_encryption = False     # (log_pos 0) when a dump starts inside it
                if type_code == L.START_ENCRYPTION_EVENT and raw.log_pos == 0:
                    continue
            if raw.flags & L.LOG_EVENT_ARTIFICIAL_F:
                continue        # made up by the dump (MySQL), not in the server's file
            if resuming:        # GTID mode: what the copy has, sent again, is skipped
                if raw.log_pos and raw.log_pos <= self.copy.server_end:
                    continue
                resuming = False
            self._append(raw, framer, groups)
        if self.stop_never:     # a blocking dump never ends: the server went away
            raise ConnectionLost("the server ended the dump (shutdown)", CR_SERVER_LOST)
        return True         # EOF of a non-blocking dump

    def _gtid_request(self):
        return None if self.gtids is None else self.gtids.encoded()

    def _gtid_done(self):
        """A group ended: its GTID is in the copy (GTID mode)."""
        body, self.gtid_pending = self.gtid_pending, None
        if body is not None and body.type_code != L.ANONYMOUS_GTID_LOG_EVENT:
            self.gtids.add(body.sid, body.tag, body.gno)

    def _switch(self, name, requested, resuming):
        """A fake Rotate naming `name`: open (or go on with) its copy."""
        check_log_name(name)        # whatever is done with it: a name, not a path
        copy = self.copy
        if copy is not None and copy.name == name:
            return True
        if copy is not None:
            if not self.to_last_log:
                return False
            copy.finish_crashed(recovered=self.mysql)
        elif name != requested and not self.to_last_log:
            return False
        self.previous = copy
        self.copy = LocalCopy.create(self.prefix, name)
        return True

    def _append(self, raw, framer, groups):
        copy = self.copy
        if self.gtids is None:      # a GTID dump's copy lacks what the server skipped
            _check_place(raw, copy)
        if raw.type_code == L.FORMAT_DESCRIPTION_EVENT:
            copy.start(raw.data)
            groups.reset()
            previous = self.previous
            if (previous is not None and previous.ended_by == L.ROTATE_EVENT
                    and fde_created(raw.data)):
                previous.mark_in_use()      # a log made at startup right after a Rotate
            return
        copy.add(raw.data)
        self.events += 1
        self.received += 1
        self.last_when = raw.when
        if self.gtids is not None and raw.type_code in _GTID_TYPES:
            self.gtid_pending = decode_event(raw, framer.fde)
        if groups.feed_event(raw, framer.fde):
            copy.group_done(raw.log_pos)
            self._gtid_done()
            if raw.type_code in (L.ROTATE_EVENT, L.STOP_EVENT):
                copy.finish_closed(raw.type_code)
        self._show()

    def _check_history(self):
        """On a heartbeat (the dump is idle): the log being copied must still be on
        the server, at least as long as its copy.  RESET MASTER (or a PURGE) while
        a dump waits leaves the dump thread on the deleted file, sending heartbeats
        and never another event: without this look the copy would silently stop."""
        copy = self.copy
        now = time.monotonic()
        if (copy is None or copy.fd is None or not self.heartbeat_checks or not self.heartbeat
                or now - self.checked_at < self.heartbeat):
            # (heartbeats nobody asked for, or faster than asked: no look, and no new
            # connection for each)
            return
        self.checked_at = now
        try:
            stream = DumpStream(self.connect())
            try:
                sizes = {row[0]: int(row[1]) for row in stream.query("SHOW BINARY LOGS")}
            finally:
                stream.close()
        except ServerError as exc:
            if exc.errno not in _NO_PRIVILEGE:
                raise ConnectionLost(exc.message, exc.errno) from None
            self.notice(f"cannot watch for RESET MASTER ({exc.message}): grant BINLOG MONITOR "
                        "(MariaDB) or REPLICATION CLIENT to the backup's user")
            self.heartbeat_checks = False
            return
        size = sizes.get(copy.name)
        if size is None:
            raise GapError(f"{copy.name} is no longer on the server (RESET MASTER or PURGE "
                           "while it was being copied): stopping, so the copy has no gap")
        if size < copy.safe_end:
            raise GapError(f"{copy.name} on the server ({size} bytes) is shorter than its copy "
                           f"({copy.safe_end} bytes): the binlog history was reset; stopping, "
                           "so the copy has no gap")

    def _show(self):
        if self.status is not None and self.copy is not None:
            self.status(self)


_HEARTBEATS = frozenset({L.HEARTBEAT_LOG_EVENT, L.HEARTBEAT_LOG_EVENT_V2})
_GTID_TYPES = frozenset({L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT, L.GTID_TAGGED_LOG_EVENT})
def _check_place(raw, copy):
    """An event's end position (log_pos, when the server set one) must be where it
    ends in the copy: a server that sends events of another place (or another
    log) would otherwise make a copy that is not its file."""
    end = raw.log_pos
    if not end:
        return
    at = copy.size or L.BIN_LOG_HEADER_SIZE
    if end != at + len(raw.data):
        raise BinlogError(f"the server sent an event ending at {end} where the copy of "
                          f"{copy.name} is at {at}: not the next event of that log",
                          path=copy.path, offset=at, type_code=raw.type_code)


_NO_PRIVILEGE = frozenset({1044, 1045, 1142, 1227})
ER_SLAVE_SAME_ID = 4052         # "A slave with the same server_uuid/server_id is already connected"


def fde_created(data):
    """The 'created' field of a format description event: set in the first log a
    server writes at startup, 0 in a log opened by rotation."""
    at = L.LOG_EVENT_HEADER_LEN + 2 + 50
    return L.UINT32.unpack_from(data, at)[0] if len(data) >= at + 4 else 0

