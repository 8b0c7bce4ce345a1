"""Any event flagged LOG_EVENT_IGNORABLE_F (known types too) is read by mariadb-binlog 10.11
as an Ignorable_log_event: `# Ignorable event type N (name)`, no filters of its real type;
a type past the format description's table is no event at all.  Each case runs the real
tool on the same bytes (skipped without it), with the C accelerator and without."""
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000001"
TINY = ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000004"
TOOL = shutil.which("mariadb-binlog")
MASK = re.compile(rb"SQL_LOAD_MB-[0-9a-f]+-[0-9a-f]+")

pytestmark = pytest.mark.skipif(TOOL is None, reason="mariadb-binlog not installed")


def events(data):
    pos, out = 4, []
    while pos + 19 <= len(data):
        out.append((pos, data[pos + 4]))
        pos += struct.unpack_from("<I", data, pos + 9)[0]
    return out


def first_of_each_type():
    data = SOURCE.read_bytes()
    seen = {}
    for pos, type_code in events(data):
        if type_code != 15:
            seen.setdefault(type_code, pos)
    return sorted(seen.items())


def flagged(data, pos, type_code=None):
    data = bytearray(data)
    if type_code is not None:
        data[pos + 4] = type_code
    struct.pack_into("<H", data, pos + 17, struct.unpack_from("<H", data, pos + 17)[0] | 0x80)
    return bytes(data)


def both(tmp_path, data, args, pure):
    path = tmp_path / "flagged.000001"
    path.write_bytes(data)
    env = {**os.environ, "TZ": "UTC", "TMPDIR": str(tmp_path)}
    real = subprocess.run([TOOL, *args, str(path)], capture_output=True, env=env)
    if pure:
        env["BINLOGKIT_PURE"] = "1"
    ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, str(path)],
                          capture_output=True, env=env, cwd=ROOT)
    return ((MASK.sub(b"X", ours.stdout), ours.returncode),
            (MASK.sub(b"X", real.stdout), real.returncode))


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
@pytest.mark.parametrize("type_code,pos", first_of_each_type(), ids=lambda v: str(v))
def test_a_known_event_flagged_ignorable(tmp_path, type_code, pos, pure):
    data = flagged(SOURCE.read_bytes(), pos)
    for args in ([], ["-vv", "--base64-output=decode-rows"]):
        ours, real = both(tmp_path, data, args, pure)
        assert ours == real, (type_code, args)
    assert b"# Ignorable event type %d (" % type_code in real[0]


@pytest.mark.parametrize("type_code", [27, 38, 42, 171, 172, 250])
def test_other_type_codes_flagged_ignorable(tmp_path, type_code):
    """Names of types this log does not hold; 172 and up are past 10.11's table."""
    data = TINY.read_bytes()
    pos = events(data)[1][0]
    ours, real = both(tmp_path, flagged(data, pos, type_code), [], False)
    assert ours == real
    assert real[1] == (1 if type_code > 171 else 0)
