"""--rewrite-db for MySQL logs, as mysqlbinlog 9.7 does it: the event itself is rewritten
before it is decoded and printed.

The database name of a Query (or Execute_load_query) event and of a Table_map event is
replaced in the event's bytes by the first rule whose `from` is that name; the length field
grows or shrinks with it and the CRC32 is computed anew, while the log position stays the
file's.  So the printed header shows the new checksum, a Table_map's BINLOG text is the
rewritten event, and `use`, `Table_map:` and the `###` lines name the new database.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.reader import RawEvent

DB_TYPES = frozenset({L.QUERY_EVENT, L.EXECUTE_LOAD_QUERY_EVENT, L.TABLE_MAP_EVENT})


def rewrite_event(ev, rules, fmt):
    """`ev` with its database renamed by `rules` ((from, to) bytes pairs), or `ev` itself."""
    if ev.type_code not in DB_TYPES:
        return ev
    data = ev.data
    at = _db_length_at(ev, fmt)
    if at is None or at >= ev.end:
        return ev
    if ev.type_code == L.TABLE_MAP_EVENT:
        length, start = data[at], at + 1
    else:
        length = data[at]
        start = fmt.header_len + fmt.post_header(ev.type_code) + L.UINT16.unpack_from(data, at + 3)[0]
    db = bytes(data[start:start + length])
    if start + length > ev.end:
        return ev
    target = next((to for source, to in rules if source == db), None)
    if target is None or len(target) > 255:
        return ev
    new = bytearray(data[:ev.end])
    new[start:start + length] = target
    new[at] = len(target)
    has_crc = ev.checksum is not None
    size = len(new) + (L.BINLOG_CHECKSUM_LEN if has_crc else 0)
    L.UINT32.pack_into(new, L.EVENT_LEN_OFFSET, size)
    checksum = None
    if has_crc:
        import zlib     # only a rewrite needs it (start-up)
        checksum = zlib.crc32(new)
        new += L.UINT32.pack(checksum)
    header = (ev.when, ev.type_code, ev.server_id, size, ev.log_pos, ev.flags)
    return RawEvent(ev.pos, header, bytes(new), size - (L.BINLOG_CHECKSUM_LEN if has_crc else 0),
                    checksum)


def _db_length_at(ev, fmt):
    """Offset of the database name's length byte (the Table_map's: its body's first byte)."""
    post = fmt.post_header(ev.type_code)
    if ev.type_code == L.TABLE_MAP_EVENT:
        return fmt.header_len + post
    if post < 13:
        return None
    return fmt.header_len + 8       # thread_id, exec_time, then db_len
