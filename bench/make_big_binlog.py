#!/usr/bin/env python3
"""Build a large (>= 64 MB by default) single-file ROW binlog for benchmarks.

    python bench/make_big_binlog.py [--size-mb 64] [--threads 6] [--out bench/work]

Several pymysql sessions insert and update rows of mixed sizes concurrently
against a throw-away server; the binlog is copied (after clean shutdown) to
bench/work/mariadb-bin.000001 (git-ignored, never committed).
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from binlogkit.lab.server import MariaDBServer  # noqa: E402

SCHEMA = """
CREATE DATABASE bench;
CREATE TABLE bench.small (id BIGINT AUTO_INCREMENT PRIMARY KEY, a INT, b INT, c DATETIME(6), d DECIMAL(12,3)) ENGINE=InnoDB;
CREATE TABLE bench.mixed (id BIGINT AUTO_INCREMENT PRIMARY KEY, k INT, s VARCHAR(255), t TEXT, j JSON, f DOUBLE, e ENUM('x','y','z')) ENGINE=InnoDB;
CREATE TABLE bench.blobs (id BIGINT AUTO_INCREMENT PRIMARY KEY, b MEDIUMBLOB, note VARCHAR(40)) ENGINE=InnoDB;
"""


def worker(srv, n, stop, errors):
    rnd = random.Random(n)
    try:
        c = srv.connect(autocommit=False, database="bench")
        cur = c.cursor()
        while not stop.is_set():
            r = rnd.random()
            if r < 0.4:
                cur.executemany("INSERT INTO small (a, b, c, d) VALUES (%s, %s, NOW(6), %s)",
                                [(rnd.randint(-10**9, 10**9), rnd.randint(0, 100), rnd.random() * 1e6)
                                 for _ in range(rnd.randint(1, 50))])
            elif r < 0.7:
                cur.executemany("INSERT INTO mixed (k, s, t, j, f, e) VALUES (%s, %s, %s, %s, %s, %s)",
                                [(rnd.randint(0, 1000), "s" * rnd.randint(0, 255), "t" * rnd.randint(0, 3000),
                                  '{"n": %d, "v": [1, 2, "three"]}' % rnd.randint(0, 99), rnd.random(),
                                  rnd.choice("xyz")) for _ in range(rnd.randint(1, 10))])
            elif r < 0.75:
                cur.execute("INSERT INTO blobs (b, note) VALUES (%s, %s)",
                            (rnd.randbytes(rnd.randint(1000, 200000)), f"thread {n}"))
            elif r < 0.95:
                cur.execute("UPDATE mixed SET k = k + 1, s = CONCAT(LEFT(s, 200), 'u') WHERE k = %s",
                            (rnd.randint(0, 1000),))
                cur.execute("UPDATE small SET b = b + 1 WHERE id %% 97 = %s LIMIT 50", (rnd.randint(0, 96),))
            else:
                cur.execute("DELETE FROM small WHERE b = %s LIMIT 20", (rnd.randint(0, 100),))
            c.commit()
        c.close()
    except Exception as e:  # reported by the main thread
        errors.append(e)
        stop.set()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=64)
    ap.add_argument("--threads", type=int, default=6)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "work"))
    args = ap.parse_args(argv)
    target = args.size_mb * 1024 * 1024
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    opts = {"log_bin": "mariadb-bin", "server_id": 1, "binlog_format": "ROW",
            "max_binlog_size": 1024 * 1024 * 1024, "innodb_flush_log_at_trx_commit": 0,
            "sync_binlog": 0, "max_allowed_packet": "64M"}
    with MariaDBServer(options=opts, env={"TZ": "UTC"}) as srv:
        srv.sql(SCHEMA)
        stop, errors = threading.Event(), []
        threads = [threading.Thread(target=worker, args=(srv, n, stop, errors)) for n in range(args.threads)]
        for t in threads:
            t.start()
        binlog = srv.binlog_files()[0]
        while not stop.wait(0.5):
            size = binlog.stat().st_size
            print(f"\r{size / 1048576:8.1f} MB", end="", file=sys.stderr, flush=True)
            if size >= target:
                stop.set()
        for t in threads:
            t.join()
        print(file=sys.stderr)
        if errors:
            raise SystemExit(f"worker failed: {errors[0]!r}")
        srv.stop()
        files = srv.binlog_files()
        assert len(files) == 1, files
        dst = out / files[0].name
        shutil.copyfile(files[0], dst)
    print(f"{dst} {dst.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
