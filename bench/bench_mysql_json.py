#!/usr/bin/env python3
"""Time binlogkit on a JSON-heavy MySQL 8.0 binlog (JSON columns, partial JSON updates).

    python bench/bench_mysql_json.py [--mb 16] [-n 3]

Uses (and builds, if missing) bench/work/mysql80-json.000001 and its twin
mysql80-json-full.000001 from make_mysql_json_binlog.py --twin.  mysqlbinlog
is not installed here, and mariadb-binlog reads neither PARTIAL_UPDATE_ROWS
events (it stops at the first) nor JSON column values (-v stops at them), so:

  C / pure    binlogkit with the C accelerator against BINLOGKIT_PURE=1 (the
              pure-Python reference) on the same file, for the default output,
              -v and -vv --base64-output=decode-rows
  vs real     default output on the twin (full Update_rows instead of partial
              ones): binlogkit against mariadb-binlog, the same bytes for both

Runs alternate between the tools; reports median wall time, MiB/s, peak RSS
and the ratios.  No assertions: this only measures.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

from bench_print import binlogkit_command  # bench/ is on sys.path when run as a script


HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
JSON = os.path.join(WORK, "mysql80-json.000001")
TWIN = os.path.join(WORK, "mysql80-json-full.000001")


def run(cmd, env):
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code:
        sys.stderr.write(f"warning: {' '.join(cmd[:4])} exited {code}: {err[-300:]}\n")
    return wall, ru.ru_maxrss / 1024, code


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=16, help="size of the binlogs to build if missing")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--mariadb-binlog", default=shutil.which("mariadb-binlog") or "/usr/bin/mariadb-binlog")
    args = ap.parse_args()
    if not (os.path.exists(JSON) and os.path.exists(TWIN)):
        subprocess.run([sys.executable, os.path.join(HERE, "make_mysql_json_binlog.py"),
                        "--mb", str(args.mb), "--out", WORK, "--twin"], check=True)
    bk = binlogkit_command() + ["print"]     # the console script next to this Python
    modes = {"default": [], "-v": ["-v"], "-vv decode": ["-vv", "--base64-output=decode-rows"]}
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    env.pop("BINLOGKIT_PURE", None)
    pure = dict(env, BINLOGKIT_PURE="1")
    tools = {}
    for mode, opts in modes.items():
        tools[(mode, "binlogkit C")] = (bk + opts + [JSON], env)
        tools[(mode, "binlogkit pure")] = (bk + opts + [JSON], pure)
    tools[("default", "binlogkit C twin")] = (bk + [TWIN], env)
    tools[("default", "mariadb-binlog twin")] = ([args.mariadb_binlog, "--no-defaults", TWIN], env)
    results = {key: [] for key in tools}
    for i in range(args.runs):
        for key, (cmd, tool_env) in tools.items():
            wall, rss, code = run(cmd, tool_env)
            results[key].append((wall, rss, code))
            print(f"run {i + 1}/{args.runs} {key[0]:10s} {key[1]:20s} {wall:8.3f} s {rss:7.1f} MiB rc={code}",
                  file=sys.stderr)
    sizes = {JSON: os.path.getsize(JSON) / 1048576, TWIN: os.path.getsize(TWIN) / 1048576}
    print(f"\n{JSON}: {sizes[JSON]:.1f} MiB; twin {TWIN}: {sizes[TWIN]:.1f} MiB; runs: {args.runs}")
    print(f"{'mode':10s} {'tool':20s} {'median s':>9s} {'MiB/s':>8s} {'peak RSS MiB':>13s}")
    med = {}
    for key, rs in results.items():
        med[key] = statistics.median(r[0] for r in rs)
        size = sizes[TWIN if "twin" in key[1] else JSON]
        print(f"{key[0]:10s} {key[1]:20s} {med[key]:9.3f} {size / med[key]:8.1f} "
              f"{max(r[1] for r in rs):13.1f}")
    for mode in modes:
        print(f"{mode}: binlogkit C / pure = {med[(mode, 'binlogkit C')] / med[(mode, 'binlogkit pure')]:.2f}x")
    print(f"default, twin: binlogkit C / mariadb-binlog = "
          f"{med[('default', 'binlogkit C twin')] / med[('default', 'mariadb-binlog twin')]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
