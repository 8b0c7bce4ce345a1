"""The rotation-stall lab: a throw-away MariaDB whose binlog syncs are slow.

    python -m binlogkit.lab.stall_lab --out /tmp/lab1 --max-binlog-size 1M --sec-per-mb 3

starts ``mariadbd`` (Debian's package) with the binlog on, a small
``max_binlog_size``, ``sync_binlog=0`` and the slow log on, drives concurrent
clients for a while (paced small write transactions, point reads, and
unrelated ``SELECT SLEEP(n)`` noise) and leaves in ``--out``: the binlogs,
``slow.log``, ``truth.json`` (every injected delay: instant, file, duration)
and ``shim.log`` (every sync of a binlog file the shim saw).

How the delay is injected, and why this way
-------------------------------------------
What happened in the motivating incident: with ``sync_binlog=0`` nothing
flushes the binlog while it grows; at rotation the server syncs the finished
file while it holds the binlog lock (``LOCK_log``), and ext4's delayed
allocation made that sync take time in proportion to the unwritten data.

MariaDB 10.11 does the same sync with ``sync_binlog=0``: ``strace -f -y -e
fdatasync`` on a rotating server shows, in the committing thread,
``fdatasync(mariadb-bin.000001)`` (the finished file, closed by
``MYSQL_BIN_LOG::close`` under ``LOCK_log``), then the index, the new file's
header and the index again; no binlog sync happens between rotations.  So no
special rotation hook is needed: ``slowsync.c`` (compiled here with gcc into a
temp dir) is an ``LD_PRELOAD`` shim that wraps ``fsync``/``fdatasync``,
resolves the descriptor through ``/proc/self/fd``, and for binlog files
(name pattern in ``BINLOGKIT_SLOWSYNC_PATTERN``) sleeps ``size_MiB *
BINLOGKIT_SLOWSYNC_SEC_PER_MB`` seconds before the real sync, then appends
the measured start, end, delay, size and path to the ground-truth log.  Files
under ``BINLOGKIT_SLOWSYNC_MIN_BYTES`` (the new file's header sync) are not
delayed, and delays are armed only while the workload runs (the final sync
at shutdown is not a rotation).

Why not strace fault injection (``strace -e inject=fdatasync:delay_enter=``):
its delay is a fixed number per call, not one that depends on the file's
size; it cannot tell the rotation sync from the header sync of the new file
except by call count; ptrace slows every system call of the server (and
every thread) while attached; and it records no instant per delayed file
unless its output is parsed.  The shim costs one ``readlink`` per sync, is
exact about which file was slow, and writes ground truth from inside the
process at the moment the delay happens.  ``mariadbd`` is exec'd directly by
:class:`~binlogkit.lab.server.MariaDBServer`, so ``LD_PRELOAD`` reaches it;
``run_lab`` checks ``/proc/<pid>/maps`` and fails if the shim is not loaded.

The datadir lives on ``/dev/shm`` when it has room: real syncs there are
no-ops, so the injected delay is the only slow sync and the control run
(no delay) has no disk noise from other work on the machine.  Elsewhere
(a container's small /dev/shm) real syncs of a few MB add some noise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from binlogkit.lab.server import MariaDBServer, find_binary, server_available

__all__ = ["LabConfig", "LabRun", "run_lab", "build_shim", "lab_available", "read_shim_log",
           "SHIM_SOURCE", "EPISODES", "rotation_delays"]

SHIM_SOURCE = Path(__file__).with_name("slowsync.c")
BINLOG_BASENAME = "mariadb-bin"
TABLE_SQL = ("CREATE TABLE lab.t (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, "
             "pad VARCHAR(4000) NOT NULL, KEY (k)) ENGINE=InnoDB")


class LabError(RuntimeError):
    """The lab could not run (no gcc, no server, shim not loaded...)."""


@dataclass
class LabConfig:
    """One lab run.  ``seconds_per_mb=0`` is the control run (no delay)."""

    max_binlog_size: int = 1 << 20
    seconds_per_mb: float = 3.0
    long_query_time: float = 0.0
    duration_s: float = 40.0
    fill_s: float = 7.0             # target seconds to fill one binlog file
    writers: int = 4
    readers: int = 2
    row_bytes: int = 1000
    read_rate: float = 20.0         # per reader, statements per second
    noise_every_s: float = 5.0      # one SELECT SLEEP(1.2..2.4) about this often (0 = none)
    min_delay_bytes: int = 64 << 10
    seed: int = 1
    time_zone: str = "UTC"          # TZ of the server: the slow log's zone-less times
    # confounders: (kind, at_s, hold_s) with kind in EPISODES; each is recorded in
    # truth.json "episodes" with the instants it held commits and its cause
    episodes: tuple = ()
    log_slow_filter: str = ""       # "" keeps the server's default (leaves most waits out)


@dataclass
class LabRun:
    out_dir: Path
    binlogs: list
    slowlog: Path
    truth_path: Path
    delays: list                    # dicts: start, end (ISO UTC), duration_s, file, size_bytes
    syncs: list = field(default_factory=list)
    server_version: str = ""
    statements: dict = field(default_factory=dict)
    episodes: list = field(default_factory=list)    # confounders as run (see EPISODES)


def lab_available() -> bool:
    """True when mariadbd, mariadb-install-db and gcc are installed."""
    return server_available() and find_binary("gcc", "cc") is not None


def build_shim(dest_dir) -> Path:
    """Compile slowsync.c into ``dest_dir/slowsync.so``; return its path."""
    cc = find_binary("gcc", "cc")
    if cc is None:
        raise LabError("gcc not found: the stall lab compiles its LD_PRELOAD shim at run time")
    out = Path(dest_dir) / "slowsync.so"
    r = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-Wall", "-o", str(out), str(SHIM_SOURCE),
                        "-ldl"], capture_output=True, text=True)
    if r.returncode != 0:
        raise LabError(f"compiling {SHIM_SOURCE.name} failed:\n{r.stderr}")
    return out


def _iso(us: int) -> str:
    dt = datetime.datetime.fromtimestamp(us / 1e6, tz=datetime.timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def read_shim_log(path) -> list:
    """The shim's lines as dicts (start_us, end_us, delay_us, size, file, call)."""
    out = []
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        return out
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 6:
            continue
        call, start, end, delay, size, fpath = parts
        out.append({"call": call, "start_us": int(start), "end_us": int(end),
                    "delay_us": int(delay), "size": int(size), "file": os.path.basename(fpath)})
    return out


def truth_delays(syncs: list) -> list:
    """Ground truth: the syncs the shim delayed, as JSON-ready dicts."""
    return [{"start": _iso(s["start_us"]), "end": _iso(s["end_us"]),
             "duration_s": round((s["end_us"] - s["start_us"]) / 1e6, 6),
             "injected_s": round(s["delay_us"] / 1e6, 6), "file": s["file"],
             "size_bytes": s["size"], "call": s["call"]}
            for s in syncs if s["delay_us"] > 0]


# -- workload -------------------------------------------------------------------

class _Workload:
    """Paced client threads; each counts its statements."""

    def __init__(self, server: MariaDBServer, cfg: LabConfig):
        self.server = server
        self.cfg = cfg
        self.stop = threading.Event()
        self.counts = {"write": 0, "commit": 0, "read": 0, "noise": 0}
        self.errors = []
        self._lock = threading.Lock()
        txn_bytes = cfg.row_bytes + 300                 # row image + GTID/annotate/map/XID
        rate = cfg.max_binlog_size / max(cfg.fill_s, 0.5)
        self.write_interval = cfg.writers * txn_bytes / rate

    def _count(self, kind):
        with self._lock:
            self.counts[kind] += 1

    def _paced(self, interval, step, rng):
        conn = self.server.connect(autocommit=True, database="lab")
        try:
            cur = conn.cursor()
            nxt = time.monotonic()
            while not self.stop.is_set():
                step(cur, rng)
                nxt = max(nxt + interval * rng.uniform(0.7, 1.3), time.monotonic())
                self.stop.wait(max(0.0, nxt - time.monotonic()))
        except Exception as exc:  # a failing client must fail the run, not hang it
            self.errors.append(f"{type(exc).__name__}: {exc}")
            self.stop.set()
        finally:
            conn.close()

    def _write(self, cur, rng):
        pad = "x" * self.cfg.row_bytes
        roll = rng.random()
        if roll < 0.6:
            cur.execute("INSERT INTO t (k, pad) VALUES (%s, %s)", (rng.randrange(1000), pad))
        elif roll < 0.8:
            cur.execute("UPDATE t SET pad = %s WHERE id = %s",
                        (pad[:-1] + "y", rng.randrange(1, 200)))
        else:
            cur.execute("BEGIN")
            cur.execute("INSERT INTO t (k, pad) VALUES (%s, %s)", (rng.randrange(1000), pad[:200]))
            cur.execute("UPDATE t SET k = k + 1 WHERE id = %s", (rng.randrange(1, 200),))
            cur.execute("COMMIT")
            self._count("commit")
        self._count("write")

    def _read(self, cur, rng):
        if rng.random() < 0.8:
            cur.execute("SELECT id, k FROM t WHERE id = %s", (rng.randrange(1, 200),))
        else:
            cur.execute("SELECT COUNT(*) FROM t WHERE k BETWEEN %s AND %s",
                        (lo := rng.randrange(1000), lo + 20))
        cur.fetchall()
        self._count("read")

    def _noise(self, cur, rng):
        cur.execute("SELECT SLEEP(%s)", (round(rng.uniform(1.2, 2.4), 2),))
        cur.fetchall()
        self._count("noise")

    def run(self, duration_s: float):
        cfg = self.cfg
        jobs = [(self.write_interval, self._write) for _ in range(cfg.writers)]
        jobs += [(1.0 / cfg.read_rate, self._read) for _ in range(cfg.readers)]
        if cfg.noise_every_s > 0:
            jobs.append((cfg.noise_every_s, self._noise))
        threads = [threading.Thread(target=self._paced, args=(iv, fn, random.Random(cfg.seed * 100 + i)),
                                    daemon=True) for i, (iv, fn) in enumerate(jobs)]
        for t in threads:
            t.start()
        self.stop.wait(duration_s)
        self.stop.set()
        for t in threads:
            t.join(120)
        if self.errors:
            raise LabError("workload client failed: " + self.errors[0])


# -- confounders: stalls that are not rotations --------------------------------------

# kind -> (cause the report should give, statements that take and release the hold)
EPISODES = {
    "ftwrl": ("lock", "FLUSH TABLES WITH READ LOCK", "UNLOCK TABLES"),
    "lock_tables": ("lock", "LOCK TABLES t WRITE", "UNLOCK TABLES"),
    # a long transaction holding the row locks the writers' UPDATEs need
    "row_locks": ("lock", "BEGIN;UPDATE t SET k = k WHERE id <= 200", "COMMIT"),
    # every commit syncs the binlog, and the shim makes each sync slow
    "commit_sync": ("commit_sync", "SET GLOBAL sync_binlog = 1", "SET GLOBAL sync_binlog = 0"),
}


def _now_us() -> int:
    return time.time_ns() // 1000


class _Episodes:
    """Runs the configured confounders on their own connection, at their times."""

    def __init__(self, server: MariaDBServer, cfg: LabConfig, stop: threading.Event):
        self.server, self.cfg, self.stop = server, cfg, stop
        self.done = []
        self.errors = []
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        t0 = time.monotonic()
        try:
            conn = self.server.connect(autocommit=True, database="lab")
            try:
                cur = conn.cursor()
                for kind, at_s, hold_s in sorted(self.cfg.episodes, key=lambda e: e[1]):
                    if self.stop.wait(max(0.0, t0 + at_s - time.monotonic())):
                        return
                    self.done.append(self._one(cur, kind, hold_s))
            finally:
                conn.close()
        except Exception as exc:  # noqa: BLE001  (reported by the run)
            self.errors.append(f"{type(exc).__name__}: {exc}")

    @staticmethod
    def _one(cur, kind, hold_s):
        cause, take, release = EPISODES[kind]
        asked = _now_us()
        for sql in take.split(";"):
            cur.execute(sql)
        held = _now_us()
        time.sleep(hold_s)
        released_at = _now_us()
        for sql in release.split(";"):
            cur.execute(sql)
        return {"kind": kind, "cause": cause, "asked": _iso(asked), "start": _iso(held),
                "end": _iso(released_at), "duration_s": round((released_at - held) / 1e6, 6)}


def rotation_delays(delays: list, episodes: list) -> list:
    """The injected delays that were rotation syncs (not commit syncs of a
    ``commit_sync`` episode)."""
    windows = [(e["start"], e["end"]) for e in episodes if e["kind"] == "commit_sync"]
    return [d for d in delays if not any(a <= d["start"] <= b for a, b in windows)]


# -- one run ------------------------------------------------------------------------

def _server_options(cfg: LabConfig, slowlog: Path) -> dict:
    return {
        "log_bin": BINLOG_BASENAME, "server_id": 1, "binlog_format": "ROW",
        "max_binlog_size": cfg.max_binlog_size, "sync_binlog": 0,
        "slow_query_log": 1, "slow_query_log_file": str(slowlog),
        "long_query_time": cfg.long_query_time, "log_slow_verbosity": "query_plan",
        "innodb_flush_log_at_trx_commit": 2, "innodb_flush_method": "fsync",
        "max_connections": 50,
        **({"log_slow_filter": cfg.log_slow_filter} if cfg.log_slow_filter else {}),
    }


SHM_NEEDED = 512 << 20           # datadir (InnoDB files, redo log), binlogs, slow log


def _scratch_dir() -> Path:
    """A temp dir on /dev/shm when it is writable and roomy (containers often give 64 MB)."""
    shm = Path("/dev/shm")
    try:
        st = os.statvfs(shm)
        roomy = st.f_bavail * st.f_frsize >= SHM_NEEDED and os.access(shm, os.W_OK)
    except OSError:
        roomy = False
    if roomy:
        return Path(tempfile.mkdtemp(prefix="binlogkit-stall-lab-", dir=shm))
    return Path(tempfile.mkdtemp(prefix="binlogkit-stall-lab-"))


def _check_preloaded(server: MariaDBServer, shim: Path):
    try:
        maps = Path(f"/proc/{server.proc.pid}/maps").read_text()
    except OSError as exc:
        raise LabError(f"cannot check that the shim is loaded: {exc}") from None
    if str(shim) not in maps:
        raise LabError(f"LD_PRELOAD did not reach mariadbd ({shim} not in its maps)")


def run_lab(cfg: LabConfig, out_dir) -> LabRun:
    """Run one lab; copy binlogs, slow log and ground truth into ``out_dir``."""
    if not lab_available():
        raise LabError("the stall lab needs mariadbd, mariadb-install-db and gcc")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch = _scratch_dir()
    try:
        return _run(cfg, out_dir, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run(cfg: LabConfig, out_dir: Path, scratch: Path) -> LabRun:
    shim = build_shim(scratch)
    shim_log, armed = scratch / "shim.log", scratch / "armed"
    slowlog = scratch / "slow.log"
    server_env = {
        "LD_PRELOAD": str(shim), "BINLOGKIT_SLOWSYNC_PATTERN": f"{BINLOG_BASENAME}.[0-9]*",
        "BINLOGKIT_SLOWSYNC_SEC_PER_MB": repr(float(cfg.seconds_per_mb)),
        "BINLOGKIT_SLOWSYNC_MIN_BYTES": str(cfg.min_delay_bytes),
        "BINLOGKIT_SLOWSYNC_LOG": str(shim_log), "BINLOGKIT_SLOWSYNC_ARMED": str(armed),
    }
    server = MariaDBServer(options=_server_options(cfg, slowlog), env={"TZ": cfg.time_zone},
                           basedir=scratch / "server", server_env=server_env)
    with server:
        _check_preloaded(server, shim)
        version = server.sql("SELECT VERSION()").strip()
        server.sql("CREATE DATABASE lab;\nUSE lab;\n" + TABLE_SQL + ";\n"
                   "INSERT INTO lab.t (k, pad) SELECT seq % 1000, REPEAT('s', 100) "
                   "FROM seq_1_to_200;")
        workload = _Workload(server, cfg)
        episodes = _Episodes(server, cfg, workload.stop)
        armed.touch()
        try:
            if cfg.episodes:
                episodes.thread.start()
            workload.run(cfg.duration_s)
        finally:
            workload.stop.set()
            if cfg.episodes:
                episodes.thread.join(60)
            armed.unlink()
        if episodes.errors:
            raise LabError("confounder failed: " + episodes.errors[0])
        server.stop()
        binlogs = [_copy(p, out_dir) for p in server.binlog_files()]
    slow_out = _copy(slowlog, out_dir)
    syncs = read_shim_log(shim_log)
    if shim_log.exists():
        shutil.copyfile(shim_log, out_dir / "shim.log")
    run = LabRun(out_dir, binlogs, slow_out, out_dir / "truth.json", truth_delays(syncs), syncs,
                 version, dict(workload.counts), episodes.done)
    _write_truth(run, cfg)
    return run


def _copy(src: Path, out_dir: Path) -> Path:
    dest = out_dir / src.name
    shutil.copyfile(src, dest)
    return dest


def _write_truth(run: LabRun, cfg: LabConfig):
    doc = {
        "what": "ground truth of a binlogkit stall lab run (binlogkit/lab/stall_lab.py)",
        "server_version": run.server_version, "time_zone": cfg.time_zone,
        "config": asdict(cfg), "statements": run.statements,
        "binlogs": [p.name for p in run.binlogs], "slowlog": run.slowlog.name,
        "delays": run.delays,
        "episodes": run.episodes,
    }
    run.truth_path.write_text(json.dumps(doc, indent=2) + "\n")


# -- command line -----------------------------------------------------------------------

def _size(text: str) -> int:
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    if text[-1:] in mult:
        return int(float(text[:-1]) * mult[text[-1]])
    return int(text)


def main(argv=None) -> int:
    d = LabConfig()
    ap = argparse.ArgumentParser(prog="python -m binlogkit.lab.stall_lab",
                                 description="Run the rotation-stall lab (see the module doc).")
    ap.add_argument("--out", required=True, help="directory for binlogs, slow.log, truth.json")
    ap.add_argument("--max-binlog-size", type=_size, default=d.max_binlog_size)
    ap.add_argument("--sec-per-mb", type=float, default=d.seconds_per_mb,
                    help="injected sync delay per MiB of binlog (0 = control run)")
    ap.add_argument("--long-query-time", type=float, default=d.long_query_time)
    ap.add_argument("--duration", type=float, default=d.duration_s, help="workload seconds")
    ap.add_argument("--fill", type=float, default=d.fill_s, help="target seconds per binlog file")
    ap.add_argument("--writers", type=int, default=d.writers)
    ap.add_argument("--readers", type=int, default=d.readers)
    ap.add_argument("--row-bytes", type=int, default=d.row_bytes)
    ap.add_argument("--noise-every", type=float, default=d.noise_every_s)
    ap.add_argument("--seed", type=int, default=d.seed)
    a = ap.parse_args(argv)
    cfg = LabConfig(max_binlog_size=a.max_binlog_size, seconds_per_mb=a.sec_per_mb,
                    long_query_time=a.long_query_time, duration_s=a.duration, fill_s=a.fill,
                    writers=a.writers, readers=a.readers, row_bytes=a.row_bytes,
                    noise_every_s=a.noise_every, seed=a.seed)
    try:
        run = run_lab(cfg, a.out)
    except (LabError, RuntimeError) as exc:
        print(f"stall lab: {exc}", file=sys.stderr)
        return 1
    print(f"{len(run.binlogs)} binlogs, {len(run.delays)} injected delays, "
          f"statements {run.statements}; ground truth in {run.truth_path}")
    for dly in run.delays:
        print(f"  {dly['start']} .. {dly['end']}  {dly['duration_s']:.3f} s  {dly['file']} "
              f"({dly['size_bytes']} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
