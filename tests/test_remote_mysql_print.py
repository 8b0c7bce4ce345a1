"""`binlogkit print -R` against `mysqlbinlog -R` 9.7.4, byte for byte, on one live MySQL 9.7.

One throw-away MySQL for the module (GTIDs on) with a workload over three binlogs:
the first holds only statements (DDL, statement-format INSERTs), the second row
events of many column types (JSON, BLOB, DECIMAL, DATETIME(6)), a user variable
in a statement-format INSERT, a zstd-compressed transaction, a tagged GTID and an
XA transaction; the third is the live log.  Both tools read it over the unix
socket (and over TCP with a password user and TLS) with the same options;
stdout and the exit status must match.

The event text is the file printer's (mysqlbinlog 9.7.4's 9.x text: rows-event
flag names, the User_var charset wrap; merged from branch i24-mysql-text); what
-R adds is the dump and the real tool's numbering of received events.
"""
import difflib
import os
import subprocess
import sys
import time

import pytest

from mysql_server import needs_mysql
from mysql_remote_server import (
    USER, root_socket_args, socket_args, start_mysql, tcp_args,
)
from binlogkit.lab.mysql_root import root_dir

pytestmark = [needs_mysql]

OPTIONS = {"gtid_mode": "ON", "enforce_gtid_consistency": "ON", "binlog_format": "ROW"}
TEXT_OPTIONS = {
    "default": [],
    "vv_decode_rows": ["-vv", "--base64-output=decode-rows"],
    "verbose": ["-v"],
    "short_form": ["--short-form"],
    "hexdump": ["--hexdump"],
}


@pytest.fixture(scope="module")
def server():
    srv = start_mysql(OPTIONS)
    try:
        _workload(srv)
        srv.names = [p.name for p in srv.binlog_files()]
        srv.positions = {name: _positions(srv, name) for name in srv.names}
        yield srv
    finally:
        srv.cleanup()


def _workload(srv):
    srv.sql("CREATE DATABASE d; CREATE TABLE d.s (id INT PRIMARY KEY, v VARCHAR(40)); "
            "SET SESSION binlog_format=STATEMENT; "
            "INSERT INTO d.s VALUES (1, 'one'); INSERT INTO d.s VALUES (2, 'two'); "
            "UPDATE d.s SET v = 'TWO' WHERE id = 2; FLUSH BINARY LOGS;")
    time.sleep(1.1)
    srv.sql("CREATE TABLE d.t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(100), j JSON, "
            "b BLOB, n DECIMAL(10,3), ts DATETIME(6), f DOUBLE); "
            "INSERT INTO d.t (v, j, b, n, ts, f) VALUES "
            "('a', '{\"k\": [1, 2, {\"x\": null}]}', x'00ff10', 12.5, '2024-01-02 03:04:05.123456', 1.5), "
            "('b', NULL, NULL, -3.25, NULL, NULL); "
            "UPDATE d.t SET j = JSON_SET(j, '$.k[0]', 7) WHERE id = 1; "
            "DELETE FROM d.t WHERE id = 2;")
    time.sleep(1.1)
    srv.sql("SET @u = 'from a variable'; SET SESSION binlog_format=STATEMENT; "
            "INSERT INTO d.s VALUES (3, @u); SET SESSION binlog_format=ROW; "
            "SET SESSION binlog_transaction_compression=ON; "
            "INSERT INTO d.t (v) VALUES ('compressed'), ('also compressed'); "
            "SET SESSION binlog_transaction_compression=OFF; "
            "SET gtid_next='AUTOMATIC:tag_one'; INSERT INTO d.t (v) VALUES ('tagged'); "
            "SET gtid_next='AUTOMATIC'; "
            "XA START 'x1'; INSERT INTO d.t (v) VALUES ('xa'); XA END 'x1'; XA PREPARE 'x1'; "
            "XA COMMIT 'x1'; "
            "INSERT INTO d.t (v) SELECT CONCAT('r', seq) FROM (SELECT 1 seq UNION SELECT 2 "
            "UNION SELECT 3) x; FLUSH BINARY LOGS;")
    time.sleep(1.1)
    srv.sql("INSERT INTO d.t (v) VALUES ('live');")


def _positions(srv, name):
    with srv.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SHOW BINLOG EVENTS IN '{name}'")
        return [int(row[1]) for row in cur.fetchall()]


def _env():
    return dict(os.environ, TZ="UTC")


def real_tool(srv, args):
    """The root's mysqlbinlog, with the socket as the chroot sees it."""
    argv = ["chroot", str(root_dir()), "/usr/bin/env", "TZ=UTC", "TMPDIR=/tmp",
            "/usr/bin/mysqlbinlog", *args]
    r = subprocess.run(argv, capture_output=True, timeout=120)
    return r.stdout, r.returncode, r.stderr


def binlogkit(args):
    r = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args], capture_output=True,
                       timeout=120, env=_env())
    assert b"Traceback" not in r.stderr, r.stderr.decode()
    return r.stdout, r.returncode, r.stderr


def compare(srv, args, text_options=(), transport="socket"):
    """Both tools with `args`: stdout and exit status must be identical."""
    if transport == "socket":
        mine_conn, their_conn = socket_args(srv), root_socket_args(srv)
    else:
        # mysqlbinlog 9.7's option (--ssl is unknown to it, and so to binlogkit for a
        # MySQL server); binlogkit's connection is TLS today whenever the server offers it
        mine_conn = their_conn = tcp_args(srv) + ["--ssl-mode=REQUIRED"]
    theirs = real_tool(srv, ["-R", *their_conn, *text_options, *args])
    mine = binlogkit(["-R", *mine_conn, *text_options, *args])
    assert_same(theirs, mine, " ".join(args))
    return mine


def assert_same(theirs, mine, what):
    assert mine[1] == theirs[1], (mine[2], theirs[2])
    if mine[0] != theirs[0]:
        diff = "".join(difflib.unified_diff(theirs[0].decode("latin-1").splitlines(True),
                                            mine[0].decode("latin-1").splitlines(True),
                                            "mysqlbinlog -R", "binlogkit -R"))
        pytest.fail(f"-R text differs from mysqlbinlog -R ({what}):\n{diff[:6000]}")


def test_statements_only_log(server):
    for options in TEXT_OPTIONS.values():
        out = compare(server, [server.names[0]], options)
        assert b"# End of log file" in out[0]


@pytest.mark.parametrize("name", sorted(TEXT_OPTIONS))
@pytest.mark.parametrize("to_last_log", [False, True], ids=["one_log", "to_last_log"])
def test_socket(server, name, to_last_log):
    args = ["--to-last-log"] if to_last_log else []
    out = compare(server, args + [server.names[1]], TEXT_OPTIONS[name])
    assert out[1] == 0


@pytest.mark.parametrize("name", ["default", "vv_decode_rows"])
def test_tcp_tls_password(server, name):
    compare(server, ["--to-last-log", server.names[0]], TEXT_OPTIONS[name], transport="tcp")


@pytest.mark.parametrize("options", [
    ["--idempotent", "-v"], ["--rewrite-db=d->e", "-vv"], ["--require-row-format"],
    ["--database=d", "-v"], ["--skip-gtids"], ["--print-table-metadata", "-v"], ["--offset=5"],
    ["--include-gtids=SERVER:2-4"], ["--exclude-gtids=SERVER:3"],
], ids=lambda options: options[0].split("=")[0].lstrip("-"))
def test_mysqlbinlog_options(server, options):
    """mysqlbinlog 9.7's own options over -R (its command line is chosen from the
    server's greeting)."""
    uuid = server.sql("SELECT @@server_uuid").strip()
    options = [option.replace("SERVER", uuid) for option in options]
    compare(server, ["--to-last-log", server.names[0]], options)


def test_several_logs(server):
    compare(server, server.names[:2])


def test_positions(server):
    name = server.names[1]
    positions = server.positions[name]
    for start, stop in ((positions[3], None), (positions[5], positions[9]), (None, positions[6])):
        args = ([f"--start-position={start}"] if start else []) + \
               ([f"--stop-position={stop}"] if stop else [])
        compare(server, args + [name])
        compare(server, args + ["--to-last-log", name])


def test_datetimes(server):
    rows = server.sql(f"SELECT DATE_FORMAT(NOW() - INTERVAL 2 SECOND, '%Y-%m-%d %H:%i:%s')")
    middle = rows.strip()
    for args in (["--start-datetime=2020-01-01 00:00:00"], [f"--stop-datetime={middle}"],
                 [f"--start-datetime={middle}"]):
        compare(server, args + ["--to-last-log", server.names[0]])


def test_exclude_gtids_through_the_gtid_dump(server):
    uuid = server.sql("SELECT @@server_uuid").strip()
    for exclude in (f"{uuid}:1-4", f"{uuid}:2:5-6", ""):
        args = ["--read-from-remote-source=BINLOG-DUMP-GTIDS", f"--exclude-gtids={exclude}"]
        theirs = real_tool(server, [*root_socket_args(server), *args, "--to-last-log",
                                    server.names[0]])
        mine = binlogkit([*socket_args(server), *args, "--to-last-log", server.names[0]])
        assert mine[1] == theirs[1] == 0, (mine[2], theirs[2])
        assert_same(theirs, mine, " ".join(args))


def test_dash_r_with_the_gtid_dump_is_refused_as_by_mysqlbinlog(server):
    args = ["--read-from-remote-source=BINLOG-DUMP-GTIDS", server.names[0]]
    theirs = real_tool(server, ["-R", *root_socket_args(server), *args])
    mine = binlogkit(["-R", *socket_args(server), *args])
    assert mine[1] == theirs[1] == 1
    assert mine[0] == theirs[0] == b""
    # the whole of stderr: mysqlbinlog warns of the command-line password as it reads its
    # options, before it refuses them
    assert mine[2] == theirs[2]
    assert b"ERROR: The option read-from-remote-server cannot be used" in mine[2]


def test_stop_never_until_a_stop_position(server):
    """--stop-never waits for new events; both tools end at the same stop position
    once writes reach it in the live log."""
    live = server.names[-1]
    end = int(server.sql("SHOW BINARY LOG STATUS").split("\t")[1])
    args = ["--stop-never", f"--stop-position={end + 200}", "--connection-server-id=41"]
    theirs = subprocess.Popen(["chroot", str(root_dir()), "/usr/bin/env", "TZ=UTC", "TMPDIR=/tmp",
                               "/usr/bin/mysqlbinlog", "-R", *root_socket_args(server), *args,
                               live], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    args[-1] = "--connection-server-id=42"
    mine = subprocess.Popen([sys.executable, "-m", "binlogkit", "print", "-R", *socket_args(server),
                             *args, live], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    time.sleep(3)
    assert theirs.poll() is None and mine.poll() is None
    server.sql("INSERT INTO d.t (v) VALUES ('stop never 1'); INSERT INTO d.t (v) VALUES ('2');")
    their_out, their_err = theirs.communicate(timeout=60)
    my_out, my_err = mine.communicate(timeout=60)
    assert mine.returncode == theirs.returncode == 0, (my_err, their_err)
    assert_same((their_out, 0), (my_out, 0), "--stop-never")


def test_wrong_password(server):
    """The server's flavor comes from its greeting when it cannot log in: mysqlbinlog's
    preamble, then its error line, exit 1."""
    args = ["-u", USER, "--password=wrong", server.names[0]]
    theirs = real_tool(server, ["-R", "-S", server.r(server.socket), *args])
    mine = binlogkit(["-R", "-S", str(server.socket), *args])
    assert_same(theirs, mine, "wrong password")
    assert mine[1] == 1 and b"PSEUDO_SLAVE_MODE" in mine[0]
    # the whole of stderr: mysqlbinlog's password warning (printed as it reads its options,
    # whether or not it then connects), then its error line
    assert mine[2] == theirs[2]
    assert mine[2].startswith(b"mysqlbinlog: [Warning] Using a password on the command line")
