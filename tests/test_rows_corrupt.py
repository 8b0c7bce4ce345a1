"""Corrupt row images: the real tool's output, or a one-line error; never a traceback or a hang.

fixtures/gen_corrupt.py damaged a transaction of a real binlog in several
ways (rows cut short, length prefixes past the end, unknown or corrupt column
types in the table map) and recorded mariadb-binlog 10.11 on each, with and
without -v.  binlogkit must print the same bytes and exit status; where the
real tool stops silently (status 1, nothing on stderr) binlogkit says why in
one `ERROR:` line naming the file and the event's offset.  Where the real tool
crashes (SIGSEGV on a DATETIME precision of 9) binlogkit prints what the real
tool had printed before the crash, then the one-line error.
"""
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402

from binlogkit.binlog.rowevents import iter_rows_events  # noqa: E402
from binlogkit.binlog.rowvalues import CorruptRowError, UnsupportedTypeError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = json.loads((ROOT / "fixtures" / "corrupt" / "manifest.json").read_text())
ERROR_LINE = re.compile(r"^ERROR: (?P<file>\S+), offset (?P<offset>\d+), event type \d+: \S.*$")


def _sha256(path):
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def test_manifest_matches_files():
    assert MANIFEST["mariadb_binlog_version"] and "Ver" in MANIFEST["mariadb_binlog_version"]
    assert _sha256(MANIFEST["base"]) == MANIFEST["base_sha256"], \
        "the base fixture changed: rerun python fixtures/gen_corrupt.py"
    on_disk = {p.relative_to(ROOT).as_posix() for p in (ROOT / "fixtures" / "corrupt").rglob("*")
               if p.is_file()} - {"fixtures/corrupt/manifest.json"}
    listed = set()
    for variant in MANIFEST["variants"]:
        assert _sha256(variant["file"]) == variant["sha256"], variant["file"]
        listed.add(variant["file"])
        for case in variant["cases"]:
            assert _sha256(case["stdout"]) == case["stdout_sha256"], case["stdout"]
            listed.add(case["stdout"])
    assert on_disk == listed
    assert {v["name"].split("_")[0] for v in MANIFEST["variants"]} == {"wide", "types"}


def _cases():
    for variant in MANIFEST["variants"]:
        for case in variant["cases"]:
            yield pytest.param(variant, case, id=f"{variant['name']}/{case['case']}")


@pytest.mark.parametrize("variant,case", list(_cases()))
def test_corrupt_rows_like_mariadb_binlog(variant, case):
    env = dict(os.environ, TZ=MANIFEST["tz"], LC_ALL="C")
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *case["args"], variant["file"]],
                          capture_output=True, env=env, cwd=ROOT, timeout=120)   # a hang fails here
    stderr = proc.stderr.decode(errors="replace")
    assert "Traceback" not in stderr, stderr
    expected = (ROOT / case["stdout"]).read_bytes()
    name = f"{variant['name']}/{case['case']}"
    if case["exit"] >= 0:
        assert proc.stdout == expected, oracle.diff_text(expected, proc.stdout, name)
        assert proc.returncode == case["exit"], stderr
    else:       # the real tool crashed, losing its buffered output
        assert proc.stdout.startswith(expected), oracle.diff_text(expected, proc.stdout, name)
        assert proc.returncode == 1, stderr
    if proc.returncode:
        lines = stderr.splitlines()
        assert len(lines) == 1, stderr
        match = ERROR_LINE.match(lines[0])
        assert match, lines[0]
        assert match["file"] == variant["file"]
        assert b"# at %s\n" % match["offset"].encode() in proc.stdout     # the failing event
        if case["stderr"].strip():
            assert case["stderr"].strip().removeprefix("Error: ") in lines[0]   # the tool's words
    else:
        assert not stderr


@pytest.mark.parametrize("variant", MANIFEST["variants"], ids=lambda v: v["name"])
def test_python_api_raises_only_row_errors(variant):
    """Decoding every row of a damaged file gives values or CorruptRowError/UnsupportedTypeError."""
    outcomes = []
    for ev in iter_rows_events(str(ROOT / variant["file"])):
        try:
            outcomes.append(len(ev.rows))
        except (CorruptRowError, UnsupportedTypeError) as exc:
            outcomes.append(type(exc).__name__)
    assert outcomes and any(isinstance(o, int) for o in outcomes)
