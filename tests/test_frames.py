"""binlogkit.frames: columns, dtypes, values checked against recorded mariadb-binlog output."""
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from binlogkit.analysis import records
from binlogkit.errors import BadMagicError, BinlogError, TruncatedEventError
from binlogkit.frames import (
    EVENT_DTYPES, TRANSACTION_DTYPES, empty_frame, events_frame, rotations_frame,
    slowlog_frame, transactions_frame,
)

ROOT = Path(__file__).resolve().parents[1]
BINLOGS = ROOT / "fixtures" / "binlog"
CRC32 = sorted(str(p) for p in (BINLOGS / "crc32").glob("mariadb-bin.*"))
EXPECTED = ROOT / "fixtures" / "expected" / "crc32" / "default@UTC.out"
SLOWLOG = ROOT / "fixtures" / "slowlog" / "mariadb-full.log"

HEADER = re.compile(rb"^#\d{6} [ \d]\d:\d\d:\d\d server id (\d+)  end_log_pos (\d+) "
                    rb"CRC32 0x[0-9a-f]{8} (?:\t|\n#)(.*)$", re.M)


def _dtypes(df):
    return {c: str(t) for c, t in df.dtypes.items()}


def _expected(dtypes, **extra):
    out = {c: str(t) for c, t in dtypes.items()}
    out.update(extra)
    return out


@pytest.fixture(scope="module")
def events():
    return events_frame(CRC32, query=True)


@pytest.fixture(scope="module")
def transactions():
    return transactions_frame(CRC32)


@pytest.fixture(scope="module")
def printed():
    return HEADER.findall(EXPECTED.read_bytes())


# -- columns and dtypes ---------------------------------------------------------------------

def test_events_columns_and_dtypes(events):
    assert list(events.columns) == list(EVENT_DTYPES) + ["query"]
    assert _dtypes(events) == _expected(EVENT_DTYPES, query="string")
    assert str(events["timestamp"].dtype) == "datetime64[ns, UTC]"
    assert list(events["file"].cat.categories) == CRC32
    assert isinstance(events["type"].dtype, pd.CategoricalDtype)


def test_transactions_columns_and_dtypes(transactions):
    assert list(transactions.columns) == list(TRANSACTION_DTYPES)
    assert _dtypes(transactions) == _expected(TRANSACTION_DTYPES)
    assert (transactions["duration"] == transactions["commit"] - transactions["start"]).all()


def test_query_column_only_when_asked():
    df = events_frame(CRC32[0])
    assert "query" not in df
    assert list(df.columns) == list(EVENT_DTYPES)


@pytest.mark.parametrize("what,dtypes", [("events", EVENT_DTYPES),
                                         ("transactions", TRANSACTION_DTYPES)])
def test_empty_inputs_give_empty_typed_frames(what, dtypes):
    make = events_frame if what == "events" else transactions_frame
    for df in (make([]), make(str(BINLOGS / "bad" / "magic-only.bin")), empty_frame(what)):
        assert len(df) == 0
        assert list(df.columns) == list(dtypes)
        got = _dtypes(df)
        got.pop("file")
        want = _expected(dtypes)
        want.pop("file")
        assert got == want


@pytest.mark.parametrize("name,error,offset", [
    ("empty.bin", BadMagicError, 0), ("not-a-binlog.txt", BadMagicError, 0),
    ("truncated-event.bin", TruncatedEventError, 675), ("missing.bin", BinlogError, 0),
])
def test_bad_input_raises_binlog_error_with_file_and_offset(name, error, offset):
    path = str(BINLOGS / "bad" / name)
    with pytest.raises(error) as info:
        events_frame(path)
    assert info.value.path == path
    assert info.value.offset == offset
    assert str(info.value).startswith(f"{path}, offset {offset}")


def test_chunked_reads_give_the_same_frame(events):
    small = events_frame(CRC32, query=True, chunk_size=7)
    pd.testing.assert_frame_equal(small, events)
    tx = transactions_frame(CRC32, chunk_size=3)
    pd.testing.assert_frame_equal(tx, transactions_frame(CRC32))


# -- values against the real mariadb-binlog's recorded output ------------------------------

def test_every_printed_event_is_a_row(events, printed):
    """mariadb-binlog prints one header per event: same end positions, same server ids."""
    want = Counter((int(end), int(sid)) for sid, end, _ in printed)
    got = Counter(zip(events["end_pos"].tolist(), events["server_id"].tolist()))
    assert got == want
    assert (events["end_pos"] - events["pos"] == events["bytes"]).all()


def test_gtids_match_printed(events, printed):
    want = [re.match(rb"GTID (\S+)", text).group(1).decode() for _, _, text in printed
            if text.startswith(b"GTID ")]
    got = events.loc[events["type"] == "Gtid", "gtid"].tolist()
    assert got == want


def test_query_post_header_matches_printed(events, printed):
    pat = re.compile(rb"Query\tthread_id=(\d+)\texec_time=(\d+)\terror_code=(\d+)\txid=(\d+)")
    want = [(int(end), *map(int, pat.match(text).groups()))
            for _, end, text in printed if text.startswith(b"Query\t")]
    q = events[events["type"] == "Query"]
    got = list(zip(q["end_pos"], q["thread_id"], q["exec_time"], q["error_code"],
                   q["xid"].fillna(0)))
    assert [tuple(map(int, g)) for g in got] == want


def test_xids_match_printed(events, printed):
    want = [int(text[6:]) for _, _, text in printed if text.startswith(b"Xid = ")]
    assert events.loc[events["type"] == "Xid", "xid"].tolist() == want


def test_row_counts_match_printed(events):
    """'# Number of rows: N' (print_row_count) summed over the log."""
    text = EXPECTED.read_bytes()
    want = sum(int(n) for n in re.findall(rb"^# Number of rows: (\d+)$", text, re.M))
    assert want > 0
    assert int(events["rows"].sum()) == want


def test_tables_from_table_maps(events, printed):
    want = Counter(re.match(rb"Table_map: `([^`]*)`\.`([^`]*)`", text).groups()
                   for _, _, text in printed if text.startswith(b"Table_map: "))
    maps = events[events["type"] == "Table_map"]
    got = Counter((d.encode(), t.encode()) for d, t in zip(maps["db"], maps["table"]))
    assert got == want
    rows = events[events["rows"].notna()]
    assert rows["table"].notna().all()


def test_statement_text(events):
    q = events[events["type"] == "Query"]["query"]
    assert q.str.startswith("CREATE DATABASE d1").any()
    annotated = events[events["type"] == "Annotate_rows"]["query"]
    assert annotated.notna().all() and annotated.str.len().gt(0).all()


# -- transactions --------------------------------------------------------------------------

def test_one_transaction_per_gtid(events, transactions):
    gtids = events.loc[events["type"] == "Gtid", "gtid"].tolist()
    assert transactions["gtid"].tolist() == gtids
    assert (transactions["kind"] != "incomplete").all()


def test_transactions_add_up(events, transactions):
    """Every event inside a GTID group belongs to exactly one transaction."""
    inside = events[events["gtid"].notna()]
    assert transactions["events"].sum() == len(inside)
    assert transactions["bytes"].sum() == inside["bytes"].sum()
    assert transactions["rows"].sum() == events["rows"].sum()
    by_gtid = inside.groupby("gtid", sort=False)
    starts = by_gtid["pos"].min()
    ends = by_gtid["end_pos"].max()
    t = transactions.set_index("gtid")
    assert (t.loc[starts.index, "start_pos"] == starts).all()
    assert (t.loc[ends.index, "end_pos"] == ends).all()


def test_transaction_kinds(printed, transactions):
    """ddl from the GTID's DDL flag as printed ('GTID 0-1-1 ddl'), commit ends at Xid
    or COMMIT, XA PREPARE groups end at the XA_prepare event."""
    ddl = [re.match(rb"GTID (\S+)", t).group(1).decode() for _, _, t in printed
           if t.startswith(b"GTID ") and t.endswith(b" ddl")]
    assert transactions.loc[transactions["kind"] == "ddl", "gtid"].tolist() == ddl
    assert (transactions["kind"] == "xa_prepare").sum() >= 1
    commits = transactions[transactions["kind"] == "commit"]
    with_xid = commits["xid"].notna()
    assert with_xid.sum() == sum(1 for _, _, t in printed if t.startswith(b"Xid = "))


def test_walk_without_gtids_uses_begin_commit():
    """Logs without GTID events (old MySQL): BEGIN..COMMIT groups, lone statements."""
    walk = records._Walk(None, False)
    marks = [records._query_mark(w, walk) for w in
             (b"CREATE TABLE t (a INT)", b"BEGIN", b"INSERT INTO t VALUES (1)",
              b"ROLLBACK TO SP1", b"ROLLBACK WORK TO SAVEPOINT SP1", b"COMMIT")]
    assert marks == [(records.BEGINS | records.ENDS, "statement"), (records.BEGINS, None),
                     (records.INSIDE, None), (records.INSIDE, None), (records.INSIDE, None),
                     (records.ENDS, "commit")]


def test_mysql8_gtid_columns():
    """Commit timestamps and transaction_length come from the MySQL GTID decoder."""
    from binlogkit.binlog import layout as L
    from binlogkit.binlog.mysql_events import MysqlGtidBody

    class Raw:
        type_code = L.GTID_LOG_EVENT
    body = MysqlGtidBody(L.GTID_LOG_EVENT, 0, bytes(range(16)), 42,
                         original_commit_timestamp=1_700_000_000_123_456,
                         immediate_commit_timestamp=1_700_000_000_223_456,
                         transaction_length=777)
    walk = records._Walk(None, False)
    d = records._mysql_gtid_detail(Raw, body, walk)
    assert d[3] == "00010203-0405-0607-0809-0a0b0c0d0e0f:42"
    assert d[8:11] == (1_700_000_000_123_456, 1_700_000_000_223_456, 777)
    assert walk.standalone == records.PENDING
    assert records._query_mark(b"ALTER TABLE t ADD c INT", walk) == (records.ENDS, "ddl")


# -- rotations and slow logs -----------------------------------------------------------------

def test_rotations_frame_forwards_to_rotations():
    df = rotations_frame(CRC32)
    assert df["file"].tolist() == [Path(p).name for p in CRC32]
    assert df["size_bytes"].tolist() == [Path(p).stat().st_size for p in CRC32]


def test_slowlog_frame_wraps_read_slowlog():
    from binlogkit.analysis.slowlog_frame import read_slowlog
    df = slowlog_frame(SLOWLOG)
    ref = read_slowlog(str(SLOWLOG))
    assert len(df) == len(ref) > 0
    assert str(df["start"].dtype) == str(df["end"].dtype) == "datetime64[ns, UTC]"
    assert (df["end"] == ref["end"]).all()
    assert str(df["rows_sent"].dtype) == "Int64"


# -- progress and layering ---------------------------------------------------------------------

def test_progress_bar_when_forced(capsys):
    events_frame(CRC32[0], progress=True)
    err = capsys.readouterr().err
    assert "reading" in err and "100%" in err


def test_no_progress_bar_when_not_interactive(capsys):
    events_frame(CRC32[0])
    assert capsys.readouterr().err == ""


def test_print_never_imports_pandas(tmp_path):
    code = ("import sys; from binlogkit.cli import main\n"
            "try:\n    main(['print', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('PANDAS' if 'pandas' in sys.modules else 'NOPANDAS')\n")
    out = subprocess.run([sys.executable, "-c", code, CRC32[0]], capture_output=True)
    assert out.stdout.startswith(b"/*!50530")
    assert out.stderr.endswith(b"NOPANDAS")


# -- the df.binlogkit accessor -------------------------------------------------------------------

LAB = sorted(str(p) for p in (ROOT / "fixtures" / "lab").glob("mariadb-bin.*"))


@pytest.fixture(scope="module")
def lab_frames():
    if not LAB:
        pytest.skip("fixtures/lab is absent")
    return events_frame(LAB), transactions_frame(LAB)


def test_commit_rate_counts_every_commit(lab_frames):
    ev, tx = lab_frames
    rate = tx.binlogkit.commit_rate("1s")
    assert rate.sum() == (tx["kind"] != "rollback").sum() > 0
    assert str(rate.index.tz) == "UTC"
    assert (rate.index[1:] - rate.index[:-1] == pd.Timedelta("1s")).all()
    assert ev.binlogkit.commit_rate("1s").sum() == ev["gtid"].nunique()
    assert (rate == 0).any()      # the lab's injected 2 s rotation stalls stop commits


def test_binlog_growth_adds_up_to_the_bytes(lab_frames):
    ev, tx = lab_frames
    assert tx.binlogkit.binlog_growth("5s").sum() == tx["bytes"].sum()
    assert ev.binlogkit.binlog_growth("1min").sum() == ev["bytes"].sum()
    total = ev.binlogkit.binlog_growth("1s", cumulative=True)
    assert total.is_monotonic_increasing and total.iloc[-1] == ev["bytes"].sum()


def test_plots_return_axes_with_the_series(lab_frames):
    import matplotlib
    matplotlib.use("Agg")
    _, tx = lab_frames
    ax = tx.binlogkit.plot_commit_rate("1s")
    (line,) = ax.get_lines()
    assert line.get_ydata()[:-1].tolist() == tx.binlogkit.commit_rate("1s").tolist()
    ax = tx.binlogkit.plot_binlog_growth("5s")
    assert ax.get_ylabel() == "MiB"


def test_timeline_on_a_slowlog_frame(lab_frames):
    slow = slowlog_frame(ROOT / "fixtures" / "lab" / "slow.log.gz", server_tz="UTC")
    fig = slow.binlogkit.timeline(rotations=rotations_frame(LAB), threshold=0.5)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert sum(len(c.get_offsets()) for c in ax.collections) == len(slow)
    with pytest.raises(ValueError):
        lab_frames[1].binlogkit.timeline()


def test_accessor_refuses_other_frames():
    with pytest.raises(AttributeError):
        pd.DataFrame({"a": [1]}).binlogkit


def test_resampling_decades_per_second_is_refused(transactions):
    """crc32/000003 holds events dated 1970 and 2038: 2e9 one-second bins."""
    with pytest.raises(ValueError, match="intervals of 1s"):
        transactions.binlogkit.commit_rate("1s")
    assert transactions.binlogkit.commit_rate("3650D").sum() == len(transactions) - (
        transactions["kind"] == "rollback").sum()


@pytest.mark.parametrize("run", ["lab", "lab_confounders/logged", "lab_confounders/filtered"])
def test_stalls_frame_is_what_the_report_finds(run):
    """bf.stalls_frame is the public way to the report's stalls (the notebooks use it)."""
    from binlogkit.frames import stalls_frame
    from binlogkit.analysis.stallreport import build_report
    where = ROOT / "fixtures" / run
    binlogs, slowlogs = sorted(where.glob("mariadb-bin.0*")), [where / "slow.log.gz"]
    got = stalls_frame(binlogs, slowlogs[0])
    assert len(got) > 0 and set(got["cause"]) <= {"binlog_rotation", "lock", "commit_sync",
                                                   "unknown"}
    pd.testing.assert_frame_equal(got, build_report(binlogs, slowlogs).stalls)


def test_stalls_frame_without_binlogs_or_stalls():
    from binlogkit.frames import stalls_frame
    got = stalls_frame([], SLOWLOG)
    assert got.empty and {"start", "cause", "rotation_from"} <= set(got.columns)
