"""`binlogkit report` against a live server: the binlogs over the replication
protocol, the slow log from mysql.slow_log; the same verdict and stalls as the
report over the server's own files.

The server logs slow statements to both (log_output=FILE,TABLE); writers commit
and the binlog rotates while five updates wait 1.5 s for a row lock (a pile-up).
"""
import json
import subprocess
import sys
import threading
import time

import pytest

from binlogkit.lab.server import server_available
from remote_server import socket_args, start_server, stop_server, tcp_args

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not server_available(), reason="mariadbd is not installed")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    slow = tmp_path_factory.mktemp("slow") / "slow.log"
    opts = {"log_bin": "mariadb-bin", "server_id": 1, "binlog_format": "ROW",
            "max_binlog_size": 65536, "slow_query_log": 1, "slow_query_log_file": str(slow),
            "log_output": "FILE,TABLE", "long_query_time": 0.2,
            "log_slow_filter": ""}     # every slow statement, not only full scans and the like
    srv, _ = start_server(opts, tls=False)
    srv.slow_log = slow
    try:
        _workload(srv)
        yield srv
    finally:
        stop_server(srv)


def _workload(srv):
    srv.sql("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY AUTO_INCREMENT, v TEXT);")
    stop = threading.Event()

    def writer():
        conn = srv.connect(autocommit=True)
        with conn.cursor() as cur:
            while not stop.is_set():
                cur.execute("INSERT INTO w.t (v) VALUES (REPEAT('x', 500))")
                time.sleep(0.01)
        conn.close()

    threads = [threading.Thread(target=writer, daemon=True) for _ in range(3)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    holder = srv.connect(autocommit=False)
    with holder.cursor() as cur:        # a row lock held 1.5 s: five updates pile up
        cur.execute("UPDATE w.t SET v = 'held' WHERE id = 1")
        waiters = [threading.Thread(target=srv.sql, args=(
            "UPDATE w.t SET v = 'waited' WHERE id = 1;",)) for _ in range(5)]
        for t in waiters:
            t.start()
        time.sleep(1.5)
    holder.commit()
    holder.close()
    for t in waiters:
        t.join(30)
    time.sleep(1.0)
    stop.set()
    for t in threads:
        t.join(10)
    srv.sql("FLUSH BINARY LOGS; FLUSH SLOW LOGS;")


def run_report(args):
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "report", "--format", "json",
                           "--threshold", "0.5", *args], capture_output=True, timeout=300)
    assert proc.returncode in (0, 3), proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def _comparable(doc):
    """The report without the names of its input files (copies vs the server's), and
    without what only a live connection knows (sync_binlog: the unsynced bytes)."""
    doc = json.loads(json.dumps(doc))
    doc.pop("inputs", None)
    for s in doc["stalls"]:
        load = (s.get("rotation") or {}).get("load")
        if load:
            load.pop("sync_binlog")
            load.pop("unsynced_bytes")
    for key in list(doc):
        if key.endswith("files"):
            doc.pop(key)
    return json.loads(json.dumps(doc).replace("slow_log.log", "slow.log"))


def _strip_paths(value, names):
    text = json.dumps(value)
    for name in names:
        text = text.replace(name, "X")
    return json.loads(text)


def test_live_report_equals_file_report(server):
    files = [str(p) for p in server.binlog_files()]
    code_files, by_files = run_report(["--binlog", *files, "--slowlog", str(server.slow_log)])
    code_live, live = run_report(socket_args(server))
    assert code_live == code_files
    dirs = [str(server.datadir), str(server.slow_log.parent)]
    a = _strip_paths(_comparable(by_files), dirs)
    b = _strip_paths(_comparable(live), dirs + ["/tmp/binlogkit-report-"])
    assert a["stalls"], "the workload should give the report a stall"
    assert a["stalls"] == b["stalls"]
    assert live["inputs"]["sync_binlog"] is not None and by_files["inputs"]["sync_binlog"] is None
    loads = [s["rotation"]["load"] for s in live["stalls"] if (s["rotation"] or {}).get("load")]
    assert all(ld["unsynced_bytes"] is not None for ld in loads)
    assert a.get("verdict") == b.get("verdict")


def test_live_report_over_tcp_with_file_slow_log(server):
    code, doc = run_report(tcp_args(server) + ["--slowlog", str(server.slow_log)])
    assert code in (0, 3)
    assert "stalls" in doc


def test_live_report_without_table_log(server):
    server.sql("SET GLOBAL log_output='FILE';")
    try:
        proc = subprocess.run([sys.executable, "-m", "binlogkit", "report", *socket_args(server)],
                              capture_output=True, timeout=120)
    finally:
        server.sql("SET GLOBAL log_output='FILE,TABLE';")
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "--slowlog" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
