#!/usr/bin/env python3
"""Benchmark ``binlogkit slowlog digest`` against pt-query-digest on one big log.

    python bench/bench_slowlog.py [--mb 110] [--log /tmp/binlogkit-bench-slow.log] [-n 3]
                                  [--jobs 2] [--format json]

Builds (once) a MariaDB-style slow log of about ``--mb`` MB from the workload
shapes in fixtures/slowlog (varying literals, several classes), then runs both
tools on it alternately ``-n`` times (stdout to a temp file) and prints for
each tool the median and minimum wall time, CPU time (user+sys, the child
process of binlogkit included), MB/s and peak RSS, and the ratio of the
medians measured in this run.  Peak RSS is wait4's ru_maxrss (the largest
single process); "tree" is the largest sum of the RSS of the tool's processes,
sampled from /proc every 20 ms (binlogkit runs two processes on a big file).

Both reports must agree: every class has the same ID, count and Query_time
sum (pt prints it with 6 decimals), or the run fails; with ``--format pt-json``
binlogkit's whole JSON must equal pt's (parsed; file names aside).  No other
assertions: this only measures.

Start-up is that of an installed package: the package's bytecode is compiled
first (``compileall``; pip does the same at install time), else an environment
with PYTHONDONTWRITEBYTECODE=1 would compile every module on every run
(``--no-compile`` to measure that).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TEMPLATES = [
    "SELECT name, price FROM items WHERE id = {n};",
    "SELECT * FROM items WHERE cat IN ({l}) ORDER BY price ASC LIMIT {m}, 10;",
    "UPDATE items SET price = price + 0.01 WHERE id = {n};",
    "INSERT INTO orders_2024 (item, qty, note, created) VALUES ({n}, {m}, 'note {f}', NOW());",
    "SELECT o.id, i.name\n  FROM orders_2024 o\n  JOIN items i ON i.id = o.item\n WHERE o.qty > {m}\n ORDER BY o.id DESC LIMIT 5;",
    "DELETE FROM orders_2024 WHERE id = {n};",
    "SELECT cat, COUNT(*), SUM(price) FROM items GROUP BY cat HAVING COUNT(*) > {m};",
    "COMMIT;",
]


def build(path, mb):
    rnd = random.Random(42)
    target = mb * 1_000_000
    t0 = 1_700_000_000
    with open(path, "w") as out:
        out.write("/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian 12). started with:\n"
                  "Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock\nTime\t\t    Id Command\tArgument\n")
        i = 0
        last = None
        while out.tell() < target:
            sec = t0 + i // 40
            if sec != last:
                lt = time.gmtime(sec)
                out.write(time.strftime("# Time: %y%m%d %k:%M:%S\n", lt))
                last = sec
            q = rnd.choice(TEMPLATES).format(
                n=rnd.randint(1, 10**6), m=rnd.randint(1, 9), f=rnd.random(),
                l=", ".join(str(rnd.randint(1, 99)) for _ in range(rnd.randint(1, 8))))
            out.write(f"# User@Host: app[app] @ web{i % 7} [10.0.0.{i % 7}]\n"
                      f"# Thread_id: {i % 64}  Schema: shop  QC_hit: No\n"
                      f"# Query_time: {rnd.random() / 50:.6f}  Lock_time: {rnd.random() / 1e4:.6f}"
                      f"  Rows_sent: {rnd.randint(0, 20)}  Rows_examined: {rnd.randint(0, 999)}\n"
                      f"# Rows_affected: {rnd.randint(0, 1)}  Bytes_sent: {rnd.randint(11, 999)}\n"
                      f"SET timestamp={sec};\n{q}\n")
            i += 1


def _tree_rss_kib(pid):
    """RSS of pid and its descendants (KiB), from /proc."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo += [int(c) for c in f.read().split()]
        except (OSError, ValueError):
            pass
    return total


def run(cmd, out_path):
    """(wall s, cpu s, peak RSS MiB, tree RSS MiB) of one run; stdout to out_path."""
    with open(out_path, "wb") as out:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        tree = [0]
        done = threading.Event()

        def sample():
            while not done.wait(0.02):
                tree[0] = max(tree[0], _tree_rss_kib(proc.pid))
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, ru = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t
        done.set()
        sampler.join()
    err = proc.stderr.read()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}: {err.decode(errors='replace')[-500:]}")
    return elapsed, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, tree[0] / 1024.0


def classes_of(path, tool):
    text = open(path, "rb").read()
    d = json.loads(text) if text.strip() else {"classes": []}
    if tool == "pt" or tool == "pt-json":
        return {c["checksum"]: (c["query_count"], c["metrics"]["Query_time"]["sum"])
                for c in d["classes"]}
    return {c["id"]: (c["count"], "%.6f" % c["query_time"]["sum"]) for c in d["classes"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=110)
    ap.add_argument("--log", default="/tmp/binlogkit-bench-slow.log")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2, help="binlogkit --jobs")
    ap.add_argument("--format", default="json", choices=["json", "text", "pt-json"],
                    help="binlogkit's report format (json, pt-json are checked against pt's)")
    ap.add_argument("--no-compile", dest="compile", action="store_false",
                    help="do not compile binlogkit's bytecode first")
    args = ap.parse_args()
    if not os.path.exists(args.log) or os.path.getsize(args.log) < args.mb * 1_000_000:
        build(args.log, args.mb)
    size = os.path.getsize(args.log) / 1e6
    if args.compile:
        import binlogkit
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.dirname(binlogkit.__file__)],
                       check=True, stdout=subprocess.DEVNULL)
    tools = {"binlogkit": [sys.executable, "-m", "binlogkit", "slowlog", "digest", args.log,
                           "--server-tz", "UTC", "--format", args.format, "--limit", "0",
                           "--jobs", str(args.jobs)]}
    if shutil.which("pt-query-digest"):
        tools["pt-query-digest"] = ["pt-query-digest", "--no-version-check", "--output", "json",
                                    "--limit", "100%:1000000", args.log]
    else:
        print("pt-query-digest not installed: no ratio")
    results = {name: [] for name in tools}
    with tempfile.TemporaryDirectory() as tmp:
        outs = {name: os.path.join(tmp, name + ".out") for name in tools}
        for i in range(args.runs):
            for name, cmd in tools.items():
                got = run(cmd, outs[name])
                results[name].append(got)
                print(f"run {i + 1}/{args.runs} {name:16s} wall {got[0]:7.2f} s  cpu {got[1]:7.2f} s"
                      f"  peak RSS {got[2]:6.1f} MiB  tree {got[3]:6.1f} MiB", file=sys.stderr)
        if "pt-query-digest" in tools and args.format in ("json", "pt-json"):
            ours = classes_of(outs["binlogkit"], "pt-json" if args.format == "pt-json" else "ours")
            pts = classes_of(outs["pt-query-digest"], "pt")
            if ours != pts:
                sys.exit(f"reports differ: {len(ours)} vs {len(pts)} classes")
            print(f"reports agree: {len(ours)} classes, same IDs, counts and Query_time sums")
        if "pt-query-digest" in tools and args.format == "pt-json":
            docs = [json.load(open(outs[n])) for n in ("binlogkit", "pt-query-digest")]
            for d in docs:
                for f in d["global"]["files"]:
                    f["name"] = os.path.basename(f["name"])
                d["classes"].sort(key=lambda c: c["checksum"])
            if docs[0] != docs[1]:
                sys.exit("pt-json differs from pt-query-digest --output json")
            print("pt-json equals pt-query-digest --output json (every key and value)")
    print(f"log: {args.log} {size:.1f} MB, {args.runs} alternating runs, binlogkit --jobs {args.jobs}"
          f"{'' if args.compile else ', bytecode not compiled first'}")
    print(f"{'tool':16s} {'median s':>9s} {'min s':>7s} {'cpu s':>7s} {'MB/s':>7s} "
          f"{'peak RSS MiB':>13s} {'tree MiB':>9s}")
    med = {}
    for name, rs in results.items():
        walls = [r[0] for r in rs]
        med[name] = statistics.median(walls)
        print(f"{name:16s} {med[name]:9.2f} {min(walls):7.2f} {statistics.median(r[1] for r in rs):7.2f}"
              f" {size / med[name]:7.1f} {max(r[2] for r in rs):13.1f} {max(r[3] for r in rs):9.1f}")
    if "pt-query-digest" in med:
        per_run = [p[0] / b[0] for b, p in zip(results["binlogkit"], results["pt-query-digest"])]
        print(f"ratio pt-query-digest / binlogkit (median wall): {med['pt-query-digest'] / med['binlogkit']:.1f}x"
              f"  (per run: {', '.join(f'{r:.1f}x' for r in per_run)})")
        cpu = [statistics.median(r[1] for r in results[n]) for n in ("pt-query-digest", "binlogkit")]
        print(f"ratio of CPU time: {cpu[0] / cpu[1]:.1f}x")


if __name__ == "__main__":
    main()
