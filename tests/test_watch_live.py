"""binlogkit watch on real servers while the stall lab injects stalls (MariaDB, MySQL 9.7).

The lab's LD_PRELOAD shim makes the sync of a finished binlog slow at rotation
(ground truth: each delayed sync with its file); FLUSH TABLES WITH READ LOCK is held
3 s under load; then idle time, a FLUSH BINARY LOGS on the idle server, a clean
restart and a SIGKILL restart, each with work after it.  Every injected stall must
come out as one JSON line with the right cause (and file) within 2 s of its end,
and nothing else as a stall.  On MariaDB a real Prometheus (Debian's package,
throw-away on 127.0.0.1) scrapes the metrics and its query API returns the stall
counter.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import pytest

from binlogkit.lab.stall_lab import LabConfig, lab_available
from binlogkit.lab.watch_lab import LiveLab

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not lab_available(), reason="needs mariadbd and gcc")]

ALERT_WITHIN_S = 2.0
# the watcher decides a stall LOOKAHEAD_S (1 s) after its end, at most CHAIN_HOLD_S (1.5 s)
# when the commits stopped again right after it, + one 0.2 s tick; the lab, the watcher and
# this reader are processes on a shared 2-core machine (CI runs the whole suite beside these
# servers), where a line may be read a few tenths late: that is the machine, not the watcher
SCHEDULING_SLACK_S = 0.3


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WatchProcess:
    """`binlogkit watch` as a user runs it; each stdout line kept with when it came."""

    def __init__(self, args):
        self.proc = subprocess.Popen([sys.executable, "-m", "binlogkit", "watch", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.append((time.time(), json.loads(raw)))

    def wait_for(self, kind, timeout=30.0):
        end = time.time() + timeout
        while time.time() < end:
            if any(doc["event"] == kind for _, doc in self.lines):
                return
            time.sleep(0.05)
        raise AssertionError(f"no {kind} line in {timeout} s: {self.stderr()}")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(30)
        self.reader.join(10)
        return code

    def stderr(self):
        return self.proc.stderr.read().decode(errors="replace") if self.proc.poll() is not None \
            else "(running)"

    def events(self, kind):
        return [(at, doc) for at, doc in self.lines if doc["event"] == kind]


def _iso_epoch(text):
    import datetime
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def run_scenario(lab, watch):
    watch.wait_for("watching")
    time.sleep(1.0)
    lab.workload(16)                  # rotations every ~6 s, each sync ~2 s
    lab.idle(4)
    lab.episode("ftwrl", 3.0)         # a lock stall under load
    lab.idle(5)
    before = time.time()
    lab.flush_logs()                  # a slow rotation on an idle server: nobody waits
    quiet = (before, time.time())
    lab.idle(4)
    lab.restart()
    lab.workload(4)
    lab.restart(kill=True)
    lab.workload(4)
    time.sleep(2.5)
    return quiet


def overlap(stall, start, end):
    return min(end, _iso_epoch(stall["end"])) - max(start, _iso_epoch(stall["start"]))


def check(watch, truth, quiet, restarts=2, unfinished=()):
    """``unfinished``: files whose rotation was still under way when the run stopped."""
    last = {}                   # a stall said again with its id (a chain that grew) is an update
    for at, s in watch.events("stall"):
        if s["state"] == "ended":
            last[s["id"]] = (at, s)
    stalls = sorted(last.values(), key=lambda x: x[0])
    ongoing = [s for _, s in watch.events("stall") if s["state"] != "ended"
               and (s.get("rotation") or {}).get("from_file") not in unfinished]
    assert {s["id"] for s in ongoing} <= {s["id"] for _, s in stalls}, ongoing
    syncing = [(e["start"], e["end"]) for e in truth["episodes"] if e["kind"] == "commit_sync"]
    expected = [("binlog_rotation", d["start"], d["end"], d["file"]) for d in truth["delays"]
                if d["duration_s"] >= 1.0 and not quiet[0] <= d["start"] <= quiet[1]
                and not any(a <= d["start"] <= b for a, b in syncing)]
    expected += [(e["cause"], e["start"], e["end"], None) for e in truth["episodes"]]
    assert len(expected) >= 2, truth
    unmatched = list(stalls)
    problems = []
    for cause, start, end, file in expected:
        # the stall line covering most of the injected stall (a lock may start as a
        # rotation stall ends: FLUSH TABLES WITH READ LOCK waits for the rotation)
        hits = sorted(((overlap(s, start, end), at, s) for at, s in unmatched), key=lambda h: h[0])
        if not hits or hits[-1][0] < 0.5 * (end - start):
            problems.append(f"{cause} {start:.2f}..{end:.2f} {file}: no stall line covers it")
            continue
        _, at, s = hits[-1]
        unmatched.remove((at, s))
        if s["cause"] != cause:
            problems.append(f"{cause} at {start:.2f} reported as {s['cause']}")
        if file is not None and (s["rotation"] or {}).get("from_file") != file:
            problems.append(f"{file}: reported rotation {s['rotation']}")
        if at > end + ALERT_WITHIN_S + SCHEDULING_SLACK_S:
            problems.append(f"{cause} ending {end:.2f} alerted {at - end:.2f} s after its end")
    problems += [f"stall reported with nothing injected: {s}" for _, s in unmatched]
    assert problems == [], "\n".join(problems)
    assert len(watch.events("restart")) == restarts
    assert len(watch.events("reconnect")) >= restarts
    rotations = [doc for _, doc in watch.events("rotation")]
    assert {d["file"] for d in truth["delays"]} <= {r["from_file"] for r in rotations} | {
        d["file"] for d in truth["delays"] if any(a <= d["start"] <= b for a, b in syncing)}
    return len(stalls)


PROM_CONFIG = """global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: binlogkit
    static_configs:
      - targets: ['127.0.0.1:{port}']
"""


class Prometheus:
    def __init__(self, target_port):
        self.dir = tempfile.mkdtemp(prefix="binlogkit-prom-")
        cfg = os.path.join(self.dir, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write(PROM_CONFIG.format(port=target_port))
        self.port = free_port()
        self.proc = subprocess.Popen(
            [shutil.which("prometheus"), f"--config.file={cfg}",
             f"--storage.tsdb.path={self.dir}/data", f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def query(self, expr):
        url = (f"http://127.0.0.1:{self.port}/api/v1/query?"
               + urllib.parse.urlencode({"query": expr}))
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def test_mariadb_stalls_alerted_live_and_scraped_by_prometheus():
    if shutil.which("prometheus") is None:
        pytest.skip("Debian's prometheus package is not installed (.ci/run installs it)")
    metrics_port = free_port()
    cfg = LabConfig(seconds_per_mb=2.0, fill_s=6.0, noise_every_s=0)
    with LiveLab(cfg) as lab:
        prom = Prometheus(metrics_port)
        try:
            watch = WatchProcess(["-S", lab.socket, "-u", "root", "--slowlog", str(lab.slowlog),
                                  "--metrics", f"127.0.0.1:{metrics_port}"])
            try:
                quiet = run_scenario(lab, watch)
                value = None
                for _ in range(120):         # scraped every second (a loaded machine: slower)
                    doc = prom.query('sum(binlogkit_stalls_total)')
                    result = doc["data"]["result"]
                    ended = {s["id"] for _, s in watch.events("stall") if s["state"] == "ended"}
                    if result and float(result[0]["value"][1]) == len(ended):
                        value = float(result[0]["value"][1])
                        break
                    time.sleep(0.5)
                by_cause = prom.query('binlogkit_stalls_total{cause="lock"}')["data"]["result"]
                sync = prom.query("binlogkit_rotation_sync_seconds_count")["data"]["result"]
            finally:
                code = watch.stop()
        finally:
            prom.close()
        truth = lab.truth()
    assert code == 0
    assert watch.lines[-1][1]["event"] == "stopped"
    count = check(watch, truth, quiet)
    assert value == count, f"Prometheus saw {value}, watch wrote {count} stalls"
    # MariaDB sends the Rotate as the sync begins: a rotation stall is said while it goes on
    said = {s["id"]: at for at, s in watch.events("stall") if s["state"] == "ongoing"}
    for at, s in watch.events("stall"):
        if s["state"] == "ended" and s["cause"] == "binlog_rotation" and s["duration_s"] >= 1.5:
            assert s["id"] in said and said[s["id"]] < _iso_epoch(s["end"]), s
    assert float(by_cause[0]["value"][1]) == 1.0
    assert float(sync[0]["value"][1]) >= len(truth["delays"])


def test_mysql_stalls_alerted_live():
    from mysql_server import root_available
    if not root_available():
        pytest.skip("no MySQL 9.7 root (python3 -m binlogkit.lab.mysql_root build, as root)")
    cfg = LabConfig(seconds_per_mb=2.0, fill_s=6.0, noise_every_s=0)
    with LiveLab(cfg, flavor="mysql") as lab:
        watch = WatchProcess(["-S", lab.socket, "-u", "root", "--slowlog", str(lab.slowlog)])
        try:
            quiet = run_scenario(lab, watch)
        finally:
            code = watch.stop()
        truth = lab.truth()
    assert code == 0
    check(watch, truth, quiet)
    # MySQL sends the Rotate once the next file is open, but SHOW BINARY LOGS blocks while
    # the binlog lock is held: a rotation stall is said while it goes on here too
    said = {s["id"]: at for at, s in watch.events("stall") if s["state"] == "ongoing"}
    long_ones = [s for _, s in watch.events("stall") if s["state"] == "ended"
                 and s["cause"] == "binlog_rotation" and s["duration_s"] >= 1.5]
    assert long_ones
    for s in long_ones:
        assert s["id"] in said and said[s["id"]] < _iso_epoch(s["end"]), s


def test_slow_log_table_followed():
    """log_output=TABLE: the rows of mysql.slow_log added since the last poll, once each."""
    import pymysql
    from binlogkit.lab.server import MariaDBServer
    from binlogkit.watch.slowtail import SlowTableFollower
    opts = {"log_bin": "mariadb-bin", "server_id": 1, "slow_query_log": 1, "log_output": "TABLE",
            "long_query_time": 0}
    with MariaDBServer(options=opts, env={"TZ": "UTC"}) as srv:
        conn = srv.connect(autocommit=True)

        def query(sql, args=None):
            with conn.cursor() as cur:
                cur.execute(sql, args)
                return cur.fetchall()

        srv.sql("CREATE DATABASE d; CREATE TABLE d.t (a INT)")
        follower = SlowTableFollower(query)
        assert [e.query for e in follower.poll() if e.query.startswith(b"CREATE")] == []
        srv.sql("INSERT INTO d.t VALUES (1); SELECT SLEEP(1.2); COMMIT;")
        got = follower.poll()
        texts = [e.query for e in got]
        assert b"INSERT INTO d.t VALUES (1)" in texts and b"SELECT SLEEP(1.2)" in texts
        sleep = got[texts.index(b"SELECT SLEEP(1.2)")]
        assert sleep.kind == "read" and 1.1 < sleep.query_time < 3
        assert abs(sleep.end - sleep.start - sleep.query_time) < 1e-6
        assert abs(sleep.end - time.time()) < 10
        assert [e for e in follower.poll() if e.query in texts] == []      # once each
        conn.close()


def test_binlog_dir_with_output_file_and_sighup(tmp_path):
    """--binlog-dir on a live server's datadir, -o FILE reopened on SIGHUP (logrotate)."""
    from binlogkit.lab.server import MariaDBServer
    out = tmp_path / "watch.jsonl"
    opts = {"log_bin": "mariadb-bin", "server_id": 1, "binlog_format": "ROW"}
    with MariaDBServer(options=opts, env={"TZ": "UTC"}) as srv:
        srv.sql("CREATE DATABASE d; CREATE TABLE d.t (a INT)")
        proc = subprocess.Popen([sys.executable, "-m", "binlogkit", "watch", "--binlog-dir",
                                 str(srv.datadir), "--no-slowlog", "-o", str(out)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.time() + 30
            while not (out.exists() and out.read_text()):
                assert time.time() < deadline and proc.poll() is None, proc.stderr.read()
                time.sleep(0.1)
            srv.sql("INSERT INTO d.t VALUES (1); FLUSH BINARY LOGS; INSERT INTO d.t VALUES (2);")
            time.sleep(1.0)
            os.rename(out, tmp_path / "watch.jsonl.1")
            proc.send_signal(signal.SIGHUP)
            time.sleep(0.5)
            srv.sql("FLUSH BINARY LOGS; INSERT INTO d.t VALUES (3);")
            time.sleep(1.0)
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(30)
    first = [json.loads(line) for line in (tmp_path / "watch.jsonl.1").read_text().splitlines()]
    second = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and proc.stdout.read() == b""
    assert [d["from_file"] for d in first if d["event"] == "rotation"] == ["mariadb-bin.000001"]
    assert [d["from_file"] for d in second if d["event"] == "rotation"] == ["mariadb-bin.000002"]
    assert second[-1]["event"] == "stopped"
    assert not [d for d in first + second if d["event"] == "stall"], first + second


def test_commit_sync_and_lock_tables_live():
    """sync_binlog=1 with slow syncs for 5 s (commits slowed, not stopped), then LOCK TABLES
    held 2.5 s, under load: commit_sync and lock, each within 2 s of its end (a stopped
    commit followed by another stop is said 1.5 s after its end, and again with its id
    as the chain grows)."""
    cfg = LabConfig(seconds_per_mb=2.0, fill_s=6.0, noise_every_s=0)
    with LiveLab(cfg) as lab:
        watch = WatchProcess(["-S", lab.socket, "-u", "root", "--slowlog", str(lab.slowlog)])
        try:
            watch.wait_for("watching")
            time.sleep(1.0)
            lab.workload(14, [("commit_sync", 3.0, 5.0), ("lock_tables", 10.0, 2.5)])
            time.sleep(3.0)
        finally:
            code = watch.stop()
        truth = lab.truth()
    assert code == 0
    check(watch, truth, (0, 0), restarts=0)


@pytest.mark.parametrize("server", ["mariadb", "mysql"])
def test_watch_follows_a_life_lab_run(server, tmp_path):
    """The life lab (binlogkit/lab/life_lab.py: a writer committing ~45 times a second,
    every size rotation's sync slowed ~1.5 s, FLUSH TABLES WITH READ LOCK taken as a
    rotation stall ends, then idle time), `watch` following it live: every injected stall
    said once ended with its cause and file within 2 s of its end (+ the slack), also the
    last rotation, after which the workload stopped, nothing in the idle time; a rotation
    said ongoing gets its end."""
    import contextlib
    from binlogkit.lab.life_lab import SHORT_SCRIPT, Scenario, life_available, run_life
    if not life_available(server):
        pytest.skip(f"no {server} server or gcc here")
    box = {}

    @contextlib.contextmanager
    def during(srv, slowlog):
        watch = WatchProcess(["-S", str(srv.socket), "-u", "root", "--slowlog", str(slowlog)])
        box["watch"] = watch
        try:
            watch.wait_for("watching")
            yield
            time.sleep(2.5)
        finally:
            box["stopped"] = time.time()
            box["code"] = watch.stop()

    truth = run_life(Scenario(server, script=SHORT_SCRIPT), tmp_path, during=during)
    watch = box["watch"]
    assert box["code"] == 0

    epoch = _iso_epoch
    delays = [{"start": epoch(d["start"]), "end": epoch(d["end"]), "file": d["file"],
               "duration_s": d["duration_s"]} for d in truth["delays"]]
    # a rotation that ended less than the look-ahead + a tick before the watcher stopped
    unfinished = {d["file"] for d in delays if d["end"] >= box["stopped"] - 1.5}
    delays = [d for d in delays if d["file"] not in unfinished]
    episodes = [{"kind": e["kind"], "cause": e["cause"], "start": epoch(e["start"]),
                 "end": epoch(e["end"])} for e in truth["episodes"]]
    lab_truth = {"delays": delays,
                 "episodes": [e for e in episodes if e["cause"] not in ("none", "restart")]}
    idle = [(e["start"], e["end"]) for e in episodes if e["cause"] == "none"]
    assert len(delays) >= 2 and lab_truth["episodes"]
    check(watch, lab_truth, (0, 0), restarts=0, unfinished=unfinished)
    injected = {d["file"] for d in truth["delays"]}
    for _, s in watch.events("stall"):          # a rotation stall may run into idle time
        if (s.get("rotation") or {}).get("from_file") in injected:
            continue
        for a, b in idle:
            assert overlap(s, a + 0.5, b) <= 0, (s, a, b)
