"""`print -R` of a MySQL server: mysqlbinlog 9.7's dump_remote_log_entries.

Each log named on the command line is one dump on a new connection
(COM_BINLOG_DUMP, or COM_BINLOG_DUMP_GTID leaving out the --exclude-gtids set
with --read-from-remote-source=BINLOG-DUMP-GTIDS), after SELECT VERSION()
(check_master_version: 5.x, 8.x or 9.x) and @master_binlog_checksum.  No
dump flag asks for heartbeats or annotations; heartbeats are never printed.

Numbering, as the real tool numbers remote events: from the start position
each event adds its size, except the server's fake events.  A fake Rotate
(timestamp 0) naming the requested log is skipped without --to-last-log and
one naming another log ends the dump; with --to-last-log (and --stop-never)
it is printed at the start position, which it sets the count back to.  A
Format_description event keeps the offset it arrives at unless that is 4.
mysqlbinlog 9.7 refuses that printed fake Rotate under --require-row-format.
"""
from binlogkit.binlog import layout as L
from binlogkit.errors import BinlogkitError
from binlogkit.printer.batch import BATCH_BYTES, EventBatch
from binlogkit.remote.framer import ReceivedEvents
from binlogkit.remote.protocol import DumpStream, ServerError

_HEARTBEATS = frozenset({L.HEARTBEAT_LOG_EVENT, L.HEARTBEAT_LOG_EVENT_V2})


class RemoteDumpError(BinlogkitError):
    """An error of the dump, in the real tool's words (no file, no offset)."""


def dump_remote_log(printer, source, logname, start_position):
    """Print one log (and, with --to-last-log, all after it) from the server."""
    stream = _open(source, logname, start_position)
    reader = ReceivedEvents(logname, verify_checksum=printer.options.verify_checksum)
    printer.display_name = reader.display_name
    printer.start_remote_log()
    try:
        _receive(printer, source, reader, stream, logname.encode(), start_position)
    except ServerError as exc:
        raise RemoteDumpError(f"Got error reading packet from server: {exc.message}") from None
    finally:
        stream.close()


def _open(source, logname, start_position):
    try:
        stream = DumpStream(source.connect())
    except ServerError as exc:
        raise RemoteDumpError(exc.message) from None
    try:
        version = str(stream.server_version())
        if version[:1] not in ("5", "8", "9"):
            raise RemoteDumpError("Could not find server version: Master reported "
                                  f"unrecognized MySQL version '{version}'.")
        server_id = source.server_id if source.server_id else (1 if source.stop_never else 0)
        stream.start(logname, min(start_position, 0xFFFFFFFFFFFFFFFF if source.gtid_set is not None
                                  else 0xFFFFFFFF),
                     blocking=source.stop_never, server_id=server_id, mysql=True,
                     gtid_set=source.gtid_set)
    except ServerError as exc:
        stream.close()
        raise RemoteDumpError(f"Open binlog error: {exc.message}") from None
    except BaseException:
        stream.close()
        raise
    return stream


def _receive(printer, source, reader, stream, logname, start_position):
    old_off = start_position
    batch = EventBatch(printer, reader, 1 if source.stop_never else BATCH_BYTES, _OPEN_STATEMENT)
    try:
        for data in stream.events():
            type_code = data[4]
            if type_code not in _SPECIAL:
                batch.add(data, old_off)        # numbered as in the file: each adds its size
                old_off += len(data)
                continue
            batch.flush()
            if type_code in _HEARTBEATS:
                continue
            raw = reader.frame(data, old_off)
            body = printer.decode_remote(raw, reader)
            advance = True
            if type_code == L.ROTATE_EVENT and raw.when == 0:
                if not source.to_last_log:
                    if bytes(body.new_log_ident) != logname:
                        return
                    continue
                if printer.options.require_row_format:      # as mysqlbinlog 9.7 does
                    raise RemoteDumpError("Unexpected event being evaluated under "
                                          "--require-row-format.")
                old_off = raw.pos = start_position
                advance = False
            elif type_code == L.FORMAT_DESCRIPTION_EVENT and old_off != L.BIN_LOG_HEADER_SIZE:
                advance = False
            printer.process_event(raw, body, old_off)
            if advance:
                old_off += len(data)
            batch.shown()
    finally:            # what arrived before an error is printed before it
        batch.flush()


# events the batches never hold: they are numbered apart, change the format, or are not printed
_SPECIAL = frozenset({L.ROTATE_EVENT, L.FORMAT_DESCRIPTION_EVENT}) | _HEARTBEATS
_OPEN_STATEMENT = frozenset({L.TABLE_MAP_EVENT, L.ROWS_QUERY_LOG_EVENT, L.WRITE_ROWS_EVENT,
                             L.UPDATE_ROWS_EVENT, L.DELETE_ROWS_EVENT, L.PARTIAL_UPDATE_ROWS_EVENT,
                             L.WRITE_ROWS_EVENT_V1, L.UPDATE_ROWS_EVENT_V1, L.DELETE_ROWS_EVENT_V1})
