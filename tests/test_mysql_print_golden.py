"""binlogkit print == mysqlbinlog 8.0.41 on the outputs MySQL's own test suite records.

fixtures/mysql_golden/ holds mysqlbinlog outputs cut from mysql-test .result
files (fixtures/gen_mysql_golden.py; sources in SOURCES.md).  Each case runs
`binlogkit print` on the binlog the .result was made from, applies the
.test file's --replace_regex masks to binlogkit's output (the expected text
is already masked) and compares bytes.  The binlogs live in
../shared/peer/mysql-binlogs; cases needing them skip when it is absent.
The --hexdump case also runs always, on a binlog rebuilt from the hexdump
text of the expected output itself.
"""
import difflib
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "fixtures" / "mysql_golden"
PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs"
CASES = json.loads((GOLDEN / "cases.json").read_text())["cases"]


def apply_masks(data, masks):
    text = data.decode("latin-1")
    for pattern, replacement in masks:
        text = re.sub(pattern, replacement, text)
    return text.encode("latin-1")


def hash_lines(data):
    """The rows the verbose .test keeps: lines starting with ###, CRs removed."""
    lines = data.replace(b"\r", b"").split(b"\n")
    return b"".join(line + b"\n" for line in lines if line.startswith(b"###"))


def run_print(args, path, tz, tmp_path, stdin=False):
    env = dict(os.environ, TZ=tz, LC_ALL="C")
    cmd = [sys.executable, "-m", "binlogkit", "print", f"--local-load={tmp_path}", *args]
    if stdin:
        proc = subprocess.run(cmd, input=pathlib.Path(path).read_bytes(), capture_output=True, env=env)
    else:
        proc = subprocess.run(cmd + [str(path)], capture_output=True, env=env)
    return proc.returncode, proc.stdout, proc.stderr.decode(errors="replace")


def assert_same(expected, actual, name):
    if actual != expected:
        diff = "".join(difflib.unified_diff(
            expected.decode("latin-1").splitlines(keepends=True),
            actual.decode("latin-1").splitlines(keepends=True),
            fromfile=f"mysqlbinlog/{name}", tofile=f"binlogkit/{name}", n=2))
        pytest.fail(f"output differs from mysqlbinlog 8.0.41:\n{diff[:20000]}", pytrace=False)


def check_case(case, path, tmp_path):
    code, out, err = run_print(case["args"], path, case["tz"], tmp_path, case["stdin"])
    assert "Traceback" not in err, err
    actual = apply_masks(out, case["masks"])
    if case["filter"] == "hash_lines":
        actual = hash_lines(actual)
    expected = (GOLDEN / case["expected"]).read_bytes()
    assert_same(expected, actual, case["name"])
    assert code == case["exit"], f"exit {code}, expected {case['exit']}: {err}"
    if case["exit"]:
        # the error line names the file; warnings of the end follow it, as in mysqlbinlog
        errors = [line for line in err.strip().splitlines() if line.startswith("ERROR: ")]
        assert len(errors) == 1 and str(path) in errors[0], err


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_on_peer_binlog(case, tmp_path):
    path = PEER / case["input"]
    if not path.exists():
        pytest.skip(f"peer binlog {case['input']} not available (../shared is absent)")
    check_case(case, path, tmp_path)


# -- the --hexdump case without peer data --------------------------------------------------

_HEADER = re.compile(rb"^# ([0-9a-f]{8})((?: [0-9a-f]{2}){4}   [0-9a-f]{2}(?:   (?:[0-9a-f]{2} ?){4}){3}"
                     rb"   [0-9a-f]{2} [0-9a-f]{2})$")
_BODY = re.compile(rb"^# ([0-9a-f]{8}) (.{48}) \|")


def binlog_from_hexdump(text):
    """The binlog a --hexdump output shows: every event's header and body bytes."""
    events = {}
    current = None
    for line in text.split(b"\n"):
        head = _HEADER.match(line)
        if head:
            current = int(head.group(1), 16)
            events[current] = bytearray(bytes.fromhex(head.group(2).decode()))
            continue
        body = _BODY.match(line)
        if body and current is not None:
            events[current] += bytes.fromhex(body.group(2).decode())
        elif not line.startswith(b"# Position"):
            current = None
    data = bytearray(b"\xfebin")
    for pos in sorted(events):
        assert pos == len(data), f"hexdump events not contiguous at {pos}"
        data += events[pos]
    return bytes(data)


def test_hexdump_golden_on_binlog_rebuilt_from_result(tmp_path):
    case = next(c for c in CASES if c.get("input_from_hexdump"))
    expected = (GOLDEN / case["expected"]).read_bytes()
    binlog = binlog_from_hexdump(expected)
    assert len(binlog) == 729          # the size of mysql-test/.../bug11747887-bin.000003
    path = tmp_path / "bug11747887-bin.000003"
    path.write_bytes(binlog)
    check_case(case, path, tmp_path)
    peer = PEER / case["input"]
    if peer.exists():
        assert peer.read_bytes() == binlog
