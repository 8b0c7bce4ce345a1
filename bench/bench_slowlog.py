#!/usr/bin/env python3
"""Benchmark ``binlogkit slowlog digest`` against pt-query-digest on one big log.

    python bench/bench_slowlog.py [--mb 110] [--log /tmp/big-slow.log]

Builds (once) a MariaDB-style slow log of about ``--mb`` MB from the workload
shapes in fixtures/slowlog (varying literals, several classes), then runs both
tools on it in this run and prints seconds, MB/s, peak RSS and the ratio.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
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


def run(cmd):
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}: {proc.stderr.read().decode()[-500:]}")
    return elapsed, ru.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=110)
    ap.add_argument("--log", default="/tmp/binlogkit-bench-slow.log")
    args = ap.parse_args()
    if not os.path.exists(args.log) or os.path.getsize(args.log) < args.mb * 1_000_000:
        build(args.log, args.mb)
    size = os.path.getsize(args.log) / 1e6
    ours = run([sys.executable, "-m", "binlogkit", "slowlog", "digest", args.log,
                "--server-tz", "UTC", "--format", "json", "--limit", "0"])
    print(f"log: {args.log} {size:.1f} MB")
    print(f"binlogkit slowlog digest: {ours[0]:7.2f} s  {size / ours[0]:6.1f} MB/s  peak RSS {ours[1]:6.1f} MB")
    if shutil.which("pt-query-digest") is None:
        print("pt-query-digest not installed: no ratio")
        return
    pt = run(["pt-query-digest", "--no-version-check", "--output", "json", args.log])
    print(f"pt-query-digest:          {pt[0]:7.2f} s  {size / pt[0]:6.1f} MB/s  peak RSS {pt[1]:6.1f} MB")
    print(f"ratio (pt / binlogkit):   {pt[0] / ours[0]:.2f}x")


if __name__ == "__main__":
    main()
