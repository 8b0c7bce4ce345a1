"""The Python API's names and integers (issue 27 item 9), on a binlog of a real MariaDB
(fixtures/gen_unsigned.py): `items` logged with binlog_row_metadata=FULL, `prïces` without."""
from pathlib import Path

from binlogkit.binlog.rowevents import iter_rows_events

LOG = Path(__file__).resolve().parents[1] / "fixtures" / "api" / "mariadb-bin.000001"
MAXES = [255, 65535, 16777215, 4294967295, 18446744073709551615]


def events():
    return list(iter_rows_events(LOG))


def test_names_are_str_with_the_bytes_kept():
    evs = events()
    assert [(ev.db, ev.table) for ev in evs] == [("shop", "items"), ("shop", "items"),
                                                 ("shop", "prïces")]
    assert evs[0].table == "items"
    assert evs[2].raw_db == b"shop" and evs[2].raw_table == "prïces".encode()


def test_unsigned_columns_read_unsigned_where_the_log_says_so():
    write, update, _ = events()
    assert write.unsigned_known
    assert list(write.rows) == [(None, [1, *MAXES, -1, b"max"]),
                                (None, [2, 1, 2, 3, 4, 5, 6, b"small"])]
    (before, after), = update.rows
    assert before[5] == 18446744073709551615 and after[5] == 18446744073709551614
    assert before[6] == after[6] == -1          # BIGINT (signed) stays negative


def test_without_the_metadata_integers_read_signed_as_documented():
    *_, plain = events()
    assert not plain.unsigned_known
    (_, values), = plain.rows
    assert values[1:7] == [-1] * 6
    assert [v % (1 << bits) for v, bits in zip(values[1:6], (8, 16, 24, 32, 64))] == MAXES
    assert "without it they read signed" in type(plain).__doc__
