#!/usr/bin/env python3
"""Start-up of `binlogkit print`, as scripts see it: one process per small binlog.

    python bench/bench_startup.py                 # the bundled fixtures, 15 rounds
    python bench/bench_startup.py --runs 30 a.000001 b.000002

Two figures, each against mariadb-binlog in the same run (rounds alternate the
tools; medians of wall time per process):
  - tiny: the smallest file given (default: the smallest bundled binlog);
  - small files: every file given (default: the bundled binlogs up to 64 KB),
    one process each, the median over files of each file's median.
Both use the installed console script (`binlogkit` next to this Python: run it with
the venv README's set-up makes), TZ=UTC, output to /dev/null.  Python's own
start-up (`python -c pass`) is printed for scale, and the kind of install: README's
`pip install -e . --config-settings editable_mode=compat` puts a path entry in a .pth
file; a plain `pip install -e .` of today's setuptools installs an import hook
instead, which costs every start-up tens of milliseconds.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wall(cmd, env):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start


def install_kind():
    """How binlogkit is installed in this Python: 'regular', 'editable, path entry' or
    'editable, import hook' (setuptools' __editable__ finder)."""
    import sysconfig
    site = Path(sysconfig.get_paths()["purelib"])
    if list(site.glob("__editable__*binlogkit*finder.py")):
        return "editable, import hook (slow start-up: see README's set-up)"
    if list(site.glob("__editable__*binlogkit*.pth")) or list(site.glob("binlogkit*.egg-link")):
        return "editable, path entry"
    return "regular" if (site / "binlogkit").is_dir() else "not installed here"


def console_script():
    script = Path(sys.executable).parent / "binlogkit"
    return str(script) if os.access(script, os.X_OK) else shutil.which("binlogkit")


def bundled(limit):
    files = [p for p in sorted((ROOT / "fixtures" / "binlog").glob("*/*-bin.0*"))
             if p.stat().st_size <= limit]
    return [str(p) for p in files]


def medians(commands, files, runs, env):
    """{name: {file: median seconds}} with the tools alternating within each round."""
    times = {name: {f: [] for f in files} for name in commands}
    for _ in range(runs):
        for f in files:
            for name, cmd in commands.items():
                times[name][f].append(wall(cmd + [f], env))
    return {name: {f: statistics.median(v) for f, v in per.items()} for name, per in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--max-size", type=int, default=64 * 1024)
    ap.add_argument("--binlogkit", default=console_script())
    ap.add_argument("--mariadb-binlog", default=shutil.which("mariadb-binlog"))
    args = ap.parse_args(argv)
    if not args.binlogkit or not args.mariadb_binlog:
        print("needs the binlogkit console script and mariadb-binlog on PATH", file=sys.stderr)
        return 1
    files = args.files or bundled(args.max_size)
    env = {**os.environ, "TZ": "UTC"}
    commands = {"binlogkit": [args.binlogkit, "print", "--no-defaults"],
                "mariadb-binlog": [args.mariadb_binlog, "--no-defaults"]}
    python = statistics.median(wall([sys.executable, "-c", "pass"], env) for _ in range(args.runs))
    tiny = min(files, key=os.path.getsize)
    got = medians(commands, files, args.runs, env)
    print(f"binlogkit install: {install_kind()} ({args.binlogkit})")
    print(f"python -c pass: {python * 1000:.1f} ms")
    ours, theirs = got["binlogkit"][tiny], got["mariadb-binlog"][tiny]
    print(f"tiny ({os.path.getsize(tiny)} bytes, {Path(tiny).name}): binlogkit {ours * 1000:.1f} ms, "
          f"mariadb-binlog {theirs * 1000:.1f} ms, ratio {ours / theirs:.1f}x")
    ours = statistics.median(got["binlogkit"].values())
    theirs = statistics.median(got["mariadb-binlog"].values())
    sizes = [os.path.getsize(f) for f in files]
    print(f"small files ({len(files)}, {min(sizes)}-{max(sizes)} bytes, one process each): "
          f"binlogkit {ours * 1000:.1f} ms/file, mariadb-binlog {theirs * 1000:.1f} ms/file, "
          f"ratio {ours / theirs:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
