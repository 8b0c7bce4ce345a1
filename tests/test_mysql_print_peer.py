"""Every public MySQL binlog in ../shared/peer/mysql-binlogs prints, in every mode.

`binlogkit print -vv --base64-output=decode-rows` (and --hexdump
--print-table-metadata -vv, and the default base64 text) exits 0 on all of
them, except the deliberately broken files, which end with mysqlbinlog's
error text on one stderr line and exit 1.  One of those is special:
binlog_truncated_prev_gtid_event.000001 has the "in use" flag in its format
description event, and mysqlbinlog 8.0 treats a truncated last event of an
in-use log as the end of the file (dump_local_log_entries: "WARNING: File
ends with a truncated event.", exit 0); binlogkit does the same, and fails
only with --force-if-open=0.  Skips when ../shared is absent.
"""
import gzip
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs"
FILES = sorted(p for p in PEER.glob("*/*") if p.is_file()) if PEER.is_dir() else []
BROKEN = {
    # file: (flavor to ask for, text of the last stderr line)
    "binlog_truncated_event.000001": (
        "mysql", "Could not read entry at offset 4: Error in log format or read error 1. "
                 "binlog truncated in the middle of event; consider out of disk space"),
    "corrupt-relay-bin.000624": (
        "auto", "Could not read entry at offset 91204: Error in log format or read error 1. "
                "Found invalid event in binary log"),
}
IN_USE_TRUNCATED = "binlog_truncated_prev_gtid_event.000001"
MODES = {
    "decode_rows_vv": ["-vv", "--base64-output=decode-rows"],
    "hexdump_metadata_vv": ["--hexdump", "--print-table-metadata", "-vv"],
    "base64": [],
}

pytestmark = pytest.mark.skipif(not FILES, reason="../shared/peer/mysql-binlogs is absent")


def run(args, path, tmp_path):
    env = dict(os.environ, TZ="GMT-3", LC_ALL="C")
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", f"--local-load={tmp_path}",
                           *args, str(path)], capture_output=True, env=env)
    return proc.returncode, proc.stdout, proc.stderr.decode(errors="replace")


def readable(path, tmp_path):
    """The binlog itself; sakila.gz is a gzip'ed binlog (the tools read plain files)."""
    if path.suffix == ".gz":
        plain = tmp_path / path.stem
        plain.write_bytes(gzip.decompress(path.read_bytes()))
        return plain
    return path


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_peer_binlog_prints(path, mode, tmp_path):
    if path.name in BROKEN:
        pytest.skip("deliberately broken: see test_broken_binlogs_fail_like_mysqlbinlog")
    code, out, err = run(MODES[mode], readable(path, tmp_path), tmp_path)
    assert "Traceback" not in err, err
    assert code == 0, err
    assert out.endswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")
    if path.name == IN_USE_TRUNCATED:
        assert err.strip() == "WARNING: File ends with a truncated event."


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_binlogs_fail_like_mysqlbinlog(name, tmp_path):
    path = next((p for p in FILES if p.name == name), None)
    if path is None:
        pytest.skip(f"{name} not in the peer data")
    flavor, text = BROKEN[name]
    code, out, err = run(["-vv", "--base64-output=decode-rows", f"--flavor={flavor}"], path, tmp_path)
    assert "Traceback" not in err
    assert code == 1
    # the error line names the file; warnings of the end follow it, as in mysqlbinlog
    last = [line for line in err.strip().splitlines() if line.startswith("ERROR: ")][-1]
    assert str(path) in last and last.endswith(text), err
    if flavor == "mysql":     # mysqlbinlog still closes the output after a read error
        assert out.endswith(b"# End of log file\n/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
                            b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n")
    code, out, err = run(["-vv"], path, tmp_path)       # flavor from the file, default output
    assert code == 1 and "Traceback" not in err and len(err.strip().splitlines()) <= 2


def test_in_use_truncated_binlog_fails_without_force_if_open(tmp_path):
    path = next((p for p in FILES if p.name == IN_USE_TRUNCATED), None)
    if path is None:
        pytest.skip(f"{IN_USE_TRUNCATED} not in the peer data")
    code, out, err = run(["--force-if-open=0"], path, tmp_path)
    assert code == 1 and "Traceback" not in err
    assert "which was not closed properly" in err and str(path) in err
    # the error skips the flush of the head cache: the FDE's own text is never printed
    assert b"Start: binlog v 4" not in out and out.endswith(b"PSEUDO_SLAVE_MODE=0*/;\n")


def test_mariadb_file_among_them_uses_the_mariadb_flavor(tmp_path):
    path = next((p for p in FILES if p.name == "mariadb-bin.000001"), None)
    if path is None:
        pytest.skip("mariadb-bin.000001 not in the peer data")
    code, out, err = run([], path, tmp_path)
    assert code == 0
    assert out.startswith(b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n")
    assert b"pseudo_replica_mode" not in out
    code, out, err = run(["--flavor=mysql"], path, tmp_path)
    assert b"pseudo_replica_mode" in out and "Traceback" not in err
