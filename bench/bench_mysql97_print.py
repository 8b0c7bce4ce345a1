#!/usr/bin/env python3
"""Time binlogkit print against the real mysqlbinlog 9.7.4 on the same MySQL 9.7 binlog.

    python bench/bench_mysql97_print.py [--rows 200000] [-n 3]     (as root, with the MySQL root)

Builds (once) bench/work/mysql97-oltp.000001 on a throw-away MySQL 9.7
(binlogkit/lab/mysql_root.py): GTIDs on, small OLTP transactions (insert, update, delete of
a few rows each, a JSON column) until the file holds `--rows` row changes.  Then it runs,
alternating, the root's mysqlbinlog 9.7.4 (under chroot, the file copied into the root) and
binlogkit print on that file, output to /dev/null, TZ=UTC:

  default       no options (BINLOG base64)
  -vv           -vv --base64-output=decode-rows

and prints median wall time, MiB/s, peak RSS and binlogkit's time as a multiple of
mysqlbinlog's.  chroot and env add about 1 ms to each mysqlbinlog run.  No assertions.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
WORK = os.path.join(HERE, "work")
LOG = os.path.join(WORK, "mysql97-oltp.000001")

from binlogkit.lab.mysql_root import (  # noqa: E402
    MySQLServer, _chroot, copy_into_root, mysqlbinlog_version, root_dir,
)

SCHEMA = """CREATE DATABASE shop;
CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, customer INT, status VARCHAR(16),
  total DECIMAL(10,2), note VARCHAR(200), doc JSON, created DATETIME(6));
"""
BATCH = """BEGIN;
INSERT INTO shop.orders (customer, status, total, note, doc, created) VALUES
 (FLOOR(RAND()*1000), 'new', RAND()*500, REPEAT('n', FLOOR(RAND()*80)), '{{"items": [1, 2], "gift": false}}', NOW(6)),
 (FLOOR(RAND()*1000), 'new', RAND()*500, 'x', '{{"items": [3]}}', NOW(6));
UPDATE shop.orders SET status = 'paid', doc = JSON_SET(doc, '$.gift', true) WHERE id = {upd};
DELETE FROM shop.orders WHERE id = {dele};
COMMIT;
"""


def build(rows):
    os.makedirs(WORK, exist_ok=True)
    with MySQLServer(options={"gtid_mode": "ON", "enforce_gtid_consistency": "ON",
                              "max_binlog_size": 1 << 30, "sync_binlog": 0,
                              "innodb_flush_log_at_trx_commit": 0}) as srv:
        srv.sql(SCHEMA)
        done, n = 0, 0
        while done < rows:
            chunk = "".join(BATCH.format(upd=n * 2 + 1, dele=max(1, n * 2 - 40))
                            for n in range(n, n + 500))
            srv.sql(chunk)
            n += 500
            done += 500 * 4
        srv.sql("FLUSH BINARY LOGS")
        shutil.copyfile(srv.binlog_files()[0], LOG)


def run(cmd, env):
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    if status != 0:
        raise SystemExit(f"{cmd[:3]} failed ({status}): {err[-500:]}")
    return wall, ru.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200000)
    ap.add_argument("-n", type=int, default=3)
    args = ap.parse_args()
    if not os.path.exists(LOG):
        build(args.rows)
    inside = copy_into_root([LOG])
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    size = os.path.getsize(LOG) / 2**20
    print(f"{LOG}: {size:.1f} MiB; {mysqlbinlog_version()}")
    script = os.path.join(os.path.dirname(HERE), "scripts", "binlogkit")
    ours = [sys.executable, script, "print"] if os.path.exists(script) else \
        [sys.executable, "-m", "binlogkit", "print"]
    try:
        for name, opts in (("default", []), ("-vv decode-rows", ["-vv", "--base64-output=decode-rows"])):
            times = {"mysqlbinlog": [], "binlogkit": []}
            rss = {}
            for _ in range(args.n):
                for tool, cmd in (("mysqlbinlog", _chroot(root_dir(), "/usr/bin/mysqlbinlog",
                                                           *opts, inside[0])),
                                  ("binlogkit", [*ours, *opts, LOG])):
                    wall, peak = run(cmd, env)
                    times[tool].append(wall)
                    rss[tool] = max(rss.get(tool, 0), peak)
            real, mine = (statistics.median(times[t]) for t in ("mysqlbinlog", "binlogkit"))
            print(f"{name:16s} mysqlbinlog {real:6.2f} s ({size / real:6.1f} MiB/s, "
                  f"{rss['mysqlbinlog']:.0f} MB)   binlogkit {mine:6.2f} s ({size / mine:6.1f} MiB/s, "
                  f"{rss['binlogkit']:.0f} MB)   ratio {mine / real:.2f}x")
    finally:
        shutil.rmtree(root_dir() / os.path.dirname(inside[0]).lstrip("/"), ignore_errors=True)


if __name__ == "__main__":
    main()
