"""Every command that writes a file refuses to write over one of its inputs.

`refuse_input_as_output(files, target, option)` compares by device and inode, so
another spelling, a symlink or a hard link of an input is caught before the
output is opened for writing (which would truncate the input first, as
mysqlbinlog --result-file does to a binlog).  "-" among the inputs is standard
input.  Used by print --result-file, slowlog digest/events -o, report -o/--plot
and export -o.
"""
import os
import sys

from binlogkit.errors import BinlogkitError

__all__ = ["refuse_input_as_output"]


def refuse_input_as_output(files, target, option="--result-file"):
    if target is None or target == "-":
        return
    try:
        st = os.stat(target)
    except OSError:
        return          # no such file yet (or unreachable: open() says why)
    for name in files:
        try:
            other = os.fstat(sys.stdin.fileno()) if name == "-" else os.stat(name)
        except (OSError, ValueError):
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            shown = "standard input" if name == "-" else f"'{name}'"
            raise BinlogkitError(f"{option} '{target}' is the input {shown}: "
                                 "not overwriting it (nothing written)")
