#!/usr/bin/env python3
"""Write a JSON-heavy MySQL 8.0 binlog (JSON columns, partial JSON updates).

    python bench/make_mysql_json_binlog.py [--mb 16] [--out bench/work] [--twin]

Built event by event like make_mysql_compressed_binlog.py (whose writer,
format description and GTID events it uses): transactions of Anonymous_GTID,
BEGIN, Table_map of `test`.`docs` (id INT, doc JSON, note VARCHAR(100)), a
rows event and Xid.  The rows events go round: Write_rows of 5 documents,
Update_rows (full images) and PARTIAL_UPDATE_ROWS_EVENT whose after images
hold JSON diffs (JSON_REPLACE, JSON_INSERT, JSON_ARRAY_INSERT, JSON_REMOVE),
as a server with binlog_row_value_options=PARTIAL_JSON writes them.  The
documents are nested objects and arrays of every scalar kind (ints of each
width, doubles of many magnitudes, strings with escapes and non-ASCII,
literals, opaque DECIMAL and DATETIME values), in the binary format of
sql-common/json_binary.cc, keys sorted as the server sorts them.
Deterministic (seeded): every run writes the same bytes.  With --twin, also
a twin without PARTIAL_UPDATE_ROWS events (full Update_rows in their place)
that mariadb-binlog can read (bench/bench_mysql_json.py).
"""
import argparse
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_mysql_compressed_binlog import (  # noqa: E402
    FDE_POST_HEADER, START, Writer, anonymous_gtid, query,
)

WORDS = ("alpha", "bravo", "charlie", "delta", "écho", "fox\"trot", "golf\\", "hôtel", "in\ndia",
         "juliet's", "日本")
TABLE_ID = 109
# id INT, doc JSON (4 length bytes), note VARCHAR(100) (utf8mb4: 400 bytes)
TABLE_MAP = (struct.pack("<Q", TABLE_ID)[:6] + b"\x01\x00" + b"\x04test\x00\x04docs\x00"
             + b"\x03" + bytes([3, 245, 15]) + b"\x03" + b"\x04" + struct.pack("<H", 400) + b"\x06")
PARTIAL_UPDATE_ROWS_EVENT = 39
JSON_DIFF_REPLACE, JSON_DIFF_INSERT, JSON_DIFF_REMOVE = 0, 1, 2


# -- the binary JSON format (json_binary.cc serialize_*) ------------------------------------

def var_len(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n >> 7 else 0))
        n >>= 7
        if not n:
            return bytes(out)


class Opaque:
    def __init__(self, field_type, data):
        self.field_type, self.data = field_type, data


def scalar(value):
    """(type byte, bytes) of a scalar; ints take the smallest type, as the server does."""
    if value is None or value is True or value is False:
        return 0x04, bytes([{None: 0, True: 1, False: 2}[value]])
    if isinstance(value, int):
        for jtype, fmt, lo, hi in ((0x05, "<h", -1 << 15, 1 << 15), (0x07, "<i", -1 << 31, 1 << 31),
                                   (0x09, "<q", -1 << 63, 1 << 63), (0x0A, "<Q", 0, 1 << 64)):
            if lo <= value < hi:
                return jtype, struct.pack(fmt, value)
    if isinstance(value, float):
        return 0x0B, struct.pack("<d", value)
    if isinstance(value, str):
        raw = value.encode()
        return 0x0C, var_len(len(raw)) + raw
    if isinstance(value, Opaque):
        return 0x0F, bytes([value.field_type]) + var_len(len(value.data)) + value.data
    raise TypeError(value)


def _container(value, large):
    osize = 4 if large else 2
    off = struct.Struct("<I" if large else "<H").pack
    is_object = isinstance(value, dict)
    items = list(value.items()) if is_object else [(None, v) for v in value]
    if is_object:
        items.sort(key=lambda kv: (len(kv[0].encode()), kv[0].encode()))
    count = len(items)
    header = 2 * osize + (count * (osize + 2) if is_object else 0) + count * (1 + osize)
    keys = b"".join(k.encode() for k, _ in items) if is_object else b""
    key_entries, pos = b"", header
    for k, _ in items if is_object else ():
        key_entries += off(pos) + struct.pack("<H", len(k.encode()))
        pos += len(k.encode())
    value_entries, values = b"", b""
    for _, v in items:
        if isinstance(v, (dict, list)):
            jtype, inner = _type_of(v, large), _container(v, large)
        else:
            jtype, inner = scalar(v)
            if jtype in (0x04, 0x05, 0x06) or (large and jtype in (0x07, 0x08)):
                value_entries += bytes([jtype]) + inner.ljust(osize, b"\0")
                continue
        value_entries += bytes([jtype]) + off(pos + len(values))
        values += inner
    return off(count) + off(header + len(keys) + len(values)) + key_entries + value_entries + keys + values


def _type_of(value, large):
    return (0x01 if large else 0x00) if isinstance(value, dict) else (0x03 if large else 0x02)


def encode(value, large=None):
    """A document; containers are large when the small form would not fit."""
    if isinstance(value, (dict, list)):
        if large is None:
            try:
                body, large = _container(value, False), False
            except struct.error:            # an offset past 64 KiB: the large form
                body, large = _container(value, True), True
        else:
            body = _container(value, large)
        return bytes([_type_of(value, large)]) + body
    jtype, data = scalar(value)
    return bytes([jtype]) + data


def diff(op, path, value=None):
    """One Json_diff as write_binary stores it: operation, path, [value]."""
    out = bytes([op]) + var_len_packed(len(path)) + path
    if op != JSON_DIFF_REMOVE:
        raw = encode(value)
        out += var_len_packed(len(raw)) + raw
    return out


def var_len_packed(n):
    """net_store_length"""
    if n < 251:
        return bytes([n])
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    return b"\xfd" + n.to_bytes(3, "little")


# -- documents and rows ----------------------------------------------------------------------

def decimal_opaque(rng):
    """Json_decimal binary: DECIMAL(10,2) 0.00 .. 99999999.99, either sign."""
    units, cents = rng.randrange(10 ** 8), rng.randrange(100)
    raw = bytearray(struct.pack(">I", units) + bytes([cents]))
    raw[0] ^= 0x80
    if rng.random() < 0.3:
        raw = bytearray(b ^ 0xFF for b in raw)
    return Opaque(246, bytes([10, 2]) + bytes(raw))


def datetime_opaque(rng, when):
    y, mo, d = 2020 + rng.randrange(6), 1 + rng.randrange(12), 1 + rng.randrange(28)
    ymd = ((y * 13 + mo) << 5) | d
    hms = ((when // 3600) % 24) << 12 | ((when // 60) % 60) << 6 | when % 60
    return Opaque(12, struct.pack("<q", (((ymd << 17) | hms) << 24) + rng.randrange(10 ** 6)))


def document(rng, n, when):
    words = lambda k: " ".join(rng.choice(WORDS) for _ in range(k))  # noqa: E731
    doc = {
        "id": n, "name": words(rng.randint(1, 4)), "active": rng.random() < 0.5,
        "price": round(rng.random() * 10 ** rng.randint(-3, 7), rng.randint(0, 4)),
        "ratio": rng.random() * 10 ** rng.randint(-30, 30), "stock": rng.randrange(-2 ** 40, 2 ** 40),
        "tags": [words(1) for _ in range(rng.randint(0, 5))],
        "dims": {"w": rng.randrange(1000), "h": rng.randrange(70000), "unit": "cm"},
        "history": [{"at": when - i, "qty": rng.randrange(-500, 500), "ok": None if i % 3 else True}
                    for i in range(rng.randint(0, 4))],
        "amount": decimal_opaque(rng), "seen": datetime_opaque(rng, when),
    }
    if rng.random() < 0.02:     # now and then a large document (4-byte offsets)
        doc["blob"] = [words(3) for _ in range(5000)]
    return doc


def image(n, doc_bytes, note, nulls=0):
    note = note.encode()
    return (bytes([nulls]) + struct.pack("<i", n) + struct.pack("<I", len(doc_bytes)) + doc_bytes
            + struct.pack("<H", len(note)) + note)


def partial_after(n, diffs, note):
    """value_options PARTIAL_JSON_UPDATES, the partial bits (the one JSON column), image."""
    note = note.encode()
    return (b"\x01" + b"\x01" + b"\x00" + struct.pack("<i", n) + struct.pack("<I", len(diffs)) + diffs
            + struct.pack("<H", len(note)) + note)


def some_diffs(rng, doc):
    out = [diff(JSON_DIFF_REPLACE, b"$.price", round(rng.random() * 1000, 2)),
           diff(JSON_DIFF_REPLACE, b"$.name", rng.choice(WORDS))]
    if rng.random() < 0.7:
        out.append(diff(JSON_DIFF_INSERT, b"$.extra", {"by": rng.choice(WORDS), "n": [1, 2.5, None]}))
    if doc["tags"] and rng.random() < 0.7:
        out.append(diff(JSON_DIFF_INSERT, b"$.tags[0]", rng.choice(WORDS)))
    if rng.random() < 0.5:
        out.append(diff(JSON_DIFF_REMOVE, b"$.dims.unit"))
    out.append(diff(JSON_DIFF_REPLACE, b"$.stock", rng.randrange(2 ** 31)))
    return b"".join(out)


def rows_event(type_code, flags, body, cols_ai=False):
    head = struct.pack("<Q", TABLE_ID)[:6] + struct.pack("<HH", flags, 2) + b"\x03\x07"
    return head + (b"\x07" if cols_ai else b"") + body


def transaction(rng, seq, when, state, partial=True):
    kind = seq % 3
    if kind == 0 or not state:
        rows = b""
        for i in range(5):
            n = seq * 10 + i
            state[n] = document(rng, n, when)
            rows += image(n, encode(state[n]), rng.choice(WORDS))
        event = (30, rows_event(30, 1, rows))
    else:
        n = rng.choice(sorted(state)[-50:])
        old = encode(state[n])
        if kind == 1:
            state[n] = dict(state[n], price=rng.random() * 100, name=rng.choice(WORDS))
            body = image(n, old, "before") + image(n, encode(state[n]), "after")
            event = (31, rows_event(31, 1, body, cols_ai=True))
        else:
            diffs = some_diffs(rng, state[n])
            if partial:
                body = image(n, old, "before") + partial_after(n, diffs, "after")
                event = (PARTIAL_UPDATE_ROWS_EVENT, rows_event(PARTIAL_UPDATE_ROWS_EVENT, 1, body,
                                                               cols_ai=True))
            else:           # the twin: a full Update_rows instead, for tools without type 39
                body = image(n, old, "before") + image(n, old, "after")
                event = (31, rows_event(31, 1, body, cols_ai=True))
    return [(2, query(b"BEGIN", when)), (19, TABLE_MAP), event, (16, struct.pack("<Q", 1000 + seq))]


def write_binlog(path, target_mb, partial=True):
    rng = random.Random(20261125)
    state = {}
    with open(path, "wb") as f:
        w = Writer(f)
        fde = struct.pack("<H50sIB", 4, b"8.0.40", START, 19) + FDE_POST_HEADER + b"\x01"
        w.event(15, fde, START)
        w.event(35, struct.pack("<Q", 0), START, flags=0x80)
        seq = when = 0
        while w.pos < target_mb * 1048576:
            seq += 1
            when = START + seq // 20
            events = transaction(rng, seq, when, state, partial)
            if len(state) > 500:
                for key in sorted(state)[:100]:
                    del state[key]
            length = sum(19 + len(b) + 4 for _, b in events)
            gtid = anonymous_gtid(seq, when, 300)       # then the real length, packed
            w.event(34, gtid[:-7] + var_len_packed(length) + gtid[-4:], when, flags=0x80)
            for t, b in events:
                w.event(t, b, when)
        w.event(4, struct.pack("<Q", 4) + b"binlog.000002", when or START)
    return seq


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=16, help="size of the binlog in MiB")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "work"))
    ap.add_argument("--twin", action="store_true",
                    help="also write mysql80-json-full.000001: the same transactions with full "
                         "Update_rows events where the first has PARTIAL_UPDATE_ROWS (which "
                         "mariadb-binlog cannot read)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "mysql80-json.000001")
    n = write_binlog(path, args.mb)
    print(f"{path}: {os.path.getsize(path) / 1048576:.1f} MiB, {n} transactions")
    if args.twin:
        twin = os.path.join(args.out, "mysql80-json-full.000001")
        write_binlog(twin, args.mb, partial=False)
        print(f"{twin}: {os.path.getsize(twin) / 1048576:.1f} MiB (full Update_rows for the partial ones)")


if __name__ == "__main__":
    main()
