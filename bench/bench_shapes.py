#!/usr/bin/env python3
"""binlogkit print against the real tool on the production-shaped binlogs of make_shapes.py.

    python bench/make_shapes.py --mb 16; python bench/make_shapes.py --mb 64   # once
    python bench/bench_shapes.py [FILES...] [-n 5] [--modes default,vv,flashback]
                                 [--pipe | --both] [--mb 16,64] [--check]

For every file (default: every bench/work/*-16.bin and *-16 directory; --mb 16,64
both sizes) and mode, both tools run alternately N times on the same file(s),
stdout to /dev/null (--pipe: to a pipe this process drains; --both: each way),
and one line per tool gives the medians: wall, CPU (user + system of the child),
peak RSS (GNU time's, see run()), events per second and microseconds per event
(CPU), then the ratio binlogkit / real tool of wall, CPU and RSS (--check: and
whether both printed the same bytes).  The real tool: mariadb-binlog for MariaDB
logs; mysqlbinlog 9.7.4 in the MySQL root (binlogkit/lab/mysql_root.py; the files
are copied in) for MySQL logs.  Modes: default; vv = -vv --base64-output=decode-rows;
flashback = --flashback (MariaDB only).  TZ=UTC; bytecode compiled first and kept,
as an install has it.  Ends with README's table: per log, the CPU ratio (wall in
brackets) of each mode to a file and a pipe, in bold where over issue 25's goal
(default 1.0x, -vv decode-rows 0.8x, --flashback 1.2x and RSS 1.5x), and the peak
RSS.  Measures only: no assertion.  The machine is shared, so run alternately and
read medians (the CPU ratio is the steadier); the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_print import TIME, peak_rss, under_gnu_time  # noqa: E402

MODES = {"default": [], "vv": ["-vv", "--base64-output=decode-rows"], "flashback": ["--flashback"],
         "v": ["-v"]}


def run(cmd, env, pipe):
    """(wall s, CPU s, peak RSS KiB, exit status) of one run of cmd.

    The peak RSS is GNU time's (%M) where /usr/bin/time exists: a child's ru_maxrss
    as this process reads it from wait4 counts this Python process's own pages too
    (a vfork'd child exec()s from its parent's address space, and Linux keeps the
    larger high-water mark across exec), so anything under ~14 MiB would read as
    this process's size.  Without GNU time that figure is printed.  CPU and wall come
    from wait4 as before (GNU time's own share, about a millisecond, included: its
    %U/%S have only 10 ms steps)."""
    cmd, report = under_gnu_time(cmd)
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
    return wall, ru.ru_utime + ru.ru_stime, peak_rss(report, ru), os.waitstatus_to_exitcode(status)


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


def prepare(target: Path, cleanup: list):
    """(files, flavor, events, real tool name, its command without options) or None."""
    files = files_of(target)
    if not files:
        print(f"{target}: no binlog in it, skipped", file=sys.stderr)
        return None
    flavor = flavor_of(files)
    if flavor == "mariadb":
        real = ([shutil.which("mariadb-binlog") or "/usr/bin/mariadb-binlog", "--no-defaults"],
                [str(p) for p in files])
        real_name = "mariadb-binlog"
    else:
        from binlogkit.lab import mysql_root
        if not mysql_root.root_available():
            print(f"{target.name}: no MySQL root, skipped", file=sys.stderr)
            return None
        inside = mysql_root.copy_into_root(files)
        cleanup.append(Path(mysql_root.root_dir()) / inside[0].lstrip("/"))
        real_name = "mysqlbinlog 9.7"
        real = (["chroot", str(mysql_root.root_dir()), "/usr/bin/mysqlbinlog", "--no-defaults"], inside)
    return files, flavor, count_events(files), real_name, real


def same_output(bk, real, env):
    """Whether both tools print the same bytes (sha256 of each one's whole output)."""
    import hashlib
    digests = []
    for cmd in (bk, real):
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        h = hashlib.sha256()
        for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):
            h.update(chunk)
        proc.wait()
        digests.append(h.digest())
    return digests[0] == digests[1]


def bench(target: Path, prepared, mode: str, runs: int, pipe: bool, env: dict, check: bool):
    files, flavor, events, real_name, (real_cmd, real_files) = prepared
    if flavor == "mysql" and mode == "flashback":
        return None
    extra = MODES[mode]
    bk = binlogkit_command() + ["print", *extra, *map(str, files)]
    real = [*real_cmd, *extra, *real_files]
    results = {"binlogkit": [], real_name: []}
    for _ in range(runs):
        for name, cmd in (("binlogkit", bk), (real_name, real)):
            results[name].append(run(cmd, env, pipe))
    size = sum(p.stat().st_size for p in files) / 1048576
    print(f"\n{target.name} ({size:.1f} MiB, {events} events, {len(files)} file(s)), mode {mode}"
          f"{' (pipe)' if pipe else ''}, {runs} runs, load {os.getloadavg()[0]:.1f}")
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
    line = f"  ratio: wall {b[0] / r[0]:.2f}x  cpu {b[1] / r[1]:.2f}x  rss {b[2] / r[2]:.2f}x"
    if check:
        line += "  output " + ("byte-identical" if same_output(bk, real, env) else "DIFFERENT")
    print(line)
    return Row(target.name, flavor, size, events, mode, pipe, b, r)


class Row:
    def __init__(self, name, flavor, size, events, mode, pipe, bk, real):
        self.name, self.flavor, self.size, self.events = name, flavor, size, events
        self.mode, self.pipe, self.bk, self.real = mode, pipe, bk, real

    def ratio(self, i):
        return self.bk[i] / self.real[i]


GOALS = {"default": 1.0, "vv": 0.8, "flashback": 1.2}
RSS_GOAL = 1.5      # --flashback's peak RSS against the real tool's


def cell(row):
    """CPU ratio (wall ratio), bold over the goal."""
    if row is None:
        return ""
    text = f"{row.ratio(1):.2f}x ({row.ratio(0):.2f}x)"
    return f"**{text}**" if row.ratio(1) > GOALS[row.mode] else text


def summary(rows, modes, outputs):
    """One line per log: every mode to /dev/null and to a pipe, and the peak RSS."""
    heads = [f"{'`-vv --base64-output=decode-rows`' if m == 'vv' else '`--flashback`' if m == 'flashback' else m}"
             f" {'pipe' if o else 'file'}" for m in modes for o in outputs]
    rss_modes = [m for m in ("default", "flashback") if m in modes]
    heads += [f"RSS {m} (MiB)" for m in rss_modes]
    print("\n| log | MiB | events | " + " | ".join(heads) + " |")
    print("|---" * (3 + len(heads)) + "|")
    by = {(r.name, r.mode, r.pipe): r for r in rows}
    for name in dict.fromkeys(r.name for r in rows):
        first = next(r for r in rows if r.name == name)
        cells = [cell(by.get((name, m, o))) for m in modes for o in outputs]
        for m in rss_modes:
            rs = [by[k] for k in ((name, m, o) for o in outputs) if k in by]
            if not rs:
                cells.append("")
                continue
            bk, real = max(r.bk[2] for r in rs), max(r.real[2] for r in rs)
            text = f"{bk:.0f} / {real:.0f} ({bk / real:.2f}x)"
            cells.append(f"**{text}**" if m == "flashback" and bk / real > RSS_GOAL else text)
        print(f"| {name} | {first.size:.0f} | {first.events} | " + " | ".join(cells) + " |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="binlogs, or directories of a workload's files")
    ap.add_argument("-n", "--runs", type=int, default=5)
    ap.add_argument("--modes", default="default,vv,flashback")
    ap.add_argument("--pipe", action="store_true", help="output to a pipe rather than /dev/null")
    ap.add_argument("--both", action="store_true", help="to /dev/null and to a pipe, one after the other")
    ap.add_argument("--mb", default="16", help="the sizes of bench/work's logs to run (16,64)")
    ap.add_argument("--check", action="store_true",
                    help="also compare both tools' whole output (sha256), once per file and mode")
    args = ap.parse_args(argv)
    work = ROOT / "bench" / "work"
    targets = args.files or [p for mb in args.mb.split(",")
                             for p in sorted(work.glob(f"*-{mb}*")) if p.suffix in (".bin", "")]
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    # as users run it: bytecode compiled once and kept (a PYTHONDONTWRITEBYTECODE
    # environment would compile every module on every run)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "binlogkit")], env=env,
                   check=False, stdout=subprocess.DEVNULL)
    modes = args.modes.split(",")
    outputs = (False, True) if args.both else (args.pipe,)
    print(f"load at start {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs; GNU time for RSS: "
          f"{'yes' if TIME else 'no (RSS figures count this process)'}")
    rows, cleanup = [], []
    try:
        for target in targets:
            prepared = prepare(target, cleanup)
            if prepared is None:
                continue
            for mode in modes:
                for n, pipe in enumerate(outputs):
                    row = bench(target, prepared, mode, args.runs, pipe, env, args.check and n == 0)
                    if row:
                        rows.append(row)
            for d in cleanup:
                shutil.rmtree(d.parent, ignore_errors=True)
            cleanup.clear()
    finally:
        for d in cleanup:
            shutil.rmtree(d.parent, ignore_errors=True)
    print(f"\nload at end {os.getloadavg()[0]:.1f}")
    print("\n| file | mode | wall | CPU | RSS |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r.name} | {r.mode}{' (pipe)' if r.pipe else ''} | {r.ratio(0):.2f}x | {r.ratio(1):.2f}x "
              f"| {r.ratio(2):.2f}x |")
    summary(rows, modes, outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
