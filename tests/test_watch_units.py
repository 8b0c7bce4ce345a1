"""binlogkit watch without a server: the online rules on made-up arrivals (each rule can
fail: idle, restart, catch-up, rotation, lock, a lock after a rotation), the slow-log
follower across rotation and truncation, the local binlog follower on the recorded lab
binlogs, alert lines, --exec, SIGHUP reopening and the metric names."""
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from binlogkit.binlog import layout as L
from binlogkit.remote.follow import Arrival, FollowStopped
from binlogkit.watch.alerts import AlertWriter, human_line
from binlogkit.watch.diagnosis import OnlineDiagnosis
from binlogkit.watch.localdir import LocalBinlogFollower, binlog_names
from binlogkit.watch.metrics import WatchMetrics, parse_address
from binlogkit.watch.slowtail import SlowFileFollower

ROOT = Path(__file__).resolve().parent.parent
T0 = 1_800_000_000.0


class Feed:
    """Made-up arrivals: a writer committing `rate` times a second; the watcher ticks
    every TICK_S between them, as `Watcher.run` does."""

    def __init__(self):
        self.out = []
        self.diag = OnlineDiagnosis(threshold=1.0, emit=lambda kind, p: self.out.append((kind, p)))
        self.pos = 4
        self.file = "bin.000001"
        self.ticked = None

    def tick_until(self, at):
        from binlogkit.watch.run import TICK_S
        t = self.ticked
        while t is not None and t + TICK_S < at:
            t += TICK_S
            self.diag.tick(t)
        self.ticked = at

    def commit(self, at, started=None, catchup=False):
        self.tick_until(at)
        when = int(at if started is None else started)
        a = Arrival(at, "event", L.XID_EVENT, when, self.file, self.pos, 31, catchup)
        a.is_commit = True
        self.pos += 31
        self.diag.feed(a)

    def steady(self, t0, t1, rate=20.0):
        t = t0
        while t < t1:
            self.commit(t)
            t += 1.0 / rate

    def rotate(self, at, done_at, when=None):
        self.tick_until(at)
        when = int(at if when is None else when)
        a = Arrival(at, "rotate", L.ROTATE_EVENT, when, self.file, self.pos, 44, False)
        a.next_file = "bin.%06d" % (int(self.file.rpartition(".")[2]) + 1)
        self.pos += 44
        self.diag.feed(a)
        self.file, self.pos = a.next_file, 4
        self.tick_until(done_at)
        fde = Arrival(done_at, "fde", L.FORMAT_DESCRIPTION_EVENT, when, self.file, 4, 256, False)
        self.diag.feed(fde)

    def stalls(self, until, state="ended"):
        """The stall lines of `state`, the last of each id (a chain said again with
        its id is an update of the stall)."""
        self.tick_until(until)
        self.diag.tick(until)
        last = {}
        for kind, p in self.out:
            if kind == "stall" and p["state"] == state:
                last[p["id"]] = p
        return list(last.values())


def test_idle_is_no_stall():
    f = Feed()
    f.steady(T0, T0 + 5)
    f.steady(T0 + 12, T0 + 15)          # work resumed: statements start when they arrive
    assert f.stalls(T0 + 20) == []


def test_rotation_stall_with_its_file_and_sync_time():
    f = Feed()
    f.steady(T0, T0 + 5.3)
    f.rotate(T0 + 5.35, T0 + 7.85)
    for i in range(4):                   # the commits that waited since before the rotation
        f.commit(T0 + 7.86 + i * 0.001, started=T0 + 5.3)
    f.steady(T0 + 7.9, T0 + 10)
    stalls = f.stalls(T0 + 11)
    assert len(stalls) == 1
    s = stalls[0]
    assert s["cause"] == "binlog_rotation"
    assert s["rotation"]["from_file"] == "bin.000001" and s["rotation"]["sync_s"] == 2.5
    assert 2.4 <= s["duration_s"] <= 2.6
    json.dumps(s, allow_nan=False)


def test_rotation_said_while_it_stalls_then_when_it_ends():
    f = Feed()
    f.steady(T0, T0 + 5.3)
    a = Arrival(T0 + 5.35, "rotate", L.ROTATE_EVENT, int(T0 + 5), f.file, f.pos, 44, False)
    a.next_file = "bin.000002"
    f.diag.feed(a)
    assert f.stalls(T0 + 6.2, "ongoing") == []
    ongoing = f.stalls(T0 + 6.4, "ongoing")
    assert len(ongoing) == 1 and ongoing[0]["cause"] == "binlog_rotation"
    assert ongoing[0]["rotation"]["from_file"] == "bin.000001"
    f.diag.tick(T0 + 7)
    assert len(f.stalls(T0 + 7, "ongoing")) == 1          # said once
    f.file, f.pos = "bin.000002", 4
    f.diag.feed(Arrival(T0 + 7.85, "fde", L.FORMAT_DESCRIPTION_EVENT, int(T0 + 5), f.file, 4,
                        256, False))
    f.commit(T0 + 7.86, started=T0 + 5.3)
    f.steady(T0 + 7.9, T0 + 9)
    ended = f.stalls(T0 + 10)
    assert len(ended) == 1 and ended[0]["id"] == ongoing[0]["id"]
    assert ended[0]["rotation"]["sync_s"] == 2.5


def test_slow_rotation_on_an_idle_server_is_no_stall():
    f = Feed()
    f.steady(T0, T0 + 2)
    f.rotate(T0 + 4.0, T0 + 7.0)        # FLUSH BINARY LOGS of a big file, nobody waiting
    f.steady(T0 + 12, T0 + 14)
    assert f.stalls(T0 + 15) == []
    rotations = [p for kind, p in f.out if kind == "rotation"]
    assert rotations[0]["sync_s"] == 3.0


def test_lock_stall_and_a_lock_right_after_a_rotation():
    f = Feed()
    f.steady(T0, T0 + 5.3)
    for i in range(3):                  # FTWRL held 3 s: commits resume with old start times
        f.commit(T0 + 8.3 + i * 0.001, started=T0 + 5.25)
    f.steady(T0 + 8.4, T0 + 12.3)
    f.rotate(T0 + 12.35, T0 + 13.85)    # a rotation stall of 1.5 s, then a lock until +16.9
    f.commit(T0 + 16.9, started=T0 + 12.3)
    f.commit(T0 + 16.901, started=T0 + 12.3)
    f.steady(T0 + 17, T0 + 19)
    stalls = f.stalls(T0 + 20)
    assert [s["cause"] for s in stalls] == ["lock", "binlog_rotation", "lock"]
    assert 2.9 <= stalls[0]["duration_s"] <= 3.1
    assert 1.4 <= stalls[1]["duration_s"] <= 1.6
    assert 2.9 <= stalls[2]["duration_s"] <= 3.1


def test_lost_connection_and_catch_up_make_no_stall():
    f = Feed()
    f.steady(T0, T0 + 5)
    f.diag.lost(T0 + 5.5, "server gone")
    # after the reconnection: what the server wrote meanwhile (old, late), then live
    for i in range(20):
        f.commit(T0 + 9 + i * 0.001, started=T0 + 6, catchup=True)
    f.steady(T0 + 9.1, T0 + 12)
    assert f.stalls(T0 + 13) == []
    f.diag.flush()
    assert [p for kind, p in f.out if kind == "stall"] == []


def test_restart_markers_are_events_not_stalls():
    f = Feed()
    f.steady(T0, T0 + 3)
    f.diag.feed(Arrival(T0 + 3.5, "stop", L.STOP_EVENT, int(T0 + 3), f.file, f.pos, 23, False))
    fde = Arrival(T0 + 6, "fde", L.FORMAT_DESCRIPTION_EVENT, int(T0 + 6), "bin.000002", 4, 256,
                  False)
    fde.created = int(T0 + 6)
    f.diag.feed(fde)
    f.commit(T0 + 6.5, started=T0 + 3.2)      # a client that retried across the restart
    f.steady(T0 + 6.6, T0 + 9)
    kinds = [kind for kind, _ in f.out]
    assert "shutdown" in kinds and "restart" in kinds and "stall" not in kinds
    f.diag.tick(T0 + 10)
    assert "stall" not in [kind for kind, _ in f.out]


def test_a_rotation_stall_soon_after_a_restart():
    """Right after the server started the commit rate counts from the start, not over
    the seconds it was down: a single writer's rotation stall 1.5 s after a restart is
    a stall (the rate over the 5 s before it, downtime included, said 'no traffic')."""
    f = Feed()
    f.steady(T0, T0 + 3, rate=4.0)
    f.diag.feed(Arrival(T0 + 3.5, "stop", L.STOP_EVENT, int(T0 + 3), f.file, f.pos, 23, False))
    f.file, f.pos = "bin.000002", 4
    fde = Arrival(T0 + 20, "fde", L.FORMAT_DESCRIPTION_EVENT, int(T0 + 20), f.file, 4, 256, False)
    fde.created = int(T0 + 20)
    f.diag.feed(fde)
    f.steady(T0 + 20.2, T0 + 21.5, rate=3.0)
    f.rotate(T0 + 21.5, T0 + 24.0)           # the last commit filled the file: it waited 2.5 s
    f.steady(T0 + 24.05, T0 + 27, rate=4.0)
    stalls = f.stalls(T0 + 28)
    assert [s["cause"] for s in stalls] == ["binlog_rotation"], stalls
    assert [kind for kind, _ in f.out].count("restart") == 1


def test_stall_is_decided_after_the_look_ahead():
    """The shared rules read at most LOOKAHEAD_S past a candidate's end: online the
    stall is said once that much has arrived, not before."""
    from binlogkit.diagnosis.timeline import LOOKAHEAD_S
    f = Feed()
    f.steady(T0, T0 + 5)
    f.commit(T0 + 8, started=T0 + 4.9)
    f.steady(T0 + 8.05, T0 + 8 + LOOKAHEAD_S - 0.1)       # the commits flow on
    assert f.stalls(T0 + 8 + LOOKAHEAD_S - 0.1) == []
    f.steady(T0 + 8 + LOOKAHEAD_S, T0 + 8 + LOOKAHEAD_S + 0.1)
    assert len(f.stalls(T0 + 8 + LOOKAHEAD_S + 0.1)) == 1


def test_lock_then_nothing_is_said_at_most_chain_hold_later():
    """Commits stopped again right after a lock stall (it may be the first of a
    commit_sync stretch): said CHAIN_HOLD_S after its end, within the 2 s."""
    from binlogkit.watch.shaping import CHAIN_HOLD_S
    assert CHAIN_HOLD_S <= 2.0 - 0.2            # + one tick of the watcher
    f = Feed()
    f.steady(T0, T0 + 5)
    f.commit(T0 + 8, started=T0 + 4.9)  # released, then the workload stopped
    assert f.stalls(T0 + 8 + CHAIN_HOLD_S - 0.1) == []
    assert [s["cause"] for s in f.stalls(T0 + 8 + CHAIN_HOLD_S + 0.1)] == ["lock"]


def test_commits_stopping_again_and_again_are_commit_sync():
    f = Feed()
    f.steady(T0, T0 + 5)
    t = T0 + 5
    for _ in range(4):                   # each commit group waits ~1.5 s for a slow sync
        t += 1.5
        f.commit(t, started=t - 1.5)
        f.commit(t + 0.01, started=t - 1.5)
        t += 0.01
    f.steady(t + 0.05, t + 3)
    stalls = f.stalls(t + 4)
    assert [s["cause"] for s in stalls] == ["commit_sync"]
    assert 5.9 <= stalls[0]["duration_s"] <= 6.1


# -- the slow-log follower ------------------------------------------------------------

HEADER = ("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian). started with:\n"
          "Tcp port: 0  Unix socket: /tmp/x.sock\nTime                 Id Command    Argument\n")


def entry(second, query, qt=0.5):
    return ("# User@Host: root[root] @ localhost []\n# Thread_id: 5  Schema: lab  QC_hit: No\n"
            f"# Query_time: {qt:.6f}  Lock_time: 0.000100  Rows_sent: 0  Rows_examined: 1\n"
            f"SET timestamp={second};\n{query};\n")


def test_slow_log_followed_across_rotation_and_truncation(tmp_path):
    path = tmp_path / "slow.log"
    path.write_text(HEADER + entry(1_800_000_000, "SELECT 1"))
    follower = SlowFileFollower(str(path), zone="UTC", quiet_s=0.0)
    assert follower.poll() == []                 # what was there before is history
    with open(path, "a") as f:
        f.write(entry(1_800_000_001, "INSERT INTO t VALUES (1)"))
    got = follower.poll()
    assert [e.kind for e in got] == ["write"] and got[0].start == 1_800_000_001.0
    with open(path, "a") as f:
        f.write(entry(1_800_000_002, "UPDATE t SET a = 2"))
    os.rename(path, tmp_path / "slow.log.1")     # logrotate, then the server reopens
    path.write_text(HEADER + entry(1_800_000_003, "COMMIT"))
    got = follower.poll()
    assert [e.kind for e in got] == ["write", "commit"]
    assert follower.rotations == 1
    path.write_text("")                          # copytruncate
    follower.poll()
    with open(path, "a") as f:
        f.write(entry(1_800_000_004, "DELETE FROM t", qt=2.0))
    got = follower.poll()
    assert follower.truncations == 1
    assert [(e.kind, e.query_time) for e in got] == [("write", 2.0)]
    follower.close()


# -- local binlog files -----------------------------------------------------------------

def test_local_follower_reads_through_rotations(tmp_path):
    src = sorted((ROOT / "fixtures/lab").glob("mariadb-bin.0*"))[:3]
    for p in src:
        shutil.copyfile(p, tmp_path / p.name)
    (tmp_path / "mariadb-bin.index").write_text("".join(f"./{p.name}\n" for p in src))
    assert binlog_names(tmp_path) == [p.name for p in src]
    seen = []
    follower = LocalBinlogFollower(str(tmp_path), start=(src[0].name, 4), poll_s=0.01)

    def sink(a):
        seen.append(a)
        if a.kind == "heartbeat":
            follower.stop()

    with pytest.raises(FollowStopped):
        follower.run(sink)
    rotations = [a for a in seen if a.kind == "rotate"]
    assert [r.next_file for r in rotations] == [p.name for p in src[1:]] + ["mariadb-bin.000004"]
    assert [r.end for r in rotations] == [os.path.getsize(p) for p in src]
    events = [a for a in seen if a.kind != "heartbeat"]
    assert sum(a.size for a in events) == sum(os.path.getsize(p) - 4 for p in src)
    assert any(a.is_commit for a in events)
    assert all(a.catchup for a in events)        # written before the watch began: history


# -- alerts and metrics -------------------------------------------------------------------

STALL = {"id": 1, "start": "2026-11-27T10:32:07.120Z", "end": "2026-11-27T10:32:10.520Z",
         "duration_s": 3.4, "cause": "binlog_rotation", "waiting_commits": 4, "hint": None,
         "rotation": {"from_file": "db1-bin.000123", "to_file": "db1-bin.000124",
                      "at": "2026-11-27T10:32:07.120Z", "size_bytes": 1 << 30, "sync_s": 3.38}}


def test_human_line_says_what_rotated():
    line = human_line("stall", STALL)
    assert line == ("10:32:07.12Z STALL 3.40 s binlog_rotation: commits stalled while "
                    "db1-bin.000123 (1.0 GiB) rotated, sync 3.38 s")


def test_exec_gets_the_json_and_sighup_reopens(tmp_path):
    hooked = tmp_path / "hook.json"
    out = tmp_path / "events.jsonl"
    alerts = AlertWriter(str(out), None, f"cat > {hooked}")
    assert alerts.fmt == "json"
    alerts.write("stall", STALL)
    os.rename(out, tmp_path / "events.jsonl.1")
    alerts.reopen()
    alerts.write("rotation", {"from_file": "a", "to_file": "b", "at": None, "size_bytes": 1,
                              "sync_s": 0.1})
    alerts.close()
    assert json.loads(hooked.read_text()) == {"event": "stall", **STALL}
    assert json.loads((tmp_path / "events.jsonl.1").read_text())["event"] == "stall"
    assert json.loads(out.read_text())["event"] == "rotation"


def test_metric_names_follow_prometheus_conventions():
    from prometheus_client import generate_latest
    m = WatchMetrics()
    m.stall("binlog_rotation", 3.4)
    m.rotation_sync.observe(3.38)
    m.commit(T0, 2.0)
    text = generate_latest(m.registry).decode()
    for name in ("binlogkit_binlog_rotations_total", "binlogkit_rotation_sync_seconds_bucket",
                 "binlogkit_commit_gap_seconds_count", 'binlogkit_stalls_total{cause="binlog_rotation"} 1.0',
                 "binlogkit_binlog_bytes_total", "binlogkit_binlog_events_total",
                 "binlogkit_slow_statements_total", "binlogkit_reconnects_total",
                 "binlogkit_seconds_behind", "binlogkit_stall_seconds_total"):
        assert name in text, name
    assert parse_address("9105") == ("127.0.0.1", 9105)
    assert parse_address("[::1]:9105") == ("::1", 9105)
    with pytest.raises(ValueError):
        parse_address("127.0.0.1:x")


def test_usage_errors_are_one_line():
    r = subprocess.run([sys.executable, "-m", "binlogkit", "watch"], capture_output=True,
                       text=True)
    assert r.returncode == 2 and "give a server" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "binlogkit", "watch", "-S", "/nonexistent/sock",
                        "-u", "root", "--no-slowlog"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("binlogkit watch: ") and len(r.stderr.splitlines()) == 1
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "binlogkit", "watch", "-S", "/nonexistent/sock",
                            "--metrics", f"127.0.0.1:{port}"], capture_output=True, text=True,
                           timeout=60)
    assert r.returncode == 1 and r.stderr.startswith(f"binlogkit watch: --metrics 127.0.0.1:{port}: ")


def test_watch_and_the_shared_diagnosis_import_no_pandas():
    """The online path (watch + binlogkit.diagnosis, the rules report runs too) stays
    free of pandas: a watcher runs for weeks in little memory."""
    code = ("import sys\n"
            "import binlogkit.watch.run, binlogkit.watch.diagnosis, binlogkit.diagnosis\n"
            "import binlogkit.diagnosis.verdict, binlogkit.diagnosis.causes\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numpy'))\n"
            "print(bad)\n")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True)
    assert got.stdout.strip() == "[]", got.stdout


def test_mysql_rotation_said_ongoing_from_a_blocked_show_binary_logs():
    """MySQL sends the Rotate only once the next file is open; SHOW BINARY LOGS, sent
    when the commits stop, blocks while the binlog lock is held: blocked past the
    threshold, the rotation of the file being written is said ongoing, and the Rotate
    that comes later ends it with the same id.  A probe that returns at once says
    nothing; one blocked by what turns out no rotation is cancelled."""
    from binlogkit.watch.diagnosis import PROBE_AFTER_S
    f = Feed()
    f.steady(T0, T0 + 5.3)
    last = f.diag.last_live
    assert not f.diag.wants_probe(last + PROBE_AFTER_S - 0.05)
    assert f.diag.wants_probe(last + PROBE_AFTER_S + 0.01) and not f.diag.wants_probe(last + 0.5)
    f.diag.probed(last + PROBE_AFTER_S)
    assert f.stalls(last + 0.9, "ongoing") == []
    ongoing = f.stalls(last + 1.25, "ongoing")
    assert len(ongoing) == 1 and ongoing[0]["rotation"]["from_file"] == "bin.000001"
    f.diag.probed(last + PROBE_AFTER_S, last + 2.3)
    f.rotate(T0 + 7.6, T0 + 7.61, when=T0 + 5.3)    # MySQL: sent once the next file is open
    for i in range(4):
        f.commit(T0 + 7.62 + i * 0.001, started=T0 + 5.3)
    f.steady(T0 + 7.7, T0 + 10)
    ended = f.stalls(T0 + 11)
    assert [s["cause"] for s in ended] == ["binlog_rotation"]
    assert ended[0]["id"] == ongoing[0]["id"]
    assert ended[0]["rotation"]["from_file"] == "bin.000001"

    g = Feed()                              # the probe came back at once: nothing said
    g.steady(T0, T0 + 5.3)
    last = g.diag.last_live
    assert g.diag.wants_probe(last + 0.4)
    g.diag.probed(last + 0.4, last + 0.41)
    for i in range(3):
        g.commit(T0 + 8.3 + i * 0.001, started=T0 + 5.25)
    g.steady(T0 + 8.4, T0 + 10)
    assert g.stalls(T0 + 11, "ongoing") == [] and [s["cause"] for s in g.stalls(T0 + 11)] == ["lock"]

    h = Feed()                              # blocked, but no Rotate came: cancelled
    h.steady(T0, T0 + 5.3)
    last = h.diag.last_live
    assert h.diag.wants_probe(last + 0.4)
    h.diag.probed(last + 0.4)
    assert len(h.stalls(last + 1.5, "ongoing")) == 1
    h.steady(T0 + 9, T0 + 11)
    assert len(h.stalls(T0 + 12, "cancelled")) == 1 and h.stalls(T0 + 12) == []
