"""binlogkit's file-decoded rows == python-mysql-replication's streamed rows.

A throw-away MariaDB (ROW format, CRC32 checksums, binlog_row_metadata=FULL so
that python-mysql-replication knows column names, signedness, charsets and
ENUM/SET members) runs the fixture workload's `setup`, `rows` and
`transactions` sections (every column type, FULL / MINIMAL / NOBLOB images,
multi-event statements).  python-mysql-replication streams the rows events
over the unix socket with BinLogStreamReader; binlogkit reads the same events
from the binlog FILE.  Every value of every image is compared after mapping
binlogkit's lossless value onto python-mysql-replication's representation:

  integers          unsigned columns: binlogkit's signed reading & mask
  BIT               a '0101' string of the declared width
  DATE/DATETIME/TIME/TIMESTAMP   date / datetime / timedelta (naive UTC)
  CHAR/VARCHAR/TEXT decoded with the column charset (binary ones stay bytes)
  ENUM / SET        member name / set of member names (None for the empty SET)
  absent (MINIMAL / NOBLOB)      None

Known differences, left out of the comparison (each counted, and each must
actually occur in the workload so this list cannot go stale):

  zero TIMESTAMP    python-mysql-replication returns 1970-01-01 00:00:00
                    (utcfromtimestamp(0)); binlogkit keeps the zero value
                    '0000-00-00 00:00:00' (Timestamp(0, 0, fsp)).
  YEAR 0000         python-mysql-replication returns 1900 (1900 + stored
                    byte); binlogkit returns 0, as the server means it.

Zero and partial dates ('0000-00-00', '2024-00-15', '2024-02-00 10:00:00')
agree only as "not a date": python-mysql-replication returns None and loses
the value, binlogkit keeps Date(2024, 0, 15) (whose to_python() is None).
JSON on MariaDB is LONGTEXT, so both see the text (python-mysql-replication's
binary-JSON decoder, for MySQL's JSON type 245, is not involved).
"""
import re
from pathlib import Path

import pytest

from binlogkit.binlog import rows as R
from binlogkit.binlog.rowevents import iter_rows_events
from binlogkit.binlog.rowvalues import ABSENT, Bits, Date, DateTime, Time, Timestamp
from binlogkit.lab.server import MariaDBServer, server_available

pmr = pytest.importorskip("pymysqlreplication")
from pymysqlreplication.row_event import (  # noqa: E402
    DeleteRowsEvent, RowsEvent, UpdateRowsEvent, WriteRowsEvent,
)

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not server_available(), reason="mariadbd is not installed")]

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("setup", "rows", "transactions")
INT_BITS = {R.MYSQL_TYPE_TINY: 8, R.MYSQL_TYPE_SHORT: 16, R.MYSQL_TYPE_INT24: 24,
            R.MYSQL_TYPE_LONG: 32, R.MYSQL_TYPE_LONGLONG: 64}


def workload_sections(names):
    sections, current = {}, None
    for line in (ROOT / "fixtures" / "workload.sql").read_text().splitlines():
        m = re.match(r"--\s*@@section\s+(\S+)", line)
        if m:
            current = sections.setdefault(m.group(1), [])
        elif current is not None:
            current.append(line)
    return ["\n".join(sections[name]) for name in names]


class Column:
    """What python-mysql-replication knows of a column (from the FULL row metadata)."""

    def __init__(self, col):
        self.name, self.type, self.unsigned = col.name, col.type, col.unsigned
        self.charset = col.character_set_name
        self.enum_values, self.set_values = col.enum_values, col.set_values


@pytest.fixture(scope="module")
def streams():
    options = {"log_bin": "mariadb-bin", "binlog_format": "ROW", "server_id": 1,
               "binlog_checksum": "CRC32", "binlog_row_metadata": "FULL",
               "character_set_server": "utf8mb4", "collation_server": "utf8mb4_general_ci"}
    with MariaDBServer(options=options, env={"TZ": "UTC", "LC_ALL": "C"}) as srv:
        for sql in workload_sections(SECTIONS):
            srv.sql(sql)
        files = srv.binlog_files()
        reader = pmr.BinLogStreamReader(
            connection_settings={"unix_socket": str(srv.socket), "user": "root", "passwd": ""},
            server_id=4242, blocking=False, resume_stream=True, is_mariadb=True,
            log_file=files[0].name, log_pos=4,
            only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent])
        streamed = []
        try:
            for ev in reader:
                streamed.append((ev.packet.log_pos, ev.schema, ev.table, ev.rows,
                                 [Column(c) for c in ev.columns]))
        finally:
            reader.close()
        from_file = [ev for f in files for ev in iter_rows_events(str(f))]
        yield streamed, from_file


def expected(value, column):
    """binlogkit's value in python-mysql-replication's representation."""
    if value is None or value is ABSENT:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and column.type in INT_BITS:
        return value & ((1 << INT_BITS[column.type]) - 1) if column.unsigned else value
    if column.type == R.MYSQL_TYPE_ENUM:
        return column.enum_values[value]
    if column.type == R.MYSQL_TYPE_SET:
        members = {name for i, name in enumerate(column.set_values) if value >> i & 1}
        return members or None
    if isinstance(value, Bits):
        return format(value.value, "0%db" % value.width)
    if isinstance(value, (Date, DateTime, Time)):
        return value.to_python()
    if isinstance(value, Timestamp):
        when = value.to_python()
        return when.replace(tzinfo=None) if when is not None else None
    if isinstance(value, bytes) and column.charset not in (None, "binary"):
        return value.decode(RowsEvent.charset_to_encoding(column.charset))
    return value


def known_difference(value, column):
    """The reason python-mysql-replication's value differs on purpose, or None."""
    if isinstance(value, Timestamp) and not value.seconds and not value.microsecond:
        return "zero TIMESTAMP"
    if column.type == R.MYSQL_TYPE_YEAR and value == 0:
        return "YEAR 0000"
    return None


def _images(pmr_row, before, after):
    if "values" in pmr_row:
        return [(pmr_row["values"], before if before is not None else after)]
    return [(pmr_row["before_values"], before), (pmr_row["after_values"], after)]


def test_same_rows_events(streams):
    streamed, from_file = streams
    assert len(streamed) == len(from_file) > 20
    for (log_pos, schema, table, rows, _), ev in zip(streamed, from_file):
        assert (log_pos, schema, table) == (ev.log_pos, ev.db, ev.table)
        assert (schema.encode(), table.encode()) == (ev.raw_db, ev.raw_table)
        assert len(rows) == len(ev.rows)


def test_values_equal_python_mysql_replication(streams):
    streamed, from_file = streams
    compared, differences, mismatches = 0, {}, []
    types_seen = set()
    for (_, _, table, rows, columns), ev in zip(streamed, from_file):
        for pmr_row, (before, after) in zip(rows, ev.rows):
            for pmr_values, ours in _images(pmr_row, before, after):
                assert len(pmr_values) == len(ours) == len(columns)
                for column, theirs, value in zip(columns, pmr_values.values(), ours):
                    reason = known_difference(value, column)
                    if reason:
                        differences[reason] = differences.get(reason, 0) + 1
                        continue
                    compared += 1
                    if value is not None and value is not ABSENT:
                        types_seen.add(column.type)
                    if expected(value, column) != theirs:
                        mismatches.append((table, column.name, value, theirs))
    assert not mismatches, mismatches[:20]
    assert compared > 1500
    assert set(differences) == {"zero TIMESTAMP", "YEAR 0000"}, differences
    # every column type of the workload's d1.types table was compared with a value
    assert types_seen >= {R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24, R.MYSQL_TYPE_LONG,
                          R.MYSQL_TYPE_LONGLONG, R.MYSQL_TYPE_NEWDECIMAL, R.MYSQL_TYPE_FLOAT,
                          R.MYSQL_TYPE_DOUBLE, R.MYSQL_TYPE_BIT, R.MYSQL_TYPE_DATE, R.MYSQL_TYPE_TIME2,
                          R.MYSQL_TYPE_DATETIME2, R.MYSQL_TYPE_TIMESTAMP2, R.MYSQL_TYPE_YEAR,
                          R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_BLOB,
                          R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET, R.MYSQL_TYPE_GEOMETRY}, types_seen
