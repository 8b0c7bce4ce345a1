"""Slow-log rough edges a new user hit (issue 27): database names, use-only entries,
digest defaults as pt-query-digest's, not-a-slow-log input.

The logs with ``use`` statements come from real servers (fixtures/gen_slowlog_use.py);
pt-query-digest's digest of them is recorded (fixtures/gen_slowlog_ptjson.py) and compared
whole by tests/test_slowlog_ptjson.py.
"""
import json
import re
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


# -- digest defaults as pt-query-digest's -----------------------------------------------------

RECORDED = sorted(p.name.replace(".pt-output.json", ".log")
                  for p in (FIX / "expected").glob("*.pt-output.json"))


@pytest.mark.parametrize("log", RECORDED)
def test_default_limit_reports_the_classes_pt_reports(log, tmp_path):
    """No --limit: pt-query-digest's 95%:20 (recorded: the classes pt reports without one)."""
    doc = recorded(log)
    path = tmp_path / log
    data = (FIX / log).read_bytes()
    if doc["cut_before_line"]:
        data = b"".join(data.splitlines(keepends=True)[:doc["cut_before_line"] - 1])
    path.write_bytes(data)
    res = run("slowlog", "digest", "--format", "pt-json", "--server-tz", "UTC", path)
    assert res.exit_code == 0, res.output
    assert [c["checksum"] for c in json.loads(res.stdout)["classes"]] == doc["default_limit"]
    text = run("slowlog", "digest", "--server-tz", "UTC", path)
    ranks = [line for line in text.stdout.splitlines() if re.match(r"# +\d+ 0x", line)]
    assert len(ranks) == len(doc["default_limit"])


def test_limit_help_shows_one_percent_sign():
    res = run("slowlog", "digest", "--help")
    assert "95%:20" in res.stdout and "%%" not in res.stdout


def test_unknown_order_by_and_filter_attributes_warn():
    log = FIX / "mariadb-full.log"
    res = CliRunner().invoke(main, ["slowlog", "digest", "--order-by", "Foo:sum", str(log)])
    assert res.exit_code == 0
    assert ("warning: --order-by: no entry has an attribute Foo (names are case-sensitive"
            in res.stderr)
    res = CliRunner().invoke(main, ["slowlog", "digest", "--filter",
                                    "Nonexistent_attr > 1 or Rows_affected > 0", str(log)])
    assert res.exit_code == 0
    assert ("warning: --filter: no entry has an attribute Nonexistent_attr" in res.stderr)
    assert "Rows_affected" not in res.stderr
    ok = CliRunner().invoke(main, ["slowlog", "digest", "--order-by", "Rows_affected:max",
                                   "--filter", "Full_scan == Yes and db == shop", str(log)])
    assert ok.exit_code == 0 and "warning: --" not in ok.stderr


def test_skipped_lines_name_the_first_one(tmp_path):
    log = tmp_path / "s.log"
    log.write_bytes(b"# Time: 240105 10:00:01\n# User@Host: a[a] @ h []\n"
                    b"# Query_time: 1.0  Lock_time: 0  Rows_sent: 0  Rows_examined: 0\n"
                    b"SELECT 1;\n"
                    b"# Time: 240105 10:00:02\n# User@Host: a[a] @ h []\n"
                    b"# Query_time: 2.0  Lock_time: 0  Rows_sent: 0  Rows_examined: 0\n"
                    b"SELECT 2;\n# User@Host: cut")
    res = CliRunner().invoke(main, ["slowlog", "digest", "--server-tz", "UTC", str(log)])
    assert res.exit_code == 0
    assert f"skipped 1 unparseable lines (the first: {log} line 9)" in res.stderr


# -- not a slow log ----------------------------------------------------------------------------

def _not_slowlogs(tmp_path):
    import random
    noise = tmp_path / "noise.bin"
    noise.write_bytes(random.Random(27).randbytes(300_000))
    return [noise, ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"]


@pytest.mark.parametrize("command", [["slowlog", "digest"], ["slowlog", "digest", "--jobs", "1"],
                                     ["slowlog", "digest", "--filter", "Query_time > 0"],
                                     ["slowlog", "events"], ["export", "--what", "slowlog"]],
                         ids=["digest", "digest-jobs1", "digest-filter", "events", "export"])
def test_not_a_slow_log_is_refused(command, tmp_path):
    """Random bytes or a binlog: one line saying "not a slow log", exit 1, no output."""
    for path in _not_slowlogs(tmp_path):
        out = tmp_path / "out.jsonl"
        args = command + [str(path)] + (["-o", str(out)] if command[0] == "export" else [])
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 1, (path.name, res.output)
        assert res.stdout == ""
        lines = res.stderr.splitlines()
        assert len(lines) == 1 and "not a slow log" in lines[0] and str(path) in lines[0]
    pytest.importorskip("pandas")
    import binlogkit.frames as bf
    from binlogkit.errors import SlowlogError
    with pytest.raises(SlowlogError, match="not a slow log"):
        bf.slowlog_frame(str(path))


def test_slow_logs_that_start_mid_entry_or_are_empty_are_still_read(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    assert run("slowlog", "events", empty).exit_code == 0
    cut = tmp_path / "cut.log"         # a rotated log's tail: the rest of a query, then entries
    cut.write_bytes(b"  FROM t WHERE id = 3;\n" + (FIX / "mysql8-log_slow_extra.log").read_bytes())
    res = run("slowlog", "events", cut)
    assert res.exit_code == 0 and len(res.stdout.splitlines()) >= 2
