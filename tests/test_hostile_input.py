"""Hostile input (issue 13): never a traceback, never memory a length field claims,
never a loop that reads nothing, only the BinlogkitError tree from the Python API.

Every run that could crash or hang runs in a subprocess under a 1 GiB
address-space limit and a timeout.
"""
import gzip
import re
import resource
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from binlogkit.binlog import layout as L
from binlogkit.binlog import rows as R
from binlogkit.binlog.json_binary import JsonBinaryError
from binlogkit.binlog.rows import RowsBody, TableMapBody
from binlogkit.binlog.rowvalues import CorruptRowError, Rows, UnsupportedTypeError
from binlogkit.errors import BinlogError

ROOT = Path(__file__).resolve().parent.parent
BINLOG = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"
LAB = ROOT / "fixtures" / "lab"
GIB = 1 << 30


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB))


def run(args, *, timeout=60, cwd=None):
    """A binlogkit command (or python -c) under 1 GiB of address space."""
    argv = [sys.executable, *args] if args[0] == "-c" else [sys.executable, "-m", "binlogkit", *args]
    proc = subprocess.run(argv, capture_output=True, timeout=timeout, cwd=cwd or ROOT,
                          preexec_fn=_limit_memory)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    return proc


def _second_event(data):
    return 4 + struct.unpack_from("<I", data, 4 + 9)[0]


# -- 1. a length field never allocates what it claims ------------------------------------

@pytest.fixture(scope="module")
def huge_length(tmp_path_factory):
    data = bytearray(BINLOG.read_bytes())
    pos = _second_event(data)
    struct.pack_into("<I", data, pos + 9, 0xFFFFFFF0)
    path = tmp_path_factory.mktemp("huge") / "huge.bin"
    path.write_bytes(bytes(data[:pos + 4096]))
    return path, pos


def test_print_huge_length_field_is_event_truncated(huge_length):
    path, pos = huge_length
    proc = run(["print", str(path)])
    assert proc.returncode == 1
    type_code = path.read_bytes()[pos + 4]
    assert proc.stderr.decode().splitlines() == [      # the real tool's two lines, located
        f"ERROR: Error in Log_event::read_log_event(): 'Event truncated', data_len: {0xFFFFFFF0}, "
        f"event_type: {type_code}",
        f"ERROR: {path}, offset {pos}, event type {type_code}: Could not read entry at offset {pos}: "
        "Error in log format or read error."]


def test_reader_huge_length_field_from_a_stream(huge_length):
    path, pos = huge_length
    code = textwrap.dedent(f"""
        import io
        from binlogkit.binlog.reader import BinlogReader
        from binlogkit.errors import TruncatedEventError
        stream = io.BytesIO(open({str(path)!r}, "rb").read())
        with BinlogReader("-", stream=stream) as reader:
            reader.read_magic()
            try:
                for raw in reader.events():
                    pass
            except TruncatedEventError as exc:
                assert exc.offset == {pos}, exc
                print("truncated")
    """)
    assert run(["-c", code]).stdout == b"truncated\n"


# -- 2. a 27-byte file: a format description event too short for its fields -------------

def test_fde_of_23_bytes(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"\xfebin\x02\x69\x01\x6b\x0f\x01\x00\x00\x00\x17\x00\x00\x00\x00\x01\x00\x00"
                     b"\x01\x00\x04\x001\x30")
    proc = run(["print", str(path)])
    assert proc.returncode == 1
    assert proc.stderr.decode().splitlines() == [      # the real tool's two lines, located
        "ERROR: Error in Log_event::read_log_event(): 'Found invalid event in binary log', "
        "data_len: 23, event_type: 15",
        f"ERROR: {path}, offset 4, event type 15: Could not read entry at offset 4: Error in log "
        "format or read error."]


# -- 3.-5. slow logs: corrupt gzip, absurd # Time and SET timestamp ------------------------

def _lab_slowlog():
    return gzip.decompress((LAB / "slow.log.gz").read_bytes())


def test_corrupt_gzip_slowlog(tmp_path):
    packed = bytearray(gzip.compress(_lab_slowlog()))
    for i in range(200, 260):       # inside the deflate stream: not a CRC error only
        packed[i] ^= 0x55
    path = tmp_path / "slow.log.gz"
    path.write_bytes(bytes(packed))
    proc = run(["slowlog", "digest", str(path)])
    assert proc.returncode == 1
    lines = proc.stderr.decode().splitlines()
    # file and byte offset (of the uncompressed text) where the data stops decoding
    assert len(lines) == 1 and re.search(re.escape(str(path)) + r", offset \d+: corrupt compressed data",
                                         lines[0]), lines
    proc = run(["report", "--binlog", *map(str, sorted(LAB.glob("mariadb-bin.*"))),
                "--slowlog", str(path), "--server-tz", "UTC"])
    assert proc.returncode == 1
    assert len(proc.stderr.decode().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("edit", ["time", "timestamp", "query_time"])
def test_absurd_times_in_report_and_digest(tmp_path, edit):
    text = _lab_slowlog()
    if edit == "time":
        text = text.replace(b"# Time: 261121 10:10:56",
                            b"# Time: 9999-12-31T23:59:59.999999+99:99", 1)
    elif edit == "timestamp":   # without any # Time, SET timestamp= is the time
        text = b"".join(line for line in text.splitlines(keepends=True)
                        if not line.startswith(b"# Time:"))
        text = text.replace(b"SET timestamp=1795255856;", b"SET timestamp=99999999999999999;", 1)
    else:
        text = text.replace(b"Query_time: 0.000096", b"Query_time: 1e300", 1)
    path = tmp_path / "slow.log"
    path.write_bytes(text)
    binlogs = list(map(str, sorted(LAB.glob("mariadb-bin.*"))))
    proc = run(["report", "--binlog", *binlogs, "--slowlog", str(path), "--server-tz", "UTC"])
    assert proc.returncode == 3, proc.stderr        # the lab's stalls are still found
    assert run(["slowlog", "digest", str(path)]).returncode == 0


# -- 6. and 8. the rows API: only BinlogError, and no row of no bytes --------------------

def test_row_errors_are_binlog_errors():
    assert issubclass(CorruptRowError, BinlogError) and issubclass(CorruptRowError, ValueError)
    assert issubclass(UnsupportedTypeError, BinlogError)
    assert issubclass(JsonBinaryError, BinlogError)


def _one_int_table():
    return TableMapBody(7, 0, b"d", b"t", bytes([R.MYSQL_TYPE_LONG]), [0], b"\x01", b"")


@pytest.mark.parametrize("kind", ["write", "update", "delete"])
def test_row_image_of_no_bytes_is_an_error_not_a_loop(kind):
    # no column present in the image: each image takes no bytes, the data never ends
    body = RowsBody(7, 0, kind, 1, b"\x00", b"\x00", b"\x01\x02\x03",
                    type_code=L.WRITE_ROWS_EVENT_V1)
    rows = Rows(_one_int_table(), body, "some.bin", 1234)
    with pytest.raises(CorruptRowError) as info:
        list(rows)
    assert info.value.path == "some.bin" and info.value.offset == 1234
    assert "some.bin, offset 1234" in str(info.value)


def test_pre_ga_row_image_of_no_bytes_ends():
    code = textwrap.dedent("""
        from binlogkit.binlog import layout as L
        from binlogkit.binlog.rows import RowsBody, TableMapBody
        from binlogkit.binlog.rowvalues import Rows
        from binlogkit.errors import BinlogError
        table = TableMapBody(7, 0, b"d", b"t", bytes([6]), [0], b"\\x01", b"")   # a NULL column
        body = RowsBody(7, 0, "write", 1, b"\\x01", b"", b"\\x00\\x00",
                        type_code=L.PRE_GA_WRITE_ROWS_EVENT)
        try:
            print(len(Rows(table, body, "x", 4)))
        except BinlogError as exc:
            print("error", exc)
    """)
    proc = run(["-c", code], timeout=30)
    out = proc.stdout.decode()
    assert out == "2\n" or out.startswith("error x, offset 4"), proc


# -- 7. events_frame with times pandas cannot hold ---------------------------------------

def test_frame_times_out_of_range_are_nat():
    from binlogkit.analysis.frames import _column, _times
    times = _times([0, 1 << 62, None, -(1 << 62), 1_700_000_000_000_000])
    assert times.isna().tolist() == [False, True, True, True, False]
    assert _column("seq_no", "UInt64", [1, 1 << 64, None]).isna().tolist() == [False, True, True]
    assert _column("rows", "Int64", [1, 1 << 63, -5]).isna().tolist() == [False, True, False]


# -- --result-file never opens an input for writing ----------------------------------------

@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink", "stdin"])
def test_result_file_naming_an_input_is_refused(tmp_path, spelling):
    original = (ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000004").read_bytes()
    binlog = tmp_path / "b.000004"
    binlog.write_bytes(original)
    other = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000003"
    target = {"same": binlog, "dot": tmp_path / "." / "b.000004", "symlink": tmp_path / "link",
              "hardlink": tmp_path / "hard", "stdin": binlog}[spelling]
    if spelling == "symlink":
        target.symlink_to(binlog)
    elif spelling == "hardlink":
        target.hardlink_to(binlog)
    inputs = ["-"] if spelling == "stdin" else [str(other), str(binlog)]
    with open(binlog, "rb") as stdin:
        proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *inputs,
                               "--result-file", str(target)], capture_output=True, stdin=stdin,
                              cwd=ROOT, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == b""
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"ERROR: --result-file '{target}' is the input")
    assert binlog.read_bytes() == original


def test_result_file_elsewhere_still_written(tmp_path):
    target = tmp_path / "out.sql"
    target.write_bytes(b"old")
    binlog = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000004"
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", str(binlog), "-r",
                           str(target)], capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and proc.stderr == b""
    assert target.read_bytes().startswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;")


# -- a read error in an in-use log: the real tool's ERROR line, then EOF, exit 0 ----------

def _events(data):
    out, pos = [], 4
    while pos + 19 <= len(data):
        out.append(pos)
        pos += struct.unpack_from("<I", data, pos + 9)[0]
    return out


@pytest.mark.parametrize("damage,line", [
    ("cut", "'Event truncated', data_len: 133, event_type: 2"),
    ("size5", "'Event invalid', data_len: 5, event_type: 2"),
    ("huge", "'Event truncated', data_len: 4294967040, event_type: 2"),
    ("short_header", "'Event truncated'"),
    ("type0", "'Found invalid event in binary log', data_len: 133, event_type: 0"),
])
def test_in_use_log_read_error_is_its_end(tmp_path, damage, line):
    """Recorded from mariadb-binlog 10.11 on the same damage: the stdout of a log
    ending there, `ERROR: Error in Log_event::read_log_event(): ...`, exit 0."""
    data = bytearray(BINLOG.read_bytes())
    data[4 + 17] |= 1                                   # LOG_EVENT_BINLOG_IN_USE_F
    at = _events(data)[6]
    if damage == "cut":
        data = data[:at + 30]
    elif damage == "size5":
        struct.pack_into("<I", data, at + 9, 5)
    elif damage == "huge":
        struct.pack_into("<I", data, at + 9, 0xFFFFFF00)
    elif damage == "type0":
        data[at + 4] = 0
    else:
        data = data[:at + 10]
    path = tmp_path / "in-use.bin"
    path.write_bytes(bytes(data))
    ended = tmp_path / "ended.bin"
    ended.write_bytes(bytes(data[:at]))
    proc = run(["print", str(path)])
    assert proc.returncode == 0
    assert proc.stderr.decode().splitlines() == [f"ERROR: Error in Log_event::read_log_event(): {line}"]
    assert proc.stdout == run(["print", str(ended)]).stdout


# -- found by the fuzzer ----------------------------------------------------------------------

def test_decimal_of_no_bytes_is_an_error_not_an_index_error():
    table = TableMapBody(7, 0, b"d", b"t", bytes([R.MYSQL_TYPE_NEWDECIMAL]), [0], b"\x01", b"")
    body = RowsBody(7, 0, "write", 1, b"\x01", b"", b"\x00\x01\x02", type_code=L.WRITE_ROWS_EVENT_V1)
    with pytest.raises(BinlogError) as info:
        list(Rows(table, body, "x.bin", 99))
    assert str(info.value).startswith("x.bin, offset 99")


def test_slowlog_frame_counts_beyond_int64_are_na(tmp_path):
    from binlogkit.analysis.frames import slowlog_frame
    path = tmp_path / "slow.log"
    path.write_bytes(b"# Time: 2024-01-02T03:04:05.000006Z\n# User@Host: a[a] @ localhost []\n"
                     b"# Query_time: 1.5  Lock_time: 0.1  Rows_sent: 99999999999999999999999  "
                     b"Rows_examined: 3\nSELECT 1;\n")
    df = slowlog_frame(path, server_tz="UTC")
    assert df["rows_sent"].isna().tolist() == [True]
    assert df["rows_examined"].tolist() == [3]


def test_decimal_user_variable_too_short_is_an_invalid_event():
    from binlogkit.binlog.events import decode_event
    from binlogkit.binlog.reader import FormatDescription, PyRawEvent
    from binlogkit.errors import EventDecodeError     # print turns it into InvalidEventError
    body = struct.pack("<I", 1) + b"u" + b"\x00" + bytes([L.DECIMAL_RESULT]) \
        + struct.pack("<II", 33, 1) + b"\x05"
    header = struct.pack("<IBIIIH", 0, L.USER_VAR_EVENT, 1, 19 + len(body), 0, 0)
    raw = PyRawEvent(500, struct.unpack("<IBIIIH", header), header + body, 19 + len(body), None)
    with pytest.raises(EventDecodeError) as info:
        decode_event(raw, FormatDescription(server_version=b"10.11.6-MariaDB"), "x.bin")
    assert "Found invalid event in binary log" in str(info.value)
