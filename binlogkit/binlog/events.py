"""Event body decoders: plain functions over bytes, registered by type code.

`decode_event(raw, fde)` returns a small record for the event body (raw values
kept as they are in the log: charset ids, sql_mode as an int, query bytes).
Unknown types decode to `UnknownBody`.  No I/O and no printing here.
"""
import struct

from binlogkit._record import field, record, replace
from binlogkit.binlog import layout as L
from binlogkit.binlog.decimal import decimal_bin_size
from binlogkit.errors import EventDecodeError

DECODERS = {}
# type code -> the module whose import registers its decoder, imported when an event of
# that type first comes (binlog/__init__.py fills it: a MariaDB print never loads the
# MySQL-only decoders)
DEFERRED = {}


def register(*type_codes):
    def wrap(fn):
        for code in type_codes:
            DECODERS[code] = fn
        return fn
    return wrap


def decode_event(raw, fde, path=None):
    """Decode the body of RawEvent `raw` under format description `fde`.

    A malformed body raises EventDecodeError with the event's offset and
    type, and `path` (the file's name, e.g. BinlogReader.display_name).
    """
    decoder = DECODERS.get(raw.type_code) or deferred_decoder(raw.type_code)
    try:
        return decoder(raw.payload, raw, fde)
    except (IndexError, ValueError, struct.error) as exc:
        raise EventDecodeError(f"Found invalid event in binary log, data_len: {raw.event_size}, "
                                f"event_type: {raw.type_code} (malformed "
                                f"{L.TYPE_NAMES.get(raw.type_code, 'Unknown')} event: {exc})",
                                path=path, offset=raw.pos, type_code=raw.type_code) from None


def deferred_decoder(type_code):
    """The decoder of a type whose module is not imported yet (decode_unknown if none)."""
    module = DEFERRED.get(type_code)
    if module is not None:
        __import__(module)          # registers its decoders
    return DECODERS.get(type_code, decode_unknown)


@record
class UnknownBody:
    type_code: int


def decode_unknown(data, raw, fde):
    return UnknownBody(raw.type_code)


# -- helpers -----------------------------------------------------------------

def _decimal_fits(value):
    """A DECIMAL user variable: precision, scale, then that many packed bytes."""
    return (len(value) >= 2 and value[1] <= value[0]
            and 0 < decimal_bin_size(value[0], value[1]) <= len(value) - 2)


def net_field_length(data, pos):
    """MySQL packed integer: returns (value, new_pos)."""
    first = data[pos]
    if first < 251:
        return first, pos + 1
    if first == 251:
        return None, pos + 1
    if first == 252:
        return L.UINT16.unpack_from(data, pos + 1)[0], pos + 3
    if first == 253:
        return int.from_bytes(data[pos + 1:pos + 4], "little"), pos + 4
    return L.UINT64.unpack_from(data, pos + 1)[0], pos + 9


def uncompress_binlog(data):
    """MariaDB's compressed payload: 0x8L header, L-byte big-endian length, zlib."""
    if not data or (data[0] & 0xE0) != 0x80:
        raise ValueError("bad compression header")
    lenlen = data[0] & 0x07
    if lenlen < 1 or lenlen > 4 or len(data) < 1 + lenlen:
        raise ValueError("bad compression length")
    expected = int.from_bytes(data[1:1 + lenlen], "big")
    if expected > MAX_UNCOMPRESSED:
        raise ValueError(f"declared uncompressed length {expected} over {MAX_UNCOMPRESSED}")
    import zlib     # only compressed events need it (start-up of every other run)
    try:
        inflate = zlib.decompressobj()
        out = inflate.decompress(bytes(data[1 + lenlen:]), expected + 1)   # never past it
    except zlib.error as exc:
        raise ValueError(str(exc)) from None
    if len(out) != expected:
        raise ValueError("uncompressed length mismatch")
    return out


MAX_UNCOMPRESSED = 1 << 30      # a sane cap on one inflated event (max_allowed_packet)


# -- format description, rotate, stop ---------------------------------------

@record
class FormatDescriptionBody:
    binlog_version: int
    server_version: bytes
    created: int


@register(L.FORMAT_DESCRIPTION_EVENT)
def decode_format_description(data, raw, fde):
    version, server_version, created, _ = L.FORMAT_DESCRIPTION_HEADER.unpack_from(
        data, L.LOG_EVENT_HEADER_LEN)
    return FormatDescriptionBody(version, server_version.split(b"\0", 1)[0], created)


@record
class RotateBody:
    position: int
    new_log_ident: bytes


@register(L.ROTATE_EVENT)
def decode_rotate(data, raw, fde):
    start = fde.header_len
    post = fde.post_header(L.ROTATE_EVENT, 8)
    position = L.UINT64.unpack_from(data, start)[0] if post else 4
    return RotateBody(position, bytes(data[start + post:]))


@record
class EmptyBody:
    pass


@register(L.STOP_EVENT)
def decode_stop(data, raw, fde):
    return EmptyBody()


# -- query family --------------------------------------------------------------

@record
class QueryBody:
    thread_id: int
    exec_time: int
    error_code: int
    db: bytes
    query: bytes
    flags2: int = None
    sql_mode: int = None
    auto_increment_increment: int = 1
    auto_increment_offset: int = 1
    charset: bytes = None          # 6 raw bytes: client, connection, server ids
    time_zone: bytes = None
    lc_time_names: int = 0
    charset_database: int = 0
    when_sec_part: int = 0
    xid: int = 0
    catalog: bytes = None
    table_map_for_update: int = None
    invoker_user: bytes = None
    invoker_host: bytes = None
    updated_db_names: list = None
    gtid_flags3: int = None
    character_set_collations: bytes = None
    db_key: bytes = None        # the db_len + 1 bytes at the name: what the tools compare
    extra: dict = field(default_factory=dict)
    # Execute_load_query only
    file_id: int = None
    fn_pos_start: int = None
    fn_pos_end: int = None
    dup_handling: int = None


# Query status variables only MySQL writes: MariaDB's Query_log_event stops reading status
# variables at the first of them (so mariadb-binlog shows neither MySQL's microseconds nor its
# DDL xid); binlogkit reads on, and keeps in extra["mariadb_view"] what MariaDB had read by then
MYSQL_ONLY_STATUS_CODES = frozenset(range(L.Q_UPDATED_DB_NAMES, L.Q_DEFAULT_TABLE_ENCRYPTION + 1))
_STATUS_FIELDS = ("flags2", "sql_mode", "auto_increment_increment", "auto_increment_offset",
                  "charset", "time_zone", "lc_time_names", "charset_database", "when_sec_part",
                  "xid", "catalog", "table_map_for_update", "invoker_user", "invoker_host",
                  "updated_db_names", "gtid_flags3", "character_set_collations")


def mariadb_status_view(body):
    """`body` as MariaDB reads it: the status variables after a MySQL-only one dropped."""
    view = body.extra.get("mariadb_view")
    if view is None:
        return body
    return replace(body, **view)


def _status_vars(body, data, pos, end):
    """Parse Query status variables in [pos, end) into `body`."""
    while pos < end:
        code = data[pos]
        pos += 1
        if code in MYSQL_ONLY_STATUS_CODES and "mariadb_view" not in body.extra:
            body.extra["mariadb_view"] = {name: getattr(body, name) for name in _STATUS_FIELDS}
        if code == L.Q_FLAGS2_CODE:
            body.flags2 = L.UINT32.unpack_from(data, pos)[0]
            pos += 4
        elif code == L.Q_SQL_MODE_CODE:
            body.sql_mode = L.UINT64.unpack_from(data, pos)[0]
            pos += 8
        elif code == L.Q_CATALOG_NZ_CODE:
            n = data[pos]
            body.catalog = bytes(data[pos + 1:pos + 1 + n])
            pos += 1 + n
        elif code == L.Q_CATALOG_CODE:
            n = data[pos]
            body.catalog = bytes(data[pos + 1:pos + 1 + n])
            pos += 2 + n
        elif code == L.Q_AUTO_INCREMENT:
            body.auto_increment_increment, body.auto_increment_offset = \
                L.UINT16.unpack_from(data, pos)[0], L.UINT16.unpack_from(data, pos + 2)[0]
            pos += 4
        elif code == L.Q_CHARSET_CODE:
            body.charset = bytes(data[pos:pos + 6])
            pos += 6
        elif code == L.Q_TIME_ZONE_CODE:
            n = data[pos]
            body.time_zone = bytes(data[pos + 1:pos + 1 + n])
            pos += 1 + n
        elif code == L.Q_LC_TIME_NAMES_CODE:
            body.lc_time_names = L.UINT16.unpack_from(data, pos)[0]
            pos += 2
        elif code == L.Q_CHARSET_DATABASE_CODE:
            body.charset_database = L.UINT16.unpack_from(data, pos)[0]
            pos += 2
        elif code == L.Q_TABLE_MAP_FOR_UPDATE_CODE:
            body.table_map_for_update = L.UINT64.unpack_from(data, pos)[0]
            pos += 8
        elif code == L.Q_MASTER_DATA_WRITTEN_CODE:
            body.extra["master_data_written"] = L.UINT32.unpack_from(data, pos)[0]
            pos += 4
        elif code == L.Q_INVOKER:
            n = data[pos]
            body.invoker_user = bytes(data[pos + 1:pos + 1 + n])
            pos += 1 + n
            n = data[pos]
            body.invoker_host = bytes(data[pos + 1:pos + 1 + n])
            pos += 1 + n
        elif code == L.Q_UPDATED_DB_NAMES:
            pos = _updated_db_names(body, data, pos, end)
        elif code in (L.Q_MICROSECONDS, L.Q_HRNOW):
            body.when_sec_part = int.from_bytes(data[pos:pos + 3], "little")
            pos += 3
        elif code == L.Q_XID:
            body.xid = L.UINT64.unpack_from(data, pos)[0]
            pos += 8
        elif code == L.Q_GTID_FLAGS3:
            body.gtid_flags3 = data[pos]
            pos += 1
            if body.gtid_flags3 & (L.FL_COMMIT_ALTER_E1 | L.FL_ROLLBACK_ALTER_E1):
                body.extra["sa_seq_no"] = L.UINT64.unpack_from(data, pos)[0]
                pos += 8
        elif code == L.Q_CHARACTER_SET_COLLATIONS:
            n, start = net_field_length(data, pos)
            if n is None:
                raise ValueError("NULL length of character_set_collations")
            body.character_set_collations = bytes(data[start:start + n])
            pos = start + n
        elif code == L.Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP:
            body.extra["explicit_defaults_for_timestamp"] = data[pos]
            pos += 1
        elif code == L.Q_DDL_LOGGED_WITH_XID:
            body.xid = L.UINT64.unpack_from(data, pos)[0]
            pos += 8
        elif code == L.Q_DEFAULT_COLLATION_FOR_UTF8MB4:
            body.extra["default_collation_for_utf8mb4"] = L.UINT16.unpack_from(data, pos)[0]
            pos += 2
        elif code in (L.Q_SQL_REQUIRE_PRIMARY_KEY, L.Q_DEFAULT_TABLE_ENCRYPTION):
            body.extra[code] = data[pos]
            pos += 1
        else:
            # Unknown code: the server stops parsing status vars here too.
            break
        if pos > end:       # CHECK_SPACE: a variable running past the block spoils the event
            raise ValueError("status variable runs past the status block")


def _updated_db_names(body, data, pos, end):
    count = data[pos]
    pos += 1
    names = []
    if count != 254:  # OVER_MAX_DBS_IN_EVENT_MTS
        for _ in range(count):
            nul = bytes(data[pos:end]).find(b"\0")
            if nul < 0:
                break
            names.append(bytes(data[pos:pos + nul]))
            pos += nul + 1
    body.updated_db_names = names
    return pos


def _decode_query_common(data, raw, fde, extra_post_header=0):
    start = fde.header_len
    post_len = fde.post_header(raw.type_code, 13)
    if post_len >= L.QUERY_HEADER.size:
        thread_id, exec_time, db_len, error_code, status_len = \
            L.QUERY_HEADER.unpack_from(data, start)
    else:
        thread_id, exec_time, db_len, error_code = L.QUERY_HEADER_MINIMAL.unpack_from(data, start)
        status_len = 0
    body = QueryBody(thread_id, exec_time, error_code, b"", b"")
    status_start = start + post_len
    if post_len >= L.QUERY_HEADER.size:
        _status_vars(body, data, status_start, status_start + status_len)
    db_start = status_start + status_len
    if db_start + db_len + 1 > len(data):
        raise ValueError("query event too short")
    # the name as both tools print it: the C string where it starts, which ends at the NUL
    # after db_len bytes in a sound event (or before, or after, in a damaged one); the
    # db_len + 1 bytes there are what they compare with the last name printed
    key = bytes(data[db_start:db_start + db_len + 1])
    nul = key.find(b"\0")
    body.db = key[:nul] if nul >= 0 else bytes(data[db_start:]).split(b"\0", 1)[0]
    body.db_key = key
    return body, db_start + db_len + 1


@register(L.QUERY_EVENT)
def decode_query(data, raw, fde):
    body, qpos = _decode_query_common(data, raw, fde)
    body.query = bytes(data[qpos:])
    return body


@register(L.QUERY_COMPRESSED_EVENT)
def decode_query_compressed(data, raw, fde):
    body, qpos = _decode_query_common(data, raw, fde)
    body.query = uncompress_binlog(data[qpos:])
    return body


@register(L.EXECUTE_LOAD_QUERY_EVENT)
def decode_execute_load_query(data, raw, fde):
    body, qpos = _decode_query_common(data, raw, fde)
    extra = fde.header_len + L.QUERY_HEADER.size
    (body.file_id, body.fn_pos_start, body.fn_pos_end,
     body.dup_handling) = L.EXECUTE_LOAD_QUERY_EXTRA.unpack_from(data, extra)
    body.query = bytes(data[qpos:])
    return body


# -- small statement-context events -----------------------------------------------

@record
class IntvarBody:
    type: int
    value: int


@register(L.INTVAR_EVENT)
def decode_intvar(data, raw, fde):
    return IntvarBody(*L.INTVAR_BODY.unpack_from(data, fde.header_len + fde.post_header(L.INTVAR_EVENT)))


@record
class RandBody:
    seed1: int
    seed2: int


@register(L.RAND_EVENT)
def decode_rand(data, raw, fde):
    return RandBody(*L.RAND_BODY.unpack_from(data, fde.header_len + fde.post_header(L.RAND_EVENT)))


@record
class XidBody:
    xid: int


@register(L.XID_EVENT)
def decode_xid(data, raw, fde):
    return XidBody(L.XID_BODY.unpack_from(data, fde.header_len + fde.post_header(L.XID_EVENT))[0])


@record
class UserVarBody:
    name: bytes
    is_null: bool
    value_type: int = 0
    charset: int = 0
    value: bytes = b""
    flags: int = 0


@register(L.USER_VAR_EVENT)
def decode_user_var(data, raw, fde):
    pos = fde.header_len + fde.post_header(L.USER_VAR_EVENT)
    name_len = L.UINT32.unpack_from(data, pos)[0]
    name = bytes(data[pos + 4:pos + 4 + name_len])
    pos += 4 + name_len
    is_null = data[pos] != 0
    if is_null:
        return UserVarBody(name, True)
    value_type = data[pos + 1]
    charset = L.UINT32.unpack_from(data, pos + 2)[0]
    value_len = L.UINT32.unpack_from(data, pos + 6)[0]
    value = bytes(data[pos + 10:pos + 10 + value_len])
    if len(value) != value_len:
        raise ValueError("user variable value truncated")
    if value_type == L.DECIMAL_RESULT and not _decimal_fits(value):
        raise ValueError("bad DECIMAL user variable value")
    pos += 10 + value_len
    flags = data[pos] if pos < len(data) else 0
    return UserVarBody(name, False, value_type, charset, value, flags)


# -- LOAD DATA ---------------------------------------------------------------------

@record
class BlockBody:
    file_id: int
    block: bytes


@register(L.BEGIN_LOAD_QUERY_EVENT, L.APPEND_BLOCK_EVENT)
def decode_block(data, raw, fde):
    pos = fde.header_len
    post = fde.post_header(L.APPEND_BLOCK_EVENT, 4)    # Begin_load_query uses Append_block's too
    file_id = L.UINT32.unpack_from(data, pos)[0]
    return BlockBody(file_id, bytes(data[pos + post:]))


@record
class DeleteFileBody:
    file_id: int


@register(L.DELETE_FILE_EVENT)
def decode_delete_file(data, raw, fde):
    return DeleteFileBody(L.UINT32.unpack_from(data, fde.header_len)[0])


# -- MariaDB control events ------------------------------------------------------------

@record
class AnnotateRowsBody:
    query: bytes


@register(L.ANNOTATE_ROWS_EVENT)
def decode_annotate_rows(data, raw, fde):
    return AnnotateRowsBody(bytes(data[fde.header_len + fde.post_header(L.ANNOTATE_ROWS_EVENT):]))


@record
class BinlogCheckpointBody:
    file_name: bytes


@register(L.BINLOG_CHECKPOINT_EVENT)
def decode_binlog_checkpoint(data, raw, fde):
    pos = fde.header_len
    name_len = L.UINT32.unpack_from(data, pos)[0]
    start = pos + fde.post_header(L.BINLOG_CHECKPOINT_EVENT, 4)
    if start + name_len > len(data):
        raise ValueError("binlog checkpoint name runs past the event")
    return BinlogCheckpointBody(bytes(data[start:start + name_len]))


@record
class XidValue:
    format_id: int
    gtrid: bytes
    bqual: bytes


@record
class MariadbGtidBody:
    seq_no: int
    domain_id: int
    flags2: int
    commit_id: int = 0
    xid: XidValue = None
    flags_extra: int = 0
    extra_engines: int = 0
    sa_seq_no: int = 0
    thread_id: int = 0


def _read_xid(data, pos):
    format_id, gtrid_len, bqual_len = L.XA_XID_HEADER.unpack_from(data, pos)
    pos += L.XA_XID_HEADER.size
    if gtrid_len > 64 or bqual_len > 64:
        raise ValueError("bad XID lengths")
    gtrid = bytes(data[pos:pos + gtrid_len])
    bqual = bytes(data[pos + gtrid_len:pos + gtrid_len + bqual_len])
    return XidValue(format_id, gtrid, bqual), pos + gtrid_len + bqual_len


GTID_HEADER_LEN = 19


def _read_gtid_xid(data, pos):
    """The XID inside a MariaDB GTID event: formatID(4), two 1-byte lengths."""
    format_id = L.INT32.unpack_from(data, pos)[0]
    gtrid_len, bqual_len = data[pos + 4], data[pos + 5]
    if gtrid_len > 64 or bqual_len > 64:        # MAXGTRIDSIZE, MAXBQUALSIZE
        raise ValueError("bad XID lengths")
    pos += 6
    gtrid = bytes(data[pos:pos + gtrid_len])
    bqual = bytes(data[pos + gtrid_len:pos + gtrid_len + bqual_len])
    return XidValue(format_id, gtrid, bqual), pos + gtrid_len + bqual_len


@register(L.GTID_EVENT)
def decode_mariadb_gtid(data, raw, fde):
    pos = fde.header_len
    seq_no, domain_id, flags2 = L.MARIADB_GTID_HEADER.unpack_from(data, pos)
    body = MariadbGtidBody(seq_no, domain_id, flags2)
    pos += L.MARIADB_GTID_HEADER.size
    if flags2 & L.FL_GROUP_COMMIT_ID:
        body.commit_id = L.UINT64.unpack_from(data, pos)[0]
        pos += 8
    # flags_extra follows at once (in what is otherwise the zero padding of the post-header)
    if flags2 & (L.FL_PREPARED_XA | L.FL_COMPLETED_XA):
        body.xid, pos = _read_gtid_xid(data, pos)
    if pos < len(data):
        pos = _gtid_extra(body, data, pos)
    return body


def _gtid_extra(body, data, pos):
    body.flags_extra = data[pos]
    pos += 1
    if body.flags_extra & L.FL_EXTRA_MULTI_ENGINE_E1:
        body.extra_engines = data[pos]
        pos += 1
    if body.flags_extra & (L.FL_COMMIT_ALTER_E1 | L.FL_ROLLBACK_ALTER_E1):
        body.sa_seq_no = L.UINT64.unpack_from(data, pos)[0]
        pos += 8
    if body.flags_extra & L.FL_EXTRA_THREAD_ID and pos + 8 <= len(data):
        # MariaDB 11.5+; mariadb-binlog 10.11 knows no such flag and reads no further
        body.thread_id = L.UINT64.unpack_from(data, pos)[0]
        pos += 8
    return pos


@record
class GtidListBody:
    gtids: list   # of (domain_id, server_id, seq_no)
    flags: int


@register(L.GTID_LIST_EVENT)
def decode_gtid_list(data, raw, fde):
    pos = fde.header_len
    value = L.UINT32.unpack_from(data, pos)[0]
    count, flags = value & 0x0FFFFFFF, value >> 28
    pos += 4
    if pos + count * L.MARIADB_GTID_LIST_ENTRY.size > len(data):
        raise ValueError("gtid list truncated")
    gtids = [L.MARIADB_GTID_LIST_ENTRY.unpack_from(data, pos + i * 16) for i in range(count)]
    return GtidListBody(gtids, flags)


@record
class XaPrepareBody:
    one_phase: bool
    xid: XidValue


@register(L.XA_PREPARE_LOG_EVENT)
def decode_xa_prepare(data, raw, fde):
    pos = fde.header_len
    one_phase = data[pos] != 0
    xid, _ = _read_xid(data, pos + 1)
    return XaPrepareBody(one_phase, xid)


@record
class IncidentBody:
    incident: int
    message: bytes


@register(L.INCIDENT_EVENT)
def decode_incident(data, raw, fde):
    pos = fde.header_len
    incident = L.UINT16.unpack_from(data, pos)[0]
    pos += fde.post_header(L.INCIDENT_EVENT, 2)
    message = b""
    if pos < len(data):
        n = data[pos]
        message = bytes(data[pos + 1:pos + 1 + n])
    return IncidentBody(incident, message)


@record
class StartEncryptionBody:
    scheme: int
    key_version: int
    nonce: bytes


@register(L.START_ENCRYPTION_EVENT)
def decode_start_encryption(data, raw, fde):
    pos = fde.header_len
    return StartEncryptionBody(data[pos], L.UINT32.unpack_from(data, pos + 1)[0],
                               bytes(data[pos + 5:pos + 17]))
