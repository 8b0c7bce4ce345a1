"""-v / -vv row printing: value decoding and text, and the recorded real-tool cases."""
import struct
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from binlogkit.binlog import rows as R
from binlogkit.binlog.rows import RowsBody, TableMapBody
from binlogkit.binlog.rowvalues import (
    ABSENT, Bits, CorruptRowError, Date, DateTime, Time, Timestamp, UnsupportedTypeError,
    decode_value, iter_rows,
)
from binlogkit.printer.mariadb.rows_verbose import print_verbose
from binlogkit.printer.mariadb.values import format_value, type_string

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402


def text(col_type, meta, data):
    value, size = decode_value(col_type, meta, data, 0)
    assert size == len(data)
    return format_value(col_type, meta, value)


# -- integers ----------------------------------------------------------------------

@pytest.mark.parametrize("col_type,fmt,value,expected", [
    (R.MYSQL_TYPE_TINY, "<b", -128, b"-128 (128)"),
    (R.MYSQL_TYPE_TINY, "<B", 255, b"-1 (255)"),
    (R.MYSQL_TYPE_TINY, "<b", 127, b"127"),
    (R.MYSQL_TYPE_SHORT, "<h", -32768, b"-32768 (32768)"),
    (R.MYSQL_TYPE_LONG, "<i", -2147483648, b"-2147483648 (2147483648)"),
    (R.MYSQL_TYPE_LONG, "<i", 2147483647, b"2147483647"),
    (R.MYSQL_TYPE_LONGLONG, "<q", -1, b"-1 (18446744073709551615)"),
    (R.MYSQL_TYPE_LONGLONG, "<q", -(1 << 63), b"-9223372036854775808 (9223372036854775808)"),
    (R.MYSQL_TYPE_LONGLONG, "<Q", (1 << 63) - 1, b"9223372036854775807"),
])
def test_integers(col_type, fmt, value, expected):
    assert text(col_type, 0, struct.pack(fmt, value)) == expected


def test_int24():
    assert text(R.MYSQL_TYPE_INT24, 0, b"\x00\x00\x80") == b"-8388608 (8388608)"
    assert text(R.MYSQL_TYPE_INT24, 0, b"\xff\xff\x7f") == b"8388607"
    assert decode_value(R.MYSQL_TYPE_INT24, 0, b"\xff\xff\xff")[0] == -1


# -- DECIMAL ---------------------------------------------------------------------------

def test_decimal_values():
    # DECIMAL(10,2) 0.50: intg 8 -> 4 bytes, frac 2 -> 1 byte; positive sets the top bit
    data = bytes([0x80, 0, 0, 0, 50])
    assert decode_value(R.MYSQL_TYPE_NEWDECIMAL, (10 << 8) | 2, data, 0) == (Decimal("0.50"), 5)
    assert text(R.MYSQL_TYPE_NEWDECIMAL, (10 << 8) | 2, data) == b"0.50"
    neg = bytes(b ^ 0xFF for b in bytes([0x80, 0, 0, 0, 1]))   # -0.01
    assert text(R.MYSQL_TYPE_NEWDECIMAL, (10 << 8) | 2, neg) == b"-0.01"
    # DECIMAL(5,0) 99999: 3 bytes
    assert text(R.MYSQL_TYPE_NEWDECIMAL, 5 << 8, (0x800000 | 99999).to_bytes(3, "big")) == b"99999"
    # DECIMAL(18,9) 123456789.123456789
    d = (0x80000000 | 123456789).to_bytes(4, "big") + (123456789).to_bytes(4, "big")
    assert text(R.MYSQL_TYPE_NEWDECIMAL, (18 << 8) | 9, d) == b"123456789.123456789"
    # DECIMAL(18,9) 0.000000001 stays fixed-point (no exponent)
    d = (0x80000000).to_bytes(4, "big") + (1).to_bytes(4, "big")
    assert text(R.MYSQL_TYPE_NEWDECIMAL, (18 << 8) | 9, d) == b"0.000000001"
    assert type_string(R.MYSQL_TYPE_NEWDECIMAL, (65 << 8) | 30) == b"DECIMAL(65,30)"


# -- FLOAT / DOUBLE ---------------------------------------------------------------------

def test_float_is_left_justified_20():
    assert text(R.MYSQL_TYPE_FLOAT, 4, struct.pack("<f", 0.0)) == b"0" + b" " * 19
    assert text(R.MYSQL_TYPE_FLOAT, 4, struct.pack("<f", -1.5e-10)) == b"-1.5e-10".ljust(20)
    assert text(R.MYSQL_TYPE_FLOAT, 4, struct.pack("<f", 3.4e38)) == b"3.4e+38".ljust(20)
    assert text(R.MYSQL_TYPE_FLOAT, 4, struct.pack("<f", float("inf"))) == b"inf".ljust(20)
    assert text(R.MYSQL_TYPE_FLOAT, 4, b"\x00\x00\xc0\xff") == b"-nan".ljust(20)


def test_double_20_digits():
    assert text(R.MYSQL_TYPE_DOUBLE, 8, struct.pack("<d", -1.7976931348623157e308)) == \
        b"-1.7976931348623157081e+308"
    assert text(R.MYSQL_TYPE_DOUBLE, 8, struct.pack("<d", 1e-300)) == b"1.0000000000000000251e-300"
    assert text(R.MYSQL_TYPE_DOUBLE, 8, struct.pack("<d", 0.0)) == b"0"
    assert text(R.MYSQL_TYPE_DOUBLE, 8, struct.pack("<d", 0.1)) == b"0.10000000000000000555"


# -- BIT, SET, ENUM, YEAR ------------------------------------------------------------------

def test_bits():
    assert decode_value(R.MYSQL_TYPE_BIT, 1, b"\x01", 0) == (Bits(1, 1), 1)
    assert text(R.MYSQL_TYPE_BIT, 1, b"\x01") == b"b'1'"
    assert text(R.MYSQL_TYPE_BIT, 261, b"\x15\x55") == b"b'1010101010101'"   # BIT(13)
    assert text(R.MYSQL_TYPE_BIT, 2048, b"\xff" * 8) == b"b'" + b"1" * 64 + b"'"
    assert type_string(R.MYSQL_TYPE_BIT, 261) == b"BIT(13)"
    assert text(R.MYSQL_TYPE_BIT, 0x100, b"\x05") == b"b'00000101'"          # BIT(8)


def test_set_enum_year():
    set_meta = (R.MYSQL_TYPE_SET << 8) | 2
    assert decode_value(R.MYSQL_TYPE_STRING, set_meta, b"\x05\x01", 0) == (0x105, 2)
    # the bytes are printed in storage order, most significant bit first
    assert text(R.MYSQL_TYPE_STRING, set_meta, b"\x05\x01") == b"b'0000010100000001'"
    assert type_string(R.MYSQL_TYPE_STRING, set_meta) == b"SET(2 bytes)"
    enum_meta = (R.MYSQL_TYPE_ENUM << 8) | 1
    assert text(R.MYSQL_TYPE_STRING, enum_meta, b"\x03") == b"3"
    assert type_string(R.MYSQL_TYPE_STRING, enum_meta) == b"ENUM(1 byte)"
    assert type_string(R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_ENUM << 8) | 2) == b"ENUM(2 bytes)"
    assert text(R.MYSQL_TYPE_YEAR, 0, b"\x00") == b"1900"       # YEAR 0000 prints as 1900
    assert text(R.MYSQL_TYPE_YEAR, 0, b"\xff") == b"2155"
    assert decode_value(R.MYSQL_TYPE_YEAR, 0, b"\x46", 0) == (1970, 1)


# -- dates and times -------------------------------------------------------------------

def test_date_including_zero_parts():
    def enc(y, m, d):
        return ((y << 9) | (m << 5) | d).to_bytes(3, "little")
    assert decode_value(R.MYSQL_TYPE_DATE, 0, enc(0, 0, 0), 0) == (Date(0, 0, 0), 3)
    assert text(R.MYSQL_TYPE_DATE, 0, enc(0, 0, 0)) == b"'0000:00:00'"
    assert text(R.MYSQL_TYPE_DATE, 0, enc(2024, 0, 15)) == b"'2024:00:15'"
    assert text(R.MYSQL_TYPE_NEWDATE, 0, enc(9999, 12, 31)) == b"'9999:12:31'"
    assert Date(0, 0, 0).to_python() is None


def _time2(neg, h, m, s, usec, fsp):
    hms = (h << 12) | (m << 6) | s
    packed = (hms << 24) + usec
    if neg:
        packed = -packed
    if fsp in (5, 6):
        return (packed + 0x800000000000).to_bytes(6, "big")
    # as the server's my_time_packed_to_binary: floor for the integer part,
    # C remainder (sign of the value) for the fraction, stored two's-complement
    intpart = packed >> 24
    frac = abs(packed) % (1 << 24) * (-1 if packed < 0 else 1)
    nb = (fsp + 1) // 2
    if nb == 0:
        return (intpart + 0x800000).to_bytes(3, "big")
    unit = 10000 if nb == 1 else 100
    fr = int(frac / unit)
    return (intpart + 0x800000).to_bytes(3, "big") + (fr % (1 << (8 * nb))).to_bytes(nb, "big")


@pytest.mark.parametrize("neg,h,m,s,usec,fsp,expected", [
    (False, 0, 0, 0, 0, 0, b"'00:00:00'"),
    (False, 838, 59, 59, 0, 0, b"'838:59:59'"),
    (True, 838, 59, 59, 0, 0, b"'-838:59:59'"),
    (True, 0, 0, 1, 500000, 6, b"'-00:00:01.500000'"),
    (True, 0, 0, 1, 500000, 1, b"'-00:00:01.5'"),
    (True, 1, 2, 3, 450000, 2, b"'-01:02:03.45'"),
    (True, 0, 0, 0, 123400, 4, b"'-00:00:00.1234'"),
    (False, 12, 34, 56, 789000, 3, b"'12:34:56.789'"),
])
def test_time2(neg, h, m, s, usec, fsp, expected):
    data = _time2(neg, h, m, s, usec, fsp)
    value, size = decode_value(R.MYSQL_TYPE_TIME2, fsp, data, 0)
    assert size == len(data)
    assert value == Time(neg, h, m, s, usec, fsp)
    assert format_value(R.MYSQL_TYPE_TIME2, fsp, value) == expected


def test_old_time_and_datetime():
    assert text(R.MYSQL_TYPE_TIME, 0, (-8385959).to_bytes(3, "little", signed=True)) == b"'-838:59:59'"
    assert text(R.MYSQL_TYPE_DATETIME, 0, (20240310023000).to_bytes(8, "little")) == \
        b"'2024-03-10 02:30:00'"
    assert text(R.MYSQL_TYPE_DATETIME, 0, bytes(8)) == b"'0000-00-00 00:00:00'"
    assert type_string(R.MYSQL_TYPE_DATETIME, 0) == b"DATETIME"


def _dt2(y, mo, d, h, mi, s, usec, fsp):
    ym = y * 13 + mo
    intpart = (((ym << 5) | d) << 17) | (h << 12) | (mi << 6) | s
    out = (intpart + 0x8000000000).to_bytes(5, "big")
    nb = (fsp + 1) // 2
    if nb:
        out += (usec // (10000, 100, 1)[nb - 1]).to_bytes(nb, "big")
    return out


@pytest.mark.parametrize("parts,fsp,expected", [
    ((0, 0, 0, 0, 0, 0, 0), 0, b"'0000-00-00 00:00:00'"),
    ((0, 0, 0, 0, 0, 0, 0), 6, b"'0000-00-00 00:00:00.000000'"),
    ((1000, 1, 1, 0, 0, 0, 1), 6, b"'1000-01-01 00:00:00.000001'"),
    ((2024, 3, 10, 2, 30, 0, 123000), 3, b"'2024-03-10 02:30:00.123'"),
    ((2024, 2, 0, 10, 0, 0, 0), 0, b"'2024-02-00 10:00:00'"),
    ((9999, 12, 31, 23, 59, 59, 990000), 2, b"'9999-12-31 23:59:59.99'"),
])
def test_datetime2(parts, fsp, expected):
    data = _dt2(*parts, fsp)
    value, size = decode_value(R.MYSQL_TYPE_DATETIME2, fsp, data, 0)
    assert size == len(data) and value == DateTime(*parts, fsp)
    assert format_value(R.MYSQL_TYPE_DATETIME2, fsp, value) == expected
    assert type_string(R.MYSQL_TYPE_DATETIME2, fsp) == b"DATETIME(%d)" % fsp


def test_timestamps():
    assert text(R.MYSQL_TYPE_TIMESTAMP2, 0, (2147483647).to_bytes(4, "big")) == b"2147483647"
    assert text(R.MYSQL_TYPE_TIMESTAMP2, 6, (1).to_bytes(4, "big") + (1).to_bytes(3, "big")) == b"1.000001"
    assert text(R.MYSQL_TYPE_TIMESTAMP2, 3, (5).to_bytes(4, "big") + (120).to_bytes(2, "big")) == b"5.012"
    assert decode_value(R.MYSQL_TYPE_TIMESTAMP2, 1, b"\0\0\0\x07\x05", 0) == (Timestamp(7, 50000, 1), 5)
    # the old TIMESTAMP is printed with %d: past 2038 it goes negative
    assert text(R.MYSQL_TYPE_TIMESTAMP, 0, (1 << 31).to_bytes(4, "little")) == b"-2147483648"
    assert type_string(R.MYSQL_TYPE_TIMESTAMP2, 6) == b"TIMESTAMP(6)"


# -- strings ---------------------------------------------------------------------------------

def test_strings_quoting():
    s = "varchar 'quoted' \\ back".encode()
    assert text(R.MYSQL_TYPE_VARCHAR, 1200, len(s).to_bytes(2, "little") + s) == \
        b"'varchar 'quoted' \\ back'"        # only bytes < 0x20 are escaped
    assert text(R.MYSQL_TYPE_VARCHAR, 20, b"\x04\x00\xff\x1f\x7f") == b"'\\x00\xff\\x1f\x7f'"
    emoji = "\U0001F600é".encode()
    assert text(R.MYSQL_TYPE_VARCHAR, 400, len(emoji).to_bytes(2, "little") + emoji) == \
        b"'" + emoji + b"'"
    assert type_string(R.MYSQL_TYPE_VARCHAR, 400) == b"VARSTRING(400)"
    assert text(R.MYSQL_TYPE_STRING, 0xFE04, b"\x02\x01\x02") == b"'\\x01\\x02'"
    assert type_string(R.MYSQL_TYPE_STRING, 0xFE28) == b"STRING(40)"
    # CHAR(300) in utf8: the length's high bits hide in the type byte
    meta = ((0xFE ^ 0x10) << 8) | (1200 & 0xFF)
    assert type_string(R.MYSQL_TYPE_STRING, meta) == b"STRING(%d)" % (1200 & 0xFF | 0x100)
    assert text(R.MYSQL_TYPE_STRING, meta, b"\x03\x00abc") == b"'abc'"


def test_blobs_and_geometry():
    assert text(R.MYSQL_TYPE_BLOB, 1, b"\x02\n'") == b"'\\x0a''"
    assert text(R.MYSQL_TYPE_BLOB, 2, b"\x01\x00\\") == b"'\\'"
    assert text(R.MYSQL_TYPE_BLOB, 3, b"\x00\x00\x00") == b"''"
    assert text(R.MYSQL_TYPE_BLOB, 4, b"\x01\x00\x00\x00x") == b"'x'"
    assert [type_string(R.MYSQL_TYPE_BLOB, m) for m in (1, 2, 3, 4)] == [
        b"TINYBLOB/TINYTEXT", b"BLOB/TEXT", b"MEDIUMBLOB/MEDIUMTEXT", b"LONGBLOB/LONGTEXT"]
    assert text(R.MYSQL_TYPE_GEOMETRY, 4, b"\x02\x00\x00\x00\x00\x01") == b"'\\x00\\x01'"


# -- row images and whole events ------------------------------------------------------------

def _table(types, metas, nullable=None):
    n = len(types)
    bits = nullable if nullable is not None else (1 << n) - 1
    return TableMapBody(7, 0, b"db", b"t`x", bytes(types), list(metas),
                        bits.to_bytes((n + 7) // 8, "little"), b"")


def test_iter_rows_and_absent_columns():
    tm = _table([R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_TINY], [0, 20, 0])
    # update: before image has cols 0,1; after image has cols 0,2 (col 2 NULL)
    before = b"\x00" + struct.pack("<i", -5) + b"\x02hi"
    after = b"\x02" + struct.pack("<i", 6)
    body = RowsBody(7, R.L.STMT_END_F, "update", 3, b"\x03", b"\x05", before + after)
    rows = list(iter_rows(tm, body))
    assert rows == [([-5, b"hi", ABSENT], [6, ABSENT, None])]
    res = print_verbose(tm, body, 2)
    assert res.error is None and res.rows == 1
    assert res.text == (
        b"### UPDATE `db`.`t``x`\n### WHERE\n"
        b"###   @1=-5 (4294967291) /* INT meta=0 nullable=1 is_null=0 */\n"
        b"###   @2='hi' /* VARSTRING(20) meta=20 nullable=1 is_null=0 */\n"
        b"### SET\n"
        b"###   @1=6 /* INT meta=0 nullable=1 is_null=0 */\n"
        b"###   @3=NULL /* TINYINT meta=0 nullable=1 is_null=1 */\n")
    assert print_verbose(tm, body, 1).text.count(b"/*") == 0


def test_unknown_table_empty_insert_and_corruption():
    body = RowsBody(42, 0, "delete", 1, b"\x01", b"\x01", b"\x00\x01")
    res = print_verbose(None, body, 1)
    assert res.text == b"### Row event for unknown table #42" and res.rows == 0
    tm = _table([R.MYSQL_TYPE_LONG], [0], nullable=0)
    empty = RowsBody(7, 0, "write", 1, b"\x01", b"\x01", b"")
    assert print_verbose(tm, empty, 2).text == b"### INSERT INTO `db`.`t``x` VALUES ()\n"
    bad = RowsBody(7, 0, "write", 1, b"\x01", b"\x01", b"\x00\x01\x02")
    res = print_verbose(tm, bad, 2)
    assert res.text == (b"### INSERT INTO `db`.`t``x`\n### SET\n###   @1="
                        b"***Corrupted replication event was detected. Not printing the value***\n")
    assert res.rows == 1 and isinstance(res.error, CorruptRowError)
    with pytest.raises(CorruptRowError):
        list(iter_rows(tm, bad))


# -- the recorded real-tool outputs ----------------------------------------------------------

_MANIFEST = oracle.load_manifest()
# Differences in these cases come from other parts of the printer, not from the row text
# (checked separately below, line by line, for every case).
NOT_EXACT = {
    # bench/explore_findings.md (bench/explore_mariadb.py findings)
}
# (set, case) pairs whose non-row text still differs
NOT_EXACT_IN_SET = {
}


def _verbose_cases():
    for case in _MANIFEST["cases"]:
        if any(a in ("-v", "-vv") for a in case["args"]):
            marks = []
            reason = NOT_EXACT.get(case["case"]) or NOT_EXACT_IN_SET.get((case["set"], case["case"]))
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            yield pytest.param(case, id=oracle.case_id(case), marks=marks)


@pytest.mark.parametrize("case", list(_verbose_cases()))
def test_verbose_case_byte_exact(case, tmp_path):
    oracle.check_case(case, tmp_path, _MANIFEST)


def _rows_lines(data):
    return [line for line in data.split(b"\n") if line.startswith(b"###")]


@pytest.mark.parametrize("case", [c for c in _MANIFEST["cases"]
                                  if any(a in ("-v", "-vv") for a in c["args"])
                                  and c["case"] not in NOT_EXACT],
                         ids=oracle.case_id)
def test_verbose_row_lines_exact(case, tmp_path):
    """Every `###` line, in order, byte for byte (independent of the rest of the printer)."""
    stdout, _, _, _ = oracle.run_case(case, tmp_path)
    expected = _rows_lines((oracle.ROOT / case["stdout"]).read_bytes())
    actual = _rows_lines(stdout)
    assert actual == expected, oracle.diff_text(b"\n".join(expected), b"\n".join(actual),
                                                oracle.case_id(case))


# -- values the real tool cannot print ---------------------------------------------------------

def _one_column_event(col_type, meta, data, nullable=1):
    tm = _table([col_type], [meta], nullable=nullable)
    return tm, RowsBody(7, R.L.STMT_END_F, "write", 1, b"\x01", b"\x01", data)


def test_type_without_a_case_flushes_like_the_real_tool():
    from binlogkit.printer.mariadb.rows_verbose import UnprintableColumnError
    tm, body = _one_column_event(R.MYSQL_TYPE_TINY_BLOB, 1, b"\x00\x02ab")
    res = print_verbose(tm, body, 2)
    assert isinstance(res.error, UnprintableColumnError) and res.error.flush_caches
    assert res.error_message() == \
        "Don't know how to handle column type: 249 meta: 1 (0001) (row 1, column @1)"
    # NULL or not: the old DECIMAL has no metadata to print with
    tm, body = _one_column_event(R.MYSQL_TYPE_DECIMAL, 0, b"\x01")
    res = print_verbose(tm, body, 1)
    assert res.error.tool_text.startswith("Found Old DECIMAL (mysql-4.1 or earlier).")


def test_bad_metadata_stops_without_flushing():
    from binlogkit.printer.mariadb.rows_verbose import UnprintableColumnError
    enum3 = (R.MYSQL_TYPE_ENUM << 8) | 3
    tm, body = _one_column_event(R.MYSQL_TYPE_STRING, enum3, b"\x00\x01\x00\x00")
    res = print_verbose(tm, body, 2)
    assert res.text.endswith(b"###   @1=!! Unknown ENUM packlen=3")
    assert isinstance(res.error, UnsupportedTypeError)
    assert not isinstance(res.error, UnprintableColumnError)
    tm, body = _one_column_event(R.MYSQL_TYPE_DATETIME2, 9, b"\x00" + bytes(10))
    res = print_verbose(tm, body, 2)     # the real tool crashes here; binlogkit stops
    assert isinstance(res.error, UnsupportedTypeError) and "@1" in res.error_message()
    with pytest.raises(UnsupportedTypeError):
        decode_value(R.MYSQL_TYPE_TIME2, 7, bytes(8))


def test_unsizable_value_is_corrupt_not_unknown():
    tm, body = _one_column_event(200, 0, b"\x00\x01")
    res = print_verbose(tm, body, 2)
    assert res.text.endswith(b"***Corrupted replication event was detected. Not printing the value***\n")
    assert isinstance(res.error, CorruptRowError)
    assert "no size is known" in res.error_message()


def test_newdate_thousands_beyond_9999():
    # the NEWDATE case builds the year digit by digit: 12345 -> chr(48 + 12) + "345"
    value = ((12345 << 9) | (1 << 5) | 2).to_bytes(3, "little")
    assert text(R.MYSQL_TYPE_NEWDATE, 0, value) == b"'<345:01:02'"
    assert text(R.MYSQL_TYPE_DATE, 0, value) == b"'12345:01:02'"
