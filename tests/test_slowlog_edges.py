"""Slow-log rough edges a new user hit (issue 27): database names, use-only entries,
digest defaults as pt-query-digest's, not-a-slow-log input.

The logs with ``use`` statements come from real servers (fixtures/gen_slowlog_use.py);
pt-query-digest's digest of them is recorded (fixtures/gen_slowlog_ptjson.py) and compared
whole by tests/test_slowlog_ptjson.py.
"""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from binlogkit.cli import main
from binlogkit.slowlog.parser import SlowlogParser

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "fixtures" / "slowlog"
USE_LOGS = ["use-mariadb.log", "use-mysql97.log"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def recorded(log):
    return json.loads((FIX / "expected" / log.replace(".log", ".pt-output.json")).read_text())


def pt_output(log):
    return recorded(log)["output"]


@pytest.mark.parametrize("log", USE_LOGS)
def test_backticked_use_names_the_same_database(log):
    """``use `shop`;`` and ``use shop;`` are one database, as in pt-query-digest."""
    res = run("slowlog", "digest", "--group-by", "db", "--format", "json", "--limit", "0",
              FIX / log)
    assert res.exit_code == 0, res.output
    groups = {c["value"]: c["count"] for c in json.loads(res.stdout)["classes"]}
    assert groups == recorded(log)["group_by_db"]     # pt-query-digest --group-by db
    assert set(groups) == {"shop", "crm"}
    shop = run("slowlog", "digest", "--group-by", "db", "--format", "json", "--limit", "0",
               "--filter", "db == shop", FIX / log)
    assert shop.exit_code == 0, shop.output
    assert {c["value"]: c["count"] for c in json.loads(shop.stdout)["classes"]} == {
        "shop": groups["shop"]}


def test_backticks_gone_from_events_frames_and_export(tmp_path):
    log = FIX / "use-mariadb.log"
    assert b"use `shop`;" in log.read_bytes()
    dbs = {e.db for e in SlowlogParser(log, zone="UTC")}
    assert dbs == {None, b"shop", b"crm"}
    res = run("slowlog", "events", "--server-tz", "UTC", log)
    assert {json.loads(line)["db"] for line in res.stdout.splitlines()} == {None, "shop", "crm"}
    pytest.importorskip("pandas")
    import binlogkit.frames as bf
    assert set(bf.slowlog_frame(str(log), server_tz="UTC")["db"].dropna()) == {"shop", "crm"}
    out = tmp_path / "slow.jsonl"
    res = run("export", log, "--what", "slowlog", "--server-tz", "UTC", "-o", out)
    assert res.exit_code == 0, res.output
    assert {json.loads(line)["db"] for line in out.read_text().splitlines()} == {None, "shop",
                                                                               "crm"}


@pytest.mark.parametrize("log", USE_LOGS)
def test_use_only_entries_fold_as_pt_query_digest_folds_them(log):
    """An entry whose statement is ``use db;`` is read as pt-query-digest reads it (its
    special case for a record without a query: the next lines up to ``;`` become an
    administrator command and the records after it start mid-entry); class count and
    every class's share as recorded from pt."""
    pt = pt_output(log)
    res = run("slowlog", "digest", "--format", "pt-json", "--limit", "0", "--server-tz", "UTC",
              FIX / log)
    assert res.exit_code == 0, res.output
    ours = json.loads(res.stdout)
    assert len(ours["classes"]) == len(pt["classes"])
    assert ({c["checksum"]: (c["query_count"], c["metrics"]["Query_time"]["pct"])
             for c in ours["classes"]}
            == {c["checksum"]: (c["query_count"], c["metrics"]["Query_time"]["pct"])
                for c in pt["classes"]})
