"""distill and bulk fingerprints against pt-query-digest.

* fixtures/slowlog/corpus.log holds query shapes for both (fixtures/gen_slowlogs.py
  --corpus); expected/*.pt.json record pt-query-digest's classes and distillates
  (its JSON ``distillate`` is the distill of each class's worst sample);
* with pt-query-digest installed the same is checked live, also on every log
  in ../shared/peer/slowlogs;
* Fingerprinter.keys (fingerprints of a batch through digit-free skeletons)
  must equal the one-by-one fingerprint for any query, including the special
  cases whose fingerprints keep digits.
"""
import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from binlogkit.slowlog.digest import Digest
from binlogkit.slowlog.distill import distill, distill_bytes
from binlogkit.slowlog.fingerprint import Fingerprinter, fingerprint
from binlogkit.slowlog.parallel import digest_files
from binlogkit.slowlog.parser import parse_slowlog

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "fixtures" / "slowlog"
PEER = ROOT.parent / "shared" / "peer" / "slowlogs" / "percona-toolkit"
PT = shutil.which("pt-query-digest")
RECORDED = sorted(FIX.glob("expected/*.pt.json"))


def recorded(path):
    data = json.loads(path.read_text())
    return FIX / data["source"], data


def digests(log, zone):
    """The digest of ``log`` by the line parser and by the CLI's bulk path."""
    yield Digest().add_all(parse_slowlog(log, zone=zone))
    yield digest_files([log], Digest(), zone=zone, workers=1)


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: p.name)
def test_recorded_distillates(path):
    log, data = recorded(path)
    assert data["distillates"]
    for dg in digests(log, data["server_tz"]):
        got = {dg.class_id(c): dg.class_distill(c) for c in dg.classes()}
        common = set(got) & set(data["distillates"])
        assert len(common) >= len(data["distillates"]) - 1      # see test_slowlog_fixtures
        assert {k: got[k] for k in common} == {k: data["distillates"][k] for k in common}


def test_corpus_classes():
    log, data = recorded(FIX / "expected" / "corpus.pt.json")
    for dg in digests(log, "UTC"):
        assert {dg.class_id(c): [c.count, "%.6f" % c.query_time.sum] for c in dg.classes()} \
            == data["classes"]


def pt_json(path, tmp_path):
    if path.suffix == ".gz":
        plain = tmp_path / path.stem
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        path = plain
    out = subprocess.run([PT, "--output", "json", "--limit", "100%:1000000",
                          "--no-version-check", str(path)],
                         capture_output=True, check=True, timeout=300).stdout
    return json.loads(out)["classes"] if out.strip() else []


LIVE = [FIX / "corpus.log"] + (sorted(PEER.glob("*")) if PEER.is_dir() else [])


@pytest.mark.skipif(PT is None, reason="pt-query-digest not installed")
@pytest.mark.parametrize("path", LIVE, ids=lambda p: p.name)
def test_live_distillates(path, tmp_path):
    pt = {c["checksum"]: (c["query_count"], c["metrics"]["Query_time"]["sum"], c["distillate"])
          for c in pt_json(path, tmp_path)}
    dg = digest_files([path], Digest(), zone="UTC", workers=1)
    ours = {dg.class_id(c): (c.count, "%.6f" % c.query_time.sum, dg.class_distill(c))
            for c in dg.classes()}
    assert ours == pt


def test_distill_types():
    """str or bytes in, str out (bytes out from distill_bytes); bad UTF-8 never raises."""
    q = "select a from t1 join u2 where x in (select b from v3)"
    assert distill(q) == distill(q.encode()) == distill_bytes(q.encode()).decode()
    assert isinstance(distill(b"SELECT * FROM \xff\xfe"), str)


# -- bulk fingerprints ---------------------------------------------------------------

PIECES = ["SELECT", "select", " * FROM ", "t", "users_", "`db`.`t", "`", " WHERE ", "a", " = ",
          "'x", "'", '"', "\\'", " IN (", ", ", ")", " AND ", "b", "NULL", "true", "false",
          " LIMIT ", " OFFSET ", " ORDER BY ", " ASC", " UNION ", "/* c */", "/*!4", "0001 ",
          " SQL_NO_CACHE */ * FROM `", "/*db.t:", "/", "*/", "CALL p", "(", "administrator command: ",
          "INSERT INTO t VALUES (", "), (", "use ", "--x\n", "#y\n", "\n", " ", "0x", "e", "-", "+",
          ".", "b'", "call ", "md", "5_"]


# pt-fingerprint 3.x output: only a whole `use x` statement becomes `use ?`
@pytest.mark.parametrize("query, expected", [
    (b"use 00use SELECT", b"use ?use select"), (b"use 12 x", b"use ? x"),
    (b"use db7", b"use ?"), (b"USE db\n", b"use ?\n"), (b"/*c*/use 12use t", b"use ?use t")])
def test_use_statements(query, expected):
    assert fingerprint(query) == expected
    fp = Fingerprinter()
    longer = query.replace(b"0", b"00")
    assert fp.keys([query, longer]) == [expected, Fingerprinter().compute(longer)]


def test_keys_equal_fingerprints():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    digits = st.text("0123456789", min_size=1, max_size=4)
    token = st.one_of(st.sampled_from(PIECES), digits)

    @hypothesis.settings(max_examples=400, deadline=None)
    @hypothesis.given(st.lists(st.lists(token, max_size=14).map("".join), min_size=1, max_size=12))
    def check(texts):
        queries = [t.encode() for t in texts]
        fp = Fingerprinter()
        assert fp.keys(queries) == [Fingerprinter().compute(q) for q in queries]
        assert fp.keys(queries) == [fingerprint(q) for q in queries]   # memo warm now
    check()


def test_keys_special_cases_keep_digits():
    queries = [b"CALL p1(3)", b"CALL p2(3)", b"SELECT /*!40001 SQL_NO_CACHE */ * FROM `t`",
               b"SELECT /*!50001 SQL_NO_CACHE */ * FROM `t`", b"SELECT 1 /*db.t:1/2*/",
               b"SELECT 1 /*db.t:12/34*/", b"administrator command: Quit",
               b"administrator command: Binlog Dump 12", b"SELECT * FROM t WHERE a = 12",
               b"SELECT * FROM t WHERE a = 3", b"SELECT 1\x00 FROM t"]
    got = Fingerprinter().keys(queries)
    assert got == [fingerprint(q) for q in queries]
    assert got[0] != got[1] and got[2] == b"mysqldump" != got[3] and got[4] != got[5]
    assert got[8] == got[9]
