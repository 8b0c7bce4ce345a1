"""MySQL JSON columns printed by the C accelerator (csrc/json.c) against the reference.

printer/mysql/jsontext.py (`column`, `diff`) over binlog/json_binary.py is the
reference.  `speedups.json_text` is compared with it on generated documents
(nested objects and arrays, small and large, every scalar and opaque kind,
escapes and non-ASCII in keys and strings, doubles of many magnitudes),
diffs of every operation, corrupt documents and diffs, and random damage;
C answers None (not handled: Python prints the event) only where the
reference itself does not print the usual way.  Whole rows events (JSON
columns, PARTIAL_UPDATE_ROWS after images) are compared through
speedups.rows_text, and whole binlogs (the public ones with JSON, and
bench/make_mysql_json_binlog.py's) through `binlogkit print`, C against pure
Python, with a check that no rows event was left to Python.
"""
import collections
import math
import random
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from binlogkit.binlog import json_binary as J
from binlogkit.binlog import layout as L
from binlogkit.binlog import reader as reader_mod
from binlogkit.binlog import rows as R
from binlogkit.errors import JsonBinaryError
from binlogkit.printer.driver import ReadAhead
from binlogkit.printer.mysql import driver as mysql_driver
from binlogkit.printer.mysql import fast as fast_mod
from binlogkit.printer.mysql import jsontext as JT
from binlogkit.printer.mysql.verbose import print_verbose
from test_json_binary import encode, opaque, packed_datetime, packed_time
from test_speedups_mysql import OPTION_SETS, PEER, assert_same, run_mysql

try:
    from binlogkit import _speedups as speedups
except ImportError:
    speedups = None

pytestmark = pytest.mark.skipif(speedups is None, reason="C accelerator not built")

ROOT = Path(__file__).resolve().parent.parent
PEER_JSON = [PEER / "rust_mysql_common" / name for name in ("json.binlog.000001", "json-opaque.binlog")]
ROWS_TYPES = {L.TABLE_MAP_EVENT, L.WRITE_ROWS_EVENT, L.UPDATE_ROWS_EVENT, L.DELETE_ROWS_EVENT,
              L.PARTIAL_UPDATE_ROWS_EVENT}


def reference(call, *args):
    """The reference's text, or the exception it ends in (it crashes on a few inputs)."""
    try:
        return call(*args)
    except (JsonBinaryError, ValueError, IndexError, TypeError, struct.error, RecursionError) as exc:
        return exc


def same_column(doc):
    """C == jsontext.column(doc) unless C leaves it; True when C printed it."""
    got = speedups.json_text(doc)
    want = reference(JT.column, doc)
    if got is None:
        return False
    assert not isinstance(want, Exception), f"C printed {got!r} where Python raises {want!r}"
    assert got == want, f"{doc!r}:\nC      {got!r}\nPython {want!r}"
    return True


def same_diff(data, column=2):
    got = speedups.json_text(data, column)
    want = reference(JT.diff, data, b"@%d" % column)
    if got is None:
        return False
    assert not isinstance(want, Exception), f"C printed {got!r} where Python raises {want!r}"
    assert got == want, f"{data!r}:\nC      {got!r}\nPython {want!r}"
    return True


# -- documents ------------------------------------------------------------------------------

DATE = opaque(J.MYSQL_TYPE_DATE, struct.pack("<q", packed_datetime(2012, 3, 18, 0, 0, 0, 0)))
DATETIME = opaque(J.MYSQL_TYPE_DATETIME, struct.pack("<q", packed_datetime(1999, 12, 31, 23, 59, 58, 7)))
TIMESTAMP = opaque(J.MYSQL_TYPE_TIMESTAMP, struct.pack("<q", packed_datetime(2038, 1, 19, 3, 14, 7, 0)))
TIME = opaque(J.MYSQL_TYPE_TIME, struct.pack("<q", packed_time(True, 838, 59, 59, 999999)))
TIME_POS = opaque(J.MYSQL_TYPE_TIME, struct.pack("<q", packed_time(False, 0, 0, 1, 5)))
DECIMALS = [opaque(J.MYSQL_TYPE_NEWDECIMAL, raw) for raw in (
    bytes([3, 2, 0x89, 0x00]),                      # 9.00
    bytes([5, 3, 0x7E, 0xFF, 0xC9]),                # -1.054
    bytes([1, 1, 0x85]),                            # 0.5
    bytes([2, 0, 0x80]),                            # 0
    bytes([4, 4, 0x84, 0xD2]),                      # 0.1234
)]
OPAQUES = [opaque(15, b"U"), opaque(252, bytes(range(256)) * 2), opaque(253, b'x"y\\z\n'),
           opaque(255, b""), opaque(J.MYSQL_TYPE_NEWDECIMAL, bytes([65, 30]) + b"\x80" + bytes(29))]
STRINGS = ["", "plain", "quote \" backslash \\ apostrophe ' tab \t nl \n cr \r", "\x00\x01\x1f\x7f",
           "ünïcödé ✓ 日本語 😀", "x" * 300, "\b\f"]
KEYS = ["", "a", "b", "é", "日本", "key with \"quotes\"", "back\\slash", "ctl\x01\x1f", "n\nl", "z" * 70]
INTS = [0, 1, -1, 32767, -32768, 32768, 65535, 65536, -70000, 2 ** 31 - 1, -2 ** 31, 2 ** 31,
        2 ** 32, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 2 ** 64 - 1]
DOUBLES = [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1 / 3, 2.5e-5, 1e-7, 123.456, 1e15, 1e16, 1e17,
           123456789012345678.0, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, -1e-300,
           1e100, 1e101, 1e-99, 1e-100, 99999999999999.99, 0.000123456789, 42.0, -1234567.125]


def documents():
    """(name, value) of the focused cases; encode() makes them small or large."""
    scalars = [None, True, False, *INTS, *DOUBLES, *STRINGS, DATE, DATETIME, TIMESTAMP, TIME,
               TIME_POS, *DECIMALS, *OPAQUES]
    cases = [(f"scalar-{i}", v) for i, v in enumerate(scalars)]
    cases += [
        ("empty-array", []), ("empty-object", {}),
        ("array-of-scalars", scalars),
        ("object-of-keys", {k: i for i, k in enumerate(KEYS)}),
        ("object-of-scalars", {f"k{i:03d}": v for i, v in enumerate(scalars)}),
        ("nested", {"a": [1, {"b": [None, {"c": {"d": [[], {}, [[["deep"]]]]}}]}], "e": {"f": {"g": 2.5}}}),
        ("deep-50", _nest(50)), ("deep-100", _nest(100)),
        ("wide", {f"key{i}": [i, str(i), i * 1.5] for i in range(400)}),
        ("big-strings", ["y" * 70000, {"z" * 5: "w" * 20000}]),
        ("mixed-opaque", {"when": DATETIME, "day": DATE, "t": TIME, "money": DECIMALS[1],
                          "blob": OPAQUES[1], "vs": OPAQUES[2]}),
    ]
    return cases


def _nest(depth):
    value = "bottom"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


@pytest.mark.parametrize("large", [False, True], ids=["small", "large"])
def test_documents_same_as_reference(large):
    printed = 0
    for name, value in documents():
        try:
            data = encode(value, large)
        except struct.error:                # past 64 KiB in the small form
            continue
        printed += same_column(data)
        assert speedups.json_text(data) is not None, f"{name}: not printed by C"
    assert printed > 60


def test_empty_document_is_null():
    assert speedups.json_text(b"") == JT.column(b"") == b"'null'"


def test_doubles_of_many_magnitudes():
    rnd = random.Random(15)
    values = list(DOUBLES)
    for exponent in range(-323, 309):
        scale = float("1e%d" % exponent)
        values += [scale, rnd.random() * scale, -scale * rnd.uniform(1, 9.99)]
    for _ in range(20000):
        value = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
        if rnd.random() < 0.3:
            value = round(rnd.uniform(-1e6, 1e6), rnd.randint(0, 8))
        values.append(value)
    checked = 0
    for value in values:
        if math.isfinite(value):
            for doc in (encode(value), encode([value, -value])):
                checked += same_column(doc)
    assert checked > 40000


def test_non_finite_doubles_left_to_python():
    """NaN and infinities (no server writes them) are not printed by C; the reference
    prints an infinity as 0.0 and ends in a TypeError on NaN."""
    for value in (math.inf, -math.inf, math.nan):
        assert speedups.json_text(encode([1, value])) is None


def test_twin_keys_and_deep_nesting_left_to_python():
    twins = bytearray(encode({"ab": 1, "cd": 2}))
    at = twins.index(b"abcd")
    twins[at + 2:at + 4] = b"ab"                # both keys "ab": the dict keeps the last value
    assert speedups.json_text(bytes(twins)) is None
    assert JT.column(bytes(twins)) == b"'{\"ab\": 2}'"
    unsorted = encode({"b": 1, "a": 2})[:-2] + b"ba"      # keys out of the server's order
    assert same_column(unsorted)
    assert speedups.json_text(encode(_nest(101))) is None
    assert same_column(encode(_nest(100)))


CORRUPT = [
    b"\x0c\x05ab", b"\x04\x07", b"\x04", b"\x0e", b"\x0d\x00", b"\x10",
    b"\x00\x01\x00\x40\x00", b"\x02\x01\x00\x07\x00\x0c\x02\x00", b"\x02\x01",
    b"\x0c\xff\xff\xff\xff\xff\x01", b"\x0c\xff\xff\xff\xff\x7f", b"\x05\x01", b"\x0b\x00\x00",
    b"\x0f\xf6\x02\x03\x02", b"\x0f\xf6\x05\x03\x02\x89\x00", b"\x0f\xf6\x03\x03\x02\x89", b"\x0f\xf6\x02\x00\x00",
    b"\x0f\x0c\x04abcd", b"\x0f", b"\x0f\x0c\x09", b"\x03\x01\x00\x00\x00\xff\xff\xff\xff",
    b"\x00\x01\x00\x0b\x00\x02\x00\x01\x00\x04\x00\x00a",
]


def test_corrupt_documents():
    """Every error the reference catches prints 'Invalid JSON' both ways."""
    for data in CORRUPT:
        assert same_column(data), data
        assert speedups.json_text(data) == b"Invalid JSON\n", data


def test_damaged_documents():
    """Random bit flips, cuts and splices of valid documents."""
    rnd = random.Random(20261125)
    pool = [encode(v, large) for name, v in documents() for large in (False, True)
            if name not in ("big-strings", "wide")]
    pool = [d for d in pool if len(d) < 5000]
    handled = invalid = 0
    for i in range(6000):
        data = bytearray(rnd.choice(pool))
        for _ in range(rnd.randint(1, 3)):
            action = rnd.randrange(3)
            if action == 0 and data:
                data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
            elif action == 1 and data:
                del data[rnd.randrange(len(data)):]
            else:
                data[rnd.randrange(len(data) + 1):0] = bytes(rnd.randrange(256) for _ in range(3))
        if same_column(bytes(data)):
            handled += 1
            invalid += speedups.json_text(bytes(data)) == b"Invalid JSON\n"
    assert handled > 5000 and invalid > 2000


# -- diffs ------------------------------------------------------------------------------------

def packed(n):
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + n.to_bytes(3, "little")
    return b"\xfe" + struct.pack("<Q", n)


def diff(op, path, value=None, raw=None):
    out = bytes([op]) + packed(len(path)) + path
    if op != L.JSON_DIFF_REMOVE:
        raw = encode(value) if raw is None else raw
        out += packed(len(raw)) + raw
    return out


REPLACE, INSERT, REMOVE = L.JSON_DIFF_REPLACE, L.JSON_DIFF_INSERT, L.JSON_DIFF_REMOVE


def test_diffs_of_each_operation_and_value_kind():
    values = [7, -2.5, None, True, "it's", {"k": [1, "v"]}, [1, 2], DATETIME, DECIMALS[1],
              OPAQUES[0], 2 ** 64 - 1]
    cases = [b"", diff(REMOVE, b"$.gone"), diff(INSERT, b"$.a[3]", 1), diff(INSERT, b"$.a", 1),
             diff(INSERT, b"", 1), diff(REPLACE, b"$", None, raw=b"")]
    cases += [diff(op, b"$.x", v) for op in (REPLACE, INSERT) for v in values]
    cases.append(b"".join(diff(REPLACE, b"$.r%d" % i, v) for i, v in enumerate(values)))
    rnd = random.Random(39)
    for _ in range(300):            # runs of one function share a call; every switch opens one
        ops = [(rnd.choice((REPLACE, INSERT, REMOVE)), rnd.choice((b"$.p", b"$.q[2]", b"$.\"k\\'\"")))
               for _ in range(rnd.randint(1, 8))]
        cases.append(b"".join(diff(op, path, rnd.choice(values)) for op, path in ops))
    cases.append(diff(REPLACE, b"$." + b"p" * 300, "v" * 70000))     # 2- and 3-byte lengths
    for data in cases:
        assert same_diff(data), data
    sep = b"\n###      "
    assert speedups.json_text(diff(REPLACE, b"$.a", 7) + diff(INSERT, b"$.b[1]", [1]), 4) == (
        b"JSON_ARRAY_INSERT(" + sep + b"JSON_REPLACE(@4, '$.a', 7)," + sep
        + b"'$.b[1]', CAST('[1]' AS JSON))")


CORRUPT_DIFFS = [
    (b"\x09", b"reading operation type (invalid operation code)"),
    (b"\x00", b"reading path length to skip"),
    (b"\x00\xfb", b"reading path length to skip"),
    (b"\x00\xfd\x01\x00", b"reading path length to skip"),
    (b"\x00\x05$.", b"skipping path"),
    (b"\x00\x01$", b"reading value length to skip"),
    (b"\x00\x01$\x05ab", b"skipping value"),
    (diff(REPLACE, b"$.a", 1) + b"\x03", b"reading operation type (invalid operation code)"),
    (diff(REMOVE, b"$.a") + b"\x02\x09$", b"skipping path"),
]


def test_corrupt_diffs():
    for data, error in CORRUPT_DIFFS:
        assert same_diff(data), data
        assert speedups.json_text(data, 1) == b"Error %s while printing JSON diff\n" % error
    bad_value = diff(REPLACE, b"$.a", 1) + diff(INSERT, b"$.b", None, raw=b"\x0c\x09ab")
    assert same_diff(bad_value)
    assert speedups.json_text(bad_value, 1).endswith(
        b"'$.b', Error parsing json value while printing JSON diff\n")


def test_diff_lengths_python_cannot_read_left_to_it():
    """A cut 2- or 8-byte length makes net_field_length raise struct.error in Python."""
    for data in (b"\x00\xfc\x01", b"\x00\xfe\x01\x02", b"\x00\x01$\xfc"):
        assert speedups.json_text(data, 1) is None
        assert isinstance(reference(JT.diff, data, b"@1"), struct.error)


def test_damaged_diffs():
    rnd = random.Random(7)
    base = [diff(REPLACE, b"$.a", {"x": [1, 2.5, "s"]}) + diff(INSERT, b"$.b[0]", "v")
            + diff(REMOVE, b"$.c") + diff(REPLACE, b"$.d", DATETIME)]
    handled = 0
    for _ in range(4000):
        data = bytearray(rnd.choice(base))
        for _ in range(rnd.randint(1, 2)):
            if not data:
                break
            if rnd.random() < 0.6:
                data[rnd.randrange(len(data))] ^= 1 << rnd.randrange(8)
            else:
                del data[rnd.randrange(len(data)):]
        handled += same_diff(bytes(data), rnd.randint(1, 300))
    assert handled > 3500


# -- whole rows events: JSON columns, PARTIAL_UPDATE_ROWS after images ------------------------

def _row_value(rnd):
    return rnd.choice([{"a": rnd.randrange(100), "b": ["x", 2.5, None]}, [1, "two", {"3": 4.0}],
                       "just a string", rnd.random() * 1e10, DATETIME, None, {}])


def _partial_table():
    """INT, JSON, VARCHAR(100), JSON, JSON (three JSON columns: three partial bits)."""
    types = bytes([R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_JSON, R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_JSON,
                   R.MYSQL_TYPE_JSON])
    return R.TableMapBody(7, 0, b"db", b"docs", types, [0, 4, 100, 4, 4], b"\x1e", b"")


def _image(rnd, columns, nulls, diffs=()):
    out = bytearray()
    for n, col in enumerate(columns):
        if nulls >> n & 1:
            continue
        if col == 0:
            out += struct.pack("<i", rnd.randrange(-99, 99))
        elif col == 2:
            text = rnd.choice([b"", b"note", b"it's\n"])
            out += bytes([len(text)]) + text
        else:
            data = diffs[col] if col in diffs else encode(_row_value(rnd))
            out += struct.pack("<I", len(data)) + data
    return bytes([nulls]) + bytes(out)


def test_partial_update_rows_events_same_as_reference():
    rnd = random.Random(2026)
    tm = _partial_table()
    printed = 0
    for i in range(600):
        cols_ai = rnd.choice([0x1F, 0x1A, 0x0B, 0x03, 0x12])
        present = [c for c in range(5) if cols_ai >> c & 1]
        rows = b""
        for _ in range(rnd.randint(1, 3)):
            before = _image(rnd, range(5), rnd.randrange(32) & 0x1E)
            partial_bits = rnd.randrange(8)
            diffs = {c: diff(REPLACE, b"$.a", rnd.randrange(9)) + diff(REMOVE, b"$.b")
                     for bit, c in enumerate((1, 3, 4)) if partial_bits >> bit & 1}
            options = rnd.choice([b"\x01", b"\x01", b"\x00"])
            after = _image(rnd, present, rnd.randrange(1 << len(present)) & ~1,
                           diffs if options == b"\x01" else {})
            rows += before + options + (bytes([partial_bits]) if options == b"\x01" else b"") + after
        if i % 10 == 0:             # damage: value options past the end, cut images
            rows = rows[:rnd.randrange(len(rows))]
        body = R.RowsBody(7, 1, "update", 5, b"\x1f", bytes([cols_ai]), rows)
        for verbose in (1, 2):
            plan = fast_mod.c_text_plan(tm, fast_mod.KIND_PARTIAL_UPDATE, b"\x1f", bytes([cols_ai]), 5,
                                        verbose)
            got = speedups.rows_text(plan, rows) if rows else None
            if got is not None:
                assert got[0] == print_verbose(tm, body, verbose, True, JT)
                printed += 1
    assert printed > 900


def test_json_rows_events_same_as_reference():
    """Write/update/delete rows events with JSON columns: the column text of each row."""
    rnd = random.Random(245)
    tm = _partial_table()
    printed = 0
    for kind in (0, 1, 2):
        for _ in range(150):
            rows = b"".join(_image(rnd, range(5), rnd.randrange(32) & 0x1E)
                            for _ in range(rnd.randint(1, 3) * (2 if kind == 1 else 1)))
            body = R.RowsBody(7, 1, fast_mod._KINDS[kind], 5, b"\x1f", b"\x1f", rows)
            plan = fast_mod.c_text_plan(tm, kind, b"\x1f", b"\x1f", 5, 2)
            got = speedups.rows_text(plan, rows)
            assert got is not None
            assert got[0] == print_verbose(tm, body, 2, False, JT)
            printed += 1
    assert printed == 450


def test_json_plans_cover_only_four_length_bytes():
    """_p_json reads a 4-byte length whatever the metadata: other metadata is Python's."""
    tm = R.TableMapBody(8, 0, b"db", b"t", bytes([R.MYSQL_TYPE_JSON]), [2], b"\x01", b"")
    assert fast_mod.c_text_plan(tm, 0, b"\x01", b"\x01", 1, 1) is None


# -- whole binlogs: C against pure Python, and no rows event left to Python ---------------------

def python_printed(path, chunk=1 << 26, **options):
    """Counter of the event types the Python printer printed on the C run."""
    seen = collections.Counter()
    with pytest.MonkeyPatch.context() as mp:
        for type_code, handler in list(mysql_driver.HANDLERS.items()):
            def counting(p, ev, body, pos, _handler=handler):
                seen[ev.type_code] += 1
                return _handler(p, ev, body, pos)
            mp.setitem(mysql_driver.HANDLERS, type_code, counting)
        fast, events = run_mysql(path, False, chunk, **options)
    assert events > 0
    return seen


@pytest.fixture(scope="module")
def json_binlog(tmp_path_factory):
    out = tmp_path_factory.mktemp("mysqljson")
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_mysql_json_binlog.py"),
                    "--mb", "0.25", "--out", str(out)], check=True, capture_output=True)
    return out / "mysql80-json.000001"


@pytest.mark.parametrize("mode", sorted(OPTION_SETS))
def test_generated_json_binlog_same_both_ways(json_binlog, mode):
    assert_same(json_binlog, **OPTION_SETS[mode])
    seen = python_printed(json_binlog, **OPTION_SETS[mode])
    assert not ROWS_TYPES & set(seen), f"rows events printed by Python: {seen}"


def test_statements_past_the_read_ahead_stay_in_c(json_binlog):
    """Transactions longer than the first read-ahead (a large JSON document) and ones that
    straddle the reader's chunks: the C printer reads on from its GTID, not Python."""
    with reader_mod.BinlogReader(str(json_binlog)) as reader:
        reader.read_magic()
        assert max(raw.event_size for raw in reader.events()) > ReadAhead.START
    for chunk in (None, 50000):
        seen = python_printed(json_binlog, chunk, verbose=2)
        assert not ROWS_TYPES & set(seen), f"rows events printed by Python: {seen}"
        assert seen[L.ANONYMOUS_GTID_LOG_EVENT] <= 1, seen       # the first, before the FDE is out


@pytest.mark.skipif(not all(p.is_file() for p in PEER_JSON), reason="../shared/peer is absent")
@pytest.mark.parametrize("mode", sorted(OPTION_SETS))
def test_peer_json_binlogs_take_the_c_path(mode):
    for path in PEER_JSON:
        assert_same(path, **OPTION_SETS[mode])
        seen = python_printed(path, **OPTION_SETS[mode])
        assert not ROWS_TYPES & set(seen), f"{path.name}: rows events printed by Python: {seen}"
