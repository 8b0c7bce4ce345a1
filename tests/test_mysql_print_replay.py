"""binlog_old_versions, replayed: binlogkit's mysqlbinlog text restores the tables MySQL expects.

MySQL's binlog_old_versions.test pipes `mysqlbinlog --local-load` of two
5.1/5.6-era binlogs (statements, v1/v2 row events in BINLOG statements,
User_var, Intvar, Rand, LOAD DATA in Begin_load_query/Append_block/
Execute_load_query) into a server and checks three SELECTs.  Here the text
goes into a throw-away MariaDB server (binlogkit/lab/server.py) and the
SELECT results must equal the .result's (fixtures/mysql_golden, cases.json
"replays").  MariaDB has no GTID_NEXT, so the output is made with
--skip-gtids and the one GTID_NEXT line that leaves (the format description
event's, for MySQL servers) is dropped.  Skips without mariadbd or ../shared.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from binlogkit.lab.server import MariaDBServer, server_available

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "fixtures" / "mysql_golden"
PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs"
REPLAYS = json.loads((GOLDEN / "cases.json").read_text())["replays"]
GTID_NEXT_LINE = b"/*!50616 SET @@SESSION.GTID_NEXT='AUTOMATIC'*//*!*/;\n"

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not server_available(), reason="mariadbd is not installed")]


@pytest.fixture(scope="module")
def server():
    with MariaDBServer(env={"TZ": "UTC"}) as srv:
        yield srv


@pytest.mark.parametrize("case", REPLAYS, ids=[c["name"] for c in REPLAYS])
def test_replayed_binlog_gives_the_expected_tables(case, server, tmp_path):
    path = PEER / case["input"]
    if not path.exists():
        pytest.skip(f"peer binlog {case['input']} not available (../shared is absent)")
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", f"--local-load={tmp_path}",
                           *case["args"], str(path)], capture_output=True,
                          env=dict(os.environ, TZ="UTC", LC_ALL="C"))
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout
    assert text.count(b"GTID_NEXT") == 1 and GTID_NEXT_LINE in text
    server.sql("DROP DATABASE IF EXISTS test; CREATE DATABASE test;")
    server.sql(text.replace(GTID_NEXT_LINE, b""), extra_args=["--local-infile=1"])
    got = "".join(server.sql(q + ";", database="test") for q in case["queries"])
    assert got.encode() == (GOLDEN / case["expected"]).read_bytes()
