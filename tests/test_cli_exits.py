"""Exit statuses and messages a new user hit (issue 27 items 5-6): unreadable inputs are
bad input (exit 1, one line) in every command, as README and --help say; `print` without
files answers as mariadb-binlog does; `report -p` alone asks for the password as print does.

Unreadable files are made unreadable for real: as root (who reads anything) the command
runs as `nobody` through setpriv; otherwise the file is chmod 000.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogkit.cli import main

ROOT = Path(__file__).resolve().parents[1]
BINLOG = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"
SLOW = ROOT / "fixtures" / "slowlog" / "mysql8-log_slow_extra.log"
LAB_SLOW = ROOT / "fixtures" / "lab" / "slow.log.gz"
MARIADB_BINLOG = shutil.which("mariadb-binlog")
NO_FILES = b"ERROR: Please provide the log file(s). Run with '--help' for usage instructions.\n"


def _unprivileged():
    """The command prefix that runs as a user the file's mode keeps out, or None."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if setpriv else None


def run_cli(args, cwd):
    prefix = _unprivileged()
    if prefix is None:
        pytest.skip("running as root without setpriv: no file is unreadable")
    import binlogkit
    site = [p for p in sys.path if p.endswith("site-packages")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(Path(binlogkit.__file__).parents[1]), *site]))
    return subprocess.run(prefix + [sys.executable, "-m", "binlogkit", *map(str, args)],
                          capture_output=True, cwd=cwd, env=env, timeout=120)


@pytest.fixture
def unreadable(tmp_path):
    """A directory everyone may enter and write, holding an unreadable copy of a binlog and
    of a slow log."""
    tmp_path.chmod(0o777)
    opened = []
    for p in tmp_path.parents:
        mode = p.stat().st_mode & 0o7777
        if p == Path("/") or mode & 0o001:
            break
        opened.append((p, mode))
        p.chmod(mode | 0o001)       # traversable for the test (pytest's base dir is 0700)
    binlog, slow = tmp_path / "mariadb-bin.000001", tmp_path / "slow.log"
    shutil.copyfile(BINLOG, binlog)
    shutil.copyfile(SLOW, slow)
    binlog.chmod(0)
    slow.chmod(0)
    yield tmp_path
    for p, mode in opened:
        p.chmod(mode)


@pytest.mark.parametrize("command,prefix", [
    (["report", "--binlog", "mariadb-bin.000001", "--slowlog", LAB_SLOW], "binlogkit report:"),
    (["report", "--binlog", BINLOG, "--slowlog", "slow.log"], "binlogkit report:"),
    (["export", "mariadb-bin.000001", "--what", "events", "-o", "out.csv"], "binlogkit export:"),
    (["export", "slow.log", "--what", "slowlog", "-o", "out.jsonl"], "binlogkit export:"),
    (["slowlog", "digest", "slow.log"], "binlogkit slowlog:"),
    (["slowlog", "events", "slow.log"], "binlogkit slowlog:"),
], ids=["report-binlog", "report-slowlog", "export-events", "export-slowlog", "digest", "events"])
def test_unreadable_input_is_bad_input_not_usage(command, prefix, unreadable):
    res = run_cli(command, unreadable)
    assert res.returncode == 1, res.stderr
    lines = res.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix) and "Permission denied" in lines[0]


@pytest.mark.skipif(MARIADB_BINLOG is None, reason="mariadb-binlog not installed")
def test_print_unreadable_file_as_mariadb_binlog(unreadable):
    prefix = _unprivileged()
    if prefix is None:
        pytest.skip("running as root without setpriv")
    real = subprocess.run(prefix + [MARIADB_BINLOG, "mariadb-bin.000001"], capture_output=True,
                          cwd=unreadable)
    ours = run_cli(["print", "mariadb-bin.000001"], unreadable)
    assert (ours.returncode, ours.stdout) == (real.returncode, real.stdout) == (1, ours.stdout)
    # mariadb-binlog: "File '...' not found (Errcode: 13 ...)", no "Failed reading header"
    assert real.stderr.decode().split(": ", 1)[1] in ours.stderr.decode()
    assert b"probably an empty file" not in ours.stderr


@pytest.mark.parametrize("command", [
    ["report", "--binlog", "{d}", "--slowlog", LAB_SLOW],
    ["export", "{d}", "--what", "events", "-o", "{d}/out.csv"],
    ["slowlog", "digest", "{d}"],
])
def test_a_directory_is_bad_input(command, tmp_path):
    res = CliRunner().invoke(main, [str(a).format(d=tmp_path) for a in command])
    assert res.exit_code == 1, res.output
    assert res.stderr.count("\n") == 1 and "directory" in res.stderr


def test_frames_name_the_real_problem(tmp_path):
    pytest.importorskip("pandas")
    import binlogkit.frames as bf
    from binlogkit.errors import BinlogError
    with pytest.raises(BinlogError) as err:
        bf.events_frame(str(tmp_path))
    assert "Is a directory" in str(err.value) and "empty file" not in str(err.value)


@pytest.mark.skipif(MARIADB_BINLOG is None, reason="mariadb-binlog not installed")
@pytest.mark.parametrize("options", [[], ["-v", "--short-form"]])
def test_print_without_files_as_mariadb_binlog(options):
    real = subprocess.run([MARIADB_BINLOG, "--no-defaults", *options], capture_output=True)
    assert (real.returncode, real.stdout, real.stderr) == (1, b"", NO_FILES)
    ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", "--no-defaults", *options],
                          capture_output=True)
    assert (ours.returncode, ours.stdout, ours.stderr) == (1, b"", NO_FILES)
    res = CliRunner().invoke(main, ["print", *options])
    assert (res.exit_code, res.stderr) == (1, NO_FILES.decode())


def test_print_without_files_mysql_flavor_prints_usage():
    """mysqlbinlog 9.7.4 without a file prints its usage on stdout and exits 1."""
    ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", "--flavor", "mysql"],
                          capture_output=True)
    assert ours.returncode == 1 and ours.stdout.startswith(b"Usage: binlogkit print")


def test_report_p_alone_asks_as_print_does(monkeypatch):
    import binlogkit.cli.remote as remote
    asked = []
    monkeypatch.setattr(remote, "_ask_password", lambda: asked.append(1) or "")
    res = CliRunner().invoke(main, ["report", "-p", "--binlog", str(ROOT / "fixtures" / "lab" /
                                                                   "mariadb-bin.000001"),
                                    "--slowlog", str(LAB_SLOW)])
    assert asked == [1] and res.exit_code in (0, 3), res.output
    asked.clear()
    res = CliRunner().invoke(main, ["report", "-S", "/nonexistent/mysqld.sock", "-u", "root",
                                    "-p"])
    assert asked == [1] and res.exit_code == 1 and "connect" in res.stderr
    asked.clear()
    res = CliRunner().invoke(main, ["report", "-S", "/nonexistent/mysqld.sock", "-p", "secret"])
    assert asked == [] and res.exit_code == 1


@pytest.mark.skipif(MARIADB_BINLOG is None, reason="mariadb-binlog is not installed")
@pytest.mark.parametrize("flashback", [[], ["--flashback"]])
@pytest.mark.parametrize("position", ["18446744073709551615", "9223372036854775808",
                                      "9223372036854775807"])
def test_start_position_past_any_file_offset(position, flashback):
    """The real tool's seek fails and it prints the offset signed; binlogkit said a traceback
    (an int too big for C).  Same lines, the last one naming the file, exit 1."""
    args = ["--no-defaults", *flashback, f"--start-position={position}", str(BINLOG)]
    want = subprocess.run([MARIADB_BINLOG, *args], capture_output=True)
    got = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args], capture_output=True)
    assert got.returncode == want.returncode == 1
    assert got.stdout == want.stdout
    w, g = want.stderr.decode().splitlines(), got.stderr.decode().splitlines()
    assert g[0] == w[0] == "ERROR: Error in Log_event::read_log_event(): 'read error'"
    offset = w[1].split("offset ")[1].split(":")[0]
    assert g[1] == f"ERROR: {BINLOG}, offset {offset}: {w[1][len('ERROR: '):]}"


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_report_threshold_must_be_a_finite_number(value):
    """click's FloatRange took nan (every comparison false: no stall ever over it)."""
    res = CliRunner().invoke(main, ["report", "--slowlog", str(SLOW), "--binlog", str(BINLOG),
                                    "--threshold", value])
    assert res.exit_code == 2 and "not a finite number of seconds" in res.output
