"""`print -R`: mariadb-binlog's dump_remote_log_entries over the same printer.

Each log named on the command line is one COM_BINLOG_DUMP on a new
connection.  Events are numbered as the real tool numbers them: from the start
position on, each event adds its size, except the server's fake events (a
Rotate with timestamp 0, and a Format_description anywhere but at offset 4),
which keep the offset they arrive at.  Without --to-last-log the fake Rotate
naming the requested log is not printed, and one naming another log ends the
dump; with it (and with --stop-never) every fake Rotate is printed.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.errors import BinlogkitError
from binlogkit.printer.batch import BATCH_BYTES, EventBatch
from binlogkit.remote.framer import ReceivedEvents
from binlogkit.remote.protocol import DumpStream, ServerError


class RemoteSource:
    """What `print -R` needs to know: where to connect and how to dump."""

    def __init__(self, connect, *, to_last_log=False, stop_never=False, server_id=0,
                 skip_annotate_row_events=False, start_gtids=None, flush_each=None,
                 gtid_set=None, greeting=None):
        self.connect = connect              # () -> authenticated pymysql connection
        self.stop_never = stop_never
        self.to_last_log = to_last_log or stop_never
        self.server_id = server_id
        self.skip_annotate_row_events = skip_annotate_row_events
        self.start_gtids = start_gtids      # "D-S-N,..." for @slave_connect_state
        self.flush_each = stop_never if flush_each is None else flush_each
        # MySQL's BINLOG-DUMP-GTIDS: the encoded --exclude-gtids set (printer/mysql/remote.py)
        self.gtid_set = gtid_set
        self.greeting = greeting            # () -> the greeting's version, or None

    def server_is_mariadb(self):
        """From SELECT VERSION(), or the greeting's version when it cannot log in;
        when the server cannot be reached, the dump itself reports it (after the
        preamble, as mariadb-binlog does)."""
        try:
            stream = DumpStream(self.connect())
        except ServerError:
            version = self.greeting() if self.greeting is not None else None
            return version is None or "mariadb" in version.lower()
        try:
            return "mariadb" in str(stream.server_version()).lower()
        except ServerError:
            return True
        finally:
            stream.close()

    def reader(self, logname, verify_checksum=False):
        return ReceivedEvents(logname, verify_checksum)

    def open_stream(self, logname, start_position):
        stream = DumpStream(self.connect())
        stream.server_version()     # mariadb-binlog's check_master_version
        return stream.start(logname, start_position, blocking=self.stop_never,
                            server_id=(self.server_id or 1) if self.stop_never else 0,
                            annotate=not self.skip_annotate_row_events,
                            gtid_state=self.start_gtids,
                            # an idle --stop-never dump still sends something: its reads
                            # keep their timeout (remote.connection's read_timeout)
                            heartbeat=HEARTBEAT if self.stop_never else None)

    def dump_events(self, printer, reader, start_position, stop_position):
        """handle_event_text_mode for each event of one dump."""
        logname = reader.display_name
        stream = self.open_stream(logname, min(start_position, 0xFFFFFFFF))
        try:
            self._dump(printer, reader, stream, start_position, stop_position)
        except ServerError as exc:      # mariadb-binlog's words, without a file or offset
            raise BinlogkitError(f"Got error reading packet from server: {exc.message}") from None
        finally:
            stream.close()

    def _dump(self, printer, reader, stream, old_off, stop_position):
        logname = reader.display_name.encode()
        batch = EventBatch(printer, reader, 1 if self.flush_each else BATCH_BYTES, _OPEN_STATEMENT,
                           (stop_position,))
        try:
            self._receive(printer, reader, stream, old_off, stop_position, logname, batch)
        finally:            # what arrived before an error is printed before it
            batch.flush()

    def _receive(self, printer, reader, stream, old_off, stop_position, logname, batch):
        for data in stream.events():
            type_code = data[4]
            if type_code not in _SPECIAL:
                batch.add(data, old_off)        # numbered as in the file: each adds its size
                old_off += len(data)
                continue
            batch.flush()
            raw = reader.frame(data, old_off)
            advance = True
            if type_code == L.ROTATE_EVENT and raw.when == 0:
                advance = False     # a fake Rotate: not in the log
                if not self.to_last_log:
                    if decode_event(raw, reader.fde).new_log_ident != logname:
                        return
                    continue
            elif type_code == L.FORMAT_DESCRIPTION_EVENT:
                printer.adopt_format(reader)
                if old_off != L.BIN_LOG_HEADER_SIZE:
                    advance = False
            elif type_code == L.HEARTBEAT_LOG_EVENT:
                continue
            printer.process_event(reader, raw, stop_position)
            if advance:
                old_off += len(data)


HEARTBEAT = 30.0       # seconds, for --stop-never (mariadb-binlog sets none)


# events the batches never hold: they are numbered apart or change the format
_SPECIAL = frozenset({L.ROTATE_EVENT, L.FORMAT_DESCRIPTION_EVENT, L.HEARTBEAT_LOG_EVENT})
_OPEN_STATEMENT = frozenset({L.TABLE_MAP_EVENT, L.ANNOTATE_ROWS_EVENT}) | L.ROWS_EVENT_TYPES
