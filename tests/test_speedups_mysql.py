"""The MySQL flavor's C row-statement printer against the pure-Python path.

`binlogkit print --flavor=mysql` is run in-process twice on every public
MySQL binlog in ../shared/peer/mysql-binlogs (and on the compressed and
plain binlogs bench/make_mysql_compressed_binlog.py writes, small), once
with the C accelerator and once with the pure-Python code (the reference,
as with BINLOGKIT_PURE=1), under several option sets and read-buffer sizes;
the bytes (and the error, if any) must be the same.  The C printer's -v
value text is also compared with printer/mysql/verbose.py column by column
on random rows events.  Peer cases skip when ../shared is absent.
"""
import io
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from binlogkit.binlog import reader as reader_mod
from binlogkit.binlog import rows as R
from binlogkit.binlog.reader import PyRawEvent
from binlogkit.errors import BinlogError
from binlogkit.printer.driver import ReadAhead
from binlogkit.printer.mysql import fast as fast_mod
from binlogkit.printer.mysql import gtid as gtid_mod
from binlogkit.printer.mysql import jsontext
from binlogkit.printer.mysql.driver import dump_mysql
from test_mysql_print_peer import readable
from test_speedups import _CountingSpeedups
from binlogkit.printer.mysql.verbose import print_verbose
from binlogkit.printer.state import PrintOptions
from binlogkit.tz import ZoneTable

try:
    from binlogkit import _speedups as speedups
except ImportError:
    speedups = None

pytestmark = pytest.mark.skipif(speedups is None, reason="C accelerator not built")

ROOT = Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs"
PEER_FILES = sorted(p for p in PEER.glob("*/*") if p.is_file()) if PEER.is_dir() else []
ZONE = ZoneTable.from_tz("America/New_York")
OPTION_SETS = {
    "default": {},
    "v": {"verbose": 1},
    "vv": {"verbose": 2},
    "decode-rows": {"base64_output": "decode-rows"},
    "vv-decode-rows": {"base64_output": "decode-rows", "verbose": 2},
    "vv-metadata": {"verbose": 2, "print_table_metadata": True},
}


def run_mysql(path, pure, chunk=None, gtids=None, **options):
    """(output with the error line if any, events the C printer printed)."""
    counting = _CountingSpeedups()
    with pytest.MonkeyPatch.context() as mp:
        if pure:
            mp.setattr(reader_mod, "speedups", None)
            mp.setattr(reader_mod, "RawEvent", PyRawEvent)
            mp.setattr(R, "speedups", None)
            mp.setattr(fast_mod, "speedups", None)
        else:
            mp.setattr(fast_mod, "speedups", counting)
        if chunk:
            mp.setattr(reader_mod, "CHUNK_SIZE", chunk)
        out = io.BytesIO()
        with tempfile.TemporaryDirectory() as load_dir:
            try:
                dump_mysql([str(path)], out, PrintOptions(local_load=load_dir, force_if_open=True,
                                                          **options), ZONE,
                           gtids or gtid_mod_filter())
            except BinlogError as exc:
                out.write(b"ERROR: " + str(exc).encode())
            return out.getvalue().replace(load_dir.encode(), b"LOAD_DIR"), counting.events


def gtid_mod_filter():
    from binlogkit.printer.mysql.gtidset import GtidFilter
    return GtidFilter()


def assert_same(path, chunk=None, gtids=None, **options):
    fast, events = run_mysql(path, False, chunk, gtids, **options)
    pure, _ = run_mysql(path, True, chunk, gtids, **options)
    if fast != pure:
        import difflib
        diff = "".join(difflib.unified_diff(
            pure.decode("latin-1").splitlines(keepends=True),
            fast.decode("latin-1").splitlines(keepends=True), "python", "c", n=2))
        pytest.fail(f"C and Python differ on {path.name} {options} (chunk {chunk}):\n{diff[:6000]}",
                    pytrace=False)
    return events


@pytest.mark.skipif(not PEER_FILES, reason="../shared/peer/mysql-binlogs is absent")
@pytest.mark.parametrize("mode", sorted(OPTION_SETS))
def test_peer_binlogs_same_both_ways(mode, tmp_path):
    used = 0
    for path in PEER_FILES:
        used += assert_same(readable(path, tmp_path), **OPTION_SETS[mode])
    assert used > 0, "the C printer printed no MySQL row statement"


@pytest.mark.skipif(not PEER_FILES, reason="../shared/peer/mysql-binlogs is absent")
@pytest.mark.parametrize("mode", ["default", "vv-decode-rows"])
def test_peer_binlogs_small_buffers(mode, tmp_path):
    """Statements straddling every end of the read buffer."""
    for path in PEER_FILES:
        assert_same(readable(path, tmp_path), chunk=97, **OPTION_SETS[mode])


@pytest.fixture(scope="module")
def bench_binlogs(tmp_path_factory):
    """A small compressed binlog and its plain twin (bench/make_mysql_compressed_binlog.py)."""
    pytest.importorskip("zstandard")
    out = tmp_path_factory.mktemp("mysqlbench")
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_mysql_compressed_binlog.py"),
                    "--mb", "0.2", "--out", str(out)], check=True, capture_output=True)
    return sorted(out.glob("mysql80-*.000001"))


@pytest.mark.parametrize("mode", sorted(OPTION_SETS))
def test_compressed_and_plain_twins_same_both_ways(bench_binlogs, mode):
    for path in bench_binlogs:
        events = assert_same(path, **OPTION_SETS[mode])
        assert events > 100, f"C printer printed {events} events of {path.name}"


@pytest.mark.parametrize("name", ["plain", "compressed"])
def test_positions_datetimes_and_offsets(bench_binlogs, name):
    """Stop and start positions at and inside events of every kind the C printer
    prints (GTID, BEGIN, Table_map, rows, Xid, Transaction_payload), stop
    datetimes, --offset: the C printer stops or starts where Python does."""
    path = [p for p in bench_binlogs if name in p.name][0]
    starts = []
    with reader_mod.BinlogReader(str(path)) as reader:
        reader.read_magic()
        for raw in reader.events():
            starts.append((raw.pos, raw.event_size, raw.when))
            if len(starts) > 24:
                break
    for pos, size, when in starts:
        assert_same(path, stop_position=pos)
        assert_same(path, stop_position=pos + size // 2, verbose=2)
        assert_same(path, start_position=pos, verbose=1)
    for _, _, when in starts[::4]:
        assert_same(path, stop_datetime=when + 1)
        assert_same(path, start_datetime=when, base64_output="decode-rows", verbose=1)
    for offset in (1, 2, 3, 7):
        assert_same(path, offset=offset)


@pytest.mark.parametrize("name", ["plain", "compressed"])
def test_gtid_options_same_both_ways(bench_binlogs, name):
    """--skip-gtids, --include-gtids, --exclude-gtids: GTID, BEGIN and Xid events are
    then Python's, row statements may still be C's."""
    from binlogkit.printer.mysql.gtidset import GtidFilter
    path = [p for p in bench_binlogs if name in p.name][0]
    assert assert_same(path, gtids=GtidFilter(skip=True)) > 0
    anonymous = GtidFilter.from_options("00000000-0000-0000-0000-000000000000:1", None, False)
    assert_same(path, gtids=anonymous, verbose=1)
    assert_same(path, gtids=GtidFilter.from_options(None, "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5",
                                                    False))


@pytest.mark.skipif(not PEER_FILES, reason="../shared/peer/mysql-binlogs is absent")
def test_peer_binlogs_every_stop_position(tmp_path):
    """The real MySQL binlogs with GTIDs, compression and rows: --stop-position at
    every event start and in the middle of every event."""
    names = ("binlog_transaction_with_GTID.000001", "transaction_compression.000001",
             "binlog-invisible-columns.000001", "mysql-bin.checksum-crc32")
    paths = [p for p in PEER_FILES if p.name in names]
    assert paths
    for path in paths:
        with reader_mod.BinlogReader(str(path)) as reader:
            reader.read_magic()
            starts = [(raw.pos, raw.event_size) for raw in reader.events()]
        for pos, size in starts[:300]:
            assert_same(path, stop_position=pos)
            assert_same(path, stop_position=pos + size // 2, verbose=2)


def test_payload_frames_match_python():
    rnd = random.Random(5)
    events = []
    for _ in range(5):
        body = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 300)))
        header = struct.pack("<IBIIIH", rnd.randrange(1 << 32), 19, 7, 19 + len(body), 1234, 0)
        events.append(header + body)
    payload = b"".join(events)
    for has_crc in (False, True):
        frames = speedups.payload_frames(payload, has_crc)
        expected = b"".join(
            gtid_mod.inner_event(raw, 999, has_crc).data
            for raw in __import__("binlogkit.binlog.mysql_events", fromlist=["x"])
            .split_payload_events(payload, 4))
        assert frames == expected
    assert speedups.payload_frames(payload[:-1], True) is None


# -- -v text of random rows events, against printer/mysql/verbose.py -----------------------

KINDS = ("write", "update", "delete")


def check_mysql_rows_text(table_map, body):
    """The C text of a MySQL plan == print_verbose's, whenever C prints; True if it did."""
    printed = True
    for verbose in (1, 2):
        plan = fast_mod.c_text_plan(table_map, KINDS.index(body.kind), body.cols, body.cols_ai,
                                    body.width, verbose)
        got = speedups.rows_text(plan, body.rows) if plan is not None and body.rows else None
        if got is not None:
            want = print_verbose(table_map, body, verbose, False, jsontext)
            assert got[0] == want, f"-v{verbose} text differs"
        printed = printed and got is not None
    return printed


def test_rows_text_random_and_edge_values():
    """Every column type the C value printer covers, with edge values (control bytes,
    quotes and backslashes in strings, NaN, negative old TIME, DATE past 9999...)."""
    from test_speedups import _random_rows_event
    rnd = random.Random(20261125)
    handled = {True: 0, False: 0}
    for i in range(2500):
        valid = i % 3 != 0
        table_map, body = _random_rows_event(rnd, valid)
        handled[valid] += check_mysql_rows_text(table_map, body)
    assert handled[True] > 1000          # most valid events print in C
    assert handled[False] < 800          # damaged ones mostly go back to Python


def test_rows_text_quote_table():
    """mysqlbinlog's quote table: \\b \\f \\n \\r \\t \\\\ \\' by name, other controls as \\xNN."""
    tm = R.TableMapBody(3, 0, b"db", b"t", bytes([R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_DATETIME]),
                        [100, 0], b"\xff", b"")
    value = bytes(range(0x20)) + b"'\\a\x7f\xff"
    rows = b"\0" + bytes([len(value)]) + value + struct.pack("<Q", 20261125123456)
    body = R.RowsBody(3, 1, "write", 2, b"\x03", b"\x03", rows)
    assert check_mysql_rows_text(tm, body)
    text = speedups.rows_text(fast_mod.c_text_plan(tm, 0, b"\x03", b"\x03", 2, 1), rows)[0]
    assert b"\\b\\t\\n\\x0b\\f\\r" in text and b"\\'\\\\a" in text
    assert b"@2=2026-11-25 12:34:56\n" in text        # old DATETIME: not quoted


# -- hand-made binlogs: payloads, queries and GTIDs the C printer must leave or print -----

def _bench_builder():
    import importlib.util
    pytest.importorskip("zstandard")
    spec = importlib.util.spec_from_file_location(
        "make_mysql_compressed_binlog", ROOT / "bench" / "make_mysql_compressed_binlog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write_binlog(path, items):
    """A MySQL 8.0 binlog (CRC32) of (type, body) events after the FDE."""
    b = _bench_builder()
    with open(path, "wb") as f:
        w = b.Writer(f)
        fde = struct.pack("<H50sIB", 4, b"8.0.40", b.START, 19) + b.FDE_POST_HEADER + b"\x01"
        w.event(15, fde, b.START)
        for type_code, body in items:
            w.event(type_code, body, b.START + 1)
    return path


def _variants():
    b = _bench_builder()
    rng = random.Random(7)
    when = b.START + 1
    good = b.transaction(rng, 1, when)

    def gtid(seq):
        return 34, b.anonymous_gtid(seq, when, 100)

    def payload_of(events, raw_payload=None, ctype=0, frames="sized"):
        raw = b"".join(b.inner(t, body, when) for t, body in events) if raw_payload is None else raw_payload
        zc = __import__("zstandard").ZstdCompressor()
        if ctype != 0:
            data = raw
        elif frames == "sized":
            data = zc.compress(raw)
        elif frames == "unsized":           # as the server's streaming compressor writes it
            stream = zc.compressobj()
            data = stream.compress(raw) + stream.flush()
        else:                               # two frames, one after the other
            data = zc.compress(raw[:40]) + zc.compress(raw[40:])
        return 40, b.tlv(1, len(data)) + b.tlv(2, ctype) + b.tlv(3, len(raw)) + b"\x00" + data

    other_db = b.query(b"BEGIN", when).replace(b"\x04test\x00", b"\x04prod\x00")
    insert = (2, b.query(b"INSERT INTO t VALUES (1)", when))
    return {
        "plain": [gtid(1), *good, gtid(2), *b.transaction(rng, 2, when)],
        "payloads": [gtid(1), payload_of(good), gtid(2), payload_of(b.transaction(rng, 2, when))],
        "uncompressed-payload": [gtid(1), payload_of(good, ctype=255)],
        "unsized-zstd-payload": [gtid(1), payload_of(good, frames="unsized")],
        "two-frame-payload": [gtid(1), payload_of(good, frames="two")],
        "statement-in-payload": [gtid(1), payload_of([good[0], insert, good[1], good[2], good[3]])],
        "use-changes": [gtid(1), *good, gtid(2), (2, other_db), *good[1:]],
        "bad-inner-type": [gtid(1), payload_of([good[0], (200, b"x" * 8), *good[1:]])],
        "bad-inner-size": [gtid(1), payload_of(None, b.inner(2, good[0][1], when)[:-3])],
        "bad-zstd": [gtid(1), (40, b.tlv(1, 8) + b.tlv(2, 0) + b.tlv(3, 80) + b"\x00" + b"\x28\xb5\x2f\xfd" * 2)],
        "short-xid": [gtid(1), *good[:3], (16, b"\x01\x02")],
        "bad-gno": [(33, b"\x01" + bytes(range(16)) + struct.pack("<q", -5) + b.anonymous_gtid(1, when, 9)[25:]),
                    *good],
        "gtid-gipk-change": [gtid(1), *good,
                             (34, b.anonymous_gtid(2, when, 100)[:-4] + struct.pack("<I", 80020)), *good],
        # statement format: Intvar, Rand and User_var events kept for their Query
        "context-events": [gtid(1), good[0], (5, b"\x02" + struct.pack("<q", 7)),
                           (13, struct.pack("<QQ", 5, (1 << 64) - 3)), *[(14, uv) for uv in _USER_VARS],
                           (5, b"\x01" + struct.pack("<q", -2)), insert, good[-1],
                           gtid(2), (14, _USER_VARS[0]), insert, gtid(3), (13, bytes(16)), insert],
        "context-python": [gtid(1), good[0], (14, _user_var(b"d", b"\x0a\x02\x80\x00\x00\x01\x00", 4)),
                           (14, _user_var(b"s", b"abc", 0, 9999)), insert, good[-1],
                           gtid(2), (14, _user_var(b"r", struct.pack("<d", float("inf")), 1)), insert,
                           gtid(3), (14, _user_var(b"", b"x", 0)), insert],
        "context-no-query": [gtid(1), good[0], (5, b"\x02" + struct.pack("<q", 7)), (14, _USER_VARS[1]),
                             good[-1], gtid(2), (13, bytes(16)), (14, _USER_VARS[2])],
        "context-short": [gtid(1), (13, bytes(15)), insert, gtid(2), (5, b"\x02"), insert,
                          gtid(3), (14, _USER_VARS[3][:-3]), insert],
    }


def _user_var(name, value=None, type_code=0, charset=255, flags=None):
    """A User_var event body: NULL without a value."""
    body = struct.pack("<I", len(name)) + name
    if value is None:
        return body + b"\1"
    body += struct.pack("<BBII", 0, type_code, charset, len(value)) + value
    return body + (b"" if flags is None else bytes([flags]))


_USER_VARS = [_user_var(b"n"), _user_var(b"a`b", struct.pack("<q", -5), 2, 63, 0),
              _user_var(b"u", struct.pack("<q", -1), 2, 63, 1), _user_var(b"r", struct.pack("<d", 0.1), 1, 63),
              _user_var(b"s", "é'\n".encode(), 0, 255), _user_var(b"s", b"", 0, 8),
              _user_var(b"s", b"\0\xff", 0, 63, 0)]


@pytest.mark.parametrize("name", sorted(_variants()) if speedups else [])
@pytest.mark.parametrize("mode", ["default", "vv-decode-rows"])
def test_hand_made_binlogs_same_both_ways(tmp_path, name, mode):
    path = _write_binlog(tmp_path / f"{name}.000001", _variants()[name])
    assert_same(path, **OPTION_SETS[mode])
    assert_same(path, stop_position=path.stat().st_size - 30, **OPTION_SETS[mode])


@pytest.mark.parametrize("mode", ["default", "vv-decode-rows"])
def test_mysql97_statement_logs_same_both_ways(mode):
    """fixtures/mysql97 (a real MySQL 9.7: STATEMENT and MIXED with user variables, RAND()):
    the 9.x User_var text (charsets switched and back) from csrc/uservar.c equals Python's."""
    files = sorted((ROOT / "fixtures" / "mysql97").glob("*/binlog.0*"))
    assert files
    for path in files:
        events = assert_same(path, **OPTION_SETS[mode])
        if path.name.endswith("1"):
            assert events > 0
            assert_same(path, chunk=97, **OPTION_SETS[mode])


@pytest.mark.parametrize("mode", ["default", "vv-decode-rows"])
def test_context_events_printed_in_c(tmp_path, mode):
    """Every event of the hand-made statement-format log (Intvar, Rand, User_var before
    their Query) is printed by the C printer, as Python prints it: all but the first GTID
    and BEGIN (the first Query prints the session's lines, which is Python's)."""
    items = _variants()["context-events"]
    path = _write_binlog(tmp_path / "context.000001", items)
    assert assert_same(path, **OPTION_SETS[mode]) == len(items) - 2


def test_decompress_same_as_the_reference():
    """fast._decompress (the C payload printer's) == mysql_events._zstd_decompress,
    or None where that raises: one frame with and without its size, two frames,
    a cut frame, garbage."""
    zstandard = pytest.importorskip("zstandard")
    from binlogkit.binlog.mysql_events import _zstd_decompress
    c = zstandard.ZstdCompressor()
    one, two = c.compress(b"BEGIN" * 50), c.compress(b"COMMIT" * 30)
    stream = c.compressobj()
    unsized = stream.compress(b"xid" * 100) + stream.flush()
    assert zstandard.frame_content_size(unsized) == -1
    for data in (one, one + two, unsized, unsized + one, one[:-3], b"\x28\xb5\x2f\xfd" * 2, b""):
        try:
            expected = _zstd_decompress(data)
        except ValueError:
            expected = None
        assert fast_mod._decompress(data) == expected


@pytest.mark.parametrize("ahead_max", [1 << 24, 4096], ids=["grows", "capped"])
@pytest.mark.parametrize("mode", ["default", "vv-decode-rows"])
def test_statements_longer_than_the_read_ahead(bench_binlogs, mode, ahead_max):
    """From a 64-byte read-ahead the C printer is retried with 4x more (remembered), up to
    the cap past which Python prints the statement: the same text every way."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ReadAhead, "START", 64)
        mp.setattr(ReadAhead, "MAX", ahead_max)
        for path in bench_binlogs:
            assert assert_same(path, **OPTION_SETS[mode]) > 0


@pytest.mark.parametrize("mode", sorted(OPTION_SETS))
def test_text_through_the_sink_is_the_same(bench_binlogs, mode):
    """The C printer handing its text out after every statement and BINLOG event
    (sink_at=1, after the pending head) prints what it prints in one piece."""
    from test_speedups import TinySinkSpeedups
    for path in bench_binlogs:
        whole, _ = run_mysql(path, False, **OPTION_SETS[mode])
        tiny = TinySinkSpeedups()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fast_mod, "speedups", tiny)
            out = io.BytesIO()
            with tempfile.TemporaryDirectory() as load_dir:
                dump_mysql([str(path)], out, PrintOptions(local_load=load_dir, force_if_open=True,
                                                          **OPTION_SETS[mode]), ZONE,
                           gtid_mod_filter())
        assert out.getvalue().replace(load_dir.encode(), b"LOAD_DIR") == whole
        assert tiny.calls > 100


def test_a_reader_that_goes_away_gets_no_traceback(bench_binlogs):
    """`binlogkit print ... | head` on MySQL logs (the C printer's sink meets the closed
    pipe): the first bytes, then quiet (exit 1, nothing on stderr)."""
    files = [str(p) for p in bench_binlogs] * 4
    proc = subprocess.Popen([sys.executable, "-m", "binlogkit", "print", "--no-defaults", *files],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert first.startswith(b"# The proper term is pseudo_replica_mode") and err == b""
