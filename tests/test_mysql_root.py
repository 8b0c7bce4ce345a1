"""The MySQL 9.7 harness itself: start, SQL, binlogs, mysqlbinlog, restart and kill."""
from mysql_server import MySQLServer, in_root, mysqlbinlog, needs_mysql

pytestmark = needs_mysql


def test_server_writes_binlogs_the_real_mysqlbinlog_reads():
    with MySQLServer(options={"gtid_mode": "ON", "enforce_gtid_consistency": "ON"}, port=0) as srv:
        assert srv.sql("SELECT VERSION()").startswith("9.")
        srv.sql("CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY); "
                "INSERT INTO d.t VALUES (1); FLUSH BINARY LOGS; INSERT INTO d.t VALUES (2);")
        files = srv.binlog_files()
        assert [f.name for f in files] == ["binlog.000001", "binlog.000002"]
        r = mysqlbinlog([in_root(f) for f in files], "-v", text=True)
        assert r.returncode == 0, r.stderr
        assert "### INSERT INTO `d`.`t`" in r.stdout and "@1=2" in r.stdout
        with srv.connect(host="127.0.0.1", port=srv.port, unix_socket=None) as conn:
            with conn.cursor() as cur:
                cur.execute("SELECT COUNT(*) FROM d.t")
                assert cur.fetchone() == (2,)
        srv.restart()          # a clean shutdown closes binlog.000002 with a Stop event
        srv.kill()             # SIGKILL leaves binlog.000003 in use
        srv.start()
        names = [f.name for f in srv.binlog_files()]
        assert names == [f"binlog.00000{i}" for i in range(1, 5)]
        assert srv.sql("SELECT COUNT(*) FROM d.t").strip() == "2"


def test_mysqlbinlog_leaves_no_load_data_files_in_the_root():
    """mysqlbinlog writes each LOAD DATA file (SQL_LOAD_MB-*) to TMPDIR and never removes
    it; the harness gives each run a TMPDIR of its own, so the root's /tmp stays clean
    (it held 471 such files after a day of test runs: issue 27 item 12)."""
    import pathlib

    from mysql_server import copy_into_root, root_dir
    log = pathlib.Path(__file__).resolve().parents[1] / "fixtures/mysql97/gtid_full/binlog.000001"
    root_tmp = pathlib.Path(root_dir()) / "tmp"
    before = set(root_tmp.rglob("SQL_LOAD_MB-*"))
    inside = copy_into_root([log])
    try:
        r = mysqlbinlog(["--no-defaults", *inside])
    finally:
        import shutil
        shutil.rmtree(root_tmp / pathlib.Path(inside[0]).parent.name, ignore_errors=True)
    assert r.returncode == 0, r.stderr
    assert b"LOAD DATA LOCAL INFILE '" in r.stdout and b"SQL_LOAD_MB-" in r.stdout  # it wrote one
    assert set(root_tmp.rglob("SQL_LOAD_MB-*")) - before == set()
