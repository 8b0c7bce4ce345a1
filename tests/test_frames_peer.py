"""Frames over other projects' MySQL binlogs (../shared/peer; skipped when absent)."""
from pathlib import Path

import pytest

from binlogkit.errors import BinlogError
from binlogkit.frames import events_frame, transactions_frame

PEER = Path(__file__).resolve().parents[2] / "shared" / "peer" / "mysql-binlogs"
BROKEN = {"binlog_truncated_event.000001", "corrupt-relay-bin.000624", "mysql-bin.sakila.gz"}
FILES = sorted(p for p in PEER.glob("*/*") if p.is_file() and p.name not in BROKEN
               and p.suffix not in (".md", ".txt")) if PEER.is_dir() else []

pytestmark = pytest.mark.skipif(not FILES, reason="../shared/peer/mysql-binlogs is absent")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_frames_of_every_peer_binlog(path):
    ev = events_frame(path)
    tx = transactions_frame(path)
    assert (ev["end_pos"] - ev["pos"] == ev["bytes"]).all()
    assert tx["bytes"].sum() <= ev["bytes"].sum()


def test_mysql8_transaction_length_is_the_transaction_size():
    """MySQL 8 writes each transaction's size in its GTID event: our boundaries agree."""
    checked = 0
    for path in FILES:
        tx = transactions_frame(path)
        mysql8 = tx[tx["transaction_length"].notna()]
        assert (mysql8["transaction_length"] == mysql8["bytes"]).all(), path.name
        assert mysql8["immediate_commit_timestamp"].notna().all()
        assert mysql8["original_commit_timestamp"].notna().all()
        late = mysql8["immediate_commit_timestamp"] - mysql8["start"]
        assert (late >= pd_timedelta(0)).all() and (late < pd_timedelta(60)).all()
        checked += len(mysql8)
    assert checked >= 30


def test_tagged_gtid_text():
    path = PEER / "rust_mysql_common" / "binlog_transaction_with_GTID_TAG.000001"
    gtids = transactions_frame(path)["gtid"].dropna().tolist()
    assert gtids and all(g.count(":") == 2 for g in gtids)


@pytest.mark.parametrize("name", ["binlog_truncated_event.000001", "corrupt-relay-bin.000624"])
def test_broken_peer_files_raise(name):
    path = next(PEER.glob(f"*/{name}"))
    with pytest.raises(BinlogError) as info:
        events_frame(path)
    assert info.value.path == str(path) and info.value.offset is not None


def pd_timedelta(seconds):
    import pandas as pd
    return pd.Timedelta(seconds=seconds)
