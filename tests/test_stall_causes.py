"""Stall causes scored against recorded lab runs with confounders (fixtures/lab_confounders,
made by `python fixtures/gen_lab.py --confounders`): FLUSH TABLES WITH READ LOCK, LOCK
TABLES, a long transaction holding row locks, sync_binlog=1 with slow syncs, between
rotations whose syncs the LD_PRELOAD shim slowed down.  Recall and precision per cause
come from binlogkit.lab.score; no server needed.
"""
import json
from pathlib import Path

import pytest

from binlogkit.lab.score import score, truth_items
from binlogkit.analysis.stallreport import build_report

ROOT = Path(__file__).resolve().parents[1]
RUNS = ROOT / "fixtures" / "lab_confounders"


def _report(run_dir, **kw):
    rep = build_report(sorted(str(p) for p in run_dir.glob("mariadb-bin.0*")),
                       [str(run_dir / "slow.log.gz")], **kw)
    return rep.doc, json.loads((run_dir / "truth.json").read_text())


@pytest.fixture(scope="module")
def logged():
    return _report(RUNS / "logged")


@pytest.fixture(scope="module")
def filtered():
    return _report(RUNS / "filtered")


def test_recorded_runs_have_every_confounder():
    for name in ("logged", "filtered"):
        truth = json.loads((RUNS / name / "truth.json").read_text())
        assert sorted(e["kind"] for e in truth["episodes"]) == [
            "commit_sync", "ftwrl", "lock_tables", "row_locks"]
        assert all(e["duration_s"] >= 2.5 for e in truth["episodes"])
        assert truth["time_zone"] == "Asia/Kolkata"
        assert sum(i["cause"] == "binlog_rotation" for i in truth_items(truth)) >= 3


def test_slow_log_and_binlog_every_cause_right(logged):
    """With the slow log (long_query_time=0): every rotation stall >= 1 s with its
    file, every lock and commit_sync episode with its cause, nothing else."""
    doc, truth = logged
    got = score(doc, truth)
    for cause in ("binlog_rotation", "lock", "commit_sync"):
        assert got[cause]["recall"] == 1.0 and got[cause]["precision"] == 1.0, (cause, got)
    assert got["misblamed"] == []


def test_server_zone_derived_without_server_tz(logged):
    """The server ran in Asia/Kolkata; this report was built without --server-tz."""
    doc, _ = logged
    assert doc["inputs"]["server_zone"] == "UTC+05:30 (from SET timestamp)"
    assert doc["inputs"]["server_tz"] is None
    assert not any("zone" in n for n in doc["notes"])


def test_binlog_only_evidence(filtered):
    """log_slow_filter=full_join: the slow log holds no statement, and MariaDB
    binlogs carry no commit times: nothing shows whether work waited in a commit
    gap.  Gaps that begin at a size rotation are still that rotation (the
    statement that filled the file waited for it); the others cannot be told
    from idle time, so none is reported, and a note says why."""
    doc, truth = filtered
    got = score(doc, truth)
    assert all(s["evidence"] == "binlog" and s["time_res_s"] == 1.0 for s in doc["stalls"])
    assert got["misblamed"] == []
    assert got["binlog_rotation"]["precision"] == 1.0 and got["binlog_rotation"]["found"] >= 3
    assert got["lock"]["reported"] == 0 and got.get("commit_sync", {}).get("reported", 0) == 0
    assert any("has no statement" in n for n in doc["notes"])
    assert any("had no evidence either way" in n for n in doc["notes"])


@pytest.mark.parametrize("run", ["logged", "lab"])
def test_binlog_only_on_the_other_runs(run, tmp_path):
    """The same runs with an empty slow log (its header only): the binlogs alone."""
    empty = tmp_path / "slow.log"
    empty.write_bytes(b"/usr/sbin/mariadbd, Version: 10.11.19-MariaDB-log (Debian). started "
                      b"with:\nTcp port: 0  Unix socket: /tmp/x.sock\n"
                      b"Time\t\t    Id Command\tArgument\n")
    run_dir = RUNS / run if run != "lab" else ROOT / "fixtures" / "lab"
    rep = build_report(sorted(str(p) for p in run_dir.glob("mariadb-bin.0*")), [str(empty)])
    got = score(rep.doc, json.loads((run_dir / "truth.json").read_text()))
    assert got["misblamed"] == [] and got["binlog_rotation"]["precision"] == 1.0
    if run == "lab":
        assert got["binlog_rotation"]["recall"] == 1.0
    else:
        assert got["binlog_rotation"]["found"] >= 3
        assert set(got) <= {"binlog_rotation", "lock", "commit_sync", "misblamed", "in_idle"}
        assert all(got[c]["reported"] == 0 for c in ("lock", "commit_sync"))


def test_first_lab_run_scores(tmp_path):
    doc, truth = _report(ROOT / "fixtures" / "lab")
    got = score(doc, truth)
    assert got["binlog_rotation"] == {"truth": 6, "found": 6, "reported": 6, "correct": 6,
                                      "recall": 1.0, "precision": 1.0}
    assert set(got) == {"binlog_rotation", "misblamed", "in_idle"} and got["in_idle"] == []
