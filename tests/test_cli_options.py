"""mysqlbinlog command-line spellings `binlogkit print` accepts like the real tool."""

import subprocess
import sys
from pathlib import Path

import pytest

BINLOG = str(Path(__file__).resolve().parents[1] / "fixtures" / "binlog" / "none" / "mariadb-bin.000002")


def _print(*args):
    return subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, BINLOG],
                          capture_output=True, env={"TZ": "UTC", "PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("extra", [["--no-defaults"], ["--defaults-file=/nonexistent"],
                                   ["--no-defaults", "--defaults-extra-file=/x", "--defaults-group-suffix=_a"]])
def test_option_file_options_change_nothing(extra):
    plain, given = _print(), _print(*extra)
    assert given.returncode == plain.returncode == 0
    assert given.stdout == plain.stdout


def test_unique_prefix_is_the_long_option():
    full = _print("--start-position=4", "--stop-position=400")
    short = _print("--start-pos=4", "--stop-pos=400")
    assert short.returncode == 0 and short.stdout == full.stdout
    assert short.stderr.startswith(b"Info: Using unique option prefix 'start-pos' is error-prone")


def test_ambiguous_prefix_is_a_usage_error():
    assert _print("--s").returncode == 2
