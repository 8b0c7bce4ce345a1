"""MySQL binary JSON: parsing, mysqlbinlog's text, JSON diffs.

Documents are built by `encode` below, which follows the format of
sql-common/json_binary.cc (the header comment and serialize_json_object /
serialize_json_array / serialize_scalar): a type byte, then for containers
element count and byte size (2 or 4 bytes), key entries (offset, 2-byte
length), value entries (type, then an inlined scalar or an offset), keys,
values.  Texts follow sql-common/json_dom.cc wrapper_to_string.
"""
import struct
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlogkit.binlog import json_binary as J
from binlogkit.printer.mysql import jsontext as JT
from binlogkit.binlog import layout as L


# -- a test encoder ------------------------------------------------------------------

def var_len(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def scalar(value):
    """(type byte, bytes) of a scalar; ints use the smallest type like the server."""
    if value is None:
        return J.JSONB_TYPE_LITERAL, b"\x00"
    if value is True:
        return J.JSONB_TYPE_LITERAL, b"\x01"
    if value is False:
        return J.JSONB_TYPE_LITERAL, b"\x02"
    if isinstance(value, int):
        for jtype, fmt, lo, hi in ((J.JSONB_TYPE_INT16, "<h", -1 << 15, 1 << 15),
                                   (J.JSONB_TYPE_INT32, "<i", -1 << 31, 1 << 31),
                                   (J.JSONB_TYPE_INT64, "<q", -1 << 63, 1 << 63),
                                   (J.JSONB_TYPE_UINT64, "<Q", 0, 1 << 64)):
            if lo <= value < hi:
                return jtype, struct.pack(fmt, value)
    if isinstance(value, float):
        return J.JSONB_TYPE_DOUBLE, struct.pack("<d", value)
    if isinstance(value, str):
        raw = value.encode()
        return J.JSONB_TYPE_STRING, var_len(len(raw)) + raw
    if isinstance(value, tuple):              # ("opaque", field_type, data)
        _, field_type, data = value
        return J.JSONB_TYPE_OPAQUE, bytes([field_type]) + var_len(len(data)) + data
    raise TypeError(value)


def encode(value, large=False):
    if isinstance(value, (dict, list)):
        body = container(value, large)
        if isinstance(value, dict):
            return bytes([J.JSONB_TYPE_LARGE_OBJECT if large else J.JSONB_TYPE_SMALL_OBJECT]) + body
        return bytes([J.JSONB_TYPE_LARGE_ARRAY if large else J.JSONB_TYPE_SMALL_ARRAY]) + body
    jtype, data = scalar(value)
    return bytes([jtype]) + data


def container(value, large):
    osize = 4 if large else 2
    off = (lambda n: struct.pack("<I", n)) if large else (lambda n: struct.pack("<H", n))
    is_object = isinstance(value, dict)
    items = list(value.items()) if is_object else [(None, v) for v in value]
    if is_object:     # keys sorted by length, then bytes
        items.sort(key=lambda kv: (len(kv[0].encode()), kv[0].encode()))
    count = len(items)
    header = 2 * osize + (count * (osize + 2) if is_object else 0) + count * (1 + osize)
    keys = b"".join(k.encode() for k, _ in items) if is_object else b""
    key_entries = b""
    pos = header
    for k, _ in items if is_object else ():
        key_entries += off(pos) + struct.pack("<H", len(k.encode()))
        pos += len(k.encode())
    value_entries, values = b"", b""
    for _, v in items:
        if isinstance(v, (dict, list)):
            inner = container(v, large)
            jtype = (J.JSONB_TYPE_LARGE_OBJECT if large else J.JSONB_TYPE_SMALL_OBJECT) \
                if isinstance(v, dict) else \
                (J.JSONB_TYPE_LARGE_ARRAY if large else J.JSONB_TYPE_SMALL_ARRAY)
        else:
            jtype, inner = scalar(v)
            inline = jtype in (J.JSONB_TYPE_LITERAL, J.JSONB_TYPE_INT16, J.JSONB_TYPE_UINT16) or (
                large and jtype in (J.JSONB_TYPE_INT32, J.JSONB_TYPE_UINT32))
            if inline:
                value_entries += bytes([jtype]) + inner.ljust(osize, b"\0")
                continue
        value_entries += bytes([jtype]) + off(pos + len(values))
        values += inner
    size = header + len(keys) + len(values)
    return off(count) + off(size) + key_entries + value_entries + keys + values


def text(value, large=False, quoted=False):
    return JT.json_to_text(J.parse_json(encode(value, large)), quoted)


# -- scalars, containers, formats -----------------------------------------------------

def test_literals_numbers_strings():
    assert J.parse_json(encode(None)) is None
    assert J.parse_json(encode(True)) is True and J.parse_json(encode(False)) is False
    for n in (0, -1, 32767, -32768, 40000, -(1 << 31), (1 << 31) + 5, -(1 << 63), (1 << 64) - 1):
        assert J.parse_json(encode(n)) == n
    uint16 = bytes([J.JSONB_TYPE_UINT16]) + struct.pack("<H", 65535)
    uint32 = bytes([J.JSONB_TYPE_UINT32]) + struct.pack("<I", 4000000000)
    assert J.parse_json(uint16) == 65535 and J.parse_json(uint32) == 4000000000
    assert J.parse_json(encode("héllo")) == "héllo"
    assert J.parse_json(b"") is None      # an empty document is JSON null (parse_binary)


@pytest.mark.parametrize("large", [False, True])
def test_nested_containers_and_inlining(large):
    doc = {"a": [1, 70000, -5, None, True, "x" * 300], "bb": {"c": 2.5, "": []}, "z": {}}
    assert J.parse_json(encode(doc, large)) == {
        "a": [1, 70000, -5, None, True, "x" * 300], "bb": {"": [], "c": 2.5}, "z": {}}
    assert text(doc, large) == (
        b'{"a": [1, 70000, -5, null, true, "' + b"x" * 300 + b'"], "z": {}, '
        b'"bb": {"": [], "c": 2.5}}')


def test_keys_print_in_stored_order():
    # stored order is by length then bytes; the text keeps it
    assert text({"bbb": 1, "a": 2, "cc": 3}) == b'{"a": 2, "cc": 3, "bbb": 1}'


def test_string_escaping_double_quote():
    value = 'q"b\\s\b\f\n\r\t\x01\x1f\x7fé'
    assert text([value]) == b'["q\\"b\\\\s\\b\\f\\n\\r\\t\\u0001\\u001f\x7f' + "é".encode() + b'"]'
    # a top-level string prints unquoted and unescaped (json_quoted = false)
    assert text(value) == value.encode()
    assert text(value, quoted=True).startswith(b'"q\\"b')


@pytest.mark.parametrize("value,expected", [
    (1.0, b"1.0"), (-2.0, b"-2.0"), (0.0, b"0.0"), (-0.0, b"-0.0"), (0.1, b"0.1"),
    (3.14159, b"3.14159"), (1.5e-7, b"0.00000015"), (1e-15, b"0.000000000000001"),
    (1e-16, b"1e-16"), (0.00001, b"0.00001"), (123456789012345.0, b"123456789012345.0"),
    (1e15, b"1e15"), (1234567890123456.0, b"1.234567890123456e15"), (1e20, b"1e20"),
    (12345678901234567890.0, b"1.2345678901234567e19"), (1.5e16 + 2, b"1.5000000000000002e16"), (123456789012.5, b"123456789012.5"), (1e100, b"1e100"),
    (-1.25e-101, b"-1.25e-101"), (1.7976931348623157e308, b"1.7976931348623157e308"),
    (5e-324, b"5e-324"), (0.30000000000000004, b"0.30000000000000004"), (100.0, b"100.0"),
])
def test_doubles_follow_my_gcvt(value, expected):
    # my_gcvt(MY_GCVT_MAX_FIELD_WIDTH=34): 'f' unless |decpt| passes DBL_DIG (15)
    # with no digits left to show; then ".0" when neither '.' nor 'e' was printed
    assert text(value) == expected
    assert text([value]) == b"[" + expected + b"]"


@given(st.floats(allow_nan=False, allow_infinity=False))
@settings(max_examples=300, deadline=None)
def test_doubles_round_trip(value):
    printed = JT.format_double(value)
    assert float(printed) == value
    assert len(printed) <= JT.MY_GCVT_MAX_FIELD_WIDTH


# -- opaque values ---------------------------------------------------------------------

def packed_datetime(y, mo, d, h, mi, s, us):
    ymd = ((y * 13 + mo) << 5) | d
    hms = (h << 12) | (mi << 6) | s
    return (((ymd << 17) | hms) << 24) + us


def packed_time(neg, h, mi, s, us):
    value = ((((h << 12) | (mi << 6) | s)) << 24) + us
    return -value if neg else value


def opaque(field_type, data):
    return ("opaque", field_type, data)


def test_temporal_opaques():
    dtm = packed_datetime(2012, 3, 18, 11, 30, 45, 123)
    doc = [opaque(J.MYSQL_TYPE_DATE, struct.pack("<q", packed_datetime(2012, 3, 18, 0, 0, 0, 0))),
           opaque(J.MYSQL_TYPE_DATETIME, struct.pack("<q", dtm)),
           opaque(J.MYSQL_TYPE_TIMESTAMP, struct.pack("<q", dtm)),
           opaque(J.MYSQL_TYPE_TIME, struct.pack("<q", packed_time(True, 87, 31, 46, 654321)))]
    values = J.parse_json(encode(doc))
    assert values[3] == J.JsonTemporal(J.MYSQL_TYPE_TIME, True, 0, 0, 0, 87, 31, 46, 654321)
    assert text(doc) == (b'["2012-03-18", "2012-03-18 11:30:45.000123", '
                         b'"2012-03-18 11:30:45.000123", "-87:31:46.654321"]')
    assert text(doc[1]) == b"2012-03-18 11:30:45.000123"       # unquoted at the top


def test_decimal_opaque_keeps_scale():
    # Json_decimal: precision, scale, then the binary DECIMAL (decimal2bin)
    nine = bytes([3, 2]) + bytes([0x89, 0x00])                  # 9.00 as DECIMAL(3,2)
    neg = bytes([5, 3]) + bytes([0x7E, 0xFF, 0xC9])             # -1.054 as DECIMAL(5,3)
    values = J.parse_json(encode([opaque(J.MYSQL_TYPE_NEWDECIMAL, nine),
                                  opaque(J.MYSQL_TYPE_NEWDECIMAL, neg)]))
    assert values == [Decimal("9.00"), Decimal("-1.054")]
    assert JT.json_to_text(values) == b"[9.00, -1.054]"
    with pytest.raises(J.JsonBinaryError):
        J.parse_json(encode(opaque(J.MYSQL_TYPE_NEWDECIMAL, bytes([3, 2, 0x89]))))


def test_other_opaques_base64_and_var_string():
    blob = bytes(range(256)) * 2
    doc = {"a": opaque(15, b"U"), "b": opaque(J.MYSQL_TYPE_VAR_STRING, b'x"y'),
           "c": opaque(252, blob)}
    printed = text(doc)
    assert printed.startswith(b'{"a": "base64:type15:VQ==", "b": "x\\"y", "c": "base64:type252:')
    encoded = JT.mysql_base64(blob)
    assert all(len(line) == 76 for line in encoded.split(b"\n")[:-1])     # mysys base64_encode
    assert printed.endswith(encoded.replace(b"\n", b"\\n") + b'"}')
    assert text(opaque(15, b"U")) == b"base64:type15:VQ=="


@pytest.mark.parametrize("bad", [
    b"\x0c\x05ab",                          # string shorter than its length
    b"\x04\x07",                            # bad literal
    b"\x0e",                                # unknown type
    b"\x00\x01\x00\x40\x00",                # object larger than the document
    b"\x02\x01\x00\x07\x00\x0c\x02\x00",    # value offset inside the header
    b"\x0c\xff\xff\xff\xff\xff\x01",        # variable length over 5 bytes
])
def test_invalid_documents_raise(bad):
    with pytest.raises(J.JsonBinaryError):
        J.parse_json(bad)


def test_differential_against_python_mysql_replication():
    pmr = pytest.importorskip("pymysqlreplication.json_binary")
    doc = {"k1": [1, 2, {"x": "y"}], "k22": -70000, "k3": 2.5, "k4": None, "k5": [True, False]}
    for large in (False, True):
        data = encode(doc, large)
        theirs = pmr.parse_json(data[0], data[1:])

        def norm(v):
            if isinstance(v, dict):
                return {(k.decode() if isinstance(k, bytes) else k): norm(x) for k, x in v.items()}
            if isinstance(v, list):
                return [norm(x) for x in v]
            return v.decode() if isinstance(v, bytes) else v
        assert J.parse_json(data) == norm(theirs)


# -- JSON diffs (sql/json_diff.cc Json_diff::write_binary) ------------------------------

def diff(op, path, value=None):
    out = bytes([op]) + bytes([len(path)]) + path
    if op != L.JSON_DIFF_REMOVE:
        raw = encode(value)
        out += bytes([len(raw)]) + raw
    return out


def test_json_diffs():
    data = (diff(L.JSON_DIFF_REPLACE, b"$.age", 26) + diff(L.JSON_DIFF_INSERT, b"$.tags[1]", "new")
            + diff(L.JSON_DIFF_INSERT, b"$.x", {"a": 1}) + diff(L.JSON_DIFF_REMOVE, b"$.old"))
    diffs = J.parse_json_diffs(data)
    assert [(d.function_name, d.path, d.value) for d in diffs] == [
        ("JSON_REPLACE", b"$.age", 26), ("JSON_ARRAY_INSERT", b"$.tags[1]", "new"),
        ("JSON_INSERT", b"$.x", {"a": 1}), ("JSON_REMOVE", b"$.old", None)]
    assert [JT.sql_literal_kind(d.value) for d in diffs[:3]] == ["raw", "quoted", "cast"]
    assert J.parse_json_diffs(b"") == []
    for bad in (b"\x03\x01$", b"\x00\x05$.a", data[:-1]):
        with pytest.raises(J.JsonBinaryError):
            J.parse_json_diffs(bad)
