#!/usr/bin/env python3
"""binlogkit export --jobs 1 vs --jobs N on >= 1 GB of binlogs: wall time, ratio, peak RSS.

    python bench/make_big_binlog.py            # once: bench/work/mariadb-bin.000001 (~70 MB)
    python bench/bench_export.py [--gb 1] [--jobs 2] [--what events] [--format parquet] [--runs 2]

The input is hard links (copies where links fail) of the big binlog under
bench/work/export-in/ (git-ignored), enough of them to make --gb gigabytes.
Runs alternate (1, N, 1, N...) so both see the same machine load; the ratio
is of the medians measured in this run.  Peak RSS per worker comes from the
command's --stats line (ru_maxrss of each worker process).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "work"
SOURCE = WORK / "mariadb-bin.000001"


def make_inputs(gb):
    """Links to SOURCE named like a binlog sequence, totalling at least `gb` GB."""
    size = SOURCE.stat().st_size
    count = max(2, -(-int(gb * 1e9) // size))
    folder = WORK / "export-in"
    folder.mkdir(exist_ok=True)
    paths = []
    for i in range(1, count + 1):
        path = folder / f"mariadb-bin.{i:06d}"
        if not path.exists():
            try:
                os.link(SOURCE, path)
            except OSError:
                shutil.copyfile(SOURCE, path)
        paths.append(str(path))
    return paths


def cpu_jiffies():
    """(busy, total) CPU time of the whole machine so far, in clock ticks."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def wait_for_idle(max_wait, idle_share=0.9):
    """Wait (at most max_wait s) until the machine was >= idle_share idle for 2 s."""
    deadline = time.monotonic() + max_wait
    while time.monotonic() < deadline:
        b0, t0 = cpu_jiffies()
        time.sleep(2)
        b1, t1 = cpu_jiffies()
        if t1 > t0 and (b1 - b0) / (t1 - t0) <= 1 - idle_share:
            return True
    return False


def run_export(paths, jobs, what, fmt, out):
    """Wall time, the command's --stats, and the CPU share other processes took meanwhile."""
    cmd = [sys.executable, "-m", "binlogkit", "export", *paths, "--what", what,
           "--format", fmt, "-o", out, "--jobs", str(jobs), "--stats", "--no-progress"]
    ticks = os.sysconf("SC_CLK_TCK")
    ours0 = os.times()
    busy0, total0 = cpu_jiffies()
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True)
    wall = time.perf_counter() - start
    busy1, total1 = cpu_jiffies()
    ours1 = os.times()
    if proc.returncode != 0:
        sys.exit(f"export failed: {proc.stderr.decode()}")
    stats = json.loads(proc.stderr.decode().strip().splitlines()[-1])
    ours = (ours1.children_user + ours1.children_system
            - ours0.children_user - ours0.children_system)
    others = max(0.0, (busy1 - busy0) / ticks - ours)
    stats["cpu_s"] = ours
    stats["others_cores"] = others / wall      # cores' worth taken by other processes
    return wall, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--what", default="events", choices=["events", "transactions"])
    ap.add_argument("--format", default="parquet", choices=["parquet", "csv", "jsonl"])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--wait-idle", type=float, default=0, metavar="S",
                    help="before each run wait up to S s for the machine to be 90%% idle")
    args = ap.parse_args()
    if not SOURCE.exists():
        sys.exit(f"{SOURCE} is missing: run bench/make_big_binlog.py first")
    paths = make_inputs(args.gb)
    total = sum(os.stat(p).st_size for p in paths)
    print(f"input: {len(paths)} files, {total / 1e9:.2f} GB; export --what {args.what} "
          f"--format {args.format}; {os.cpu_count()} CPUs")
    times = {1: [], args.jobs: []}
    rss = {1: [], args.jobs: []}
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        for run in range(args.runs):
            for jobs in (1, args.jobs):
                out = os.path.join(tmp, f"out-{jobs}.{args.format}")
                if args.wait_idle:
                    wait_for_idle(args.wait_idle)
                wall, stats = run_export(paths, jobs, args.what, args.format, out)
                times[jobs].append(wall)
                rss[jobs].append(max(stats["peak_rss_kib"]))
                print(f"run {run + 1} --jobs {jobs}: {wall:6.1f} s (CPU {stats['cpu_s']:.1f} s; "
                      f"other processes used {stats['others_cores']:.2f} cores meanwhile), "
                      f"{stats['rows']} rows, "
                      f"{stats['workers']} process(es), peak RSS per process "
                      f"{[round(k / 1024) for k in stats['peak_rss_kib']]} MiB, "
                      f"main {stats['main_peak_rss_kib'] // 1024} MiB; CPU s per worker "
                      f"{stats['worker_cpu_s']}, main {stats['main_cpu_s']}, "
                      f"output {os.path.getsize(out) / 1e6:.0f} MB")
    one, many = statistics.median(times[1]), statistics.median(times[args.jobs])
    print(f"median --jobs 1: {one:.1f} s ({total / one / 1e6:.0f} MB/s); "
          f"--jobs {args.jobs}: {many:.1f} s ({total / many / 1e6:.0f} MB/s)")
    print(f"speed-up --jobs {args.jobs} vs --jobs 1: {one / many:.2f}x; "
          f"max peak RSS per process: --jobs 1 {max(rss[1]) / 1024:.0f} MiB, "
          f"--jobs {args.jobs} {max(rss[args.jobs]) / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
