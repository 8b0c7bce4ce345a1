#!/usr/bin/env python3
"""binlogkit print against the real tool on the production-shaped binlogs of make_shapes.py.

    python bench/make_shapes.py                        # once: bench/work/<flavor>-<shape>-16.bin
    python bench/bench_shapes.py [FILES...] [-n 5] [--modes default,vv,flashback] [--pipe]

For every file (default: every bench/work/*-16.bin and *-16 directory) and mode,
both tools run alternately N times on the same file(s), stdout to /dev/null
(--pipe: to a pipe this process drains), and one line per tool gives the
medians: wall, CPU (user + system of the child), peak RSS, events per second
and microseconds per event (CPU), then the ratio binlogkit / real tool of
wall, CPU and RSS.  The real tool: mariadb-binlog for MariaDB logs;
mysqlbinlog 9.7.4 in the MySQL root (binlogkit/lab/mysql_root.py; the files
are copied in) for MySQL logs.  Modes: default; vv = -vv
--base64-output=decode-rows; flashback = --flashback (MariaDB only).
TZ=UTC; bytecode compiled first and kept, as an install has it.  Measures only: no
assertion.  The machine is shared, so run
alternately and read medians (the CPU ratio is the steadier).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODES = {"default": [], "vv": ["-vv", "--base64-output=decode-rows"], "flashback": ["--flashback"],
         "v": ["-v"]}


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None     # GNU time


def run(cmd, env, pipe):
    """(wall s, CPU s, peak RSS KiB, exit status) of one run of cmd.

    The peak RSS is GNU time's (%M) where /usr/bin/time exists: a child's ru_maxrss
    as this process reads it from wait4 counts this Python process's own pages too
    (a vfork'd child exec()s from its parent's address space, and Linux keeps the
    larger high-water mark across exec), so anything under ~14 MiB would read as
    this process's size.  Without GNU time that figure is printed.  CPU and wall come
    from wait4 as before (GNU time's own share, about a millisecond, included: its
    %U/%S have only 10 ms steps)."""
    report = None
    if TIME:
        fd, report = tempfile.mkstemp(prefix="bench-time-")
        os.close(fd)
        cmd = [TIME, "-f", "%M", "-o", report, *cmd]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if pipe else subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    if pipe:
        fd = proc.stdout.fileno()
        while os.read(fd, 1 << 20):
            pass
        proc.stdout.close()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    rss = ru.ru_maxrss
    if report is not None:
        with open(report) as f:
            rss = int(f.read().split()[-1])     # after "Command exited with non-zero status N"
        os.unlink(report)
    return wall, ru.ru_utime + ru.ru_stime, rss, os.waitstatus_to_exitcode(status)


def binlogkit_command():
    script = Path(sys.executable).parent / "binlogkit"
    if os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("binlogkit")
    return [found] if found else [sys.executable, "-m", "binlogkit"]


def files_of(target: Path):
    return sorted(p for p in target.iterdir() if p.name[-1].isdigit()) if target.is_dir() else [target]


def flavor_of(files):
    with open(files[0], "rb") as f:
        head = f.read(128)
    return "mariadb" if b"MariaDB" in head else "mysql"


COUNT = """
import sys
from binlogkit.binlog.reader import BinlogReader
n = 0
for path in sys.argv[1:]:
    with BinlogReader(path) as reader:
        reader.read_magic()
        n += sum(1 for _ in reader.events())
print(n)
"""


def count_events(files):
    """In a child: a peak RSS survives exec, so this process stays small (the children's
    figures would start at its size)."""
    return int(subprocess.run([sys.executable, "-c", COUNT, *map(str, files)], check=True,
                              capture_output=True, text=True, cwd=ROOT).stdout)


def bench(target: Path, mode: str, runs: int, pipe: bool, env: dict, cleanup: list):
    files = files_of(target)
    flavor = flavor_of(files)
    if flavor == "mysql" and mode == "flashback":
        return None
    extra = MODES[mode]
    bk = binlogkit_command() + ["print", *extra, *map(str, files)]
    if flavor == "mariadb":
        real_name = "mariadb-binlog"
        real = [shutil.which("mariadb-binlog") or "/usr/bin/mariadb-binlog", "--no-defaults", *extra,
                *map(str, files)]
    else:
        from binlogkit.lab import mysql_root
        if not mysql_root.root_available():
            print(f"{target.name}: no MySQL root, skipped", file=sys.stderr)
            return None
        inside = mysql_root.copy_into_root(files)
        cleanup.append(Path(mysql_root.root_dir()) / inside[0].lstrip("/"))
        real_name = "mysqlbinlog 9.7"
        real = ["chroot", str(mysql_root.root_dir()), "/usr/bin/mysqlbinlog", "--no-defaults", *extra,
                *inside]
    events = count_events(files)
    results = {"binlogkit": [], real_name: []}
    for _ in range(runs):
        for name, cmd in (("binlogkit", bk), (real_name, real)):
            results[name].append(run(cmd, env, pipe))
    size = sum(p.stat().st_size for p in files) / 1048576
    print(f"\n{target.name} ({size:.1f} MiB, {events} events, {len(files)} file(s)), mode {mode}"
          f"{' (pipe)' if pipe else ''}, {runs} runs")
    med = {}
    for name, rs in results.items():
        wall = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs)
        rss = max(r[2] for r in rs) / 1024
        med[name] = (wall, cpu, rss)
        print(f"  {name:16s} wall {wall:7.3f} s  cpu {cpu:7.3f} s  rss {rss:7.1f} MiB  "
              f"{events / cpu / 1000 if cpu else 0:8.0f} k events/s  {cpu / events * 1e6:6.2f} us/event  "
              f"exit {','.join(str(r[3]) for r in rs)}")
    b, r = med["binlogkit"], med[real_name]
    print(f"  ratio: wall {b[0] / r[0]:.2f}x  cpu {b[1] / r[1]:.2f}x  rss {b[2] / r[2]:.2f}x")
    return target.name, mode, pipe, b[0] / r[0], b[1] / r[1], b[2] / r[2]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="binlogs, or directories of a workload's files")
    ap.add_argument("-n", "--runs", type=int, default=5)
    ap.add_argument("--modes", default="default,vv,flashback")
    ap.add_argument("--pipe", action="store_true", help="output to a pipe rather than /dev/null")
    args = ap.parse_args(argv)
    work = ROOT / "bench" / "work"
    targets = args.files or sorted(p for p in work.glob("*-16*") if p.suffix in (".bin", ""))
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    # as users run it: bytecode compiled once and kept (a PYTHONDONTWRITEBYTECODE
    # environment would compile every module on every run)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "binlogkit")], env=env,
                   check=False, stdout=subprocess.DEVNULL)
    rows, cleanup = [], []
    try:
        for target in targets:
            for mode in args.modes.split(","):
                row = bench(target, mode, args.runs, args.pipe, env, cleanup)
                if row:
                    rows.append(row)
    finally:
        for d in cleanup:
            shutil.rmtree(d.parent, ignore_errors=True)
    print("\n| file | mode | wall | CPU | RSS |\n|---|---|---|---|---|")
    for name, mode, pipe, wall, cpu, rss in rows:
        print(f"| {name} | {mode}{' (pipe)' if pipe else ''} | {wall:.2f}x | {cpu:.2f}x | {rss:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
