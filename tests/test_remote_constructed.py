"""The MySQL side of the dump protocol, where no MySQL server can run here:
COM_BINLOG_DUMP_GTID's request and GTID set encoding, and the raw backup over
dump packets built from public MySQL binlogs (../shared/peer), byte for byte.

The packets are what a server sends (an OK byte and one event each, a fake
Rotate first, the format description event with the in-use flag cleared, an
EOF packet at the end of a non-blocking dump); the connection object only
replays them (the MariaDB side is tested against a real server in
test_remote_print.py and test_remote_backup.py).
"""
import io
import pathlib
import struct
import zlib

import pytest

from binlogkit.binlog import layout as L
from binlogkit.binlog.mysql_events import GtidSetEntry, decode_gtid_set, encode_gtid_set
from binlogkit.binlog.reader import BinlogReader
from binlogkit.printer.mysql.gtidset import GtidSet
from binlogkit.remote.backup import RawBackup
from binlogkit.remote.protocol import (
    BINLOG_THROUGH_GTID, COM_BINLOG_DUMP_GTID, DumpStream, ServerError,
)

PEER = pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "peer" / "mysql-binlogs"
needs_peer = pytest.mark.skipif(not PEER.is_dir(), reason="../shared/peer is absent")


class ReplayConnection:
    """pymysql's connection as DumpStream uses it, replaying recorded packets."""

    def __init__(self, packets):
        self._rfile = io.BytesIO(b"".join(_frame(i + 1, p) for i, p in enumerate(packets)))
        self.commands, self.queries, self.closed = [], [], False

    def _execute_command(self, command, payload):
        self.commands.append((command, bytes(payload)))

    def cursor(self):
        conn = self

        class Cursor:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def execute(self, sql):
                conn.queries.append(sql)

            def fetchall(self):
                return (("8.4.0",),)

        return Cursor()

    def close(self):
        self.closed = True


def _frame(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes((seq & 0xFF,)) + payload


def fake_rotate(name, position=4):
    body = struct.pack("<Q", position) + name.encode()
    size = L.LOG_EVENT_HEADER_LEN + len(body)
    return struct.pack("<IBIIIH", 0, L.ROTATE_EVENT, 1, size, 0, L.LOG_EVENT_ARTIFICIAL_F) + body


def dump_packets(path, name):
    """What a server sends for COM_BINLOG_DUMP(name, 4) of the file at `path`."""
    packets = [b"\0" + fake_rotate(name)]
    with BinlogReader(path) as reader:
        reader.read_magic()
        for raw in reader.events():
            data = bytearray(raw.data)
            if raw.type_code == L.FORMAT_DESCRIPTION_EVENT:
                data[L.FLAGS_OFFSET] &= ~L.LOG_EVENT_BINLOG_IN_USE_F
            packets.append(b"\0" + bytes(data))
    packets.append(b"\xfe\0\0\x02\0")           # EOF
    return packets


def test_encode_gtid_set_layout():
    sid = bytes(range(16))
    data = encode_gtid_set([GtidSetEntry(sid, b"", [(1, 6), (9, 10)])])
    assert data == (struct.pack("<Q", 1) + sid + struct.pack("<Q", 2)
                    + struct.pack("<QQQQ", 1, 6, 9, 10))
    tagged = encode_gtid_set([GtidSetEntry(sid, b"blue", [(3, 4)])])
    fmt, entries, end = decode_gtid_set(tagged, 0, len(tagged))
    assert (fmt, end) == (L.GTID_FORMAT_TAGGED, len(tagged))
    assert entries == [GtidSetEntry(sid, b"blue", [(3, 4)])]


def test_exclude_gtids_text_to_encoding():
    text = "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7,3e11fa47-71ca-11e1-9e33-c80aa9429562:6:9"
    data = GtidSet.parse(text).encoded()
    fmt, entries, _ = decode_gtid_set(data, 0, len(data))
    assert fmt == L.GTID_FORMAT_UNTAGGED
    assert [(e.uuid, e.intervals) for e in entries] == [
        ("3e11fa47-71ca-11e1-9e33-c80aa9429562", [(1, 8), (9, 10)])]


@needs_peer
def test_encode_is_the_inverse_of_every_peer_previous_gtids():
    seen = 0
    for path in sorted(PEER.rglob("*")):
        if not path.is_file() or path.suffix == ".gz":
            continue
        try:
            with BinlogReader(path) as reader:
                reader.read_magic()
                for raw in reader.events():
                    if raw.type_code != L.PREVIOUS_GTIDS_LOG_EVENT:
                        continue
                    start = reader.fde.header_len + reader.fde.post_header(raw.type_code)
                    body = bytes(raw.payload[start:])
                    fmt, entries, end = decode_gtid_set(body, 0, len(body))
                    assert encode_gtid_set(entries, fmt) == body[:end], path.name
                    seen += 1
        except Exception as exc:        # the known-broken peer files
            if "truncated" not in path.name and "corrupt" not in path.name:
                raise AssertionError(f"{path.name}: {exc}") from exc
    assert seen >= 5


def test_dump_gtid_request_bytes():
    conn = ReplayConnection([b"\xfe\0\0\x02\0"])
    stream = DumpStream(conn)
    gtids = GtidSet.parse("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-10").encoded()
    stream.start("binlog.000007", 4, server_id=77, gtid_set=gtids)
    assert list(stream.events()) == []
    command, payload = conn.commands[0]
    assert command == COM_BINLOG_DUMP_GTID
    flags, server_id, name_len = struct.unpack_from("<HII", payload)
    assert (flags, server_id, name_len) == (BINLOG_THROUGH_GTID | 1, 77, 13)
    assert payload[10:23] == b"binlog.000007"
    position, set_len = struct.unpack_from("<QI", payload, 23)
    assert (position, set_len) == (4, len(gtids)) and payload[35:] == gtids


def test_error_packet():
    message = b"\xff" + struct.pack("<H", 1236) + b"#HY000Could not find first log file name"
    stream = DumpStream(ReplayConnection([message]))
    with pytest.raises(ServerError) as info:
        list(stream.events())
    assert info.value.errno == 1236 and "first log file" in info.value.message


@needs_peer
@pytest.mark.parametrize("relpath", [
    "mysql-binlog-connector-java/mysql-bin.checksum-crc32",
    "mysql-binlog-connector-java/mysql-bin.checksum-none",
    "rust_mysql_common/binlog_transaction_with_GTID.000001",
    "rust_mysql_common/binlog_transaction_with_GTID_TAG.000001",
    "rust_mysql_common/transaction_compression.000001",
])
def test_raw_backup_of_mysql_dump_is_the_file(relpath, tmp_path):
    source = PEER / relpath
    name = source.name
    conn = ReplayConnection(dump_packets(source, name))
    backup = RawBackup(lambda: conn, name, prefix=f"{tmp_path}/")
    backup.run()
    copy = (tmp_path / name).read_bytes()
    original = source.read_bytes()
    assert len(copy) <= len(original)
    assert copy[:21] + copy[22:] == original[:21] + original[22:len(copy)]
    ends_closed = _last_type(source) in (L.ROTATE_EVENT, L.STOP_EVENT)
    if ends_closed:
        assert len(copy) == len(original)
        assert copy[21] & 1 == 0
    else:       # a log the server still writes: the copy says so, as the server's file
        assert copy[21] & 1 == 1
    assert conn.closed


def _last_type(path):
    last = None
    with BinlogReader(path) as reader:
        reader.read_magic()
        for raw in reader.events():
            last = raw.type_code
    return last


MYSQL97 = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "mysql97"


def _heartbeat(type_code, log_pos, name=b"binlog.000001"):
    body = name if type_code == L.HEARTBEAT_LOG_EVENT else b"\x01\x0d" + name + b"\x02\x08" + bytes(8)
    size = L.LOG_EVENT_HEADER_LEN + len(body) + 4
    header = struct.pack("<IBIIIH", 0, type_code, 1, size, log_pos, L.LOG_EVENT_ARTIFICIAL_F)
    return header + body + struct.pack("<I", zlib.crc32(header + body))


@pytest.mark.parametrize("config", ["gtid_noblob_mixed"])
def test_mysql_heartbeats_and_artificial_events_are_never_written(config, tmp_path):
    """A MySQL dump with heartbeats of both kinds (27; 41, which flag 2 asks for) and
    an artificial event between the file's events: the copy is the file, and the
    request to a MySQL server leaves flag 2 (v2 heartbeats there, not annotations) unset."""
    source = sorted((MYSQL97 / config).glob("binlog.0*"))[0]
    packets = dump_packets(source, source.name)
    mixed = packets[:3]
    for packet in packets[3:-1]:
        log_pos = struct.unpack_from("<I", packet, 1 + 13)[0]
        mixed += [b"\0" + _heartbeat(L.HEARTBEAT_LOG_EVENT, log_pos), packet,
                  b"\0" + _heartbeat(L.HEARTBEAT_LOG_EVENT_V2, log_pos)]
    mixed.append(packets[-1])
    conn = ReplayConnection(mixed)
    backup = RawBackup(lambda: conn, source.name, prefix=f"{tmp_path}/")
    backup.heartbeat_checks = False     # the replay has no SHOW BINARY LOGS to answer
    backup.run()
    copy, original = (tmp_path / source.name).read_bytes(), source.read_bytes()
    assert copy[:21] + copy[22:] == original[:21] + original[22:]
    (command, payload), = conn.commands
    assert struct.unpack_from("<IH", payload)[1] & 2 == 0
    assert not any("mariadb_slave_capability" in sql for sql in conn.queries)


def test_a_stop_signal_is_not_taken_for_a_lost_connection(monkeypatch):
    """SIGTERM raises the CLI's _Stopped; arriving during a connect (or a query) it
    must end the backup, not be turned into a lost connection to retry."""
    from binlogkit.cli.remote import _Stopped
    from binlogkit.remote import handshake
    from binlogkit.remote.connection import ConnectOptions, connect

    def interrupted(self, *args, **kw):
        raise _Stopped()
    monkeypatch.setattr(handshake.Handshake, "__init__", interrupted)
    with pytest.raises(_Stopped):
        connect(ConnectOptions(socket="/nonexistent.sock"))
