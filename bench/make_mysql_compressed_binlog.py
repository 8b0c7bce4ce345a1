#!/usr/bin/env python3
"""Write a MySQL 8.0 binlog with compressed transactions, and its uncompressed twin.

    python bench/make_mysql_compressed_binlog.py [--mb 32] [--out bench/work]

No MySQL server is available here (only MariaDB), so the binlog is built
event by event with the layouts MySQL 8.0.40 writes (the same ones binlogkit
prints byte-identically on the public 8.0 binlogs): a format description
event (CRC32), Previous-GTIDs, then transactions of Anonymous_GTID +
TRANSACTION_PAYLOAD, whose zstd payload holds BEGIN, Table_map, Write_rows
(10 rows of INT, BIGINT, VARCHAR(100), DOUBLE, DATETIME(6)) and Xid, as a
server with binlog_transaction_compression=ON writes them.  The twin file
has the same transactions with the events written plainly, so tools that
cannot read payload events (mariadb-binlog) can be timed on the same data.
Deterministic (seeded), so every run measures the same bytes.
"""
import argparse
import os
import random
import struct
import zlib

import zstandard

FDE_POST_HEADER = bytes([0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8,
                         8, 2, 0, 0, 0, 10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0])
START = 1700000000
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


class Writer:
    def __init__(self, f):
        self.f = f
        self.pos = 4
        f.write(b"\xfebin")

    def event(self, type_code, body, when, flags=0):
        size = 19 + len(body) + 4
        data = struct.pack("<IBIIIH", when, type_code, 1, size, self.pos + size, flags) + body
        self.f.write(data + struct.pack("<I", zlib.crc32(data)))
        self.pos += size


def inner(type_code, body, when):
    """An event inside a payload: no checksum, log_pos 0 (what the server writes)."""
    return struct.pack("<IBIIIH", when, type_code, 1, 19 + len(body), 0, 0) + body


def query(text, when):
    status = (b"\x00" + struct.pack("<I", 0) + b"\x01" + struct.pack("<Q", 1168113696)
              + b"\x04" + struct.pack("<HHH", 33, 33, 33))
    return struct.pack("<IIBHH", 8, 0, 4, 0, len(status)) + status + b"test\0" + text


TABLE_MAP = (struct.pack("<Q", 108)[:6] + b"\x01\x00" + b"\x04test\x00\x05items\x00"
             + b"\x05" + bytes([3, 8, 15, 5, 18]) + b"\x04" + struct.pack("<H", 300) + b"\x08\x06" + b"\x1c")


def row(rng, n, when):
    name = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))).encode()
    ymd = ((2023 * 13 + 11) << 5) | 14
    hms = ((when // 3600) % 24) << 12 | ((when // 60) % 60) << 6 | when % 60
    dt = (((ymd << 17) | hms) + 0x8000000000).to_bytes(5, "big") + rng.randrange(10 ** 6).to_bytes(3, "big")
    return (b"\x00" + struct.pack("<iq", n, rng.randrange(-2 ** 62, 2 ** 62))
            + struct.pack("<H", len(name)) + name + struct.pack("<d", rng.random() * 1e6) + dt)


def transaction(rng, seq, when):
    rows = b"".join(row(rng, seq * 10 + i, when) for i in range(10))
    write_rows = struct.pack("<Q", 108)[:6] + struct.pack("<HH", 1, 2) + b"\x05\x1f" + rows
    return [(2, query(b"BEGIN", when)), (19, TABLE_MAP), (30, write_rows),
            (16, struct.pack("<Q", 1000 + seq))]


def anonymous_gtid(seq, when, length):
    micros = when * 10 ** 6 + seq % 10 ** 6
    return (struct.pack("<B16sq", 0, bytes(16), 0) + struct.pack("<Bqq", 2, seq, seq + 1)
            + micros.to_bytes(7, "little") + b"\xfc" + struct.pack("<H", length)
            + struct.pack("<I", 80040))


def packed(value):
    """net_store_length."""
    if value < 251:
        return bytes([value])
    if value < 1 << 16:
        return b"\xfc" + struct.pack("<H", value)
    if value < 1 << 24:
        return b"\xfd" + value.to_bytes(3, "little")
    return b"\xfe" + struct.pack("<Q", value)


def tlv(field, value):
    value = packed(value)
    return packed(field) + packed(len(value)) + value


def payload(events, when):
    """Transaction_payload: TLV header (size, ZSTD=0, uncompressed size, end mark), zstd frame."""
    raw = b"".join(inner(t, b, when) for t, b in events)
    comp = zstandard.ZstdCompressor(level=3).compress(raw)
    return tlv(1, len(comp)) + tlv(2, 0) + tlv(3, len(raw)) + b"\x00" + comp


def write_pair(path_compressed, path_plain, target_mb):
    rng_c, rng_p = random.Random(42), random.Random(42)
    with open(path_compressed, "wb") as fc, open(path_plain, "wb") as fp:
        wc, wp = Writer(fc), Writer(fp)
        for w in (wc, wp):
            fde = struct.pack("<H50sIB", 4, b"8.0.40", START, 19) + FDE_POST_HEADER + b"\x01"
            w.event(15, fde, START)
            w.event(35, struct.pack("<Q", 0), START, flags=0x80)
        seq = 0
        while wp.pos < target_mb * 1048576:
            seq += 1
            when = START + seq // 20
            events_c = transaction(rng_c, seq, when)
            events_p = transaction(rng_p, seq, when)
            length = sum(19 + len(b) + 4 for _, b in events_p)
            wc.event(34, anonymous_gtid(seq, when, length), when, flags=0x80)
            wc.event(40, payload(events_c, when), when)
            wp.event(34, anonymous_gtid(seq, when, length), when, flags=0x80)
            for t, b in events_p:
                wp.event(t, b, when)
        for w in (wc, wp):
            w.event(4, struct.pack("<Q", 4) + b"binlog.000002", when)
    return seq


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=32, help="size of the uncompressed twin in MiB")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "work"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    comp = os.path.join(args.out, "mysql80-compressed.000001")
    plain = os.path.join(args.out, "mysql80-plain.000001")
    n = write_pair(comp, plain, args.mb)
    print(f"{comp}: {os.path.getsize(comp) / 1048576:.1f} MiB, {plain}: "
          f"{os.path.getsize(plain) / 1048576:.1f} MiB, {n} transactions")


if __name__ == "__main__":
    main()
