"""The local copy of one server binlog, written a complete event group at a time.

Events of the group being received wait in memory (up to MAX_PENDING bytes)
and go to the file when the group is complete; `safe_end` is the offset after
the last complete group.  After a failure `discard_pending()` cuts the file
back to `safe_end`, where the next dump resumes.

`resume_point(prefix, first_log)` finds where an earlier run stopped: it
follows the local copies from `first_log` through their Rotate events and
returns (log name, offset after the last complete group of the last copy).
"""
import os

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.errors import BinlogkitError
from binlogkit.remote.groups import GroupTracker

MAX_PENDING = 16 << 20
FDE_FLAGS_AT = L.BIN_LOG_HEADER_SIZE + L.FLAGS_OFFSET


class CopyError(BinlogkitError):
    """The local copy cannot be written, or is not the server's log."""


class UnsafeNameError(CopyError):
    """A binlog name (from the server) that is not a plain file name."""


NAME_MAX = 255


def check_log_name(name):
    """The copy's path is the --result-file prefix plus the binlog name the server
    sends (Rotate events, SHOW BINARY LOGS): the name must be a plain file name, or
    a server (or whoever answers in its place) could make the backup create or
    truncate files anywhere.  Raises UnsafeNameError, before anything is written."""
    raw = name.encode("utf-8", "surrogateescape") if isinstance(name, str) else bytes(name)
    why = None
    if not raw:
        why = "empty"
    elif len(raw) > NAME_MAX:
        why = f"{len(raw)} bytes, over {NAME_MAX}"
    elif raw in (b".", b".."):
        why = "a directory"
    elif b"/" in raw or b"\\" in raw:
        why = "has a path separator"
    elif b"\0" in raw:
        why = "has a NUL byte"
    elif any(byte < 0x20 or byte == 0x7F for byte in raw):
        why = "has a control character"
    if why is not None:
        shown = repr(raw[:80])[1:] + ("..." if len(raw) > 80 else "")
        raise UnsafeNameError(f"binlog name {shown} is not a plain file name ({why}): "
                              "stopping, nothing written for it")
    return name


class LocalCopy:
    def __init__(self, name, path, fd, size, fde=None):
        self.name = name
        self.path = path
        self.fd = fd
        self.size = size            # bytes written and pending
        self.disk_size = size
        self.safe_end = size
        self.server_end = size      # the server's offset after the last complete group
        self.pending = []
        self.fde = fde              # the format description event as the server sent it
        self.ended_by = None        # ROTATE_EVENT / STOP_EVENT once complete

    # -- opening ----------------------------------------------------------------
    @classmethod
    def create(cls, prefix, name):
        path = prefix + check_log_name(name)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o640)
        except OSError as exc:
            raise CopyError(f"Could not create output log file: {path} ({exc.strerror})") from None
        _sync_dir(path)
        return cls(name, path, fd, 0)

    @classmethod
    def resume(cls, prefix, name, position):
        """Go on with an earlier run's copy, cut back to `position`."""
        path = prefix + check_log_name(name)
        try:
            fd = os.open(path, os.O_RDWR)
            os.ftruncate(fd, position)
            head = os.pread(fd, min(position, 1 << 16), 0)
        except OSError as exc:
            raise CopyError(f"Could not reopen output log file: {path} ({exc.strerror})") from None
        fde = None
        if len(head) >= L.BIN_LOG_HEADER_SIZE + L.LOG_EVENT_HEADER_LEN:
            size = L.COMMON_HEADER.unpack_from(head, 4)[3]
            fde = bytearray(head[4:4 + size])
            fde[L.FLAGS_OFFSET] &= ~L.LOG_EVENT_BINLOG_IN_USE_F
            fde = bytes(fde)
        return cls(name, path, fd, position, fde)

    # -- writing ------------------------------------------------------------------
    def start(self, fde_data):
        """The log's format description event: magic + FDE, flagged in use."""
        self.fde = bytes(fde_data)
        flagged = bytearray(fde_data)
        flagged[L.FLAGS_OFFSET] |= L.LOG_EVENT_BINLOG_IN_USE_F
        self.add(L.BINLOG_MAGIC)
        self.add(bytes(flagged))
        self.group_done()

    def add(self, data):
        self.pending.append(data)
        self.size += len(data)
        if self.size - self.disk_size > MAX_PENDING:
            self.write_pending()

    def pending_bytes(self):
        return self.size - self.disk_size

    def write_pending(self):
        if not self.pending:
            return
        data = b"".join(self.pending)
        self.pending = []
        try:
            os.pwrite(self.fd, data, self.disk_size)
        except OSError as exc:
            raise CopyError(f"Could not write into log file '{self.path}' ({exc.strerror})") from None
        self.disk_size += len(data)

    def group_done(self, log_pos=0):
        """The events added so far end a group (`log_pos`: the last one's end in the
        server's file, which differs from the copy's when a GTID dump left some out)."""
        self.write_pending()
        self.safe_end = self.size
        self.server_end = log_pos or self.size

    def discard_pending(self):
        """Forget what follows the last complete group (also on disk)."""
        self.pending = []
        if self.disk_size > self.safe_end:
            os.ftruncate(self.fd, self.safe_end)
        self.size = self.disk_size = self.safe_end

    # -- ending -------------------------------------------------------------------
    def finish_closed(self, type_code):
        """A Rotate or Stop event ended the log: the server closed its file and
        cleared the in-use flag; so does the copy."""
        self.ended_by = type_code
        if self.fde is not None:
            os.pwrite(self.fd, bytes((self.fde[L.FLAGS_OFFSET],)), FDE_FLAGS_AT)
        self.close()

    def mark_in_use(self):
        """The server died between writing this log's Rotate event and clearing
        its in-use flag (it syncs the file in between): the flag stays set there."""
        fd = os.open(self.path, os.O_WRONLY)
        try:
            os.pwrite(fd, bytes((self.fde[L.FLAGS_OFFSET] | L.LOG_EVENT_BINLOG_IN_USE_F,)),
                      FDE_FLAGS_AT)
            os.fsync(fd)
        finally:
            os.close(fd)

    def finish_crashed(self, recovered=False):
        """The server went on with another log without ending this one: the copy
        keeps what was complete, and the in-use flag, as the server's file (MariaDB);
        `recovered`: the server cleared the flag when it recovered the log at its
        restart, as MySQL does, and so does the copy."""
        if recovered and self.fd is not None and self.fde is not None:
            self.discard_pending()
            os.pwrite(self.fd, bytes((self.fde[L.FLAGS_OFFSET],)), FDE_FLAGS_AT)
        self.close()

    def close(self):
        if self.fd is None:
            return
        self.discard_pending()
        try:
            os.fsync(self.fd)
        finally:
            os.close(self.fd)
            self.fd = None

    def sync(self):
        if self.fd is not None:
            os.fsync(self.fd)

    def check_same_log(self, raw):
        """The FDE the server sends when a dump starts inside this log must be
        the one the copy starts with (its time, server id, versions and layout;
        not the 'created' field, which the server sends as 0 then): else the
        server's log is another one."""
        data = bytes(raw.data)
        mine = self.fde
        if mine is None:
            return
        body = L.LOG_EVENT_HEADER_LEN
        created = body + 2 + 50        # the server sends 0 there when it starts mid-log
        same = (len(mine) == len(data) and mine[:4] == data[:4] and mine[5:9] == data[5:9]
                and mine[body:created] == data[body:created]
                and mine[created + 4:-4] == data[created + 4:-4])
        if not same:
            raise CopyError(f"{self.name} on the server is not the log this copy holds (the "
                            "binlog history was reset, or another server answers): stopping, "
                            "so the copy has no gap")


def _sync_dir(path):
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# -- where an earlier run stopped ---------------------------------------------------

def resume_point(prefix, first_log, notice=lambda message: None):
    """(log name, offset) to ask the server for, after the local copies."""
    name = first_log
    seen = set()
    while name not in seen:
        seen.add(name)
        path = prefix + check_log_name(name)
        try:
            size = os.path.getsize(path)
        except OSError:
            return name, L.BIN_LOG_HEADER_SIZE
        if size <= L.BIN_LOG_HEADER_SIZE:
            return name, L.BIN_LOG_HEADER_SIZE
        safe_end, next_log, stopped = scan_copy(path)
        if next_log is not None:
            name = next_log
            continue
        if safe_end <= L.BIN_LOG_HEADER_SIZE:
            return name, L.BIN_LOG_HEADER_SIZE
        if safe_end < size:
            notice(f"{path}: cutting {size - safe_end} bytes of an incomplete event group "
                   f"from the end (offset {safe_end})")
        return name, safe_end if not stopped else size
    return name, L.BIN_LOG_HEADER_SIZE


def scan_copy(path):
    """(offset after the last complete group, next log named by a final Rotate,
    whether a Stop event ends it) of a local copy."""
    groups = GroupTracker()
    safe_end = L.BIN_LOG_HEADER_SIZE
    next_log = None
    stopped = False
    reader = BinlogReader(path)
    try:
        with reader:
            reader.read_magic()
            for raw in reader.events():
                if raw.type_code == L.FORMAT_DESCRIPTION_EVENT:
                    safe_end = raw.pos + raw.event_size
                    continue
                if groups.feed_event(raw, reader.fde):
                    safe_end = raw.pos + raw.event_size
                    if raw.type_code == L.ROTATE_EVENT:
                        next_log = decode_event(raw, reader.fde).new_log_ident.decode(
                            "utf-8", "surrogateescape")
                    stopped = raw.type_code == L.STOP_EVENT
    except BinlogkitError:
        pass                # a torn last event: the copy ends at safe_end
    return safe_end, next_log, stopped


def scan_gtids(prefix, first_log, last_log):
    """What a GTID-mode backup's earlier run copied: ([(sid, tag, gno)] of the complete
    groups in the copies from `first_log` through their Rotate events to `last_log`,
    the server's offset (log_pos) after the last complete group of `last_log`)."""
    gtids, name, seen, server_end = [], first_log, set(), L.BIN_LOG_HEADER_SIZE
    while name not in seen:
        seen.add(name)
        server_end, next_log = _scan_gtids_of(prefix + name, gtids)
        if name == last_log or next_log is None:
            break
        name = next_log
    return gtids, server_end


def _scan_gtids_of(path, gtids):
    groups = GroupTracker()
    pending, server_end, next_log = None, L.BIN_LOG_HEADER_SIZE, None
    try:
        with BinlogReader(path) as reader:
            reader.read_magic()
            for raw in reader.events():
                if raw.type_code == L.FORMAT_DESCRIPTION_EVENT:
                    server_end = raw.log_pos or raw.pos + raw.event_size
                    continue
                if raw.type_code in _GTID_TYPES:
                    pending = decode_event(raw, reader.fde)
                if groups.feed_event(raw, reader.fde):
                    server_end = raw.log_pos
                    if pending is not None and pending.type_code != L.ANONYMOUS_GTID_LOG_EVENT:
                        gtids.append((pending.sid, pending.tag, pending.gno))
                    pending = None
                    if raw.type_code == L.ROTATE_EVENT:
                        next_log = decode_event(raw, reader.fde).new_log_ident.decode()
    except (BinlogkitError, OSError):
        pass                # a torn last event: the copy ends at its last complete group
    return server_end, next_log


_GTID_TYPES = frozenset({L.GTID_LOG_EVENT, L.GTID_TAGGED_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT})
