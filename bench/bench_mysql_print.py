#!/usr/bin/env python3
"""Time binlogkit on a MySQL 8.0 binlog with compressed transactions.

    python bench/bench_mysql_print.py [--mb 32] [-n 3]

Uses (and builds, if missing) bench/work/mysql80-compressed.000001 and its
uncompressed twin from make_mysql_compressed_binlog.py.  mysqlbinlog is not
installed here and mariadb-binlog cannot read TRANSACTION_PAYLOAD events, so
the real tool is timed on the uncompressed twin (same transactions, same
arguments) in the same run, alternating with binlogkit:

  decode      the library: every event decoded, payloads decompressed and
              their events decoded (no text), in one process
  print       binlogkit print / mariadb-binlog, default output (BINLOG base64)
  print -vv   with -vv --base64-output=decode-rows

Reports median wall time, MiB/s of the file, peak RSS and the ratios.  No
assertions: this only measures.
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
COMPRESSED = os.path.join(WORK, "mysql80-compressed.000001")
PLAIN = os.path.join(WORK, "mysql80-plain.000001")
DECODE = r"""
import sys
from binlogkit.binlog.reader import BinlogReader
from binlogkit.binlog.events import decode_event
import binlogkit.binlog.mysql_events

n = 0
with BinlogReader(sys.argv[1]) as reader:
    reader.read_magic()
    for raw in reader.events():
        body = decode_event(raw, reader.fde)
        n += 1
        for inner in getattr(body, "events", ()) if raw.type_code == 40 else ():
            decode_event(inner, reader.fde)
            n += 1
print(n)
"""


def run(cmd, env):
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE if cmd[1] == "-c" else subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read().decode().strip() if proc.stdout else ""
    err = proc.stderr.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code:
        sys.stderr.write(f"warning: {' '.join(cmd[:3])} exited {code}: {err[-300:]}\n")
    return wall, ru.ru_maxrss / 1024, code, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=32, help="size of the twin to build if missing")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--mariadb-binlog", default=shutil.which("mariadb-binlog") or "/usr/bin/mariadb-binlog")
    args = ap.parse_args()
    if not (os.path.exists(COMPRESSED) and os.path.exists(PLAIN)):
        subprocess.run([sys.executable, os.path.join(HERE, "make_mysql_compressed_binlog.py"),
                        "--mb", str(args.mb), "--out", WORK], check=True)
    bk = binlogkit_command() + ["print"]     # the console script next to this Python
    vv = ["-vv", "--base64-output=decode-rows"]
    tools = {
        ("decode", "binlogkit compressed"): [sys.executable, "-c", DECODE, COMPRESSED],
        ("decode", "binlogkit plain"): [sys.executable, "-c", DECODE, PLAIN],
        ("print", "binlogkit compressed"): bk + [COMPRESSED],
        ("print", "binlogkit plain"): bk + [PLAIN],
        ("print", "mariadb-binlog plain"): [args.mariadb_binlog, "--no-defaults", PLAIN],
        ("print -vv", "binlogkit compressed"): bk + vv + [COMPRESSED],
        ("print -vv", "binlogkit plain"): bk + vv + [PLAIN],
        ("print -vv", "mariadb-binlog plain"): [args.mariadb_binlog, "--no-defaults", *vv, PLAIN],
    }
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    results = {key: [] for key in tools}
    events = {}
    for i in range(args.runs):
        for key, cmd in tools.items():
            wall, rss, code, out = run(cmd, env)
            results[key].append((wall, rss, code))
            if out:
                events[key[1]] = out
            print(f"run {i + 1}/{args.runs} {key[0]:9s} {key[1]:22s} {wall:8.3f} s {rss:7.1f} MiB rc={code}",
                  file=sys.stderr)
    sizes = {"compressed": os.path.getsize(COMPRESSED) / 1048576, "plain": os.path.getsize(PLAIN) / 1048576}
    print(f"\n{COMPRESSED}: {sizes['compressed']:.1f} MiB; twin {PLAIN}: {sizes['plain']:.1f} MiB; "
          f"events decoded: {events}; runs: {args.runs}")
    print(f"{'mode':9s} {'tool':22s} {'median s':>9s} {'MiB/s':>8s} {'peak RSS MiB':>13s}")
    med = {}
    for key, rs in results.items():
        med[key] = statistics.median(r[0] for r in rs)
        size = sizes["compressed" if "compressed" in key[1] else "plain"]
        print(f"{key[0]:9s} {key[1]:22s} {med[key]:9.3f} {size / med[key]:8.1f} "
              f"{max(r[1] for r in rs):13.1f}")
    for mode in ("print", "print -vv"):
        ref = med[(mode, "mariadb-binlog plain")]
        print(f"{mode}: binlogkit compressed / mariadb-binlog plain = "
              f"{med[(mode, 'binlogkit compressed')] / ref:.2f}x; binlogkit plain / mariadb-binlog plain = "
              f"{med[(mode, 'binlogkit plain')] / ref:.2f}x")
    print(f"decode: compressed / plain = "
          f"{med[('decode', 'binlogkit compressed')] / med[('decode', 'binlogkit plain')]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
