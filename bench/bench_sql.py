#!/usr/bin/env python3
"""`binlogkit sql` rows per second against python-mysql-replication (what binlog2sql
builds on), on the same binlog.

    python bench/bench_sql.py [FILE] [-n 3] [--rows 60000]

Without FILE a binlog is made on a throw-away MariaDB (binlog_row_metadata=FULL, so both
tools have the column names): `--rows` rows inserted in batches, all updated, half
deleted, in a mixed-type table; kept in bench/work/ (never committed).

Timed, alternating, medians of `-n` runs:
  (a) `binlogkit sql FILE > /dev/null` and `binlogkit sql --format jsonl`: whole
      processes (start-up, reading, decoding, writing);
  (b) python-mysql-replication in-process on the same events, already in memory (it
      cannot read files: the bytes are replayed through its packet classes as
      bench_rows.py does), each row then formatted as binlog2sql does it (a statement
      template with the values escaped by pymysql: `INSERT INTO ... VALUES (...)`,
      `UPDATE ... SET ... WHERE <all columns> LIMIT 1`, `DELETE ... LIMIT 1`).
(b) leaves out process start-up and I/O, so the ratio favours it.  Wall and CPU time
(the machine may be shared: CPU is the steadier figure).  No assertions.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_print import binlogkit_command, run  # noqa: E402
from bench_rows import _Control, load_events  # noqa: E402
from binlogkit.binlog import layout as L  # noqa: E402

SCHEMA = """
SET GLOBAL binlog_row_metadata = 'FULL';
CREATE DATABASE bench;
CREATE TABLE bench.t (id INT PRIMARY KEY, k INT, s VARCHAR(100), d DECIMAL(12,3),
  f DOUBLE, ts DATETIME(6), note TEXT) ENGINE=InnoDB;
"""


def make_binlog(rows, out_dir):
    from binlogkit.lab.server import MariaDBServer
    out_dir.mkdir(parents=True, exist_ok=True)
    with MariaDBServer(options={"log_bin": "mariadb-bin", "binlog_format": "ROW",
                                "server_id": 1, "binlog_row_metadata": "FULL"},
                       env={"TZ": "UTC"}) as srv:
        srv.sql(SCHEMA)
        srv.sql("FLUSH BINARY LOGS;")
        first = len(srv.binlog_files())
        conn = srv.connect(database="bench", autocommit=True)
        cur = conn.cursor()
        batch = 1000
        for start in range(0, rows, batch):
            cur.executemany(
                "INSERT INTO t VALUES (%s, %s, %s, %s, %s, NOW(6), %s)",
                [(i, i % 97, f"caf\u00e9 {i}", i * 1.25, i / 7, "n" * (i % 50))
                 for i in range(start, min(rows, start + batch))])
        for start in range(0, rows, batch):
            cur.execute("UPDATE t SET k = k + 1, s = CONCAT(s, '!') WHERE id >= %s AND id < %s",
                        (start, start + batch))
        cur.execute("DELETE FROM t WHERE id MOD 2 = 0")
        conn.close()
        srv.sql("FLUSH BINARY LOGS;")
        src = srv.binlog_files()[first - 1]
        dst = out_dir / "sql-bench.binlog"
        shutil.copyfile(src, dst)
    return dst


def pmr_sql(fde, events):
    """python-mysql-replication decoding plus binlog2sql's statement formatting."""
    from pymysql.converters import escape_item
    from pymysql.protocol import MysqlPacket
    from pymysqlreplication.packet import BinLogPacketWrapper
    from pymysqlreplication.row_event import (
        DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent,
    )
    allowed = frozenset({TableMapEvent, WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent})
    use_checksum = fde.checksum_alg == L.BINLOG_CHECKSUM_ALG_CRC32
    control = _Control()

    def esc(value):
        return escape_item(value, "utf8")

    def where(values):
        return " AND ".join(f"`{k}`={esc(v)}" if v is not None else f"`{k}` IS NULL"
                            for k, v in values.items())

    table_map, rows, size = {}, 0, 0
    for raw in events:
        packet = BinLogPacketWrapper(
            MysqlPacket(b"\x00" + raw.data, "utf8"), table_map, control, (10, 11, 0),
            use_checksum, allowed, None, None, None, None, False, True, False, False, False)
        event = packet.event
        if isinstance(event, TableMapEvent):
            table_map[event.table_id] = event.get_table()
            continue
        if event is None:
            continue
        name = f"`{event.schema}`.`{event.table}`"
        for row in event.rows:
            if isinstance(event, WriteRowsEvent):
                values = row["values"]
                sql = (f"INSERT INTO {name}({', '.join(f'`{k}`' for k in values)}) VALUES "
                       f"({', '.join(esc(v) for v in values.values())});")
            elif isinstance(event, UpdateRowsEvent):
                sets = ", ".join(f"`{k}`={esc(v)}" for k, v in row["after_values"].items())
                sql = f"UPDATE {name} SET {sets} WHERE {where(row['before_values'])} LIMIT 1;"
            else:
                sql = f"DELETE FROM {name} WHERE {where(row['values'])} LIMIT 1;"
            size += len(sql)
            rows += 1
    return rows, size


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--rows", type=int, default=60000)
    args = ap.parse_args(argv)
    path = Path(args.file) if args.file else make_binlog(args.rows, HERE / "work")
    fde, events = load_events(str(path), 0)
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    tools = {"binlogkit sql": binlogkit_command() + ["sql", str(path)],
             "binlogkit sql --format jsonl": binlogkit_command() + ["sql", "--format", "jsonl",
                                                                    str(path)]}
    walls = {name: [] for name in [*tools, "python-mysql-replication + SQL"]}
    cpus = {name: [] for name in walls}
    rows = None
    for i in range(args.runs):
        for name, cmd in tools.items():
            wall, rss, rc, used = run(cmd, env)
            walls[name].append(wall)
            cpus[name].append(used)
            print(f"  run {i + 1}/{args.runs} {name:32s} {wall:7.3f} s wall {used:7.3f} s cpu "
                  f"{rss / 1024:7.1f} MiB rc={rc}", file=sys.stderr)
        t0, c0 = time.perf_counter(), time.process_time()
        rows, _size = pmr_sql(fde, events)
        wall, used = time.perf_counter() - t0, time.process_time() - c0
        walls["python-mysql-replication + SQL"].append(wall)
        cpus["python-mysql-replication + SQL"].append(used)
        print(f"  run {i + 1}/{args.runs} {'python-mysql-replication + SQL':32s} {wall:7.3f} s "
              f"wall {used:7.3f} s cpu (in process, events in memory)", file=sys.stderr)
    print(f"{path} ({path.stat().st_size / 2**20:.1f} MiB, {rows} rows), medians of {args.runs}:")
    base = statistics.median(walls["python-mysql-replication + SQL"])
    base_cpu = statistics.median(cpus["python-mysql-replication + SQL"])
    for name, values in walls.items():
        med, cpu = statistics.median(values), statistics.median(cpus[name])
        print(f"    {name:32s} wall {med:7.3f} s {rows / med:8.0f} rows/s ({base / med:.1f}x), "
              f"cpu {cpu:7.3f} s {rows / cpu:8.0f} rows/s ({base_cpu / cpu:.1f}x "
              "python-mysql-replication)")


if __name__ == "__main__":
    main()
