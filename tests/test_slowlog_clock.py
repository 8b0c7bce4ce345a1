"""One time base for slow logs: the server's offset from SET timestamp vs # Time
(binlogkit/slowlog/clock.py), in the line parser, the bulk scanner, the digest,
the frames and export."""
import datetime
import json
import warnings
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from binlogkit.cli import main
from binlogkit.slowlog.clock import ZoneWarning, derive_offset
from binlogkit.slowlog.digest import Digest
from binlogkit.slowlog.parser import SlowlogParser
from binlogkit.slowlog.scan import BulkScanner

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "fixtures" / "slowlog" / "mariadb-full.log"
MARIADB_HEADER = (b"/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian). started with:\n"
                  b"Tcp port: 0  Unix socket: /tmp/x.sock\nTime\t\t    Id Command\tArgument\n")


def _run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_mariadb_full_digest_spans_its_three_seconds(jobs):
    r = _run("slowlog", "digest", "--format", "json", "--jobs", jobs, str(FULL))
    g = json.loads(r.stdout)["global"]
    first = datetime.datetime.fromisoformat(g["first_seen"].replace("Z", "+00:00"))
    last = datetime.datetime.fromisoformat(g["last_seen"].replace("Z", "+00:00"))
    assert 2.0 <= (last - first).total_seconds() <= 3.1
    assert "warning" not in r.stderr


@pytest.mark.parametrize("zone", [None, "UTC", "Asia/Kolkata"])
def test_every_entry_starts_at_its_set_timestamp_whatever_the_zone_given(zone):
    entries = list(SlowlogParser(FULL, zone=zone))
    assert len(entries) == 285
    for e in entries:
        assert e.start_us == int(e.attrs[b"timestamp"]) * 10**6, e


def _mariadb_log(zone, start_utc, n, step_s):
    """A MariaDB-shaped log of a server in ``zone``: # Time (local, the start,
    only when the second changes) and SET timestamp (epoch) of each entry."""
    tz = ZoneInfo(zone)
    out = [MARIADB_HEADER]
    last = None
    t = start_utc
    for i in range(n):
        wall = t.astimezone(tz)
        if wall.replace(tzinfo=None) != last:
            out.append(f"# Time: {wall:%y%m%d} {wall.hour:2d}:{wall:%M:%S}\n".encode())
            last = wall.replace(tzinfo=None)
        out.append(b"# User@Host: app[app] @ localhost []\n"
                   b"# Thread_id: 5  Schema: shop  QC_hit: No\n"
                   b"# Query_time: 0.250000  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\n"
                   + f"SET timestamp={int(t.timestamp())};\nINSERT INTO t VALUES ({i});\n".encode())
        t += datetime.timedelta(seconds=step_s)
    return b"".join(out)


def _bulk_ends(path, zone):
    class Sink:
        def __init__(self):
            self.ends = []

        def add(self, ev):
            self.ends.append(ev.end_us)

        def add_run(self, run):
            self.ends.extend(run.ends)
    sink = Sink()
    BulkScanner(path, zone=zone).scan(sink)
    return sink.ends


@pytest.mark.parametrize("zone,start", [
    ("America/New_York", datetime.datetime(2024, 11, 3, 5, 20, tzinfo=datetime.timezone.utc)),
    ("America/New_York", datetime.datetime(2024, 3, 10, 6, 20, tzinfo=datetime.timezone.utc)),
    ("Asia/Kolkata", datetime.datetime(2024, 6, 1, 0, 0, tzinfo=datetime.timezone.utc)),
    ("Australia/Lord_Howe", datetime.datetime(2024, 4, 6, 14, 20, tzinfo=datetime.timezone.utc)),
])
def test_across_dst_changes_exact_in_parser_and_bulk(tmp_path, zone, start):
    """Through a DST change (the repeated and the skipped hour), read on a machine
    in UTC without --server-tz, every entry is at its exact UTC instant."""
    path = tmp_path / "slow.log"
    path.write_bytes(_mariadb_log(zone, start, 120, 30))
    parser = SlowlogParser(path)
    entries = list(parser)
    expected = [int(e.attrs[b"timestamp"]) * 10**6 + 250000 for e in entries]
    assert [e.end_us for e in entries] == expected
    assert _bulk_ends(path, None) == expected
    assert not parser.stats.zone_assumed
    assert len(set(parser.stats.utc_offsets)) == (1 if zone == "Asia/Kolkata" else 2)


def test_mysql_end_time_and_client_set_timestamp(tmp_path):
    """MySQL 5.6 writes # Time at the end; a client's SET TIMESTAMP=1 (its
    # Time stays the real clock) teaches nothing, the last offset is kept."""
    log = (b"# Time: 240101 12:00:03\n# User@Host: a[a] @ h [1.2.3.4]  Id: 1\n"
           b"# Query_time: 2.500000  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\n"
           b"SET timestamp=1704110400;\nselect 1;\n"          # 2024-01-01 12:00:00Z, Berlin +1
           b"# Time: 240101 13:00:05\n# User@Host: a[a] @ h [1.2.3.4]  Id: 1\n"
           b"# Query_time: 0.100000  Lock_time: 0.000000  Rows_sent: 0  Rows_examined: 0\n"
           b"SET timestamp=1;\nselect 2;\n")
    path = tmp_path / "slow.log"
    path.write_bytes(log.replace(b"12:00:03", b"13:00:03"))
    a, b = SlowlogParser(path)
    assert a.end_us == (1704110400 + 3) * 10**6 and a.start_us == a.end_us - 2_500_000
    assert b.end_us == (1704110400 + 5) * 10**6


def test_derive_offset_rules():
    assert derive_offset(1000 + 19800, 1000, 0.0, True) == 19800          # +05:30
    assert derive_offset(1000 + 20700, 1000, 0.0, True) == 20700          # +05:45
    assert derive_offset(1000 - 18000 + 3, 1000, 2.9, False) == -18000    # MySQL: end
    assert derive_offset(1000 + 100, 1000, 0.0, True) is None             # off the grid
    assert derive_offset(10**9, 1, 0.0, False) is None                    # SET TIMESTAMP=1
    assert derive_offset(1000 + 16 * 3600, 1000, 0.0, True) is None       # no such zone


def test_assumed_zone_is_warned_once_in_frames_and_cli(tmp_path):
    import binlogkit.frames as bf
    path = tmp_path / "slow.log"
    path.write_bytes(b"# Time: 240101 12:00:03\n# User@Host: a[a] @ h [1.2.3.4]  Id: 1\n"
                     b"# Query_time: 2.5  Lock_time: 0  Rows_sent: 0  Rows_examined: 0\n"
                     b"select 1;\n")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        df = bf.slowlog_frame(path)
    zone_warnings = [w for w in got if issubclass(w.category, ZoneWarning)]
    assert len(zone_warnings) == 1 and "this machine's local time" in str(zone_warnings[0].message)
    assert df.attrs["server_zone"] == "this machine's zone (assumed)"
    r = _run("slowlog", "digest", str(path))
    assert r.stderr.count("warning:") == 1 and "--server-tz" in r.stderr
    r = _run("slowlog", "digest", "--server-tz", "UTC", str(path))
    assert "warning" not in r.stderr
    r = _run("export", str(path), "--what", "slowlog", "--format", "csv")
    assert r.stderr.count("warning:") == 1


def test_frames_record_the_derived_zone():
    import binlogkit.frames as bf
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZoneWarning)
        df = bf.slowlog_frame(FULL)
    assert df.attrs["utc_offsets"] == [-18000]
    assert df.attrs["server_zone"] == "UTC-05:00 (from SET timestamp)"
    assert (df["end"].max() - df["start"].min()).total_seconds() <= 3.1


def test_digest_agrees_between_parser_and_bulk_without_zone(tmp_path):
    path = tmp_path / "slow.log"
    path.write_bytes(_mariadb_log("Asia/Kolkata", datetime.datetime(
        2024, 6, 1, tzinfo=datetime.timezone.utc), 300, 0.4))
    from binlogkit.slowlog.parser import parse_slowlog
    a = Digest().add_all(parse_slowlog(path))
    b = Digest()
    BulkScanner(path).scan(b)
    assert (a.global_.first_us, a.global_.last_us) == (b.global_.first_us, b.global_.last_us)
    assert a.global_.first_us == 1717200000 * 10**6 + 250000
