#!/usr/bin/env python3
"""`binlogkit watch`: how fast it follows a binlog stream, and whether its memory stays flat.

    python bench/bench_watch.py [--record 30] [-n 3] [--hours 1]

A throw-away MariaDB runs the stall lab's workload for RECORD seconds (6 writers of small
row transactions, 2 readers, every statement in the slow log: ~1 MiB of binlog every 2 s).
1. Following: `binlogkit watch --start-log FIRST` (the whole stream, as catch-up, ending at
   the first heartbeat) and `mariadb-binlog -R -t FIRST` (text to /dev/null) read the same
   logs over the socket, alternately N times, with a watch of the last (empty) log for its
   start-up.  Printed: medians of wall time, events per second, CPU (user + system) per MiB,
   peak RSS, and the ratios, also less the watch's start-up.
2. Memory: the same binlogs and slow log are then replayed through the
   watcher's own code (arrivals, slow-log entries, the online rules, metrics; alerts to
   /dev/null) shifted in time until they cover HOURS hours of server time, and the
   process's RSS is printed at each tenth: a flat line means the bounded windows hold.

No assertions: this only measures.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_print import binlogkit_command, run  # noqa: E402
from binlogkit.lab.server import MariaDBServer, find_binary  # noqa: E402


def count_events(paths):
    from binlogkit.binlog.reader import BinlogReader
    n = 0
    for path in paths:
        with BinlogReader(str(path)) as reader:
            reader.read_magic()
            for _ in reader.events():
                n += 1
    return n


def follow_bench(srv, args):
    """Both tools read every log of the running server `srv` over its socket."""
    real = find_binary("mariadb-binlog", "mysqlbinlog")
    if real is None:
        sys.exit("mariadb-binlog is not installed")
    files = srv.binlog_files()
    names = [p.name for p in files]
    total_mb = sum(p.stat().st_size for p in files) / (1 << 20)
    events = count_events(files)
    conn = ["--socket", str(srv.socket), "-u", "root"]
    watch = binlogkit_command() + ["watch", *conn, "--no-slowlog", "--heartbeat", "0.1",
                                   "--exit-when-caught-up"]
    cmds = {"mariadb-binlog -R": [real, "--no-defaults", "-R", "-t", *conn, names[0]],
            "binlogkit watch": watch + ["--start-log", names[0]],
            "watch, start-up only": watch + ["--start-log", names[-1]]}
    env = dict(os.environ, TZ="UTC")
    results = {name: [] for name in cmds}
    for _ in range(args.runs):
        for name, cmd in cmds.items():
            wall, rss, code, cpu = run(cmd, env)
            results[name].append((wall, cpu, rss))
    print(f"following {len(names)} logs, {total_mb:.1f} MiB, {events} events over the socket; "
          f"{args.runs} alternating runs, medians")
    med = {name: [statistics.median(r[i] for r in rows) for i in range(3)]
           for name, rows in results.items()}
    base = med.pop("watch, start-up only")
    for name, (wall, cpu, rss) in med.items():
        print(f"  {name:18} wall {wall:6.3f} s  {events / wall / 1000:6.1f}k events/s  "
              f"CPU {cpu / total_mb * 1000:6.1f} ms/MiB  peak RSS {rss / 1024:6.1f} MiB")
    wall, cpu = med["binlogkit watch"][0] - base[0], med["binlogkit watch"][1] - base[1]
    print(f"  {'watch less start-up':18} wall {wall:6.3f} s  {events / wall / 1000:6.1f}k events/s  "
          f"CPU {cpu / total_mb * 1000:6.1f} ms/MiB  (start-up and one heartbeat: wall "
          f"{base[0]:.2f} s, CPU {base[1]:.2f} s)")
    a, b = med["binlogkit watch"], med["mariadb-binlog -R"]
    print(f"  ratio watch/mariadb-binlog: wall {a[0] / b[0]:.2f}x, CPU {a[1] / max(b[1], 1e-9):.2f}x; "
          f"less start-up: wall {wall / b[0]:.2f}x, CPU {cpu / max(b[1], 1e-9):.2f}x")


def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def busy_server(directory, seconds):
    """A server after `seconds` of the stall lab's workload, every statement in its slow log."""
    from binlogkit.lab import stall_lab as S
    cfg = S.LabConfig(seconds_per_mb=0.0, fill_s=2.0, writers=6, readers=2, noise_every_s=0,
                      long_query_time=0.0)
    slow = Path(directory) / "slow.log"
    srv = MariaDBServer(options=S._server_options(cfg, slow), env={"TZ": "UTC"})
    srv.__enter__()
    srv.sql("CREATE DATABASE lab;\nUSE lab;\n" + S.TABLE_SQL + ";\n")
    S._Workload(srv, cfg).run(seconds)
    srv.sql("FLUSH BINARY LOGS")
    return srv, slow


def replay_bench(srv, slow_path, args):
    from binlogkit.binlog.reader import BinlogReader
    from binlogkit.remote.follow import arrival_of
    from binlogkit.slowlog.parser import SlowlogParser
    from binlogkit.watch.alerts import AlertWriter
    from binlogkit.watch.metrics import WatchMetrics
    from binlogkit.watch.run import Watcher
    from binlogkit.watch.slowtail import slow_entry

    binlogs = srv.binlog_files()
    slow = [e for e in map(slow_entry, SlowlogParser(str(slow_path), zone="UTC")) if e is not None]
    slow.sort(key=lambda e: e.end)
    events = []
    for path in binlogs:
        with BinlogReader(str(path)) as reader:
            reader.read_magic()
            for raw in reader.events():
                events.append(arrival_of(float(raw.when), raw, reader.fde, path.name, raw.pos))
    mb = sum(p.stat().st_size for p in binlogs) / (1 << 20)
    span = max(a.when for a in events) - min(a.when for a in events) + 1
    repeats = max(1, int(args.hours * 3600 / span + 0.999))
    alerts = AlertWriter(os.devnull, "json")
    watcher = Watcher(_NoFollower(), alerts, metrics=WatchMetrics())
    print(f"replaying {len(events)} events ({mb:.1f} MiB) and {len(slow)} slow-log entries of "
          f"{span:.0f} s of a busy server {repeats} times: {repeats * span / 3600:.2f} h, "
          f"{repeats * mb:.0f} MiB, {repeats * len(events)} events")
    marks = []
    n = 0
    t0 = time.process_time()
    for rep in range(repeats):
        shift = rep * span
        si = 0
        for a in events:
            at = a.when + shift + 0.01
            while si < len(slow) and slow[si].end + shift <= at:
                e = slow[si]
                watcher.diag.feed_slow(type(e)(e.start + shift, e.end + shift, e.query_time,
                                               e.lock_time, e.rows_examined, e.kind, e.query))
                si += 1
            b = _copy(a, at, shift)
            watcher._arrival(b)
            n += 1
            if n % 1000 == 0:           # what the watcher's loop does 20 times a second
                watcher._flush_counts()
        watcher.diag.tick(at + 5)
        if (rep + 1) % max(1, repeats // 10) == 0 or rep + 1 == repeats:
            marks.append((round((rep + 1) * span / 60), rss_mib()))
    cpu = time.process_time() - t0
    alerts.close()
    print("  RSS (MiB) after each stretch of server time: "
          + ", ".join(f"{minutes} min {rss:.1f}" for minutes, rss in marks))
    print(f"  CPU {cpu:.1f} s for {repeats * len(events)} events: "
          f"{repeats * len(events) / cpu / 1000:.0f}k events/s through the rules and metrics")


def _copy(a, at, shift):
    from binlogkit.remote.follow import Arrival
    b = Arrival(at, a.kind, a.type_code, a.when + shift, a.file, a.pos, a.size, False)
    b.next_file, b.created, b.commit_us, b.is_commit = a.next_file, 0, a.commit_us, a.is_commit
    return b


class _NoFollower:
    def stop(self):
        pass


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--record", type=float, default=30.0, help="seconds of busy workload")
    ap.add_argument("--skip-follow", action="store_true")
    ap.add_argument("--skip-replay", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="binlogkit-bench-watch-") as tmp:
        srv, slow = busy_server(tmp, args.record)
        try:
            if not args.skip_follow:
                follow_bench(srv, args)
            if not args.skip_replay:
                replay_bench(srv, slow, args)
        finally:
            srv.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
