"""mysqlbinlog command-line spellings `binlogkit print` accepts like the real tool."""

import subprocess
import sys
from pathlib import Path

import pytest

BINLOG = str(Path(__file__).resolve().parents[1] / "fixtures" / "binlog" / "none" / "mariadb-bin.000002")


def _print(*args):
    return subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, BINLOG],
                          capture_output=True, env={"TZ": "UTC", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("extra", [["--no-defaults"], ["--defaults-group-suffix=_a"],
                                   ["--defaults-file=/dev/null"]])
def test_option_file_options_without_options_change_nothing(extra):
    plain, given = _print(), _print(*extra)
    assert given.returncode == plain.returncode == 0
    assert given.stdout == plain.stdout


def test_missing_required_option_file_is_fatal():
    given = _print("--defaults-file=/nonexistent")
    assert given.returncode == 1 and given.stdout == b""
    assert given.stderr == (b"Could not open required defaults file: /nonexistent\n"
                            b"Fatal error in defaults handling. Program aborted\n")


def test_unique_prefix_is_the_long_option():
    full = _print("--start-position=4", "--stop-position=400")
    short = _print("--start-pos=4", "--stop-pos=400")
    assert short.returncode == 0 and short.stdout == full.stdout
    assert short.stderr.startswith(b"Info: Using unique option prefix 'start-pos' is error-prone")


def test_ambiguous_prefix_is_my_getopts_error():
    given = _print("--s")
    assert given.returncode == 3      # EXIT_AMBIGUOUS_OPTION, as mariadb-binlog
    assert given.stderr == b"mariadb-binlog: ambiguous option '--s' (server-id, skip-annotate-row-events)\n"
