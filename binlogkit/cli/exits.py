"""Exit statuses and error lines of every command, in one place.

    0   success (report: no stall of --threshold seconds or more)
    1   bad input: an error of the BinlogkitError tree or an OSError (unreadable
        file, unwritable output, server refused); one line on stderr
    2   usage (click's own errors; `print` uses my_getopt's codes 2-13 for option errors)
    3   report: at least one stall of --threshold seconds or more
    130 interrupted (^C) after what was printed was flushed

`binlogkit print` writes its lines as mysqlbinlog does ("ERROR: ..."); the
other commands name themselves ("binlogkit slowlog: ...").
"""
import os
import sys

from binlogkit.errors import BinlogkitError

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_STALLS = 3
EXIT_INTERRUPTED = 130

HANDLED = (BinlogkitError, OSError)


def status_for(exc):
    """The exit status of an exception that ends a command."""
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if isinstance(exc, HANDLED):
        return EXIT_ERROR
    raise TypeError(f"not an error of binlogkit's tree: {exc!r}")


def error_text(exc, output_name="output"):
    """One line saying what went wrong and where (file, offset), without "ERROR:"."""
    if isinstance(exc, BinlogkitError):
        return str(exc)
    name = exc.filename if getattr(exc, "filename", None) is not None else output_name
    return f"{name}: {exc.strerror or exc}"


def mysqlbinlog_lines(exc):
    """mysqlbinlog's stderr for an error: its detail line first when it has one
    (InvalidEventError), then the error, then the warnings collected on the way."""
    lines = []
    if getattr(exc, "detail", None):
        lines.append(f"ERROR: {exc.detail}")
    lines.append(f"ERROR: {exc.tool_text() if hasattr(exc, 'tool_text') else error_text(exc)}")
    lines.extend(f"WARNING: {message}" for message in getattr(exc, "warnings", ()))
    return "".join(line + "\n" for line in lines)


def fail(prefix, exc):
    """`prefix: what` on stderr and exit 1 (an exception or a message)."""
    text = exc if isinstance(exc, str) else error_text(exc)
    sys.stderr.write(f"{prefix}: {text}\n")
    sys.stderr.flush()
    sys.exit(EXIT_ERROR)


class reported:
    """`with reported(prefix):` runs a command's work: an error of the tree or an
    OSError becomes one line and exit 1; a reader that went away (| head) ends it
    quietly with 0.  (A class, not contextlib: `print` loads this module at start-up.)"""

    def __init__(self, prefix, output_name="output"):
        self.prefix, self.output_name = prefix, output_name

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return False
        if issubclass(exc_type, BrokenPipeError):
            silence_stdout()
            sys.exit(EXIT_OK)
        if issubclass(exc_type, BinlogkitError):
            fail(self.prefix, exc)
        if issubclass(exc_type, OSError):
            fail(self.prefix, error_text(exc, self.output_name))
        return False


def silence_stdout():
    """After EPIPE, point stdout at /dev/null so interpreter shutdown stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
