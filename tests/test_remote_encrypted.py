"""-R on a server that encrypts its binlogs (encrypt_binlog, file_key_management).

Over the dump the server decrypts the events and sends the Start_encryption
event flagged ignorable (and again, with end_log_pos 0, when a dump starts
inside the log).  `print -R` must print what mariadb-binlog -R prints; a raw
copy resumed inside an encrypted log must equal one made in one go (neither
is the server's encrypted file: the events come decrypted, as with the real
tool's --raw).
"""
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from binlogkit.lab.server import server_available
from remote_server import MARIADB_BINLOG, compare, socket_args, start_server, stop_server

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not server_available() or MARIADB_BINLOG is None,
                                 reason="mariadbd / mariadb-binlog are not installed")]
KEYS = "1;" + "a7" * 32 + "\n"


@pytest.fixture(scope="module")
def server():
    keydir = Path(tempfile.mkdtemp(prefix="binlogkit-keys-"))
    (keydir / "keys.txt").write_text(KEYS)
    opts = {"log_bin": "mariadb-bin", "server_id": 1, "binlog_format": "ROW",
            "binlog_checksum": "CRC32", "encrypt_binlog": "ON",
            "plugin_load_add": "file_key_management",
            "file_key_management_filename": str(keydir / "keys.txt")}
    try:
        srv, _ = start_server(opts, tls=False)
    except RuntimeError as exc:
        pytest.skip(f"the server cannot encrypt its binlog here: {exc}")
    try:
        srv.sql("CREATE DATABASE e; CREATE TABLE e.t (a INT PRIMARY KEY, b VARCHAR(20));"
                "INSERT INTO e.t VALUES (1, 'x'), (2, 'y'); FLUSH BINARY LOGS;"
                "UPDATE e.t SET b = 'z'; INSERT INTO e.t VALUES (3, 'w');")
        srv.names = [p.name for p in srv.binlog_files()]
        yield srv
    finally:
        stop_server(srv)
        import shutil
        shutil.rmtree(keydir, ignore_errors=True)


@pytest.mark.parametrize("args", [[], ["-vv", "--base64-output=decode-rows"], ["--hexdump"],
                                  ["--short-form"]], ids=["default", "vv", "hexdump", "short"])
def test_print_matches(server, args):
    compare(socket_args(server) + args + ["-t", server.names[0]])


def test_start_inside_an_encrypted_log(server):
    positions = [int(line.split("\t")[1]) for line in server.sql(
        f"SHOW BINLOG EVENTS IN '{server.names[-1]}';").splitlines() if line.strip()]
    compare(socket_args(server) + [f"--start-position={positions[3]}", server.names[-1]])


def raw_copy(server, target, *extra):
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "-R", "--raw", "-t",
                           f"--result-file={target}/", *socket_args(server), *extra,
                           server.names[0]], capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_resumed_copy_equals_a_copy_in_one_go(server, tmp_path):
    resumed, whole = tmp_path / "resumed", tmp_path / "whole"
    resumed.mkdir()
    whole.mkdir()
    raw_copy(server, resumed)
    server.sql("INSERT INTO e.t VALUES (4, 'v'), (5, 'u'); UPDATE e.t SET b = 'q' WHERE a = 1;")
    raw_copy(server, resumed)           # goes on inside the last, encrypted log
    raw_copy(server, whole)
    names = sorted(p.name for p in whole.iterdir())
    assert names == sorted(p.name for p in resumed.iterdir())
    for name in names:
        assert (resumed / name).read_bytes() == (whole / name).read_bytes(), name
