"""Point-in-time recovery on MySQL 9.7: `binlogkit print LOGS | mysql` restores every table
that `mysqlbinlog LOGS | mysql` restores, hostile identifiers included.

A MySQL 9.7 with GTIDs and full row metadata runs a workload shaped like production (small
transactions, statement and row format, JSON partial updates, compression, tagged GTIDs,
foreign-key cascades, XA, LOAD DATA, a rotation and a restart) over databases and tables
whose names hold quotes, backticks and line feeds.  Its binlogs are then replayed into two
fresh servers, one through the root's mysqlbinlog 9.7.4, one through binlogkit; CHECKSUM
TABLE of every table must be the source's on both.
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

from mysql_server import MySQLServer, in_root, mysqlbinlog, needs_mysql

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fixtures"))

pytestmark = needs_mysql

GTID = {"gtid_mode": "ON", "enforce_gtid_consistency": "ON", "binlog_row_metadata": "FULL",
        "binlog_row_value_options": "PARTIAL_JSON"}
HOSTILE = """
CREATE DATABASE `ev``il
db`;
CREATE TABLE `ev``il
db`.`t'1
DROP DATABASE d1; --x` (`c``1
x` INT PRIMARY KEY, `v"` VARCHAR(20));
INSERT INTO `ev``il
db`.`t'1
DROP DATABASE d1; --x` VALUES (1, 'a\\nb'), (2, 'c''d');
UPDATE `ev``il
db`.`t'1
DROP DATABASE d1; --x` SET `v"` = 'x' WHERE `c``1
x` = 2;
SET SESSION binlog_format = 'STATEMENT';
INSERT INTO `ev``il
db`.`t'1
DROP DATABASE d1; --x` VALUES (3, 'stmt');
SET SESSION binlog_format = 'ROW';
"""


def checksums(srv, tables):
    out = {}
    for db, table in tables:
        quoted = "`%s`.`%s`" % (db.replace("`", "``"), table.replace("`", "``"))
        row = srv.sql(f"CHECKSUM TABLE {quoted}").rstrip("\n").rsplit("\t", 1)
        out[(db, table)] = row[-1]
    return out


def user_tables(srv):
    # names may hold line feeds: one row per table, fields split by a byte no name has
    text = srv.sql("SELECT CONCAT(HEX(TABLE_SCHEMA), ' ', HEX(TABLE_NAME)) FROM "
                   "information_schema.TABLES WHERE TABLE_SCHEMA NOT IN "
                   "('mysql', 'sys', 'information_schema', 'performance_schema')")
    pairs = [line.split() for line in text.splitlines() if line.strip()]
    return sorted((bytes.fromhex(a).decode(), bytes.fromhex(b).decode()) for a, b in pairs)


def _replay(text):
    """(error or None, checksums): `text` piped into mysql on a fresh server."""
    with MySQLServer(options={**GTID, "local_infile": "ON"}) as target:
        try:
            target.sql(text, extra_args=["--local-infile=1"])
            error = None
        except RuntimeError as exc:     # the client stops at the first failing statement
            error = str(exc)
        return error, checksums(target, user_tables(target))


def test_binlogkit_replay_restores_what_mysqlbinlog_restores(tmp_path):
    import gen_mysql97 as G
    with MySQLServer(options=GTID) as srv:
        srv.sql(HOSTILE)
        G.run_workload(srv, {"gipk": G.GIPK, "tagged": G.TAGGED, "compressed": G.COMPRESSED},
                       srv.basedir)
        srv.sql("FLUSH BINARY LOGS")
        files = srv.binlog_files()
        tables = user_tables(srv)
        want = checksums(srv, tables)
        real = mysqlbinlog([in_root(f) for f in files])
        assert real.returncode == 0, real.stderr
        # LOAD DATA files: the mysql client runs in the root, binlogkit on the host: a host
        # path /tmp/NAME that leads to the root's /tmp/NAME serves both
        load_dir = pathlib.Path(tempfile.mkdtemp(prefix="binlogkit-pitr-", dir=srv.root / "tmp"))
        host_link = pathlib.Path("/tmp") / load_dir.name
        host_link.symlink_to(load_dir)
        try:
            ours = subprocess.run([sys.executable, "-m", "binlogkit", "print",
                                   f"--local-load={host_link}", *map(str, files)],
                                  capture_output=True)
            assert ours.returncode == 0, ours.stderr
            results = {name: _replay(text) for name, text in
                       (("mysqlbinlog", real.stdout), ("binlogkit", ours.stdout))}
        finally:
            host_link.unlink()
            shutil.rmtree(load_dir, ignore_errors=True)
    assert ("ev`il\ndb", "t'1\nDROP DATABASE d1; --x") in tables and ("d1", "parent") in tables
    _, theirs = results["mysqlbinlog"]
    ours_error, ours_sums = results["binlogkit"]
    assert ours_error is None, ours_error
    # every table of the source, with the source's rows
    assert ours_sums == want
    # so every table mysqlbinlog's replay restored right is restored right; where its replay
    # went wrong (a name's line feed ends the '#' comment of its Table_map line, and the rest
    # of the name runs as SQL), binlogkit's escaped names kept the comment a comment
    assert {t for t, c in theirs.items() if want.get(t) == c} <= set(ours_sums)
