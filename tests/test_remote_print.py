"""`binlogkit print -R` against `mariadb-binlog -R`, byte for byte, on one live server.

One throw-away MariaDB for the module, with the fixture workload (every column
type, LOAD DATA, DDL, several binlog files, events at chosen instants), read
over the unix socket and over TCP on 127.0.0.1 with a password user (and TLS
when the server has it).  Both tools run with the same options against the
same, quiet server; stdout and the exit status must be identical.  The only
mask is the LOAD DATA temp directory, which each run gets fresh (the real tool
varies it too).
"""
import difflib
import os
import subprocess
import sys

import pytest

from binlogkit.lab.server import server_available
from remote_server import (
    MARIADB_BINLOG, PASSWORD, USER, compare, run_tool, socket_args, start_server, stop_server,
    tcp_args,
)

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not server_available() or MARIADB_BINLOG is None,
                                 reason="mariadbd / mariadb-binlog are not installed")]


@pytest.fixture(scope="module")
def server():
    import generate as G
    opts = dict(G.COMMON_OPTIONS, binlog_checksum="CRC32")
    srv, certs = start_server(opts)
    try:
        G.run_workload(srv, {"accepted": [], "refused": []}, "crc32", G.SETS["crc32"])
        srv.sql("FLUSH BINARY LOGS;")
        srv.certs = certs
        srv.names = [p.name for p in srv.binlog_files()]
        srv.positions = _positions(srv, srv.names[0])
        yield srv
    finally:
        stop_server(srv)


def _positions(srv, name):
    rows = srv.sql(f"SHOW BINLOG EVENTS IN '{name}';")
    return [int(line.split("\t")[1]) for line in rows.splitlines() if line.strip()]


OPTION_SETS = {
    "default": [],
    "verbose": ["-v"],
    "vv_decode_rows": ["-vv", "--base64-output=decode-rows"],
    "short_form": ["--short-form"],
    "hexdump": ["--hexdump"],
    # not d1: its 150-row INSERT spans two rows events, and mariadb-binlog -R --flashback
    # counts 70 rows for it (from a file, and in binlogkit, 150; see
    # test_flashback_remote_row_counts_are_file_mode)
    "flashback": ["--flashback", "--database=d"],
    "database": ["--database=d"],
    "table_metadata": ["--print-table-metadata", "-v"],
    "skip_annotate": ["--skip-annotate-row-events"],
    "offset": ["--offset=7"],
}


@pytest.mark.parametrize("name", sorted(OPTION_SETS))
@pytest.mark.parametrize("to_last_log", [False, True], ids=["one_log", "to_last_log"])
def test_socket(server, name, to_last_log):
    args = socket_args(server) + OPTION_SETS[name]
    if to_last_log:
        args.append("--to-last-log")
    out, code, _ = compare(args + [server.names[0]])
    assert code == 0 and b"# End of log file" in out


@pytest.mark.parametrize("name", ["default", "vv_decode_rows", "short_form", "flashback"])
def test_tcp(server, name):
    compare(tcp_args(server) + OPTION_SETS[name] + ["--to-last-log", server.names[0]])


def test_tcp_tls(server):
    if not server.certs:
        pytest.skip("the packaged server has no TLS")
    args = tcp_args(server) + [f"--ssl-ca={server.certs['ca']}", "--ssl-verify-server-cert"]
    out, code, _ = compare(args + ["-v", server.names[0]])
    assert code == 0
    check = subprocess.run([sys.executable, "-m", "binlogkit", "print", "-R", *args,
                            "--short-form", server.names[0]], capture_output=True)
    assert check.returncode == 0


def test_positions(server):
    pos = server.positions
    args = socket_args(server)
    compare(args + [f"--start-position={pos[5]}", server.names[0]])
    compare(args + [f"--stop-position={pos[12]}", server.names[0]])
    compare(args + [f"--start-position={pos[5]}", f"--stop-position={pos[12]}", "-t", server.names[0]])
    compare(args + [f"--start-position={pos[5] + 7}", server.names[0]])     # inside an event


def test_several_logs(server):
    compare(socket_args(server) + server.names[:3])
    compare(socket_args(server) + ["--stop-position=1000"] + server.names[:2])


@pytest.mark.parametrize("tz", ["UTC", "America/New_York"])
def test_datetimes(server, tz):
    args = socket_args(server) + ["-t", server.names[0]]
    compare(["--start-datetime=2024-03-10 01:30:00"] + args, tz)
    compare(["--stop-datetime=2024-11-03 01:30:00"] + args, tz)
    compare(["--start-datetime=2024-03-31 00:00:00", "--stop-datetime=2024-10-27 02:00:00"] + args, tz)


def test_gtid_positions(server):
    args = socket_args(server)
    compare(args + ["--start-position=0-1-5", server.names[0]])
    compare(args + ["--start-position=0-1-5", "--stop-position=0-1-30", "-t", server.names[0]])
    compare(args + ["--stop-position=0-1-12", "-t", server.names[0]])


def test_port_and_socket_on_the_command_line(server):
    """The MariaDB clients' rule: a port given on the command line means TCP (even for
    localhost), a socket the socket; the last one given wins; libmariadb uses TCP for a
    host other than localhost even with --protocol=SOCKET."""
    login = ["--user", USER, f"--password={PASSWORD}", server.names[0]]
    for where in (["-hlocalhost", f"-P{server.port}"],
                  ["-S/nonexistent.sock", f"-P{server.port}"],
                  [f"-P{server.port}", "-S", str(server.socket)],
                  ["--protocol=TCP", "-S", str(server.socket)],
                  ["-h127.0.0.1", "--protocol=SOCKET", f"-P{server.port}"]):
        out, code, _ = compare(where + login)
        assert code == 0 and b"# End of log file" in out, where


def test_cannot_connect_messages(server, tmp_path):
    """No server there: the client library's own words (stderr compared too)."""
    login = ["--user", USER, server.names[0]]
    for where in (["-h127.0.0.1", "-P1"], ["-hlocalhost", "-P1"],
                  [f"--socket={tmp_path}/none.sock"], ["-hno-such-host.invalid"],
                  ["-S/no.sock", "-P1"], ["--protocol=TCP", "-P1", "-S/no.sock"]):
        real = run_tool([MARIADB_BINLOG, "--no-defaults", "-R"], where + login, "UTC", str(tmp_path))
        ours = run_tool([sys.executable, "-m", "binlogkit", "print", "-R"], where + login, "UTC",
                        str(tmp_path))
        assert ours == real, where


def test_errors(server):
    args = socket_args(server)
    out, code, err = compare(args + ["no-such-log.000001"])
    assert code == 1 and b"Could not find first log file name" in err
    out, code, err = compare(["--socket", str(server.socket), "--user", USER,
                              "--password=wrong", server.names[0]])
    assert code == 1 and err.startswith(b"ERROR: Failed on connect: Access denied")


def test_password_from_environment(server):
    env = dict(os.environ, MYSQL_PWD=PASSWORD)
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "-R", "-S", str(server.socket),
                           "-u", USER, "--short-form", server.names[0]], capture_output=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert b"# End of log file" in proc.stdout


def test_no_pandas_on_the_remote_path(server):
    code = ("import sys\nfrom binlogkit.cli import main\n"
            "sys.argv = ['binlogkit', 'print', '-R', '--socket', %r, '-u', %r, '--password=%s', "
            "'--short-form', %r]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "assert 'pandas' not in sys.modules, 'pandas imported'\n"
            % (str(server.socket), USER, PASSWORD, server.names[0]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == 0, proc.stderr


def test_connection_options_ignored_for_files(tmp_path):
    """Without -R the connection options are accepted and ignored, as the real tool does."""
    import pathlib
    first = pathlib.Path(__file__).resolve().parent.parent / "fixtures/binlog/crc32/mariadb-bin.000001"
    outs = []
    for i, extra in enumerate([[], ["-h", "db.example", "-P", "3307", "-u", "x", "-pzz",
                                    "--protocol=tcp", "-t", "--stop-never"]]):
        load = tmp_path / str(i)
        load.mkdir()
        proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", f"--local-load={load}",
                               *extra, str(first)], capture_output=True)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout.replace(str(load).encode(), b"LOAD"))
    assert outs[0] == outs[1]


def test_stop_never_prints_events_as_they_come(server):
    """--stop-never: the dump blocks at the end of the last log and new events are
    printed (and flushed) as the server writes them; ^C ends it quietly."""
    import signal
    import time
    proc = subprocess.Popen([sys.executable, "-m", "binlogkit", "print", "-R", "--stop-never",
                             "--short-form", *socket_args(server), server.names[-1]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(1.5)
        server.sql("CREATE DATABASE stop_never_marker;")
        deadline = time.monotonic() + 30
        seen = b""
        os.set_blocking(proc.stdout.fileno(), False)
        while b"stop_never_marker" not in seen and time.monotonic() < deadline:
            time.sleep(0.2)
            seen += proc.stdout.read() or b""
        assert b"CREATE DATABASE stop_never_marker" in seen
        assert proc.poll() is None          # still waiting for more
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and b"Traceback" not in err, err


def test_password_prompt_on_the_terminal(server):
    """-p alone asks on the terminal (not on stdin), as the real tool does."""
    import pty
    import time
    args = [sys.executable, "-m", "binlogkit", "print", "-R", "-S", str(server.socket), "-u", USER,
            "-p", "--short-form", server.names[0]]
    pid, fd = pty.fork()
    if pid == 0:                                    # the child: its terminal is the pty
        os.execv(sys.executable, args)
    seen = b""
    deadline = time.monotonic() + 30
    while b"Enter password:" not in seen and time.monotonic() < deadline:
        seen += os.read(fd, 1024)
    assert b"Enter password:" in seen
    os.write(fd, PASSWORD.encode() + b"\n")
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, seen[-500:]
    assert b"# End of log file" in seen
    answer = seen.split(b"Enter password:", 1)[1].split(b"/*!", 1)[0]
    assert PASSWORD.encode() not in answer          # not echoed



def _rows_lines(text):
    return [line for line in text.splitlines() if line.startswith(b"# Number of rows:")]


def test_flashback_remote_row_counts_are_file_mode(server):
    """README's note on -R --flashback, checked: binlogkit's -R --flashback counts the rows
    the files give (as mariadb-binlog --flashback on the files); mariadb-binlog's own -R
    --flashback is the same from run to run but counts d1's 150-row INSERT, split over two
    rows events, as 70."""
    import tempfile

    from remote_server import run_tool

    def run(cmd, args):
        with tempfile.TemporaryDirectory() as d:
            return run_tool(cmd, args, "UTC", d)

    remote = socket_args(server) + ["--flashback", "--to-last-log", server.names[0]]
    files = ["--flashback"] + [str(p) for p in server.binlog_files()]
    ours_cmd = [sys.executable, "-m", "binlogkit", "print"]
    real_cmd = [MARIADB_BINLOG, "--no-defaults"]
    ours_remote, ours_file = run(ours_cmd + ["-R"], remote), run(ours_cmd, files)
    real_file = run(real_cmd, files)
    real_remote = [run(real_cmd + ["-R"], remote) for _ in range(3)]
    assert ours_remote[1] == ours_file[1] == real_file[1], (ours_remote[2], ours_file[2], real_file[2])
    assert ours_file[0] == real_file[0]
    assert _rows_lines(ours_remote[0]) == _rows_lines(real_file[0])
    assert b"# Number of rows: 150" in _rows_lines(ours_remote[0])
    assert real_remote[0][0] == real_remote[1][0] == real_remote[2][0]      # stable
    differing = [(a, b) for a, b in zip(_rows_lines(real_remote[0][0]), _rows_lines(real_file[0]))
                 if a != b]
    assert differing == [(b"# Number of rows: 70", b"# Number of rows: 150")], (
        "mariadb-binlog -R --flashback changed: update README's note")
