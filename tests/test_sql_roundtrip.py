"""`binlogkit sql` round trips on real servers (issue 29 item 7): the forward SQL applied
to the snapshot gives the end state's CHECKSUM TABLE, the --flashback SQL applied to
the end state gives the snapshot's; every column type, hostile names, each row image
and each way of knowing the columns (FULL metadata, --schema, a live server)."""
import re

import pytest

import sqlroundtrip as rt
from binlogkit.lab.server import MariaDBServer, server_available
from mysql_server import MySQLServer, needs_mysql

needs_mariadb = pytest.mark.skipif(not server_available(), reason="no MariaDB server installed")


@pytest.fixture(scope="module")
def mariadb():
    with MariaDBServer(options={"log_bin": "mariadb-bin", "binlog_format": "ROW",
                                "server_id": 1}, env={"TZ": "UTC"}) as srv:
        yield srv, "mariadb"


@pytest.fixture(scope="module")
def mysql():
    with MySQLServer(options={"gtid_mode": "ON", "enforce_gtid_consistency": "ON"},
                     env={"TZ": "UTC"}) as srv:
        yield srv, "mysql"


def _server(request, flavor):
    return request.getfixturevalue(flavor)


FLAVORS = [pytest.param("mariadb", marks=needs_mariadb), pytest.param("mysql", marks=needs_mysql)]
NO_NAMES = {"mariadb": "NO_LOG", "mysql": "MINIMAL"}


def _both_ways(srv, files, snap, end, extra=()):
    back = rt.binlogkit_sql(["--flashback", *extra, *files]).stdout
    rt.apply(srv, back)
    assert rt.checksums(srv) == snap, "--flashback did not give the snapshot back"
    rt.restore_snapshot(srv)
    assert rt.checksums(srv) == snap
    fwd = rt.binlogkit_sql([*extra, *files]).stdout
    rt.apply(srv, fwd)
    assert rt.checksums(srv) == end, "the forward SQL did not give the end state"
    return fwd, back


@pytest.mark.parametrize("flavor", FLAVORS)
def test_full_image_full_metadata(request, flavor):
    srv, flavor = _server(request, flavor)
    files, snap, end = rt.run_workload(srv, flavor, "FULL", "FULL")
    assert snap != end
    fwd, back = _both_ways(srv, files, snap, end)
    assert b"BEGIN;\n" in fwd and b"# at " in fwd
    assert re.search(rb"^# at \S+ GTID (0-1-\d+|[0-9a-f-]{36}:\d+), end ", fwd, re.M)
    assert fwd.count(b"BEGIN;") == back.count(b"BEGIN;")


@pytest.mark.parametrize("flavor", FLAVORS)
def test_full_image_names_from_schema_file(request, flavor, tmp_path):
    srv, flavor = _server(request, flavor)
    files, snap, end = rt.run_workload(srv, flavor, "FULL", NO_NAMES[flavor])
    r = rt.binlogkit_sql(files, check=False)
    assert r.returncode == 1 and b"--schema" in r.stderr and b"Traceback" not in r.stderr
    schema = tmp_path / "schema.sql"
    schema.write_text(rt.show_create(srv))
    _both_ways(srv, files, snap, end, ["--schema", schema])


@pytest.mark.parametrize("flavor", FLAVORS)
def test_names_from_the_live_server(request, flavor):
    srv, flavor = _server(request, flavor)
    files, snap, end = rt.run_workload(srv, flavor, "FULL", NO_NAMES[flavor])
    r = rt.binlogkit_sql(["--socket", srv.socket, "-u", "root", *files])
    assert b"information_schema" in r.stderr
    rt.restore_snapshot(srv)
    rt.apply(srv, r.stdout)
    assert rt.checksums(srv) == end


@pytest.mark.parametrize("image", ["MINIMAL", "NOBLOB"])
@pytest.mark.parametrize("flavor", FLAVORS)
def test_minimal_and_noblob_images(request, flavor, image):
    """Forward is exact; the undo needs old values these images leave out, so
    --flashback refuses with one line (and writes no statement) instead of guessing."""
    srv, flavor = _server(request, flavor)
    files, snap, end = rt.run_workload(srv, flavor, image, "FULL")
    r = rt.binlogkit_sql(["--flashback", *files], check=False)
    assert r.returncode == 1
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and "cannot undo" in lines[0] and "MINIMAL or NOBLOB" in lines[0], lines
    assert b"INSERT" not in r.stdout and b"DELETE" not in r.stdout
    rt.restore_snapshot(srv)
    rt.apply(srv, rt.binlogkit_sql(files).stdout)
    assert rt.checksums(srv) == end
    import json
    events = [json.loads(line) for line in
              rt.binlogkit_sql(["--format", "jsonl", *files]).stdout.splitlines()]
    updates = [e for e in events if e["op"] == "u" and e["source"]["table"] == rt.T_ALL]
    # columns a MINIMAL / NOBLOB image leaves out are left out of the objects
    assert updates
    if image == "MINIMAL":
        assert all(set(e["before"]) == {"id"} for e in updates)
    else:
        assert all("bl" not in e["before"] and "ti" in e["before"] for e in updates)


@needs_mysql
def test_mysql_partial_json_and_compressed_transactions(mysql):
    srv, flavor = mysql
    srv.sql("SET GLOBAL binlog_row_value_options='PARTIAL_JSON'; "
            "SET GLOBAL binlog_transaction_compression=ON;")
    try:
        files, snap, end = rt.run_workload(srv, flavor, "FULL", "FULL")
    finally:
        srv.sql("SET GLOBAL binlog_row_value_options=''; "
                "SET GLOBAL binlog_transaction_compression=OFF;")
    fwd, _ = _both_ways(srv, files, snap, end)
    assert b"JSON_" in fwd      # the partial update written as JSON functions


@pytest.mark.parametrize("flavor", FLAVORS)
def test_generated_columns_with_a_schema(request, flavor, tmp_path):
    """The log does not mark generated columns (both servers log their values); with
    --schema or a server they are left to the server, both ways."""
    srv, flavor = _server(request, flavor)
    srv.sql("SET GLOBAL binlog_row_metadata='FULL'; DROP DATABASE IF EXISTS g; CREATE DATABASE g;"
            "CREATE TABLE g.t (id INT PRIMARY KEY, a INT, v INT AS (a * 2) VIRTUAL, "
            "s INT AS (a + 1) STORED, n INT);"
            "INSERT INTO g.t (id, a, n) VALUES (1, 10, 1), (2, 20, 2); FLUSH BINARY LOGS;")
    first = len(srv.binlog_files())
    snap = srv.sql("CHECKSUM TABLE g.t")
    srv.sql("UPDATE g.t SET a = 11 WHERE id = 1; DELETE FROM g.t WHERE id = 2;"
            "INSERT INTO g.t (id, a) VALUES (3, 30); FLUSH BINARY LOGS;")
    end = srv.sql("CHECKSUM TABLE g.t")
    files = srv.binlog_files()[first - 1:-1]
    schema = tmp_path / "g.sql"
    with srv.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW CREATE TABLE g.t")
        schema.write_text("USE g;\n" + cur.fetchone()[1] + ";\n")
    for source in (["--schema", schema], ["--socket", srv.socket, "-u", "root"]):
        rt.apply(srv, rt.binlogkit_sql(["--flashback", *source, *files]).stdout)
        assert srv.sql("CHECKSUM TABLE g.t") == snap
        rt.apply(srv, rt.binlogkit_sql([*source, *files]).stdout)
        assert srv.sql("CHECKSUM TABLE g.t") == end


@pytest.mark.parametrize("flavor", FLAVORS)
def test_readme_undo_of_a_bad_delete(request, flavor):
    """README's steps: find the bad DELETE's transaction, write its undo alone, apply it;
    the deleted rows come back and the changes made since stay."""
    srv, flavor = _server(request, flavor)
    srv.sql("SET GLOBAL binlog_row_metadata='FULL'; DROP DATABASE IF EXISTS shop;"
            "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, "
            "created DATE, total DECIMAL(10,2), note VARCHAR(20));"
            "INSERT INTO shop.orders VALUES (1, '2025-06-01', 10.50, 'a'), "
            "(2, '2025-12-31', 20.00, NULL), (3, '2026-03-01', 5.25, 'c'), "
            "(4, '2026-05-05', 1.00, 'd'); FLUSH BINARY LOGS;")
    first = len(srv.binlog_files())
    srv.sql("DELETE FROM shop.orders WHERE created < '2026-01-01';"
            "UPDATE shop.orders SET total = 6.00 WHERE id = 3;"
            "INSERT INTO shop.orders VALUES (5, '2026-11-27', 9.99, 'new');")
    files = srv.binlog_files()[first - 1:]
    listing = rt.binlogkit_sql(["--table", "shop.orders", "--type", "delete", *files])
    gtids = re.findall(r"^# at \S+ GTID (\S+),", listing.stdout.decode(), re.M)
    assert len(gtids) == 1
    undo = rt.binlogkit_sql(["--flashback", "--include-gtids", gtids[0], "--table",
                             "shop.orders", *files]).stdout
    assert undo.count(b"INSERT INTO `shop`.`orders`") == 2 and b"UPDATE" not in undo
    rt.apply(srv, undo)
    assert srv.sql("SELECT id, created, total, IFNULL(note, '-') FROM shop.orders "
                   "ORDER BY id").split("\n")[:5] == [
        "1\t2025-06-01\t10.50\ta", "2\t2025-12-31\t20.00\t-", "3\t2026-03-01\t6.00\tc",
        "4\t2026-05-05\t1.00\td", "5\t2026-11-27\t9.99\tnew"]


@needs_mariadb
def test_names_from_the_logs_own_create_table(mariadb):
    """binlog_row_metadata=NO_LOG, but the log holds the CREATE TABLE: no --schema needed
    until an ALTER TABLE changes the columns, which is then one clear error."""
    srv, _ = mariadb
    srv.sql("SET GLOBAL binlog_row_metadata='NO_LOG'; FLUSH BINARY LOGS;")
    first = len(srv.binlog_files())
    srv.sql("DROP DATABASE IF EXISTS ddl; CREATE DATABASE ddl; "
            "CREATE TABLE ddl.t (id INT UNSIGNED PRIMARY KEY, v VARCHAR(10));"
            "INSERT INTO ddl.t VALUES (4294967295, 'a'), (2, 'b'); DELETE FROM ddl.t WHERE id = 2;")
    files = srv.binlog_files()[first - 1:]
    r = rt.binlogkit_sql(files)
    assert b"VALUES (4294967295, 'a');" in r.stdout          # UNSIGNED from the CREATE TABLE
    assert b"DELETE FROM `ddl`.`t` WHERE `id` = 2 LIMIT 1;" in r.stdout
    srv.sql("ALTER TABLE ddl.t ADD COLUMN w INT; INSERT INTO ddl.t VALUES (3, 'c', 3);")
    r = rt.binlogkit_sql(srv.binlog_files()[first - 1:], check=False)
    assert r.returncode == 1 and b"ALTER TABLE" in r.stderr
    assert r.stderr.decode().splitlines()[-1].count("4 columns") == 0
    assert "columns in the" in r.stderr.decode().splitlines()[-1]
    srv.sql("SET GLOBAL binlog_row_metadata='FULL';")


@needs_mariadb
def test_mariadb_compressed_events(mariadb):
    """log_bin_compress: compressed rows and query events, both ways."""
    srv, flavor = mariadb
    srv.sql("SET GLOBAL log_bin_compress=ON; SET GLOBAL log_bin_compress_min_len=10;")
    try:
        files, snap, end = rt.run_workload(srv, flavor, "FULL", "FULL")
    finally:
        srv.sql("SET GLOBAL log_bin_compress=OFF;")
    from binlogkit.binlog import layout as L
    from binlogkit.binlog.reader import BinlogReader
    with BinlogReader(str(files[0])) as reader:
        reader.read_magic()
        assert any(raw.type_code in L.COMPRESSED_ROWS_EVENT_TYPES for raw in reader.events())
    _both_ways(srv, files, snap, end)
