#!/usr/bin/env python3
"""Compare ``binlogkit print`` with ``mariadb-binlog`` on one binlog.

    python bench/bench_print.py bench/work/mariadb-bin.000001 [-n 3] [-- EXTRA ARGS...]
    python bench/bench_print.py bench/work/mariadb-bin.000001 -- -vv --base64-output=decode-rows

Runs both tools alternately N times with stdout to /dev/null, and reports wall
time, CPU time (user + system) and peak RSS (from wait4's rusage of each
child).  On a busy machine the CPU-time ratio is the steadier of the two.
Extra arguments after ``--`` are passed to both tools.  No assertions: this
only measures.

binlogkit is run as the console script next to this Python (not a pyenv or
other shim, whose own start-up would be counted); BINLOGKIT_PURE=1 in the
environment measures the pure-Python path.
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


TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None     # GNU time


def run(cmd: list[str], env: dict) -> tuple[float, int, int, float]:
    """(wall seconds, peak RSS KiB, exit status, CPU seconds) of one run of cmd.

    The peak RSS is GNU time's (%M) where /usr/bin/time exists (Debian's `time`): the
    ru_maxrss wait4 gives for a child started by vfork counts this process's own pages
    (Linux carries the old address space's high-water mark across exec), so a tool
    under ~14 MiB would read as this bench's size (bench_shapes.run says more)."""
    cmd, report = under_gnu_time(cmd)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read()
    proc.stderr.close()
    if proc.returncode != 0:
        sys.stderr.write(f"warning: {cmd[0]} exited {proc.returncode}: {err[-500:].decode(errors='replace')}\n")
    return wall, peak_rss(report, ru), proc.returncode, ru.ru_utime + ru.ru_stime


def under_gnu_time(cmd):
    """(cmd run by GNU time writing its peak RSS to a temp file, that file), or (cmd, None)
    without /usr/bin/time."""
    if not TIME:
        return cmd, None
    fd, report = tempfile.mkstemp(prefix="bench-time-")
    os.close(fd)
    return [TIME, "-f", "%M", "-o", report, *cmd], report


def peak_rss(report, ru):
    """Peak RSS KiB: GNU time's report (removed), else wait4's ru_maxrss."""
    if report is None:
        return ru.ru_maxrss
    with open(report) as f:
        rss = int(f.read().split()[-1])     # after "Command exited with non-zero status N"
    os.unlink(report)
    return rss


def binlogkit_command() -> list[str]:
    script = os.path.join(os.path.dirname(sys.executable), "binlogkit")
    if os.access(script, os.X_OK):
        return [script]
    found = shutil.which("binlogkit")
    return [found] if found else [sys.executable, "-m", "binlogkit"]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binlog")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--binlogkit", default=None, help="binlogkit command (default: the console "
                    "script next to this Python, else binlogkit on PATH, else 'python -m binlogkit')")
    ap.add_argument("--mariadb-binlog", default=shutil.which("mariadb-binlog") or "/usr/bin/mariadb-binlog")
    ap.add_argument("--tz", default="UTC")
    args = ap.parse_args(argv)

    bk = args.binlogkit.split() if args.binlogkit else binlogkit_command()
    tools = {
        "binlogkit": bk + ["print", *extra, args.binlog],
        "mariadb-binlog": [args.mariadb_binlog, "--no-defaults", *extra, args.binlog],
    }
    env = dict(os.environ, TZ=args.tz, LC_ALL="C")
    results = {name: [] for name in tools}
    for i in range(args.runs):
        for name, cmd in tools.items():
            wall, rss, rc, cpu = run(cmd, env)
            results[name].append((wall, rss, rc, cpu))
            print(f"run {i + 1}/{args.runs} {name:15s} {wall:8.3f} s {cpu:8.3f} s CPU "
                  f"{rss / 1024:8.1f} MiB rc={rc}", file=sys.stderr)

    size = os.path.getsize(args.binlog) / 1048576
    pure = os.environ.get("BINLOGKIT_PURE", "") not in ("", "0")
    print(f"\nfile: {args.binlog} ({size:.1f} MiB), extra args: {' '.join(extra) or '(none)'}, "
          f"runs: {args.runs}, binlogkit path: {'pure Python' if pure else 'default'}")
    print(f"{'tool':15s} {'min s':>9s} {'median s':>9s} {'CPU med s':>9s} {'MiB/s':>8s} "
          f"{'peak RSS MiB':>13s} {'exit':>5s}")
    summary, cpu_summary = {}, {}
    for name, rs in results.items():
        walls = [r[0] for r in rs]
        cpus = [r[3] for r in rs]
        peak = max(r[1] for r in rs) / 1024
        summary[name] = statistics.median(walls)
        cpu_summary[name] = statistics.median(cpus)
        print(f"{name:15s} {min(walls):9.3f} {statistics.median(walls):9.3f} "
              f"{statistics.median(cpus):9.3f} {size / statistics.median(walls):8.1f} {peak:13.1f} "
              f"{','.join(str(r[2]) for r in rs):>5s}")
    ratio = summary["binlogkit"] / summary["mariadb-binlog"]
    print(f"ratio binlogkit / mariadb-binlog (median wall): {ratio:.2f}x")
    print(f"ratio binlogkit / mariadb-binlog (median CPU):  "
          f"{cpu_summary['binlogkit'] / cpu_summary['mariadb-binlog']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
