"""Inputs bench/fuzz.py found that ended in a traceback; each now ends as bad input."""
import struct
from pathlib import Path

import pytest

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.errors import EventDecodeError
from binlogkit.slowlog.metric import Metric, pt_metrics

ROOT = Path(__file__).resolve().parent.parent


def first_table_map():
    with BinlogReader(str(ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000001")) as reader:
        reader.read_magic()
        for raw in reader.events():
            if raw.type_code == L.TABLE_MAP_EVENT:
                return raw, reader.fde
    raise AssertionError("no Table_map in the fixture")


def test_table_map_with_a_null_column_count_is_a_decode_error():
    raw, fde = first_table_map()
    data = bytearray(raw.data)
    pos = fde.header_len + fde.post_header(L.TABLE_MAP_EVENT, 8)
    pos += 1 + data[pos] + 1                    # database name and its NUL
    pos += 1 + data[pos] + 1                    # table name and its NUL
    data[pos] = 251                             # the packed column count: NULL
    with pytest.raises(EventDecodeError):
        decode_event(_with_data(raw, bytes(data)), fde)


def _with_data(raw, data):
    from binlogkit.binlog.reader import PyRawEvent
    header = struct.unpack_from("<IBIIIH", data, 0)
    return PyRawEvent(raw.pos, header, data, raw.end, raw.checksum)


@pytest.mark.parametrize("values", [[1e300, -1e300], [1e300, 2e300, 3e300, 1.0]])
def test_statistics_of_huge_values_do_not_overflow(values):
    metric = Metric()
    for value in values:
        metric.add(value)
    pct_95, stddev, median = pt_metrics(metric)
    assert stddev == stddev      # a number (inf is what Perl's arithmetic gives), no exception
