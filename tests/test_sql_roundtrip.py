"""`binlogkit sql` round trips on real servers (issue 29 item 7): the forward SQL applied
to the snapshot gives the end state's CHECKSUM TABLE, the --flashback SQL applied to
the end state gives the snapshot's; every column type, hostile names, each row image
and each way of knowing the columns (FULL metadata, --schema, a live server)."""
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
    with MySQLServer(env={"TZ": "UTC"}) as srv:
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
    assert b"BEGIN;\n" in fwd and b"# at " in fwd and b"GTID" in fwd or flavor == "mysql"
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
    files, snap, end = rt.binlogkit_sql and rt.run_workload(srv, flavor, "FULL", NO_NAMES[flavor])
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
    assert len(lines) == 1 and "cannot undo" in lines[0] and f"{image}" in lines[0] \
        or "MINIMAL or NOBLOB" in lines[0], lines
    assert b"INSERT" not in r.stdout and b"DELETE" not in r.stdout
    rt.restore_snapshot(srv)
    rt.apply(srv, rt.binlogkit_sql(files).stdout)
    assert rt.checksums(srv) == end


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
