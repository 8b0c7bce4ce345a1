"""Structural checks of the committed fixtures (no server, no mariadb-binlog needed).

Regenerate with ``python fixtures/generate.py``; hand edits make these fail.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures"
MANIFEST = FIX / "expected" / "manifest.json"
SETS = ("crc32", "none", "compressed")
MAGIC = b"\xfebin"


@pytest.fixture(scope="module")
def manifest():
    return json.loads(MANIFEST.read_text())


def _events(data: bytes):
    pos = 4
    while pos < len(data):
        assert pos + 19 <= len(data), f"short header at {pos}"
        typ = data[pos + 4]
        size = struct.unpack_from("<I", data, pos + 9)[0]
        assert size >= 19, f"bad event size {size} at {pos}"
        yield pos, typ, size
        pos += size
    assert pos == len(data)


def _binlogs(set_name):
    return sorted((FIX / "binlog" / set_name).glob("mariadb-bin.[0-9]*"))


def test_manifest_records_tool_version(manifest):
    assert manifest["mariadb_binlog_version"].startswith(("mariadb-binlog", "/usr/bin/mariadb-binlog"))
    assert "Ver" in manifest["mariadb_binlog_version"]
    assert manifest["package_version"]
    assert manifest["generated"]
    assert manifest["cases"]


def test_binlog_hashes_match_manifest(manifest):
    on_disk = {str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest()
               for p in sorted((FIX / "binlog").rglob("*")) if p.is_file()}
    assert on_disk == manifest["binlog_sha256"]


@pytest.mark.parametrize("set_name", SETS)
def test_binlogs_are_complete(set_name):
    files = _binlogs(set_name)
    assert len(files) >= 3
    for f in files:
        data = f.read_bytes()
        assert data[:4] == MAGIC, f
        total = 4 + sum(size for _, _, size in _events(data))
        assert total == len(data), f
        first = next(_events(data))
        assert first[1] == 15, f"{f}: first event is not FORMAT_DESCRIPTION"
    for f in files[:-1]:
        last = list(_events(f.read_bytes()))[-1]
        assert last[1] == 4, f"{f}: non-final file does not end with ROTATE"


def test_crc32_last_file_in_use_and_none_last_file_stopped():
    data = _binlogs("crc32")[-1].read_bytes()
    flags = struct.unpack_from("<H", data, 4 + 17)[0]
    assert flags & 0x1, "crc32 last file should carry LOG_EVENT_BINLOG_IN_USE_F"
    for set_name in ("none", "compressed"):
        f = _binlogs(set_name)[-1]
        data = f.read_bytes()
        assert not struct.unpack_from("<H", data, 4 + 17)[0] & 0x1, f
        assert list(_events(data))[-1][1] == 3, f"{f}: should end with STOP"


def test_compressed_set_has_compressed_events():
    types = {t for f in _binlogs("compressed") for _, t, _ in _events(f.read_bytes())}
    assert 165 in types and types & {166, 167, 168, 169, 170, 171}


def test_expected_files_match_manifest(manifest):
    referenced = {MANIFEST.relative_to(ROOT).as_posix()}
    for c in manifest["cases"]:
        for key in ("stdout", "stderr", "result_file"):
            if c[key]:
                assert (ROOT / c[key]).is_file(), c[key]
                referenced.add(c[key])
        for f in c["files"]:
            if "missing" not in f:
                assert (ROOT / f).exists(), f
        assert c["masks"] == [] or set(c["masks"]) <= set(manifest["mask_definitions"])
    on_disk = {p.relative_to(ROOT).as_posix() for p in (FIX / "expected").rglob("*") if p.is_file()}
    assert on_disk == referenced


def test_successful_cases_have_output(manifest):
    for c in manifest["cases"]:
        if c["exit"] != 0:
            continue
        if c["result_file"]:
            assert (ROOT / c["result_file"]).stat().st_size > 0, c
        else:
            assert (ROOT / c["stdout"]).stat().st_size > 0, c


def test_manifest_covers_case_list(manifest):
    spec = importlib.util.spec_from_file_location("fixture_cases", FIX / "cases.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    want = {(s, c["name"], tz) for c in mod.CASES for s in c["sets"] for tz in c["tz"]}
    got = {(c["set"], c["case"], c["tz"]) for c in manifest["cases"]}
    assert want == got
    assert len(got) == len(manifest["cases"])
