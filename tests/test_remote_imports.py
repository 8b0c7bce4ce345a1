"""remote/_pymysql.py: a connection imports pymysql without cryptography; RSA loads it."""
import shutil
import subprocess
import sys

import pytest

PROBE = r"""
import sys
import binlogkit.remote.handshake as h
assert "cryptography" not in sys.modules, "cryptography imported with the handshake"
if len(sys.argv) > 1:
    out = h.pymysql._auth.sha2_rsa_encrypt(b"secret", b"0123456789abcdefghij", open(sys.argv[1], "rb").read())
    assert "cryptography" in sys.modules and len(out) == 256, len(out)
print("ok")
"""


def test_handshake_imports_no_cryptography():
    r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True)
    assert r.stdout.strip() == "ok", r.stderr


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_rsa_encryption_loads_it_when_needed(tmp_path):
    pytest.importorskip("cryptography")
    key, pub = tmp_path / "key.pem", tmp_path / "pub.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
    subprocess.run(["openssl", "rsa", "-in", str(key), "-pubout", "-out", str(pub)], check=True,
                   capture_output=True)
    r = subprocess.run([sys.executable, "-c", PROBE, str(pub)], capture_output=True, text=True)
    assert r.stdout.strip() == "ok", r.stderr
