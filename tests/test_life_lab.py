"""Stall verdicts on runs that look like life, recorded from real servers of both kinds
(fixtures/life, made by `python fixtures/gen_life.py`, see binlogkit/lab/life_lab.py): a
writer committing ~45 times a second with idle periods (after FLUSH BINARY LOGS, right
after a size rotation's stall, with no rotation near), low traffic, FLUSH TABLES WITH READ
LOCK and LOCK TABLES (one taken as a rotation stall ended), a clean and a SIGKILL restart,
and every size rotation's sync slowed.  Scored per cause against the recorded ground truth.
A short live run on each server where one exists."""
import json
from pathlib import Path

import pytest

from binlogkit.analysis.stallreport import build_report
from binlogkit.lab.score import score, truth_items
from binlogkit.report import render
from binlogkit.report.html import to_html

ROOT = Path(__file__).resolve().parents[1]
LIFE = ROOT / "fixtures" / "life"
SERVERS = ["mariadb", "mysql"]
RECORDED = SERVERS + ["mariadb-mixed"]      # MariaDB's default MIXED format, long_query_time=1


def _binlogs(run_dir):
    return sorted(str(p) for p in run_dir.iterdir() if p.name.split(".")[-1].isdigit())


@pytest.fixture(scope="module", params=RECORDED)
def life(request):
    run_dir = LIFE / request.param
    rep = build_report(_binlogs(run_dir), [str(run_dir / "slow.log.gz")])
    return request.param, rep, json.loads((run_dir / "truth.json").read_text())


def test_recorded_runs_have_every_scenario():
    for name in RECORDED:
        truth = json.loads((LIFE / name / "truth.json").read_text())
        kinds = sorted(e["kind"] for e in truth["episodes"])
        assert kinds == ["crash", "ftwrl", "ftwrl", "idle", "idle_after_flush",
                         "idle_after_rotate", "lock_tables", "low_traffic", "restart"]
        assert truth["server"] == name.split("-")[0]
        rot = [i for i in truth_items(truth) if i["cause"] == "binlog_rotation"]
        assert len(rot) >= 8
        assert all(e["duration_s"] >= 3.5 for e in truth["episodes"]
                   if e["cause"] in ("lock", "none"))


def test_every_cause_right_and_nothing_in_idle_time(life):
    """On mariadb-mixed the slow log (long_query_time=1) holds none of the writes held by
    the locks: the INSERT Query events' exec_time shows them."""
    name, rep, truth = life
    got = score(rep.doc, truth)
    for cause in ("binlog_rotation", "lock", "restart"):
        assert got[cause]["recall"] == 1.0 and got[cause]["precision"] == 1.0, (name, cause, got)
    assert got["in_idle"] == [] and got["misblamed"] == [], got
    assert set(got) == {"binlog_rotation", "lock", "restart", "in_idle", "misblamed"}


def test_rotation_stalls_over_the_threshold_with_their_file(life):
    """Every injected rotation stall (~1.5 s) counts in the verdict (>= 1 s) with its file."""
    _, rep, truth = life
    rot = {s["rotation"]["from_file"]: s for s in rep.doc["stalls"] if s["rotation"]}
    for item in truth_items(truth):
        if item["cause"] == "binlog_rotation":
            s = rot[item["file"]]
            assert s["over_threshold"] and 1.0 <= s["duration_s"] <= 2.5, s


def _t(iso):
    import datetime
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_lock_adjacent_to_a_rotation_is_split_off(life):
    """LOCK TABLES taken the moment a rotation stall ended: the rotation stall (with
    its file) and the lock are two stalls, the lock as long as it held."""
    _, rep, truth = life
    ep = next(e for e in truth["episodes"] if e["kind"] == "lock_tables")
    a, b = _t(ep["start"]), _t(ep["end"])
    rot = min(truth["delays"], key=lambda d: abs(_t(d["end"]) - a))
    assert abs(_t(rot["end"]) - a) < 0.1                     # the scenario did that
    by_file = [s for s in rep.doc["stalls"] if s["rotation"]
               and s["rotation"]["from_file"] == rot["file"]]
    locks = [s for s in rep.doc["stalls"] if s["cause"] == "lock"
             and _t(s["start"]) <= b and _t(s["end"]) >= a - 1.0]
    assert len(by_file) == 1 and len(locks) == 1, (by_file, locks)
    assert locks[0]["duration_s"] >= 3.0 and _t(by_file[0]["end"]) <= _t(locks[0]["end"])


def test_restarts_in_every_format(life):
    _, rep, truth = life
    doc = rep.doc
    crash = [r for r in doc["restarts"] if r["previous_end"] and "crash" in r["previous_end"]]
    clean = [r for r in doc["restarts"] if r["previous_end"] == "clean shutdown"]
    assert len(crash) == 1 and len(clean) == 1
    assert "The server restarted 2 times" in doc["verdict"] and "after a clean shutdown" in doc["verdict"]
    for text in (render.to_text(doc), render.to_markdown(doc), to_html(doc)):
        assert "Restarts (UTC, " in text
        assert crash[0]["file"] in text and clean[0]["file"] in text
    assert not any(s["cause"] == "binlog_rotation" and s["rotation"]["to_file"] in
                   (crash[0]["file"], clean[0]["file"]) for s in doc["stalls"])


def _strict(text):
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")
    return json.loads(text, parse_constant=refuse)


RUNS = [LIFE / "mariadb", LIFE / "mysql", LIFE / "mariadb-mixed", ROOT / "fixtures" / "lab",
        ROOT / "fixtures" / "lab_confounders" / "logged",
        ROOT / "fixtures" / "lab_confounders" / "filtered"]


@pytest.mark.parametrize("run_dir", RUNS, ids=lambda p: p.name)
def test_every_json_report_is_strict(run_dir):
    """A binlog created at start-up (no file before it), idle time, restarts: strict JSON."""
    from click.testing import CliRunner
    from binlogkit.cli.report import report
    for extra in ([], ["--threshold", "0.5"], ["--since", "2020-01-01"]):
        res = CliRunner().invoke(report, ["--binlog", *_binlogs(run_dir), "--slowlog",
                                          str(run_dir / "slow.log.gz"), "--format", "json",
                                          *extra])
        assert res.exit_code in (0, 3), res.output
        doc = _strict(res.output)
        assert "NaN" not in res.output and "Infinity" not in res.output
        assert doc["restarts"] and all(r["previous_end"] is None or isinstance(r["previous_end"], str)
                                       for r in doc["restarts"])


def test_text_summarises_rotations_and_lists_them_when_asked():
    run_dir = LIFE / "mariadb"
    rep = build_report(_binlogs(run_dir), [str(run_dir / "slow.log.gz")])
    short, full = render.to_text(rep.doc), render.to_text(rep.doc, all_rotations=True)
    n = len(rep.doc["rotations"])
    assert n > render.ROTATIONS_LISTED
    assert f"{n} rotations; files of " in short and "caused a stall, the worst" in short
    assert "--all-rotations" in short and "lived" not in short
    assert "lived" in full and all(r["from_file"] in full for r in rep.doc["rotations"])


def test_table_and_verdict_use_one_threshold():
    run_dir = LIFE / "mysql"
    rep = build_report(_binlogs(run_dir), [str(run_dir / "slow.log.gz")], threshold=2.0)
    text = render.to_text(rep.doc)
    over = [s for s in rep.doc["stalls"] if s["over_threshold"]]
    assert rep.doc["verdict"].startswith(f"{len(over)} stall")
    assert f"Stalls of 2 s or more (UTC, {len(over)})" in text
    assert "shorter stall" in text


@pytest.mark.parametrize("server", SERVERS)
def test_live_short_life_lab(server, tmp_path):
    """A short run on a live server (FLUSH TABLES WITH READ LOCK under the busy
    writer, then idle time; rotations slowed): the lock found as ``lock``, every
    rotation stall with its file, nothing in the idle time.  The whole scenario
    runs with BINLOGKIT_LIVE_LAB=1 (about 2 minutes per server)."""
    import os
    from binlogkit.lab.life_lab import SCRIPT, SHORT_SCRIPT, Scenario, life_available, run_life
    if not life_available(server):
        pytest.skip(f"no {server} server or gcc here")
    script = SCRIPT if os.environ.get("BINLOGKIT_LIVE_LAB") else SHORT_SCRIPT
    truth = run_life(Scenario(server, script=script), tmp_path)
    rep = build_report(_binlogs(tmp_path), [str(tmp_path / "slow.log")])
    got = score(rep.doc, truth)
    assert got["in_idle"] == [] and got["misblamed"] == [], got
    assert got["lock"]["recall"] == 1.0 and got["lock"]["precision"] == 1.0, got
    if got.get("binlog_rotation", {}).get("truth"):
        assert got["binlog_rotation"]["recall"] == 1.0, got
    _strict(render.to_json(rep.doc))


def test_what_filled_the_rotated_file():
    """Why a rotation was slow: bytes, unsynced bytes by sync_binlog, top tables and the
    biggest transactions (GTIDs on MySQL, positions too)."""
    from binlogkit.analysis.diagnosis.rotation_load import what_filled
    path = LIFE / "mysql" / "binlog.000003"
    got = what_filled(str(path), sync_binlog=0)
    assert got["bytes"] == path.stat().st_size and got["unsynced_bytes"] == got["bytes"]
    assert got["top_tables"][0]["table"] == "lab.t" and got["top_tables"][0]["rows"] >= 100
    assert got["biggest"][0]["gtid"].count(":") == 1 and got["biggest"][0]["position"] >= 4
    assert what_filled(str(path), sync_binlog=1)["unsynced_bytes"] == 0
    five = what_filled(str(path), sync_binlog=5)["unsynced_bytes"]
    assert 0 < five <= 4 * max(b["bytes"] for b in got["biggest"])
    assert what_filled(str(path))["unsynced_bytes"] is None


def test_rotation_stalls_say_what_filled_the_file(life):
    _, rep, _ = life
    rot = [s for s in rep.doc["stalls"] if s["rotation"] and s["over_threshold"]]
    assert rot and all(s["rotation"]["load"]["top_tables"] for s in rot)
    text = render.to_text(rep.doc)
    assert "Most bytes: " in text and "Biggest transactions:" in text


def test_mysql_binlogs_alone(tmp_path):
    """MySQL with a slow log that logs nothing (long_query_time=10, the default): the
    commit timestamps show the writes held by FLUSH TABLES WITH READ LOCK and LOCK
    TABLES (Lock_time is not needed), rotation stalls end where the next file was
    opened, and nothing is reported in the idle periods."""
    import gzip
    run_dir = LIFE / "mysql"
    head = gzip.decompress((run_dir / "slow.log.gz").read_bytes()).split(b"\n")[:3]
    empty = tmp_path / "slow.log"
    empty.write_bytes(b"\n".join(head) + b"\n")
    rep = build_report(_binlogs(run_dir), [str(empty)])
    got = score(rep.doc, json.loads((run_dir / "truth.json").read_text()))
    assert got["in_idle"] == [] and got["misblamed"] == [], got
    assert got["lock"]["recall"] == 1.0 and got["lock"]["precision"] == 1.0, got
    assert got["restart"]["recall"] == 1.0 and got["binlog_rotation"]["precision"] == 1.0
    assert got["binlog_rotation"]["recall"] >= 0.9, got
