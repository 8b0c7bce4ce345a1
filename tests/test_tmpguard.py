"""The run's temp dir (conftest.py, tmpguard.py): LOAD DATA files stay out of /tmp."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import tmpguard

ROOT = Path(__file__).resolve().parents[1]
LOAD_DATA_BINLOG = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"   # 2 blocks


def test_env_escapes(tmp_path):
    inner = tmp_path / "run"
    assert not tmpguard.env_escapes(None, inner)                      # inherits the run's
    assert tmpguard.env_escapes({"PATH": "/usr/bin"}, inner)          # falls back to /tmp
    assert tmpguard.env_escapes({"TMPDIR": ""}, inner)
    assert tmpguard.env_escapes({"TMPDIR": str(tmp_path)}, inner)     # outside the root
    assert tmpguard.env_escapes({"TMPDIR": str(inner) + "-x"}, inner)
    assert not tmpguard.env_escapes({"TMPDIR": str(inner / "a")}, inner)
    assert not tmpguard.env_escapes({b"TMPDIR": os.fsencode(inner)}, inner)


def test_guard_notes_a_child_started_without_the_tmpdir(tmp_path):
    guard = tmpguard.ChildEnvGuard(tmp_path / "run")
    with pytest.MonkeyPatch.context() as mp:
        guard.install(mp)
        subprocess.run([sys.executable, "-c", "pass"], check=True)     # inherits: fine
        subprocess.run([sys.executable, "-c", "pass"], check=True,      # the session's guard
                       env=dict(os.environ, TMPDIR=str(tmp_path)))     # accepts this one
    assert guard.escapes == [[sys.executable, "-c", "pass"]]


def test_the_run_has_a_private_tmpdir(tmp_path_factory):
    run_tmp = Path(os.environ["TMPDIR"])
    assert Path(tempfile.gettempdir()) == run_tmp
    assert run_tmp.is_relative_to(tmp_path_factory.getbasetemp())
    assert tmpguard.system_tmp_dirs(run_tmp, str(run_tmp)) == (
        [tmpguard.SYSTEM_TMP] if os.path.isdir(tmpguard.SYSTEM_TMP) else [])


def test_sql_load_files(tmp_path):
    (tmp_path / "SQL_LOAD_MB-1-0").write_bytes(b"x")
    (tmp_path / "other").write_bytes(b"x")
    assert tmpguard.sql_load_files([tmp_path]) == {str(tmp_path / "SQL_LOAD_MB-1-0")}


@pytest.mark.parametrize("tool", ["binlogkit", "mariadb-binlog"])
def test_load_data_files_land_in_the_run_tmpdir(tool):
    """A print without --local-load, as many tests run it, writes into the run's TMPDIR."""
    if tool == "mariadb-binlog" and shutil.which(tool) is None:
        pytest.skip("mariadb-binlog is not installed")
    argv = ([sys.executable, "-m", "binlogkit", "print"] if tool == "binlogkit" else [tool])
    run_tmp = os.environ["TMPDIR"]
    before = tmpguard.sql_load_files([run_tmp])
    proc = subprocess.run(argv + [str(LOAD_DATA_BINLOG)], capture_output=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    new = tmpguard.sql_load_files([run_tmp]) - before
    assert len(new) == 2
    for name in new:
        assert f"INFILE '{name}'".encode() in proc.stdout


def test_summary_says_what_the_peer_skips_need(tmp_path):
    """A run without ../shared/peer ends with one line: how many tests skipped for it and
    what they need (README 'Set up' says how to get it)."""
    import re

    import peerdata
    if peerdata.PEER.is_dir():
        pytest.skip("../shared/peer is here: nothing skips for it")
    root = Path(__file__).resolve().parents[1]
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_frames_peer.py"], capture_output=True, text=True, cwd=root,
                         env=dict(os.environ, TMPDIR=str(tmp_path)), timeout=300)
    last = res.stdout.splitlines()[-2:]
    assert any(re.match(r"\d+ tests skipped: they need ../shared/peer", line) for line in last), last
    readme = (root / "README.md").read_text()
    assert "rust_mysql_common" in readme and "t/lib/samples/slowlogs" in readme
