"""binlogkit export: formats, --jobs (same bytes as one job, order kept), errors."""
import io
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from binlogkit.analysis import records
from binlogkit.cli import main
from binlogkit.errors import BinlogError
from binlogkit.frames import events_frame, transactions_frame

pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parents[1]
BINLOGS = ROOT / "fixtures" / "binlog"
ALL = sorted(str(p) for s in ("crc32", "none", "compressed")
             for p in (BINLOGS / s).glob("mariadb-bin.*"))
CRC32 = [p for p in ALL if "/crc32/" in p]
SLOWLOGS = [str(ROOT / "fixtures" / "slowlog" / n) for n in ("mariadb-full.log",
                                                             "percona-5.7-full.log")]


def _rows_before_error(path):
    n = 0
    with pytest.raises(BinlogError):
        for _ in records.event_rows(path):
            n += 1
    return n


def run(*args):
    return CliRunner().invoke(main, ["export", *args], catch_exceptions=False)


def run_process(*args):
    """A real process: --jobs workers are spawned, stdout/stderr are real files."""
    return subprocess.run([sys.executable, "-m", "binlogkit", "export", *args],
                          capture_output=True, cwd=ROOT)


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_jobs_give_the_same_bytes_as_one_job(tmp_path, fmt):
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}.{fmt}"
        res = run_process(*ALL, "--what", "events", "--query", "-j", str(jobs), "-o", str(out),
                          "--chunk-size", "64")
        assert res.returncode == 0, res.stderr.decode()
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert len(outs[0]) > 1000


def test_parquet_round_trips_the_frame(tmp_path):
    out = tmp_path / "events.parquet"
    res = run(*CRC32, "--query", "-o", str(out))
    assert res.exit_code == 0, res.output
    back = pd.read_parquet(out)
    want = events_frame(CRC32, query=True)
    back["file"] = back["file"].astype(want["file"].dtype)
    pd.testing.assert_frame_equal(back, want)


def test_transactions_parquet(tmp_path):
    out = tmp_path / "tx.parquet"
    assert run(*CRC32, "--what", "transactions", "-o", str(out)).exit_code == 0
    back = pd.read_parquet(out)
    want = transactions_frame(CRC32)
    back["file"] = back["file"].astype(want["file"].dtype)
    pd.testing.assert_frame_equal(back, want)


def test_jobs_keep_input_order(tmp_path):
    """Files given last-first come out last-first, whichever worker finishes first."""
    files = list(reversed(ALL))
    out = tmp_path / "rev.csv"
    res = run_process(*files, "-j", "2", "-o", str(out))
    assert res.returncode == 0, res.stderr.decode()
    df = pd.read_csv(out)
    assert list(dict.fromkeys(df["file"])) == files
    assert len(df) == len(events_frame(files))


def test_csv_and_jsonl_text(tmp_path):
    want = transactions_frame(CRC32)
    res = run(*CRC32, "--what", "transactions", "--format", "csv")
    lines = res.output.splitlines()
    assert lines[0].split(",") == list(want.columns)
    assert len(lines) == len(want) + 1
    assert ",2026-11-21T09:48:49.000000Z," in lines[1]
    csv = pd.read_csv(io.StringIO(res.output))
    assert (csv["duration"] == want["duration"].dt.total_seconds()).all()
    res = run(*CRC32, "--what", "transactions")          # stdout defaults to jsonl
    rows = [json.loads(line) for line in res.output.splitlines()]
    assert len(rows) == len(want)
    assert rows[0]["file"] == CRC32[0]                     # no '\/' escapes left behind
    assert "\\/" not in res.output
    assert rows[0]["gtid"] == want["gtid"].iloc[0]
    assert rows[0]["start"].endswith("Z")


def test_format_from_output_suffix(tmp_path):
    out = tmp_path / "e.parquet"
    assert run(CRC32[0], "-o", str(out)).exit_code == 0
    assert out.read_bytes()[:4] == b"PAR1"


def test_slowlog_export(tmp_path):
    from binlogkit.analysis.slowlog_frame import read_slowlog
    out = tmp_path / "slow.parquet"
    res = run(*SLOWLOGS, "--what", "slowlog", "--server-tz", "UTC", "-o", str(out))
    assert res.exit_code == 0, res.output
    back = pd.read_parquet(out)
    ref = read_slowlog(SLOWLOGS, server_tz="UTC")
    assert len(back) == len(ref) > 0
    assert back["fingerprint"].tolist() == ref["fingerprint"].tolist()
    attrs = [json.loads(a) for a in back["attrs"]]        # JSON text of an object, never null
    assert attrs and all(isinstance(a, dict) for a in attrs)
    assert attrs == [_attrs(r) for r in _slowlog_events(*SLOWLOGS)]


SLOW_ALL = SLOWLOGS + [str(ROOT / "fixtures" / "slowlog" / "corpus.log")]


def _slowlog_events(*args):
    """`binlogkit slowlog events` rows (JSON lines), the reference for slowlog exports."""
    res = subprocess.run([sys.executable, "-m", "binlogkit", "slowlog", "events",
                          "--server-tz", "UTC", *args], capture_output=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr.decode()
    return [json.loads(line) for line in res.stdout.decode().splitlines()]


def _attrs(row):
    assert isinstance(row["attrs"], dict)
    return row["attrs"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_slowlog_jsonl_rows_are_slowlog_events_rows(jobs):
    """attrs is an object in both (it was a JSON string in export), and so is every row."""
    res = run_process(*SLOW_ALL, "--what", "slowlog", "--server-tz", "UTC", "-j", jobs,
                      "--chunk-size", "7")
    assert res.returncode == 0, res.stderr.decode()
    got = [json.loads(line) for line in res.stdout.decode().splitlines()]
    want = _slowlog_events(*SLOW_ALL)
    assert len(got) == len(want) > 300
    assert got == want
    assert all(isinstance(r["attrs"], dict) for r in got) and any(r["attrs"] for r in got)


def test_slowlog_entry_without_attrs_is_an_empty_object(tmp_path):
    log = tmp_path / "slow.log"
    log.write_text("# Time: 2024-01-01T00:00:00.000000Z\n# User@Host: root[root] @ localhost []\n"
                   "# Query_time: 1.5  Lock_time: 0.0 Rows_sent: 0  Rows_examined: 0\nSELECT 1;\n")
    res = run_process(str(log), "--what", "slowlog", "--server-tz", "UTC")
    assert res.returncode == 0, res.stderr.decode()
    got = [json.loads(line) for line in res.stdout.decode().splitlines()]
    assert got == _slowlog_events(str(log))
    assert [r["attrs"] for r in got] == [{}]


def test_slowlog_csv_attrs_is_the_objects_json_text(tmp_path):
    out = tmp_path / "slow.csv"
    res = run_process(*SLOW_ALL, "--what", "slowlog", "--server-tz", "UTC", "-o", str(out))
    assert res.returncode == 0, res.stderr.decode()
    back = pd.read_csv(out, keep_default_na=False)
    assert [json.loads(a) for a in back["attrs"]] == [_attrs(r) for r in _slowlog_events(*SLOW_ALL)]


def test_slowlog_csv_attrs_text_is_the_same_in_slowlog_events(tmp_path):
    """The same cell text in both commands' CSV (compact JSON, UTF-8 kept)."""
    out = tmp_path / "slow.csv"
    res = run_process(*SLOW_ALL, "--what", "slowlog", "--server-tz", "UTC", "-o", str(out))
    assert res.returncode == 0, res.stderr.decode()
    events = subprocess.run([sys.executable, "-m", "binlogkit", "slowlog", "events", "--server-tz",
                             "UTC", "--format", "csv", *SLOW_ALL], capture_output=True, cwd=ROOT)
    assert events.returncode == 0, events.stderr.decode()
    ours = pd.read_csv(out, keep_default_na=False)["attrs"].tolist()
    theirs = pd.read_csv(io.BytesIO(events.stdout), keep_default_na=False)["attrs"].tolist()
    assert ours == theirs and any(a != "{}" for a in ours)


def test_json_lines_splice_json_text_columns():
    from binlogkit.analysis.export import _json_lines
    df = pd.DataFrame({"q": ["a/b\u2028c", None], "attrs": ['{"k":"x/y","n":1}', None]})
    rows = [json.loads(line) for line in _json_lines(df, ("attrs",)).split("\n") if line]
    assert rows == [{"q": "a/b\u2028c", "attrs": {"k": "x/y", "n": 1}}, {"q": None, "attrs": None}]
    assert _json_lines(df.iloc[:0], ("attrs",)) == ""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bad_input_is_one_line_and_exit_1(tmp_path, jobs):
    bad = str(BINLOGS / "bad" / "truncated-event.bin")
    out = tmp_path / "o.csv"
    res = run_process(CRC32[0], bad, "-j", jobs, "-o", str(out))
    assert res.returncode == 1
    err = res.stderr.decode()
    assert err == (f"binlogkit export: {bad}, offset 675, event type 2: "
                   "Event truncated, data_len: 86, event_type: 2\n")
    df = pd.read_csv(out)       # what came before the error is there
    assert len(df) == len(events_frame(CRC32[0])) + _rows_before_error(bad)


def test_missing_file(tmp_path):
    res = run_process(str(tmp_path / "nope"), "-o", str(tmp_path / "o.jsonl"))
    assert res.returncode == 1
    assert res.stderr.decode().startswith(f"binlogkit export: {tmp_path / 'nope'}, offset 0: ")
    assert b"Traceback" not in res.stderr


def test_unknown_output_suffix_is_a_usage_error(tmp_path):
    """-o x.xlsx wrote JSON lines into a file named as a spreadsheet: now it asks for --format."""
    out = tmp_path / "x.xlsx"
    res = run(CRC32[0], "-o", str(out))
    assert res.exit_code == 2 and "--format" in res.output
    assert not out.exists()
    assert run(CRC32[0], "-o", str(out), "--format", "csv").exit_code == 0
    assert out.read_bytes().startswith(b"file,")


def test_usage_errors(tmp_path):
    assert run(CRC32[0], "--format", "parquet").exit_code == 2
    assert run(CRC32[0], "-o", CRC32[0], "--format", "csv").exit_code == 2
    assert run(CRC32[0], "--jobs", "0").exit_code == 2


def test_stats_report_workers(tmp_path):
    res = run_process(*ALL, "-j", "2", "-o", str(tmp_path / "o.jsonl"), "--stats")
    assert res.returncode == 0
    stats = json.loads(res.stderr.decode().strip().splitlines()[-1])
    assert stats["rows"] == len(events_frame(ALL))
    assert stats["workers"] == 2
    assert all(kib > 10_000 for kib in stats["peak_rss_kib"])
