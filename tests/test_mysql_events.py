"""MySQL event layouts, one test per layout, from bytes built by the documented rules.

Each builder below cites the MySQL source it follows (mysql/mysql-server,
libs/mysql/binlog/event/*.cpp and libs/mysql/serialization/*); the real
peer binlogs are checked separately in test_peer_binlogs_decode.py.
"""
import datetime as dt
import struct
import zlib

import pytest

from binlogkit.binlog import layout as L
from binlogkit.binlog import legacy_events as LE
from binlogkit.binlog import mysql_events as M
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import FormatDescription, RawEvent
from binlogkit.errors import BinlogError, EventDecodeError

# post_header_len of a real MySQL 8.0.32 Format_description event
POST_HEADER_80 = bytes.fromhex(
    "000d0008000000000400040000006200041a08000000080808020000000a0a0a2a2a001234000a2800")
FDE80 = FormatDescription(4, b"8.0.32", 0, 19, POST_HEADER_80, L.BINLOG_CHECKSUM_ALG_CRC32)
# ... and of a MySQL 5.1.23 one (LOAD 18, CREATE_FILE 4, ...)
FDE51 = FormatDescription(4, b"5.1.23-rc-log", 0, 19, bytes(
    [56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 83, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2]))

SID = bytes.fromhex("3e11fa47717111e19e3327ccc0fa5c2a")


def make_event(type_code, body, when=1700000000, server_id=1, log_pos=1000, flags=0, pos=4):
    size = L.LOG_EVENT_HEADER_LEN + len(body)
    header = (when, type_code, server_id, size, log_pos, flags)
    return RawEvent(pos, header, L.COMMON_HEADER.pack(*header) + body, size, None)


def decode(type_code, body, fde=FDE80, **kw):
    return decode_event(make_event(type_code, body, **kw), fde)


def packed_int(value):
    """net_store_length (mysys/pack.cc)."""
    if value < 251:
        return bytes([value])
    if value < 1 << 16:
        return b"\xfc" + value.to_bytes(2, "little")
    if value < 1 << 24:
        return b"\xfd" + value.to_bytes(3, "little")
    return b"\xfe" + value.to_bytes(8, "little")


def varlen(value):
    """write_varlen_bytes_unsigned (serialization/variable_length_integers.h)."""
    size = ((value.bit_length() * 575) >> 12) + 1
    first = ((1 << (size - 1)) - 1) | ((value << size) & 0xFF)
    if size == 1:
        return bytes([first])
    rest = value >> (8 - size + ((size + 7) >> 4))
    return bytes([first]) + rest.to_bytes(size - 1, "little")


def varlen_signed(value):
    return varlen((value << 1) if value >= 0 else (((-(value + 1)) << 1) | 1))


# -- GTID (control_events.cpp Gtid_event::Gtid_event; layout comment there) ------

def gtid_body(flags=1, sid=SID, gno=42, clock=(7, 8), ts=None, length=None, versions=None,
              ticket=None):
    body = struct.pack("<B16sq", flags, sid, gno)
    if clock is not None:
        body += struct.pack("<Bqq", 2, *clock)
    if ts is not None:
        immediate, original = ts
        if original != immediate:
            body += (immediate | 1 << 55).to_bytes(7, "little") + original.to_bytes(7, "little")
        else:
            body += immediate.to_bytes(7, "little")
        if length is not None:
            body += packed_int(length)
            if versions is not None:
                immediate_v, original_v = versions
                if original_v != immediate_v:
                    body += struct.pack("<II", immediate_v | 1 << 31, original_v)
                else:
                    body += struct.pack("<I", immediate_v)
                if ticket is not None:
                    body += struct.pack("<Q", ticket)
    return body


def test_gtid_every_field():
    immediate, original = 1700000000123456, 1699999999000001
    body = decode(L.GTID_LOG_EVENT, gtid_body(ts=(immediate, original), length=70000,
                                               versions=(80041, 80036), ticket=9))
    assert isinstance(body, M.MysqlGtidBody)
    assert (body.flags, body.sid, body.gno) == (1, SID, 42)
    assert body.may_have_sbr and not body.is_anonymous and not body.is_tagged
    assert (body.lt_type, body.last_committed, body.sequence_number) == (2, 7, 8)
    assert body.has_commit_timestamps
    assert body.immediate_commit_timestamp == immediate
    assert body.original_commit_timestamp == original
    assert body.transaction_length == 70000
    assert (body.immediate_server_version, body.original_server_version) == (80041, 80036)
    assert body.commit_group_ticket == 9
    assert body.gtid == "3e11fa47-7171-11e1-9e33-27ccc0fa5c2a:42"
    assert body.immediate_commit_datetime == dt.datetime(2023, 11, 14, 22, 13, 20, 123456,
                                                         tzinfo=dt.timezone.utc)
    assert body.original_commit_datetime.tzinfo is dt.timezone.utc


def test_gtid_original_equals_immediate_and_versions_missing():
    # 8.0.1-8.0.13 wrote timestamps and length but no server versions
    body = decode(L.GTID_LOG_EVENT, gtid_body(ts=(5000000, 5000000), length=300))
    assert body.original_commit_timestamp == body.immediate_commit_timestamp == 5000000
    assert body.transaction_length == 300
    assert body.immediate_server_version == body.original_server_version == L.UNDEFINED_SERVER_VERSION
    assert body.commit_group_ticket == 0


def test_gtid_versions_equal_no_ticket():
    body = decode(L.GTID_LOG_EVENT, gtid_body(ts=(1, 1), length=1, versions=(80041, 80041)))
    assert (body.immediate_server_version, body.original_server_version) == (80041, 80041)


def test_gtid_5_6_and_5_7_layouts_keep_server_defaults():
    old = decode(L.GTID_LOG_EVENT, gtid_body(clock=None))      # 5.6: 25 bytes
    assert old.lt_type is None
    assert (old.last_committed, old.sequence_number, old.transaction_length) == (0, 0, 0)
    assert not old.has_commit_timestamps and old.immediate_commit_datetime is None
    assert old.immediate_server_version == 0
    five7 = decode(L.ANONYMOUS_GTID_LOG_EVENT, gtid_body(flags=0, sid=bytes(16), gno=0))
    assert five7.is_anonymous and five7.gtid == "ANONYMOUS"
    assert (five7.last_committed, five7.sequence_number) == (7, 8)
    assert five7.immediate_commit_timestamp == 0


def test_gtid_pre_5_7_6_typecode_ignored():
    body = struct.pack("<B16sq", 0, SID, 3) + b"\x01" + bytes(16)
    gtid = decode(L.GTID_LOG_EVENT, body)
    assert gtid.lt_type == 1 and gtid.last_committed == 0 and gtid.sequence_number == 0


def test_gtid_transaction_length_packed_forms():
    for length in (250, 251, 65535, 65536, 1 << 24, (1 << 40) + 3):
        body = decode(L.GTID_LOG_EVENT, gtid_body(ts=(1, 1), length=length))
        assert body.transaction_length == length


@pytest.mark.parametrize("type_code,gno", [(L.GTID_LOG_EVENT, 0), (L.ANONYMOUS_GTID_LOG_EVENT, 5)])
def test_gtid_bad_gno_is_a_decode_error(type_code, gno):
    with pytest.raises(EventDecodeError) as info:
        decode(type_code, gtid_body(gno=gno), pos=1234)
    assert info.value.offset == 1234 and "Invalid GNO" in str(info.value)


def test_gtid_truncated_original_timestamp():
    body = gtid_body(ts=(10, 20))[:-3]
    with pytest.raises(EventDecodeError):
        decode(L.GTID_LOG_EVENT, body)


# -- tagged GTID (Gtid_event::define_fields + serializer_default_impl.hpp) ----------

def tagged_body(fields, version=1, extra_size=0, last_non_ignorable=None):
    """Encode a message: version (as field id), size, last non-ignorable id, fields."""
    payload = b"".join(varlen(fid) + value for fid, value in fields)
    lni = varlen(last_non_ignorable if last_non_ignorable is not None else 0)
    head = varlen(version)
    for guess in range(1, 10):
        size = len(head) + guess + len(lni) + len(payload) + extra_size
        if len(varlen(size)) == guess:
            return head + varlen(size) + lni + payload
    raise AssertionError


def uuid_field(sid):
    return b"".join(varlen(b) for b in sid)


def tag_field(tag):
    return varlen(len(tag)) + tag


def test_tagged_gtid_all_fields():
    fields = [(0, varlen(1)), (1, uuid_field(SID)), (2, varlen_signed(77)),
              (3, tag_field(b"batch_7")), (4, varlen_signed(100)), (5, varlen_signed(101)),
              (6, varlen(1700000000000001)), (7, varlen(1600000000000002)), (8, varlen(512)),
              (9, varlen(90100)), (10, varlen(80400)), (11, varlen(33))]
    body = decode(L.GTID_TAGGED_LOG_EVENT, tagged_body(fields))
    assert body.is_tagged and not body.is_anonymous and body.may_have_sbr
    assert (body.sid, body.gno, body.tag) == (SID, 77, b"batch_7")
    assert body.gtid == "3e11fa47-7171-11e1-9e33-27ccc0fa5c2a:batch_7:77"
    assert (body.last_committed, body.sequence_number) == (100, 101)
    assert body.immediate_commit_timestamp == 1700000000000001
    assert body.original_commit_timestamp == 1600000000000002
    assert body.transaction_length == 512
    assert (body.immediate_server_version, body.original_server_version) == (90100, 80400)
    assert body.commit_group_ticket == 33


def test_tagged_gtid_missing_optional_fields_take_functor_values():
    # original_commit_timestamp, original_server_version, commit_group_ticket omitted
    fields = [(0, varlen(0)), (1, uuid_field(SID)), (2, varlen_signed(3)), (3, tag_field(b"t")),
              (4, varlen_signed(0)), (5, varlen_signed(1)), (6, varlen(123456789)),
              (8, varlen(296)), (9, varlen(90600))]
    body = decode(L.GTID_TAGGED_LOG_EVENT, tagged_body(fields))
    assert body.original_commit_timestamp == body.immediate_commit_timestamp == 123456789
    assert body.original_server_version == body.immediate_server_version == 90600
    assert body.commit_group_ticket == 0 and not body.may_have_sbr


def test_tagged_gtid_skips_unknown_trailing_fields():
    fields = [(0, varlen(0)), (1, uuid_field(SID)), (2, varlen_signed(9)), (3, tag_field(b"x")),
              (12, varlen(5))]            # a newer, ignorable field
    body = decode(L.GTID_TAGGED_LOG_EVENT, tagged_body(fields))
    assert body.gno == 9 and body.tag == b"x"


def test_tagged_gtid_unknown_non_ignorable_field_is_an_error():
    fields = [(0, varlen(0)), (1, uuid_field(SID)), (2, varlen_signed(9)), (13, varlen(1))]
    with pytest.raises(EventDecodeError):
        decode(L.GTID_TAGGED_LOG_EVENT, tagged_body(fields, last_non_ignorable=14))


def test_varlen_round_trip_edges():
    for value in (0, 1, 127, 128, 1 << 14, (1 << 56) - 1, 1 << 56, (1 << 63) + 5, (1 << 64) - 1):
        enc = varlen(value)
        assert M.read_varlen(enc, 0, len(enc)) == (value, len(enc))
    for value in (0, -1, 1, -65536, 65535, -(1 << 63), (1 << 63) - 1):
        enc = varlen_signed(value)
        assert M.read_varlen_signed(enc, 0, len(enc)) == (value, len(enc))


# -- PREVIOUS_GTIDS (rpl_gtid_set.cc encode_nsids_format / add_gtid_encoding) --------

def gtid_set(entries, tagged=False):
    fmt = 1 if tagged else 0
    n = len(entries)
    head = ((fmt << 56) | (n << 8) | fmt) if tagged else n
    out = struct.pack("<Q", head)
    for sid, tag, intervals in entries:
        out += sid + (varlen(len(tag)) + tag if tagged else b"")
        out += struct.pack("<Q", len(intervals))
        out += b"".join(struct.pack("<qq", a, b) for a, b in intervals)
    return out


def test_previous_gtids_untagged():
    other = bytes(range(16))
    body = decode(L.PREVIOUS_GTIDS_LOG_EVENT, gtid_set([(SID, b"", [(1, 14), (20, 21)]),
                                                       (other, b"", [(5, 6)])]))
    assert body.gtid_format == L.GTID_FORMAT_UNTAGGED
    assert [(e.uuid, e.tag, e.intervals) for e in body.entries] == [
        ("3e11fa47-7171-11e1-9e33-27ccc0fa5c2a", b"", [(1, 14), (20, 21)]),
        ("00010203-0405-0607-0809-0a0b0c0d0e0f", b"", [(5, 6)])]


def test_previous_gtids_tagged_8_4():
    body = decode(L.PREVIOUS_GTIDS_LOG_EVENT, gtid_set([(SID, b"", [(1, 14)]),
                                                       (SID, b"mytag", [(1, 3)])], tagged=True))
    assert body.gtid_format == L.GTID_FORMAT_TAGGED
    assert [(e.tag, e.intervals) for e in body.entries] == [(b"", [(1, 14)]), (b"mytag", [(1, 3)])]


def test_previous_gtids_empty_and_broken():
    assert decode(L.PREVIOUS_GTIDS_LOG_EVENT, gtid_set([])).entries == []
    for bad in (b"\x00" * 7, gtid_set([(SID, b"", [(1, 14)])])[:-1],
                gtid_set([(SID, b"", [(5, 5)])]), gtid_set([(SID, b"", [(1, 2)])]) + b"\x00"):
        with pytest.raises(EventDecodeError):
            decode(L.PREVIOUS_GTIDS_LOG_EVENT, bad)


# -- ROWS_QUERY, TRANSACTION_CONTEXT, VIEW_CHANGE, XA_PREPARE, INCIDENT, HEARTBEAT ----

def test_rows_query_ignores_its_length_byte():
    # Rows_query_event: "length is stored using only one byte, but that length is ignored"
    query = b"INSERT INTO t VALUES (1)" * 20           # longer than 255
    body = decode(L.ROWS_QUERY_LOG_EVENT, b"\x01" + query)
    assert body.query == query


def test_transaction_context():
    snapshot = gtid_set([(SID, b"", [(1, 5)])])
    write_set = [b"1234567890", b"abc"]
    body = struct.pack("<BIBIII", 36, 77, 1, len(snapshot), 2, 1)
    body += b"8a94f357-aab4-11df-86ab-c80aa9429562" + snapshot
    body += b"".join(struct.pack("<H", len(w)) + w for w in write_set)
    body += struct.pack("<H", 2) + b"rs"
    ctx = decode(L.TRANSACTION_CONTEXT_EVENT, body)
    assert ctx.server_uuid == b"8a94f357-aab4-11df-86ab-c80aa9429562"
    assert (ctx.thread_id, ctx.gtid_specified) == (77, True)
    assert ctx.write_set == write_set and ctx.read_set == [b"rs"]
    fmt, entries, _ = M.decode_gtid_set(ctx.snapshot_version, 0, len(ctx.snapshot_version))
    assert entries[0].intervals == [(1, 5)]
    with pytest.raises(EventDecodeError):
        decode(L.TRANSACTION_CONTEXT_EVENT, body[:-1])


def test_view_change():
    body = b"15112414153949391:3".ljust(40, b"\0") + struct.pack("<QI", 99, 2)
    for key, value in ((b"k1", b"v" * 300), (b"group_gtid_executed", b"")):
        body += struct.pack("<H", len(key)) + key + struct.pack("<I", len(value)) + value
    view = decode(L.VIEW_CHANGE_EVENT, body)
    assert view.view_id == b"15112414153949391:3" and view.seq_number == 99
    assert view.certification_info == {b"k1": b"v" * 300, b"group_gtid_executed": b""}
    with pytest.raises(EventDecodeError):
        decode(L.VIEW_CHANGE_EVENT, bytes(40) + struct.pack("<QI", 1, 0))


def test_xa_prepare_mysql_layout():
    body = b"\x00" + struct.pack("<iII", 1, 3, 2) + b"gtrbq"
    xa = decode(L.XA_PREPARE_LOG_EVENT, body)
    assert not xa.one_phase and (xa.xid.format_id, xa.xid.gtrid, xa.xid.bqual) == (1, b"gtr", b"bq")


def test_incident():
    body = decode(L.INCIDENT_EVENT, struct.pack("<H", 1) + b"\x0bLOST_EVENTS")
    assert (body.incident, body.message) == (1, b"LOST_EVENTS")


def test_heartbeats():
    hb = decode(L.HEARTBEAT_LOG_EVENT, b"binlog.000007", log_pos=4242)
    assert (hb.log_filename, hb.log_position) == (b"binlog.000007", 4242)
    name = b"binlog.000123"
    # codecs/binary.cpp Heartbeat::encode: TLV of name and position, then the end mark
    tlv = packed_int(1) + packed_int(len(name)) + name
    tlv += packed_int(2) + packed_int(len(packed_int(70000))) + packed_int(70000) + packed_int(0)
    hb2 = decode(L.HEARTBEAT_LOG_EVENT_V2, tlv)
    assert (hb2.log_filename, hb2.log_position) == (name, 70000)


# -- TRANSACTION_PAYLOAD (codecs/binary.cpp Transaction_payload::encode) ----------------

def inner_events():
    query = decode_ready_query()
    xid = make_event(L.XID_EVENT, struct.pack("<Q", 77), log_pos=0)
    return [query, xid]


def decode_ready_query():
    status = b""
    body = struct.pack("<IIBHH", 11, 0, 4, 0, len(status)) + status + b"test\0BEGIN"
    return make_event(L.QUERY_EVENT, body, log_pos=0, flags=8)


def payload_event(events, compression=L.COMPRESSION_ZSTD, tweak=None):
    raw = b"".join(bytes(e.data) for e in events)
    if compression == L.COMPRESSION_ZSTD:
        import zstandard
        data = zstandard.ZstdCompressor().compress(raw)
    else:
        data = raw
    if tweak:
        data = tweak(data)
    tlv = packed_int(2) + packed_int(1) + packed_int(compression)
    if compression != L.COMPRESSION_NONE:
        tlv += packed_int(3) + packed_int(len(packed_int(len(raw)))) + packed_int(len(raw))
    tlv += packed_int(1) + packed_int(len(packed_int(len(data)))) + packed_int(len(data))
    return tlv + packed_int(0) + data, len(raw), len(data)


@pytest.mark.parametrize("compression", [L.COMPRESSION_ZSTD, L.COMPRESSION_NONE])
def test_transaction_payload_inner_events(compression):
    events = inner_events()
    body_bytes, raw_len, size = payload_event(events, compression)
    body = decode(L.TRANSACTION_PAYLOAD_EVENT, body_bytes, pos=777)
    assert body.compression_type == compression
    assert body.compression_name == ("ZSTD" if compression == L.COMPRESSION_ZSTD else "NONE")
    assert body.payload_size == size
    assert body.uncompressed_size == (raw_len if compression == L.COMPRESSION_ZSTD else 0)
    assert [e.type_code for e in body.events] == [L.QUERY_EVENT, L.XID_EVENT]
    assert all(e.pos == 777 and e.checksum is None for e in body.events)
    inner = [decode_event(e, FDE80) for e in body.events]
    assert inner[0].query == b"BEGIN" and inner[0].db == b"test"
    assert inner[1].xid == 77


def test_transaction_payload_rejects_corrupt_data():
    events = inner_events()
    body_bytes, _, _ = payload_event(events, tweak=lambda d: d[:-4])   # truncated frame
    with pytest.raises(EventDecodeError):
        decode(L.TRANSACTION_PAYLOAD_EVENT, body_bytes)
    body_bytes, _, _ = payload_event(events, tweak=lambda d: d[:6] + bytes(len(d) - 6))
    with pytest.raises(EventDecodeError):
        decode(L.TRANSACTION_PAYLOAD_EVENT, body_bytes)
    # an inner event whose size runs past the payload
    broken = make_event(L.XID_EVENT, struct.pack("<Q", 1))
    data = bytearray(broken.data)
    L.UINT32.pack_into(data, L.EVENT_LEN_OFFSET, 200)
    bad = RawEvent(4, L.COMMON_HEADER.unpack_from(data), bytes(data), len(data), None)
    body_bytes, _, _ = payload_event([bad], L.COMPRESSION_NONE)
    with pytest.raises(EventDecodeError, match="inside payload"):
        decode(L.TRANSACTION_PAYLOAD_EVENT, body_bytes)
    # no end mark / unknown compression
    with pytest.raises(EventDecodeError):
        decode(L.TRANSACTION_PAYLOAD_EVENT, packed_int(1) + packed_int(1) + packed_int(0))
    with pytest.raises(EventDecodeError):
        decode(L.TRANSACTION_PAYLOAD_EVENT, packed_int(2) + packed_int(1) + packed_int(7)
               + packed_int(1) + packed_int(1) + packed_int(0) + packed_int(0))


# -- rows v2 extra data (rows_event.cpp Rows_event::Rows_event) -----------------------

def test_extra_row_info_ndb_and_partitions():
    ndb = bytes([5, 1, 0xAA, 0xBB, 0xCC])                # length (incl. header), format, data
    info = M.parse_extra_row_info(bytes([0]) + ndb + bytes([1]) + struct.pack("<HH", 3, 7),
                                  L.UPDATE_ROWS_EVENT)
    assert info.ndb_format == 1 and info.ndb_data == b"\xaa\xbb\xcc"
    assert (info.partition_id, info.source_partition_id) == (3, 7)
    write = M.parse_extra_row_info(bytes([1]) + struct.pack("<H", 9), L.WRITE_ROWS_EVENT)
    assert (write.partition_id, write.source_partition_id, write.ndb_info) == (9, None, None)
    unknown = M.parse_extra_row_info(bytes([200, 1, 2, 3]), L.WRITE_ROWS_EVENT)
    assert unknown.partition_id is None
    with pytest.raises(ValueError):
        M.parse_extra_row_info(bytes([0, 9, 1]), L.WRITE_ROWS_EVENT)


# -- 5.0/5.1-era events (libbinlogevents 5.7 load_data_events.cpp) ---------------------

def test_start_v3():
    body = decode(L.START_EVENT_V3, struct.pack("<H50sI", 3, b"4.0.30-log", 1100000000))
    assert (body.binlog_version, body.server_version, body.created) == (3, b"4.0.30-log", 1100000000)


def load_body(new_format, fields=(b"a", b"bc"), fname=b"/tmp/x.txt"):
    post = struct.pack("<IIIBBI", 5, 1, 2, len(b"t1"), len(b"db"), len(fields))
    if new_format:
        sql_ex = b"".join(bytes([len(s)]) + s for s in (b",", b"\"", b"\n", b"", b"\\")) + b"\x02"
    else:
        sql_ex = b",\"\n\0\\" + bytes([2, 0x8])          # empty_flags: LINE_START_EMPTY
    names = bytes(len(f) for f in fields) + b"".join(f + b"\0" for f in fields)
    return post + sql_ex + names + b"t1\0db\0" + fname


@pytest.mark.parametrize("type_code", [L.LOAD_EVENT, L.NEW_LOAD_EVENT])
def test_load_and_new_load(type_code):
    body = decode(type_code, load_body(type_code == L.NEW_LOAD_EVENT), fde=FDE51)
    assert isinstance(body, LE.LoadBody)
    assert (body.thread_id, body.exec_time, body.skip_lines) == (5, 1, 2)
    assert (body.field_term, body.enclosed, body.line_term, body.line_start, body.escaped) == \
        (b",", b"\"", b"\n", b"", b"\\")
    assert body.opt_flags == 2
    assert (body.fields, body.table, body.db, body.fname) == ([b"a", b"bc"], b"t1", b"db", b"/tmp/x.txt")


def test_create_file_exec_load_slave():
    load = load_body(True, fname=b"/tmp/y\0")
    post = load[:L.LOAD_HEADER.size]
    body = post + struct.pack("<I", 31) + load[L.LOAD_HEADER.size:] + b"1,2\n3,4\n"
    cf = decode(L.CREATE_FILE_EVENT, body, fde=FDE51)
    assert (cf.file_id, cf.fname, cf.block, cf.table) == (31, b"/tmp/y", b"1,2\n3,4\n", b"t1")
    assert decode(L.EXEC_LOAD_EVENT, struct.pack("<I", 31), fde=FDE51).file_id == 31
    slave = decode(L.SLAVE_EVENT, struct.pack("<QH", 4, 3306) + b"host\0master-bin.001", fde=FDE51)
    assert (slave.master_pos, slave.master_port, slave.master_host, slave.master_log) == \
        (4, 3306, b"host", b"master-bin.001")


def test_decode_errors_are_binlog_errors_with_offset():
    with pytest.raises(BinlogError) as info:
        decode(L.VIEW_CHANGE_EVENT, b"short", pos=99)
    assert info.value.offset == 99 and info.value.type_code == L.VIEW_CHANGE_EVENT


def test_crc_of_inner_events_is_not_expected():
    # inner events are framed by their own size; a CRC-sized tail would be a 2nd event
    events = inner_events()
    body_bytes, _, _ = payload_event(events, L.COMPRESSION_NONE)
    body = decode(L.TRANSACTION_PAYLOAD_EVENT, body_bytes)
    assert sum(e.event_size for e in body.events) == len(body.payload)
    assert zlib.crc32(body.payload) == zlib.crc32(b"".join(bytes(e.data) for e in events))


# -- TABLE_MAP optional metadata (rows_event.cpp Optional_metadata_fields) -----------

def tlv(field_type, value):
    return bytes([field_type]) + packed_int(len(value)) + value


def table_map_body(types, meta, optional=b"", table_id=7, null_bits=None):
    ncols = len(types)
    body = table_id.to_bytes(6, "little") + b"\x01\x00"
    body += b"\x04test\x00" + b"\x01t\x00" + packed_int(ncols) + bytes(types)
    body += packed_int(len(meta)) + meta
    body += null_bits if null_bits is not None else b"\xff" * ((ncols + 7) // 8)
    return body + optional


def strs(values):
    return packed_int(len(values)) + b"".join(packed_int(len(v)) + v for v in values)


# INT UNSIGNED, VARCHAR(50), ENUM, SET, TEXT, GEOMETRY, DECIMAL(10,2), BIGINT, JSON, VECTOR
META_TYPES = [3, 15, 254, 254, 252, 255, 246, 8, 245, 242]
META_BYTES = (struct.pack("<H", 200) + bytes([247, 1]) + bytes([248, 1]) + b"\x02" + b"\x04"
              + bytes([10, 2]) + b"\x04" + b"\x04")


def test_table_map_optional_metadata_full():
    from binlogkit.binlog import table_metadata as T
    optional = (tlv(L.TM_SIGNEDNESS, bytes([0b10100000]))           # INT unsigned, BIGINT unsigned
                + tlv(L.TM_DEFAULT_CHARSET, packed_int(255) + packed_int(1) + packed_int(63))
                + tlv(L.TM_COLUMN_NAME, b"".join(packed_int(len(n)) + n for n in (
                    b"id", b"name", b"e", b"s", b"txt", b"g", b"price", b"big", b"doc", b"v")))
                + tlv(L.TM_SET_STR_VALUE, strs([b"a", b"b", b"c"]))
                + tlv(L.TM_ENUM_STR_VALUE, strs([b"x", b"yy"]))
                + tlv(L.TM_GEOMETRY_TYPE, packed_int(1))
                + tlv(L.TM_PRIMARY_KEY_WITH_PREFIX, packed_int(0) + packed_int(0)
                      + packed_int(1) + packed_int(10))
                + tlv(L.TM_ENUM_AND_SET_COLUMN_CHARSET, packed_int(8) + packed_int(33))
                + tlv(L.TM_COLUMN_VISIBILITY, bytes([0b11111110, 0b11000000]))
                + tlv(L.TM_VECTOR_DIMENSIONALITY, packed_int(3)))
    tm = decode(L.TABLE_MAP_EVENT, table_map_body(META_TYPES, META_BYTES, optional))
    md = tm.metadata
    assert md.primary_key == [(0, 0), (1, 10)] and md.primary_key_with_prefix
    cols = T.column_info(tm, md)
    assert [c.name for c in cols] == [b"id", b"name", b"e", b"s", b"txt", b"g", b"price", b"big",
                                      b"doc", b"v"]
    assert [c.type for c in cols][:4] == [3, 15, 247, 248]
    assert [c.unsigned for c in cols] == [True, None, None, None, None, None, False, True, None, None]
    # character columns (VARCHAR, TEXT, VECTOR): default 255, column #1 of them is 63
    assert [c.collation for c in cols] == [None, 255, 8, 33, 63, None, None, None, None, 255]
    assert (cols[2].enum_values, cols[3].set_values) == ([b"x", b"yy"], [b"a", b"b", b"c"])
    assert cols[5].geometry_type == 1 and cols[9].vector_dimensionality == 3
    assert [c.visible for c in cols] == [True] * 7 + [False, True, True]
    assert (cols[0].primary_key_prefix, cols[1].primary_key_prefix, cols[2].primary_key_prefix) == \
        (0, 10, None)
    # MariaDB counts GEOMETRY as a character column
    assert [c.collation for c in T.column_info(tm, md, mariadb=True)][4:6] == [63, 255]


def test_table_map_optional_metadata_minimal_and_broken():
    from binlogkit.binlog import table_metadata as T
    optional = (tlv(L.TM_SIGNEDNESS, b"\x00") + tlv(L.TM_COLUMN_CHARSET, packed_int(45) + packed_int(63))
                + tlv(L.TM_SIMPLE_PRIMARY_KEY, packed_int(0)) + tlv(99, b"zz"))
    tm = decode(L.TABLE_MAP_EVENT, table_map_body([3, 15, 252], struct.pack("<H", 40) + b"\x02",
                                                  optional))
    md = tm.metadata
    assert md.unknown == {99: b"zz"} and md.primary_key == [(0, 0)]
    assert not md.primary_key_with_prefix and md.column_names is None
    assert [(c.unsigned, c.collation) for c in T.column_info(tm)] == [(False, None), (None, 45),
                                                                     (None, 63)]
    # ENUM_AND_SET_DEFAULT_CHARSET: default for ENUM/SET columns, exceptions by their index
    enums = decode(L.TABLE_MAP_EVENT, table_map_body(
        [254, 3, 254], bytes([247, 1, 248, 2]),
        tlv(L.TM_ENUM_AND_SET_DEFAULT_CHARSET, packed_int(8) + packed_int(1) + packed_int(224))))
    assert [c.collation for c in T.column_info(enums)] == [8, None, 224]
    broken = decode(L.TABLE_MAP_EVENT, table_map_body([3], b"", b"\x04\x05\x01a"))
    with pytest.raises(ValueError):
        broken.metadata
    assert decode(L.TABLE_MAP_EVENT, table_map_body([3], b"")).metadata.signedness is None


# -- row images: VECTOR, PARTIAL_UPDATE_ROWS, rows v2 extra data ---------------------------

def rows_body(type_code, width, cols, images, extra=b"", cols_ai=None):
    body = (7).to_bytes(6, "little") + struct.pack("<H", 1)
    body += struct.pack("<H", 2 + len(extra)) + extra
    body += packed_int(width) + cols + (cols_ai if cols_ai is not None else b"")
    return body + images


def test_vector_column_rows():
    from binlogkit.binlog.rowvalues import iter_rows
    tm = decode(L.TABLE_MAP_EVENT, table_map_body([8, 242], b"\x04"))
    assert tm.column_meta == [0, 4]
    vec = struct.pack("<3f", 1.5, -2.0, 0.25)
    image = b"\x00" + struct.pack("<q", 5) + struct.pack("<I", len(vec)) + vec
    body = decode(L.WRITE_ROWS_EVENT, rows_body(L.WRITE_ROWS_EVENT, 2, b"\x03", image * 2))
    rows = list(iter_rows(tm, body))
    assert rows == [(None, [5, vec])] * 2
    assert struct.unpack("<3f", rows[0][1][1]) == (1.5, -2.0, 0.25)


def test_partial_update_rows_json_diffs():
    from binlogkit.binlog.json_binary import PartialJson
    from binlogkit.binlog.rowvalues import iter_rows
    # INT, JSON, VARCHAR(100), JSON
    tm = decode(L.TABLE_MAP_EVENT, table_map_body([3, 245, 15, 245], b"\x04" + struct.pack("<H", 100)
                                                  + b"\x04"))
    value = b"\x05\x1a\x00"                                    # int16 26
    diffs = b"\x00\x05$.age" + bytes([len(value)]) + value + b"\x02\x04$.xx"
    before = b"\x00" + struct.pack("<i", 1)                      # cols: id only
    # after: value_options=PARTIAL_JSON_UPDATES, partial bits (JSON #0 yes, #1 no), image of
    # cols {1, 3}: null bits, diff of column 1, full document of column 3
    doc = b"\x04\x01"
    after = (b"\x01" + b"\x01" + b"\x00" + struct.pack("<I", len(diffs)) + diffs
             + struct.pack("<I", len(doc)) + doc)
    body = decode(L.PARTIAL_UPDATE_ROWS_EVENT,
                  rows_body(L.PARTIAL_UPDATE_ROWS_EVENT, 4, b"\x01", before + after, cols_ai=b"\x0a"))
    assert body.type_code == L.PARTIAL_UPDATE_ROWS_EVENT and body.kind == "update"
    [(bi, ai)] = list(iter_rows(tm, body))
    assert bi[0] == 1 and ai[3] == doc
    assert isinstance(ai[1], PartialJson)
    assert [(d.function_name, d.path, d.value) for d in ai[1].diffs] == [
        ("JSON_REPLACE", b"$.age", 26), ("JSON_REMOVE", b"$.xx", None)]
    # value_options 0: a plain after image
    plain = b"\x00" + b"\x00" + struct.pack("<I", len(doc)) + doc + struct.pack("<I", len(doc)) + doc
    body = decode(L.PARTIAL_UPDATE_ROWS_EVENT,
                  rows_body(L.PARTIAL_UPDATE_ROWS_EVENT, 4, b"\x01", before + plain, cols_ai=b"\x0a"))
    assert list(iter_rows(tm, body))[0][1][1] == doc


def test_rows_v2_extra_data_kept_and_parsed():
    extra = bytes([L.EXTRA_ROW_INFO_PART]) + struct.pack("<HH", 2, 1)
    body = decode(L.UPDATE_ROWS_EVENT, rows_body(L.UPDATE_ROWS_EVENT, 1, b"\x01", b"",
                                                 extra=extra, cols_ai=b"\x01"))
    info = M.parse_extra_row_info(body.extra_data, L.UPDATE_ROWS_EVENT)
    assert (info.partition_id, info.source_partition_id) == (2, 1)


# -- pre-GA 5.1 trees: event ids renumbered by the FDE, old rows events ------------------

def pre_ga_binlog():
    """A binlog as the mysql-5.1-wl2325 tree wrote it: TABLE_MAP=16, rows 17-19, XID=20."""
    post = bytes([56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 79, 6, 6, 6, 6, 0, 4, 26])
    fde = struct.pack("<H50sIB", 4, b"5.2.2-a_drop6p13-debug-log", 1199978482, 19) + post
    table_map = b"\x00\x00\x00\x00\x00\x00\x04test\x00\x02t1\x00\x02\x03\xfe"
    row = lambda a, b: b"\xf9" + struct.pack("<i", a) + bytes([len(b)]) + b   # noqa: E731
    write = b"\x00\x00\x00\x00\x01\x00\x02\xff" + row(0, b"one") + row(1, b"two")
    update = b"\x00\x00\x00\x00\x01\x00\x02\xff" + row(1, b"two") + row(1, b"2")
    events = [(15, fde), (16, table_map), (17, write), (16, table_map), (18, update),
              (20, struct.pack("<Q", 9))]
    out, pos = bytearray(L.BINLOG_MAGIC), 4
    for type_code, body in events:
        size = 19 + len(body)
        out += L.COMMON_HEADER.pack(1199978482, type_code, 1, size, pos + size, 0) + body
        pos += size
    return bytes(out)


def test_pre_ga_event_ids_and_rows():
    import io
    from binlogkit.binlog.reader import BinlogReader
    from binlogkit.binlog.rowvalues import iter_rows
    with BinlogReader("pre-ga", stream=io.BytesIO(pre_ga_binlog())) as reader:
        reader.read_magic()
        seen, tables, rows = [], {}, []
        for raw in reader.events():
            seen.append(raw.type_code)
            body = decode_event(raw, reader.fde)
            if raw.type_code == L.TABLE_MAP_EVENT:
                tables[body.table_id] = body
            elif raw.type_code in (L.PRE_GA_WRITE_ROWS_EVENT, L.PRE_GA_UPDATE_ROWS_EVENT):
                rows += list(iter_rows(tables[body.table_id], body))
            elif raw.type_code == L.XID_EVENT:
                assert body.xid == 9
        assert reader.fde.post_header(L.TABLE_MAP_EVENT) == 6
        assert reader.fde.post_header(L.XID_EVENT) == 0
    assert seen == [15, 19, 20, 19, 21, 16]
    assert rows == [(None, [0, b"one"]), (None, [1, b"two"]), ([1, b"two"], [1, b"2"])]


def test_mysql_only_types_are_registered_when_the_first_comes():
    """binlog/__init__.MYSQL_ONLY_TYPES is what mysql_events registers; a MariaDB print
    does not load it, and the first such event does (then it decodes as usual)."""
    import subprocess
    import sys
    code = (
        "import sys\n"
        "from binlogkit.binlog import MYSQL_ONLY_TYPES, events\n"
        "from binlogkit.binlog import layout as L\n"
        "from binlogkit.binlog.reader import FormatDescription, RawEvent\n"
        "loaded = 'binlogkit.binlog.mysql_events' in sys.modules\n"
        "before = set(events.DECODERS)\n"
        "body = b'\\x00' * 8 + b'mysql-bin.000002'\n"      # Rotate-like heartbeat body
        "size = L.LOG_EVENT_HEADER_LEN + len(body)\n"
        "header = (0, L.HEARTBEAT_LOG_EVENT, 1, size, 0, 0)\n"
        "raw = RawEvent(4, header, L.COMMON_HEADER.pack(*header) + body, size, None)\n"
        "decoded = type(events.decode_event(raw, FormatDescription(server_version=b'8.0.32'))).__name__\n"
        "added = set(events.DECODERS) - before\n"
        "print(loaded, sorted(added) == sorted(MYSQL_ONLY_TYPES), decoded)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout.split()[:2] == ["False", "True"], r.stderr
    assert r.stdout.split()[2] != "UnknownBody"
