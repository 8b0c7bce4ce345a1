#!/usr/bin/env python3
"""Decode a MySQL 8 binlog made of compressed transactions (TRANSACTION_PAYLOAD).

    python bench/bench_mysql_decode.py [--mb 32] [-n 3] [--print]

No MySQL server is installed here (only MariaDB, which cannot write
TRANSACTION_PAYLOAD), so the input is built from the public peer binlogs
(../shared/peer/mysql-binlogs): the compressed transactions of
rust_mysql_common/transaction_compression.000001 (8.0.32, one-row INSERT)
and mysql-binlog-connector-java/mysql-bin.compressed (UPDATE of 11 columns)
are repeated, alternately, after the first file's Format_description and
Previous_gtids, with end_log_pos and CRC32 rewritten, until the file reaches
--mb megabytes.  It is written to bench/work/ (not committed).

Measured in the same run, best of -n runs each:
  frame      BinlogReader alone (events framed, CRC not verified)
  decode     + decode_event on every event and on every event inside each payload
             (zstd decompression included)
  rows       + rowvalues.iter_rows on every rows event
  zstd       only zstandard-decompressing the same payloads: the floor for `decode`
  print      `binlogkit print -vv --base64-output=decode-rows` (MySQL flavour), if
             the printer handles the file (with --print)
No real tool can be timed alongside: mysqlbinlog is not installed and
mariadb-binlog stops at TRANSACTION_PAYLOAD; ratios are against `zstd`.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from binlogkit.binlog import layout as L  # noqa: E402
from binlogkit.binlog import mysql_events as M  # noqa: E402
from binlogkit.binlog import rows as R  # noqa: E402
from binlogkit.binlog.events import decode_event  # noqa: E402
from binlogkit.binlog.reader import BinlogReader  # noqa: E402
from binlogkit.binlog.rowvalues import iter_rows  # noqa: E402

PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs"
SOURCES = (PEER / "rust_mysql_common" / "transaction_compression.000001",
           PEER / "mysql-binlog-connector-java" / "mysql-bin.compressed")


def read_events(path):
    with BinlogReader(str(path)) as reader:
        reader.read_magic()
        return [bytes(raw.data) for raw in reader.events()]


def with_pos(event, log_pos):
    """The event with end_log_pos set and its CRC32 recomputed."""
    data = bytearray(event)
    L.UINT32.pack_into(data, 13, log_pos)
    body = bytes(data[:-4])
    return body + L.UINT32.pack(zlib.crc32(body))


def build(path, megabytes):
    first = read_events(SOURCES[0])
    head = [e for e in first if e[4] in (L.FORMAT_DESCRIPTION_EVENT, L.PREVIOUS_GTIDS_LOG_EVENT)]
    transactions = []
    for source in SOURCES:
        events = read_events(source)
        gtid = next(e for e in events if e[4] in (L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT))
        payload = next(e for e in events if e[4] == L.TRANSACTION_PAYLOAD_EVENT)
        transactions.append((gtid, payload))
    target = megabytes * 1000 * 1000
    pos = 4
    with open(path, "wb") as out:
        out.write(L.BINLOG_MAGIC)
        for event in head:
            pos += len(event)
            out.write(with_pos(event, pos))
        i = 0
        while pos < target:
            for event in transactions[i % len(transactions)]:
                pos += len(event)
                out.write(with_pos(event, pos))
            i += 1
    return pos


def run_frame(path):
    n = 0
    with BinlogReader(str(path)) as reader:
        reader.read_magic()
        for _ in reader.events():
            n += 1
    return {"events": n}


def run_decode(path, rows=False):
    events = inner = row_count = 0
    payload_bytes = 0
    tables = {}
    with BinlogReader(str(path)) as reader:
        reader.read_magic()
        fde = reader.fde
        for raw in reader.events():
            events += 1
            body = decode_event(raw, reader.fde)
            if not isinstance(body, M.TransactionPayloadBody):
                continue
            payload_bytes += len(body.payload)
            for event in body.events:
                inner += 1
                item = decode_event(event, fde)
                if not rows:
                    continue
                if isinstance(item, R.TableMapBody):
                    tables[item.table_id] = item
                elif isinstance(item, R.RowsBody):
                    for _ in iter_rows(tables[item.table_id], item):
                        row_count += 1
    return {"events": events, "inner": inner, "rows": row_count, "uncompressed": payload_bytes}


def run_zstd(path):
    import zstandard
    blobs = []
    with BinlogReader(str(path)) as reader:
        reader.read_magic()
        for raw in reader.events():
            if raw.type_code == L.TRANSACTION_PAYLOAD_EVENT:
                data = bytes(raw.payload)
                blobs.append(data[data.index(b"\x28\xb5\x2f\xfd"):])
    dctx = zstandard.ZstdDecompressor()
    t0 = time.perf_counter()
    for blob in blobs:
        dctx.decompressobj().decompress(blob)
    return {"payloads": len(blobs)}, time.perf_counter() - t0


def best(fn, runs):
    times, result = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return result, min(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=32, help="size of the generated binlog (MB)")
    ap.add_argument("-n", "--runs", type=int, default=3)
    ap.add_argument("--print", action="store_true", help="also time `binlogkit print -vv`")
    ap.add_argument("--out", default=str(ROOT / "bench" / "work" / "mysql-compressed.000001"))
    args = ap.parse_args(argv)
    if not all(p.is_file() for p in SOURCES):
        sys.exit(f"peer binlogs not found under {PEER}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    size = build(out, args.mb)
    mb = size / 1e6
    print(f"{out}: {mb:.1f} MB")
    frame, t_frame = best(lambda: run_frame(out), args.runs)
    decoded, t_decode = best(lambda: run_decode(out), args.runs)
    with_rows, t_rows = best(lambda: run_decode(out, rows=True), args.runs)
    zstd_times = [run_zstd(out)[1] for _ in range(args.runs)]
    t_zstd = min(zstd_times)
    events = frame["events"]
    inner = decoded["inner"]
    print(f"events {events}, inner events {inner}, rows {with_rows['rows']}, "
          f"uncompressed payload {decoded['uncompressed'] / 1e6:.1f} MB")
    fmt = "{:<8} {:>8.2f} s {:>10.0f} events/s {:>10.0f} all events/s {:>7.1f} MB/s {:>6.1f}x zstd"
    for name, t in (("frame", t_frame), ("decode", t_decode), ("rows", t_rows), ("zstd", t_zstd)):
        print(fmt.format(name, t, events / t, (events + inner) / t, mb / t, t / t_zstd))
    if args.print:
        cmd = [shutil.which("binlogkit") or sys.executable, *([] if shutil.which("binlogkit")
               else ["-m", "binlogkit"]), "print", "-vv", "--base64-output=decode-rows", str(out)]
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env=dict(os.environ, TZ="UTC"))
            times.append(time.perf_counter() - t0)
            if proc.returncode:
                print(f"print: exit {proc.returncode}: {proc.stderr[-300:].decode(errors='replace')}")
                break
        else:
            t = min(times)
            print(fmt.format("print", t, events / t, (events + inner) / t, mb / t, t / t_zstd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
