"""A throw-away MariaDB for the -R tests: unix socket and 127.0.0.1, a password
user for each, TLS with a certificate made for the run when openssl is there."""
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "fixtures"))

from binlogkit.lab.server import MariaDBServer, find_binary  # noqa: E402

USER, PASSWORD = "rpl", "s3cret pass"
MARIADB_BINLOG = find_binary("mariadb-binlog", "mysqlbinlog")


def make_certificates(directory):
    """A self-signed CA and a server certificate signed by it, or None."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    d = Path(directory)

    def run(*args):
        subprocess.run([openssl, *args], check=True, capture_output=True, cwd=d)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=binlogkit test CA",
        "-keyout", "ca-key.pem", "-out", "ca.pem")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
        "-keyout", "server-key.pem", "-out", "server.csr")
    (d / "ext.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
        "-CAcreateserial", "-days", "2", "-extfile", "ext.cnf", "-out", "server-cert.pem")
    return {"ca": str(d / "ca.pem"), "cert": str(d / "server-cert.pem"),
            "key": str(d / "server-key.pem")}


def start_server(options, tls=True):
    """Start a server listening on a socket and on 127.0.0.1; returns (server, certs)."""
    certs_dir = tempfile.mkdtemp(prefix="binlogkit-certs-")
    certs = None
    if tls:
        try:
            certs = make_certificates(certs_dir)
        except subprocess.CalledProcessError:
            certs = None
    opts = dict(options)
    if certs:
        opts.update(ssl_ca=certs["ca"], ssl_cert=certs["cert"], ssl_key=certs["key"])
    srv = MariaDBServer(options=opts, env={"TZ": "UTC", "LC_ALL": "C"}, port=0)
    srv.certs_dir = certs_dir
    try:
        srv.start()
    except RuntimeError:
        if not certs:
            raise
        srv.cleanup()       # the packaged server may lack TLS: go on without it
        opts = dict(options)
        certs = None
        srv = MariaDBServer(options=opts, env={"TZ": "UTC", "LC_ALL": "C"}, port=0)
        srv.certs_dir = certs_dir
        srv.start()
    for host in ("localhost", "127.0.0.1"):
        srv.sql(f"CREATE USER '{USER}'@'{host}' IDENTIFIED BY '{PASSWORD}';"
                f"GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT, RELOAD, SUPER "
                f"ON *.* TO '{USER}'@'{host}';")
    return srv, certs


def stop_server(srv):
    srv.cleanup()
    shutil.rmtree(srv.certs_dir, ignore_errors=True)


def socket_args(srv):
    return ["--socket", str(srv.socket), "--user", USER, f"--password={PASSWORD}"]


def tcp_args(srv):
    return ["--host=127.0.0.1", f"--port={srv.port}", "--protocol=TCP", "--user", USER,
            f"--password={PASSWORD}"]


def run_tool(cmd, args, tz, local_load):
    env = dict(os.environ, TZ=tz, LC_ALL="C")
    env.pop("MYSQL_PWD", None)
    proc = subprocess.run(cmd + [f"--local-load={local_load}"] + args, capture_output=True,
                          env=env, stdin=subprocess.DEVNULL, timeout=120)
    return proc.stdout.replace(local_load.encode(), b"LOCAL_LOAD_DIR"), proc.returncode, proc.stderr


def compare(args, tz="UTC"):
    with tempfile.TemporaryDirectory() as real_dir, tempfile.TemporaryDirectory() as our_dir:
        real = run_tool([MARIADB_BINLOG, "--no-defaults", "-R"], args, tz, real_dir)
        ours = run_tool([sys.executable, "-m", "binlogkit", "print", "-R"], args, tz, our_dir)
    if real[:2] != ours[:2]:
        diff = difflib.unified_diff(real[0].decode(errors="replace").splitlines(),
                                    ours[0].decode(errors="replace").splitlines(),
                                    "mariadb-binlog -R", "binlogkit print -R", lineterm="", n=2)
        pytest.fail(f"exit {real[1]} vs {ours[1]}; stderr {real[2]!r} vs {ours[2]!r}\n"
                    + "\n".join(list(diff)[:80]))
    return ours
