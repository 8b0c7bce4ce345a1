#!/usr/bin/env python3
"""Row events: binlogkit vs mariadb-binlog (-vv text) and vs python-mysql-replication (values).

    python bench/bench_rows.py bench/work/mariadb-bin.000001 [-n 3] [--skip-print] [--skip-api]

(a) ``binlogkit print -vv --base64-output=decode-rows`` against
    ``mariadb-binlog --no-defaults -vv --base64-output=decode-rows`` on the same
    file, alternating runs, stdout to /dev/null (bench_print.run: wall time,
    CPU time and peak RSS of each child), medians and the ratios.

(b) Row decoding throughput of the Python APIs on the same events.  The file's
    events are read into memory first (framing is not timed).  Then, timed:
    binlogkit decodes every TABLE_MAP and rows event (`decode_event`) and every
    row (`rowvalues.iter_rows`: the C accelerator's walker over the layouts
    compiled per table, or with BINLOGKIT_PURE=1 the Python compiled per
    layout).  python-mysql-replication
    cannot read files, so the same event bytes are replayed through its own
    packet classes, as BinLogStreamReader.fetchone() does after the network
    read: each event wrapped in a pymysql MysqlPacket and handed to
    BinLogPacketWrapper (TABLE_MAP and rows events only, checksums on, table
    maps kept in its table_map dict), and ``event.rows`` read.  So both sides
    time event decoding plus row values, and neither times I/O.  The values
    differ in kind (python-mysql-replication decodes strings to str and
    temporals to datetime; binlogkit keeps bytes and exact tuples), which the
    differential test covers; here only speed is measured.  Rows/s counts rows
    (an UPDATE row is one row of two images).

No assertions: this only measures, and prints ratios measured in the same run.
"""

from __future__ import annotations

import argparse
import gc
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
from binlogkit._accel import speedups  # noqa: E402
from binlogkit.binlog import layout as L  # noqa: E402
from binlogkit.binlog.events import decode_event  # noqa: E402
from binlogkit.binlog.reader import BinlogReader  # noqa: E402
from binlogkit.binlog.rowvalues import iter_rows  # noqa: E402

ROWS_TYPES = L.ROWS_EVENT_TYPES - L.COMPRESSED_ROWS_EVENT_TYPES


# -- (a) -vv text -----------------------------------------------------------------------

def bench_print(path, runs):
    args = ["-vv", "--base64-output=decode-rows"]
    tools = {"binlogkit": binlogkit_command() + ["print", *args, path],
             "mariadb-binlog": [shutil.which("mariadb-binlog") or "/usr/bin/mariadb-binlog",
                                "--no-defaults", *args, path]}
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    walls = {name: [] for name in tools}
    cpu = {name: [] for name in tools}
    for i in range(runs):
        for name, cmd in tools.items():
            wall, rss, rc, used = run(cmd, env)
            walls[name].append(wall)
            cpu[name].append(used)
            print(f"  run {i + 1}/{runs} {name:15s} {wall:7.3f} s wall {used:7.3f} s cpu "
                  f"{rss / 1024:7.1f} MiB rc={rc}", file=sys.stderr)
    print(f"(a) -vv --base64-output=decode-rows on {path}, {runs} alternating runs")
    for name in tools:
        print(f"    {name:15s} median wall {statistics.median(walls[name]):7.3f} s, "
              f"median cpu {statistics.median(cpu[name]):7.3f} s")
    ratio = statistics.median(walls["binlogkit"]) / statistics.median(walls["mariadb-binlog"])
    cpu_ratio = statistics.median(cpu["binlogkit"]) / statistics.median(cpu["mariadb-binlog"])
    print(f"    ratio binlogkit / mariadb-binlog: {ratio:.2f}x wall, {cpu_ratio:.2f}x cpu (target <= 2.0x)")


# -- (b) Python API throughput ---------------------------------------------------------------

def load_events(path, limit):
    """(format description, [RawEvent]) of the TABLE_MAP and plain rows events, in memory."""
    out = []
    with BinlogReader(path) as reader:
        reader.read_magic()
        for raw in reader.events():
            if raw.type_code == L.TABLE_MAP_EVENT or raw.type_code in ROWS_TYPES:
                raw.data = bytes(raw.data)
                out.append(raw)
                if limit and len(out) >= limit:
                    break
        fde = reader.fde
    return fde, out


def decode_binlogkit(fde, events):
    maps, rows = {}, 0
    for raw in events:
        body = decode_event(raw, fde)
        if raw.type_code == L.TABLE_MAP_EVENT:
            maps[body.table_id] = body
        else:
            for _ in iter_rows(maps[body.table_id], body):
                rows += 1
    return rows


class _Control:
    """The ctl_connection python-mysql-replication's events ask for."""
    charset = "utf8mb4"

    def _get_dbms(self):
        return "mariadb"


def pmr_decoder(fde):
    from pymysql.protocol import MysqlPacket
    from pymysqlreplication.packet import BinLogPacketWrapper
    from pymysqlreplication.row_event import (
        DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent,
    )
    allowed = frozenset({TableMapEvent, WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent})
    use_checksum = fde.checksum_alg == L.BINLOG_CHECKSUM_ALG_CRC32
    control = _Control()

    def decode(events):
        table_map, rows = {}, 0
        for raw in events:
            packet = BinLogPacketWrapper(
                MysqlPacket(b"\x00" + raw.data, "utf8"), table_map, control, (10, 11, 0),
                use_checksum, allowed, None, None, None, None, False, True, False, False, False)
            event = packet.event
            if isinstance(event, TableMapEvent):
                table_map[event.table_id] = event.get_table()
            elif event is not None:
                rows += len(event.rows)
        return rows
    return decode


def bench_api(path, runs, limit):
    fde, events = load_events(path, limit)
    try:
        pmr = pmr_decoder(fde)
    except ImportError as exc:
        print(f"(b) python-mysql-replication not importable ({exc}); skipped")
        return
    nrows = {}
    times = {"binlogkit": [], "python-mysql-replication": []}
    decoders = {"binlogkit": lambda: decode_binlogkit(fde, events),
                "python-mysql-replication": lambda: pmr(events)}
    for i in range(runs):
        for name, fn in decoders.items():
            gc.collect()
            t0 = time.process_time()
            nrows[name] = fn()
            elapsed = time.process_time() - t0
            times[name].append(elapsed)
            print(f"  run {i + 1}/{runs} {name:25s} {elapsed:7.3f} s cpu, {nrows[name]} rows",
                  file=sys.stderr)
    nevents = sum(1 for raw in events if raw.type_code in ROWS_TYPES)
    print(f"(b) row decoding, {nevents} rows events and {len(events) - nevents} table maps "
          f"from {path}, {runs} alternating runs (CPU time; binlogkit "
          f"{'with' if speedups is not None else 'without'} its C accelerator)")
    rates = {}
    for name in decoders:
        median = statistics.median(times[name])
        rates[name] = nrows[name] / median
        print(f"    {name:25s} {nrows[name]:8d} rows  median {median:7.3f} s  {rates[name]:12,.0f} rows/s")
    if nrows["binlogkit"] != nrows["python-mysql-replication"]:
        print("    WARNING: the two decoders counted different numbers of rows")
    print(f"    ratio binlogkit / python-mysql-replication: "
          f"{rates['binlogkit'] / rates['python-mysql-replication']:.1f}x rows/s (target >= 20x)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binlog")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--limit", type=int, default=0, help="(b): only the first N table map/rows events")
    ap.add_argument("--skip-print", action="store_true")
    ap.add_argument("--skip-api", action="store_true")
    args = ap.parse_args(argv)
    if not args.skip_print:
        bench_print(args.binlog, args.runs)
    if not args.skip_api:
        bench_api(args.binlog, args.runs, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
