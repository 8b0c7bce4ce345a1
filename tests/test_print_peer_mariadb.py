"""`binlogkit print --flavor=mariadb` == mariadb-binlog 10.11 on the public MySQL binlogs of
../shared/peer, byte for byte (stdout, exit status) and by message (stderr's ERROR/WARNING).

The cases (options, zone, each input's sha256, the exit status mariadb-binlog 10.11.19 gave) are
listed by fixtures/gen_peer_mariadb.py; the real tool runs here beside binlogkit, so that nothing
derived from the peer binlogs (their events are in the BINLOG base64 text) is kept in the project.
Skips when ../shared is absent, a file changed, or mariadb-binlog is not installed.
"""
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from oracle import diff_text, stderr_messages

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFEST = json.loads((ROOT / "fixtures" / "peer_mariadb_cases.json").read_text())
SHARED = ROOT.parent / "shared"
# keys: a file name or file@case@zone; a strict xfail for a known difference (none left)
STDERR_NOT_YET = {}
NOT_YET = {}


def _mask(data):
    for rule in MANIFEST["masks"].values():
        data = re.sub(rule["regex"].encode(), rule["replace"].encode(), data)
    return data


REAL_TOOL = shutil.which(MANIFEST["tool"])


def _path(case):
    path = SHARED / case["file"]
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != case["sha256"]:
        pytest.skip(f"{case['file']} absent from ../shared or changed")
    return path


def _env(case, tmp_path):
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": case["tz"], "LC_ALL": "C",
            "TMPDIR": str(tmp_path)}


def _run(case, tmp_path):
    path = _path(case)
    work = tmp_path / "binlogkit"
    work.mkdir()
    return subprocess.run([sys.executable, "-m", "binlogkit", "print", "--no-defaults",
                           "--flavor=mariadb", *case["args"], str(path)],
                          capture_output=True, env=_env(case, work), cwd=work)


def _real(case, tmp_path):
    """mariadb-binlog itself on the same input, in a directory of its own."""
    if REAL_TOOL is None:
        pytest.skip(f"{MANIFEST['tool']} is not installed")
    path = _path(case)
    work = tmp_path / "real"
    work.mkdir()
    proc = subprocess.run([REAL_TOOL, *MANIFEST["tool_args"], *case["args"], str(path)],
                          capture_output=True, env=_env(case, work), cwd=work)
    assert proc.returncode == case["exit"], f"{MANIFEST['tool']} changed: exit {proc.returncode}"
    return proc


def _params(known):
    for case in MANIFEST["cases"]:
        name = f"{pathlib.Path(case['file']).name}@{case['case']}@{case['tz']}"
        reason = known.get(name) or known.get(pathlib.Path(case["file"]).name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(case, id=name, marks=marks)


@pytest.mark.parametrize("case", list(_params(NOT_YET)))
def test_peer_binlog_prints_as_mariadb_binlog(case, tmp_path):
    real = _real(case, tmp_path)
    proc = _run(case, tmp_path)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    want = _mask(real.stdout)
    got = _mask(proc.stdout)
    assert got == want, diff_text(want, got, case["case"])
    assert proc.returncode == real.returncode, proc.stderr.decode(errors="replace")


def _expected_messages(stderr):
    """The real tool's messages; its "Character set '#N' is not a compiled character set" notes
    (MySQL 8 collation ids it lacks) are left out: binlogkit knows those ids."""
    return [m for m in stderr_messages(stderr) if not m.startswith("Character set '#")]


# a run the real tool ends silently with a failure status is left out: binlogkit says why
@pytest.mark.parametrize("case", [p for p in _params(STDERR_NOT_YET)
                                  if p.values[0]["exit"] == 0 or p.values[0]["stderr"]])
def test_peer_binlog_stderr_as_mariadb_binlog(case, tmp_path):
    want = _expected_messages(_real(case, tmp_path).stderr)
    if case["exit"] != 0 and not want:
        pytest.skip("the real tool fails silently here")
    proc = _run(case, tmp_path)
    assert stderr_messages(proc.stderr, SHARED) == want
