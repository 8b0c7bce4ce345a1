"""Names with line breaks never escape a `#` comment line (issue 13).

fixtures/gen_hostile.py recorded a real server's binlog whose database,
table and primary-key column names hold a line feed followed by SQL, and
mariadb-binlog's output for several option sets.  binlogkit prints the same
bytes except where the real tool puts such a name raw into a comment line
(`Table_map:`, the -v `###` lines, `# Primary Key(...)`): there the name is
escaped (backslash, LF, CR as \\\\, \\n, \\r) and one WARNING line says so.
tests/test_hostile_replay.py replays both outputs on a server.
"""
import hashlib
import struct
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oracle  # noqa: E402

from binlogkit.printer.safety import WARNING  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = json.loads((ROOT / "fixtures" / "hostile" / "manifest.json").read_text())
NAMES = {k: v.encode() for k, v in MANIFEST["names"].items()}


def escaped(name):
    return name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def expected_text(real):
    """The real tool's bytes with the names in comment lines escaped."""
    qualified = b"`" + NAMES["db"] + b"`.`" + NAMES["table"] + b"`"
    lead = re.compile(rb"(Table_map: |### INSERT INTO |### UPDATE |### DELETE FROM )"
                      + re.escape(qualified))
    text = lead.sub(lambda m: m.group(1) + escaped(qualified), real)
    key = b"# Primary Key(" + NAMES["column"] + b")"
    return text.replace(key, b"# Primary Key(" + escaped(NAMES["column"]) + b")")


def test_manifest():
    binlog = ROOT / MANIFEST["binlog"]
    assert hashlib.sha256(binlog.read_bytes()).hexdigest() == MANIFEST["binlog_sha256"]
    for case in MANIFEST["cases"]:
        data = (ROOT / case["stdout"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == case["stdout_sha256"], case["case"]


@pytest.mark.parametrize("case", MANIFEST["cases"], ids=lambda c: c["case"])
def test_names_escaped_only_in_comment_lines(case):
    env = dict(os.environ, TZ=MANIFEST["tz"], LC_ALL="C")
    binlog = ROOT / MANIFEST["binlog"]
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", *case["args"], binlog.name],
                          capture_output=True, cwd=binlog.parent, env=env, timeout=120)
    real = (ROOT / case["stdout"]).read_bytes()
    want = expected_text(real)
    assert proc.returncode == case["exit"], proc.stderr
    assert proc.stdout == want, oracle.diff_text(want, proc.stdout, case["case"])
    if want == real:        # nothing to escape (--short-form): byte-identical, no warning
        assert proc.stderr == b""
    else:
        assert proc.stderr.decode().splitlines() == [f"WARNING: {WARNING}"]


def test_no_name_tail_starts_a_line():
    """The tails of the names that the real tool lets start a line of their own."""
    case = next(c for c in MANIFEST["cases"] if c["case"] == "v_table_metadata")
    binlog = ROOT / MANIFEST["binlog"]
    env = dict(os.environ, TZ=MANIFEST["tz"], LC_ALL="C")
    ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", *case["args"], binlog.name],
                          capture_output=True, cwd=binlog.parent, env=env, timeout=120).stdout
    real = (ROOT / case["stdout"]).read_bytes()
    tails = {b"CREATE DATABASE pwned_tbl; #` mapped to number 22",
             b"CREATE DATABASE pwned_pk; #)"}
    assert any(t in real.splitlines() for t in tails)        # the hole, in the real tool
    assert not any(t in ours.splitlines() for t in tails)


# -- the MySQL flavor, on a binlog built from bytes ------------------------------------------

def _mysql_hostile_log():
    import test_mysql_print_units as U
    from binlogkit.binlog import layout as L
    names = NAMES["column"]
    optional = (bytes([4, len(names) + 1, len(names)]) + names    # COLUMN_NAME
                + bytes([8, 1, 0]))                                  # SIMPLE_PRIMARY_KEY: column 0
    log = U.Binlog()
    log.add(L.TABLE_MAP_EVENT, U.table_map_body(db=NAMES["db"], table=NAMES["table"],
                                                types=b"\x03", optional=optional))
    log.add(L.WRITE_ROWS_EVENT, U.rows_body(b"\x00" + struct.pack("<i", 7)))
    return log.bytes(), U.render


def test_mysql_flavor_escapes_names_in_comment_lines():
    from binlogkit.printer import safety
    data, render = _mysql_hostile_log()
    safety.reset()
    out, warnings, error = render(data, verbose=2, print_table_metadata=True)
    assert error is None, error
    assert safety.escaped() > 0
    lines = out.splitlines()
    qualified = escaped(b"`" + NAMES["db"] + b"`.`" + NAMES["table"] + b"`")
    assert any(line.endswith(b"\tTable_map: " + qualified + b" mapped to number 70")
               for line in lines), out.decode(errors="replace")
    assert b"### INSERT INTO " + qualified in lines
    assert b"# Primary Key(" + escaped(NAMES["column"]) + b")" in lines
    assert not [line for line in lines if b"pwned" in line and not line.startswith(b"#")]
