"""binlogkit print == mariadb-binlog 10.11 on binlog format v1 (3.23) and v3 (4.0-4.1) logs and
on a v4 log with a Google-patched 27-byte common header, byte for byte (stdout, exit status)
and by message (stderr's ERROR/WARNING lines).

The logs are constructed by fixtures/gen_legacy.py, which also recorded what the real tool
printed for each option set and zone (fixtures/legacy/manifest.json)."""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import pytest

from oracle import diff_text, stderr_messages

ROOT = pathlib.Path(__file__).resolve().parent.parent
MANIFEST = json.loads((ROOT / "fixtures" / "legacy" / "manifest.json").read_text())
NOT_YET = {}


def _mask(data):
    for rule in MANIFEST["masks"].values():
        data = re.sub(rule["regex"].encode(), rule["replace"].encode(), data)
    return data


def _params():
    for case in MANIFEST["cases"]:
        first = pathlib.Path(case["files"][0]).name
        name = f"{first}@{case['case']}@{case['tz']}"
        reason = NOT_YET.get(name) or NOT_YET.get(f"{first}@{case['case']}")
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(case, id=name, marks=marks)


def _run(case, tmp_path, extra_env=None):
    tmp = tempfile.mkdtemp(prefix="binlogkit-mbtmp-", dir=tmp_path)
    local = tempfile.mkdtemp(prefix="binlogkit-localload-", dir=tmp_path)
    env = dict(os.environ, **(extra_env or {}), TZ=case["tz"], LC_ALL="C", TMPDIR=tmp)
    args = [a.replace("{LOCAL_LOAD_DIR}", local) for a in case["args"]]
    files = [str(ROOT / f) for f in case["files"]]
    stdin = pathlib.Path(files[0]).read_bytes() if case["stdin"] else None
    return subprocess.run([sys.executable, "-m", "binlogkit", "print", *MANIFEST["binlogkit_args"],
                           *args, *(["-"] if case["stdin"] else files)],
                          input=stdin, capture_output=True, env=env, cwd=tmp)


@pytest.mark.parametrize("case", list(_params()))
def test_legacy_binlog_prints_as_mariadb_binlog(case, tmp_path):
    _check(case, tmp_path)


# the same in one zone without the C accelerator (BINLOGKIT_PURE=1)
@pytest.mark.parametrize("case", [p for p in _params() if p.values[0]["tz"] == "UTC"])
def test_legacy_binlog_prints_as_mariadb_binlog_pure_python(case, tmp_path):
    _check(case, tmp_path, {"BINLOGKIT_PURE": "1"})


def _check(case, tmp_path, extra_env=None):
    proc = _run(case, tmp_path, extra_env)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    want = _mask((ROOT / case["stdout"]).read_bytes())
    got = _mask(proc.stdout)
    assert got == want, diff_text(want, got, case["case"])
    assert proc.returncode == case["exit"], proc.stderr.decode(errors="replace")
    expected = stderr_messages((ROOT / case["stderr"]).read_bytes()) if case["stderr"] else []
    assert stderr_messages(proc.stderr, ROOT) == expected


@pytest.mark.parametrize("name", sorted(n for n in MANIFEST["binlog_sha256"] if "truncated" not in n))
def test_python_api_reads_every_event_of_a_legacy_log(name):
    """event_rows walks v1 (13-byte headers, a 13-byte Stop event included) and v3 logs to
    their last byte, with the SQL of their Query events."""
    from binlogkit.analysis.records import EVENT_FIELDS, event_rows
    path = ROOT / "fixtures" / "legacy" / name
    rows = [dict(zip(EVENT_FIELDS, row)) for row in event_rows(path, query=True)]
    assert rows[0]["pos"] == 4 and rows[0]["type_code"] in (1, 15)
    for row, following in zip(rows, rows[1:]):
        assert row["pos"] + row["bytes"] == following["pos"]
    assert rows[-1]["pos"] + rows[-1]["bytes"] == path.stat().st_size
    queries = [row["query"] for row in rows if row["type_code"] == 2]
    assert queries and all(isinstance(q, str) and q for q in queries)


def test_python_api_on_a_cut_legacy_log_names_the_offset():
    from binlogkit.analysis.records import event_rows
    from binlogkit.errors import TruncatedEventError
    path = ROOT / "fixtures" / "legacy" / "v3_41_in_use_truncated.bin"
    with pytest.raises(TruncatedEventError) as err:
        list(event_rows(path))
    assert err.value.offset == 398 and str(path) in str(err.value)
