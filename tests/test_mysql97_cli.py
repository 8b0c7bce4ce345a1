"""mysqlbinlog 9.7.4's command line and text beyond the recorded runs, against the real tool.

- option errors and warnings: mysqlbinlog's words and exit codes on a MySQL log;
- --mysqlbinlog-version: 8.0.41's text on demand, -V saying which;
- every public MySQL binlog of ../shared/peer printed by the root's mysqlbinlog 9.7.4 and by
  binlogkit --mysqlbinlog-version=9.7 (logs of old servers, read errors included).
Tests that run the real tool skip without the MySQL root (tests/mysql_server.py).
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from mysql_server import MySQLServer, copy_into_root, in_root, mysqlbinlog, needs_mysql
from oracle import diff_text

ROOT = pathlib.Path(__file__).resolve().parent.parent
LOG97 = ROOT / "fixtures" / "mysql97" / "gtid_full" / "binlog.000001"
PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs"
if not PEER.is_dir():
    PEER = pathlib.Path("/work/shared/peer/mysql-binlogs")
PEER_FILES = sorted(p for p in PEER.rglob("*") if p.is_file() and not p.name.endswith(".gz")
                    and "mariadb" not in p.name) if PEER.is_dir() else []
# 5.1 pre-GA trees: mysqlbinlog 9.7 no longer applies their renumbered event types and
# misreads them; binlogkit prints them as 5.x did (README)
KNOWN = {"ver_5_1-wl2325_r.001", "ver_5_1-wl2325_s.001"}
LOAD_FILE = re.compile(rb"'[^'\n]*SQL_LOAD_MB-[^'\n]*'")


def binlogkit(*args, env=None, tz="UTC"):
    return subprocess.run([sys.executable, "-m", "binlogkit", "print", "--no-defaults", *args],
                          capture_output=True, env=dict(os.environ, TZ=tz, LC_ALL="C", **(env or {})))


def real(args, files, tz="UTC"):
    if not files:
        return mysqlbinlog(["--no-defaults", *args], env={"TZ": tz, "LC_ALL": "C"})
    inside = copy_into_root(files)
    try:
        return mysqlbinlog(["--no-defaults", *args, *inside], env={"TZ": tz, "LC_ALL": "C"})
    finally:
        shutil.rmtree(pathlib.Path(os.environ.get("BINLOGKIT_MYSQL_ROOT",
                                                  "/var/cache/binlogkit/mysql-root"))
                      / pathlib.Path(inside[0]).parent.relative_to("/"), ignore_errors=True)


OPTION_CASES = [
    ["--bogus"], ["--bogus=1"], ["-Q"], ["--verbose=1"], ["--skip-verbose"],
    ["--short-form=maybe"], ["--offset=5x"], ["--offset=-1"], ["--loose-bogus"],
    ["--loose-bogus=3"], ["--print-row-count"], ["--print-row-event-positions"],
    ["--table=t"], ["--gtid-strict-mode"], ["--base64-output=xx"], ["--st"],
    ["--ssl-mode=DISABLED", "--server-id-bits=8", "--compression-algorithms=zstd",
     "--get-server-public-key", "--tls-ciphersuites=x", "--bind-address=127.0.0.1"],
    ["-i", "--require-row-format=0"], ["--compress"],
    # numbers out of their range: adjusted with a warning, or refused past 64 bits
    ["--server-id-bits=99"], ["--server-id-bits=-1"], ["--open-files-limit=1"],
    ["--binlog-row-event-max-size=5"], ["--zstd-compression-level=0"],
    ["--zstd-compression-level=4294967296"], ["--start-position=1"], ["--stop-position=0"],
    ["--connection-server-id=-5"], ["--port=4294967295"], ["--port=-1"],
    ["--offset=18446744073709551616"], ["--start-position=18446744073709551616"],
    ["--port=18446744073709551615"], ["--offset=-2k"],
    ["--stop-never-slave-server-id=7", "--compress"],
]


@needs_mysql
@pytest.mark.parametrize("args", OPTION_CASES, ids=" ".join)
def test_options_on_a_mysql_log_as_mysqlbinlog_974(args):
    want = real(args, [LOG97])
    got = binlogkit(*args, str(LOG97))
    assert got.stderr.decode() == argv0(want.stderr.decode())
    assert got.returncode == want.returncode
    w, g = LOAD_FILE.sub(b"'<LOAD_FILE>'", want.stdout), LOAD_FILE.sub(b"'<LOAD_FILE>'", got.stdout)
    assert g == w, diff_text(w, g, " ".join(args))


@needs_mysql
@pytest.mark.parametrize("position", ["18446744073709551615", "9223372036854775808",
                                      "9223372036854775807", "300", "1000"])
def test_read_errors_at_a_start_position(position):
    """A position past what a file offset can be (a failed seek, printed signed), inside an
    event whose length is past 1 GiB ("Event too big") or past the end: mysqlbinlog's words,
    in binlogkit's one line that names the file and the offset, exit 1."""
    args = ["--short-form", f"--start-position={position}"]
    want = real(args, [LOG97])
    got = binlogkit(*args, str(LOG97))
    assert got.returncode == want.returncode == 1
    assert LOAD_FILE.sub(b"", got.stdout) == LOAD_FILE.sub(b"", want.stdout)
    first, *rest = [line for line in want.stderr.decode().splitlines() if line.startswith("ERROR")]
    offset = first.split("offset ")[1].split(":")[0]
    assert rest and f"{LOG97}, offset {offset}" in got.stderr.decode()
    assert got.stderr.decode().splitlines()[-1].endswith(
        first[len("ERROR: "):] + " " + rest[0][len("ERROR: "):])


def argv0(text):
    """The real tool names itself by its argv[0] inside some messages; the harness runs it
    as /usr/bin/mysqlbinlog, a shell user as mysqlbinlog (what binlogkit says)."""
    return text.replace("/usr/bin/mysqlbinlog: ", "mysqlbinlog: ")


@needs_mysql
def test_missing_argument_on_mysqlbinlogs_command_line():
    """No file to tell the flavor: --flavor=mysql gives mysqlbinlog's command line."""
    want = real(["--database"], [])
    got = binlogkit("--flavor=mysql", "--database")
    assert (got.stderr.decode(), got.returncode) == (argv0(want.stderr.decode()), want.returncode)


def test_mysqlbinlog_version_80_prints_the_older_text():
    new = LOAD_FILE.sub(b"''", binlogkit(str(LOG97)).stdout)
    old = LOAD_FILE.sub(b"''", binlogkit("--mysqlbinlog-version=8.0", str(LOG97)).stdout)
    assert b" USE_SQL_FOREIGN_KEY_F" in new and b"/*!\\C utf8mb3 */" in new
    assert b"USE_SQL_FOREIGN_KEY_F" not in old and b"/*!\\C utf8mb3 */" not in old
    assert b" flags: STMT_END_F\n" in old
    # only the flags and the User_var switch differ
    strip = re.compile(rb" flags: [A-Z_ ()x0-9a-f]*|/\*!\\C utf8mb[34] \*//\*!\*/;\n"
                       rb"|SET @@session.character_set_client=\d+,@@session.collation_connection="
                       rb"\d+,@@session.collation_server=\d+/\*!\*/;\n")
    assert strip.sub(b"", new) == strip.sub(b"", old)


def test_version_line_names_the_emulated_tool():
    auto = binlogkit("-V", str(LOG97)).stdout.decode()
    assert auto.startswith("mysqlbinlog  Ver 9.7.4 for binlogkit-") and "8.0.41" in auto
    old = binlogkit("--mysqlbinlog-version=8.0", "-V").stdout.decode()
    assert old.startswith("mysqlbinlog  Ver 8.0.41 for binlogkit-")
    assert binlogkit("-V").stdout.decode().startswith("mariadb-binlog Ver 3.5 for binlogkit-")


@needs_mysql
@pytest.mark.parametrize("args", [[], ["-vv"], ["-vv", "--base64-output=decode-rows"],
                                  ["--hexdump"]], ids=lambda a: " ".join(a) or "default")
@pytest.mark.parametrize("path", PEER_FILES, ids=lambda p: p.name)
def test_peer_binlog_prints_as_mysqlbinlog_974(path, args):
    if path.name in KNOWN:
        pytest.skip("5.1 pre-GA type permutation: mysqlbinlog 9.7 misreads it")
    want = real(args, [path])
    got = binlogkit("--mysqlbinlog-version=9.7", "--flavor=mysql", *args, str(path))
    assert b"Traceback" not in got.stderr
    w, g = LOAD_FILE.sub(b"'<LOAD_FILE>'", want.stdout), LOAD_FILE.sub(b"'<LOAD_FILE>'", got.stdout)
    assert g == w, diff_text(w, g, path.name)
    assert got.returncode == want.returncode, got.stderr


# a workload the recorded fixtures do not have: rows split over several events (9.x flags
# without STMT_END_F), Rows_query, savepoints, triggers, procedures, views, users, SET NAMES
# latin1, temporary tables and user variables in STATEMENT format, a session time zone;
# then a SIGKILL leaves a log flagged in use
SQL = """
CREATE DATABASE w; USE w;
CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB, t TEXT CHARACTER SET latin1, e ENUM('x','y'), s SET('a','b'), bt BIT(64), f FLOAT, d DOUBLE, dt DATETIME(3), ts TIMESTAMP(6) NULL, y YEAR, g POINT) ;
INSERT INTO big VALUES (1, REPEAT('b', 9000), 'caf\xc3\xa9', 'y', 'a,b', b'1111', -0.0, 1e-310, '2020-02-29 23:59:59.999', '2038-01-19 03:14:07.123456', 1901, POINT(0,0));
INSERT INTO big SELECT id+1, REPEAT('c', 5000), t, e, s, bt, f, d, dt, ts, y, g FROM big;
INSERT INTO big SELECT id+2, b, t, e, s, bt, f, d, dt, ts, y, g FROM big;
UPDATE big SET b = REPEAT('z', 7000);
SET SESSION binlog_rows_query_log_events = ON;
BEGIN; INSERT INTO big (id) VALUES (100); SAVEPOINT sp1; INSERT INTO big (id) VALUES (101); ROLLBACK TO SAVEPOINT sp1; COMMIT;
DELETE FROM big WHERE id > 2;
SET SESSION binlog_rows_query_log_events = OFF;
CREATE TABLE trg (id INT PRIMARY KEY AUTO_INCREMENT, v INT);
CREATE TRIGGER tr AFTER INSERT ON big FOR EACH ROW INSERT INTO trg (v) VALUES (NEW.id);
INSERT INTO big (id) VALUES (200);
CREATE PROCEDURE p(x INT) INSERT INTO trg (v) VALUES (x);
CALL p(5);
CREATE VIEW vw AS SELECT id FROM big;
ALTER TABLE trg ADD COLUMN c VARCHAR(5) DEFAULT 'q';
CREATE USER 'u1'@'localhost' IDENTIFIED BY 'pw'; GRANT SELECT ON w.* TO 'u1'@'localhost';
SET NAMES latin1;
INSERT INTO big (id, t) VALUES (300, 'x\xe9');
SET SESSION binlog_format = 'STATEMENT';
SET NAMES utf8mb4;
INSERT INTO trg (v) VALUES (RAND(3) * 100);
CREATE TEMPORARY TABLE tmp (a INT); INSERT INTO tmp VALUES (1); DROP TEMPORARY TABLE tmp;
SET @v = 'x'; UPDATE trg SET c = @v WHERE id = 1;
SET SESSION binlog_format = 'ROW';
SET SESSION time_zone = '+05:30';
INSERT INTO big (id, ts) VALUES (400, '2001-01-01 00:00:00');
DROP VIEW vw; DROP PROCEDURE p; DROP TABLE trg;
"""
FRESH_OPTIONS = [[], ["-v"], ["-vv", "--base64-output=decode-rows"], ["--hexdump"],
                 ["--short-form"], ["--print-table-metadata"], ["--database=w"],
                 ["--rewrite-db=w->x", "-v"], ["--idempotent"], ["--skip-gtids"], ["--offset=3"],
                 ["--force-if-open=0"]]


@needs_mysql
def test_fresh_workload_prints_as_mysqlbinlog_974():
    with MySQLServer(options={"gtid_mode": "ON", "enforce_gtid_consistency": "ON",
                              "binlog_row_metadata": "FULL"}) as srv:
        srv.sql(SQL)
        srv.kill()
        srv.start()
        srv.sql("CREATE TABLE w.after_kill (a INT PRIMARY KEY); INSERT INTO w.after_kill VALUES (1); "
                "FLUSH BINARY LOGS")
        files = srv.binlog_files()[:-1]
        failures = []
        for tz in ("UTC", "America/New_York"):
            for options in FRESH_OPTIONS:
                want = mysqlbinlog([*options, *[in_root(f) for f in files]],
                                   env={"TZ": tz, "LC_ALL": "C"})
                got = binlogkit(*options, *map(str, files), tz=tz)
                w = LOAD_FILE.sub(b"''", want.stdout)
                g = LOAD_FILE.sub(b"''", got.stdout)
                if (w, want.returncode) != (g, got.returncode):
                    failures.append(diff_text(w, g, f"{tz} {' '.join(options)}")[:3000])
        assert not failures, "\n".join(failures)
