"""5.0/5.1-era MySQL events: Start_v3, LOAD DATA (Load, New_load, Create_file,
Exec_load), Slave, and the pre-GA rows format of the mysql-5.1-wl2325 trees.

Layouts: MySQL 5.7 libbinlogevents load_data_events.cpp (copy_load_event,
Create_file_event), log_event.cc (Slave_log_event), log_event_old.cc and
5.1's pack_row() for the pre-GA row images.
"""
from binlogkit._record import record

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import RotateBody, register


def _need(data, pos, size, what):
    if pos + size > len(data):
        raise ValueError(f"{what} truncated")


@record
class StartV3Body:
    binlog_version: int
    server_version: bytes
    created: int


@register(L.START_EVENT_V3)
def decode_start_v3(data, raw, fde):
    """Start_log_event_v3: the body always at offset 19, whatever the common header's length
    (so a v1 log's 69-byte Start event is too short for it: mariadb-binlog refuses it)."""
    _need(data, L.LOG_EVENT_HEADER_LEN, L.START_V3_BODY.size, "Start_v3 event")
    version, server_version, created = L.START_V3_BODY.unpack_from(data, L.LOG_EVENT_HEADER_LEN)
    return StartV3Body(version, server_version.split(b"\0", 1)[0], created)


def decode_rotate_minimal_header(data, raw, fde):
    """Rotate_log_event as MariaDB reads it: position and name counted from offset 19 (the
    minimal header), not from the common header's end: a v1 Rotate (13-byte header, no
    position) loses its name's first 6 bytes, a longer header's extra bytes become the
    position and the start of the name.  The position is a signed 64-bit number there."""
    post = fde.post_header(L.ROTATE_EVENT, 8)
    start = L.LOG_EVENT_HEADER_LEN
    _need(data, start, post, "Rotate event")
    position = L.INT64.unpack_from(data, start)[0] if post else 4
    return RotateBody(position, bytes(data[start + post:]))


@record
class LoadBody:
    """Load_event / New_load (and Create_file: file_id and block set)."""
    thread_id: int
    exec_time: int
    skip_lines: int
    field_term: bytes
    enclosed: bytes
    line_term: bytes
    line_start: bytes
    escaped: bytes
    opt_flags: int
    empty_flags: int
    fields: list
    table: bytes
    db: bytes
    fname: bytes
    file_id: int = None
    block: bytes = None


_SQL_EX_EMPTY = ((0, 0x1), (1, 0x2), (2, 0x4), (3, 0x8), (4, 0x10))   # FIELD_TERM_EMPTY...


def _sql_ex(data, pos, new_format):
    """sql_ex_data_info::init: five terminators, opt_flags (and empty_flags when old)."""
    if new_format:
        strings = []
        for _ in range(5):
            _need(data, pos, 1, "sql_ex")
            n = data[pos]
            _need(data, pos + 1, n, "sql_ex")
            strings.append(bytes(data[pos + 1:pos + 1 + n]))
            pos += 1 + n
        _need(data, pos, 1, "sql_ex")
        return strings, data[pos], 0, pos + 1
    values = L.OLD_SQL_EX.unpack_from(data, pos)
    strings = [bytes((values[i],)) if not values[6] & flag else b"" for i, flag in _SQL_EX_EMPTY]
    return strings, values[5], values[6], pos + L.OLD_SQL_EX.size


def _cstring(data, pos, end):
    nul = bytes(data[pos:end]).find(b"\0")
    if nul < 0:
        raise ValueError("unterminated string")
    return bytes(data[pos:pos + nul]), pos + nul + 1


def _decode_load(data, fde, post_start, body_start, new_format):
    """Load_event::copy_load_event: the fixed part at post_start, the variable
    part (sql_ex, field lengths, field names, table, db, file name) at body_start."""
    (thread_id, exec_time, skip_lines, table_len, db_len,
     num_fields) = L.LOAD_HEADER.unpack_from(data, post_start)
    strings, opt_flags, empty_flags, pos = _sql_ex(data, body_start, new_format)
    end = len(data)
    if pos + num_fields > end:
        raise ValueError("load event field list truncated")
    lengths = data[pos:pos + num_fields]
    pos += num_fields
    fields = []
    for n in lengths:
        _need(data, pos, n + 1, "field name")
        fields.append(bytes(data[pos:pos + n]))
        pos += n + 1
    _need(data, pos, table_len + 1 + db_len + 1, "load event names")
    table = bytes(data[pos:pos + table_len])
    pos += table_len + 1
    db = bytes(data[pos:pos + db_len])
    pos += db_len + 1
    body = LoadBody(thread_id, exec_time, skip_lines, *strings, opt_flags, empty_flags,
                    fields, table, db, b"")
    return body, pos


@register(L.LOAD_EVENT, L.NEW_LOAD_EVENT)
def decode_load(data, raw, fde):
    post_start = fde.header_len
    # as in the server, New_load's body offset counts a 19-byte header
    base = fde.header_len if raw.type_code == L.LOAD_EVENT else L.LOG_EVENT_HEADER_LEN
    body, pos = _decode_load(data, fde, post_start, base + L.LOAD_HEADER.size,
                             raw.type_code != L.LOAD_EVENT)
    body.fname = bytes(data[pos:]).split(b"\0", 1)[0]
    return body


@register(L.CREATE_FILE_EVENT)
def decode_create_file(data, raw, fde):
    """Create_file_event: a Load_event whose post-header is followed by file_id."""
    load_len = fde.post_header(L.LOAD_EVENT, L.LOAD_HEADER.size)
    cf_len = fde.post_header(L.CREATE_FILE_EVENT, 4)
    post_start = fde.header_len
    body, pos = _decode_load(data, fde, post_start, post_start + load_len + cf_len, True)
    body.fname, pos = _cstring(data, pos, len(data))
    if fde.binlog_version == 1:     # inited_from_old: read as a Load event, no file id or block
        body.file_id, body.block = 0, b""
        return body
    body.file_id = L.UINT32.unpack_from(data, post_start + load_len)[0]
    body.block = bytes(data[pos:])
    return body


@record
class ExecLoadBody:
    file_id: int


@register(L.EXEC_LOAD_EVENT)
def decode_exec_load(data, raw, fde):
    return ExecLoadBody(L.UINT32.unpack_from(data, fde.header_len)[0])


@record
class SlaveBody:
    master_pos: int
    master_port: int
    master_host: bytes
    master_log: bytes


@register(L.SLAVE_EVENT)
def decode_slave(data, raw, fde):
    pos = fde.header_len + fde.post_header(L.SLAVE_EVENT)
    master_pos, master_port = L.SLAVE_HEADER.unpack_from(data, pos)
    host, pos = _cstring(data, pos + L.SLAVE_HEADER.size, len(data))
    return SlaveBody(master_pos, master_port, host, bytes(data[pos:]))
