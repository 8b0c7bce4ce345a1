"""Stall lab scenarios that look like life, on a real MariaDB or MySQL 9.7 server.

    python -m binlogkit.lab.life_lab --server mariadb --out /tmp/life-mariadb
    python -m binlogkit.lab.life_lab --server mysql --out /tmp/life-mysql

One session commits small autocommit INSERTs about 45 times a second (a busy
OLTP writer) while a script of episodes runs beside it; the binlog's syncs at
rotation are slowed by the LD_PRELOAD shim of :mod:`binlogkit.lab.stall_lab`
(``slowsync.c``, built with the host's gcc; for MySQL it is loaded inside the
Debian unstable root, whose newer glibc runs it).  ``truth.json`` lists every
episode with the instants it covered and what a report should say of it:

=================  ============================================================
kind               cause a report must give (``none``: no stall may be reported)
=================  ============================================================
rotation           ``binlog_rotation`` (every delayed sync, from the shim's log)
idle_after_flush   none: the writer pauses, then ``FLUSH BINARY LOGS``; idle
idle_after_rotate  none: the writer pauses right after a size rotation's stall
idle               none: the writer pauses, no rotation near
low_traffic        none: the writer commits about 1.5 times a second
ftwrl              ``lock``: FLUSH TABLES WITH READ LOCK held under the writer
lock_tables        ``lock``: LOCK TABLES t WRITE held under the writer, taken the
                   moment a rotation stall ends (adjacent to it)
restart            ``restart``: a clean shutdown and start, the writer retrying
crash              ``restart``: SIGKILL and start, the writer retrying
=================  ============================================================

The writer keeps trying through locks and restarts (reconnecting), as an
application does; it is paused only in the idle episodes.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from binlogkit.lab.stall_lab import (
    LabError, build_shim, lab_available, read_shim_log, truth_delays,
)

__all__ = ["Scenario", "SCRIPT", "SHORT_SCRIPT", "run_life", "life_available"]

TABLE_SQL = ("CREATE TABLE lab.t (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, "
             "pad VARCHAR(200) NOT NULL) ENGINE=InnoDB")
BUSY_RATE = 45.0            # commits per second of the busy writer
LOW_RATE = 1.5
PAD = 10

# (kind, seconds after the previous episode ended, how long it holds)
SCRIPT = (
    ("idle_after_flush", 5.0, 4.0),
    ("ftwrl", 5.0, 4.0),
    ("lock_tables", 3.0, 4.0),      # starts at the next rotation stall's end
    ("idle_after_rotate", 3.0, 5.0),
    ("idle", 5.0, 6.0),
    ("low_traffic", 4.0, 8.0),
    ("restart", 4.0, 0.0),
    ("crash", 6.0, 0.0),
    ("ftwrl", 5.0, 5.0),
    ("end", 5.0, 0.0),
)
# a short run for tests on a live server (about 25 s of workload)
SHORT_SCRIPT = (
    ("ftwrl", 4.0, 3.5),
    ("idle", 3.0, 4.0),
    ("end", 4.0, 0.0),
)
CAUSE = {"idle_after_flush": "none", "idle_after_rotate": "none", "idle": "none",
         "low_traffic": "none", "ftwrl": "lock", "lock_tables": "lock", "restart": "restart",
         "crash": "restart"}


def _now_us() -> int:
    return time.time_ns() // 1000


def _iso(us: int) -> str:
    return datetime.datetime.fromtimestamp(us / 1e6, tz=datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%S.%fZ")


class Scenario:
    """Server options of one lab kind."""

    def __init__(self, kind: str, max_binlog_size=32 << 10, seconds_per_mb=48.0,
                 long_query_time=0.0, time_zone="UTC", script=SCRIPT, binlog_format="ROW"):
        self.kind, self.max_binlog_size = kind, max_binlog_size
        self.binlog_format = binlog_format
        self.seconds_per_mb, self.long_query_time = seconds_per_mb, long_query_time
        self.time_zone, self.script = time_zone, script

    @property
    def basename(self) -> str:
        return "mariadb-bin" if self.kind == "mariadb" else "binlog"

    def options(self, slowlog: str) -> dict:
        opts = {"log_bin": self.basename, "server_id": 1, "binlog_format": self.binlog_format,
                "max_binlog_size": self.max_binlog_size, "sync_binlog": 0,
                "slow_query_log": 1, "slow_query_log_file": slowlog,
                "long_query_time": self.long_query_time,
                "innodb_flush_log_at_trx_commit": 2, "max_connections": 50}
        if self.kind == "mysql":
            opts.update(gtid_mode="ON", enforce_gtid_consistency="ON", log_output="FILE")
        return opts


def life_available(kind: str) -> bool:
    if not lab_available():
        return False
    if kind == "mysql":
        from binlogkit.lab.mysql_root import root_available
        return root_available()
    return True


class _Writer(threading.Thread):
    """The application: paced autocommit INSERTs, reconnecting through restarts."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.rate = BUSY_RATE
        self.paused = threading.Event()
        self.stop = threading.Event()
        self.commits = 0
        self.failures = 0
        self.errors = []

    def run(self):
        conn, nxt, k = None, time.monotonic(), 0
        while not self.stop.is_set():
            if self.paused.is_set():
                self.stop.wait(0.02)
                nxt = time.monotonic()
                continue
            try:
                if conn is None:
                    conn = self.server.connect(autocommit=True, database="lab",
                                               connect_timeout=2)
                k += 1
                conn.cursor().execute("INSERT INTO t (k, pad) VALUES (%s, %s)",
                                      (k % 1000, "x" * PAD))
                self.commits += 1
            except Exception:  # noqa: BLE001  (a restart: reconnect, as applications do)
                self.failures += 1
                conn = _close(conn)
                self.stop.wait(0.05)
                continue
            nxt = max(nxt + 1.0 / self.rate, time.monotonic() - 0.5)
            self.stop.wait(max(0.0, nxt - time.monotonic()))
        _close(conn)


def _close(conn):
    if conn is not None:
        try:
            conn.close()
        except Exception:  # noqa: BLE001
            pass
    return None


class _Run:
    """One scenario on one server: runs the script, records the truth."""

    def __init__(self, server, scenario, shim_log: Path, armed: Path):
        self.server, self.sc = server, scenario
        self.shim_log, self.armed = shim_log, armed
        self.writer = _Writer(server)
        self.episodes = []

    def _sql(self, conn, *statements):
        cur = conn.cursor()
        for s in statements:
            cur.execute(s)

    def _delayed_syncs(self) -> int:
        return sum(1 for s in read_shim_log(self.shim_log) if s["delay_us"] > 0)

    def _after_next_rotation_stall(self, timeout=30.0):
        n = self._delayed_syncs()
        deadline = time.monotonic() + timeout
        while self._delayed_syncs() == n:
            if time.monotonic() > deadline:
                raise LabError("no rotation stall came (is the writer running?)")
            time.sleep(0.005)

    def _not_near_rotation(self, full=0.6):
        """Wait out the next rotation stall when the binlog is close to full: a
        rotation's sync cut short by the shutdown leaves no trace a report could see."""
        files = self.server.binlog_files()
        if files and files[-1].stat().st_size > full * self.sc.max_binlog_size:
            self._after_next_rotation_stall()
            time.sleep(0.3)

    def episode(self, kind, hold):
        w = self.writer
        rec = {"kind": kind, "cause": CAUSE.get(kind)}
        if kind in ("idle_after_flush", "idle", "idle_after_rotate"):
            if kind == "idle_after_rotate":
                self._after_next_rotation_stall()
            w.paused.set()
            rec["start"] = _now_us()
            if kind == "idle_after_flush":
                time.sleep(0.2)
                conn = self.server.connect(autocommit=True)
                self.armed.unlink(missing_ok=True)     # a nightly job's FLUSH: a fast sync
                self._sql(conn, "FLUSH BINARY LOGS")
                self.armed.touch()
                conn.close()
                time.sleep(max(0.0, hold - 0.2))
            else:
                time.sleep(hold)
            rec["end"] = _now_us()
            w.paused.clear()
        elif kind == "low_traffic":
            w.rate = LOW_RATE
            rec["start"] = _now_us()
            time.sleep(hold)
            rec["end"] = _now_us()
            w.rate = BUSY_RATE
        elif kind in ("ftwrl", "lock_tables"):
            conn = self.server.connect(autocommit=True, database="lab")
            take = ("FLUSH TABLES WITH READ LOCK" if kind == "ftwrl" else "LOCK TABLES t WRITE")
            if kind == "lock_tables":
                self._after_next_rotation_stall()
            self._sql(conn, take)
            rec["start"] = _now_us()
            time.sleep(hold)
            rec["end"] = _now_us()
            self._sql(conn, "UNLOCK TABLES")
            conn.close()
        elif kind in ("restart", "crash"):
            self._not_near_rotation()
            self.armed.unlink(missing_ok=True)      # the shutdown's sync is not a rotation
            rec["start"] = _now_us()
            if kind == "restart":
                self.server.stop()
            else:
                self.server.kill()
            self.server.start()
            rec["end"] = _now_us()
            self.armed.touch()
        self.episodes.append({**rec, "start": _iso(rec["start"]), "end": _iso(rec["end"]),
                              "duration_s": round((rec["end"] - rec["start"]) / 1e6, 6)})

    def _settle(self, after_s=3.0):
        """Go on until the last rotation stall ended ``after_s`` ago: one in the
        workload's last second would leave no commit after it to show it."""
        while True:
            ends = [s["end_us"] for s in read_shim_log(self.shim_log) if s["delay_us"] > 0]
            left = (max(ends) / 1e6 + after_s - time.time()) if ends else 0.0
            if left <= 0:
                return
            time.sleep(left)

    def run(self):
        self.writer.start()
        try:
            for kind, gap, hold in self.sc.script:
                time.sleep(gap)
                if kind != "end":
                    self.episode(kind, hold)
            self._not_near_rotation()
            self._settle()
        finally:
            self.writer.stop.set()
            self.writer.join(30)


def _scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="binlogkit-life-", dir="/dev/shm"
                                 if os.access("/dev/shm", os.W_OK) else None))


def _make_server(sc: Scenario, scratch: Path):
    """(server, shim host path, shim log host path, armed host path)."""
    if sc.kind == "mysql":
        from binlogkit.lab.mysql_root import MySQLServer, in_root, root_dir
        base = Path(tempfile.mkdtemp(prefix="binlogkit-life-", dir=root_dir() / "tmp"))
        shim = build_shim(base)
        shim_log, armed = base / "shim.log", base / "armed"
        inside = in_root                                       # host path -> the root's view
        env = {"LD_PRELOAD": inside(shim), "BINLOGKIT_SLOWSYNC_LOG": inside(shim_log),
               "BINLOGKIT_SLOWSYNC_ARMED": inside(armed)}
        slowlog = base / "server" / "slow.log"
        server = MySQLServer(options=sc.options(inside(slowlog)), basedir=base / "server",
                             env={"TZ": sc.time_zone}, server_env=_shim_env(sc, env))
        server._own_base = True
        server._life_dir = base
        return server, shim, shim_log, armed, slowlog
    from binlogkit.lab.server import MariaDBServer
    shim = build_shim(scratch)
    shim_log, armed = scratch / "shim.log", scratch / "armed"
    slowlog = scratch / "slow.log"
    env = {"LD_PRELOAD": str(shim), "BINLOGKIT_SLOWSYNC_LOG": str(shim_log),
           "BINLOGKIT_SLOWSYNC_ARMED": str(armed)}
    server = MariaDBServer(options=sc.options(str(slowlog)), env={"TZ": sc.time_zone},
                           basedir=scratch / "server", server_env=_shim_env(sc, env))
    return server, shim, shim_log, armed, slowlog


def _shim_env(sc, env):
    return {**env, "BINLOGKIT_SLOWSYNC_PATTERN": f"{sc.basename}.[0-9]*",
            "BINLOGKIT_SLOWSYNC_SEC_PER_MB": repr(float(sc.seconds_per_mb)),
            "BINLOGKIT_SLOWSYNC_MIN_BYTES": str(sc.max_binlog_size // 2)}


def _check_loaded(server, shim):
    maps = Path(f"/proc/{server.proc.pid}/maps").read_text()
    if str(shim) not in maps and shim.name not in maps:
        raise LabError(f"LD_PRELOAD did not reach the server ({shim} not in its maps)")


def run_life(sc: Scenario, out_dir, during=None) -> dict:
    """Run the scenario; leave binlogs, slow.log, shim.log and truth.json in ``out_dir``.
    ``during(server, slowlog)``: a context manager the scenario runs inside (a
    ``binlogkit watch`` following the server, tests/test_watch_live.py)."""
    if not life_available(sc.kind):
        raise LabError(f"the {sc.kind} life lab needs its server and gcc")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    scratch = _scratch()
    server, shim, shim_log, armed, slowlog = _make_server(sc, scratch)
    try:
        with server:
            _check_loaded(server, shim)
            version = server.sql("SELECT VERSION()").strip()
            server.sql("CREATE DATABASE lab;\n" + TABLE_SQL + ";\n")
            armed.touch()
            run = _Run(server, sc, shim_log, armed)
            if during is None:
                run.run()
            else:
                with during(server, slowlog):
                    run.run()
            armed.unlink(missing_ok=True)
            counts = {"commits": run.writer.commits, "failures": run.writer.failures}
            server.stop()
            binlogs = [Path(shutil.copyfile(p, out / p.name)) for p in server.binlog_files()]
            shutil.copyfile(slowlog, out / "slow.log")
            if shim_log.exists():
                shutil.copyfile(shim_log, out / "shim.log")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        life = getattr(server, "_life_dir", None)
        if life:
            shutil.rmtree(life, ignore_errors=True)
    delays = truth_delays(read_shim_log(out / "shim.log"))
    truth = {"what": "ground truth of a binlogkit life-lab run (binlogkit/lab/life_lab.py)",
             "server": sc.kind, "server_version": version, "time_zone": sc.time_zone,
             "config": {"max_binlog_size": sc.max_binlog_size,
                        "seconds_per_mb": sc.seconds_per_mb,
                        "long_query_time": sc.long_query_time, "busy_rate": BUSY_RATE,
                        "low_rate": LOW_RATE, "script": [list(s) for s in sc.script]},
             "statements": counts, "binlogs": [p.name for p in binlogs], "slowlog": "slow.log",
             "delays": delays, "episodes": run.episodes}
    (out / "truth.json").write_text(json.dumps(truth, indent=2) + "\n")
    return truth


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m binlogkit.lab.life_lab", description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", choices=["mariadb", "mysql"], default="mariadb")
    ap.add_argument("--out", required=True)
    ap.add_argument("--long-query-time", type=float, default=0.0)
    ap.add_argument("--time-zone", default="UTC", help="the server's TZ")
    ap.add_argument("--binlog-format", default="ROW", choices=["ROW", "MIXED", "STATEMENT"])
    a = ap.parse_args(argv)
    try:
        truth = run_life(Scenario(a.server, long_query_time=a.long_query_time,
                                  time_zone=a.time_zone, binlog_format=a.binlog_format), a.out)
    except (LabError, RuntimeError) as exc:
        print(f"life lab: {exc}", file=sys.stderr)
        return 1
    print(f"{len(truth['binlogs'])} binlogs, {len(truth['delays'])} rotation stalls, "
          f"{len(truth['episodes'])} episodes, {truth['statements']} -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
