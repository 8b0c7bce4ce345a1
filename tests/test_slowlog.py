"""Unit tests: parser edge cases, zones, malformed input, CLI, pandas-free import."""
import bz2
import gzip
import json
import lzma
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogkit.cli import main
from binlogkit.slowlog import fingerprint, query_id, short_id
from binlogkit.slowlog.parser import SlowlogParser

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "slowlog"

OLD = b"""# Time: 071015 21:43:52
# User@Host: root[root] @ localhost []
# Query_time: 2  Lock_time: 0  Rows_sent: 1  Rows_examined: 0
use test;
select sleep(2) from n;
# User@Host: root[root] @ localhost []
# Query_time: 0.5  Lock_time: 0  Rows_sent: 1  Rows_examined: 0
select
  'multi;
line' from t where id = 7;
# Time: 071015 21:43:53
# User@Host: root[root] @ localhost []
# Query_time: 1.000001  Lock_time: 0.000010  Rows_sent: 0  Rows_examined: 0
SET timestamp=1192484633;
select 1
"""


def entries(tmp_path, data, zone="UTC", name="s.log"):
    p = tmp_path / name
    p.write_bytes(data)
    parser = SlowlogParser(p, zone=zone)
    return list(parser), parser.stats


def test_old_format_inherits_time_and_db(tmp_path):
    (a, b, c), stats = entries(tmp_path, OLD, zone="Europe/Berlin")
    assert a.end_us == 1192477432 * 10**6           # 21:43:52 CEST = 19:43:52Z
    assert b.ts_inherited and b.end_us == a.end_us and b.db == b"test"
    assert b.start_us == b.end_us - 500000
    assert b.query == b"select\n  'multi;\nline' from t where id = 7"
    assert c.query == b"select 1\n" and c.query_time == 1.000001   # truncated last entry kept
    assert stats.entries == 3 and stats.skipped_lines == 0


def test_truncated_header_at_end_and_garbage(tmp_path):
    data = b"garbage\n\x00\xff junk\n" + OLD.replace(b"select 1\n", b"select 1;\n") + \
        b"# Time: 071015 21:44:00\n# User@Host: trunc"
    evs, stats = entries(tmp_path, data)
    assert len(evs) == 3
    assert stats.skipped_lines == 2 + 2 and stats.dropped_entries == 1


def test_bad_values_never_raise(tmp_path):
    data = (b"# Time: margdl 11:48:27\n# Query_time: 18446744073708.796870.000036  Lock_time: x\n"
            b"select 1;\n# Time: 2019-13-45T99:00:00Z\n# Query_time: 1\nselect 2;\n"
            b"# Query_time: 1e999  Lock_time: 0  Rows_sent: 1e999  Rows_examined: 9e999\nselect 3;\n")
    evs, stats = entries(tmp_path, data)
    assert [e.query for e in evs] == [b"select 1", b"select 2", b"select 3"]
    assert evs[0].query_time is None and stats.bad_values == 2 and stats.bad_times == 1
    assert evs[2].query_time is None and evs[2].rows_sent is None
    p = tmp_path / "bad.log"
    p.write_bytes(data)
    r = _run("digest", str(p), "--format", "json", "--server-tz", "UTC")
    assert r.exit_code == 0 and json.loads(r.stdout)["global"]["parse"]["bad_values"] == 2


@pytest.mark.parametrize("opener,suffix", [(gzip.compress, ".gz"), (bz2.compress, ".bz2"),
                                           (lzma.compress, ".xz")])
def test_compressed_inputs(tmp_path, opener, suffix):
    evs, _ = entries(tmp_path, opener(OLD), name="s" + suffix)
    assert len(evs) == 3


def test_fingerprint_rules():
    assert fingerprint("SELECT * FROM t WHERE a IN (1, 2,3) AND b='x' ORDER BY c ASC, d ASC LIMIT 5, 10") \
        == "select * from t where a in(?+) and b=? order by c, d limit ?"
    assert fingerprint("INSERT INTO t VALUES (1,'a'),(2,'b')") == "insert into t values(?+)"
    assert fingerprint("use shop") == "use ?"
    assert fingerprint("CALL p1(3)") == "call p1"
    assert fingerprint("select * from users_2009 /* c */ where x = NULL") == \
        "select * from users_? where x = ?"
    fp = "select sleep(?) from test.n"
    assert query_id(fp) == "A853B50CDEB4866B3A99CC42AEDCCFCD" and short_id(fp) == "3A99CC42AEDCCFCD"


def _run(*args, input=None):
    return CliRunner().invoke(main, ["slowlog", *args], input=input)


def test_cli_digest_json_and_since_until(tmp_path):
    p = tmp_path / "s.log"
    p.write_bytes(OLD)
    r = _run("digest", str(p), "--format", "json", "--server-tz", "Europe/Berlin", "--limit", "0")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    # the third entry's SET timestamp shows the server at UTC+00:00 then: said on stderr
    assert "--server-tz Europe/Berlin disagrees" in r.stderr
    assert d["global"]["count"] == 3 and len(d["classes"]) == 3
    c = d["classes"][0]
    assert len(c["id"]) == 32 and c["query_time"]["sum"] == 2.0
    assert c["first_seen"] == "2007-10-15T19:43:52.000000Z"
    # --since with an explicit zone is exact; zone-less is server-local
    r = _run("digest", str(p), "--format", "json", "--server-tz", "Europe/Berlin",
             "--since", "2007-10-15T19:43:53Z")
    assert json.loads(r.stdout)["global"]["count"] == 1
    r = _run("digest", str(p), "--format", "json", "--server-tz", "Europe/Berlin",
             "--until", "2007-10-15 21:43:52")
    assert json.loads(r.stdout)["global"]["count"] == 2


def test_cli_text_csv_events_and_stdin(tmp_path):
    r = _run("digest", "-", "--server-tz", "UTC", input=OLD)
    assert r.exit_code == 0 and "# Overall: 3 total, 3 unique" in r.output
    assert "skipped 0 lines" in r.output
    r = _run("digest", "-", "--format", "csv", "--group-by", "db", input=OLD)
    assert r.exit_code == 0 and r.output.splitlines()[1].split(",")[-1] == "test"
    r = _run("events", "-", "--server-tz", "UTC", input=OLD)
    rows = [json.loads(x) for x in r.output.splitlines()]
    assert rows[0]["end"] == "2007-10-15T21:43:52.000000Z" and rows[0]["db"] == "test"


def test_cli_errors_are_one_line(tmp_path):
    r = _run("digest", str(tmp_path / "missing.log"))
    assert r.exit_code == 1 and "missing.log" in r.output and "Traceback" not in r.output
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(OLD)[:40])
    r = _run("digest", str(bad))
    assert r.exit_code == 1 and "bad.gz" in r.output
    r = _run("digest", str(bad), "--server-tz", "Mars/Olympus")
    assert r.exit_code == 2


def test_import_is_pandas_free():
    code = "import sys, binlogkit.cli, binlogkit.slowlog; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_read_slowlog_dataframe():
    pd = pytest.importorskip("pandas")
    from binlogkit.frames import read_slowlog
    df = read_slowlog(FIX / "mysql8-log_slow_extra.log", server_tz="UTC")
    assert len(df) == 2 and str(df["end"].dt.tz) == "UTC"
    assert df["start"][0] == pd.Timestamp("2019-03-24T14:01:45.335765Z")
    assert df["Errno"].tolist() == [0, 1062] and df["rows_sent"].dtype == "Int64"


def test_bad_input_items(tmp_path):
    """Not a slow log (text, a gzip'd binlog), an unreadable input, an unwritable -o:
    one line naming the file, exit 1, never a traceback."""
    text = tmp_path / "notes.txt"
    text.write_text("hello\nworld\n")
    binlog = tmp_path / "binlog.gz"
    binlog.write_bytes(gzip.compress(
        (Path(__file__).resolve().parents[1] / "fixtures" / "binlog" / "crc32"
         / "mariadb-bin.000001").read_bytes()))
    for path in (text, binlog):
        r = _run("digest", str(path))
        assert r.exit_code == 1 and "not a slow log" in r.output and str(path) in r.output
    for path in (tmp_path, tmp_path / "missing.log"):       # a directory, a missing file
        r = _run("digest", str(path))
        assert r.exit_code == 1 and str(path) in r.output and len(r.output.splitlines()) == 1
    log = tmp_path / "old.log"
    log.write_bytes(OLD)
    for cmd in ("digest", "events"):
        r = _run(cmd, str(log), "-o", str(tmp_path / "nodir" / "out"))
        assert r.exit_code == 1 and "cannot write" in r.output
        assert len(r.output.splitlines()) == 1 and r.exception is None or isinstance(
            r.exception, SystemExit)
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    assert _run("digest", str(empty)).exit_code == 0      # empty: an empty report, as pt


def test_json_counts_are_integers_and_databases_unquoted(tmp_path):
    log = tmp_path / "q.log"
    log.write_bytes(b"# Time: 071015 21:43:52\n# User@Host: root[root] @ localhost []\n"
                    b"# Query_time: 2  Lock_time: 0  Rows_sent: 1  Rows_examined: 62951\n"
                    b"use `shop`;\nselect 1;\n"
                    b"# User@Host: root[root] @ localhost []\n"
                    b"# Query_time: 1  Lock_time: 0  Rows_sent: 1  Rows_examined: 3\n"
                    b"use shop;\nselect 2;\n")
    r = _run("digest", str(log), "--format", "json", "--server-tz", "UTC")
    cls = json.loads(r.output)["classes"][0]
    assert cls["rows_examined"]["sum"] == 62954 and isinstance(cls["rows_examined"]["max"], int)
    assert cls["databases"] == [{"value": "shop", "count": 2}]


def test_an_attribute_of_nan_is_perls_nan_in_the_text_report(tmp_path):
    """`InnoDB_pages_distinct: nan` is a number to Perl (NaN) and so to pt-query-digest:
    its rows say NaN where the value counts; the report used to end in a traceback."""
    entry = ("# User@Host: u[u] @ localhost []  Id: 1\n"
             "# Query_time: 0.000237  Lock_time: 0.000122  Rows_sent: 1  Rows_examined: 1\n"
             "#   InnoDB_pages_distinct: {}\nSET timestamp=1385600731;\nSELECT foo FROM bar WHERE id={};\n")
    log = tmp_path / "slow.log"
    log.write_text("# Time: 131128  1:05:31\n" + "".join(entry.format(v, i) for i, v in
                                                         enumerate(["2", "nan", "3"])))
    r = subprocess.run([sys.executable, "-m", "binlogkit", "slowlog", "digest", "--server-tz",
                        "UTC", str(log)], capture_output=True, text=True)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    ours = [line for line in r.stdout.splitlines() if line.startswith("# pages distin")]
    assert ours and all("NaN" in line and "nan" not in line for line in ours)
    pt = shutil.which("pt-query-digest")
    if pt:      # pt's own lines for the same log
        theirs = subprocess.run([pt, str(log)], capture_output=True, text=True).stdout
        assert ours == [line for line in theirs.splitlines() if line.startswith("# pages distin")]
