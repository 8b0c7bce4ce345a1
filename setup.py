"""Build the optional C accelerator; everything else is in pyproject.toml.

`binlogkit._speedups` is optional: without a compiler (or Python headers) the
install still succeeds and binlogkit runs its pure-Python code.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "binlogkit._speedups", ["binlogkit/_speedups.c", "binlogkit/_speedups_rows.c",
                              "binlogkit/_speedups_image.c", "binlogkit/_speedups_text.c",
                              "binlogkit/_speedups_slowlog.c",
                              "binlogkit/_speedups_mysql.c"],
    depends=["binlogkit/_speedups.h"], optional=True)])
