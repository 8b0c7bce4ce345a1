#!/usr/bin/env python3
"""`binlogkit print -R` and `-R --raw` against `mariadb-binlog -R` on one server.

    python bench/bench_remote.py [--mb 32] [-n 3] [--tcp] [--mysql]

With --mysql the server is the throw-away MySQL 9.7 of binlogkit/lab/mysql_root.py
and the other tool is its `mysqlbinlog` 9.7.4 (run in the root under chroot).

Starts a throw-away MariaDB (temp datadir; unix socket, or 127.0.0.1 with
--tcp), writes about MB megabytes of row events (a few hundred thousand rows of
mixed types, binlogs rotated at 16 MB), then runs each pair of commands
alternately N times and prints, per mode, the medians of wall time, CPU time
(user + system of the client process) per MB read, peak RSS, and the ratio
binlogkit / mariadb-binlog.  Modes: text (default output), text -vv
decode-rows, raw copy of every log (--raw --to-last-log).  No assertions: this
only measures.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_print import binlogkit_command, run  # noqa: E402
from binlogkit.lab.server import MariaDBServer, find_binary  # noqa: E402


def fill(srv, megabytes):
    srv.sql("CREATE DATABASE b; CREATE TABLE b.t (id INT PRIMARY KEY, v VARCHAR(64), "
            "d DECIMAL(12,2), ts DATETIME(6), j JSON, f DOUBLE);")
    step = 20000
    start = 0
    while sum(p.stat().st_size for p in srv.binlog_files()) < megabytes << 20:
        srv.sql(f"USE b; INSERT INTO b.t SELECT seq, REPEAT(CHAR(65 + seq % 26), seq % 64), seq / 7, "
                f"'2024-01-01 00:00:00' + INTERVAL seq SECOND, JSON_OBJECT('k', seq), seq / 3 "
                f"FROM seq_{start + 1}_to_{start + step};"
                f"UPDATE b.t SET v = 'u' WHERE id > {start} AND id <= {start + step // 4};")
        start += step
    srv.sql("FLUSH BINARY LOGS;")


def fill_mysql(srv, megabytes):
    """The same rows on MySQL (a recursive CTE instead of MariaDB's seq tables)."""
    srv.sql("CREATE DATABASE b; CREATE TABLE b.t (id INT PRIMARY KEY, v VARCHAR(64), "
            "d DECIMAL(12,2), ts DATETIME(6), j JSON, f DOUBLE);")
    step = 20000
    start = 0
    while sum(p.stat().st_size for p in srv.binlog_files()) < megabytes << 20:
        srv.sql(f"SET SESSION cte_max_recursion_depth = {step + 1}; "
                f"INSERT INTO b.t WITH RECURSIVE s (seq) AS (SELECT {start + 1} UNION ALL "
                f"SELECT seq + 1 FROM s WHERE seq < {start + step}) "
                f"SELECT seq, REPEAT(CHAR(65 + seq % 26), seq % 64), seq / 7, "
                f"'2024-01-01 00:00:00' + INTERVAL seq SECOND, JSON_OBJECT('k', seq), seq / 3 FROM s;"
                f"UPDATE b.t SET v = 'u' WHERE id > {start} AND id <= {start + step // 4};")
        start += step
    srv.sql("FLUSH BINARY LOGS;")


def main_mysql(args) -> int:
    from binlogkit.lab.mysql_root import MySQLServer, root_available, root_dir
    if not root_available():
        sys.exit("no MySQL 9.7 root (python3 -m binlogkit.lab.mysql_root build, as root)")
    ours = binlogkit_command() + ["print"]
    real = ["chroot", str(root_dir()), "/usr/bin/env", "TZ=UTC", "TMPDIR=/tmp", "/usr/bin/mysqlbinlog",
            "--no-defaults"]
    opts = {"binlog_format": "ROW", "max_binlog_size": 16 << 20}
    with MySQLServer(options=opts, env={"TZ": "UTC"}, port=0 if args.tcp else None) as srv:
        fill_mysql(srv, args.mb)
        names = [p.name for p in srv.binlog_files()]
        total_mb = sum(p.stat().st_size for p in srv.binlog_files()) / (1 << 20)
        if args.tcp:
            conn = mine = ["--host=127.0.0.1", f"--port={srv.port}", "--protocol=TCP", "-u", "root"]
        else:
            conn, mine = (["--socket", srv.r(srv.socket), "-u", "root"],
                          ["--socket", str(srv.socket), "-u", "root"])
        print(f"MySQL {srv.sql('SELECT VERSION()').strip()}: {len(names)} logs, {total_mb:.1f} MiB, "
              f"over {'TCP' if args.tcp else 'the socket'}; {args.runs} alternating runs each; medians")
        env = dict(os.environ, TZ="UTC")
        work = Path(tempfile.mkdtemp(prefix="binlogkit-bench-remote-", dir=srv.basedir))
        try:
            for mode, extra in (("text", []), ("text -vv decode-rows",
                                               ["-vv", "--base64-output=decode-rows"])):
                report(mode, real + ["-R", "-t", *extra, *conn, names[0]],
                       ours + ["-R", "-t", *extra, *mine, names[0]], env, args.runs, total_mb,
                       "mysqlbinlog")
            report("raw copy", real + ["-R", "--raw", "-t", f"--result-file={srv.r(work)}/", *conn,
                                       names[0]],
                   ours + ["-R", "--raw", "-t", f"--result-file={work}/", *mine, names[0]], env,
                   args.runs, total_mb, "mysqlbinlog")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=32)
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--tcp", action="store_true", help="connect over 127.0.0.1 (default: socket)")
    ap.add_argument("--mysql", action="store_true",
                    help="a MySQL 9.7 server and its mysqlbinlog 9.7.4 (the lab root)")
    args = ap.parse_args(argv)
    if args.mysql:
        return main_mysql(args)
    real = find_binary("mariadb-binlog", "mysqlbinlog")
    if real is None:
        sys.exit("mariadb-binlog is not installed")
    ours = binlogkit_command() + ["print"]
    opts = {"log_bin": "mariadb-bin", "server_id": 1, "binlog_format": "ROW",
            "max_binlog_size": 16 << 20}
    with MariaDBServer(options=opts, env={"TZ": "UTC"}, port=0 if args.tcp else None) as srv:
        fill(srv, args.mb)
        names = [p.name for p in srv.binlog_files()]
        total_mb = sum(p.stat().st_size for p in srv.binlog_files()) / (1 << 20)
        conn = (["--host=127.0.0.1", f"--port={srv.port}", "--protocol=TCP", "-u", "root"]
                if args.tcp else ["--socket", str(srv.socket), "-u", "root"])
        print(f"{len(names)} logs, {total_mb:.1f} MiB, over {'TCP' if args.tcp else 'the socket'}; "
              f"{args.runs} alternating runs each; medians")
        env = dict(os.environ, TZ="UTC")
        work = Path(tempfile.mkdtemp(prefix="binlogkit-bench-remote-"))
        try:
            modes = {
                "text": ["-R", "-t", *conn, names[0]],
                "text -vv decode-rows": ["-R", "-t", "-vv", "--base64-output=decode-rows", *conn,
                                         names[0]],
                "raw copy": ["-R", "--raw", "-t", f"--result-file={work}/", *conn, names[0]],
            }
            for mode, mode_args in modes.items():
                report(mode, [real, "--no-defaults"] + mode_args, ours + mode_args, env,
                       args.runs, total_mb)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def report(mode, real_cmd, our_cmd, env, runs, total_mb, real_name="mariadb-binlog"):
    results = {real_name: [], "binlogkit": []}
    for _ in range(runs):
        for name, cmd in ((real_name, real_cmd), ("binlogkit", our_cmd)):
            wall, rss, code, cpu = run(cmd, env)
            results[name].append((wall, cpu, rss))
    med = {name: [statistics.median(r[i] for r in rows) for i in range(3)]
           for name, rows in results.items()}
    for name, (wall, cpu, rss) in med.items():
        print(f"{mode:22} {name:15} wall {wall:6.3f} s  CPU {cpu / total_mb * 1000:6.1f} ms/MiB  "
              f"peak RSS {rss / 1024:6.1f} MiB")
    ratio_wall = med["binlogkit"][0] / med[real_name][0]
    ratio_cpu = med["binlogkit"][1] / max(med[real_name][1], 1e-9)
    print(f"{mode:22} ratio binlogkit/{real_name}: wall {ratio_wall:.2f}x, CPU {ratio_cpu:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
