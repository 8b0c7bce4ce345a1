"""fields.typed_attrs (slowlog events, export, frames) gives each attribute pt-query-digest's
type, from the grammar the digest uses (slowlog/attrs.py type_of): its fixed table first."""

from __future__ import annotations

from pathlib import Path

import pytest

from binlogkit.slowlog.attrs import BOOL, NUM, STRING, type_of
from binlogkit.slowlog.fields import entry_row, typed_attrs
from binlogkit.slowlog.parser import SlowlogParser

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "fixtures" / "slowlog"
PEER = ROOT.parent / "shared" / "peer" / "slowlogs" / "percona-toolkit"
LOGS = sorted(FIX.glob("*.log")) + (sorted(p for p in PEER.glob("*") if p.is_file())
                                    if PEER.is_dir() else [])
_PY_TYPES = {NUM: (int, float), BOOL: (bool,), STRING: (str,)}
_RENAMED = {"QC_Hit": b"QC_hit"}


def _entries(path):
    try:
        return list(SlowlogParser(path, zone="UTC"))
    except Exception:              # pt's own broken samples: not this test's subject
        return []


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_value_has_pt_type(path):
    seen = 0
    for ev in _entries(path):
        for name, value in typed_attrs(ev).items():
            raw_name = name.encode()
            raw = ev.attrs.get(raw_name)
            if raw is None:
                raw_name = _RENAMED.get(name, raw_name)
                raw = ev.attrs[raw_name]
            kind = type_of(raw_name, raw)
            assert isinstance(value, _PY_TYPES[kind]), (path.name, name, raw, value)
            if kind == NUM:
                assert not isinstance(value, bool)
            seen += 1
    if path.name in ("mysql8-log_slow_extra.log", "percona-5.7-full.log", "mariadb-full.log"):
        assert seen > 10


def test_fixed_types_of_mysql8_extra():
    a, b = list(SlowlogParser(FIX / "mysql8-log_slow_extra.log", zone="Asia/Tokyo"))
    got = typed_attrs(a)
    assert got["Thread_id"] == "8"            # pt: a string, never summed
    assert got["Killed"] is False             # pt: a boolean
    assert got["Errno"] == 0 and got["Bytes_sent"] == 57
    assert typed_attrs(b)["Errno"] == 1062
    assert entry_row(b)["attrs"]["Thread_id"] == "9"


def test_fixed_types_of_percona():
    a, _ = list(SlowlogParser(FIX / "percona-5.7-full.log", zone="UTC"))
    got = typed_attrs(a)
    assert got["Last_errno"] == "0" and got["Killed"] is False
    assert isinstance(got["InnoDB_trx_id"], str)


def test_fixed_types_override_the_value(tmp_path):
    log = tmp_path / "slow.log"
    log.write_bytes(b"# Time: 240101 10:00:00\n# User@Host: a[a] @ h [1.2.3.4]  Id: 7\n"
                    b"# Schema: db  Last_errno: -1  Killed: 1  InnoDB_trx_id: 123\n"
                    b"# Query_time: 1.5  Lock_time: 0.1  Rows_sent: 1  Rows_examined: 2\n"
                    b"# Tmp_table_sizes: -1  Full_scan: Yes  Merge_passes: 3  Disk_crc: 77\n"
                    b"SET timestamp=1704103200;\nSELECT 1;\n")
    (ev,) = list(SlowlogParser(log, zone="UTC"))
    got = typed_attrs(ev)
    assert got["Thread_id"] == "7" and got["Last_errno"] == "-1"
    assert got["InnoDB_trx_id"] == "123" and got["Disk_crc"] == "77"
    assert got["Killed"] is True and got["Full_scan"] is True
    assert got["Merge_passes"] == 3
    assert got["Tmp_table_sizes"] == "-1"     # pt: a negative integer is a string


def test_frame_columns_follow_pt_types():
    pytest.importorskip("pandas")
    from binlogkit.frames import slowlog_frame
    df = slowlog_frame(FIX / "mysql8-log_slow_extra.log", server_tz="Asia/Tokyo")
    assert list(df["Thread_id"]) == ["8", "9"]
    assert list(df["Errno"]) == [0, 1062]
