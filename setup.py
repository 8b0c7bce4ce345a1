"""Build the optional C accelerator; everything else is in pyproject.toml.

`binlogkit._speedups` is optional: without a compiler (or Python headers) the
install still succeeds and binlogkit runs its pure-Python code.  Its sources
are the files of binlogkit/csrc/.
"""
from setuptools import Extension, setup

CSRC = "binlogkit/csrc/"

setup(ext_modules=[Extension(
    "binlogkit._speedups",
    [CSRC + name + ".c" for name in ("speedups", "rows", "image", "text", "slowlog", "mysql")],
    depends=[CSRC + "speedups.h"], optional=True)])
