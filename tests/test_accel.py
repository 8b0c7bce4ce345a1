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
    code = ("import binlogkit._csrc_hash as h\n"
            "h.source_hash = lambda folder=None: 'deadbeef'\n"
            "from binlogkit._accel import speedups\n"
            "print(speedups is None)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout == "True\n"
    assert r.stderr.count("\n") == 1 and "build_ext --inplace" in r.stderr
