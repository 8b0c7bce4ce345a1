"""The C accelerator knows which sources it was built from (binlogkit/_csrc_hash.py)."""
import subprocess
import sys

import pytest

from binlogkit import _csrc_hash

try:
    from binlogkit import _speedups
except ImportError:
    _speedups = None


def test_hash_follows_every_source_byte(tmp_path):
    (tmp_path / "a.c").write_bytes(b"int a;\n")
    (tmp_path / "a.h").write_bytes(b"#define A 1\n")
    (tmp_path / "notes.txt").write_bytes(b"not a source")
    first = _csrc_hash.source_hash(str(tmp_path))
    (tmp_path / "notes.txt").write_bytes(b"changed")
    assert _csrc_hash.source_hash(str(tmp_path)) == first
    (tmp_path / "a.h").write_bytes(b"#define A 2\n")
    assert _csrc_hash.source_hash(str(tmp_path)) != first
    assert _csrc_hash.source_hash(str(tmp_path / "missing")) == ""


@pytest.mark.skipif(_speedups is None, reason="C accelerator not built")
def test_the_build_is_of_these_sources():
    assert _speedups.SOURCE_HASH == _csrc_hash.source_hash()


@pytest.mark.skipif(_speedups is None, reason="C accelerator not built")
def test_a_stale_build_is_left_unused(tmp_path):
    """Sources newer than the build, with another hash: the build is not used."""
    code = ("import binlogkit._csrc_hash as h\n"
            "h.newest_source = lambda folder=None: float('inf')\n"
            "h.source_hash = lambda folder=None: 'deadbeef'\n"
            "from binlogkit._accel import speedups\n"
            "print(speedups is None)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout == "True\n"
    assert r.stderr.count("\n") == 1 and "build_ext --inplace" in r.stderr


@pytest.mark.skipif(_speedups is None, reason="C accelerator not built")
def test_newer_sources_with_the_same_hash_are_the_build_s():
    """A checkout touches files without changing them: same hash, build used."""
    code = ("import binlogkit._csrc_hash as h\n"
            "h.newest_source = lambda folder=None: float('inf')\n"
            "from binlogkit._accel import speedups\n"
            "print(speedups is not None)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (r.stdout, r.stderr) == ("True\n", "")


@pytest.mark.skipif(_speedups is None, reason="C accelerator not built")
def test_sources_older_than_the_build_are_not_hashed():
    """Start-up: only a source newer than the build makes it read and hash them."""
    code = ("import binlogkit._csrc_hash as h\n"
            "h.newest_source = lambda folder=None: 0\n"
            "def boom(folder=None): raise SystemExit('hashed')\n"
            "h.source_hash = boom\n"
            "from binlogkit._accel import speedups\n"
            "print(speedups is not None)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (r.stdout, r.stderr) == ("True\n", "")


def test_newest_source(tmp_path):
    import os
    (tmp_path / "a.c").write_bytes(b"int a;\n")
    (tmp_path / "b.h").write_bytes(b"int b;\n")
    (tmp_path / "notes.txt").write_bytes(b"x")
    os.utime(tmp_path / "a.c", (100, 100))
    os.utime(tmp_path / "b.h", (200, 200))
    os.utime(tmp_path / "notes.txt", (300, 300))
    assert _csrc_hash.newest_source(str(tmp_path)) == 200
    assert _csrc_hash.newest_source(str(tmp_path / "missing")) == 0
