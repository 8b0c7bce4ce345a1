"""Rotations (header-only pass), pile-ups, stall attribution and hints, on small inputs."""
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from binlogkit.analysis.pileups import find_pileups, statement_kind, statements_frame
from binlogkit.analysis.rotations import (
    binlog_sort_key, restarts, rotations_frame, rotations_table, scan_binlog,
)
from binlogkit.analysis.stalls import cadence, find_stalls
from binlogkit.errors import BinlogError

ROOT = Path(__file__).resolve().parents[1]
LAB = ROOT / "fixtures" / "lab"
BINLOGS = sorted(LAB.glob("mariadb-bin.0*"))
T0 = pd.Timestamp("2024-05-01 03:00:00", tz="UTC")


# -- rotations -------------------------------------------------------------------------

def test_rotations_frame_of_lab_run():
    files = rotations_frame([str(p) for p in BINLOGS])
    assert list(files["file"]) == [p.name for p in BINLOGS]
    assert list(files["size_bytes"]) == [p.stat().st_size for p in BINLOGS]
    assert list(files["rotate_to"][:-1]) == [p.name for p in BINLOGS[1:]]
    assert pd.isna(files["rotate_to"].iloc[-1]) and files["stopped"].iloc[-1]
    assert not files["in_use"].any()
    assert files["created"].notna().tolist() == [True] + [False] * (len(BINLOGS) - 1)
    assert (files["first_event"] <= files["last_event"]).all()
    assert files["server_version"].str.contains("MariaDB").all()
    assert files["first_commit"].isna().all()          # MariaDB GTIDs have no commit time
    rot = rotations_table(files)
    assert list(rot["from_file"]) == [p.name for p in BINLOGS[:-1]]
    assert list(rot["at"]) == list(files["rotated_at"].iloc[:-1])
    assert (rot["lifetime_s"] >= 0).all() and not rot["restart_after"].any()
    assert list(rot["next_opened_at"]) == list(files["first_event"].iloc[1:])
    assert (rot["next_opened_at"] >= rot["at"]).all()
    r = restarts(files)
    assert list(r["file"]) == [BINLOGS[0].name] and r["previous_end"].iloc[0] is None


def test_sort_key_and_missing_files(tmp_path):
    assert binlog_sort_key("a/mariadb-bin.000010") > binlog_sort_key("mariadb-bin.000009")
    for p in BINLOGS[:2] + BINLOGS[3:5]:
        shutil.copy(p, tmp_path / p.name)
    given = [str(tmp_path / p.name) for p in (BINLOGS[4], BINLOGS[0], BINLOGS[3], BINLOGS[1])]
    rot = rotations_table(rotations_frame(given))
    # 000003 was not given: the start of 000004 still shows its rotation
    assert list(rot["from_file"]) == [BINLOGS[i].name for i in (0, 1, 2, 3, 4)]
    assert list(rot["inferred"]) == [False, False, True, False, False]
    assert list(rot["next_given"]) == [True, False, True, True, False]
    assert rot["size_bytes"].isna().tolist() == [False, False, True, False, False]
    assert rot["at"].iloc[2] == rotations_frame(given)["first_event"].iloc[2]
    assert rot["missing_before"].iloc[3] == [BINLOGS[2].name]
    assert all(m == [] for i, m in enumerate(rot["missing_before"]) if i != 3)


def test_restart_files_from_printer_fixtures():
    files = rotations_frame(sorted(str(p) for p in (ROOT / "fixtures/binlog/crc32").iterdir()))
    r = restarts(files)
    assert len(r) == files["created"].notna().sum() >= 1
    for _, row in r.iloc[1:].iterrows():
        assert row["previous_end"] in ("clean shutdown", "crash (previous file still marked in use)",
                                       "crash (no STOP event)")


def test_scan_rejects_non_binlog():
    with pytest.raises(BinlogError) as e:
        scan_binlog(ROOT / "fixtures/binlog/bad/not-a-binlog.txt")
    assert "not-a-binlog.txt" in str(e.value) and "offset 0" in str(e.value)


# -- statements -----------------------------------------------------------------------------

@pytest.mark.parametrize("query, kind", [
    (b"INSERT INTO t VALUES (1)", "write"), (b"  update t set a=1", "write"),
    (b"/* app */ DELETE FROM t", "write"), (b"COMMIT", "commit"), (b"xa commit 'x'", "commit"),
    (b"SELECT 1", "read"), (b"(SELECT 1) UNION (SELECT 2)", "read"), (b"show tables", "read"),
    (b"BEGIN", "other"), (b"SET NAMES utf8", "other"), (b"", "other"),
    (b"CREATE TABLE x (a int)", "write"),
])
def test_statement_kind(query, kind):
    assert statement_kind(query) == kind


MARIADB_LOG = """\
/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-0+deb12u1-log (Debian 12). started with:
Tcp port: 0  Unix socket: /tmp/x.sock
Time		    Id Command	Argument
# Time: 240501  3:00:05
# User@Host: root[root] @ localhost []
# Thread_id: 6  Schema: lab  QC_hit: No
# Query_time: 2.500000  Lock_time: 0.000010  Rows_sent: 0  Rows_examined: 0
# Rows_affected: 1  Bytes_sent: 11
SET timestamp=1714532405;
INSERT INTO t VALUES (1);
# Time: 240501  3:00:07
# User@Host: root[root] @ localhost []
# Thread_id: 7  Schema: lab  QC_hit: No
# Query_time: 0.000200  Lock_time: 0.000010  Rows_sent: 1  Rows_examined: 1
# Rows_affected: 0  Bytes_sent: 60
SET timestamp=1714532407;
SELECT 1;
"""


def test_mariadb_time_is_the_statement_start(tmp_path):
    """MariaDB's '# Time' (and SET timestamp) is when the statement began."""
    p = tmp_path / "slow.log"
    p.write_text(MARIADB_LOG)
    st = statements_frame(p, zone="UTC")
    first = st[st["kind"] == "write"].iloc[0]
    assert first["start"] == pd.Timestamp("2024-05-01 03:00:05", tz="UTC")
    assert first["end"] == pd.Timestamp("2024-05-01 03:00:07.5", tz="UTC")
    assert first["time_res_s"] == 1.0
    assert list(st["kind"]) == ["read", "write"]          # sorted by end


def test_mysql_time_is_the_end(tmp_path):
    p = tmp_path / "slow.log"
    p.write_text("# Time: 2024-05-01T03:00:07.500000Z\n# User@Host: a[a] @ h []  Id: 5\n"
                 "# Query_time: 2.500000  Lock_time: 0.000010 Rows_sent: 0  Rows_examined: 0\n"
                 "SET timestamp=1714532405;\nINSERT INTO t VALUES (1);\n")
    st = statements_frame(p, zone="UTC")
    assert st["end"].iloc[0] == pd.Timestamp("2024-05-01 03:00:07.5", tz="UTC")
    assert st["start"].iloc[0] == pd.Timestamp("2024-05-01 03:00:05", tz="UTC")
    assert st["time_res_s"].iloc[0] == 0.0


# -- synthetic statements -------------------------------------------------------------------

def frame(rows):
    """rows: (start_s, query_time, kind[, lock_time[, rows_examined]]) relative to T0."""
    recs = []
    for r in rows:
        start, qt, kind = r[:3]
        lock = r[3] if len(r) > 3 else 0.0
        exam = r[4] if len(r) > 4 else 1.0
        q = {"write": "INSERT INTO t VALUES (1)", "commit": "COMMIT",
             "read": "SELECT a FROM t WHERE id = 1", "other": "BEGIN"}[kind]
        recs.append({"start": T0 + pd.Timedelta(seconds=start),
                     "end": T0 + pd.Timedelta(seconds=start + qt), "time_res_s": 0.0,
                     "query_time": qt, "lock_time": lock, "rows_examined": exam, "kind": kind,
                     "query": q, "file": "x", "line": 0})
    return pd.DataFrame(recs).sort_values("end").reset_index(drop=True)


def background(n=200, span=60.0, seed=1):
    rng = np.random.default_rng(seed)
    kinds = rng.choice(["write", "read", "commit"], size=n)
    return [(float(t), float(rng.uniform(0.0001, 0.01)), k)
            for t, k in zip(rng.uniform(0, span, n), kinds)]


def rotation(at_s, name="mariadb-bin.000041", nxt="mariadb-bin.000042"):
    return {"from_file": name, "to_file": nxt, "at": T0 + pd.Timedelta(seconds=at_s),
            "size_bytes": 1 << 30, "opened_at": T0, "lifetime_s": at_s, "next_given": True,
            "next_opened_at": T0 + pd.Timedelta(seconds=at_s),
            "missing_before": [], "restart_after": False, "commit_gap_s": float("nan")}


def stall_rows(s=20.3, length=3.0, writers=5, reads=0):
    rows = [(s + 0.002 * i, length - 0.002 * i, "write" if i % 3 else "commit")
            for i in range(writers)]
    rows += [(s + 1.0 + 0.3 * i, length - 1.0 - 0.3 * i, "read") for i in range(reads)]
    return rows


def test_pileup_found_with_start_and_end():
    st = frame(background() + stall_rows() + [(21.5, 1.8, "write")])
    p = find_pileups(st)
    assert len(p) == 1
    row = p.iloc[0]
    assert abs((row["start"] - T0).total_seconds() - 20.3) < 0.01
    assert abs((row["end"] - T0).total_seconds() - 23.3) < 0.06
    assert row["queries"] == 6 and row["writes"] + row["commits"] == 6


def test_no_pileup_without_a_common_start():
    # three slow statements end together but began at unrelated instants
    st = frame(background() + [(10.0, 5.0, "read"), (12.0, 3.0, "read"), (13.6, 1.4, "read")])
    assert find_pileups(st).empty


def test_no_pileup_from_two_statements():
    st = frame(background() + stall_rows(writers=2))
    assert find_pileups(st).empty


def test_whole_second_log_times_bracket_the_release():
    """With 1 s resolution the release is placed inside every member's possible end."""
    rows = stall_rows(s=20.3, length=3.0, writers=6)
    st = frame(rows)
    # as MariaDB logs them: start truncated to the second
    st["start"] = st["start"].dt.floor("s")
    st["end"] = st["start"] + pd.to_timedelta(st["query_time"], unit="s")
    st["time_res_s"] = 1.0
    p = find_pileups(st)
    assert len(p) == 1
    assert abs((p["start"].iloc[0] - T0).total_seconds() - 20.3) <= 0.55
    assert abs((p["end"].iloc[0] - T0).total_seconds() - 23.3) <= 0.55


def test_rotation_stall_attributed():
    st = frame(background() + stall_rows())
    rot = pd.DataFrame([rotation(20.0), rotation(50.0, "mariadb-bin.000042",
                                                 "mariadb-bin.000043")])
    s = find_stalls(st, rot)
    assert len(s) == 1 and s["cause"].iloc[0] == "binlog_rotation"
    assert s["rotation_from"].iloc[0] == "mariadb-bin.000041" and s["hint"].iloc[0] is None
    c = cadence(rot, s)
    assert (c["rotations"], c["rotations_with_stall"], c["stalls"], c["stalls_explained"]) == \
        (2, 1, 1, 1)


def test_rotation_far_from_stall_is_not_the_cause():
    st = frame(background() + stall_rows())
    s = find_stalls(st, pd.DataFrame([rotation(25.0)]), covered=(T0, T0 + pd.Timedelta(minutes=5)))
    assert s["cause"].iloc[0] == "commit_sync"        # writes released together, no lock waits
    assert "no binlog rotation near" in s["hint"].iloc[0]
    # without binlogs for that time a rotation cannot be ruled out: unknown
    s = find_stalls(st, pd.DataFrame([rotation(25.0)]))
    assert s["cause"].iloc[0] == "unknown"


def test_reads_piled_too_is_not_a_binlog_stall():
    st = frame(background() + stall_rows(writers=3, reads=0)
               + [(20.3 + 0.001 * i, 3.0 - 0.001 * i, "read") for i in range(5)])
    s = find_stalls(st, pd.DataFrame([rotation(20.0)]))
    assert s["cause"].iloc[0] == "unknown"
    assert "reads and writes were released together" in s["hint"].iloc[0]
    assert "mariadb-bin.000041" in s["hint"].iloc[0]


def test_one_rotation_explains_one_stall():
    st = frame(background() + stall_rows(s=20.3) + stall_rows(s=21.8, length=0.8))
    s = find_stalls(st, pd.DataFrame([rotation(20.0)]))
    assert (s["cause"] == "binlog_rotation").sum() == 1


def test_lock_time_hint():
    rows = [(20.3 + 0.002 * i, 3.0, "write", 2.9) for i in range(4)]
    s = find_stalls(frame(background() + rows))
    assert s["cause"].iloc[0] == "lock" and s["hint"].iloc[0].startswith("lock waits")


def test_spread_slowdown_hints_time_zone_lock():
    rng = np.random.default_rng(3)
    rows = [(float(t), float(rng.uniform(0.6, 1.5)), k)
            for t, k in zip(np.linspace(20, 35, 40), ["read", "write"] * 20)]
    s = find_stalls(frame(background() + rows))
    assert len(s) >= 1
    spread = s[s["shape"] == "spread"]
    assert len(spread) >= 1 and spread["duration_s"].max() > 10
    assert spread["hint"].str.contains("time-zone lock").all()


def test_restart_hint():
    st = frame(background() + stall_rows())
    rs = pd.DataFrame([{"file": "mariadb-bin.000007", "at": T0 + pd.Timedelta(seconds=60),
                        "previous_end": "crash (previous file still marked in use)"}])
    s = find_stalls(st, None, rs)
    assert "the server started" not in s["hint"].iloc[0]        # 40 s after the stall
    rs["at"] = T0 + pd.Timedelta(seconds=5)
    s = find_stalls(st, None, rs)
    assert "the server started" not in s["hint"].iloc[0]        # 15 s before: warm again
    rs["at"] = T0 + pd.Timedelta(seconds=14)
    s = find_stalls(st, None, rs)
    assert s["hint"].iloc[0].endswith("the server started 6 s before it (mariadb-bin.000007 "
                                      "was created at start-up at 03:00:14Z)")


def test_nothing_slow_nothing_found():
    s = find_stalls(frame(background()), pd.DataFrame([rotation(20.0)]))
    assert s.empty


def test_lab_fixture_truth_is_consistent():
    truth = json.loads((LAB / "truth.json").read_text())
    names = {p.name for p in BINLOGS}
    assert all(d["file"] in names for d in truth["delays"])
    sizes = {p.name: p.stat().st_size for p in BINLOGS}
    for d in truth["delays"]:          # the shim measured the file at its final size
        assert d["size_bytes"] == sizes[d["file"]]


# -- MySQL 8 commit timestamps (peer binlogs, when present) ------------------------------------

PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs" / "rust_mysql_common"


def _ict_by_hand(path):
    """immediate_commit_timestamp of each GTID event, read straight from the bytes."""
    from binlogkit.binlog.reader import BinlogReader
    out = []
    with BinlogReader(str(path)) as r:
        r.read_magic()
        for raw in r.events():
            if raw.type_code in (33, 34) and raw.event_size >= 19 + 49:
                body = bytes(raw.payload[19:])
                if body[25] == 2:                       # logical-clock type: timestamps follow
                    out.append(int.from_bytes(body[42:49], "little") & ((1 << 55) - 1))
    return [v for v in out if v]


@pytest.mark.skipif(not PEER.is_dir(), reason="peer binlogs not present")
@pytest.mark.parametrize("name", ["json.binlog.000001", "mysql-enum-string-set.000001",
                                  "binlog-invisible-columns.000001"])
def test_mysql8_commit_clock(name):
    path = PEER / name
    row = scan_binlog(path)
    ict = _ict_by_hand(path)
    if pd.isna(row["first_commit"]):
        pytest.skip("no decoder for MySQL GTID events loaded")
    assert len(ict) >= 2
    assert row["first_commit"] == pd.Timestamp(ict[0] * 1000, tz="UTC")
    assert row["last_commit"] == pd.Timestamp(ict[-1] * 1000, tz="UTC")
    gaps = [b - a for a, b in zip(ict, ict[1:])]
    assert row["max_commit_gap_s"] == pytest.approx(max(gaps) / 1e6)
    assert row["max_commit_group"] >= 1


def test_long_statement_that_filled_the_file_links_its_rotation():
    """The ROTATE event carries the start of the statement that filled the file."""
    leader = [(10.0, 18.0, "write")]                   # ran 15 s, then waited 3 s for the sync
    st = frame(background() + leader + stall_rows(s=25.0, length=3.0))
    rot = pd.DataFrame([rotation(10.0)])
    s = find_stalls(st, rot)
    assert len(s) == 1 and s["cause"].iloc[0] == "binlog_rotation"
    assert abs((s["start"].iloc[0] - T0).total_seconds() - 25.0) < 0.05
    # without the leader statement in the log the rotation is too far from the stall
    s = find_stalls(frame(background() + stall_rows(s=25.0, length=3.0)), rot)
    assert s["cause"].iloc[0] != "binlog_rotation"


def test_sleeps_and_heavy_queries_are_not_stalls():
    sleeps = [(20.0, 3.0, "read"), (20.01, 3.0, "read"), (20.02, 3.0, "read")]
    st = frame(background() + sleeps)
    st.loc[st["query_time"] == 3.0, "query"] = "SELECT SLEEP(3)"
    assert find_stalls(st).empty
    heavy = [(float(t), 4.0, "read", 0.0, 5_000_000) for t in np.linspace(20, 40, 30)]
    assert find_stalls(frame(background() + heavy)).empty


# -- the server's clock in the file sequence (binlogkit/analysis/fileclock.py) ------------

CRC32 = sorted(str(p) for p in (ROOT / "fixtures" / "binlog" / "crc32").glob("mariadb-bin.0*"))


def test_client_set_event_times_do_not_make_file_times():
    """File 3 of the fixtures was written under SET timestamp (1970 .. 2038 event
    times): its span comes from the server's clock (Query exec_time, the file
    order), lifetimes are never negative, rotation times go forward."""
    from binlogkit.analysis.rotations import rotations_frame, rotations_table
    files = rotations_frame(CRC32)
    assert files["first_event"].iloc[2].year == 1970            # the raw header times
    assert (files["clock_first"].dt.year == 2026).all()
    assert (files["clock_last"].dt.year == 2026).all()
    assert (files["clock_first"].diff().dropna() >= pd.Timedelta(0)).all()
    assert files["clock_outliers"].iloc[2] > 100 and files["clock_outliers"].iloc[3] == 0
    rot = rotations_table(files)
    assert (rot["lifetime_s"] >= 0).all() and (rot["lifetime_s"] < 60).all()
    assert rot["at"].is_monotonic_increasing and (rot["at"].dt.year == 2026).all()
    assert (rot["next_opened_at"].dt.year == 2026).all()


def test_report_over_1970_stamped_binlogs_is_honest_about_overlap():
    """Those binlogs (09:48 that day) do not overlap the lab slow log (10:10):
    the 1970..2038 event times no longer make them look as if they did."""
    from click.testing import CliRunner

    from binlogkit.cli import main
    res = CliRunner().invoke(main, ["report", "--binlog", *CRC32, "--slowlog",
                                    str(ROOT / "fixtures" / "lab" / "slow.log.gz")])
    assert res.exit_code == 1 and "do not overlap" in res.output
    assert "1970" not in res.output and "2038" not in res.output


def test_commit_gaps_of_the_lab_run_are_the_rotation_syncs():
    """MariaDB's whole-second XID times: one empty second inside each injected
    2 s rotation delay, and no other gap."""
    import json

    from binlogkit.analysis.commitgaps import commit_gaps
    from binlogkit.analysis.rotations import rotations_frame
    lab = ROOT / "fixtures" / "lab"
    commits = []
    rotations_frame(sorted(str(p) for p in lab.glob("mariadb-bin.0*")), commits=commits)
    gaps = commit_gaps(commits)
    delays = json.loads((lab / "truth.json").read_text())["delays"]
    assert len(gaps) == len(delays)
    for (_, g), d in zip(gaps.iterrows(), delays):
        start, end = pd.Timestamp(d["start"]), pd.Timestamp(d["end"])
        one = pd.Timedelta(seconds=1)
        assert start - one <= g["start"] and g["end"] <= end + one
        assert g["time_res_s"] == 1.0


def test_commit_gaps_microseconds_and_quiet_periods():
    from binlogkit.analysis.commitgaps import CommitTimes, commit_gaps
    busy = CommitTimes("b.000001")
    t0 = 1_700_000_000_000_000
    busy.micros = [t0 + i * 20_000 for i in range(500)]                 # 50/s for 10 s
    busy.micros += [busy.micros[-1] + 2_345_678 + i * 20_000 for i in range(500)]
    gaps = commit_gaps([busy])
    assert len(gaps) == 1 and gaps["duration_s"].iloc[0] == pytest.approx(2.345678)
    assert gaps["time_res_s"].iloc[0] == 0.0
    quiet = CommitTimes("q.000001")
    quiet.seconds = [1_700_000_000 + 7 * i for i in range(50)]          # one commit per 7 s
    assert commit_gaps([quiet]).empty


def _gap(start_s, dur, res=1.0, file="mariadb-bin.000042"):
    from binlogkit.analysis.commitgaps import GAP_COLUMNS
    row = {"start": T0 + pd.Timedelta(seconds=start_s),
           "end": T0 + pd.Timedelta(seconds=start_s + dur), "duration_s": dur,
           "time_res_s": res, "commits_before": 100, "commits_after": 100, "expected": 50.0,
           "file": file, "next_file": file}
    return pd.DataFrame([row], columns=GAP_COLUMNS)


def test_commit_gap_with_a_writer_waiting_across_it_is_a_lock_stall():
    """FLUSH TABLES WITH READ LOCK / LOCK TABLES: commits stop, one INSERT began
    before the stop and ended after it (too few to pile up), no rotation near:
    cause lock, even with Lock_time 0 (MySQL's FTWRL-blocked INSERTs)."""
    st = frame(background() + [(19.6, 3.5, "write")])
    s = find_stalls(st, pd.DataFrame([rotation(50.0)]), gaps=_gap(20.0, 3.0),
                    covered=(T0, T0 + pd.Timedelta(minutes=5)))
    assert len(s) == 1 and s["shape"].iloc[0] == "commit-gap"
    assert s["cause"].iloc[0] == "lock" and s["evidence"].iloc[0] == "binlog"
    assert "waited across the stop" in s["hint"].iloc[0] and "Lock_time is ~0" in s["hint"].iloc[0]


def test_commit_gap_with_nothing_waiting_is_idle():
    """The same gap with no statement running across it: the server had nothing to
    commit (a quiet period), not a stall; nor at a rotation (FLUSH BINARY LOGS)."""
    from binlogkit.analysis.diagnosis import diagnose
    st = frame(background())
    for rot in (50.0, 19.6):
        d = diagnose(st, pd.DataFrame([rotation(rot)]), gaps=_gap(20.0, 3.0),
                     covered=(T0, T0 + pd.Timedelta(minutes=5)))
        assert d.stalls.empty
        assert len(d.idle) == 1 and d.idle["duration_s"].iloc[0] == 3.0


def test_commit_gap_at_a_rotation_is_that_rotation():
    st = frame(background() + [(19.3, 2.4, "write")])
    s = find_stalls(st, pd.DataFrame([rotation(19.6)]), gaps=_gap(20.0, 2.0))
    assert s["cause"].iloc[0] == "binlog_rotation"
    assert s["rotation_from"].iloc[0] == "mariadb-bin.000041"


def test_rotation_explains_only_what_it_released():
    """A rotation stall, then LOCK TABLES taken the moment it ended: one commit
    gap, two stalls: the rotation up to the release of its waiter, then a lock."""
    st = frame(background() + [(19.5, 1.6, "write"), (21.15, 4.0, "write", 3.9)])
    s = find_stalls(st, pd.DataFrame([rotation(19.5)]), gaps=_gap(20.0, 5.0, res=0.0))
    assert list(s["cause"]) == ["binlog_rotation", "lock"]
    assert abs((s["end"].iloc[0] - T0).total_seconds() - 21.1) < 1e-6
    assert (s["end"].iloc[1] - T0).total_seconds() == 25.0


def test_restart_is_never_a_rotation():
    """Commits stopped across a server restart with a rotation near: cause restart."""
    from binlogkit.analysis.diagnosis import diagnose
    st = frame(background() + [(19.5, 3.0, "write")])
    rs = pd.DataFrame([{"file": "mariadb-bin.000042", "at": T0 + pd.Timedelta(seconds=22),
                        "previous_end": "clean shutdown"}])
    files = pd.DataFrame({"file": ["mariadb-bin.000041", "mariadb-bin.000042"],
                          "clock_last": [T0 + pd.Timedelta(seconds=20), pd.NaT],
                          "last_event": [T0 + pd.Timedelta(seconds=20), pd.NaT]})
    d = diagnose(st, pd.DataFrame([rotation(19.6)]), rs, gaps=_gap(20.0, 3.0), files=files)
    assert list(d.stalls["cause"]) == ["restart"]
    assert "clean shutdown" in d.stalls["hint"].iloc[0]


def test_commit_gap_joins_the_slowlog_stall_it_overlaps():
    st = frame(background() + stall_rows())
    s = find_stalls(st, pd.DataFrame([rotation(20.0)]), gaps=_gap(21.0, 1.0))
    assert len(s) == 1 and s["evidence"].iloc[0] == "slow log + binlog"
    assert s["commit_gap_s"].iloc[0] == 1.0 and s["cause"].iloc[0] == "binlog_rotation"


def _file_times(whens, queries=()):
    from binlogkit.analysis.fileclock import FileTimes
    ft = FileTimes()
    for w in whens:
        ft.add(w)
    for when, exec_time in queries:
        ft.add(when)
        ft.add_query(when, exec_time)
    return ft


def test_fileclock_idle_nights_client_times_and_file_order():
    from binlogkit.analysis.fileclock import clock_spans
    day = 86400
    t0 = 1_700_000_000
    # a quiet server: one file open three days, idle every night -> its whole span
    quiet = _file_times([t0 + d * day + h * 600 for d in range(3) for h in range(30)])
    assert clock_spans([quiet], ["b"]) == [(t0, t0 + 2 * day + 29 * 600, 0)]
    # SET timestamp=1 (1970) and a replayed 2038 in the middle of a file: left out
    mixed = _file_times([t0 + i for i in range(20)] + [1, 1, 2] + [2**31 - 1]
                        + [t0 + 20 + i for i in range(20)])
    assert clock_spans([mixed], ["b"]) == [(t0, t0 + 39, 4)]
    # a file written entirely under a client's time, between two real ones: the
    # Query events' exec_time gives the server's clock
    before = _file_times([t0 + i for i in range(10)])
    faked = _file_times([100 + i for i in range(5)], queries=[(100, t0 + 12 - 100)])
    after = _file_times([t0 + 15 + i for i in range(10)])
    spans = clock_spans([before, faked, after], ["b"] * 3)
    assert spans[1] == (t0 + 12, t0 + 12, 6)            # all 6 events carry the client's time
    assert spans[0][1] <= spans[1][0] <= spans[2][0]


def test_state_watermark_is_the_servers_clock_not_a_clients():
    """A 2038 event time (SET TIMESTAMP) must not move --state's watermark past now."""
    from binlogkit.analysis.rotations import rotations_frame
    from binlogkit.analysis.reportstate import _newest
    files = rotations_frame(CRC32)
    assert files["last_event"].max().year == 2038
    got = pd.Timestamp(_newest(pd.DataFrame(), files, None), unit="us", tz="UTC")
    assert got == files["clock_last"].max() and got.year == 2026


def test_commit_deficit_runs_are_cut_where_commits_went_through():
    """Whole seconds: a rotation (1.5 s) then FLUSH TABLES WITH READ LOCK that
    waited for it (3 s): 40/s, then 11, 3, 0, 0, 17 commits: two stalls."""
    from binlogkit.analysis.commitgaps import CommitTimes, commit_gaps
    t0 = 1_700_000_000
    per_second = [40] * 12 + [11, 3, 0, 0, 17] + [40] * 12
    c = CommitTimes("b.000001")
    c.seconds = [t0 + s for s, n in enumerate(per_second) for _ in range(n)]
    gaps = commit_gaps([c], rotations=[t0 + 12])
    assert [(g.start.timestamp() - t0, g.end.timestamp() - t0) for g in gaps.itertuples()] == \
        [(12.0, 14.0), (13.0, 17.0)]
    assert list(gaps["trickle"]) == [3, 0]
    # one stall: commits in its first second only, then none until it ends
    c.seconds = [t0 + s for s, n in enumerate([40] * 12 + [11, 0, 0, 0, 17] + [40] * 12)
                 for _ in range(n)]
    assert len(commit_gaps([c])) == 1
