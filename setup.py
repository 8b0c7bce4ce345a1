"""Build the optional C accelerator; everything else is in pyproject.toml.

`binlogkit._speedups` is optional: without a compiler (or Python headers) the
install still succeeds and binlogkit runs its pure-Python code.  Its sources
are the files of binlogkit/csrc/; their hash is built in (SOURCE_HASH), so that
binlogkit/_accel.py can leave a build older than its sources unused.
"""
import sys
from pathlib import Path

from setuptools import Extension, setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "binlogkit"))
from _csrc_hash import source_hash  # noqa: E402

setup(ext_modules=[Extension(
    "binlogkit._speedups",
    [f"binlogkit/csrc/{name}.c" for name in ("speedups", "rows", "image", "text", "slowlog", "mysql",
                                              "mariadb", "json", "held", "uservar")],
    depends=["binlogkit/csrc/speedups.h"],
    define_macros=[("BK_SOURCE_HASH", f'"{source_hash()}"')], optional=True)])
