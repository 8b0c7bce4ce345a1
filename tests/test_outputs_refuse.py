"""Every command that writes a file refuses to overwrite one of its inputs (issue 26):
the same check as print --result-file (cli/outputs.py), by device and inode, so a
hard link or another spelling of an input is refused too, and the input is intact."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SLOWLOG = sorted((ROOT / "fixtures" / "slowlog").glob("*.log"))[0]
BINLOG = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001"


def run(*args):
    return subprocess.run([sys.executable, "-m", "binlogkit", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("command", [
    ["slowlog", "events", "-o", "{out}", "{slow}"],
    ["slowlog", "events", "--format", "parquet", "-o", "{out}", "{slow}"],
    ["slowlog", "digest", "-o", "{out}", "{slow}"],
    ["export", "--what", "slowlog", "--format", "jsonl", "-o", "{out}", "{slow}"],
    ["report", "--slowlog", "{slow}", "--binlog", "{binlog}", "-o", "{out}"],
    ["report", "--slowlog", "{slow}", "--binlog", "{binlog}", "--plot", "{out}"],
    ["print", "--result-file={out}", "{binlog}"],
], ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("spelling", ["same", "hardlink", "dotted"])
def test_output_is_an_input(tmp_path, command, spelling):
    slow, binlog = tmp_path / "slow.log", tmp_path / "bin.000001"
    shutil.copy(SLOWLOG, slow)
    shutil.copy(BINLOG, binlog)
    victim = binlog if command[0] == "print" or "{binlog}" in command[-1] else slow
    if command[0] == "report":
        victim = slow
    before = victim.read_bytes()
    if spelling == "hardlink":
        out = tmp_path / "link"
        os.link(victim, out)
    elif spelling == "dotted":
        out = tmp_path / "." / victim.name
    else:
        out = victim
    args = [a.format(out=out, slow=slow, binlog=binlog) for a in command]
    result = run(*args)
    assert result.returncode in (1, 2), result
    assert "not overwriting it (nothing written)" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) <= 4 and "Traceback" not in result.stderr
    assert victim.read_bytes() == before
