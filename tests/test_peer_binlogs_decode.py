"""Every public MySQL binlog in ../shared/peer/mysql-binlogs decodes through the library.

BinlogReader + decode_event (events inside TRANSACTION_PAYLOAD too) +
rowvalues.iter_rows for every rows event, JSON columns through
json_binary, TABLE_MAP optional metadata through table_metadata.  The
deliberately broken files must raise a BinlogError naming file and offset.
Skips when the peer data is absent (it is never copied into the repo).
"""
import gzip
from pathlib import Path

import pytest

from binlogkit.binlog import json_binary as J
from binlogkit.printer.mysql import jsontext as JT
from binlogkit.binlog import layout as L
from binlogkit.binlog import mysql_events as M
from binlogkit.binlog import rows as R
from binlogkit.binlog import table_metadata as T
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.binlog.rowvalues import iter_rows
from binlogkit.errors import BinlogError

PEER = Path(__file__).resolve().parents[2] / "shared" / "peer" / "mysql-binlogs"
pytestmark = pytest.mark.skipif(not PEER.is_dir(), reason="../shared/peer/mysql-binlogs absent")

BROKEN = {"binlog_truncated_event.000001": 4, "binlog_truncated_prev_gtid_event.000001": 120,
          "corrupt-relay-bin.000624": 91204}
GZIPPED = {"mysql-bin.sakila.gz"}


def peer_files():
    if not PEER.is_dir():
        return []
    return sorted(p for p in PEER.glob("*/*") if p.is_file())


def walk(path, stream=None):
    """Decode everything in one binlog; returns a summary."""
    summary = {"events": 0, "types": {}, "rows": 0, "json": [], "gtids": [], "payload_types": [],
               "partial": [], "columns": {}}
    tables = {}
    with BinlogReader(str(path), stream=stream) as reader:
        reader.read_magic()
        for raw in reader.events():
            summary["events"] += 1
            summary["types"][raw.type_code] = summary["types"].get(raw.type_code, 0) + 1
            body = decode_event(raw, reader.fde, path=reader.display_name)
            inner = [(raw, body)]
            if isinstance(body, M.TransactionPayloadBody):
                summary["payload_types"].append([e.type_code for e in body.events])
                inner += [(e, decode_event(e, reader.fde, path=reader.display_name))
                          for e in body.events]
            for event, item in inner:
                consume(event, item, tables, summary, reader)
    return summary


def consume(raw, body, tables, summary, reader):
    if isinstance(body, M.MysqlGtidBody):
        summary["gtids"].append(body)
    elif isinstance(body, R.TableMapBody):
        tables[body.table_id] = body
        if body.optional_metadata:
            summary["columns"][body.table] = T.column_info(body, mariadb=reader.fde.is_mariadb)
    elif isinstance(body, R.RowsBody):
        table = tables[body.table_id]
        for before, after in iter_rows(table, body):
            summary["rows"] += 1
            for image in (before, after):
                for col_type, value in zip(table.column_types, image or ()):
                    if isinstance(value, J.PartialJson):
                        summary["partial"].append(value)
                    elif col_type == R.MYSQL_TYPE_JSON and isinstance(value, bytes):
                        summary["json"].append(JT.binary_to_text(value))


@pytest.mark.parametrize("path", [p for p in peer_files() if p.name not in set(BROKEN) | GZIPPED],
                         ids=lambda p: p.name)
def test_peer_binlog_decodes_completely(path):
    summary = walk(path)
    assert summary["events"] > 0


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_peer_binlogs_fail_with_file_and_offset(name):
    path = next(p for p in peer_files() if p.name == name)
    with pytest.raises(BinlogError) as info:
        walk(path)
    err = info.value
    assert err.path == str(path) and err.offset == BROKEN[name]
    assert str(err).startswith(f"{path}, offset {BROKEN[name]}")


def find(name):
    return next(p for p in peer_files() if p.name == name)


def test_event_counts_published_by_mysql_binlog_connector_java():
    # src/test/resources counts quoted in ../shared/peer/README.md
    for name, count in (("mysql-bin.checksum-crc32", 303), ("mysql-bin.checksum-none", 191),
                        ("mysql-bin.compressed", 5)):
        assert walk(find(name))["events"] == count
    path = find("mysql-bin.sakila.gz")
    with pytest.raises(BinlogError, match="not a binary log file"):
        walk(path)          # like mysqlbinlog: a gzip'ed file is not read as a binlog
    with gzip.open(path) as stream:
        assert walk(path.name, stream=stream)["events"] == 1462


def test_tagged_gtids_and_commit_timestamps():
    summary = walk(find("binlog_transaction_with_GTID_TAG.000001"))
    [gtid] = summary["gtids"]
    assert gtid.is_tagged and gtid.tag == b"mytag" and gtid.gno == 3
    assert gtid.gtid == "55778904-0299-11f1-b1b8-4ef0c4956feb:mytag:3"
    assert gtid.immediate_server_version == gtid.original_server_version == 90600
    assert gtid.transaction_length > 0 and gtid.immediate_commit_datetime.year == 2026
    with BinlogReader(str(find("binlog_transaction_with_GTID_TAG.000001"))) as reader:
        reader.read_magic()
        prev = [decode_event(r, reader.fde) for r in reader.events()
                if r.type_code == L.PREVIOUS_GTIDS_LOG_EVENT][0]
    assert prev.gtid_format == L.GTID_FORMAT_TAGGED
    assert [(e.tag, e.intervals) for e in prev.entries] == [(b"", [(1, 14)]), (b"mytag", [(1, 3)])]


def test_commit_timestamps_lengths_and_logical_clocks():
    gtids = walk(find("transaction_compression.000001"))["gtids"]
    assert gtids[0].immediate_server_version == 80032 and gtids[0].transaction_length == 234
    assert gtids[0].immediate_commit_timestamp == gtids[0].original_commit_timestamp
    five7 = walk(find("mysql-bin.checksum-crc32"))["gtids"]
    assert all(g.is_anonymous and not g.has_commit_timestamps for g in five7)
    assert [g.sequence_number for g in five7[:3]] == [1, 2, 3]
    five6 = walk(find("binlog_56_gtid_reserved_word.000001"))["gtids"]
    assert five6[0].lt_type is None and five6[0].gtid.endswith(":1")


def test_compressed_transactions_hold_decodable_events():
    summary = walk(find("transaction_compression.000001"))
    assert summary["payload_types"] == [[L.QUERY_EVENT, L.TABLE_MAP_EVENT, L.WRITE_ROWS_EVENT,
                                         L.XID_EVENT]]
    assert summary["rows"] == 1
    compressed = walk(find("mysql-bin.compressed"))
    assert compressed["payload_types"] == [[L.QUERY_EVENT, L.TABLE_MAP_EVENT, L.UPDATE_ROWS_EVENT,
                                            L.XID_EVENT]]
    assert compressed["rows"] > 0


def test_json_documents_and_partial_updates():
    summary = walk(find("json.binlog.000001"))
    assert b'{"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}' in summary["json"]
    assert summary["partial"] and all(d.function_name == "JSON_REPLACE" and d.path == b"$.age"
                                      for p in summary["partial"] for d in p.diffs)
    opaque = walk(find("json-opaque.binlog"))["json"]
    assert b'{"c": "87:31:46.654321"}' in opaque and b'{"e": 9.00}' in opaque


def test_optional_metadata_of_real_tables():
    cols = walk(find("mysql-enum-string-set.000001"))["columns"][b"t"]
    assert [c.name for c in cols] == [b"f1", b"f2", b"f3", b"f4", b"f5"]
    assert cols[2].enum_values == [b"var1", b"variant2", b"foo"]
    assert cols[3].set_values == [b"one", b"two", b"three", b"four"]
    vector = walk(find("vector.binlog"))["columns"][b"bar"]
    assert [c.vector_dimensionality for c in vector] == [None, 2, None, 4]
    assert [c.collation for c in vector] == [None, 63, 255, 63]
    hidden = walk(find("binlog-invisible-columns.000001"))["columns"][b"t1"]
    assert [c.visible for c in hidden] == [False, False, True, True, True, False]


def test_pre_ga_trees_renumbered():
    summary = walk(find("ver_5_1-wl2325_r.001"))
    assert summary["types"].get(L.TABLE_MAP_EVENT) == 3 and summary["rows"] == 5
    loads = walk(find("ver_5_1-wl2325_s.001"))["types"]
    assert loads.get(L.BEGIN_LOAD_QUERY_EVENT) == 1 and loads.get(L.EXECUTE_LOAD_QUERY_EVENT) == 1


# -- differential: python-mysql-replication's event classes on the same bytes ---------

class _Packet:
    """Just enough of pymysqlreplication's BinLogPacketWrapper to feed it an event body."""

    def __init__(self, raw, body):
        self.event_type, self.timestamp = raw.type_code, raw.when
        self.data, self.read_bytes = body, 0

    def read(self, size):
        out = self.data[self.read_bytes:self.read_bytes + size]
        self.read_bytes += size
        return out

    def read_int64(self):
        return int.from_bytes(self.read(8), "little", signed=True)

    def read_uint64(self):
        return int.from_bytes(self.read(8), "little")


class _Connection:
    def _get_dbms(self):
        return "mysql"


def test_gtids_agree_with_python_mysql_replication():
    pmr = pytest.importorskip("pymysqlreplication.event")
    compared = 0
    for path in peer_files():
        if path.name in set(BROKEN) | GZIPPED:
            continue
        with BinlogReader(str(path)) as reader:
            reader.read_magic()
            for raw in reader.events():
                if raw.type_code not in (L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT,
                                         L.PREVIOUS_GTIDS_LOG_EVENT):
                    continue
                ours = decode_event(raw, reader.fde)
                body = bytes(raw.payload[reader.fde.header_len:])
                version = reader.fde.version_split
                if raw.type_code == L.PREVIOUS_GTIDS_LOG_EVENT:
                    if ours.gtid_format != L.GTID_FORMAT_UNTAGGED:
                        continue            # tagged sets: pymysqlreplication predates them
                    theirs = pmr.PreviousGtidsEvent(_Packet(raw, body), len(body), {}, _Connection(),
                                                    mysql_version=version)
                    expected = ",".join(f"{e.uuid}-:{[f'{a}-{b}' for a, b in e.intervals]}"
                                        for e in ours.entries)
                    assert theirs._previous_gtids == expected
                else:
                    if ours.lt_type is None:
                        continue            # 5.6 events: pymysqlreplication reads past them
                    theirs = pmr.GtidEvent(_Packet(raw, body), len(body), {}, _Connection(),
                                           mysql_version=version)
                    assert (theirs.sid, theirs.gno, theirs.lt_type) == (ours.sid, ours.gno, ours.lt_type)
                    assert theirs.commit_flag == ours.may_have_sbr
                    if version >= (5, 7):
                        assert (theirs.last_committed, theirs.sequence_number) == \
                            (ours.last_committed, ours.sequence_number)
                compared += 1
    assert compared > 100
