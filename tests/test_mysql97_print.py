"""binlogkit print == mysqlbinlog 9.7.4 on binlogs a real MySQL 9.7 wrote, byte for byte.

fixtures/gen_mysql97.py ran three server configurations (GTIDs on with full row metadata,
anonymous GTIDs with MINIMAL images and no checksums, NOBLOB images in MIXED format with
compression), then the root's mysqlbinlog 9.7.4 with every option set in three zones; it
recorded stdout, stderr and the exit status (fixtures/mysql97/manifest.json, the outputs in
fixtures/mysql97/expected.tar.xz).  The only normalisation is the manifest's masks (LOAD DATA
temp-file names, which the real tool draws with mkstemp).  stderr: the messages of the
ERROR/WARNING lines, in order (binlogkit adds the file and offset to a read error).
"""
import io
import json
import lzma
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
from functools import lru_cache

import pytest

from oracle import diff_text, stderr_messages

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures" / "mysql97"
MANIFEST = json.loads((FIX / "manifest.json").read_text())


@lru_cache(maxsize=1)
def _store():
    with tarfile.open(fileobj=io.BytesIO(lzma.decompress((ROOT / MANIFEST["expected"])
                                                          .read_bytes()))) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}


def expected(name):
    return _store()[name] if name else b""


def _mask(data):
    for rule in MANIFEST["masks"].values():
        data = re.sub(rule["regex"].encode(), rule["replace"].encode(), data)
    return data


def case_id(case):
    return f"{pathlib.Path(case['files'][0]).parent.name}@{case['case']}@{case['tz']}"


def run_binlogkit(case, tmp_path, extra_env=None, extra_args=()):
    local = tempfile.mkdtemp(prefix="binlogkit-localload-", dir=tmp_path)
    env = dict(os.environ, **(extra_env or {}), TZ=case["tz"], LC_ALL="C", TMPDIR=str(tmp_path))
    args = [a.replace("{LOCAL_LOAD_DIR}", local) for a in case["args"]]
    files = [str(ROOT / f) for f in case["files"]]
    return subprocess.run([sys.executable, "-m", "binlogkit", "print", *MANIFEST["binlogkit_args"],
                           *extra_args, *args, *files], capture_output=True, env=env, cwd=tmp_path)


def check(case, tmp_path, extra_env=None, extra_args=()):
    proc = run_binlogkit(case, tmp_path, extra_env, extra_args)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    want, got = _mask(expected(case["stdout"])), _mask(proc.stdout)
    assert got == want, diff_text(want, got, case_id(case)).replace("mariadb-binlog/", "mysqlbinlog/")
    assert stderr_messages(proc.stderr, ROOT) == stderr_messages(expected(case["stderr"])), \
        proc.stderr.decode(errors="replace")
    assert proc.returncode == case["exit"], proc.stderr.decode(errors="replace")


# option sets binlogkit does not have yet (strict: a pass is reported)
NOT_YET = {}


def _param(case):
    reason = NOT_YET.get(case["case"])
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(case, id=case_id(case), marks=marks)


CASES = [_param(case) for case in MANIFEST["cases"]]


@pytest.mark.parametrize("case", CASES)
def test_mysql97_log_prints_as_mysqlbinlog_974(case, tmp_path):
    check(case, tmp_path)


@pytest.mark.parametrize("case", [c for c in CASES if c.values[0]["tz"] == "UTC"])
def test_mysql97_log_prints_as_mysqlbinlog_974_pure_python(case, tmp_path):
    check(case, tmp_path, {"BINLOGKIT_PURE": "1"})
