"""The C accelerator (binlogkit._speedups) against the pure-Python reference.

Every C function has a pure-Python twin; these tests feed both the same input
and compare the results byte for byte: base64 lines, header text, framing,
row counting over compiled plans, and whole `binlogkit print` runs with the C
row-statement printer on and off (every stop position, start positions,
datetimes, tiny read buffers so statements straddle buffer ends).  The
recorded mariadb-binlog cases run the pure path too (test_print_oracle.py).
"""
import io
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from binlogkit.binlog import reader as reader_mod
from binlogkit.binlog import rows as R
from binlogkit.binlog.reader import BinlogReader, PyRawEvent
from binlogkit.errors import BinlogError
from binlogkit.printer import dump as dump_mod
from binlogkit.printer import events as P
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
            mp.setattr(P, "base64_lines", P.base64_lines_py)
            mp.setattr(P, "header_text", P.header_text_py)
            mp.setattr(dump_mod, "speedups", None)
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
        assert speedups.base64_lines(data) == P.base64_lines_py(data), n
    assert speedups.base64_lines(memoryview(b"abcdef")[1:4]) == P.base64_lines_py(b"bcd")


@needs_c
def test_header_text():
    for args in [(b"261121  9:49:16", 1, 256, 0x3CA21F6F), (b"700101  0:00:00", 0, 0, None),
                 (b"380119  3:14:07", 4294967295, 4294967295, 0), (b"x" * 300, 7, 12, 0xFFFFFFFF),
                 (b"", 1, 2, 5)]:
        assert speedups.header(*args) == P.header_text_py(*args), args


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


# -- whole prints: the C row-statement printer against the Python path ------------------

@needs_c
@pytest.mark.parametrize("name", ["crc32", "none", "compressed"])
def test_whole_sets_same_both_ways(name):
    assert_same(SETS[name], expect_fast=True)
    assert_same(SETS[name], chunk=97)      # statements straddle every buffer end
    assert_same(SETS[name], chunk=1500)


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
@pytest.mark.parametrize("name", ["crc32", "none"])
def test_start_positions_and_datetimes(name):
    path = SETS[name][1]
    starts = event_starts(path)
    for pos, type_code, _, _ in starts:
        if type_code in ROW_TYPES:
            assert_same([path], start_position=pos)
    for when in sorted({w for _, _, w, _ in starts})[1:]:
        assert_same([path], stop_datetime=when)
        assert_same([path], start_datetime=when)
    assert_same([path], offset=7)


@pytest.mark.parametrize("options", [
    {"short_form": True}, {"hexdump": True}, {"verbose": 1}, {"base64_output": "never"},
    {"print_row_count": False}, {"print_row_event_positions": False},
    {"skip_annotate_row_events": True}, {"database": b"test"}, {"server_id": 1},
    {"verify_checksum": True}, {"base64_output": "decode-rows", "verbose": 2},
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
