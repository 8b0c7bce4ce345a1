#!/usr/bin/env python3
"""Binlogs shaped like production, written by real throw-away servers, for the speed benches.

    python bench/make_shapes.py [--flavor mariadb|mysql|both] [--shape oltp,...] [--mb 16] [--out bench/work]

Each shape is one workload run against a fresh server until its binlog holds
--mb MiB (max_binlog_size larger, so one file; the `real` shape has restarts
and more files).  Files land in OUT/<flavor>-<shape>-<mb>.bin (git-ignored,
never committed); an existing file is kept (--force writes it again).

Shapes:
  oltp        small autocommit transactions (one-row INSERT / UPDATE / DELETE),
              GTIDs, with Annotate_rows (MariaDB) / Rows_query (MySQL) events
  oltp-plain  the same without Annotate_rows / Rows_query (MySQL: anonymous GTIDs)
  mixed       multi-row and multi-statement transactions, some statement-format
              statements (binlog_format=MIXED), a few DDL
  bulk        multi-row INSERTs of 500 rows (a few huge rows events per statement)
  wide        one-row transactions on a 120-column table
  json        JSON documents and updates (MySQL: partial JSON updates)
  statement   binlog_format=STATEMENT: each statement's User_var, Rand and Intvar
              events before its Query (user variables, RAND(), AUTO_INCREMENT),
              small transactions and autocommit statements
  compressed  MySQL only: oltp with binlog_transaction_compression=ON (zstd
              Transaction_payload events)
  real        two sessions of mixed work with idle periods (new timestamps, no
              events), a FLUSH LOGS and a server restart: several files; the
              bench prints all of them in one run
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from binlogkit.lab.server import MariaDBServer  # noqa: E402

SHAPES = ("oltp", "oltp-plain", "mixed", "bulk", "wide", "json", "real", "compressed", "statement")

SMALL = ("CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, c CHAR(60), "
         "pad VARCHAR(60), ts DATETIME(6), amount DECIMAL(12,2), KEY (k))")
WIDE = "CREATE TABLE w (id BIGINT AUTO_INCREMENT PRIMARY KEY, " + ", ".join(
    f"c{i} {('INT', 'VARCHAR(20)', 'DOUBLE', 'DATETIME', 'BIGINT', 'CHAR(8)')[i % 6]}" for i in range(120)) + ")"
JSONT = "CREATE TABLE j (id BIGINT AUTO_INCREMENT PRIMARY KEY, doc JSON, note VARCHAR(40))"


def server_options(flavor: str, shape: str) -> dict:
    opts = {"log_bin": "binlog", "server_id": 1, "binlog_format": "ROW",
            "max_binlog_size": 1 << 30, "sync_binlog": 0, "innodb_flush_log_at_trx_commit": 0}
    if shape in ("mixed", "real"):
        opts["binlog_format"] = "MIXED"
    if shape == "statement":
        opts["binlog_format"] = "STATEMENT"
    if flavor == "mariadb":
        opts["binlog_annotate_row_events"] = "OFF" if shape == "oltp-plain" else "ON"
    else:
        if shape != "oltp-plain":
            opts.update({"gtid_mode": "ON", "enforce_gtid_consistency": "ON"})
        opts["binlog_rows_query_log_events"] = "OFF" if shape == "oltp-plain" else "ON"
        if shape == "compressed":
            opts["binlog_transaction_compression"] = "ON"
        if shape == "json":
            opts["binlog_row_value_options"] = "PARTIAL_JSON"
            opts["binlog_row_image"] = "MINIMAL"
    return opts


def make_server(flavor: str, opts: dict):
    if flavor == "mysql":
        from binlogkit.lab.mysql_root import MySQLServer
        return MySQLServer(options=opts)
    return MariaDBServer(options=opts)


def binlog_bytes(srv) -> int:
    return sum(p.stat().st_size for p in srv.binlog_files() if p.exists())


def word(rnd, n):
    return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def oltp_step(cur, rnd, ids):
    r = rnd.random()
    if r < 0.5 or len(ids) < 100:
        cur.execute("INSERT INTO t (k, c, pad, ts, amount) VALUES (%s, %s, %s, NOW(6), %s)",
                    (rnd.randint(1, 10**6), word(rnd, 40), word(rnd, 20), rnd.randint(0, 10**7) / 100))
        ids.append(cur.lastrowid)
    elif r < 0.85:
        cur.execute("UPDATE t SET k = k + 1, amount = %s WHERE id = %s",
                    (rnd.randint(0, 10**7) / 100, rnd.choice(ids)))
    else:
        i = rnd.randrange(len(ids))
        ids[i], ids[-1] = ids[-1], ids[i]
        cur.execute("DELETE FROM t WHERE id = %s", (ids.pop(),))


def mixed_step(conn, cur, rnd, ids, n):
    r = rnd.random()
    if r < 0.4:
        oltp_step(cur, rnd, ids)
    elif r < 0.6:       # a multi-statement transaction
        cur.execute("BEGIN")
        for _ in range(rnd.randint(2, 6)):
            oltp_step(cur, rnd, ids)
        conn.commit()
    elif r < 0.75:      # a multi-row insert
        cur.executemany("INSERT INTO t (k, c, pad, ts, amount) VALUES (%s, %s, %s, NOW(6), %s)",
                        [(rnd.randint(1, 10**6), word(rnd, 30), word(rnd, 10), 1.5)
                         for _ in range(rnd.randint(2, 40))])
    elif r < 0.9:       # a multi-row update
        low = rnd.randint(1, 10**6)
        cur.execute("UPDATE t SET pad = %s WHERE k BETWEEN %s AND %s",
                    (word(rnd, 8), low, low + rnd.randint(0, 2000)))
    elif r < 0.999:     # statement-format under MIXED: deterministic statements
        cur.execute("INSERT INTO s (k, note) VALUES (%s, %s)", (rnd.randint(0, 100), word(rnd, 12)))
    else:               # DDL
        cur.execute(f"CREATE TABLE IF NOT EXISTS tmp{n % 7} (a INT)")
        cur.execute(f"DROP TABLE tmp{n % 7}")


def statement_step(conn, cur, rnd):
    """Statements logged as statements, with the context events they need."""
    r = rnd.random()
    if r < 0.35:        # a user variable (User_var), AUTO_INCREMENT (Intvar)
        cur.execute("SET @k = %s, @note = %s", (rnd.randint(0, 10**6), word(rnd, 12)))
        cur.execute("INSERT INTO s (k, note) VALUES (@k, @note)")
    elif r < 0.55:      # RAND() (Rand)
        cur.execute("UPDATE s SET k = FLOOR(RAND() * 1000) WHERE id = %s", (rnd.randint(1, 5000),))
    elif r < 0.75:      # a small transaction of two statements
        cur.execute("BEGIN")
        cur.execute("SET @d = %s", (rnd.random() * 1000,))
        cur.execute("UPDATE s SET note = CONCAT('d', @d) WHERE id = %s", (rnd.randint(1, 5000),))
        cur.execute("INSERT INTO s (k, note) VALUES (%s, %s)", (rnd.randint(0, 100), word(rnd, 8)))
        conn.commit()
    else:               # plain statements
        cur.execute("INSERT INTO s (k, note) VALUES (%s, %s)", (rnd.randint(0, 100), word(rnd, 12)))


def bulk_step(cur, rnd):
    cur.executemany("INSERT INTO t (k, c, pad, ts, amount) VALUES (%s, %s, %s, NOW(6), %s)",
                    [(rnd.randint(1, 10**6), word(rnd, 50), word(rnd, 40), rnd.random() * 1e6)
                     for _ in range(500)])


def wide_step(cur, rnd):
    vals = []
    for i in range(120):
        kind = i % 6
        vals.append(rnd.randint(-10**9, 10**9) if kind in (0, 4) else word(rnd, rnd.randint(0, 20))
                    if kind == 1 else rnd.random() * 1e9 if kind == 2 else "2024-05-06 07:08:09"
                    if kind == 3 else word(rnd, 8))
    if rnd.random() < 0.7:
        cur.execute("INSERT INTO w (" + ", ".join(f"c{i}" for i in range(120)) + ") VALUES ("
                    + ", ".join(["%s"] * 120) + ")", vals)
    else:
        cur.execute("UPDATE w SET c0 = c0 + 1, c1 = %s WHERE id = %s",
                    (word(rnd, 10), rnd.randint(1, 1000)))


def json_step(cur, rnd, n):
    if n < 2000 or rnd.random() < 0.3:
        doc = ('{"user": %d, "name": "%s", "tags": ["a", "b", "%s"], "score": %f, "nested": '
               '{"x": %d, "y": [1, 2, 3], "ok": true, "none": null}}'
               % (rnd.randint(1, 10**6), word(rnd, 12), word(rnd, 5), rnd.random(), rnd.randint(0, 99)))
        cur.execute("INSERT INTO j (doc, note) VALUES (%s, %s)", (doc, word(rnd, 10)))
    else:
        cur.execute("UPDATE j SET doc = JSON_SET(doc, '$.score', %s, '$.nested.x', %s) WHERE id = %s",
                    (rnd.random(), rnd.randint(0, 99), rnd.randint(1, 2000)))


def schema(cur, shape):
    cur.execute("CREATE DATABASE shop")
    cur.execute("USE shop")
    cur.execute(SMALL)
    cur.execute("CREATE TABLE s (id INT AUTO_INCREMENT PRIMARY KEY, k INT, note VARCHAR(40))")
    if shape == "wide":
        cur.execute(WIDE)
    if shape == "json":
        cur.execute(JSONT)


def run_session(srv, shape, target, seed, stop, idle=False):
    rnd = random.Random(seed)
    conn = srv.connect(autocommit=True, database="shop")
    cur = conn.cursor()
    ids, n = [], 0
    import pymysql
    while not stop.is_set():
        for _ in range(200):
            n += 1
            try:
                if shape in ("oltp", "oltp-plain", "compressed"):
                    oltp_step(cur, rnd, ids)
                elif shape in ("mixed", "real"):
                    mixed_step(conn, cur, rnd, ids, n)
                elif shape == "bulk":
                    bulk_step(cur, rnd)
                elif shape == "statement":
                    statement_step(conn, cur, rnd)
                elif shape == "wide":
                    wide_step(cur, rnd)
                else:
                    json_step(cur, rnd, n)
            except pymysql.err.OperationalError as exc:    # two sessions: a deadlock, a lock wait
                if exc.args[0] not in (1205, 1213):
                    raise
                conn.rollback()
            if shape == "bulk" and binlog_bytes(srv) >= target:
                break
        if idle and rnd.random() < 0.02:
            time.sleep(rnd.uniform(1.0, 2.5))       # an idle period
        if binlog_bytes(srv) >= target:
            stop.set()
    conn.close()


def make(flavor: str, shape: str, mb: int, out: Path, force: bool) -> Path | None:
    if shape == "compressed" and flavor != "mysql":
        return None
    name = f"{flavor}-{shape}-{mb}"
    dest = out / (name + ".bin") if shape != "real" else out / name
    if dest.exists() and not force:
        print(f"{dest}: kept", file=sys.stderr)
        return dest
    target = mb << 20
    t0 = time.monotonic()
    with make_server(flavor, server_options(flavor, shape)) as srv:
        conn = srv.connect(autocommit=True)
        schema(conn.cursor(), shape)
        conn.close()
        if shape != "real":
            run_session(srv, shape, target, 1, threading.Event())
        else:
            for phase in range(3):      # restart and FLUSH LOGS between phases
                stop = threading.Event()
                goal = target * (phase + 1) // 3
                threads = [threading.Thread(target=run_session, args=(srv, shape, goal, 10 * phase + i,
                                                                         stop, True)) for i in range(2)]
                for th in threads:
                    th.start()
                for th in threads:
                    th.join()
                if phase == 0:
                    srv.sql("FLUSH BINARY LOGS")
                elif phase == 1:
                    srv.restart()
        srv.stop()
        files = [p for p in srv.binlog_files() if p.exists()]
        if shape == "real":
            shutil.rmtree(dest, ignore_errors=True)
            dest.mkdir(parents=True)
            for p in files:
                shutil.copyfile(p, dest / p.name)
        else:
            shutil.copyfile(files[0], dest)
    size = sum(p.stat().st_size for p in (dest.iterdir() if dest.is_dir() else [dest]))
    print(f"{dest}: {size / 1048576:.1f} MiB in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return dest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flavor", choices=("mariadb", "mysql", "both"), default="both")
    ap.add_argument("--shape", default=",".join(SHAPES), help="comma-separated: " + ", ".join(SHAPES))
    ap.add_argument("--mb", type=int, default=16)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "work")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    flavors = ("mariadb", "mysql") if args.flavor == "both" else (args.flavor,)
    for shape in args.shape.split(","):
        if shape not in SHAPES:
            ap.error(f"unknown shape {shape}")
        for flavor in flavors:
            make(flavor, shape, args.mb, args.out, args.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
