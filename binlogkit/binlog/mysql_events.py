"""MySQL 5.6-9.x event bodies, and the 5.0/5.1-era ones.

Plain decoders registered in `events.DECODERS` (type codes 1-42; MariaDB's
own events are 160-172 and live in `events`).  Layouts follow the MySQL
source (libs/mysql/binlog/event/control_events.cpp, rows_event.cpp,
load_data_events.cpp, libs/mysql/serialization/); values are kept raw and
lossless: UUIDs as 16 bytes, timestamps as microseconds since the epoch.

GTID events expose what the stall analysis needs under the server's names:
`immediate_commit_timestamp` / `original_commit_timestamp` (microseconds,
and as UTC datetimes via `*_commit_datetime`), `transaction_length`,
`last_committed`, `sequence_number`.
"""

from binlogkit._record import field, record
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import net_field_length, register
from binlogkit.binlog.reader import RawEvent

_INT64_MAX = (1 << 63) - 1
_UINT64_MASK = (1 << 64) - 1


def _u64_len(data, pos):
    """net_field_length_ll(): a packed length, 251 (NULL) read as 2**64-1."""
    value, pos = net_field_length(data, pos)
    if pos > len(data):
        raise ValueError("packed integer truncated")
    return (_UINT64_MASK if value is None else value), pos


def _need(data, pos, size, what):
    if pos + size > len(data):
        raise ValueError(f"{what} truncated")


def format_uuid(sid):
    """The 36-character text form of a 16-byte UUID."""
    h = bytes(sid).hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def microseconds_to_datetime(micros):
    """A UTC datetime for microseconds since the epoch."""
    import datetime     # lazy: the printer never asks, and its start-up counts
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return epoch + datetime.timedelta(microseconds=micros)


# -- mysql::serialization (libs/mysql/serialization/variable_length_integers.h) --

def read_varlen(data, pos, end):
    """An unsigned variable-length integer: (value, new_pos).

    The number of trailing one bits of the first byte, plus one, is the
    byte count; the value follows those bits, little-endian.
    """
    if pos >= end:
        raise ValueError("variable-length integer truncated")
    first = data[pos]
    size = 1
    while size < 9 and (first >> (size - 1)) & 1:
        size += 1
    if pos + size > end:
        raise ValueError("variable-length integer truncated")
    value = first >> size if size < 8 else 0
    if size > 1:
        rest = int.from_bytes(data[pos + 1:pos + size], "little")
        value |= rest << (8 - size + ((size + 7) >> 4))
    return value, pos + size


def read_varlen_signed(data, pos, end):
    value, pos = read_varlen(data, pos, end)
    return (value >> 1) ^ -(value & 1), pos


def _read_varlen_max(data, pos, end, bits):
    value, pos = read_varlen(data, pos, end)
    if value >> bits:
        raise ValueError("variable-length integer out of range")
    return value, pos


def _read_serialized_string(data, pos, end, max_length):
    length, pos = read_varlen(data, pos, end)
    if length > max_length or pos + length > end:
        raise ValueError("serialized string too long or truncated")
    return bytes(data[pos:pos + length]), pos + length


# -- GTID, ANONYMOUS_GTID, GTID_TAGGED ------------------------------------------

@record
class MysqlGtidBody:
    """Gtid_event: an assigned, anonymous or tagged GTID and its commit data.

    Defaults are the server's for fields older writers leave out: 0 for the
    logical clock, timestamps and length; server versions 0 when no
    timestamps were written, UNDEFINED_SERVER_VERSION (999999) when the
    timestamps are there but the versions are not (8.0.14-).
    """
    type_code: int
    flags: int
    sid: bytes                      # 16 bytes; all zero for anonymous
    gno: int
    tag: bytes = b""                # GTID_TAGGED_LOG_EVENT only
    lt_type: int = None             # logical timestamp typecode (2), None before 5.7
    last_committed: int = 0
    sequence_number: int = 0
    has_commit_timestamps: bool = False
    immediate_commit_timestamp: int = 0     # microseconds since the epoch
    original_commit_timestamp: int = 0
    transaction_length: int = 0
    immediate_server_version: int = 0
    original_server_version: int = 0
    commit_group_ticket: int = 0

    @property
    def is_anonymous(self):
        return self.type_code == L.ANONYMOUS_GTID_LOG_EVENT

    @property
    def is_tagged(self):
        return self.type_code == L.GTID_TAGGED_LOG_EVENT

    @property
    def may_have_sbr(self):
        return bool(self.flags & L.GTID_FLAG_MAY_HAVE_SBR)

    @property
    def uuid(self):
        return format_uuid(self.sid)

    @property
    def gtid(self):
        """'uuid:gno', 'uuid:tag:gno', or 'ANONYMOUS'."""
        if self.is_anonymous:
            return "ANONYMOUS"
        if self.tag:
            return f"{self.uuid}:{self.tag.decode('ascii', 'replace')}:{self.gno}"
        return f"{self.uuid}:{self.gno}"

    @property
    def immediate_commit_datetime(self):
        """The immediate commit time as an aware UTC datetime (None if not logged)."""
        if not self.immediate_commit_timestamp:
            return None
        return microseconds_to_datetime(self.immediate_commit_timestamp)

    @property
    def original_commit_datetime(self):
        if not self.original_commit_timestamp:
            return None
        return microseconds_to_datetime(self.original_commit_timestamp)


@register(L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT)
def decode_mysql_gtid(data, raw, fde):
    """Gtid_event::Gtid_event (control_events.cpp): every field after the GNO
    is read only if the event is long enough to hold it."""
    pos = fde.header_len
    flags, sid, gno = L.MYSQL_GTID_HEADER.unpack_from(data, pos)
    pos += L.MYSQL_GTID_HEADER.size
    if raw.type_code == L.GTID_LOG_EVENT:
        if not 1 <= gno < _INT64_MAX:
            raise ValueError("Invalid GNO")
    elif gno != 0:
        raise ValueError("Invalid GNO")
    body = MysqlGtidBody(raw.type_code, flags, sid, gno)
    end = len(data)
    if pos + 1 > end:
        return body
    body.lt_type = data[pos]
    if body.lt_type != L.LOGICAL_TIMESTAMP_TYPECODE:
        return body     # 5.7.4 and earlier: another typecode, ignored like the server
    _, body.last_committed, body.sequence_number = L.MYSQL_GTID_LOGICAL_CLOCK.unpack_from(data, pos)
    pos += L.MYSQL_GTID_LOGICAL_CLOCK.size
    if pos + L.COMMIT_TIMESTAMP_LENGTH <= end:
        _gtid_commit_data(body, data, pos, end)
    return body


def _gtid_commit_data(body, data, pos, end):
    body.has_commit_timestamps = True
    ts = int.from_bytes(data[pos:pos + 7], "little")
    pos += 7
    if ts & (1 << L.ENCODED_COMMIT_TIMESTAMP_LENGTH):
        ts &= ~(1 << L.ENCODED_COMMIT_TIMESTAMP_LENGTH)
        _need(data, pos, 7, "original_commit_timestamp")
        body.original_commit_timestamp = int.from_bytes(data[pos:pos + 7], "little")
        pos += 7
    else:
        body.original_commit_timestamp = ts
    body.immediate_commit_timestamp = ts
    if pos + 1 <= end:
        body.transaction_length, pos = _u64_len(data, pos)
    body.immediate_server_version = body.original_server_version = L.UNDEFINED_SERVER_VERSION
    if pos + 4 <= end:
        version = L.UINT32.unpack_from(data, pos)[0]
        pos += 4
        if version & (1 << L.ENCODED_SERVER_VERSION_LENGTH):
            version &= ~(1 << L.ENCODED_SERVER_VERSION_LENGTH)
            _need(data, pos, 4, "original_server_version")
            body.original_server_version = L.UINT32.unpack_from(data, pos)[0]
            pos += 4
        else:
            body.original_server_version = version
        body.immediate_server_version = version
        if pos + L.COMMIT_GROUP_TICKET_LENGTH <= end:
            body.commit_group_ticket = L.UINT64.unpack_from(data, pos)[0]


# The fields of GTID_TAGGED_LOG_EVENT in id order (Gtid_event::define_fields):
# (attribute, reader); the reader is (kind, bits) for integers.
_TAGGED_FIELDS = (
    ("flags", ("u", 8)), ("sid", ("uuid", 0)), ("gno", ("s", 64)), ("tag", ("tag", 0)),
    ("last_committed", ("s", 64)), ("sequence_number", ("s", 64)),
    ("immediate_commit_timestamp", ("u", 64)), ("original_commit_timestamp", ("u", 64)),
    ("transaction_length", ("u", 64)), ("immediate_server_version", ("u", 32)),
    ("original_server_version", ("u", 32)), ("commit_group_ticket", ("u", 64)),
)


def _read_tagged_field(kind, bits, data, pos, end):
    if kind == "u":
        return _read_varlen_max(data, pos, end, bits)
    if kind == "s":
        return read_varlen_signed(data, pos, end)
    if kind == "uuid":
        out = bytearray()
        for _ in range(L.UUID_LENGTH):
            byte, pos = _read_varlen_max(data, pos, end, 8)
            out.append(byte)
        return bytes(out), pos
    return _read_serialized_string(data, pos, end, L.TAG_MAX_LENGTH)


@register(L.GTID_TAGGED_LOG_EVENT)
def decode_tagged_gtid(data, raw, fde):
    """Gtid_event::read_gtid_tagged_log_event: a mysql::serialization message.

    Message: format version (field id), size (from the version byte on),
    last non-ignorable field id, then (field id, value) pairs in id order;
    a field whose id is not next is missing (libs/mysql/serialization/
    serializer_default_impl.hpp decode_field_id / decode_serializable_metadata).
    """
    start = pos = fde.header_len
    end = len(data)
    _, pos = read_varlen(data, pos, end)              # serialization_format_version
    size, pos = read_varlen(data, pos, end)
    last_non_ignorable, pos = read_varlen(data, pos, end)
    if last_non_ignorable > len(_TAGGED_FIELDS):
        raise ValueError("unknown non-ignorable fields in GTID_TAGGED_LOG_EVENT")
    msg_end = start + size
    if msg_end > end or msg_end < pos:
        raise ValueError("GTID_TAGGED_LOG_EVENT size out of range")
    body = MysqlGtidBody(raw.type_code, 0, bytes(16), 0, has_commit_timestamps=True)
    present = set()
    for field_id, (name, (kind, bits)) in enumerate(_TAGGED_FIELDS):
        if pos >= msg_end:
            break
        got, after_id = read_varlen(data, pos, msg_end)
        if got != field_id:
            continue
        value, pos = _read_tagged_field(kind, bits, data, after_id, msg_end)
        setattr(body, name, value)
        present.add(name)
    if "original_commit_timestamp" not in present:
        body.original_commit_timestamp = body.immediate_commit_timestamp
    if "original_server_version" not in present:
        body.original_server_version = body.immediate_server_version
    return body


# -- PREVIOUS_GTIDS and encoded GTID sets ---------------------------------------------

@record
class GtidSetEntry:
    sid: bytes
    tag: bytes
    intervals: list     # of (start, end) pairs, end exclusive, as stored

    @property
    def uuid(self):
        return format_uuid(self.sid)


@record
class PreviousGtidsBody:
    gtid_format: int    # GTID_FORMAT_UNTAGGED or GTID_FORMAT_TAGGED (8.4+)
    entries: list       # of GtidSetEntry, in log order


def decode_gtid_set(data, pos, end):
    """Gtid_set::add_gtid_encoding: returns (format, [GtidSetEntry]).

    n_sids is 8 bytes with the format in the top byte; the tagged format
    (rpl_gtid_set.cc encode_nsids_format) repeats it in the low byte and
    keeps n_sids in bytes 1-6, and gives every SID a serialized tag.
    """
    if pos + 8 > end:
        raise ValueError("Invalid Previous_gtids information")
    encoded = L.UINT64.unpack_from(data, pos)[0]
    pos += 8
    gtid_format = encoded >> 56
    if gtid_format == L.GTID_FORMAT_TAGGED:
        n_sids = (encoded & 0x00FFFFFFFFFFFF00) >> 8
    elif gtid_format == L.GTID_FORMAT_UNTAGGED:
        n_sids = encoded & 0x00FFFFFFFFFFFFFF
    else:
        raise ValueError(f"unknown GTID set format {gtid_format}")
    entries = []
    for _ in range(n_sids):
        if pos + 16 > end:
            raise ValueError("GTID set truncated")
        sid = bytes(data[pos:pos + 16])
        pos += 16
        tag = b""
        if gtid_format == L.GTID_FORMAT_TAGGED:
            tag, pos = _read_serialized_string(data, pos, end, L.TAG_MAX_LENGTH)
        if pos + 8 > end:
            raise ValueError("GTID set truncated")
        n_intervals = L.UINT64.unpack_from(data, pos)[0]
        pos += 8
        if pos + n_intervals * 16 > end:
            raise ValueError("GTID set truncated")
        intervals = []
        for _ in range(n_intervals):
            start, stop = L.GTID_SET_INTERVAL.unpack_from(data, pos)
            if start <= 0 or stop <= start:
                raise ValueError("invalid GTID interval")
            intervals.append((start, stop))
            pos += 16
        entries.append(GtidSetEntry(sid, tag, intervals))
    return gtid_format, entries, pos


def encode_gtid_set(entries, gtid_format=None):
    """Gtid_set::encode, the inverse of decode_gtid_set: [GtidSetEntry] -> bytes
    (the Previous_gtids body, and COM_BINLOG_DUMP_GTID's set).  The tagged
    format is used when asked for or when an entry has a tag."""
    if gtid_format is None:
        gtid_format = (L.GTID_FORMAT_TAGGED if any(e.tag for e in entries)
                       else L.GTID_FORMAT_UNTAGGED)
    n = len(entries)
    if gtid_format == L.GTID_FORMAT_TAGGED:
        out = [L.UINT64.pack(gtid_format << 56 | n << 8 | gtid_format)]
    else:
        out = [L.UINT64.pack(n)]
    for entry in entries:
        out.append(entry.sid)
        if gtid_format == L.GTID_FORMAT_TAGGED:
            out.append(write_varlen(len(entry.tag)) + entry.tag)
        out.append(L.UINT64.pack(len(entry.intervals)))
        out += [L.GTID_SET_INTERVAL.pack(start, stop) for start, stop in entry.intervals]
    return b"".join(out)


def write_varlen(value):
    """read_varlen's inverse, for values below 2**14 (tag lengths)."""
    if value < 1 << 7:
        return bytes((value << 1,))
    if value < 1 << 14:
        return bytes(((value << 2 | 1) & 0xFF, value >> 6))
    raise ValueError("variable-length integer too big for write_varlen")


@register(L.PREVIOUS_GTIDS_LOG_EVENT)
def decode_previous_gtids(data, raw, fde):
    pos = fde.header_len + fde.post_header(L.PREVIOUS_GTIDS_LOG_EVENT)
    gtid_format, entries, pos = decode_gtid_set(data, pos, len(data))
    if pos != len(data):
        raise ValueError("Invalid Previous_gtids information")
    return PreviousGtidsBody(gtid_format, entries)


# -- ROWS_QUERY, TRANSACTION_CONTEXT, VIEW_CHANGE, HEARTBEAT ----------------------------

@record
class RowsQueryBody:
    query: bytes


@register(L.ROWS_QUERY_LOG_EVENT)
def decode_rows_query(data, raw, fde):
    """Rows_query_event: a 1-byte length (ignored), then the query to the end."""
    pos = fde.header_len + fde.post_header(L.ROWS_QUERY_LOG_EVENT) + 1
    if pos > len(data):
        raise ValueError("rows query event too short")
    return RowsQueryBody(bytes(data[pos:]))


@record
class TransactionContextBody:
    server_uuid: bytes
    thread_id: int
    gtid_specified: bool
    snapshot_version: bytes     # an encoded GTID set (decode_gtid_set)
    write_set: list             # of bytes (hashes as text)
    read_set: list


def _read_data_set(data, pos, count):
    items = []
    for _ in range(count):
        _need(data, pos, 2, "data set")
        n = L.UINT16.unpack_from(data, pos)[0]
        _need(data, pos + 2, n, "data set")
        items.append(bytes(data[pos + 2:pos + 2 + n]))
        pos += 2 + n
    return items, pos


@register(L.TRANSACTION_CONTEXT_EVENT)
def decode_transaction_context(data, raw, fde):
    pos = fde.header_len
    (uuid_len, thread_id, gtid_specified, snapshot_len, write_len,
     read_len) = L.TRANSACTION_CONTEXT_HEADER.unpack_from(data, pos)
    pos += L.TRANSACTION_CONTEXT_HEADER.size
    _need(data, pos, uuid_len + snapshot_len, "transaction context")
    server_uuid = bytes(data[pos:pos + uuid_len])
    pos += uuid_len
    snapshot = bytes(data[pos:pos + snapshot_len])
    pos += snapshot_len
    write_set, pos = _read_data_set(data, pos, write_len)
    read_set, pos = _read_data_set(data, pos, read_len)
    return TransactionContextBody(server_uuid, thread_id, bool(gtid_specified), snapshot,
                                  write_set, read_set)


@record
class ViewChangeBody:
    view_id: bytes
    seq_number: int
    certification_info: dict    # bytes -> bytes


@register(L.VIEW_CHANGE_EVENT)
def decode_view_change(data, raw, fde):
    pos = fde.header_len
    view_id, seq_number, count = L.VIEW_CHANGE_HEADER.unpack_from(data, pos)
    view_id = view_id.split(b"\0", 1)[0]
    if not view_id:
        raise ValueError("Invalid View_change information")
    pos += L.VIEW_CHANGE_HEADER.size
    info = {}
    for _ in range(count):
        _need(data, pos, 2, "certification info")
        key_len = L.UINT16.unpack_from(data, pos)[0]
        _need(data, pos + 2, key_len + 4, "certification info")
        key = bytes(data[pos + 2:pos + 2 + key_len])
        pos += 2 + key_len
        value_len = L.UINT32.unpack_from(data, pos)[0]
        _need(data, pos + 4, value_len, "certification info")
        info[key] = bytes(data[pos + 4:pos + 4 + value_len])
        pos += 4 + value_len
    return ViewChangeBody(view_id, seq_number, info)


@record
class HeartbeatBody:
    log_filename: bytes
    log_position: int       # the header's log_pos (v1) or the TLV field (v2)


@register(L.HEARTBEAT_LOG_EVENT)
def decode_heartbeat(data, raw, fde):
    name = bytes(data[fde.header_len:])
    if not name:
        raise ValueError("Event is smaller than expected")
    return HeartbeatBody(name[:511], raw.log_pos)


@register(L.HEARTBEAT_LOG_EVENT_V2)
def decode_heartbeat_v2(data, raw, fde):
    body = HeartbeatBody(b"", 0)
    end = len(data)
    pos = fde.header_len
    while pos < end:
        field_type, pos = _u64_len(data, pos)
        if field_type == L.OTW_HB_HEADER_END_MARK:
            break
        length, pos = _u64_len(data, pos)
        if field_type == L.OTW_HB_LOG_FILENAME_FIELD:
            _need(data, pos, length, "heartbeat file name")
            body.log_filename = bytes(data[pos:pos + length])
        elif field_type == L.OTW_HB_LOG_POSITION_FIELD:
            body.log_position, _ = _u64_len(data, pos)
        pos += length
    return body


# -- TRANSACTION_PAYLOAD (8.0.20+ binlog_transaction_compression) -------------------

@record
class TransactionPayloadBody:
    """Transaction_payload_event: the TLV header and the events it carries.

    `payload` is the uncompressed bytes; `events` are its events framed as
    RawEvents (19-byte header, no checksum: the server writes none inside a
    payload).  Their `pos` is the payload event's own offset in the file.
    """
    compression_type: int
    payload_size: int
    uncompressed_size: int
    payload: bytes
    events: list = field(default_factory=list)

    @property
    def compression_name(self):
        return L.COMPRESSION_NAMES.get(self.compression_type, str(self.compression_type))


_ZSTD = []      # [threading.local()] once a compressed payload comes: one reusable ZstdDecompressor per thread


MAX_UNCOMPRESSED = 1 << 30      # a sane cap on one inflated payload (max_allowed_packet)


def _zstd_decompress(data, declared=None):
    """A payload's zstd frames inflated; ValueError when truncated, damaged, or larger
    than `declared` (its uncompressed_size field, when given) or MAX_UNCOMPRESSED:
    each frame's size is known (its header, or a bounded count) before it is inflated,
    so a small hostile payload cannot ask for gigabytes."""
    import zstandard   # only MySQL 8.0.20+ logs with compressed transactions need it
    if not _ZSTD:
        import threading
        _ZSTD.append(threading.local())
    local = _ZSTD[0]
    dctx = getattr(local, "dctx", None)
    if dctx is None:
        dctx = local.dctx = zstandard.ZstdDecompressor()
    cap = MAX_UNCOMPRESSED if not declared else min(declared, MAX_UNCOMPRESSED)
    out, total = [], 0
    data = bytes(data)
    try:
        while data:
            total += zstd_frame_size(zstandard, dctx, data, cap - total)
            if total > cap:
                raise ValueError(f"compressed payload inflates past {cap} bytes"
                                 + (" (its declared size)" if cap == declared else ""))
            stream = dctx.decompressobj()
            out.append(stream.decompress(data))
            if not stream.eof:
                raise ValueError("compressed payload truncated")
            data = stream.unused_data
    except zstandard.ZstdError as exc:
        raise ValueError(f"cannot decompress payload: {exc}") from None
    return b"".join(out)


def zstd_frame_size(zstandard, dctx, data, room):
    """The inflated size of the first frame of `data` (from its header; when the
    header does not say, counted by inflating it in pieces, at most room + 1 bytes)."""
    try:
        size = zstandard.frame_content_size(data)
    except zstandard.ZstdError:
        size = -1
    if size >= 0:
        return size
    counted = 0
    reader = dctx.stream_reader(data, read_across_frames=False)
    while counted <= room:
        piece = reader.read(1 << 20)
        if not piece:
            break
        counted += len(piece)
    return counted


def split_payload_events(payload, pos):
    """Frame the events of an uncompressed payload; `pos` becomes their RawEvent.pos."""
    events = []
    offset = 0
    end = len(payload)
    while offset < end:
        if end - offset < L.LOG_EVENT_HEADER_LEN:
            raise ValueError("event header truncated inside payload")
        header = L.COMMON_HEADER.unpack_from(payload, offset)
        size = header[3]
        if size < L.LOG_EVENT_HEADER_LEN or offset + size > end:
            raise ValueError(f"bad event size {size} inside payload")
        events.append(RawEvent(pos, header, payload[offset:offset + size], size, None))
        offset += size
    return events


@register(L.TRANSACTION_PAYLOAD_EVENT)
def decode_transaction_payload(data, raw, fde):
    """codecs::binary::Transaction_payload::decode: TLV fields after the common
    header (the post-header length in the FDE is not used), then the payload."""
    end = len(data)
    pos = fde.header_len
    fields = {}
    while True:
        if pos >= end:
            raise ValueError("payload header without end mark")
        field_type, pos = _u64_len(data, pos)
        if field_type == L.OTW_PAYLOAD_HEADER_END_MARK:
            break
        length, pos = _u64_len(data, pos)
        if field_type in (L.OTW_PAYLOAD_SIZE_FIELD, L.OTW_PAYLOAD_COMPRESSION_TYPE_FIELD,
                          L.OTW_PAYLOAD_UNCOMPRESSED_SIZE_FIELD):
            fields[field_type], pos = _u64_len(data, pos)
        else:
            pos += length
    size = fields.get(L.OTW_PAYLOAD_SIZE_FIELD)
    ctype = fields.get(L.OTW_PAYLOAD_COMPRESSION_TYPE_FIELD)
    if size is None or ctype is None or size > end - pos:
        raise ValueError("invalid payload header")
    if ctype not in L.COMPRESSION_NAMES:
        raise ValueError(f"unknown compression type {ctype}")
    raw_payload = data[pos:pos + size]
    declared = fields.get(L.OTW_PAYLOAD_UNCOMPRESSED_SIZE_FIELD)
    payload = (bytes(raw_payload) if ctype == L.COMPRESSION_NONE
               else _zstd_decompress(raw_payload, declared))
    return TransactionPayloadBody(ctype, size, fields.get(L.OTW_PAYLOAD_UNCOMPRESSED_SIZE_FIELD, 0),
                                  payload, split_payload_events(payload, raw.pos))


# -- rows v2 extra data -----------------------------------------------------------------

@record
class ExtraRowInfo:
    ndb_info: bytes = None          # the NDB chunk: length byte, format byte, data
    partition_id: int = None
    source_partition_id: int = None

    @property
    def ndb_format(self):
        return None if self.ndb_info is None else self.ndb_info[1]

    @property
    def ndb_data(self):
        return None if self.ndb_info is None else self.ndb_info[L.EXTRA_ROW_INFO_HEADER_LENGTH:]


def parse_extra_row_info(extra_data, type_code):
    """Rows_event's var-len post-header chunks (rows_event.cpp Rows_event::Rows_event).

    `extra_data` is RowsBody.extra_data (the bytes after the 2-byte length).
    An NDB chunk is kept whole (first one only, like the server); a PART
    chunk has the partition id and, for updates, the source partition id.
    An unknown chunk type ends the parse.
    """
    info = ExtraRowInfo()
    data = extra_data or b""
    pos, end = 0, len(data)
    while pos < end:
        kind = data[pos]
        pos += 1
        if kind == L.EXTRA_ROW_INFO_NDB:
            _need(data, pos, 1, "extra row info")
            length = data[pos]
            _need(data, pos, length, "extra row ndb info")
            if length < L.EXTRA_ROW_INFO_HEADER_LENGTH:
                raise ValueError("extra row ndb info too short")
            if info.ndb_info is None:
                info.ndb_info = bytes(data[pos:pos + length])
            pos += length
        elif kind == L.EXTRA_ROW_INFO_PART:
            _need(data, pos, 2, "extra row partition info")
            info.partition_id = L.UINT16.unpack_from(data, pos)[0]
            pos += 2
            if type_code in (L.UPDATE_ROWS_EVENT, L.PARTIAL_UPDATE_ROWS_EVENT):
                _need(data, pos, 2, "extra row partition info")
                info.source_partition_id = L.UINT16.unpack_from(data, pos)[0]
                pos += 2
        else:
            break
    return info
