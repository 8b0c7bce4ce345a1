"""mysqlbinlog text for GTID-era events, and which events the MySQL client reads.

GTID / Anonymous_GTID (Gtid_log_event::print), Previous-GTIDs (in
Gtid_set::commented_string_format), Transaction_context, View_change and
Transaction_payload (mysqlbinlog.cc: its inner events go back through
process_event).  Tagged GTIDs (type 42, 8.4+) and tagged GTID sets are
printed the way mysqlbinlog 8.4/9.x prints them (8.0.41 cannot read them).
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog import mysql_events as M
from binlogkit.binlog.reader import RawEvent
from binlogkit.errors import BinlogError
from binlogkit.printer.mysql.rewrite import rewrite_event
from binlogkit.printer.driver import StopDump
from binlogkit.printer.mysql.decode import INVALID_EVENT, ReadError, decode_body
from binlogkit.printer.mysql.header import print_header

_U64 = (1 << 64) - 1
# where the C printer may start in a payload: Rows_query, Table_map, BEGIN
FAST_TYPES = frozenset({L.ROWS_QUERY_LOG_EVENT, L.TABLE_MAP_EVENT, L.QUERY_EVENT})
# Transaction_payload's compression type names (compression/base.cpp type_to_string)
COMPRESSION_NAMES = {0: b"ZSTD", 255: b"NONE"}

# -- GTID --------------------------------------------------------------------------------

def gtid_spec(body):
    """Gtid_specification::to_string: uuid[:tag]:gno or ANONYMOUS."""
    if body.type_code == L.ANONYMOUS_GTID_LOG_EVENT:
        return b"ANONYMOUS"
    uuid = M.format_uuid(body.sid).encode()
    if body.tag:
        return b"%s:%s:%d" % (uuid, body.tag, body.gno)
    return b"%s:%d" % (uuid, body.gno)


_SECONDS = {}


def commit_time_text(p, micros):
    """microsecond_timestamp_to_str: local '%F %T.%06d %Z' (the seconds part cached)."""
    secs, frac = divmod(micros, 1_000_000)
    parts = commit_time_parts(p.zone, secs)
    return b"%s.%06d%s" % (parts[0], frac, parts[1])


def commit_time_parts(zone, secs):
    """commit_time_text of a whole second, split where the microseconds go."""
    key = (zone, secs)
    parts = _SECONDS.get(key)
    if parts is None:
        if len(_SECONDS) > 4096:
            _SECONDS.clear()
        head, _, tail = zone.format_micros(secs * 1_000_000).encode().partition(b".000000")
        parts = _SECONDS[key] = (head, tail)
    return parts


def signed(value):
    value &= _U64
    return value - (1 << 64) if value >= 1 << 63 else value


def print_gtid(p, ev, body):
    d, head = p.state.delimiter, p.state.head
    may_have_sbr = body.may_have_sbr
    if not p.options.short_form:
        print_header(p, ev, head)
        head.append(b"\t%s\tlast_committed=%d\tsequence_number=%d\trbr_only=%s\t"
                    b"original_committed_timestamp=%d\timmediate_commit_timestamp=%d\t"
                    b"transaction_length=%d\n" % (
                        b"Anonymous_GTID" if body.type_code == L.ANONYMOUS_GTID_LOG_EVENT else b"GTID",
                        body.last_committed & _U64, body.sequence_number & _U64,
                        b"no" if may_have_sbr else b"yes", body.original_commit_timestamp & _U64,
                        body.immediate_commit_timestamp & _U64, body.transaction_length & _U64))
    if not may_have_sbr:
        head.append(b"/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*/%s\n" % d)
    oct_ = signed(body.original_commit_timestamp)
    ict = signed(body.immediate_commit_timestamp)
    head.append(b"# original_commit_timestamp=%d (%s)\n" % (oct_, commit_time_text(p, oct_)))
    head.append(b"# immediate_commit_timestamp=%d (%s)\n" % (ict, commit_time_text(p, ict)))
    head.append(b"/*!80001 SET @@session.original_commit_timestamp=%d*/%s\n" % (oct_, d))
    head.append(b"/*!80014 SET @@session.original_server_version=%d*/%s\n" % (
        body.original_server_version & 0xFFFFFFFF, d))
    head.append(b"/*!80014 SET @@session.immediate_server_version=%d*/%s\n" % (
        body.immediate_server_version & 0xFFFFFFFF, d))
    head.append(b"SET @@SESSION.GTID_NEXT= '%s'%s\n" % (gtid_spec(body), d))


# -- GTID sets ----------------------------------------------------------------------------

def merge_intervals(intervals):
    """Gtid_set::add_interval_memory: sorted, overlapping and adjacent runs joined."""
    out = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            if end > out[-1][1]:
                out[-1][1] = end
        else:
            out.append([start, end])
    return out


def gtid_set_groups(entries):
    """{sid: {tag: [[start, end), ...]}} with intervals merged."""
    groups = {}
    for e in entries:
        groups.setdefault(bytes(e.sid), {}).setdefault(bytes(e.tag), []).extend(e.intervals)
    return {sid: {tag: merge_intervals(iv) for tag, iv in tags.items()} for sid, tags in groups.items()}


def gtid_set_text(entries, sid_separator=b",\n# ", begin=b"# ", empty=b"# [empty]"):
    """Gtid_set::to_string in commented_string_format (UUIDs sorted, then tags)."""
    groups = gtid_set_groups(entries)
    parts = []
    for sid in sorted(groups):
        tags = groups[sid]
        text = [M.format_uuid(sid).encode()]
        for tag in sorted(tags):
            if not tags[tag]:
                continue
            if tag:
                text.append(b":" + tag)
            for start, end in tags[tag]:
                text.append(b":%d" % start if end == start + 1 else b":%d-%d" % (start, end - 1))
        parts.append(b"".join(text))
    if not parts:
        return empty
    return begin + sid_separator.join(parts)


def print_previous_gtids(p, ev, body):
    head = p.state.head
    if not p.options.short_form:
        print_header(p, ev, head)
        head.append(b"\tPrevious-GTIDs\n")
    head.append(gtid_set_text(body.entries) + b"\n")


def print_transaction_context(p, ev, body):
    if not p.options.short_form:
        print_header(p, ev, p.state.head)
        text = b"server_uuid=%s\tthread_id=%d" % (body.server_uuid, body.thread_id)
        p.state.head.append(b"Transaction_context: %s\n" % text[:255])


def print_view_change(p, ev, body):
    if not p.options.short_form:
        print_header(p, ev, p.state.head)
        p.state.head.append(b"View_change_log_event: %s\n" % (b"view_id=" + body.view_id)[:255])


# -- TRANSACTION_PAYLOAD -----------------------------------------------------------------------

def payload_to_string(body):
    """Transaction_payload_event::to_string."""
    text = b"\tpayload_size=%d\tcompression_type=%s" % (
        body.payload_size, COMPRESSION_NAMES.get(body.compression_type, b"NONE"))
    if body.compression_type != 255:
        text += b"\tuncompressed_size=%d" % body.uncompressed_size
    return text


def inner_event(raw, log_pos, has_crc):
    """An event of a payload as mysqlbinlog re-frames it before deserializing.

    With CRC32 in the format, a checksum is appended (and the length field
    grown by 4); the printed end_log_pos is the payload event's own.
    """
    data = bytearray(raw.data)
    checksum = None
    if has_crc:
        L.UINT32.pack_into(data, L.EVENT_LEN_OFFSET, len(data) + L.BINLOG_CHECKSUM_LEN)
        import zlib     # here: start-up of every other print
        checksum = zlib.crc32(data)
        data += L.UINT32.pack(checksum)
    header = list(L.COMMON_HEADER.unpack_from(data))
    header[4] = log_pos
    return RawEvent(log_pos, tuple(header), bytes(data), raw.end, checksum)


def print_transaction_payload(p, ev, body):
    """Transaction_payload_log_event::print of mysqlbinlog.cc."""
    head = p.state.head
    fmt = p.glob_format
    if not p.options.short_form:
        print_header(p, ev, head)
        head.append(b"\tTransaction_Payload\t%s\n# Start of compressed events.\n" % payload_to_string(body))
    has_crc = fmt.checksum_alg == L.BINLOG_CHECKSUM_ALG_CRC32
    events, i, rel, frames = body.events, 0, 0, None
    while i < len(events):
        raw = events[i]
        if p.fast is not None and raw.type_code in FAST_TYPES:     # row statements in C
            if frames is None:
                frames = p.fast.frames(body.payload, has_crc)
            if frames:
                done, rel = p.fast.print_payload_statements(frames, rel, ev.log_pos, fmt)
                if done:
                    i += done
                    continue
        i += 1
        rel += raw.event_size + (L.BINLOG_CHECKSUM_LEN if has_crc else 0)
        inner = inner_event(raw, ev.log_pos, has_crc)
        if p.options.rewrite_db:
            inner = rewrite_event(inner, p.options.rewrite_db, fmt)
        try:
            if inner.type_code == L.FORMAT_DESCRIPTION_EVENT or inner.type_code > fmt.number_of_event_types:
                raise ReadError(INVALID_EVENT)
            inner_body = decode_body(inner, fmt, p.v9)
        except ReadError as exc:
            raise BinlogError(f"Error decoding Payload_log_event: {exc.text}.", offset=ev.pos,
                              type_code=ev.type_code) from None
        try:           # the payload printer ignores process_event's status
            p.process_event(inner, inner_body, ev.log_pos, True)
        except StopDump:
            pass
        except BinlogError as exc:
            p.error(exc.message)
    if not p.options.short_form:
        head.append(b"# End of compressed events.\n")
