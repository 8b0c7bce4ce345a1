"""What mariadb-binlog's check_header and dump_local_log_entries do around reading events:
the format description events before a --start-position, and the words of a read error.
"""
from binlogkit.binlog import layout as L
from binlogkit.errors import BinlogError, InvalidEventError, TruncatedEventError


def as_read_log_event_error(exc, reader):
    """dump_local_log_entries' two lines for a read error: read_log_event's reason, then
    "Could not read entry at offset N: ..." (the only line when check_header's 13-byte probe
    of the first event already fails)."""
    if getattr(exc, "detail", None) or exc.offset is None:
        return
    if not (exc.offset == L.BIN_LOG_HEADER_SIZE and reader.probe_short(exc.offset)):
        exc.detail = in_use_read_error(exc)
    exc.message = f"Could not read entry at offset {exc.offset}: Error in log format or read error."


def in_use_read_error(exc):
    """The line Log_event::read_log_event() prints before dump_local_log_entries
    takes a read error in an in-use log for its end (exit status 0)."""
    reason, sep, rest = exc.message.partition(", data_len: ")
    rest = rest.split(" (", 1)[0]
    text = f"Error in Log_event::read_log_event(): '{reason}'"
    if not sep and getattr(exc, "data_len", None) is not None:
        sep, rest = ", data_len: ", f"{exc.data_len}, event_type: {exc.type_code}"
    return text + sep + rest if sep else text


def formats_before(reader, fde, start_position):
    """check_header reads on up to --start-position: every format description event there
    (a relay log holds the master's after its own) is printed, the last one rules.
    Returns (formats, error): the error of check_header's probe, which it meets while it
    walks format description and rotate events, raised after those are printed."""
    formats = [fde]
    pos = fde.pos + fde.event_size
    probing = True
    while pos < start_position:
        try:
            if probing:
                reader.check_probe(pos)
            raw = reader.next_event(pos)
        except BinlogError as exc:
            return formats, (exc if exc.message.startswith("Could not read entry") else None)
        if raw is None:
            break
        if raw.type_code == L.FORMAT_DESCRIPTION_EVENT:
            formats.append(raw)
        elif raw.type_code != L.ROTATE_EVENT:
            probing = False
        pos += raw.event_size
    return formats, None


def read_next_event(reader, pos):
    """reader.next_event, its errors marked as read errors (see is_read_error)."""
    try:
        return reader.next_event(pos)
    except BinlogError as exc:
        exc.read_error = True
        raise


def is_read_error(exc):
    """Whether mariadb-binlog's read_log_event would have failed on it (not the printing)."""
    return isinstance(exc, (TruncatedEventError, InvalidEventError)) or getattr(exc, "read_error", False)


def refused_event(exc):
    """An event read whole but refused (invalid, or shorter than a header): reading it does
    not count as reaching a --stop-position there, unlike a truncated one."""
    return (isinstance(exc, InvalidEventError) or exc.message.startswith("Event invalid")
            or "'Event invalid'" in (getattr(exc, "detail", None) or ""))
