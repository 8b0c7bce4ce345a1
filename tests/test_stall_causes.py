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
from binlogkit.report.build import build_report

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
    """log_slow_filter=full_join: the slow log holds no statement.  The binlogs'
    commit gaps still show the stalls; no stall is blamed on a rotation that
    did not happen then, and every lock episode (>= 2.5 s) is inside a stall.
    Stalls that follow one another without a commit between (a rotation, then
    FLUSH TABLES WITH READ LOCK that waited for it) are one gap in whole-second
    data: the scores say how much that costs."""
    doc, truth = filtered
    got = score(doc, truth)
    assert all(s["evidence"] == "binlog" and s["time_res_s"] == 1.0 for s in doc["stalls"])
    assert got["binlog_rotation"]["precision"] == 1.0 and got["misblamed"] == []
    assert got["binlog_rotation"]["found"] >= 2
    assert got["lock"]["precision"] == 1.0 and got["lock"]["found"] >= 1
    assert got["commit_sync"]["recall"] == 1.0
    for e in truth["episodes"]:
        a, b = e["start"], e["end"]
        assert any(s["start"] <= b and a <= s["end"] for s in doc["stalls"]), e["kind"]
    assert any("has no statement" in n for n in doc["notes"])


def test_first_lab_run_scores(tmp_path):
    doc, truth = _report(ROOT / "fixtures" / "lab")
    got = score(doc, truth)
    assert got["binlog_rotation"] == {"truth": 6, "found": 6, "reported": 6, "correct": 6,
                                      "recall": 1.0, "precision": 1.0}
    assert set(got) == {"binlog_rotation", "misblamed"}
