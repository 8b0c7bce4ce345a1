import pathlib
import sys

# tests import their helpers (oracle.py) as top-level modules
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import os
import tempfile

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_tmpdir(tmp_path_factory):
    """Give the whole run (and the tools it starts) a temp dir of its own.

    `binlogkit print` writes LOAD DATA temp files (SQL_LOAD_MB-<id>-<n>) to
    TMPDIR like mariadb-binlog; after 256 names for one id the real tool's rule
    is to fail, so runs must not share (and fill) the machine's /tmp.
    """
    tmp = tmp_path_factory.mktemp("tmpdir")
    saved_env, saved_tempdir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = str(tmp)
    tempfile.tempdir = None
    yield tmp
    tempfile.tempdir = saved_tempdir
    if saved_env is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved_env
