import pathlib
import sys

# tests import their helpers (oracle.py) as top-level modules
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import os
import tempfile

import pytest

import peerdata
import tmpguard


_REPORT = []      # lines for the end of the terminal report


def pytest_terminal_summary(terminalreporter):
    for line in _REPORT:
        terminalreporter.write_line(line, yellow=True)
    line = peerdata.summary_line(terminalreporter.stats.get("skipped", []))
    if line:
        terminalreporter.write_line(line, yellow=True)


@pytest.fixture(autouse=True, scope="session")
def _private_tmpdir(tmp_path_factory):
    """Give the whole run (and the tools it starts) a temp dir of its own.

    `binlogkit print` writes LOAD DATA temp files (SQL_LOAD_MB-<id>-<n>) to
    TMPDIR like mariadb-binlog; after 256 names for one id the real tool's rule
    is to fail, so runs must not share (and fill) the machine's /tmp.  A child
    started with an environment of its own must pass TMPDIR on (tmpguard.py:
    the test that starts one without it fails).  At the end, new SQL_LOAD_MB-*
    files in the system temp dir are reported: any process on the machine may
    have made them (a failure here once blamed the run for a `binlogkit print`
    run beside it), so the per-test guard is the one that fails.
    """
    tmp = tmp_path_factory.mktemp("tmpdir")
    saved_env, saved_tempdir = os.environ.get("TMPDIR"), tempfile.tempdir
    outside = tmpguard.system_tmp_dirs(tmp, tempfile.gettempdir())
    before = tmpguard.sql_load_files(outside)
    os.environ["TMPDIR"] = str(tmp)
    tempfile.tempdir = None
    guard = tmpguard.ChildEnvGuard(tmp_path_factory.getbasetemp())
    with pytest.MonkeyPatch.context() as mp:
        guard.install(mp)
        yield guard
    tempfile.tempdir = saved_tempdir
    if saved_env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved_env
    left = sorted(tmpguard.sql_load_files(outside) - before)
    if left:
        msg = (f"{len(left)} new {tmpguard.SQL_LOAD_PATTERN} files in the system temp dir "
               f"during the run: {', '.join(left[:5])}{' ...' if len(left) > 5 else ''}")
        _REPORT.append(f"warning: {msg} (by this run or another process)")


@pytest.fixture(autouse=True)
def _children_keep_the_run_tmpdir(_private_tmpdir):
    """A test whose subprocess got an environment without the run's TMPDIR fails."""
    seen = len(_private_tmpdir.escapes)
    yield
    new = _private_tmpdir.escapes[seen:]
    if new:
        pytest.fail(f"started with an env= lacking the run's TMPDIR (its temp files would go "
                    f"to /tmp; pass dict(os.environ, ...) or TMPDIR): {new[0]!r}")
