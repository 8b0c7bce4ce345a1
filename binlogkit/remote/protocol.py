"""The replication protocol's dump commands: a connection in, event bytes out.

pymysql (python-mysql-replication's own driver) connects and authenticates;
from COM_BINLOG_DUMP on, this module frames the packets itself.  We do not use
python-mysql-replication's BinLogStreamReader for the dump: it decodes every
event into Python objects and keeps no raw bytes, and binlogkit needs the
event bytes exactly as the server sent them (the decoders and the raw backup
work on those).

    stream = DumpStream(conn)
    stream.prepare(gtid_state="0-1-5")          # the SET statements a replica sends
    stream.request("mariadb-bin.000001", 4, server_id=0, flags=BINLOG_DUMP_NON_BLOCK)
    for event in stream.events():               # bytes of one event, CRC included
        ...

Each packet of the dump is an OK byte followed by one event; an EOF packet
ends a non-blocking dump; an error packet becomes `ServerError`.
"""
import struct

from binlogkit.errors import BinlogkitError

COM_BINLOG_DUMP = 0x12
COM_BINLOG_DUMP_GTID = 0x1E
BINLOG_DUMP_NON_BLOCK = 1
BINLOG_SEND_ANNOTATE_ROWS_EVENT = 2
BINLOG_THROUGH_GTID = 4                 # MySQL COM_BINLOG_DUMP_GTID flag
MARIA_SLAVE_CAPABILITY_MINE = 4         # MARIA_SLAVE_CAPABILITY_GTID
MAX_PACKET_LEN = 0xFFFFFF

ER_MASTER_FATAL_ERROR_READING_BINLOG = 1236
CR_SERVER_LOST = 2013

_DUMP = struct.Struct("<IHI")           # position, flags, server id


class ServerError(BinlogkitError):
    """The server answered with an error packet, or the connection failed."""

    def __init__(self, message, errno=None):
        super().__init__(message)
        self.message = message
        self.errno = errno


class ConnectionLost(ServerError):
    """The connection ended (server gone, dump thread killed, network)."""


class DumpStream:
    """One binlog dump over an authenticated pymysql connection."""

    def __init__(self, conn):
        self.conn = conn
        self._read = conn._rfile.read
        self.max_packet = getattr(conn, "_max_packet", 1 << 30)    # remote.handshake

    # -- set-up ---------------------------------------------------------------
    def query(self, sql):
        try:
            with self.conn.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall()
        except Exception as exc:  # pymysql.MySQLError or OSError
            raise _server_error(exc) from None

    def prepare(self, *, checksum="NONE", gtid_state=None, heartbeat=None, mysql=False):
        """What mariadb-binlog (mysqlbinlog for `mysql`) says before its dump:
        checksum awareness, on MariaDB the capability (GTID events as they are)
        and a GTID start, a heartbeat period if asked for."""
        self.query(f"SET @master_binlog_checksum='{checksum}'")
        if not mysql:
            self.query(f"SET @mariadb_slave_capability={MARIA_SLAVE_CAPABILITY_MINE}")
        if heartbeat:
            period = int(heartbeat * 1e9)
            self.query(f"SET @master_heartbeat_period={period}")
            if mysql:       # 8.0.26+ reads the new name first
                self.query(f"SET @source_heartbeat_period={period}")
        if gtid_state is not None:
            self.query(f"SET @slave_connect_state='{gtid_state}'")

    def start(self, logname, position, *, blocking=False, server_id=0, annotate=True,
              gtid_state=None, heartbeat=None, gtid_set=None, mysql=False):
        """prepare() and request() as mariadb-binlog does: annotations asked for unless
        left out, a non-blocking dump unless `blocking` (--stop-never).  With
        `gtid_set` (an encoded MySQL GTID set) the dump is COM_BINLOG_DUMP_GTID
        leaving those transactions out, as mysqlbinlog's BINLOG-DUMP-GTIDS.

        The flags mean different things per server: 2 is MariaDB's "send
        Annotate_rows" but MySQL's "v2 heartbeats" (USE_HEARTBEAT_EVENT_V2), so a
        MySQL dump (`mysql`) never sets it, as mysqlbinlog does not."""
        self.prepare(gtid_state=gtid_state, heartbeat=heartbeat, mysql=mysql)
        block = 0 if blocking else BINLOG_DUMP_NON_BLOCK
        if gtid_set is not None:
            self.request_gtid(logname, position, gtid_set, server_id=server_id, flags=block)
        else:
            annotate = annotate and not mysql
            flags = (BINLOG_SEND_ANNOTATE_ROWS_EVENT if annotate else 0) | block
            self.request(logname, position, server_id=server_id, flags=flags)
        return self

    def is_mysql(self):
        """True for a MySQL server (SELECT VERSION() without 'MariaDB')."""
        return "mariadb" not in str(self.server_version()).lower()

    def server_version(self):
        return self.query("SELECT VERSION()")[0][0]

    def request(self, logname, position, *, server_id=0, flags=0):
        """COM_BINLOG_DUMP: 4-byte position, flags, server id, file name."""
        name = logname.encode() if isinstance(logname, str) else logname
        self._command(COM_BINLOG_DUMP, _DUMP.pack(min(position, 0xFFFFFFFF), flags,
                                                  server_id) + name)

    def request_gtid(self, logname, position, gtid_set_bytes, *, server_id=0, flags=0):
        """COM_BINLOG_DUMP_GTID (MySQL 5.6+): file, position and an encoded GTID set."""
        name = logname.encode() if isinstance(logname, str) else logname
        payload = (struct.pack("<HII", flags | BINLOG_THROUGH_GTID, server_id, len(name)) + name
                   + struct.pack("<QI", position, len(gtid_set_bytes)) + gtid_set_bytes)
        self._command(COM_BINLOG_DUMP_GTID, payload)

    def _command(self, command, payload):
        try:
            self.conn._execute_command(command, payload)
        except Exception as exc:
            raise _server_error(exc) from None

    # -- the stream -------------------------------------------------------------
    def events(self):
        """Yield each event's bytes until the server's EOF packet."""
        read_packet = self.read_packet
        while True:
            packet = read_packet()
            first = packet[0]
            if first == 0:
                yield packet[1:]
            elif first == 0xFE and len(packet) < 8:
                return
            elif first == 0xFF:
                raise _error_packet(packet)
            else:
                raise ServerError(f"Unexpected packet from server (first byte {first})")

    def read_packet(self):
        header = self._read_exactly(4)
        length = header[0] | header[1] << 8 | header[2] << 16
        payload = self._read_exactly(length)
        if length < MAX_PACKET_LEN:
            return payload
        parts, total = [payload], length
        while length == MAX_PACKET_LEN:     # a big event comes in 16 MB pieces
            header = self._read_exactly(4)
            length = header[0] | header[1] << 8 | header[2] << 16
            total += length
            if total > self.max_packet:     # a server streaming one endless packet
                raise ServerError(f"Got packet bigger than 'max_allowed_packet' bytes "
                                  f"({self.max_packet}) from server", 2020)
            parts.append(self._read_exactly(length))
        return b"".join(parts)

    def _read_exactly(self, size):
        try:
            data = self._read(size)
        except OSError as exc:          # socket.timeout included
            raise ConnectionLost(f"Lost connection to server during binlog dump ({exc})",
                                 CR_SERVER_LOST) from None
        except (AttributeError, ValueError):     # the connection was closed under us
            raise ConnectionLost("Lost connection to server during binlog dump",
                                 CR_SERVER_LOST) from None
        if len(data) < size:
            raise ConnectionLost("Lost connection to server during binlog dump",
                                 CR_SERVER_LOST)
        return data

    def close(self):
        try:
            self.conn.close()
        except Exception:
            pass


def _error_packet(packet):
    """An error packet during the dump: ER_MASTER_FATAL_ERROR_READING_BINLOG (the
    log is gone, a position is impossible...) is final; the others (shutdown,
    KILL, ...) end this connection only."""
    errno = packet[1] | packet[2] << 8 if len(packet) >= 3 else 0
    message = packet[3:]
    if message[:1] == b"#":
        message = message[6:]
    cls = ServerError if errno == ER_MASTER_FATAL_ERROR_READING_BINLOG else ConnectionLost
    text = printable(message.decode("utf-8", "replace"))
    return cls(text or f"error {errno} from server, without a message", errno)


def printable(text):
    """A server's text for one line on a terminal: control characters (escape
    sequences, new lines) shown as \\xNN, long texts cut."""
    if len(text) > 512:
        text = text[:512] + "..."
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 256
                   else f"\\u{ord(ch):04x}" for ch in text)


def _server_error(exc):
    """pymysql's exceptions -> ServerError (ConnectionLost for a lost connection)."""
    args = getattr(exc, "args", ())
    if len(args) >= 2 and isinstance(args[0], int):
        errno, message = args[0], printable(str(args[1]))
        cls = ConnectionLost if errno in (CR_SERVER_LOST, 2006, 2003, 2002) else ServerError
        return cls(message, errno)
    if len(args) >= 2 and isinstance(args[0], str) and "%" in args[0]:
        try:        # pymysql's OperationalError(format, value)
            return ServerError(printable(args[0] % args[1:]))
        except (TypeError, ValueError):
            pass
    return ConnectionLost(printable(str(exc)) or type(exc).__name__, CR_SERVER_LOST)
