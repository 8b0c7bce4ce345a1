"""The C accelerator (binlogkit._speedups) against the pure-Python reference.

Every C function has a pure-Python twin; these tests feed both the same input
and compare the results byte for byte: base64 lines, header text, framing,
row counting over compiled plans, -v text and Python values of row images
over compiled column programs (every fixture row, and random and edge values
of every column type the programs cover), and whole `binlogkit print` runs
with the C row-statement printer on and off (default, -v, -vv, decode-rows;
every stop position, start positions, datetimes, tiny read buffers so
statements straddle buffer ends).  The recorded mariadb-binlog cases run the
pure path too (test_print_oracle.py).
"""
import io
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from binlogkit.binlog import reader as reader_mod
from binlogkit.binlog import rowcompile, rowvalues
from binlogkit.binlog import rows as R
from binlogkit.binlog.decimal import decimal_bin_size
from binlogkit.binlog.reader import BinlogReader, PyRawEvent
from binlogkit.binlog.rowevents import iter_rows_events
from binlogkit.binlog.rowvalues import (
    CorruptRowError, UnsupportedTypeError, iter_rows, iter_rows_reference,
)
from binlogkit.errors import BinlogError
from binlogkit.printer.driver import ReadAhead
from binlogkit.printer.mariadb import driver as dump_mod
from binlogkit.printer.mariadb import events as P
from binlogkit.printer.mariadb import flashback as FB
from binlogkit.printer import text as T
from binlogkit.printer.mariadb.rows_fast import c_text_plan
from binlogkit.printer.mariadb.rows_verbose import print_verbose_reference
from binlogkit.printer.state import PrintOptions
from binlogkit.tz import ZoneTable

try:
    from binlogkit import _speedups as speedups
except ImportError:         # no compiler at install time: test_accelerator_built says if it should be
    speedups = None
needs_c = pytest.mark.skipif(speedups is None, reason="C accelerator not built")

ROOT = Path(__file__).resolve().parent.parent
SETS = {name: sorted((ROOT / "fixtures" / "binlog" / name).glob("mariadb-bin.*"))
        for name in ("crc32", "none", "compressed")}
ZONE = ZoneTable.from_tz("America/New_York")


# -- in-process switch between the two paths ---------------------------------------

class _CountingSpeedups:
    """speedups with print_row_statements counting the events it printed."""

    def __init__(self):
        self.events = 0

    def __getattr__(self, name):
        return getattr(speedups, name)

    def print_row_statements(self, *args):
        result = speedups.print_row_statements(*args)
        self.events += result[0]
        return result


def run_dump(files, pure, chunk=None, **options):
    """`binlogkit print` in-process: (output with any error line, events the C printer did)."""
    counting = _CountingSpeedups()
    with pytest.MonkeyPatch.context() as mp:
        if pure:
            mp.setattr(reader_mod, "speedups", None)
            mp.setattr(reader_mod, "RawEvent", PyRawEvent)
            mp.setattr(R, "speedups", None)
            mp.setattr(P, "base64_lines", T.base64_lines_py)
            mp.setattr(P, "header_text", T.header_text_py)
            mp.setattr(dump_mod, "speedups", None)
            mp.setattr(FB, "reversed_texts", FB.reversed_texts_py)
        else:
            mp.setattr(dump_mod, "speedups", counting)
        if chunk:
            mp.setattr(reader_mod, "CHUNK_SIZE", chunk)
        out = io.BytesIO()
        with tempfile.TemporaryDirectory() as load_dir:    # LOAD DATA file names repeat
            try:
                dump_mod.dump([str(f) for f in files], out,
                              PrintOptions(local_load=load_dir, **options), ZONE)
            except BinlogError as exc:
                out.write(b"ERROR: " + str(exc).encode())
            return out.getvalue().replace(load_dir.encode(), b"LOAD_DIR"), counting.events


def assert_same(files, chunk=None, expect_fast=None, **options):
    fast, events = run_dump(files, False, chunk, **options)
    pure, _ = run_dump(files, True, chunk, **options)
    assert fast == pure, f"C and Python paths differ for {options} (chunk {chunk})"
    if expect_fast is not None:
        assert (events > 0) == expect_fast, f"C row printer used for {events} events"
    return fast


def event_starts(path):
    with BinlogReader(str(path)) as reader:
        reader.read_magic()
        return [(raw.pos, raw.type_code, raw.when, raw.event_size) for raw in reader.events()]


ROW_TYPES = frozenset({19, 23, 24, 25, 30, 31, 32, 160})   # Table_map, rows v1/v2, Annotate_rows


# -- small functions ------------------------------------------------------------------

def test_accelerator_built_when_a_compiler_is_there():
    """Guard against the optional build failing quietly (then the rest would skip)."""
    headers = Path(sysconfig.get_paths()["include"], "Python.h").exists()
    if not headers or not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler or Python headers")
    assert speedups is not None, ("binlogkit._speedups is not built although a compiler is "
                                  "there: see the output of pip install -e . (or setup.py build_ext)")
    from binlogkit import _accel
    assert _accel.speedups is speedups or os.environ.get("BINLOGKIT_PURE") not in ("", "0", None)


@needs_c
def test_pure_switch_in_a_subprocess():
    code = "from binlogkit._accel import speedups; print(speedups is None)"
    for value, expected in (("1", "True"), ("0", "False")):
        env = dict(os.environ, BINLOGKIT_PURE=value)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.stdout.strip() == expected, out.stderr


@needs_c
def test_base64_lines():
    rnd = random.Random(1)
    for n in list(range(0, 300)) + [4096, 65535, 65536, 200000]:
        data = rnd.randbytes(n)
        assert speedups.base64_lines(data) == T.base64_lines_py(data), n
    assert speedups.base64_lines(memoryview(b"abcdef")[1:4]) == T.base64_lines_py(b"bcd")


@needs_c
def test_base64_lines_without_simd():
    """BINLOGKIT_NO_SIMD=1: the table-only encoder (where SSSE3 is there, the blocks of 12
    bytes are SIMD otherwise) gives the same lines."""
    code = ("import random, sys\n"
            "from binlogkit import _speedups\n"
            "from binlogkit.printer.text import base64_lines_py\n"
            "rnd = random.Random(2)\n"
            "for n in list(range(300)) + [65536, 100003]:\n"
            "    data = rnd.randbytes(n)\n"
            "    assert _speedups.base64_lines(data) == base64_lines_py(data), n\n"
            "print('same')\n")
    for env in ({"BINLOGKIT_NO_SIMD": "1"}, {}):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, **env})
        assert r.stdout == "same\n", r.stderr


@needs_c
def test_header_text():
    for args in [(b"261121  9:49:16", 1, 256, 0x3CA21F6F), (b"700101  0:00:00", 0, 0, None),
                 (b"380119  3:14:07", 4294967295, 4294967295, 0), (b"x" * 300, 7, 12, 0xFFFFFFFF),
                 (b"", 1, 2, 5)]:
        assert speedups.header(*args) == T.header_text_py(*args), args


@needs_c
@pytest.mark.parametrize("name", ["crc32", "none"])
def test_frame_matches_python_raw_event(name):
    fields = ("pos", "when", "type_code", "server_id", "event_size", "log_pos", "flags",
              "end", "checksum", "data")
    for path in SETS[name]:
        data = path.read_bytes()
        has_crc = name == "crc32"
        fde_seen = False
        for pos, type_code, _, size in event_starts(path):
            framed = speedups.frame(data, pos, pos, has_crc)
            if type_code == 15:
                assert framed is None       # format descriptions take the slow path
                fde_seen = True
                continue
            header = reader_mod.COMMON_HEADER.unpack_from(data, pos)
            end = size - 4 if has_crc else size
            crc = int.from_bytes(data[pos + end:pos + size], "little") if has_crc else None
            ref = PyRawEvent(pos, header, data[pos:pos + size], end, crc)
            assert [getattr(framed, f) for f in fields] == [getattr(ref, f) for f in fields]
            assert bytes(framed.payload) == bytes(ref.payload) and repr(framed) == repr(ref)
            assert speedups.frame(data[:pos + size - 1], pos, pos, has_crc) is None  # cut short
        assert fde_seen


@needs_c
def test_raw_event_type_is_mutable_like_the_python_one():
    ev = speedups.RawEvent(4, (1, 2, 3, 23, 5, 6), b"x" * 23, 19, 7)
    ev.flags |= 8
    ev.data = b"other"
    assert (ev.flags, ev.data, ev.checksum, ev.end) == (14, b"other", 7, 19)


# -- row counting ---------------------------------------------------------------------

# (type, metadata) choices covering every plan step kind and the unsizable types
_COLUMNS = [
    (R.MYSQL_TYPE_TINY, 0), (R.MYSQL_TYPE_LONG, 0), (R.MYSQL_TYPE_LONGLONG, 0),
    (R.MYSQL_TYPE_INT24, 0), (R.MYSQL_TYPE_DOUBLE, 8), (R.MYSQL_TYPE_DATETIME2, 6),
    (R.MYSQL_TYPE_TIMESTAMP2, 3), (R.MYSQL_TYPE_TIME2, 0), (R.MYSQL_TYPE_NEWDECIMAL, (12 << 8) | 3),
    (R.MYSQL_TYPE_BIT, (1 << 8) | 3), (R.MYSQL_TYPE_YEAR, 0), (R.MYSQL_TYPE_DATE, 0),
    (R.MYSQL_TYPE_VARCHAR, 40), (R.MYSQL_TYPE_VARCHAR, 1000), (R.MYSQL_TYPE_VAR_STRING, 300),
    (R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_STRING << 8) | 20),
    (R.MYSQL_TYPE_STRING, (0xEC << 8) | 0x58),                # CHAR(600) utf8: 2-byte length
    (R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_ENUM << 8) | 1), (R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_SET << 8) | 2),
    (R.MYSQL_TYPE_BLOB, 1), (R.MYSQL_TYPE_BLOB, 2), (R.MYSQL_TYPE_BLOB, 3), (R.MYSQL_TYPE_BLOB, 4),
    (R.MYSQL_TYPE_BLOB, 0), (R.MYSQL_TYPE_BLOB, 7), (R.MYSQL_TYPE_JSON, 4), (R.MYSQL_TYPE_GEOMETRY, 4),
    (R.MYSQL_TYPE_ENUM, 0), (R.MYSQL_TYPE_NULL, 0), (R.MYSQL_TYPE_DECIMAL, 0), (99, 0),
]


def _value(rnd, col_type, meta):
    """Bytes of one plausible non-NULL value (sometimes a lying length prefix)."""
    kind, arg = R.column_step(col_type, meta)
    if kind == R.STEP_FIXED:
        return rnd.randbytes(arg)
    n = rnd.randint(0, 30)
    if kind == R.STEP_LEN1:
        return bytes([n]) + rnd.randbytes(n)
    if kind == R.STEP_LEN2:
        return n.to_bytes(2, "little") + rnd.randbytes(n)
    if kind == R.STEP_PACKED:
        return n.to_bytes(arg, "little") + rnd.randbytes(n)
    return rnd.randbytes(rnd.randint(0, 6))


def _random_event(rnd):
    ncols = rnd.randint(1, 12)
    columns = [rnd.choice(_COLUMNS[:-8] if rnd.random() < 0.6 else _COLUMNS) for _ in range(ncols)]
    types = bytes(c[0] for c in columns)
    table_map = R.TableMapBody(1, 0, b"d", b"t", types, [c[1] for c in columns],
                               b"\xff" * ((ncols + 7) // 8), b"")
    kind = rnd.choice(["write", "update", "delete"])
    width = ncols if rnd.random() < 0.8 else rnd.randint(1, 20)
    nbytes = (width + 7) // 8

    def bitmap():
        bits = (1 << width) - 1 if rnd.random() < 0.5 else rnd.getrandbits(width)
        return bits.to_bytes(nbytes, "little")

    cols = bitmap()
    cols_ai = bitmap() if kind == "update" else cols
    data = bytearray()
    for _ in range(rnd.randint(0, 5)):
        for bits in ([cols, cols_ai] if kind == "update" else [cols]):
            present = [i for i in range(min(ncols, nbytes * 8)) if bits[i // 8] >> (i % 8) & 1]
            nulls = rnd.getrandbits(len(present)) if rnd.random() < 0.5 else 0
            data += nulls.to_bytes((len(present) + 7) // 8, "little")
            for n, col in enumerate(present):
                if not nulls >> n & 1:
                    data += _value(rnd, *columns[col])
    if rnd.random() < 0.3:
        data = data[:rnd.randint(0, len(data))]          # cut short
    if rnd.random() < 0.1:
        data = bytearray(rnd.randbytes(rnd.randint(0, 40)))    # garbage
    return table_map, R.RowsBody(1, 1, kind, width, cols, cols_ai, bytes(data))


@needs_c
def test_count_rows_three_ways():
    rnd = random.Random(20240611)
    for _ in range(3000):
        table_map, body = _random_event(rnd)
        expected = R.count_rows_reference(table_map, body)
        assert R.count_rows(table_map, body) == expected
        if body.kind == "write" and not body.rows:
            continue
        plan = R.image_plan(table_map, body.cols)
        plan_ai = R.image_plan(table_map, body.cols_ai) if body.kind == "update" else None
        assert R.count_rows_py(plan, plan_ai, body.rows) == expected
        assert speedups.count_rows(plan.steps, plan_ai and plan_ai.steps, body.rows) == expected


# -- row images over column programs: -v text and values ----------------------------------

KINDS = ("write", "update", "delete")       # the C code's kind numbers
_INT_SIZES = {R.MYSQL_TYPE_TINY: 1, R.MYSQL_TYPE_SHORT: 2, R.MYSQL_TYPE_INT24: 3,
              R.MYSQL_TYPE_LONG: 4, R.MYSQL_TYPE_LONGLONG: 8}
_FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-45, 1.17549435e-38, 3.4028234663852886e38, 123456.7,
           1e20, 1e-5, math.inf, -math.inf, math.nan, -math.nan]
_DOUBLES = _FLOATS + [1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 0.1 + 0.2,
                      1 / 3, 123456789012345678.0, -2.5e-300]


def _decimal_value(rnd, precision, scale, valid):
    """A packed DECIMAL: random or edge digits (or, not valid, random bytes)."""
    size = decimal_bin_size(precision, scale)
    if not valid:
        return rnd.randbytes(size)
    intg = precision - scale
    pick = rnd.random()
    if pick < 0.1:
        digits = "0" * precision
    elif pick < 0.2:
        digits = "9" * precision
    else:
        digits = "".join(rnd.choice("0123456789" if rnd.random() < 0.8 else "0")
                         for _ in range(precision))
    groups = []      # (digit text, bytes), most significant first
    int_digits, frac_digits = digits[:intg], digits[intg:]
    lead = intg % 9
    if lead:
        groups.append((int_digits[:lead], rowcompile.DIG2BYTES[lead]))
    groups += [(int_digits[i:i + 9], 4) for i in range(lead, intg, 9)]
    groups += [(frac_digits[i:i + 9], 4) for i in range(0, scale - scale % 9, 9)]
    if scale % 9:
        groups.append((frac_digits[scale - scale % 9:], rowcompile.DIG2BYTES[scale % 9]))
    raw = bytearray(b"".join(int(text).to_bytes(n, "big") for text, n in groups))
    raw[0] ^= 0x80
    if rnd.random() < 0.5:
        raw = bytearray(b ^ 0xFF for b in raw)
    assert len(raw) == size
    return bytes(raw)


def _temporal2_value(rnd, real, fsp, valid):
    nfrac = (fsp + 1) // 2
    base = {R.MYSQL_TYPE_TIME2: 3, R.MYSQL_TYPE_DATETIME2: 5, R.MYSQL_TYPE_TIMESTAMP2: 4}[real]
    if not valid or real == R.MYSQL_TYPE_TIME2:     # any TIME2 bytes print
        return rnd.randbytes(base + nfrac)
    usec = rnd.choice([0, 999999, rnd.randrange(1000000)])
    frac = (usec // (10 ** (6 - 2 * nfrac)) if nfrac else 0)
    if real == R.MYSQL_TYPE_TIMESTAMP2:
        seconds = rnd.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, rnd.getrandbits(32)])
        return ((seconds << 8 * nfrac) | frac).to_bytes(base + nfrac, "big")
    ym = rnd.choice([0, rnd.randrange(10000 * 13), rnd.randrange(1 << 17)])
    day, hms = rnd.randrange(32), rnd.randrange(1 << 17)
    packed = (((ym << 5) | day) << 17) | hms
    return (((packed + 0x8000000000) << 8 * nfrac) | frac).to_bytes(base + nfrac, "big")


def _string_value(rnd, prefix, max_len):
    n = rnd.choice([0, 1, rnd.randrange(max_len + 1)])
    alphabet = [rnd.randrange(256), rnd.randrange(0x20), 0x27, 0x5C, 0x7F, 0x80, 0x0A, 0x41]
    content = bytes(rnd.choice(alphabet) for _ in range(n))
    return n.to_bytes(prefix, "little") + content


def _column_kinds():
    """(col_type, meta, value(rnd, valid) -> bytes) for every column the programs cover."""
    kinds = []
    for col_type, size in _INT_SIZES.items():
        edges = [0, 1, (1 << 8 * size) - 1, 1 << (8 * size - 1), (1 << (8 * size - 1)) - 1]
        kinds.append((col_type, 0, lambda rnd, valid, size=size, edges=edges: (
            rnd.choice(edges) if rnd.random() < 0.3 else rnd.getrandbits(8 * size)
        ).to_bytes(size, "little")))
    kinds.append((R.MYSQL_TYPE_FLOAT, 4, lambda rnd, valid: (
        struct.pack("<f", rnd.choice(_FLOATS)) if rnd.random() < 0.5 else rnd.randbytes(4))))
    kinds.append((R.MYSQL_TYPE_DOUBLE, 8, lambda rnd, valid: (
        struct.pack("<d", rnd.choice(_DOUBLES)) if rnd.random() < 0.5 else rnd.randbytes(8))))
    for precision, scale in [(1, 0), (10, 2), (12, 3), (18, 9), (9, 9), (20, 0), (30, 30),
                             (65, 30), (65, 0), (28, 10), (29, 4), (10, 10)]:
        kinds.append((R.MYSQL_TYPE_NEWDECIMAL, (precision << 8) | scale,
                      lambda rnd, valid, p=precision, s=scale: _decimal_value(rnd, p, s, valid)))
    kinds.append((R.MYSQL_TYPE_YEAR, 0, lambda rnd, valid: rnd.randbytes(1)))
    kinds.append((R.MYSQL_TYPE_DATE, 0, lambda rnd, valid: rnd.randbytes(3)))
    kinds.append((R.MYSQL_TYPE_NEWDATE, 0, lambda rnd, valid: (
        rnd.randbytes(3) if not valid else
        ((rnd.randrange(10000) << 9) | rnd.randrange(512)).to_bytes(3, "little"))))
    for col_type, size in [(R.MYSQL_TYPE_TIME, 3), (R.MYSQL_TYPE_DATETIME, 8),
                           (R.MYSQL_TYPE_TIMESTAMP, 4)]:
        kinds.append((col_type, 0, lambda rnd, valid, size=size: rnd.randbytes(size)))
    for real in (R.MYSQL_TYPE_TIME2, R.MYSQL_TYPE_DATETIME2, R.MYSQL_TYPE_TIMESTAMP2):
        for fsp in range(7):
            kinds.append((real, fsp, lambda rnd, valid, real=real, fsp=fsp:
                          _temporal2_value(rnd, real, fsp, valid)))
    for col_type, meta, prefix, max_len in [
            (R.MYSQL_TYPE_VARCHAR, 20, 1, 20), (R.MYSQL_TYPE_VARCHAR, 255, 1, 255),
            (R.MYSQL_TYPE_VARCHAR, 300, 2, 300), (R.MYSQL_TYPE_VAR_STRING, 40, 1, 40),
            (R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_STRING << 8) | 20, 1, 20),
            (R.MYSQL_TYPE_STRING, ((R.MYSQL_TYPE_STRING ^ 0x10) << 8) | 0x2C, 2, 300),
            (R.MYSQL_TYPE_BLOB, 1, 1, 255), (R.MYSQL_TYPE_BLOB, 2, 2, 600),
            (R.MYSQL_TYPE_BLOB, 3, 3, 300), (R.MYSQL_TYPE_BLOB, 4, 4, 300),
            (R.MYSQL_TYPE_GEOMETRY, 4, 4, 50)]:
        kinds.append((col_type, meta, lambda rnd, valid, prefix=prefix, max_len=max_len:
                      _string_value(rnd, prefix, max_len)))
    for size in (1, 2):
        kinds.append((R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_ENUM << 8) | size,
                      lambda rnd, valid, size=size: rnd.randbytes(size)))
    for size in (1, 2, 3, 8):
        kinds.append((R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_SET << 8) | size,
                      lambda rnd, valid, size=size: rnd.randbytes(size)))
    for nbits in (1, 5, 8, 9, 17, 63, 64):
        meta = ((nbits // 8) << 8) | (nbits % 8)
        kinds.append((R.MYSQL_TYPE_BIT, meta, lambda rnd, valid, n=nbits: rnd.randbytes((n + 7) // 8)))
    return kinds


COLUMN_KINDS = _column_kinds()


def _random_rows_event(rnd, valid):
    """A rows event of covered columns: well-formed values when `valid`, else
    random bytes (some of them out of range), sometimes cut short."""
    ncols = rnd.randint(1, 12)
    kinds = [rnd.choice(COLUMN_KINDS) for _ in range(ncols)]
    table_map = R.TableMapBody(3, 0, b"db", b"t%d" % rnd.randrange(1000), bytes(k[0] for k in kinds),
                               [k[1] for k in kinds], rnd.randbytes((ncols + 7) // 8), b"")
    kind = rnd.choice(KINDS)
    width = ncols if valid or rnd.random() < 0.7 else rnd.randint(1, ncols + 9)
    nbytes = (width + 7) // 8

    def bitmap():
        bits = (1 << width) - 1 if rnd.random() < 0.5 else rnd.getrandbits(width) or 1
        return bits.to_bytes(nbytes, "little")

    cols = bitmap()
    cols_ai = bitmap() if kind == "update" else cols
    data = bytearray()
    for _ in range(rnd.randint(1, 4)):
        for bits in ([cols, cols_ai] if kind == "update" else [cols]):
            present = rowcompile.present_columns(table_map, bits, width)
            null_bytes = rowcompile.null_byte_count(bits, width)
            nulls = rnd.getrandbits(8 * null_bytes) if rnd.random() < 0.5 else 0
            data += nulls.to_bytes(null_bytes, "little")
            for n, col in enumerate(present):
                if not nulls >> n & 1:
                    data += kinds[col][2](rnd, valid)
    if not valid and rnd.random() < 0.3:
        data = data[:rnd.randint(0, len(data))]
    return table_map, R.RowsBody(3, 1, kind, width, cols, cols_ai, bytes(data))


def _collect(rows):
    out = []
    try:
        for row in rows:
            out.append(row)
    except (CorruptRowError, UnsupportedTypeError) as exc:
        return repr(out), type(exc)
    return repr(out), None


def check_rows_text(table_map, body, must_handle):
    """speedups.rows_text == print_verbose_reference; True when C printed the event."""
    printed = []
    for verbose in (1, 2):
        plan = c_text_plan(table_map, KINDS.index(body.kind), body.cols, body.cols_ai,
                           body.width, verbose)
        got = speedups.rows_text(plan, body.rows) if plan is not None else None
        want = print_verbose_reference(table_map, body, verbose)
        if got is not None:
            assert want.error is None, f"C printed what the reference stops on ({want.error})"
            assert got == (want.text, want.rows), f"-v{verbose} text differs"
        assert got is not None or not must_handle, f"-v{verbose}: C gave up on a good event"
        printed.append(got is not None)
    return all(printed)


def check_rows_values(table_map, body, must_handle):
    """speedups.rows_values == iter_rows_reference; True when C decoded every row."""
    programs = rowvalues._c_programs(table_map, body)
    assert programs or not must_handle
    if not programs:
        return False
    pairs, pos = speedups.rows_values(*programs, body.rows, 0, rowvalues.C_TYPES)
    reference = list(iter_rows_reference(table_map, body)) if pos == len(body.rows) else None
    if reference is not None:
        assert repr(pairs) == repr(reference)
    else:
        ref_text, _ = _collect(iter_rows_reference(table_map, body))
        assert ref_text.startswith(repr(pairs)[:-1])        # the rows C did come first
    assert pos == len(body.rows) or not must_handle, "C gave up on a good event"
    if len(pairs) > 1:      # starting from a later row
        second = _row_start(table_map, body, 1)
        again, again_pos = speedups.rows_values(*programs, body.rows, second, rowvalues.C_TYPES)
        assert repr(again) == repr(pairs[1:]) and again_pos == pos
    # and iter_rows (C first, then compiled Python, then the reference) as a whole
    assert _collect(iter_rows(table_map, body)) == _collect(iter_rows_reference(table_map, body))
    return pos == len(body.rows)


def _row_start(table_map, body, index):
    """Offset of row `index` in body.rows, walked with the reference decoder."""
    pos = 0
    for _ in range(index):
        for bits in ((body.cols, body.cols_ai) if body.kind == "update" else (body.cols,)):
            _, pos = rowvalues.read_image(table_map, bits, body.width, body.rows, pos)
    return pos


@needs_c
def test_row_images_random_and_edge_values():
    rnd = random.Random(20250611)
    handled = {True: 0, False: 0}
    for i in range(2500):
        valid = i % 3 != 0
        table_map, body = _random_rows_event(rnd, valid)
        text = check_rows_text(table_map, body, must_handle=valid)
        values = check_rows_values(table_map, body, must_handle=valid)
        handled[valid] += text and values
    assert handled[True] > 1600          # every valid event (must_handle above)
    assert 0 < handled[False] < 800      # damaged ones: some handled, many left to Python


@needs_c
def test_row_images_every_fixture_row():
    """Every rows event of every fixture binlog: C text and values == the reference."""
    events = 0
    for path in sorted((ROOT / "fixtures" / "binlog").glob("*/mariadb-bin.*")) + sorted(
            (ROOT / "fixtures" / "lab").glob("mariadb-bin.*")):
        for ev in iter_rows_events(str(path)):
            if ev.table_map is None or not ev.body.rows:
                continue
            check_rows_text(ev.table_map, ev.body, must_handle=True)
            check_rows_values(ev.table_map, ev.body, must_handle=True)
            events += 1
    assert events > 1500


@needs_c
def test_row_image_text_single_values():
    """Edge values one column at a time, against the reference's text."""
    def one(col_type, meta, value, nullable=1):
        table_map = R.TableMapBody(1, 0, b"d", b"t", bytes([col_type]), [meta], bytes([nullable]), b"")
        body = R.RowsBody(1, 1, "write", 1, b"\x01", b"\x01", b"\x00" + value)
        assert check_rows_text(table_map, body, must_handle=True)
        assert check_rows_values(table_map, body, must_handle=True)
        plan = c_text_plan(table_map, 0, b"\x01", b"\x01", 1, 2)
        return speedups.rows_text(plan, body.rows)[0].split(b"=", 1)[1].split(b" /*")[0]

    assert one(R.MYSQL_TYPE_LONGLONG, 0, struct.pack("<q", -(1 << 63))) == \
        b"-9223372036854775808 (9223372036854775808)"
    assert one(R.MYSQL_TYPE_INT24, 0, b"\xff\xff\xff") == b"-1 (16777215)"
    assert one(R.MYSQL_TYPE_FLOAT, 4, struct.pack("<f", -math.nan)) == b"-nan" + b" " * 16
    assert one(R.MYSQL_TYPE_DOUBLE, 8, struct.pack("<d", 0.1)) == b"0.10000000000000000555"
    assert one(R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_SET << 8) | 2, b"\x01\x80") == b"b'0000000110000000'"
    assert one(R.MYSQL_TYPE_BIT, 1 << 8 | 1, b"\xff\x01") == b"b'100000001'"
    assert one(R.MYSQL_TYPE_VARCHAR, 10, b"\x04a\x00'\x1f") == b"'a\\x00'\\x1f'"
    assert one(R.MYSQL_TYPE_NEWDECIMAL, (10 << 8) | 2, bytes([0x7F, 0xFF, 0xFF, 0xFF, 0xFF])) == b"0.00"
    assert one(R.MYSQL_TYPE_TIMESTAMP, 0, b"\xff\xff\xff\xff") == b"-1"
    # left to Python: a NEWDATE year past 9999 (its odd thousands digit), a DECIMAL
    # digit group out of range, a negative DATETIME2
    for col_type, meta, value in [(R.MYSQL_TYPE_NEWDATE, 0, ((12345 << 9) | 33).to_bytes(3, "little")),
                                  (R.MYSQL_TYPE_NEWDECIMAL, 9 << 8, b"\xbb\x9a\xca\x00"),
                                  (R.MYSQL_TYPE_DATETIME2, 0, bytes(5))]:
        table_map = R.TableMapBody(1, 0, b"d", b"t", bytes([col_type]), [meta], b"\x01", b"")
        plan = c_text_plan(table_map, 0, b"\x01", b"\x01", 1, 1)
        assert speedups.rows_text(plan, b"\x00" + value) is None


# -- whole prints: the C row-statement printer against the Python path ------------------

@needs_c
@pytest.mark.parametrize("name", ["crc32", "none", "compressed"])
def test_whole_sets_same_both_ways(name):
    assert_same(SETS[name], expect_fast=True)
    assert_same(SETS[name], chunk=97)      # statements straddle every buffer end
    assert_same(SETS[name], chunk=1500)


@needs_c
@pytest.mark.parametrize("ahead,ahead_max", [(64, 1 << 24), (64, 4096)], ids=["grows", "capped"])
@pytest.mark.parametrize("options", [{}, {"base64_output": "decode-rows", "verbose": 2}],
                         ids=["default", "vv-decode-rows"])
def test_row_statements_longer_than_the_read_ahead(ahead, ahead_max, options):
    """A statement running past the C printer's read-ahead (a bulk INSERT can be megabytes)
    is retried with more read-ahead (remembered for the next statement), up to a cap past
    which the Python handlers print it; the text is the same every way."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ReadAhead, "START", ahead)
        mp.setattr(ReadAhead, "MAX", ahead_max)
        text = assert_same(SETS["crc32"], **options)
        _, events = run_dump(SETS["crc32"], False, **options)
    assert events > 0 and text == run_dump(SETS["crc32"], False, **options)[0]


def test_statement_runs_past_the_buffer():
    """Only a statement whose STMT_END_F event is not (whole) in the buffer asks for more
    read-ahead; one left to Python for other reasons does not."""
    from binlogkit.printer.driver import statement_runs_past
    path = SETS["crc32"][1]
    data = path.read_bytes()
    with BinlogReader(str(path)) as reader:
        reader.read_magic()
        raws = list(reader.events())
        fde = reader.fde
    starts = [raw for raw in raws if raw.type_code == 19]       # a Table_map starts each
    assert starts
    for start in starts[:20]:
        end = next(raw for raw in raws if raw.pos > start.pos and raw.type_code in ROW_TYPES
                   and raw.type_code != 19 and raw.type_code != 160
                   and rows_flags(raw, fde) & 1)
        whole = data[:end.pos + end.event_size]
        assert statement_runs_past(whole, start.pos, fde) is False
        assert statement_runs_past(whole[:-1], start.pos, fde) is True
        assert statement_runs_past(data[:end.pos + 10], start.pos, fde) is True
    gtid = next(raw for raw in raws if raw.type_code == 162)
    assert statement_runs_past(data[:gtid.pos + gtid.event_size + 5], gtid.pos, fde) is False


def rows_flags(raw, fde):
    at = raw.pos + fde.header_len + 6
    return struct.unpack_from("<H", raw.data, at - raw.pos)[0]


# -v/-vv text and decode-rows: the C printer prints these statements too
VERBOSE_OPTIONS = [{"verbose": 1}, {"verbose": 2}, {"base64_output": "decode-rows"},
                   {"base64_output": "decode-rows", "verbose": 2},
                   {"base64_output": "always", "verbose": 1}]


@needs_c
@pytest.mark.parametrize("options", VERBOSE_OPTIONS, ids=lambda o: "-".join(map(str, o.values())))
@pytest.mark.parametrize("name", ["crc32", "none", "compressed"])
def test_verbose_and_decode_rows_same_both_ways(name, options):
    assert_same(SETS[name], expect_fast=True, **options)
    assert_same(SETS[name], chunk=97, **options)


@needs_c
@pytest.mark.parametrize("options", [{"verbose": 1}, {"base64_output": "decode-rows", "verbose": 2}],
                         ids=["v", "vv-decode-rows"])
def test_verbose_every_stop_position(options):
    files = SETS["crc32"][1:3]
    for pos, type_code, _, size in event_starts(files[-1]):
        if type_code in ROW_TYPES:
            assert_same(files, stop_position=pos, **options)
            assert_same(files, stop_position=pos + size // 2, **options)


@needs_c
@pytest.mark.parametrize("options", [{}, {"verbose": 1}, {"base64_output": "decode-rows", "verbose": 2}],
                         ids=["default", "v", "vv-decode-rows"])
def test_corrupt_rows_same_both_ways(options):
    """Damaged row images (fixtures/corrupt): the C printer leaves the statement to
    Python, which prints what mariadb-binlog prints and stops with the same error."""
    files = sorted((ROOT / "fixtures" / "corrupt").glob("*.bin"))
    assert len(files) >= 10
    for path in files:
        assert_same([path], **options)


@needs_c
@pytest.mark.parametrize("name", ["crc32", "none"])
def test_every_stop_position(name):
    """--stop-position at every event start, and inside every row statement event."""
    files = SETS[name][:2]
    for pos, type_code, _, size in event_starts(files[-1]):
        assert_same(files, stop_position=pos)
        if type_code in ROW_TYPES:
            assert_same(files, stop_position=pos + size // 2)


@needs_c
@pytest.mark.parametrize("options", [{}, {"base64_output": "decode-rows", "verbose": 2}],
                         ids=["default", "vv-decode-rows"])
@pytest.mark.parametrize("name", ["crc32", "none"])
def test_start_positions_and_datetimes(name, options):
    path = SETS[name][1]
    starts = event_starts(path)
    for pos, type_code, _, _ in starts:
        if type_code in ROW_TYPES:
            assert_same([path], start_position=pos, **options)
    for when in sorted({w for _, _, w, _ in starts})[1:]:
        assert_same([path], stop_datetime=when, **options)
        assert_same([path], start_datetime=when, **options)
    assert_same([path], offset=7, **options)


@pytest.mark.parametrize("options", [
    {"short_form": True}, {"hexdump": True}, {"base64_output": "never"},
    {"print_row_count": False}, {"print_row_event_positions": False},
    {"skip_annotate_row_events": True}, {"database": b"test"}, {"server_id": 1},
    {"verify_checksum": True}, {"verbose": 2, "hexdump": True}, {"verbose": 1, "database": b"test"},
])
@needs_c
def test_other_options_take_the_python_path(options):
    assert_same(SETS["crc32"], expect_fast=False, **options)


@needs_c
def test_python_switch_is_complete():
    """run_dump(pure=True) really runs no C code: a broken speedups would show."""
    out, events = run_dump(SETS["crc32"][:1], True)
    assert events == 0 and b"# Number of rows:" in out


# -- a real binlog from a server, against the real tool ---------------------------------

@needs_c
@pytest.mark.server
def test_server_binlog_identical_to_mariadb_binlog(tmp_path):
    """A few MB of concurrent mixed row traffic (bench/make_big_binlog.py's workload):
    default and -vv output equal mariadb-binlog's, C and pure paths."""
    from binlogkit.lab.server import find_binary, server_available
    tool = find_binary("mariadb-binlog", "mysqlbinlog")
    if not server_available() or tool is None:
        pytest.skip("mariadbd / mariadb-binlog not installed")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import make_big_binlog
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert make_big_binlog.main(["--size-mb", "3", "--threads", "3", "--out", str(tmp_path)]) == 0
    binlog = next(tmp_path.glob("mariadb-bin.0*"))
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    for args in ([], ["-vv", "--base64-output=decode-rows"], ["--stop-position=2000000"]):
        want = subprocess.run([tool, "--no-defaults", *args, str(binlog)], env=env,
                              capture_output=True, check=True).stdout
        for pure in ("0", "1"):
            got = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, str(binlog)],
                                 env=dict(env, BINLOGKIT_PURE=pure), capture_output=True)
            assert got.returncode == 0, got.stderr.decode()
            assert got.stdout == want, f"differs from mariadb-binlog: {args} pure={pure}"


# -- the sink: committed text handed out while C works ---------------------------------

class TinySinkSpeedups:
    """speedups whose row-statement printer hands its text to the sink after every
    statement and every BINLOG event (sink_at=1), counting the hand-outs, and stops
    after the first statement or transaction of each call (soft_end just past rel)."""

    def __init__(self):
        self.calls = 0

    def __getattr__(self, name):
        return getattr(speedups, name)

    def print_row_statements(self, buf, rel, pos, ctx, sink=None, sink_at=None, soft_end=None):
        def counted(chunk):
            assert isinstance(chunk, memoryview) and len(chunk) > 0
            self.calls += 1
            sink(chunk)
        return speedups.print_row_statements(buf, rel, pos, ctx, counted if sink else None, 1,
                                             rel + 1 if soft_end is not None else None)


@needs_c
@pytest.mark.parametrize("options", [{}, {"verbose": 2}, {"base64_output": "decode-rows"}])
@pytest.mark.parametrize("name", sorted(SETS))
def test_text_through_the_sink_is_the_same(name, options):
    """Handed out in pieces, a statement or transaction per call: the same text."""
    fast, _ = run_dump(SETS[name], False, **options)
    tiny = TinySinkSpeedups()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dump_mod, "speedups", tiny)
        out = io.BytesIO()
        with tempfile.TemporaryDirectory() as load_dir:
            dump_mod.dump([str(f) for f in SETS[name]], out,
                          PrintOptions(local_load=load_dir, **options), ZONE)
        sunk = out.getvalue().replace(load_dir.encode(), b"LOAD_DIR")
    assert sunk == fast
    assert tiny.calls > 0


@needs_c
def test_a_kept_chunk_of_the_sink_is_released():
    """The memoryview is C's own buffer, reused: one kept past the call is released."""
    kept = []

    class Keeping(TinySinkSpeedups):
        def print_row_statements(self, buf, rel, pos, ctx, sink=None, *more):
            def keep(chunk):
                kept.append(chunk)
                sink(chunk)
            return super().print_row_statements(buf, rel, pos, ctx, keep if sink else None, *more)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dump_mod, "speedups", Keeping())
        with tempfile.TemporaryDirectory() as load_dir:
            dump_mod.dump([str(f) for f in SETS["crc32"]], io.BytesIO(),
                          PrintOptions(local_load=load_dir), ZONE)
    assert kept
    for view in kept:
        with pytest.raises(ValueError):
            bytes(view)


@needs_c
def test_a_sink_error_is_the_printer_s_error():
    """A sink that fails (a reader that went away) fails the C printer with its own error,
    the view released all the same."""
    class Failing(TinySinkSpeedups):
        def print_row_statements(self, buf, rel, pos, ctx, sink=None, *more):
            def fail(chunk):
                raise BrokenPipeError(32, "Broken pipe")
            return super().print_row_statements(buf, rel, pos, ctx, fail if sink else None, *more)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dump_mod, "speedups", Failing())
        with tempfile.TemporaryDirectory() as load_dir, pytest.raises(BrokenPipeError):
            dump_mod.dump([str(f) for f in SETS["crc32"]], io.BytesIO(),
                          PrintOptions(local_load=load_dir), ZONE)


@pytest.mark.parametrize("options", [[], ["-vv"]])
def test_a_reader_that_goes_away_gets_no_traceback(options):
    """`binlogkit print ... | head`: the first bytes, then quiet (exit 1, nothing on stderr)."""
    files = [str(f) for name in ("crc32", "compressed") for f in SETS[name]] * 8
    proc = subprocess.Popen([sys.executable, "-m", "binlogkit", "print", "--no-defaults", *options,
                             *files], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert first.startswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;") and err == b""


# -- the events between row statements (csrc/mariadb.c, printer/mariadb/fast.py) --------

def python_event_types(files, **options):
    """{type code: events process_event saw} of a C-path run (the rest C printed)."""
    seen = {}
    original = dump_mod.Printer.process_event

    def counting(self, reader, raw, stop_position):
        seen[raw.type_code] = seen.get(raw.type_code, 0) + 1
        return original(self, reader, raw, stop_position)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dump_mod.Printer, "process_event", counting)
        run_dump(files, False, **options)
    return seen


@needs_c
def test_gtid_xid_and_query_events_printed_in_c():
    """On the bundled logs C prints most GTID, Xid and Query events (Python gets the first
    of a session state, XA groups, filters...) and the text is the pure path's."""
    files = SETS["crc32"]
    total = {}
    for path in files:
        for _, type_code, _, _ in event_starts(path):
            total[type_code] = total.get(type_code, 0) + 1
    seen = python_event_types(files)
    for type_code in (162, 16, 2):      # GTID, Xid, Query
        assert seen.get(type_code, 0) < total[type_code] // 2, (type_code, seen, total)
    assert_same(files, expect_fast=True)


@needs_c
@pytest.mark.parametrize("options", [{"verbose": 3}, {"gtid_strict_mode": False},
                                     {"gtid_strict_mode": False, "verbose": 1},
                                     {"delimiter_test": None}],
                         ids=["vvv-validator-kept", "no-strict", "no-strict-v", "default"])
@pytest.mark.parametrize("name", ["crc32", "none", "compressed", "regress"])
def test_transactions_same_both_ways(name, options):
    """GTID validator kept or dropped, every regress log (two-phase ALTER, GTID wrap,
    Query flags, collations, encrypted), each file alone and read in tiny chunks."""
    options = {k: v for k, v in options.items() if k != "delimiter_test"}
    files = (SETS[name] if name != "regress"
             else sorted((ROOT / "fixtures" / "binlog" / "regress").glob("*/mariadb-bin.*")))
    for path in files:
        assert_same([path], **options)
    assert_same(files[:3], chunk=211, **options)


def _user_var(name, value=None, type_code=0, charset=33, flags=None, value_len=None):
    """A User_var event body: NULL without a value."""
    body = struct.pack("<I", len(name)) + name
    if value is None:
        return body + b"\1"
    body += struct.pack("<BBII", 0, type_code, charset, len(value) if value_len is None else value_len)
    return body + value + (b"" if flags is None else bytes([flags]))


USER_VARS = [      # (body, whether C prints it)
    (_user_var(b"plain"), True), (_user_var(b"back`tick``"), True), (_user_var(b""), True),
    (_user_var(b"r", struct.pack("<d", 1e300), 1), True), (_user_var(b"r", struct.pack("<d", -0.0), 1), True),
    (_user_var(b"r", struct.pack("<d", 1 / 3), 1, flags=0), True),
    (_user_var(b"r", struct.pack("<d", 2.5e-7), 1), True),
    (_user_var(b"r", struct.pack("<d", float("inf")), 1), False),
    (_user_var(b"r", struct.pack("<d", float("nan")), 1), False),
    (_user_var(b"r", struct.pack("<f", 1.5), 1), True), (_user_var(b"r", struct.pack("<d", 7.0) + b"xy", 1), True),
    (_user_var(b"i", struct.pack("<q", -1), 2, flags=0), True),
    (_user_var(b"u", struct.pack("<q", -1), 2, flags=1), True),
    (_user_var(b"i", b"\x01\x02\x03", 2), True), (_user_var(b"i", b"\xff" * 12, 2), True),
    (_user_var(b"s", "é`x'\n".encode(), 0, 33), True), (_user_var(b"s", b"\0\xff", 0, 63), True),
    (_user_var(b"s", b"", 0, 8), True), (_user_var(b"s", b"abc", 0, 9999), False),
    (_user_var(b"d", b"\x0a\x02\x80\x00\x00\x01\x00", 4), False),
    (_user_var(b"row", b"", 3), False), (_user_var(b"odd", b"1", 9), False),
]
BAD_USER_VARS = [struct.pack("<I", 50) + b"short\0", _user_var(b"x")[:-1], _user_var(b"v", b"abc", 0)[:-2],
                 _user_var(b"v", b"abc", 0, value_len=9), struct.pack("<I", 1) + b"v\0\0"]


def _statement_log(tmp_path, name, bodies):
    """fixtures' none/mariadb-bin.000001 up to its first GTID, then User_var (and Rand)
    events made here: (type, body) each."""
    data = bytearray((ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000001").read_bytes()[:322])
    for type_code, body in bodies:
        size = 19 + len(body)
        data += struct.pack("<IBIIIH", 1700000000, type_code, 1, size, len(data) + size, 0) + body
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


@needs_c
def test_user_var_and_rand_same_both_ways(tmp_path):
    """User_var and Rand events (statement-format logs) printed by csrc/mariadb.c against
    the Python printers: names with backticks, REAL values (infinite and NaN ones are
    Python's), INT signed and unsigned, short and long values, strings of known and
    unknown charsets, DECIMAL, ROW and unknown types (Python's), damaged events (Python's
    error), in the default output, -vv and --flashback."""
    rands = [(13, struct.pack("<QQ", 1, 2)), (13, struct.pack("<QQ", 1 << 63, (1 << 64) - 1))]
    good = _statement_log(tmp_path, "good.000001", [(14, b) for b, _ in USER_VARS] + rands)
    for options in ({}, {"verbose": 2}, {"flashback": True}):
        text = assert_same([good], expect_fast=True, **options)
        assert text.count(b"\tUser_var\n") == len(USER_VARS) and text.count(b"\tRand\n") == 2
    for n, (body, in_c) in enumerate(USER_VARS):     # C prints each one it can
        _, events = run_dump([_statement_log(tmp_path, "one.000001", [(14, body)] * 3)], False)
        assert (events == 3) == in_c, n
    for n, body in enumerate(BAD_USER_VARS):
        path = _statement_log(tmp_path, f"bad{n}.000001", [(14, USER_VARS[0][0]), (14, body), rands[0]])
        for options in ({}, {"flashback": True}):
            assert b"ERROR: " in assert_same([path], **options)


@needs_c
def test_out_of_order_gtid_same_both_ways(tmp_path):
    """A GTID behind its domain's last one (a file given twice): strict mode stops with the
    same error on both paths, and warns without it."""
    path = SETS["crc32"][1]
    for strict in (True, False):
        out = assert_same([path, path], gtid_strict_mode=strict)
        assert (b"ERROR: " in out) == strict


# -- --flashback in C (csrc/mariadb.c) ---------------------------------------------------

@needs_c
@pytest.mark.parametrize("name", ["crc32", "none", "compressed", "regress", "corrupt"])
def test_flashback_same_both_ways(name):
    """--flashback through the C printer (held GTID, Xid and rows statements, rows
    reversed in C) against the pure path: each file, all of a set together, tiny read
    chunks; damaged row images go to Python and its error."""
    files = (SETS[name] if name in SETS
             else sorted((ROOT / "fixtures" / "corrupt").glob("*.bin")) if name == "corrupt"
             else sorted((ROOT / "fixtures" / "binlog" / "regress").glob("*/mariadb-bin.*")))
    for path in files:
        assert_same([path], flashback=True)
    if name in SETS:
        assert_same(files, expect_fast=True, flashback=True)
        assert_same(files, chunk=173, flashback=True)


@needs_c
@pytest.mark.parametrize("spill_at", [1, 100, 5000])
def test_flashback_spilled_held_text_same_both_ways(spill_at, monkeypatch):
    """The held text C appends (csrc/mariadb.c held_append) spills to the temporary file as
    HeldText.append spills it: every event, every few, the blocks read back last to first."""
    monkeypatch.setattr(FB.HeldText, "SPILL_AT", spill_at)
    assert_same(SETS["crc32"], expect_fast=True, flashback=True)
    assert_same(SETS["compressed"], chunk=173, flashback=True)


@needs_c
def test_held_reversed_same_as_python():
    """speedups.held_reversed (a block of HeldText.write_reversed) against its Python twin,
    on random texts, empty ones included, every block; ranges it must refuse."""
    rnd = random.Random(25)
    held = FB.HeldText()
    texts = [rnd.randbytes(rnd.choice((0, 0, 1, 7, 90))) for _ in range(400)]
    for text in texts:
        held.append(text)
    region, ends = bytes(held.buf), memoryview(held.ends).cast("Q")
    for _ in range(300):
        lo = rnd.randrange(len(texts) + 1)
        hi = rnd.randrange(lo, len(texts) + 1)
        base = ends[lo - 1] if lo else 0
        sub = region[base:ends[hi - 1] if hi else 0]
        assert speedups.held_reversed(sub, ends, lo, hi, base) == FB.reversed_texts_py(
            memoryview(sub), ends, lo, hi, base) == b"".join(reversed(texts[lo:hi]))
    for lo, hi, base, sub in ((0, 401, 0, region), (5, 4, 0, region), (-1, 3, 0, region),
                              (0, 10, 0, region[:3]), (10, 20, 0, region[:5])):
        with pytest.raises(ValueError):
            speedups.held_reversed(sub, ends, lo, hi, base)


@needs_c
def test_flashback_every_stop_position():
    files = SETS["crc32"][1:3]
    for pos, type_code, _, size in event_starts(files[-1]):
        assert_same(files, stop_position=pos, flashback=True)
        if type_code in ROW_TYPES:
            assert_same(files, stop_position=pos + size // 2, flashback=True)


@pytest.mark.parametrize("options", [{"verbose": 1}, {"print_row_event_positions": True},
                                     {"short_form": True}, {"base64_output": "decode-rows"}])
@needs_c
def test_flashback_with_other_options_takes_the_python_path(options):
    assert_same(SETS["crc32"], expect_fast=False, flashback=True, **options)
