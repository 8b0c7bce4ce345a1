"""Bad input: partial output like the real tool, then one ERROR line naming file and offset."""
import difflib
import json
import os
import re
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOOD = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"


def run(*args, stdin=None):
    env = dict(os.environ, TZ="UTC")
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *map(str, args)],
                          input=stdin, capture_output=True, env=env)
    return proc.returncode, proc.stdout, proc.stderr.decode()


def assert_one_line_error(stderr, name, offset):
    """The last line names file and offset; a line before it can only be the real tool's own
    first ERROR line (read_log_event's reason, my_read's "Error reading file")."""
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert 1 <= len(lines) <= 2, stderr
    assert all(line.startswith("ERROR: ") for line in lines), stderr
    assert str(name) in lines[-1] and f"offset {offset}" in lines[-1], lines[-1]


@pytest.fixture
def bad_dir(tmp_path):
    data = GOOD.read_bytes()
    (tmp_path / "empty.bin").write_bytes(b"")
    (tmp_path / "text.bin").write_bytes(b"this is not a binlog\n")
    (tmp_path / "trunc.bin").write_bytes(data[:1000])
    flipped = bytearray(data)
    flipped[600] ^= 0xFF
    (tmp_path / "flipped.bin").write_bytes(bytes(flipped))
    (tmp_path / "adir").mkdir()
    return tmp_path


@pytest.mark.parametrize("name, offset", [("empty.bin", 0), ("text.bin", 0), ("adir", 0)])
def test_not_a_binlog(bad_dir, name, offset):
    code, out, err = run(bad_dir / name)
    assert code == 1
    assert out.endswith(b"DELIMITER /*!*/;\n")
    assert_one_line_error(err, bad_dir / name, offset)


def test_missing_file(bad_dir):
    code, out, err = run(bad_dir / "nope.bin")
    assert code == 1 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "nope.bin" in err


def test_truncated_mid_event(bad_dir):
    code, out, err = run(bad_dir / "trunc.bin")
    assert code == 1
    data = (bad_dir / "trunc.bin").read_bytes()
    pos = 4                      # walk the headers to the event cut by the truncation
    while pos + int.from_bytes(data[pos + 9:pos + 13], "little") <= len(data):
        pos += int.from_bytes(data[pos + 9:pos + 13], "little")
    assert f"# at {pos}".encode() not in out
    assert_one_line_error(err, bad_dir / "trunc.bin", pos)


def test_flipped_byte_with_verify_checksum(bad_dir):
    code, out, err = run("-c", bad_dir / "flipped.bin")
    assert code == 1
    assert "crc check failed" in err
    assert "offset" in err and "flipped.bin" in err and "Traceback" not in err
    code, out, err = run(bad_dir / "flipped.bin")   # without -c the CRC is not checked
    assert "crc" not in err


def test_input_is_opened_read_only(bad_dir):
    path = bad_dir / "ro.bin"
    path.write_bytes(GOOD.read_bytes())
    path.chmod(0o444)
    code, out, err = run(path)
    assert code == 0, err


def test_print_does_not_import_pandas():
    code = ("import sys, io, runpy; sys.argv=['binlogkit','print','" + str(GOOD) + "'];"
            "sys.stdout=io.TextIOWrapper(io.BytesIO());\n"
            "from binlogkit.cli import main\n"
            "try:\n main()\nexcept SystemExit: pass\n"
            "assert 'pandas' not in sys.modules, 'pandas imported'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == 0, proc.stderr.decode()


def test_zone_data_read_a_bounded_number_of_times():
    """Printing thousands of events opens zone data once, not per event."""
    code = (
        "import sys, io\n"
        "opens = []\n"
        "sys.addaudithook(lambda ev, a: opens.append(str(a[0])) if ev == 'open' and "
        "'zoneinfo' in str(a[0]) else None)\n"
        "from binlogkit.printer.mariadb.driver import dump\n"
        "from binlogkit.printer.state import PrintOptions\n"
        "from binlogkit.tz import ZoneTable\n"
        "zone = ZoneTable.from_tz('America/New_York')\n"
        f"files = sorted(str(p) for p in __import__('pathlib').Path({str(GOOD.parent)!r}).glob('mariadb-bin.*'))\n"
        "out = io.BytesIO()\n"
        "for _ in range(20):\n"
        "    dump(files, out, PrintOptions(), zone)\n"
        "n = out.getvalue().count(b'\\n# at ')\n"
        "assert n > 10000, n\n"
        "print(len(opens), n)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    opened, events = map(int, proc.stdout.split())
    assert opened <= 2, f"zone data opened {opened} times for {events} events"


@pytest.mark.parametrize("type_code,flags", [(250, 0x80), (43, 0x80)])
def test_a_type_past_the_format_table_is_invalid_even_if_ignorable(tmp_path, type_code, flags):
    """read_log_event refuses a type the format description has no post-header length for
    (here 250, past MariaDB 10.11's table) before it looks at LOG_EVENT_IGNORABLE_F; a type
    inside the table with that flag is an Ignorable event.  Seen at a --start-position inside
    an encrypted log, where the bytes there are cipher text."""
    import shutil
    import struct
    data = bytearray((ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000004").read_bytes())
    pos = 4 + struct.unpack_from("<I", data, 4 + 9)[0]             # the event after the FDE
    data[pos + 4] = type_code
    struct.pack_into("<H", data, pos + 17, flags)
    path = tmp_path / "odd.000001"
    path.write_bytes(bytes(data))
    code, out, err = run(str(path))
    if type_code == 250:
        assert code == 1
        assert ("ERROR: Error in Log_event::read_log_event(): 'Found invalid event in binary log', "
                f"data_len: {struct.unpack_from('<I', data, pos + 9)[0]}, event_type: 250") in err
    else:
        assert code == 0 and b"\tIgnorable\n# Ignorable event type 43" in out
    tool = shutil.which("mariadb-binlog")
    if tool:        # the real tool on the same bytes: the same text and status
        real = subprocess.run([tool, str(path)], capture_output=True, env={**os.environ, "TZ": "UTC"})
        ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", str(path)],
                              capture_output=True, env={**os.environ, "TZ": "UTC"}, cwd=ROOT)
        assert (ours.stdout, ours.returncode) == (real.stdout, real.returncode)


# -- a format description with a common-header length under 19 (issue 27 item 8) --------------

EDGES = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "edges"


def _edge_runs():
    doc = json.loads((EDGES / "expected.json").read_text())
    return [(name, case, doc["cases"][case], run) for name, runs in sorted(doc["runs"].items())
            for case, run in sorted(runs.items())]


@pytest.mark.parametrize("name,case,args,real", _edge_runs(),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_short_common_header_is_an_invalid_format_description(name, case, args, real, tmp_path):
    """mariadb-binlog 10.11 (recorded by fixtures/gen_edges.py) refuses the format description
    itself: 'Found invalid event', 'Could not read entry at offset 4', exit 1; --flashback too."""
    env = dict(os.environ, TZ="UTC", LC_ALL="C", TMPDIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "--no-defaults", *args,
                           name], capture_output=True, env=env, cwd=EDGES)
    assert proc.returncode == real["exit"] == 1
    if proc.stdout != real["stdout"].encode("latin-1"):
        diff = difflib.unified_diff(real["stdout"].splitlines(), proc.stdout.decode("latin-1")
                                    .splitlines(), "mariadb-binlog", "binlogkit", lineterm="")
        pytest.fail("\n".join(diff))
    ours = [re.sub(r"^ERROR: [^,]*, offset \d+(, event type \d+)?: ", "ERROR: ", line)
            for line in proc.stderr.decode("latin-1").splitlines()]
    assert ours == real["stderr"].splitlines()
