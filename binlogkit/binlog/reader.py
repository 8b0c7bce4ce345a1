"""Framing of binary log files: bytes in, raw events out.

`BinlogReader` walks a file (or stdin) event by event with a bounded buffer:
memory does not grow with the file.  A closed binlog (its format description
event's in-use flag clear: the server writes it no more) past the first
CHUNK_SIZE is mapped read-only instead of copied in, and the pages behind the
reader are let go every MAP_RELEASE bytes.  It knows only the common header and the
format description event (which decides whether events end in a CRC32); the
bodies are decoded by `binlogkit.binlog.events`.
"""
import os
import stat
import sys

from binlogkit._accel import speedups
from binlogkit.binlog.layout import (
    BIN_LOG_HEADER_SIZE, BINLOG_CHECKSUM_ALG_CRC32, BINLOG_CHECKSUM_ALG_OFF,
    BINLOG_CHECKSUM_ALG_UNDEF, BINLOG_CHECKSUM_LEN, BINLOG_MAGIC, COMMON_HEADER,
    ENCRYPTED_BINLOG_MAGIC, FORMAT_DESCRIPTION_EVENT, FORMAT_DESCRIPTION_HEADER,
    LEGACY_POST_HEADER_LEN, LOG_EVENT_BINLOG_IN_USE_F, LOG_EVENT_HEADER_LEN, OLD_HEADER,
    OLD_HEADER_LEN,
    PRE_GA_EVENT_TYPE_PERMUTATION, ROTATE_EVENT, START_EVENT_V3, START_V3_HEADER_LEN, UINT32,
)
from binlogkit.errors import (
    BadMagicError, BinlogError, ChecksumMismatchError, ReadFailedError, TruncatedEventError,
    UnreadableFileError,
)

CHUNK_SIZE = 1 << 20
MAX_READ = 16 << 20     # the most one read() asks for: memory follows the file, not a length field
MAP_RELEASE = 2 << 20   # a mapped file's pages behind the reader are let go in steps of this
_unpack_header = COMMON_HEADER.unpack_from
_unpack_u32 = UINT32.unpack_from


READ_FAILS_AT = (1 << 63) - (1 << 20)     # reads from here on pass the largest file offset

class RawEvent:
    """One event as it sits in the file: header fields plus its bytes.

    (With the C accelerator, `RawEvent` is its equivalent C type.)
    """

    __slots__ = ("pos", "when", "type_code", "server_id", "event_size",
                 "log_pos", "flags", "data", "end", "checksum")

    def __init__(self, pos, header, data, end, checksum):
        self.pos = pos
        (self.when, self.type_code, self.server_id, self.event_size,
         self.log_pos, self.flags) = header
        self.data = data          # the whole event as in the file, CRC included
        self.end = end            # length of the event without its CRC
        self.checksum = checksum  # stored CRC32 value, or None

    @property
    def payload(self):
        """The event without its trailing checksum."""
        return memoryview(self.data)[:self.end]

    def __repr__(self):
        return (f"RawEvent(pos={self.pos}, type_code={self.type_code}, "
                f"server_id={self.server_id}, event_size={self.event_size}, "
                f"log_pos={self.log_pos})")


PyRawEvent = RawEvent
if speedups is not None:
    RawEvent = speedups.RawEvent  # noqa: F811  same fields and constructor, in C


class FormatDescription:
    """What a format description event says about the events after it."""

    __slots__ = ("binlog_version", "server_version", "created", "header_len",
                 "post_header_len", "checksum_alg", "flags", "version_split",
                 "event_type_permutation")

    def __init__(self, binlog_version=4, server_version=b"", created=0,
                 header_len=LOG_EVENT_HEADER_LEN, post_header_len=b"",
                 checksum_alg=BINLOG_CHECKSUM_ALG_OFF, flags=0, event_type_permutation=None):
        self.binlog_version = binlog_version
        self.server_version = server_version
        self.created = created
        self.header_len = header_len
        self.post_header_len = post_header_len
        self.checksum_alg = checksum_alg
        self.flags = flags
        self.version_split = version_split(server_version)
        # pre-GA 5.1 trees numbered events differently: their id -> today's id
        self.event_type_permutation = event_type_permutation

    @property
    def is_mariadb(self):
        return b"MariaDB" in self.server_version

    def post_header(self, type_code, default=0):
        if 0 < type_code <= len(self.post_header_len):
            return self.post_header_len[type_code - 1]
        return default


def legacy_format(binlog_version):
    """Format_description_log_event(1|3): what a 3.23 (v1) or 4.0-4.1 (v3) log is read with
    (13- or 19-byte common header, the old post-header lengths, no checksums)."""
    post = LEGACY_POST_HEADER_LEN
    if binlog_version == 1:
        post = post[:ROTATE_EVENT - 1] + b"\0" + post[ROTATE_EVENT:]
    return FormatDescription(binlog_version, b"3.23" if binlog_version == 1 else b"4.0", 0,
                             OLD_HEADER_LEN if binlog_version == 1 else LOG_EVENT_HEADER_LEN, post)


def version_split(server_version):
    """(major, minor, patch) from a server version string like b'10.11.6-MariaDB'."""
    parts = []
    for piece in server_version.split(b".", 2)[:3]:
        digits = b""
        for byte in piece:
            if 48 <= byte <= 57:
                digits += bytes((byte,))
            else:
                break
        parts.append(int(digits) if digits else 0)
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def parse_format_description(data):
    """Decode a whole FORMAT_DESCRIPTION event (header and trailing 4 bytes included).

    A checksum-aware server's FDE always ends in checksum_alg + 4 bytes, also
    when the algorithm is OFF (the 4 bytes are then not a checksum of the file's
    events but still present), so the algorithm is the fifth byte from the end.
    """
    body = data[LOG_EVENT_HEADER_LEN:]
    if len(body) < FORMAT_DESCRIPTION_HEADER.size:
        raise ValueError("format description event too short")
    binlog_version, server_version, created, header_len = \
        FORMAT_DESCRIPTION_HEADER.unpack_from(body)
    if header_len < LOG_EVENT_HEADER_LEN:
        # Format_description_log_event::header_is_valid: no v4 event header is shorter
        raise ValueError(f"common header length {header_len}")
    server_version = server_version.split(b"\0", 1)[0]
    rest = bytes(body[FORMAT_DESCRIPTION_HEADER.size:])
    split = version_split(server_version)
    checksum_alg = BINLOG_CHECKSUM_ALG_UNDEF
    if _has_checksum_field(server_version, split) and len(rest) >= BINLOG_CHECKSUM_LEN + 1:
        checksum_alg = rest[-BINLOG_CHECKSUM_LEN - 1]
        rest = rest[:-BINLOG_CHECKSUM_LEN - 1]
    flags = COMMON_HEADER.unpack_from(data)[5]
    permutation = None
    if server_version.startswith(PRE_GA_VERSIONS) and len(rest) == 22:
        permutation = PRE_GA_EVENT_TYPE_PERMUTATION
        permuted = bytearray(22)
        for old_id in range(1, 23):
            permuted[permutation[old_id] - 1] = rest[old_id - 1]
        rest = bytes(permuted)
    return FormatDescription(binlog_version, server_version, created, header_len,
                             rest, checksum_alg, flags, permutation)


# Format_description_event (5.1-5.7): the mysql-5.1-wl1012/wl2325 trees, versions
# starting 5.1.[1-5]-a_drop5 or 5.2.[0-2]-a_drop6
PRE_GA_VERSIONS = tuple(b"5.1.%d-a_drop5" % n for n in range(1, 6)) + tuple(
    b"5.2.%d-a_drop6" % n for n in range(3))


def _has_checksum_field(server_version, split):
    """FDEs from MySQL >= 5.6.1 and MariaDB >= 5.3 end in checksum_alg + CRC."""
    if b"MariaDB" in server_version or split[0] >= 10:
        return split >= (5, 3, 0)
    return split >= (5, 6, 1)


def fde_raw_length(data, event_size):
    """Length of an FDE without its trailing CRC (FDEs are self-describing)."""
    body = data[LOG_EVENT_HEADER_LEN:event_size]
    if len(body) < FORMAT_DESCRIPTION_HEADER.size + BINLOG_CHECKSUM_LEN + 1:
        return event_size, False    # too short for a checksum: parse_format_description says so
    server_version = bytes(body[2:52]).split(b"\0", 1)[0]
    if _has_checksum_field(server_version, version_split(server_version)):
        alg = body[-BINLOG_CHECKSUM_LEN - 1]
        if alg != BINLOG_CHECKSUM_ALG_OFF and alg != BINLOG_CHECKSUM_ALG_UNDEF:
            return event_size - BINLOG_CHECKSUM_LEN, True
    return event_size, False


def event_crc(data, type_code):
    """CRC32 of an event; an FDE's is taken with its in-use flag cleared."""
    import zlib     # here, not at start-up: the C framer checks CRCs when it is built
    if type_code == FORMAT_DESCRIPTION_EVENT and data[17] & LOG_EVENT_BINLOG_IN_USE_F:
        data = bytearray(data)
        data[17] &= ~LOG_EVENT_BINLOG_IN_USE_F
    return zlib.crc32(data)


def legacy_header(header, binlog_version):
    """Log_event's constructor on a v1/v3 header: v1 has no log_pos and flags; v3's log_pos
    is where the event starts, turned into where it ends (not for an FDE)."""
    when, type_code, server_id, size, log_pos, flags = header
    if binlog_version == 1:
        return when, type_code, server_id, size, 0, 0
    if binlog_version == 3 and type_code < FORMAT_DESCRIPTION_EVENT and log_pos:
        log_pos = (log_pos + size) & 0xFFFFFFFF
    return when, type_code, server_id, size, log_pos, flags


class BinlogReader:
    """Iterate the events of one binlog file.

    `path` is a file name, or "-" for standard input.  The reader raises
    `BinlogError` subclasses with the file name and byte offset; events read
    before the error have already been yielded.
    """

    def __init__(self, path, *, start_position=BIN_LOG_HEADER_SIZE,
                 verify_checksum=False, stream=None, exact_v1=False):
        self.path = path
        # mariadb-binlog reads 19 bytes of every header, so it cannot read a v1 event shorter
        # than that (a Stop event); exact_v1 reads v1 headers as 13 bytes
        self.exact_v1 = exact_v1
        self.display_name = "-" if path == "-" else str(path)
        self.start_position = start_position
        self.verify_checksum = verify_checksum
        self.fde = FormatDescription(server_version=b"")
        self.in_use = False
        self._stream = stream
        self._file = None
        self._buf = b""
        self._buf_pos = 0   # file offset of self._buf[0]
        self._eof = False
        self._map = None        # the whole file, mapped (see the module's doc)
        self._released = 0      # the mapping's pages before this offset were let go

    # -- file handling ----------------------------------------------------
    def open(self):
        if self._stream is not None:
            self._file = self._stream
        elif self.path == "-":
            self._file = sys.stdin.buffer
        else:
            try:
                self._file = open(self.path, "rb", buffering=0)
            except FileNotFoundError as exc:
                raise self._error(BinlogError, f"File '{self.display_name}' not found (Errcode: "
                                  f"{exc.errno} \"{exc.strerror}\")", 0) from None
            except IsADirectoryError as exc:
                # the real tool opens a directory; my_read's message, then check_header's
                raise UnreadableFileError(
                    f"cannot read: {exc.strerror}", path=self.display_name, offset=0,
                    tool_message="Failed reading header; probably an empty file.",
                    detail=(f"Error reading file '{self.display_name}' (Errcode: {exc.errno} "
                            f"\"{exc.strerror}\")")) from None
            except OSError as exc:
                # my_open's one message for any open failure (Errcode 13: permissions)
                raise UnreadableFileError(
                    f"cannot read: {exc.strerror}", path=self.display_name, offset=0,
                    tool_message=(f"File '{self.display_name}' not found (Errcode: {exc.errno} "
                                  f"\"{exc.strerror}\")")) from None
        return self

    def close(self):
        if self._file is not None and self._stream is None and self.path != "-":
            self._file.close()
        self._file = None
        # a mapping is unmapped with its last reference (a caller's view may still hold it)
        self._map = None
        self._buf = b""

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    def _fill(self, upto, keep_from):
        """Make sure the buffer holds the file up to offset `upto` if it can.

        Whatever lies before `keep_from` (the event being read) is let go, so
        the buffer stays about CHUNK_SIZE plus one event, and each byte of
        the file is copied at most once on its way in."""
        if self._map is None and upto > CHUNK_SIZE:
            self._map_file()
        if self._map is not None:
            self._buf, self._buf_pos, self._eof = self._map, 0, True
            self._release_before(keep_from)
            return
        end = self._buf_pos + len(self._buf)
        if end >= upto or self._eof:
            return
        drop = min(max(keep_from - self._buf_pos, 0), len(self._buf))
        parts = [self._buf[drop:]] if drop < len(self._buf) else []
        self._buf_pos += drop
        while end < upto:
            try:    # bounded reads: a corrupt length field must not allocate what it claims
                chunk = self._file.read(min(max(CHUNK_SIZE, upto - end), MAX_READ))
            except OSError as exc:
                raise self._error(BinlogError, f"Error reading file (Errcode: {exc.errno} "
                                  f"\"{exc.strerror}\")", end) from None
            if not chunk:
                self._eof = True
                break
            parts.append(chunk)
            end += len(chunk)
        self._buf = parts[0] if len(parts) == 1 else b"".join(parts)

    def _map_file(self):
        """Map the file when it is a closed binlog on a regular file past CHUNK_SIZE."""
        if (self._stream is not None or self.path == "-" or self._file is None or self.in_use
                or self.fde.server_version == b""):
            return
        try:
            st = os.fstat(self._file.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size <= CHUNK_SIZE:
                return
            import mmap     # here: small files never need it (start-up)
            self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):
            self._map = None            # read() as usual

    def _release_before(self, pos):
        """Let the mapped pages before `pos` go, MAP_RELEASE at a time (they stay in the page
        cache; peak memory does not grow with the file)."""
        if pos - self._released < MAP_RELEASE:
            return
        import mmap
        upto = pos & ~(mmap.PAGESIZE - 1)
        if hasattr(self._map, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
            self._map.madvise(mmap.MADV_DONTNEED, self._released, upto - self._released)
        self._released = upto

    def _rewind(self, pos):
        try:
            self._file.seek(pos)
        except (OSError, ValueError) as exc:
            raise self._error(BinlogError, f"Cannot go back to offset {pos}: {exc}", pos) from None
        self._buf, self._buf_pos, self._eof = b"", pos, False

    def _error(self, cls, message, offset, type_code=None):
        return cls(message, path=self.display_name, offset=offset, type_code=type_code)

    # -- header -------------------------------------------------------------
    def read_magic(self):
        self._fill(BIN_LOG_HEADER_SIZE, 0)
        magic = self._buf[:BIN_LOG_HEADER_SIZE]
        if len(magic) < BIN_LOG_HEADER_SIZE:
            raise self._error(BadMagicError, "Failed reading header; probably an empty file.", 0)
        if magic == ENCRYPTED_BINLOG_MAGIC:
            raise self._error(BadMagicError, "Reading encrypted log files directly is not supported.", 0)
        if magic != BINLOG_MAGIC:
            raise self._error(BadMagicError, "File is not a binary log file.", 0)

    # -- events -------------------------------------------------------------
    def read_event_at(self, pos):
        """Return (RawEvent or None at clean EOF) for the event at file offset pos.

        Reading goes forward: the buffer before `pos` may be dropped (going
        back re-reads the file, when it can seek)."""
        if pos < self._buf_pos:
            self._rewind(pos)
        need = LOG_EVENT_HEADER_LEN
        if self.exact_v1 and self.fde.binlog_version == 1:
            need = OLD_HEADER_LEN
        self._fill(pos + need, pos)
        rel = pos - self._buf_pos
        avail = len(self._buf) - rel
        if avail <= 0:
            return None
        if avail < need:
            raise self._error(TruncatedEventError, "Event truncated", pos)
        if need == OLD_HEADER_LEN:
            header = OLD_HEADER.unpack_from(self._buf, rel) + (0, 0)
        else:
            header = _unpack_header(self._buf, rel)
        event_size = header[3]
        if event_size < need:
            raise self._error(BinlogError, f"Event invalid, data_len: {event_size}, "
                              f"event_type: {header[1]}", pos, header[1])
        self._fill(pos + event_size, pos)
        rel = pos - self._buf_pos
        if len(self._buf) - rel < event_size:
            error = self._error(TruncatedEventError, f"Event truncated, data_len: {event_size}, "
                                f"event_type: {header[1]}", pos, header[1])
            error.data_len = event_size
            raise error
        raw = self._buf[rel:rel + event_size]
        return self._frame(pos, header, raw)

    def _frame(self, pos, header, raw):
        type_code = header[1]
        version = self.fde.binlog_version
        if version < 4:
            header = legacy_header(header, version)
        permutation = self.fde.event_type_permutation
        if permutation is not None and type_code < len(permutation):
            type_code = permutation[type_code]
            header = (header[0], type_code) + tuple(header[2:])
        if type_code == FORMAT_DESCRIPTION_EVENT:
            length, has_crc = fde_raw_length(raw, len(raw))
        else:
            has_crc = self.fde.checksum_alg == BINLOG_CHECKSUM_ALG_CRC32
            length = len(raw) - BINLOG_CHECKSUM_LEN if has_crc else len(raw)
            if has_crc and length < LOG_EVENT_HEADER_LEN:
                raise self._error(BinlogError, "Event invalid", pos, type_code)
        checksum = _unpack_u32(raw, length)[0] if has_crc else None
        if has_crc and self.verify_checksum and event_crc(raw[:length], type_code) != checksum:
            error = self._error(ChecksumMismatchError, "Event crc check failed! Most likely "
                                "there is event corruption.", pos, type_code)
            error.data_len = len(raw)
            raise error
        event = RawEvent(pos, header, raw, length, checksum)
        if type_code == FORMAT_DESCRIPTION_EVENT:
            self._set_fde(event)
        return event

    def _set_fde(self, event):
        try:
            self.fde = parse_format_description(event.data)
        except ValueError:      # the real tool's words for an event its constructor rejects
            raise self._error(BinlogError, f"Found invalid event in binary log, data_len: "
                              f"{event.event_size}, event_type: {event.type_code}",
                              event.pos, event.type_code) from None
        self.in_use = bool(self.fde.flags & LOG_EVENT_BINLOG_IN_USE_F)

    def events(self, start=None):
        """Yield RawEvents from `start` (default: just after the magic)."""
        pos = BIN_LOG_HEADER_SIZE if start is None else start
        while True:
            event = self.next_event(pos)
            if event is None:
                return
            yield event
            pos += event.event_size

    def next_event(self, pos):
        """The RawEvent at file offset `pos`, or None at a clean end of file.

        Callers go forward: the buffer before `pos` may be dropped."""
        if pos >= READ_FAILS_AT:   # a read there fails (the end would pass the largest file
            # offset), or the seek does: the real tools print the offset signed
            raise self._error(ReadFailedError, "read error", pos if pos < 1 << 63 else pos - (1 << 64))
        if self._map is not None and pos - self._released >= MAP_RELEASE:
            self._release_before(pos)
        event = None
        if (self.verify_checksum or self.fde.event_type_permutation is not None
                or self.fde.binlog_version < 4):
            pass                # the slow path checks CRCs, renumbers pre-GA ids, reads v1/v3
        elif speedups is not None:
            event = speedups.frame(self._buf, pos - self._buf_pos, pos,
                                   self.fde.checksum_alg == BINLOG_CHECKSUM_ALG_CRC32)
        else:
            event = self._next_buffered(pos)
        if event is None:
            event = self.read_event_at(pos)
        return event

    def buffered(self, pos, ahead=0):
        """(buffer, index of `pos` in it), for batch printers: what is read
        already, after reading on so that `ahead` bytes past `pos` are there
        (when the file has them).  The buffer before `pos` may be dropped."""
        if self._buf_pos + len(self._buf) < pos + ahead:
            self._fill(pos + ahead, pos)
        elif self._map is not None:
            self._release_before(pos)
        return self._buf, pos - self._buf_pos

    def _next_buffered(self, pos):
        """read_event_at's common case (speedups.frame in C): a whole non-FDE
        event already in the buffer.  None means: take the slow path."""
        buf = self._buf
        rel = pos - self._buf_pos
        if rel + LOG_EVENT_HEADER_LEN > len(buf):
            return None
        header = _unpack_header(buf, rel)
        size = header[3]
        if header[1] == FORMAT_DESCRIPTION_EVENT or rel + size > len(buf):
            return None
        if self.fde.checksum_alg == BINLOG_CHECKSUM_ALG_CRC32:
            if size < LOG_EVENT_HEADER_LEN + BINLOG_CHECKSUM_LEN:
                return None
            return RawEvent(pos, header, buf[rel:rel + size], size - BINLOG_CHECKSUM_LEN,
                            _unpack_u32(buf, rel + size - BINLOG_CHECKSUM_LEN)[0])
        if size < LOG_EVENT_HEADER_LEN:
            return None
        return RawEvent(pos, header, buf[rel:rel + size], size, None)

    def probe_short(self, pos):
        """Whether fewer than 13 bytes (check_header's probe: up to the event length) but not
        none are left at `pos`."""
        self._fill(pos + OLD_HEADER_LEN, pos)
        avail = self._buf_pos + len(self._buf) - pos
        return 0 < avail < OLD_HEADER_LEN

    def check_probe(self, pos):
        """check_header's 13-byte read at `pos` (before --start-position): a short read, but
        not an end of file, ends the run with its one line."""
        if self.probe_short(pos):
            raise self._error(BinlogError, f"Could not read entry at offset {pos}: Error in log "
                              "format or read error.", pos)

    def check_start_v3(self):
        """check_header's test of the first event: a Start_v3 there makes this a v1 log (the
        event shorter than 19 + 56 bytes) or a v3 log, read with legacy_format from then on."""
        self._fill(BIN_LOG_HEADER_SIZE + LOG_EVENT_HEADER_LEN, 0)
        rel = BIN_LOG_HEADER_SIZE - self._buf_pos
        if rel < 0 or len(self._buf) - rel < OLD_HEADER_LEN or self._buf[rel + 4] != START_EVENT_V3:
            return None
        size = _unpack_u32(self._buf, rel + 9)[0]
        self.fde = legacy_format(1 if size < LOG_EVENT_HEADER_LEN + START_V3_HEADER_LEN else 3)
        return self.fde

    def probe_format(self):
        """Read the FDE (and skip a leading Rotate) before a --start-position.

        Mirrors check_header(): events at offsets below start_position are read
        only to learn the format.  Returns the FDE RawEvent, or None.
        """
        pos = BIN_LOG_HEADER_SIZE
        while pos < self.start_position:
            self.check_probe(pos)
            self._fill(pos + LOG_EVENT_HEADER_LEN, pos)
            rel = pos - self._buf_pos
            if len(self._buf) - rel < LOG_EVENT_HEADER_LEN:
                return None
            type_code = self._buf[rel + 4]
            if type_code == START_EVENT_V3:
                return None
            if type_code == FORMAT_DESCRIPTION_EVENT:
                return self.read_event_at(pos)
            if type_code != 4:  # ROTATE
                return None
            event = self.read_event_at(pos)
            pos += event.event_size
        return None
