"""mysqlbinlog command-line spellings `binlogkit print` accepts like the real tool."""

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

BINLOG = str(Path(__file__).resolve().parents[1] / "fixtures" / "binlog" / "none" / "mariadb-bin.000002")


def _print(*args):
    return subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, BINLOG],
                          capture_output=True, env={"TZ": "UTC", "PATH": "/usr/bin:/bin",
                               "TMPDIR": tempfile.gettempdir()})


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


# fixtures/binlog/none/mariadb-bin.000002: 42658 bytes, every event at 2026-11-21 09:48:52 UTC
@pytest.mark.parametrize("args, warnings", [
    (["--stop-position=42658"], b""),         # the end of the file counts as reached
    (["--stop-position=42659"], b"WARNING: Did not reach stop position 42659 before end of input\n"),
    (["--stop-position=42613", "--offset=10000"], b""),
    (["--stop-datetime=2026-11-21 09:48:52", "--stop-position=99999"],
     b"WARNING: Did not reach stop position 99999 before end of input\n"),
    (["--stop-datetime=20261121094853", "--stop-position=99999", "-v"],
     b"WARNING: Did not reach stop datetime '20261121094853' before end of input\n"
     b"WARNING: Did not reach stop position 99999 before end of input\n"),
    (["--stop-datetime=2026-11-21 09:48:53", "--stop-position=300"],
     b"WARNING: Did not reach stop datetime '2026-11-21 09:48:53' before end of input\n"),
    (["--stop-datetime=2030-02-31 00:00:00"], b"ERROR: Incorrect date and time argument: 2030-02-31 00:00:00\n"),
])
def test_unreached_stop_warnings(args, warnings):
    given = _print("--no-defaults", *args)
    assert given.stderr == warnings
    assert given.returncode == (1 if warnings.startswith(b"ERROR") else 0)


def test_unknown_timezone_name_is_an_error():
    given = _print("--no-defaults", "--timezone=Mars/Olympus")
    assert given.returncode == 1 and given.stdout == b""
    assert given.stderr.startswith(b"ERROR: unknown time zone 'Mars/Olympus'")
    assert _print("--no-defaults", "--timezone=GMT-3").returncode == 0
