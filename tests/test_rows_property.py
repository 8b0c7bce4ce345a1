"""Values inserted through a real MariaDB decode back from the binlog file to the same values.

One throw-away server (binlog_format=ROW) for the module.  For each column
type of issue 3, hypothesis generates batches of values; each batch is
inserted in one transaction with binlog_row_image=FULL, then every row is
updated to another value of the batch with binlog_row_image=MINIMAL.  The
binlog FILE is then read with binlogkit (`iter_rows_events`, `Rows`) and the
decoded images are compared with the inserted values: the FULL insert's after
image holds every column, the MINIMAL update's before image only the primary
key and its after image only the changed column.  Where the server itself
normalises a value (FLOAT to single precision, CHAR without trailing spaces,
BINARY without trailing zero bytes) the expected value is normalised the same
way, and FLOAT is also checked against the server's own SELECT.
"""
import datetime as dt
import ipaddress
import json
import struct
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogkit.binlog.rowevents import iter_rows_events
from binlogkit.binlog.rowvalues import ABSENT, Bits, Date, DateTime, Time, Timestamp
from binlogkit.lab.server import MariaDBServer, server_available

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not server_available(), reason="mariadbd is not installed")]

BATCH = st.integers(1, 6)
SETTINGS = settings(max_examples=12, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class Lab:
    """The server, one connection, a table per column type, and binlog reading."""

    def __init__(self, srv):
        self.srv = srv
        self.conn = srv.connect(autocommit=False, charset="utf8mb4")
        self.cur = self.conn.cursor()
        self.cur.execute("CREATE DATABASE prop")
        self.cur.execute("SET SESSION sql_mode = 'ALLOW_INVALID_DATES', time_zone = '+00:00'")
        self.tables = {}
        self.next_id = 1

    def table(self, column_sql):
        name = self.tables.get(column_sql)
        if name is None:
            name = self.tables[column_sql] = f"t{len(self.tables)}"
            self.cur.execute(f"CREATE TABLE prop.{name} (id INT PRIMARY KEY, v {column_sql}) ENGINE=InnoDB")
        return name

    def position(self):
        self.cur.execute("SHOW MASTER STATUS")
        name, pos = self.cur.fetchone()[:2]
        return str(self.srv.datadir / name), pos

    def roundtrip(self, column_sql, params, placeholder="%s"):
        """Insert `params` (FULL), update row i to params[i-1] (MINIMAL); return the decoded images.

        Returns (inserted_after_images, [(before, after)] of the updates) for
        this table's rows events written by these two transactions.
        """
        name = self.table(column_sql)
        ids = list(range(self.next_id, self.next_id + len(params)))
        self.next_id += len(params)
        path, start = self.position()
        cur = self.cur
        cur.execute("SET SESSION binlog_row_image = 'FULL'")
        values_sql = ", ".join(f"(%s, {placeholder})" for _ in params)
        cur.execute(f"INSERT INTO prop.{name} (id, v) VALUES {values_sql}",
                    [x for i, p in zip(ids, params) for x in (i, *_as_args(p))])
        self.conn.commit()
        cur.execute("SET SESSION binlog_row_image = 'MINIMAL'")
        for i, p in zip(ids, params[1:] + params[:1]):
            cur.execute(f"UPDATE prop.{name} SET v = {placeholder} WHERE id = %s", [*_as_args(p), i])
        self.conn.commit()
        inserts, updates = [], []
        for ev in iter_rows_events(path, start_position=start):
            assert ev.table_map is not None and ev.table == name and ev.raw_table == name.encode()
            for before, after in ev.rows:
                (inserts if ev.kind == "write" else updates).append((before, after))
        assert [after[0] for _, after in inserts] == ids
        assert all(before is None and len(after) == 2 for before, after in inserts)
        for before, after in updates:
            assert before[1] is ABSENT and before[0] in ids, "MINIMAL before image: the key only"
            assert after[0] is ABSENT, "MINIMAL after image: the changed column only"
        return [after[1] for _, after in inserts], updates, ids

    def select(self, sql, args=()):
        self.cur.execute(sql, args)
        return [row[0] for row in self.cur.fetchall()]


def _as_args(param):
    return param if isinstance(param, tuple) else (param,)


@pytest.fixture(scope="module")
def lab():
    options = {"log_bin": "mariadb-bin", "binlog_format": "ROW", "server_id": 1,
               "character_set_server": "utf8mb4", "collation_server": "utf8mb4_general_ci"}
    with MariaDBServer(options=options, env={"TZ": "UTC"}) as srv:
        lab = Lab(srv)
        yield lab
        lab.conn.close()


def check(lab, column_sql, values, to_param, expect, placeholder="%s"):
    """Round-trip `values` (None = NULL) and compare the decoded values with expect(value)."""
    params = [None if v is None else to_param(v) for v in values]
    if placeholder != "%s":
        params = [p if p is not None else (None,) * placeholder.count("%s") for p in params]
    decoded, updates, ids = lab.roundtrip(column_sql, params, placeholder)
    want = [None if v is None else expect(v) for v in values]
    assert decoded == want
    for got, exp in zip(decoded, want):
        assert type(got) is type(exp)
        if isinstance(exp, Decimal):
            assert str(got) == str(exp)        # same digits, same scale
    rotated = dict(zip(ids, want[1:] + want[:1]))
    for before, after in updates:
        assert after[1] == rotated[before[0]]
    return decoded


# -- integers ---------------------------------------------------------------------------

INTS = [("TINYINT", 8), ("SMALLINT", 16), ("MEDIUMINT", 24), ("INT", 32), ("BIGINT", 64)]


@pytest.mark.parametrize("name,bits", INTS)
@pytest.mark.parametrize("unsigned", [False, True])
def test_integers(lab, name, bits, unsigned):
    lo, hi = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)

    def signed(v):      # the decoded value is the two's-complement (signed) reading
        return v - (1 << bits) if v >= 1 << (bits - 1) else v

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.integers(lo, hi), st.sampled_from([lo, hi])),
                    min_size=1, max_size=6))
    def run(values):
        check(lab, f"{name}{' UNSIGNED' if unsigned else ''}", values, int, signed)
    run()


# -- floating point and DECIMAL -------------------------------------------------------------

def _float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def test_float(lab):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.floats(width=32, allow_nan=False, allow_infinity=False)),
                    min_size=1, max_size=6))
    def run(values):
        decoded = check(lab, "FLOAT", values, float, _float32)
        table = lab.tables["FLOAT"]
        ids = lab.select(f"SELECT MAX(id) FROM prop.{table}")[0]
        selected = lab.select(f"SELECT CAST(v AS DOUBLE) FROM prop.{table} WHERE id > %s ORDER BY id",
                              [ids - len(values)])
        # after the MINIMAL updates row i holds value i+1: compare the set the server kept
        assert sorted(repr(x) for x in selected if x is not None) == \
            sorted(repr(x) for x in decoded if x is not None)
    run()


def test_double(lab):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
                    min_size=1, max_size=6))
    def run(values):
        check(lab, "DOUBLE", values, float, float)
    run()


@pytest.mark.parametrize("precision,scale", [(1, 0), (5, 2), (10, 0), (12, 3), (18, 9), (9, 9),
                                             (20, 10), (38, 0), (65, 30)])
def test_decimal(lab, precision, scale):
    top = 10 ** precision - 1

    def exact(n):          # hypothesis' decimals() round to 28 digits; build them exactly
        return Decimal(f"{n}E-{scale}")

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.integers(-top, top).map(exact),
                              st.sampled_from([top, -top, 0, 1, -1]).map(exact)),
                    min_size=1, max_size=6))
    def run(values):
        check(lab, f"DECIMAL({precision},{scale})", values, lambda v: format(v, "f"), lambda v: v)
    run()


# -- BIT, YEAR, ENUM, SET --------------------------------------------------------------------

@pytest.mark.parametrize("nbits", [1, 7, 8, 13, 33, 64])
def test_bit(lab, nbits):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.integers(0, (1 << nbits) - 1)), min_size=1, max_size=6))
    def run(values):
        check(lab, f"BIT({nbits})", values, int, lambda v: Bits(v, nbits))
    run()


def test_year(lab):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.just(0), st.integers(1901, 2155)), min_size=1, max_size=6))
    def run(values):
        check(lab, "YEAR", values, int, int)
    run()


@pytest.mark.parametrize("members", [3, 300])       # 1-byte and 2-byte ENUM
def test_enum(lab, members):
    names = [f"m{i}" for i in range(members)]
    sql = "ENUM(" + ", ".join(f"'{n}'" for n in names) + ")"

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.integers(1, members)), min_size=1, max_size=6))
    def run(values):
        check(lab, sql, values, lambda i: names[i - 1], int)
    run()


@pytest.mark.parametrize("members", [3, 9, 17, 33, 64])     # SET of 1, 2, 3, 5 and 8 bytes
def test_set(lab, members):
    names = [f"s{i}" for i in range(members)]
    sql = "SET(" + ", ".join(f"'{n}'" for n in names) + ")"

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.integers(0, (1 << members) - 1)), min_size=1, max_size=6))
    def run(values):
        check(lab, sql, values, lambda m: ",".join(n for i, n in enumerate(names) if m >> i & 1), int)
    run()


# -- dates and times -------------------------------------------------------------------------

FSPS = [0, 1, 3, 6]


def _frac(fsp):
    return st.integers(0, 10 ** fsp - 1).map(lambda f: f * 10 ** (6 - fsp))


def _usec_text(usec, fsp):
    return "" if not fsp else "." + str(usec).zfill(6)[:fsp]


def test_date(lab):
    dates = st.tuples(st.integers(0, 9999), st.integers(0, 12), st.integers(0, 31))

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), dates, st.just((0, 0, 0))), min_size=1, max_size=6))
    def run(values):
        check(lab, "DATE", values, lambda d: "%04d-%02d-%02d" % d, lambda d: Date(*d))
    run()


@pytest.mark.parametrize("fsp", FSPS)
def test_time(lab, fsp):
    times = st.tuples(st.booleans(), st.integers(0, 838), st.integers(0, 59), st.integers(0, 59),
                      _frac(fsp))

    def text(t):
        neg, h, m, s, usec = t
        return "%s%d:%02d:%02d%s" % ("-" if neg else "", h, m, s, _usec_text(usec, fsp))

    def expect(t):
        neg, h, m, s, usec = t
        return Time(neg and bool(h or m or s or usec), h, m, s, usec, fsp)

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), times), min_size=1, max_size=6))
    def run(values):
        check(lab, f"TIME({fsp})", values, text, expect)
    run()


@pytest.mark.parametrize("fsp", FSPS)
def test_datetime(lab, fsp):
    stamps = st.tuples(st.integers(1000, 9999), st.integers(1, 12), st.integers(1, 31),
                       st.integers(0, 23), st.integers(0, 59), st.integers(0, 59), _frac(fsp))
    zero = st.just((0, 0, 0, 0, 0, 0, 0))

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), stamps, zero), min_size=1, max_size=6))
    def run(values):
        check(lab, f"DATETIME({fsp})", values,
              lambda v: "%04d-%02d-%02d %02d:%02d:%02d" % v[:6] + _usec_text(v[6], fsp),
              lambda v: DateTime(*v, fsp))
    run()


@pytest.mark.parametrize("fsp", FSPS)
def test_timestamp(lab, fsp):
    stamps = st.tuples(st.integers(1, (1 << 31) - 1), _frac(fsp))

    def text(v):
        sec, usec = v
        if not sec:
            return "0000-00-00 00:00:00"
        when = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=sec)
        return when.strftime("%Y-%m-%d %H:%M:%S") + _usec_text(usec, fsp)

    @SETTINGS
    @given(st.lists(st.one_of(st.none(), stamps, st.just((0, 0))), min_size=1, max_size=6))
    def run(values):
        check(lab, f"TIMESTAMP({fsp}) NULL", values, text, lambda v: Timestamp(v[0], v[1], fsp))
    run()


# -- strings ---------------------------------------------------------------------------------

LATIN1 = st.characters(codec="latin-1", exclude_characters="".join(map(chr, range(0x80, 0xA0))))
UTF8 = st.characters(codec="utf-8")
STRINGS = [
    ("CHAR(10) CHARACTER SET utf8mb4", st.text(UTF8, max_size=10),
     lambda s: s.encode().rstrip(b" ")),
    ("CHAR(255) CHARACTER SET utf8mb4", st.text(UTF8, max_size=255),          # 2-byte length
     lambda s: s.encode().rstrip(b" ")),
    ("CHAR(20) CHARACTER SET latin1", st.text(LATIN1, max_size=20),
     lambda s: s.encode("latin-1").rstrip(b" ")),
    ("VARCHAR(40) CHARACTER SET utf8mb4", st.text(UTF8, max_size=40), str.encode),
    ("VARCHAR(300) CHARACTER SET utf8mb4", st.text(UTF8, max_size=300), str.encode),
    ("VARCHAR(200) CHARACTER SET latin1", st.text(LATIN1, max_size=200), lambda s: s.encode("latin-1")),
    ("TEXT CHARACTER SET utf8mb4", st.text(UTF8, max_size=300), str.encode),
]
BINARIES = [
    ("BINARY(8)", st.binary(max_size=8), lambda b: b.rstrip(b"\0")),
    ("VARBINARY(300)", st.binary(max_size=300), bytes),
    ("TINYBLOB", st.binary(max_size=255), bytes),
    ("BLOB", st.binary(max_size=2000), bytes),
    ("MEDIUMBLOB", st.binary(max_size=2000), bytes),
    ("LONGBLOB", st.binary(max_size=2000), bytes),
]


@pytest.mark.parametrize("sql,strategy,expect", STRINGS, ids=[s[0] for s in STRINGS])
def test_strings(lab, sql, strategy, expect):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), strategy), min_size=1, max_size=6))
    def run(values):
        check(lab, sql, values, str, expect)
    run()


@pytest.mark.parametrize("sql,strategy,expect", BINARIES, ids=[s[0] for s in BINARIES])
def test_binaries(lab, sql, strategy, expect):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), strategy), min_size=1, max_size=6))
    def run(values):
        check(lab, sql, values, bytes, expect)
    run()


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2 ** 53, 2 ** 53), st.text(UTF8, max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(UTF8, max_size=5), inner, max_size=4)),
    max_leaves=10)


def test_json(lab):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), JSON_VALUES.map(lambda v: json.dumps(v, ensure_ascii=False))),
                    min_size=1, max_size=6))
    def run(values):
        check(lab, "JSON", values, str, str.encode)      # MariaDB keeps JSON as the text
    run()


# -- spatial and MariaDB's INET4 / INET6 / UUID ----------------------------------------------------

FINITE = st.floats(allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("sql", ["POINT", "GEOMETRY"])
def test_point(lab, sql):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.tuples(FINITE, FINITE)), min_size=1, max_size=6))
    def run(values):
        check(lab, sql, values, tuple, lambda p: struct.pack("<IBIdd", 0, 1, 1, *p),
              placeholder="POINT(%s, %s)")
    run()


# INET4, INET6 and UUID are logged like BINARY(n): fixed-length, without trailing zero bytes

def test_inet4(lab):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.integers(0, (1 << 32) - 1)), min_size=1, max_size=6))
    def run(values):
        check(lab, "INET4", values, lambda n: str(ipaddress.IPv4Address(n)),
              lambda n: n.to_bytes(4, "big").rstrip(b"\0"))
    run()


def test_inet6(lab):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.integers(0, (1 << 128) - 1),
                              st.integers(0, 0xFFFF).map(lambda n: n << 112)), min_size=1, max_size=6))
    def run(values):
        check(lab, "INET6", values, lambda n: str(ipaddress.IPv6Address(n)),
              lambda n: n.to_bytes(16, "big").rstrip(b"\0"))
    run()


def test_uuid(lab):
    @SETTINGS
    @given(st.lists(st.one_of(st.none(), st.uuids(version=1), st.uuids(version=4)),
                    min_size=1, max_size=6))
    def run(values):
        check(lab, "UUID", values, str, lambda u: u.bytes.rstrip(b"\0"))
    run()


# -- image modes and statements spanning events ------------------------------------------------

def test_noblob_image_leaves_out_unchanged_blobs(lab):
    lab.cur.execute("CREATE TABLE prop.nb (id INT PRIMARY KEY, n INT, b BLOB, t TEXT)")
    lab.cur.execute("INSERT INTO prop.nb VALUES (1, 1, 'blob', 'text'), (2, 2, NULL, 'x')")
    lab.conn.commit()
    path, start = lab.position()
    lab.cur.execute("SET SESSION binlog_row_image = 'NOBLOB'")
    lab.cur.execute("UPDATE prop.nb SET n = n + 10")
    lab.cur.execute("UPDATE prop.nb SET b = 'new' WHERE id = 1")
    lab.conn.commit()
    rows = [r for ev in iter_rows_events(path, start_position=start) for r in ev.rows]
    assert rows == [([1, 1, ABSENT, ABSENT], [1, 11, ABSENT, ABSENT]),
                    ([2, 2, ABSENT, ABSENT], [2, 12, ABSENT, ABSENT]),
                    ([1, 11, ABSENT, ABSENT], [1, 11, b"new", ABSENT])]


def test_statement_spanning_rows_events(lab):
    blobs = [bytes([i]) * 1000 for i in range(40)]
    decoded, _, ids = lab.roundtrip("BLOB", blobs)
    assert decoded == blobs
    path, start = lab.position()
    lab.cur.execute("SET SESSION binlog_row_image = 'FULL'")
    lab.cur.execute("DELETE FROM prop.%s WHERE id BETWEEN %%s AND %%s" % lab.tables["BLOB"],
                    [ids[0], ids[-1]])
    lab.conn.commit()
    events = list(iter_rows_events(path, start_position=start))
    assert len(events) > 1 and [ev.body.stmt_end for ev in events][-1]
    assert not any(ev.body.stmt_end for ev in events[:-1])
    deleted = [before for ev in events for before, _ in ev.rows]
    assert [d[0] for d in deleted] == ids
    assert sorted(d[1] for d in deleted) == sorted(blobs[1:] + blobs[:1])
