"""Oracle: every public pt slow log gives the same classes as pt-query-digest.

Runs pt-query-digest live (skips when it or ../shared/peer is absent).  Per
class the query ID (MD5 of the fingerprint), the count and the Query_time sum
(as pt prints it, %.6f) must be identical.  Documented adjustment: pt does not
decompress .gz input, so it is fed the decompressed bytes.
"""
import gzip
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from binlogkit.slowlog.digest import Digest
from binlogkit.slowlog.parser import parse_slowlog

PEER = Path(__file__).resolve().parents[1].parent / "shared" / "peer" / "slowlogs" / "percona-toolkit"
LOGS = sorted(p.name for p in PEER.glob("*")) if PEER.is_dir() else []
PT = shutil.which("pt-query-digest")

pytestmark = [
    pytest.mark.skipif(not LOGS, reason="../shared/peer/slowlogs not present"),
    pytest.mark.skipif(PT is None, reason="pt-query-digest not installed"),
]


def pt_classes(path, tmp_path):
    if path.suffix == ".gz":
        plain = tmp_path / path.stem
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        path = plain
    out = subprocess.run([PT, "--output", "json", "--limit", "100%:1000000",
                          "--no-version-check", str(path)],
                         capture_output=True, check=True, timeout=120).stdout
    if not out.strip():
        return {}
    return {c["checksum"]: (c["query_count"], c["metrics"]["Query_time"]["sum"])
            for c in json.loads(out)["classes"]}


def our_classes(path):
    dg = Digest().add_all(parse_slowlog(path, zone="UTC"))
    return {dg.class_id(c): (c.count, "%.6f" % c.query_time.sum) for c in dg.classes()}


@pytest.mark.parametrize("name", LOGS)
def test_matches_pt_query_digest(name, tmp_path):
    path = PEER / name
    assert our_classes(path) == pt_classes(path, tmp_path)
