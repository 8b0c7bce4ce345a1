"""`binlogkit sql`, `--format jsonl` and `binlogkit stats` on the recorded binlogs of
fixtures/sql/ (fixtures/gen_sql.py: MariaDB and MySQL 9.7, every column type, hostile
names), and their parts (literals, the CREATE TABLE reader, filters).  The round
trips on live servers are tests/test_sql_roundtrip.py."""
import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from binlogkit.binlog.rowevents import iter_rows_events
from binlogkit.binlog.rowimage import Bits, Date, DateTime, Time, Timestamp
from binlogkit.sqlgen.filters import FilterError, compile_where
from binlogkit.sqlgen.literals import literal, quote_name, string_literal
from binlogkit.sqlgen.schema import ColumnDesc, parse_schema
from binlogkit.sqlgen.walk import GtidSet

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures" / "sql"
FULL = [FIX / "mariadb-full.binlog", FIX / "mysql-full.binlog"]
HOSTILE_TABLE = "t`1; DROP TABLE x; --\n/*"


def run(*args, check=True):
    r = subprocess.run([sys.executable, "-m", "binlogkit", *map(str, args)],
                       capture_output=True, cwd=ROOT, env=dict(os.environ, TZ="UTC"))
    if check:
        assert r.returncode == 0, r.stderr.decode()
        assert b"Traceback" not in r.stderr
    return r


_SQL_TOKEN = re.compile(rb"`(?:[^`]|``)*`|_\w+ X'[0-9a-f]*'|X'[0-9a-f]*'|_\w+'(?:[^']|'')*'"
                        rb"|'(?:[^']|'')*'|b'[01]*'|#[^\n]*|--[^\n]*|.", re.S)


def code_outside_quotes(sql):
    """The SQL text with every identifier and string literal taken out."""
    out = []
    for m in _SQL_TOKEN.finditer(sql):
        tok = m.group()
        if tok[:1] in (b"`", b"'", b"#", b"-") or tok.startswith((b"X'", b"_", b"b'")):
            out.append(b" ? ")
        else:
            out.append(tok)
    return b"".join(out)


@pytest.mark.parametrize("path", FULL, ids=lambda p: p.name)
def test_statements_and_names_cannot_escape(path):
    sql = run("sql", path).stdout
    code = code_outside_quotes(sql)
    # what is left is keywords, punctuation, numbers and functions of our own
    assert b"DROP" not in code and b"/*" not in code
    assert re.findall(rb";(?!\n)", code) == []              # one statement a line
    words = set(re.findall(rb"[A-Za-z_][A-Za-z_0-9]*", code))
    assert words <= {b"INSERT", b"INTO", b"VALUES", b"UPDATE", b"SET", b"WHERE", b"DELETE",
                     b"FROM", b"LIMIT", b"AND", b"IS", b"NULL", b"E0", b"e", b"CAST", b"AS",
                     b"JSON", b"JSON_OBJECT", b"JSON_ARRAY", b"DECIMAL", b"BEGIN", b"COMMIT",
                     b"NAMES", b"utf8mb4", b"SESSION", b"sql_mode", b"time_zone",
                     b"binlogkit_sql_mode", b"binlogkit_time_zone", b"binlogkit", b"sql",
                     b"mode", b"time", b"zone", b"ARRAY", b"OBJECT", b"JSON_SET", b"JSON_REPLACE",
                     b"JSON_INSERT", b"JSON_REMOVE", b"JSON_ARRAY_INSERT"}, words
    assert sql.count(b"BEGIN;\n") == sql.count(b"COMMIT;\n") >= 10
    assert quote_name(HOSTILE_TABLE).encode() in sql


@pytest.mark.parametrize("path", FULL, ids=lambda p: p.name)
def test_flashback_is_the_forward_run_backwards(path):
    fwd = run("sql", path).stdout.decode()
    back = run("sql", "--flashback", path).stdout.decode()
    gtids = re.findall(r"^# at \S+ GTID (\S+),", fwd, re.M)
    undo = re.findall(r"^# undo of the transaction at \S+ GTID (\S+),", back, re.M)
    assert gtids and undo == gtids[::-1]
    n_ins, n_del = fwd.count("\nINSERT INTO"), fwd.count("\nDELETE FROM")
    assert back.count("\nDELETE FROM") == n_ins and back.count("\nINSERT INTO") == n_del
    assert back.count("\nUPDATE ") == fwd.count("\nUPDATE ")


@pytest.mark.parametrize("flavor", ["mariadb", "mysql"])
def test_schema_file_gives_the_statements_full_metadata_gives(flavor):
    """Without names in the log, --schema (SHOW CREATE TABLE text) gives the same
    statements as the same workload logged with binlog_row_metadata=FULL."""
    nonames = FIX / f"{flavor}-nonames.binlog"
    r = run("sql", nonames, check=False)
    assert r.returncode == 1 and b"--schema" in r.stderr and len(r.stderr.splitlines()) == 1
    with_schema = run("sql", "--schema", FIX / f"{flavor}-schema.sql", nonames).stdout
    full = run("sql", FIX / f"{flavor}-full.binlog").stdout

    def body(sql):      # positions, GTIDs and times differ between the two runs
        return [line for line in sql.splitlines() if not line.startswith((b"#", b"--"))]
    assert body(with_schema) == body(full)


def _events(path, *args):
    out = run("sql", "--format", "jsonl", *args, path).stdout.decode()
    return [json.loads(line, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
            for line in out.splitlines()]


@pytest.mark.parametrize("path", FULL, ids=lambda p: p.name)
def test_jsonl_change_events(path):
    events = _events(path)
    expected = sum(len(ev.rows) for ev in iter_rows_events(str(path)))
    assert len(events) == expected
    for e in events:
        assert set(e) == {"before", "after", "source", "op", "ts_ms", "transaction"}
        assert e["op"] in "cud"
        assert (e["before"] is None) == (e["op"] == "c")
        assert (e["after"] is None) == (e["op"] == "d")
        assert {"db", "table", "file", "pos", "row", "gtid", "server_id"} <= set(e["source"])
    new = next(e["after"] for e in events if e["op"] == "c" and e["source"]["table"] == "all types")
    # the row of the workload's multi-table transaction (tests/sqlroundtrip.py _row(7))
    assert new["biu"] == 18446744073709551615 - 7 and new["tiu"] == 255 - 7
    assert new["d2"] == "-12345678901234567890123456789012345.123456789012345678901234567897"
    assert new["ts6"] == "1970-01-01T00:00:01.000001Z" and new["dt"] == 19782
    assert new["lat"] == "\u00e9\u00e8" and new["u16"] == "\U0001F600x" and new["sj"] == "\u30bd"
    assert new["bn"] == "AAEAAAAAAAA=" and new["b1"] is True
    assert json.loads(new["j"]) == {"a": {"b": [True, False]}}
    assert new["pt"]["srid"] == 0
    hostile = [e for e in events if e["source"]["table"] == HOSTILE_TABLE]
    assert hostile and all("c'\"`\\ -- \n;" in (e["before"] or e["after"]) for e in hostile)


def test_jsonl_groups_rows_by_transaction():
    events = _events(FULL[0])
    by_txn = {}
    for e in events:
        by_txn.setdefault(e["transaction"]["id"], []).append(e["transaction"]["total_order"])
    assert all(orders == list(range(1, len(orders) + 1)) for orders in by_txn.values())
    assert max(len(v) for v in by_txn.values()) >= 4       # the multi-table transaction


@pytest.mark.parametrize("path", FULL, ids=lambda p: p.name)
def test_stats_counts_every_row_and_byte(path):
    doc = json.loads(run("stats", "--format", "json", path).stdout)
    want = {}
    for ev in iter_rows_events(str(path)):
        key = (ev.db, ev.table,
               {"write": "insert", "update": "update", "delete": "delete"}[ev.kind])
        want[key] = want.get(key, 0) + len(ev.rows)
    got = {(t["db"], t["table"], k): t[f"{k}_rows"] for t in doc["tables"]
           for k in ("insert", "update", "delete") if t[f"{k}_rows"]}
    assert got == want
    tx = doc["transactions"]
    assert tx["rows"] == sum(want.values())
    assert tx["biggest"][0]["bytes"] == max(t["bytes"] for t in tx["biggest"])
    assert tx["bytes"] <= path.stat().st_size
    text = run("stats", path).stdout.decode()
    assert "Biggest transactions" in text and "all types" in text
    assert HOSTILE_TABLE not in text and "t`1; DROP TABLE x; --\\n/*" in text
    md = run("stats", "--format", "markdown", path).stdout.decode()
    assert md.startswith("## Tables") and "| db | table |" in md


def test_filters_table_type_where_and_window():
    path = FULL[0]
    only = run("sql", "--table", "uniq", "--type", "delete", path).stdout.decode()
    assert only.count("\nDELETE FROM") == 1 and "INSERT" not in only and "UPDATE" not in only
    assert "`uniq` WHERE `k` = _utf8mb4'k2' LIMIT 1;" in only
    one = run("sql", "--where", "id = 1", "--table", "rt*.all*", path).stdout.decode()
    assert one.count("\nUPDATE ") == 3 and "`id` = 1 LIMIT 1;" in one
    assert run("sql", "--database", "other", path).stdout.count(b"BEGIN") == 0
    gtids = re.findall(r"GTID (\S+),", run("sql", path).stdout.decode())
    picked = run("sql", "--include-gtids", gtids[1], path).stdout.decode()
    assert re.findall(r"GTID (\S+),", picked) == [gtids[1]]
    rest = run("sql", "--exclude-gtids", gtids[0], path).stdout.decode()
    assert re.findall(r"GTID (\S+),", rest) == gtids[1:]
    positions = re.findall(r"^# at \S+:(\d+) GTID", run("sql", path).stdout.decode(), re.M)
    later = run("sql", "--start-position", positions[1], path).stdout.decode()
    assert re.findall(r"GTID (\S+),", later) == gtids[1:]
    upto = run("sql", "--stop-position", positions[2], path).stdout.decode()
    assert re.findall(r"GTID (\S+),", upto) == gtids[:2]
    assert run("sql", "--start-datetime", "2099-01-01 00:00:00", path).stdout.count(b"BEGIN") == 0
    assert run("sql", "--stop-datetime", "2000-01-01T00:00:00Z", path).stdout.count(b"BEGIN") == 0
    assert run("sql", "--start-datetime", "2000-01-01", path).stdout.count(b"BEGIN;") == len(gtids)
    bad = run("sql", "--where", "id = = 1", path, check=False)
    assert bad.returncode == 1 and bad.stderr.count(b"\n") == 1


def test_bad_input_is_one_line(tmp_path):
    cut = tmp_path / "cut.binlog"
    cut.write_bytes(FULL[0].read_bytes()[:3000])
    for args in (["sql", cut], ["sql", "--flashback", cut], ["stats", cut],
                 ["sql", "--format", "jsonl", cut], ["sql", tmp_path / "missing"]):
        r = run(*args, check=False)
        assert r.returncode == 1, args
        lines = r.stderr.decode().splitlines()
        assert len(lines) == 1 and "Traceback" not in lines[0], lines
    assert b"offset" in run("sql", cut, check=False).stderr
    r = run("sql", "-o", FULL[0], FULL[0], check=False)
    assert r.returncode == 2 and b"input" in r.stderr


# -- parts ----------------------------------------------------------------------------

COL = ColumnDesc("c")
U = ColumnDesc("u", unsigned=True)


@pytest.mark.parametrize("value, col_type, meta, column, text", [
    (-1, 1, 0, U, "255"), (-1, 8, 0, U, "18446744073709551615"), (-1, 8, 0, COL, "-1"),
    (Decimal("-0.0000000000"), 246, (20 << 8) | 10, COL, "-0.0000000000"),
    (0.10000000149011612, 4, 4, COL, "0.10000000149011612E0"), (-0.0, 5, 8, COL, "-0.0E0"),
    (1e300, 5, 8, COL, "1e+300"), (Bits(5, 4), 16, 4, COL, "b'0101'"), (0, 13, 0, COL, "0"),
    (Date(0, 0, 0), 10, 0, COL, "'0000-00-00'"),
    (DateTime(2024, 1, 2, 3, 4, 5, 120000, 3), 18, 3, COL, "'2024-01-02 03:04:05.120'"),
    (Time(True, 838, 59, 59, 0, 0), 19, 0, COL, "'-838:59:59'"),
    (Timestamp(0, 0, 0), 17, 0, COL, "'0000-00-00 00:00:00'"),
    (Timestamp(1, 1, 6), 17, 6, COL, "'1970-01-01 00:00:01.000001'"),
    (b"ab", 254, (254 << 8) | 8, ColumnDesc("b", charset="binary"), "X'6162000000000000'"),
    (b"it's", 15, 40, ColumnDesc("v", charset="latin1"), "_latin1'it''s'"),
    (b"a\\b", 15, 40, ColumnDesc("v", charset="utf8mb4"), "_utf8mb4 X'615c62'"),
    (b"\xc3\xa9\n", 15, 40, ColumnDesc("v", charset="utf8mb4"), "_utf8mb4 X'c3a90a'"),
    (b"\xc3\xa9", 15, 40, ColumnDesc("v", charset="utf8mb4"), "_utf8mb4'\u00e9'"),
    (b"\x00\xe9", 15, 40, ColumnDesc("v", charset="ucs2"), "_ucs2 X'00e9'"),
    (b"", 15, 40, ColumnDesc("v", charset="utf8mb4"), "_utf8mb4''"),
    (None, 3, 0, COL, "NULL"),
])
def test_literals(value, col_type, meta, column, text):
    assert literal(value, col_type, meta, column) == text


def test_no_literal_for_nan():
    with pytest.raises(ValueError):
        literal(float("nan"), 5, 8, COL)


def test_names_are_quoted():
    assert quote_name("a`b") == "`a``b`"
    assert string_literal(b"'; DROP TABLE t; --", "utf8mb4") == "_utf8mb4'''; DROP TABLE t; --'"


def test_schema_reader_mysqldump_text():
    schema = parse_schema("""
-- MySQL dump 10.13
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!50503 SET character_set_client = utf8mb4 */;
USE `shop`;
CREATE TABLE `orders` (
  `id` bigint unsigned NOT NULL AUTO_INCREMENT,
  `note` varchar(20) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'a,b)',
  `total` decimal(10,2) GENERATED ALWAYS AS ((`id` * 2)) VIRTUAL,
  `raw` varbinary(8),
  `body` text,
  PRIMARY KEY (`id`),
  KEY `k` (`note`(5))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;
CREATE TABLE `other`.`u` (`a` int NOT NULL, `b` int, UNIQUE KEY `ua` (`a`));
CREATE TABLE `v` (`a` int, `b` int, UNIQUE KEY (`a`));
""")
    orders = schema.get("shop", "orders")
    assert [c.name for c in orders.columns] == ["id", "note", "total", "raw", "body"]
    assert [c.unsigned for c in orders.columns][:1] == [True]
    assert [c.charset for c in orders.columns] == [None, "latin1", None, "binary", "utf8mb4"]
    assert [c.generated for c in orders.columns] == [False, False, True, False, False]
    assert orders.key == [0]
    assert schema.get("other", "u").key == [0]      # a NOT NULL unique key
    assert schema.get("shop", "v").key is None      # a nullable one is no key
    notes = schema.add_sql("ALTER TABLE `orders` ADD `x` int", default_db="shop")
    assert "ALTER TABLE" in notes[0] and ("shop", "orders") in schema.unknown
    schema.add_sql("RENAME TABLE `other`.`u` TO `other`.`u2`; DROP TABLE `shop`.`v`")
    assert schema.get("other", "u2") is not None and schema.get("shop", "v") is None


def test_where_expressions():
    pred = compile_where("id >= 10 and id < 20 or name in ('a', \"b\") and not `odd``col` = 1")
    assert pred({"id": 10}) and not pred({"id": 20})
    assert pred({"name": b"a"}) and not pred({"name": b"a", "odd`col": 1})
    assert compile_where("price = 1.50")({"price": Decimal("1.5")})
    for bad in ("", "id", "id = ", "id = 1 and", "(id = 1"):
        with pytest.raises(FilterError):
            compile_where(bad)


def test_gtid_sets():
    s = GtidSet("3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5:7, 0-1-10-12, 1-2-3")
    assert "3e11fa47-71ca-11e1-9e33-c80aa9429562:7" in s
    assert "3e11fa47-71ca-11e1-9e33-c80aa9429562:6" not in s
    assert "0-1-11" in s and "0-1-13" not in s and "1-2-3" in s and None not in s


def test_dml_frames_match_stats():
    import binlogkit.frames as bf
    doc = json.loads(run("stats", "--format", "json", "--top", "1000", FULL[1]).stdout)
    df = bf.dml_frame(FULL[1])
    assert int(df["update_rows"].sum()) == sum(t["update_rows"] for t in doc["tables"])
    assert int(df["insert_bytes"].sum()) == sum(t["insert_bytes"] for t in doc["tables"])
    tx = bf.dml_transactions_frame([FULL[1]])
    assert len(tx) == doc["transactions"]["count"]
    assert int(tx["rows"].sum()) == doc["transactions"]["rows"]
    assert tx["start_pos"].is_monotonic_increasing and str(tx["start"].dtype) == "datetime64[ns, UTC]"
