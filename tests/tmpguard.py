"""Keep the test run's temp files (LOAD DATA's SQL_LOAD_MB-*) out of the system temp dir.

`binlogkit print` and mariadb-binlog write a LOAD DATA statement's file to --local-load, else
to TMPDIR, else to /tmp.  conftest.py gives the run a private TMPDIR; a tool a test starts
with an environment of its own (``subprocess.run(..., env={...})``) must carry it on, or its
files land in /tmp.  `ChildEnvGuard` notes every child started with an explicit environment
whose TMPDIR is missing or outside the run's temp root, so the test that started it fails.
"""
from __future__ import annotations

import glob
import os
import subprocess

SQL_LOAD_PATTERN = "SQL_LOAD_MB-*"
SYSTEM_TMP = "/tmp"          # where tools go without TMPDIR (Python's tempfile, my_tmpdir)


def sql_load_files(dirs) -> set:
    """SQL_LOAD_MB-* paths in `dirs` now."""
    return {p for d in dirs for p in glob.glob(os.path.join(glob.escape(str(d)), SQL_LOAD_PATTERN))}


def system_tmp_dirs(run_tmpdir, outer_tmpdir) -> list:
    """The dirs a tool falls back to: the TMPDIR the run was started with, and /tmp."""
    dirs = []
    for d in (outer_tmpdir, SYSTEM_TMP):
        if d and os.path.isdir(d) and os.path.realpath(d) not in map(os.path.realpath, dirs):
            dirs.append(d)
    return [d for d in dirs if os.path.realpath(d) != os.path.realpath(run_tmpdir)]


def env_escapes(env, root) -> bool:
    """True when a child with environment `env` would write temp files outside `root`."""
    if env is None:             # inherits os.environ: the run's TMPDIR
        return False
    tmpdir = env.get("TMPDIR", env.get(b"TMPDIR"))
    if not tmpdir:
        return True
    tmpdir = os.path.realpath(os.fsdecode(tmpdir))
    root = os.path.realpath(str(root))
    return os.path.commonpath([tmpdir, root]) != root


class ChildEnvGuard:
    """Wraps subprocess.Popen.__init__ while installed; `escapes` lists offending commands."""

    def __init__(self, root):
        self.root = root
        self.escapes = []
        self._real = None

    def install(self, monkeypatch):
        real = self._real = subprocess.Popen.__init__
        guard = self

        def init(popen, args, *rest, **kw):
            if env_escapes(kw.get("env"), guard.root):
                guard.escapes.append(args)
            real(popen, args, *rest, **kw)

        monkeypatch.setattr(subprocess.Popen, "__init__", init)
