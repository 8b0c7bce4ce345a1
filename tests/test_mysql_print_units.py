"""mysqlbinlog 8.0 text, event by event, on binlogs built here from bytes.

Each expected line follows a format string of MySQL 8.0.41 (sql/log_event.cc,
client/mysqlbinlog.cc), cited next to the test.  The binlogs are written by
the small builder below (FDE of a real 8.0.40 server, CRC32 checksums), so
these tests need no peer data.
"""
import io
import struct
import zlib

import pytest

from binlogkit.binlog import layout as L
from binlogkit.errors import BinlogError, BinlogkitError
from binlogkit.printer.mysql import jsontext
from binlogkit.printer.mysql.driver import dump_mysql
from binlogkit.printer.mysql.format import DEFAULT_FORMAT
from binlogkit.printer.mysql.gtidset import GtidFilter, GtidSet
from binlogkit.printer.mysql.verbose import print_value, write_bits, write_quoted
from binlogkit.printer.state import PrintOptions
from binlogkit.tz import ZoneTable

SID = bytes.fromhex("3e11fa47717111e19e3327ccc0fa5c2a")
UUID = b"3e11fa47-7171-11e1-9e33-27ccc0fa5c2a"
WHEN = 1700000000               # 2023-11-14 22:13:20 UTC


# -- a binlog builder ---------------------------------------------------------------------

class Binlog:
    """Events with CRC32, positions and end_log_pos filled in, after a MySQL 8.0 FDE."""

    def __init__(self, version=b"8.0.40", crc=True, fde_flags=0):
        self.crc = crc
        self.data = bytearray(b"\xfebin")
        post_header = DEFAULT_FORMAT.post_header_len
        if version.startswith(b"9."):
            post_header += b"\x00"      # 8.4+ servers describe event types up to 42
        body = struct.pack("<H50sIB", 4, version, WHEN, 19) + post_header
        body += bytes([1 if crc else 0])
        self.add(L.FORMAT_DESCRIPTION_EVENT, body, flags=fde_flags, fde=True)

    def add(self, type_code, body, when=WHEN, server_id=1, flags=0, fde=False):
        pos = len(self.data)
        size = 19 + len(body) + (4 if (self.crc or fde) else 0)
        event = bytearray(struct.pack("<IBIIIH", when, type_code, server_id, size, pos + size, flags) + body)
        if self.crc or fde:
            event += struct.pack("<I", zlib.crc32(event) if self.crc else 0)
        self.data += event
        return pos

    def bytes(self):
        return bytes(self.data)


def query_body(query, db=b"test", status=b"", thread_id=7):
    return struct.pack("<IIBHH", thread_id, 0, len(db), 0, len(status)) + status + db + b"\0" + query


def gtid_body(sid=SID, gno=1, flags=1, clock=(0, 1), immediate=1700000000123456, original=None,
              length=300, versions=(80040, 80040)):
    body = struct.pack("<B16sq", flags, sid, gno) + struct.pack("<Bqq", 2, *clock)
    original = immediate if original is None else original
    if original != immediate:
        body += (immediate | 1 << 55).to_bytes(7, "little") + original.to_bytes(7, "little")
    else:
        body += immediate.to_bytes(7, "little")
    body += bytes([length]) if length < 251 else b"\xfc" + length.to_bytes(2, "little")
    imm, orig = versions
    if imm != orig:
        body += struct.pack("<II", imm | 1 << 31, orig)
    else:
        body += struct.pack("<I", imm)
    return body


def table_map_body(table_id=70, db=b"test", table=b"t", types=b"\x03", meta=b"", nulls=b"\x01",
                   optional=b""):
    body = table_id.to_bytes(6, "little") + b"\x01\x00"
    body += bytes([len(db)]) + db + b"\0" + bytes([len(table)]) + table + b"\0"
    body += bytes([len(types)]) + types + bytes([len(meta)]) + meta + nulls + optional
    return body


def rows_body(rows, table_id=70, width=1, flags=1, update=False):
    body = table_id.to_bytes(6, "little") + struct.pack("<HH", flags, 2)
    body += bytes([width]) + b"\xff" * ((width + 7) // 8)
    if update:
        body += b"\xff" * ((width + 7) // 8)
    return body + rows


def render(data, *, tz="GMT-3", gtids=None, **opts):
    out = io.BytesIO()
    warnings = []
    path = "/tmp/binlogkit-unit-test-binlog"
    with open(path, "wb") as f:
        f.write(data)
    options = PrintOptions(**opts)
    error = None
    try:
        dump_mysql([path], out, options, ZoneTable.from_tz(tz), gtids or GtidFilter(),
                   warn=warnings.append, error=warnings.append)
    except BinlogError as exc:
        error = exc
    return out.getvalue(), warnings, error


END_MARKS = (b"\n# at ", b"\nBEGIN /*added by mysqlbinlog */", b"\nROLLBACK /* added by mysqlbinlog */",
             b"\nSET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */", b"\nDELIMITER ;\n")


def event_text(output, pos):
    """The lines printed for the event at `pos` (from its '# at' to what follows it)."""
    text = output.split(b"# at %d\n" % pos, 1)[1]
    for mark in END_MARKS:
        text = text.split(mark, 1)[0]
    return text + b"\n"


# -- the envelope (mysqlbinlog.cc main / dump_multiple_logs / end_binlog) ---------------------

def test_envelope_of_an_empty_binlog():
    out, warnings, error = render(Binlog().bytes())
    assert error is None and warnings == []
    assert out.startswith(b"# The proper term is pseudo_replica_mode, but we use this compatibility alias\n"
                          b"# to make the statement usable on server versions 8.0.24 and older.\n"
                          b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n"
                          b"/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;\n"
                          b"DELIMITER /*!*/;\n# at 4\n")
    assert out.endswith(b"'/*!*/;\nSET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;\n"
                        b"DELIMITER ;\n# End of log file\n"
                        b"/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
                        b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")
    # '#YYMMDD %2d:MM:SS server id N  end_log_pos N CRC32 0x%08lx ' in local time (UTC+3)
    assert b"#231115  1:13:20 server id 1  end_log_pos 126 CRC32 0x" in out
    assert b"\tStart: binlog v 4, server v 8.0.40 created 231115  1:13:20 at startup\nROLLBACK/*!*/;\n" in out


def test_gtid_only_transaction_gets_begin_rollback_at_the_end():
    log = Binlog()
    log.add(L.GTID_LOG_EVENT, gtid_body())
    out, _, _ = render(log.bytes())
    assert out.endswith(b"BEGIN /*added by mysqlbinlog */ /*!*/;\nROLLBACK /* added by mysqlbinlog */ /*!*/;\n"
                        b"SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;\n"
                        b"DELIMITER ;\n# End of log file\n/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
                        b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")


# -- GTID events (Gtid_log_event::print, microsecond_timestamp_to_str) ----------------------------

def test_gtid_event_lines_with_commit_timestamps_in_the_zone():
    log = Binlog()
    pos = log.add(L.GTID_LOG_EVENT, gtid_body(flags=0, clock=(5, 6), immediate=1700000000123456,
                                              original=1699999999000001, versions=(80040, 80036)))
    out, _, _ = render(log.bytes(), tz="America/New_York")
    text = event_text(out, pos)
    assert text.split(b"\n", 1)[1] == (
        b"/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*//*!*/;\n"
        b"# original_commit_timestamp=1699999999000001 (2023-11-14 17:13:19.000001 EST)\n"
        b"# immediate_commit_timestamp=1700000000123456 (2023-11-14 17:13:20.123456 EST)\n"
        b"/*!80001 SET @@session.original_commit_timestamp=1699999999000001*//*!*/;\n"
        b"/*!80014 SET @@session.original_server_version=80036*//*!*/;\n"
        b"/*!80014 SET @@session.immediate_server_version=80040*//*!*/;\n"
        b"SET @@SESSION.GTID_NEXT= '" + UUID + b":1'/*!*/;\n")
    assert text.split(b"\n", 1)[0].endswith(
        b"\tGTID\tlast_committed=5\tsequence_number=6\trbr_only=yes\t"
        b"original_committed_timestamp=1699999999000001\timmediate_commit_timestamp=1700000000123456\t"
        b"transaction_length=300")


def test_commit_timestamp_zone_of_a_posix_tz_string():
    """MTR runs mysqlbinlog with TZ=GMT-3: UTC+3, abbreviation GMT."""
    log = Binlog()
    pos = log.add(L.ANONYMOUS_GTID_LOG_EVENT, gtid_body(sid=bytes(16), gno=0))
    out, _, _ = render(log.bytes(), tz="GMT-3")
    text = event_text(out, pos)
    assert b"\tAnonymous_GTID\tlast_committed=0\tsequence_number=1\trbr_only=no\t" in text
    assert b"# immediate_commit_timestamp=1700000000123456 (2023-11-15 01:13:20.123456 GMT)\n" in text
    assert b"READ COMMITTED" not in text
    assert text.endswith(b"SET @@SESSION.GTID_NEXT= 'ANONYMOUS'/*!*/;\n")


def test_mysql_56_gtid_without_logical_clock_or_timestamps():
    log = Binlog(version=b"5.6.41-log")
    pos = log.add(L.GTID_LOG_EVENT, struct.pack("<B16sq", 1, SID, 9))
    out, _, _ = render(log.bytes(), tz="UTC")
    text = event_text(out, pos)
    assert b"\tGTID\tlast_committed=0\tsequence_number=0\trbr_only=no\toriginal_committed_timestamp=0\t" in text
    assert b"# original_commit_timestamp=0 (1970-01-01 00:00:00.000000 UTC)\n" in text
    assert b"/*!80014 SET @@session.original_server_version=0*//*!*/;\n" in text


def _tagged_gtid_body(tag=b"mytag", gno=3):
    def varlen(value):
        size = ((value.bit_length() * 575) >> 12) + 1
        first = ((1 << (size - 1)) - 1) | ((value << size) & 0xFF)
        rest = value >> (8 - size + ((size + 7) >> 4))
        return bytes([first]) + (rest.to_bytes(size - 1, "little") if size > 1 else b"")

    fields = [(0, varlen(1)), (1, b"".join(varlen(b) for b in SID)), (2, varlen(gno << 1)),
              (3, varlen(len(tag)) + tag), (4, varlen(0)), (5, varlen(2)),
              (6, varlen(1700000000123456)), (8, varlen(250)), (9, varlen(90600))]
    payload = varlen(12) + b"".join(varlen(i) + v for i, v in fields)
    size = 1 + len(payload)
    size += len(varlen(size + 2)) - 1
    return varlen(1) + varlen(size + len(varlen(size))) + payload


def test_tagged_gtid_prints_like_mysqlbinlog_84():
    log = Binlog(version=b"9.6.0")
    pos = log.add(L.GTID_TAGGED_LOG_EVENT, _tagged_gtid_body())
    out, _, error = render(log.bytes(), tz="UTC")
    assert error is None
    text = event_text(out, pos)
    assert b"\tGTID\tlast_committed=0\tsequence_number=1\trbr_only=no\t" in text
    assert b"\ttransaction_length=250\n# original_commit_timestamp=1700000000123456 (" in text
    assert b"/*!80014 SET @@session.original_server_version=90600*//*!*/;\n" in text
    assert text.endswith(b"SET @@SESSION.GTID_NEXT= '" + UUID + b":mytag:3'/*!*/;\n")


def test_previous_gtids_set_text_sorted_and_merged():
    other = bytes.fromhex("00000000000000000000000000000001")
    body = struct.pack("<Q", 2)
    body += SID + struct.pack("<Q", 3) + struct.pack("<qqqqqq", 7, 8, 1, 3, 3, 5)   # 7 | 1-2 | 3-4
    body += other + struct.pack("<Q", 1) + struct.pack("<qq", 10, 11)
    log = Binlog()
    pos = log.add(L.PREVIOUS_GTIDS_LOG_EVENT, body, flags=0x80)
    out, _, _ = render(log.bytes())
    assert event_text(out, pos).endswith(
        b"\tPrevious-GTIDs\n# 00000000-0000-0000-0000-000000000001:10,\n# " + UUID + b":1-4:7\n")
    out, _, _ = render(log.bytes(), short_form=True)
    assert b"ROLLBACK/*!*/;\n# 00000000-0000-0000-0000-000000000001:10,\n" in out


def test_previous_gtids_empty_and_tagged():
    log = Binlog(version=b"9.6.0")
    tagged = struct.pack("<Q", (1 << 56) | (1 << 8) | 1)
    tagged += SID + b"\x00" + struct.pack("<Q", 1) + struct.pack("<qq", 1, 14)
    tagged2 = SID + bytes([5 << 1]) + b"mytag" + struct.pack("<Q", 1) + struct.pack("<qq", 1, 3)
    tagged = struct.pack("<Q", (1 << 56) | (2 << 8) | 1) + tagged[8:] + tagged2
    empty = log.add(L.PREVIOUS_GTIDS_LOG_EVENT, struct.pack("<Q", 0))
    pos = log.add(L.PREVIOUS_GTIDS_LOG_EVENT, tagged)
    out, _, error = render(log.bytes())
    assert error is None, error
    assert event_text(out, empty).endswith(b"\tPrevious-GTIDs\n# [empty]\n")
    assert event_text(out, pos).endswith(b"# " + UUID + b":1-13:mytag:1-2\n")


# -- GTID filters (mysqlbinlog.cc shall_skip_gtids) ----------------------------------------------

def _two_transactions():
    log = Binlog()
    positions = []
    for gno in (1, 2):
        positions.append(log.add(L.GTID_LOG_EVENT, gtid_body(gno=gno)))
        log.add(L.QUERY_EVENT, query_body(b"BEGIN"))
        log.add(L.QUERY_EVENT, query_body(b"INSERT INTO t VALUES (%d)" % gno))
        log.add(L.XID_EVENT, struct.pack("<Q", 10 + gno))
    return log.bytes(), positions


def test_gtid_set_text_parsing():
    gtids = GtidSet.parse(" %s:1-3:7 , %s:tag1:4" % (UUID.decode().upper(), UUID.decode()))
    assert gtids.contains(SID, b"", 2) and gtids.contains(SID, b"", 7)
    assert not gtids.contains(SID, b"", 5) and gtids.contains(SID, b"tag1", 4)
    with pytest.raises(ValueError):
        GtidSet.parse("not-a-uuid:1")
    with pytest.raises(BinlogkitError, match="Could not configure --include-gtids 'x:1'"):
        GtidFilter.from_options("x:1", None, False)


def test_exclude_gtids_leaves_the_transaction_out_and_its_positions_behind():
    data, (first, second) = _two_transactions()
    out, _, _ = render(data, gtids=GtidFilter.from_options(None, f"{UUID.decode()}:1", False))
    assert b"INSERT INTO t VALUES (1)" not in out and b"Xid = 11" not in out
    assert b"INSERT INTO t VALUES (2)" in out
    # skipped events leave their '# at' lines in the head cache, printed with the next event
    assert b"# at %d\n# at " % first in out


def test_include_gtids_keeps_only_the_set():
    data, _ = _two_transactions()
    out, _, _ = render(data, gtids=GtidFilter.from_options(f"{UUID.decode()}:1", None, False))
    assert b"INSERT INTO t VALUES (1)" in out and b"INSERT INTO t VALUES (2)" not in out


def test_skip_gtids_prints_no_gtid_statements():
    data, _ = _two_transactions()
    out, _, _ = render(data, gtids=GtidFilter(skip=True))
    assert b"GTID_NEXT= '" + UUID not in out
    assert b"/*!50616 SET @@SESSION.GTID_NEXT='AUTOMATIC'*//*!*/;\n" in out
    assert b"AUTOMATIC' /* added by mysqlbinlog */" not in out
    assert out.count(b"INSERT INTO t VALUES") == 2


# -- Query events (Query_log_event::print_query_header) -----------------------------------------

def test_query_session_variables_and_ddl_xid():
    status = (b"\x00" + struct.pack("<I", 0)                      # Q_FLAGS2
              + b"\x01" + struct.pack("<Q", 0x200)                 # Q_SQL_MODE (a removed mode)
              + b"\x04" + struct.pack("<HHH", 255, 255, 8)         # Q_CHARSET
              + b"\x0d" + (123456).to_bytes(3, "little")           # Q_MICROSECONDS
              + b"\x10\x01"                                        # Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP
              + b"\x11" + struct.pack("<Q", 99)                    # Q_DDL_LOGGED_WITH_XID
              + b"\x12" + struct.pack("<H", 255)                   # Q_DEFAULT_COLLATION_FOR_UTF8MB4
              + b"\x13\x00" + b"\x14\x01")                         # REQUIRE_PRIMARY_KEY, TABLE_ENCRYPTION
    log = Binlog()
    pos = log.add(L.QUERY_EVENT, query_body(b"CREATE TABLE a (i INT)", status=status))
    out, _, _ = render(log.bytes())
    text = event_text(out, pos)
    assert text.split(b"\n")[0].endswith(b"\tQuery\tthread_id=7\texec_time=0\terror_code=0\tXid = 99")
    assert text.split(b"\n", 1)[1] == (
        b"use `test`/*!*/;\n"
        b"SET TIMESTAMP=1700000000.123456/*!*/;\n"
        b"SET @@session.pseudo_thread_id=7/*!*/;\n"
        b"SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, "
        b"@@session.unique_checks=1, @@session.autocommit=1/*!*/;\n"
        b"SET @@session.sql_mode=512/*!80005 &~0x1003ff00*//*!*/;\n"
        b"SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1/*!*/;\n"
        b"/*!\\C utf8mb4 *//*!*/;\n"
        b"SET @@session.character_set_client=255,@@session.collation_connection=255,"
        b"@@session.collation_server=8/*!*/;\n"
        b"SET @@session.lc_time_names=0/*!*/;\n"
        b"SET @@session.collation_database=DEFAULT/*!*/;\n"
        b"SET @@session.explicit_defaults_for_timestamp=1/*!*/;\n"
        b"/*!80011 SET @@session.default_collation_for_utf8mb4=255*//*!*/;\n"
        b"/*!80013 SET @@session.sql_require_primary_key=0*//*!*/;\n"
        b"/*!80016 SET @@session.default_table_encryption=1*//*!*/;\n"
        b"CREATE TABLE a (i INT)\n/*!*/;\n")


def test_intvar_rand_user_var_wait_for_their_query():
    log = Binlog()
    p1 = log.add(L.INTVAR_EVENT, struct.pack("<BQ", 2, 5))
    p2 = log.add(L.USER_VAR_EVENT, struct.pack("<I", 1) + b"a" + b"\x00\x00" + struct.pack("<II", 8, 2)
                 + b"hi" + b"\x00")
    p3 = log.add(L.QUERY_EVENT, query_body(b"INSERT INTO t VALUES (@a)"))
    out, _, _ = render(log.bytes())
    block = out.split(b"# at %d\n" % p1, 1)[1]
    assert block.startswith(b"# at %d\n# at %d\n#" % (p2, p3))
    assert b"\tIntvar\nSET INSERT_ID=5/*!*/;\n" in block
    assert b"\tUser_var\nSET @`a`:=_latin1 0x6869 COLLATE `latin1_swedish_ci`/*!*/;\n" in block


def test_invalid_query_event_is_a_read_error_after_the_postamble():
    log = Binlog()
    pos = log.add(L.QUERY_EVENT, struct.pack("<IIBHH", 1, 0, 0, 0, 9999) + b"\0x")
    out, _, error = render(log.bytes())
    assert error is not None and error.offset == pos
    assert str(error).endswith(f"Could not read entry at offset {pos}: Error in log format or read "
                               "error 1. Found invalid event in binary log")
    assert out.endswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")


def test_bad_magic_and_encrypted_logs():
    out, _, error = render(b"\xfdbin" + b"\0" * 40)
    assert "Reading encrypted log files directly is not supported." in str(error)
    assert b"DELIMITER ;\n# End of log file\n" in out
    _, _, error = render(b"GIF89a")
    assert "Binlog has bad magic number;  It's not a binary log file that can be used" in str(error)
    _, _, error = render(b"\xfe")
    assert "I/O error reading the header from the binary log" in str(error)


# -- rows (Rows_log_event::print_helper, print_verbose, log_event_print_value) ----------------------

def _rows_log(types, meta, row, nulls=b"\xff", optional=b"", update_row=None):
    log = Binlog()
    width = len(types)
    log.add(L.TABLE_MAP_EVENT, table_map_body(types=types, meta=meta, nulls=nulls, optional=optional))
    if update_row is None:
        pos = log.add(L.WRITE_ROWS_EVENT, rows_body(row, width=width))
    else:
        pos = log.add(L.UPDATE_ROWS_EVENT, rows_body(row + update_row, width=width, update=True))
    return log.bytes(), pos


def test_rows_event_base64_and_verbose_statement():
    data, pos = _rows_log(b"\x03", b"", b"\x00" + struct.pack("<i", -5))
    out, _, _ = render(data, verbose=2)
    text = event_text(out, pos)
    assert text.split(b"\n")[0].endswith(b"\tWrite_rows: table id 70 flags: STMT_END_F")
    assert b"\nBINLOG '\n" in text and b"\n'/*!*/;\n" in text
    assert text.endswith(b"### INSERT INTO `test`.`t`\n### SET\n"
                         b"###   @1=-5 (4294967291) /* INT meta=0 nullable=1 is_null=0 */\n")
    out, _, _ = render(data, verbose=1, base64_output="decode-rows")
    assert event_text(out, pos).endswith(b"flags: STMT_END_F\n### INSERT INTO `test`.`t`\n### SET\n"
                                         b"###   @1=-5 (4294967291)\n")


def _value(col_type, meta, data):
    out = []
    typestr, size = print_value(out, data, 0, col_type, meta, b"@1", False, 0, jsontext)
    return b"".join(out), typestr, size


@pytest.mark.parametrize("col_type, meta, data, text, typestr", [
    (1, 0, b"\xff", b"-1 (255)", b"TINYINT"),
    (2, 0, struct.pack("<h", -2), b"-2 (65534)", b"SHORTINT"),
    (8, 0, struct.pack("<q", -1), b"-1 (18446744073709551615)", b"LONGINT"),
    (13, 0, b"\x00", b"1900", b"YEAR"),
    (14, 0, (2024 << 9 | 2 << 5 | 29).to_bytes(3, "little"), b"'2024:02:29'", b"DATE"),
    (11, 0, (123456).to_bytes(3, "little"), b"'12:34:56'", b"TIME"),
    (12, 0, struct.pack("<Q", 20240229123456), b"2024-02-29 12:34:56", b"DATETIME"),
    (7, 0, struct.pack("<I", 1700000000), b"1700000000", b"TIMESTAMP"),
    (17, 3, struct.pack(">I", 1700000000) + (123).to_bytes(2, "big"), b"1700000000.012", b"TIMESTAMP(3)"),
    (16, 0x0105, b"\x01\x15", b"b'0000100010101'", b"BIT(13)"),
    (248, 0xF802, b"\x05\x01", b"b'0000010100000001'", b"SET(2 bytes)"),
    (247, 0xF701, b"\x02", b"2", b"ENUM(1 byte)"),
    (4, 4, struct.pack("<f", 1.5), b"1.5                 ", b"FLOAT"),
    (5, 8, struct.pack("<d", 0.1), b"0.10000000000000000555", b"DOUBLE"),
    (15, 10, b"\x04a'\tb", b"'a\\'\\tb'", b"VARSTRING(10)"),
    (254, 0xFE14, b"\x02\x01\x0c", b"'\\x01\\f'", b"STRING(20)"),
    (252, 2, b"\x03\x00\\\x08\x1f", b"'\\\\\\b\\x1f'", b"BLOB/TEXT"),
])
def test_value_text(col_type, meta, data, text, typestr):
    assert _value(col_type, meta, data)[:2] == (text, typestr)


def test_time2_and_datetime2_values():
    # TIME(2) -838:59:59.99 and DATETIME(6) 2024-02-29 23:59:58.123456 (my_time_packed_to_binary)
    hms = 838 << 12 | 59 << 6 | 59
    packed = -((hms << 24) + 990000)
    intpart = packed >> 24                                   # C: arithmetic shift
    frac = -(-packed % (1 << 24))                            # C: remainder keeps the sign
    data = (intpart + 0x800000).to_bytes(3, "big") + bytes([int(frac / 10000) & 0xFF])
    assert _value(19, 2, data)[:2] == (b"'-838:59:59.99'", b"TIME(2)")
    ymd = ((2024 * 13 + 2) << 5) | 29
    hms = 23 << 12 | 58 << 6 | 59
    data = (((ymd << 17) | hms) + 0x8000000000).to_bytes(5, "big") + (123456).to_bytes(3, "big")
    assert _value(18, 6, data)[:2] == (b"'2024-02-29 23:58:59.123456'", b"DATETIME(6)")


def test_unknown_column_type_stops_the_row():
    data, pos = _rows_log(b"\xff\x03", b"\x04", b"\x00\x01\x00\x00\x00\x00\x00\x00\x00")
    out, _, _ = render(data, verbose=1)
    assert event_text(out, pos).endswith(
        b"### INSERT INTO `test`.`t`\n### SET\n###   @1=!! Don't know how to handle column type=255 "
        b"meta=4 (0004)\n")


def test_write_quoted_and_bits():
    assert write_quoted(b"it's\\\n") == b"'it\\'s\\\\\\n'"
    assert write_bits(b"\x05", 3) == b"b'101'"


# -- JSON (json_wrapper_to_string, print_json_diff) ---------------------------------------------------

def json_object(pairs):
    """A small binary JSON object of (key, int16) pairs."""
    count = len(pairs)
    header = 4 + count * 4 + count * 3
    keys = b"".join(k for k, _ in pairs)
    size = header + len(keys)
    out = struct.pack("<HH", count, size)
    offset = header
    for key, _ in pairs:
        out += struct.pack("<HH", offset, len(key))
        offset += len(key)
    for _, value in pairs:
        out += b"\x05" + struct.pack("<h", value)
    return b"\x00" + out + keys


def test_json_column_text():
    assert jsontext.column(json_object([(b"a", 1), (b"b", -2)])) == b"'{\"a\": 1, \"b\": -2}'"
    assert jsontext.column(b"\x0c\x03it'") == b"'it\\''"      # a string document prints unquoted
    assert jsontext.column(b"\x0b" + struct.pack("<d", 2.0)) == b"'2.0'"
    assert jsontext.column(b"\x63") == b"Invalid JSON\n"


def _diff(op, path, value=None):
    out = bytes([op]) + bytes([len(path)]) + path
    if op != 2:
        out += bytes([len(value)]) + value
    return out


def test_json_diff_calls_grouped_like_print_json_diff():
    data = (_diff(0, b"$.a", b"\x05\x07\x00") + _diff(0, b"$.b", b"\x0c\x01x")
            + _diff(1, b"$.c[1]", json_object([(b"k", 1)])) + _diff(2, b"$.d"))
    sep = b"\n###      "
    assert jsontext.diff(data, b"@2") == (
        b"JSON_REMOVE(" + sep + b"JSON_ARRAY_INSERT(" + sep + b"JSON_REPLACE(@2, '$.a', 7," + sep
        + b"'$.b', 'x')," + sep + b"'$.c[1]', CAST('{\"k\": 1}' AS JSON))," + sep + b"'$.d')")
    assert jsontext.diff(b"\x09", b"@1") == (
        b"Error reading operation type (invalid operation code) while printing JSON diff\n")


# -- Transaction_payload (mysqlbinlog.cc Transaction_payload_log_event::print) -----------------------

def _inner(type_code, body, when=WHEN):
    size = 19 + len(body)
    return struct.pack("<IBIIIH", when, type_code, 1, size, 0, 0) + body


def test_compressed_transaction_prints_its_events_at_the_payload_position():
    zstandard = pytest.importorskip("zstandard")
    inner = (_inner(L.QUERY_EVENT, query_body(b"BEGIN"))
             + _inner(L.TABLE_MAP_EVENT, table_map_body())
             + _inner(L.WRITE_ROWS_EVENT, rows_body(b"\x00\x2a\x00\x00\x00"))
             + _inner(L.XID_EVENT, struct.pack("<Q", 77)))
    compressed = zstandard.ZstdCompressor().compress(inner)
    header = (b"\x01" + bytes([1]) + bytes([len(compressed)]) + b"\x02\x01\x00"
              + b"\x03" + bytes([1]) + bytes([len(inner)]) + b"\x00")
    log = Binlog()
    log.add(L.ANONYMOUS_GTID_LOG_EVENT, gtid_body(sid=bytes(16), gno=0))
    pos = log.add(L.TRANSACTION_PAYLOAD_EVENT, header + compressed)
    end = len(log.data)
    out, warnings, error = render(log.bytes(), verbose=1, base64_output="decode-rows")
    assert error is None and warnings == []
    text = out.split(b"# at %d\n" % pos, 1)[1]
    assert text.split(b"\n")[0].endswith(
        b"\tTransaction_Payload\t\tpayload_size=%d\tcompression_type=ZSTD\tuncompressed_size=%d"
        % (len(compressed), len(inner)))
    assert text.split(b"\n")[1] == b"# Start of compressed events."
    assert text.count(b"# at %d\n" % end) == 4
    assert text.count(b"server id 1  end_log_pos %d CRC32 0x" % end) == 5
    assert b"\tXid = 77\nCOMMIT/*!*/;\n# End of compressed events.\n" in text
    assert b"### INSERT INTO `test`.`t`\n### SET\n###   @1=42\n" in text


# -- --print-table-metadata (Table_map_log_event::print_columns / print_primary_key) ----------------

def _metadata(*fields):
    return b"".join(bytes([kind, len(value)]) + value for kind, value in fields)


def test_table_metadata_columns_and_primary_key():
    types = bytes([3, 13, 15, 254, 254])
    meta = struct.pack("<H", 40) + bytes([254, 20]) + bytes([247, 1])
    names = b"".join(bytes([len(n)]) + n for n in (b"id", b"y", b"name", b"code", b"e"))
    optional = _metadata(
        (1, b"\xc0"),                                  # SIGNEDNESS: id, y unsigned (YEAR ignored)
        (2, b"\xfc\xff\x00" + bytes([1, 8])),          # DEFAULT_CHARSET 255; 2nd char column latin1
        (4, names),
        (6, bytes([2, 1]) + b"x" + bytes([2]) + b"y'"),   # ENUM_STR_VALUE
        (10, bytes([33])),                             # ENUM_AND_SET_DEFAULT_CHARSET utf8mb3
        (9, bytes([0, 0, 2, 4])),                      # PRIMARY_KEY_WITH_PREFIX id, name(4)
        (12, b"\xf8"),                                 # COLUMN_VISIBILITY: all five visible
    )
    log = Binlog()
    pos = log.add(L.TABLE_MAP_EVENT, table_map_body(types=types, meta=meta, nulls=b"\x1e",
                                                    optional=optional))
    out, _, _ = render(log.bytes(), print_table_metadata=True)
    assert event_text(out, pos).split(b"\n", 1)[1] == (
        b"# Columns(`id` INT UNSIGNED NOT NULL,\n"
        b"#         `y` YEAR,\n"
        b"#         `name` VARCHAR(10) CHARSET utf8mb4 COLLATE utf8mb4_0900_ai_ci,\n"
        b"#         `code` CHAR(20) CHARSET latin1 COLLATE latin1_swedish_ci,\n"
        b"#         `e` ENUM('x', 'y\\'') CHARSET utf8mb3 COLLATE utf8mb3_general_ci)\n"
        b"# Primary Key(id, name(4))\n")      # the BINLOG text waits for a rows event


# -- --hexdump (Log_event::print_header) ----------------------------------------------------------------

def test_hexdump_of_a_short_event():
    log = Binlog()
    pos = log.add(L.STOP_EVENT, b"")
    out, _, _ = render(log.bytes(), hexdump=True, tz="UTC")
    text = event_text(out, pos)
    crc = text.split(b"CRC32 0x", 1)[1][:8]
    crc_bytes = b" ".join(b"%02x" % b for b in struct.pack("<I", int(crc, 16)))
    assert text.split(b"\n")[1:] == [
        b"# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags ",
        b"# %08x 00 f1 53 65   03   01 00 00 00   17 00 00 00   %s   00 00"
        % (pos, b" ".join(b"%02x" % b for b in struct.pack("<I", pos + 23))),
        b"# %08x %-48s |%s|" % (pos + 19, crc_bytes + b" ", bytes(c if chr(c).isalnum() and c < 128 else 46
                                                                  for c in struct.pack("<I", int(crc, 16)))),
        b"# \tStop", b""]


# -- flavor selection (binlogkit/printer/flavor.py, command.py) --------------------------------------

def _cli(args, stdin=None):
    import os
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args], input=stdin,
                          capture_output=True, env=dict(os.environ, TZ="UTC"))
    return proc.returncode, proc.stdout, proc.stderr.decode()


def test_flavor_comes_from_the_format_description_event(tmp_path):
    from binlogkit.printer.flavor import flavor_of
    mysql = Binlog().bytes()
    mariadb = Binlog(version=b"10.11.6-MariaDB-log").bytes()
    assert flavor_of(mysql) == "mysql" and flavor_of(mariadb) == "mariadb"
    assert flavor_of(b"\xfebin") is None and flavor_of(b"junk") is None
    (tmp_path / "mysql.bin").write_bytes(mysql)
    code, out, err = _cli([str(tmp_path / "mysql.bin")])
    assert code == 0 and out.startswith(b"# The proper term is pseudo_replica_mode"), err
    code, out, err = _cli(["-"], stdin=mysql)            # standard input is peeked, then read whole
    assert code == 0 and out.startswith(b"# The proper term is pseudo_replica_mode"), err
    assert b"\tStart: binlog v 4, server v 8.0.40 created" in out
    code, out, err = _cli(["--flavor=mariadb", str(tmp_path / "mysql.bin")])
    assert out.startswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n/*!40019")


def test_gtid_options_need_the_mysql_flavor_and_a_valid_set(tmp_path):
    (tmp_path / "mariadb.bin").write_bytes(Binlog(version=b"10.11.6-MariaDB-log").bytes())
    code, out, err = _cli(["--skip-gtids", str(tmp_path / "mariadb.bin")])
    assert code == 1 and "need the MySQL flavor" in err and out == b""
    (tmp_path / "mysql.bin").write_bytes(Binlog().bytes())
    code, out, err = _cli(["--include-gtids=nonsense", str(tmp_path / "mysql.bin")])
    assert code == 1 and out == b"" and err == "ERROR: Could not configure --include-gtids 'nonsense'\n"
    code, out, err = _cli(["--stop-position=100", "-"], stdin=Binlog().bytes())
    assert code == 1 and out == b"" and "stop_position not allowed when input is STDIN" in err
