"""TLS modes and auth plugins on real servers (issue 26), against the real tools.

A CA generated for the run signs a certificate for the host name db.example only, so
connecting to 127.0.0.1 is a wrong host name; another CA is the wrong CA.  Each
failure's ERROR line is compared byte for byte with the real tool's for the same
options (mysqlbinlog 9.7.4 against MySQL 9.7, mariadb-binlog against MariaDB); each
success is checked on the server (Ssl_cipher of the connection binlogkit opened).
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from binlogkit.lab.server import find_binary, server_available
from binlogkit.remote.connection import ConnectOptions, connect
from binlogkit.remote.protocol import DumpStream, ServerError
from mysql_server import MySQLServer, in_root, mysqlbinlog, needs_mysql

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "Tls-S3cret"
MARIADB_BINLOG = find_binary("mariadb-binlog", "mysqlbinlog")
needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl")


def make_ca(directory, host="db.example"):
    """A CA and a server certificate it signs for `host` (a DNS name only)."""
    d = Path(directory)
    d.mkdir(parents=True)

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=d)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            f"/CN=binlogkit test CA {d.name}", "-keyout", "ca-key.pem", "-out", "ca.pem")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={host}",
            "-keyout", "server-key.pem", "-out", "server.csr")
    (d / "ext.cnf").write_text(f"subjectAltName=DNS:{host}\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
            "-CAcreateserial", "-days", "2", "-extfile", "ext.cnf", "-out", "server-cert.pem")
    return {"ca": str(d / "ca.pem"), "cert": str(d / "server-cert.pem"),
            "key": str(d / "server-key.pem")}


def binlogkit(*args):
    r = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args], capture_output=True,
                       text=True, cwd=ROOT, timeout=120)
    return r.returncode, r.stderr


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.startswith("ERROR:")]


def cipher(options):
    stream = DumpStream(connect(options))
    try:
        return stream.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'")[0][1]
    finally:
        stream.close()


# -- MySQL 9.7 ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mysql():
    srv = MySQLServer(port=0)
    srv.basedir.mkdir(parents=True, exist_ok=True)
    srv.ca = make_ca(srv.basedir / "ca")
    srv.other = make_ca(srv.basedir / "other")
    srv.options.update(ssl_ca=in_root(srv.ca["ca"]), ssl_cert=in_root(srv.ca["cert"]),
                       ssl_key=in_root(srv.ca["key"]))
    with srv:
        srv.sql(f"CREATE USER 'repl'@'%' IDENTIFIED WITH caching_sha2_password BY '{PASSWORD}';"
                "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';")
        srv.sql("CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1)")
        yield srv


def mysql_both(srv, tmp, *options, ca=None):
    """(our ERROR lines, mysqlbinlog's) for a TCP connection with `options`
    (`ca`: a host CA file, given to each as its side sees it); the cache of
    caching_sha2_password emptied first (FLUSH PRIVILEGES), so full auth runs."""
    base = ["-R", "-h127.0.0.1", f"-P{srv.port}", "-urepl", f"-p{PASSWORD}"]
    mine_ca = [f"--ssl-ca={ca}"] if ca else []
    theirs_ca = [f"--ssl-ca={in_root(ca)}"] if ca else []
    srv.sql("FLUSH PRIVILEGES")
    code, err = binlogkit(*base, "--raw", f"--result-file={tmp}/", *options, *mine_ca,
                          "binlog.000001")
    srv.sql("FLUSH PRIVILEGES")
    real = mysqlbinlog(base + list(options) + theirs_ca + ["binlog.000001"], text=True)
    return (code, error_lines(err), err), (real.returncode, error_lines(real.stderr), real.stderr)


MYSQL_CASES = [
    ((), None),                                             # PREFERRED: TLS, no check
    (("--ssl-mode=DISABLED",), None),                       # full auth without TLS: refused
    (("--ssl-mode=DISABLED", "--get-server-public-key"), None),     # ... or RSA
    (("--ssl-mode=REQUIRED",), None),
    (("--ssl-mode=VERIFY_CA",), None),                      # no CA given
    (("--ssl-mode=VERIFY_CA",), "ca"),
    (("--ssl-mode=VERIFY_CA",), "other"),                   # wrong CA
    (("--ssl-mode=VERIFY_IDENTITY",), "ca"),                # wrong host name
    ((), "other"),                                          # --ssl-ca alone: VERIFY_CA
    (("--ssl-mode=PREFERRED",), "other"),                   # a CA, but no check (warning)
]


@needs_mysql
@needs_openssl
@pytest.mark.parametrize("options, ca", MYSQL_CASES, ids=lambda v: repr(v))
def test_mysql_tls_modes_as_mysqlbinlog(mysql, tmp_path, options, ca):
    path = {"ca": mysql.ca["ca"], "other": mysql.other["ca"], None: None}[ca]
    (code, mine, err), (real_code, theirs, real_err) = mysql_both(mysql, tmp_path, *options,
                                                                  ca=path)
    assert mine == theirs, (err, real_err)
    assert (code == 0) == (real_code == 0), (err, real_err)
    assert PASSWORD not in err
    if code == 0:
        assert (tmp_path / "binlog.000001").stat().st_size > 100
        assert "mysqlbinlog: [Warning] Using a password on the command line interface can be " \
               "insecure.\n" in err
    warned = "WARNING: no verification of server certificate will be done."
    assert (warned in err) == (warned in real_err)


@needs_mysql
@needs_openssl
def test_mysql_which_connections_use_tls(mysql, tmp_path):
    tcp = dict(host="127.0.0.1", port=mysql.port, user="repl", password=PASSWORD)
    sock = dict(socket=str(mysql.socket), user="repl", password=PASSWORD)
    assert cipher(ConnectOptions(**tcp))                            # PREFERRED over TCP
    assert not cipher(ConnectOptions(**sock))                       # ... not over the socket
    assert cipher(ConnectOptions(**sock, ssl_mode="REQUIRED"))
    assert not cipher(ConnectOptions(**tcp, ssl_mode="DISABLED", get_server_public_key=True))
    assert cipher(ConnectOptions(**tcp, ssl_mode="VERIFY_CA", ssl_ca=mysql.ca["ca"]))


@needs_mysql
def test_mysql_server_public_key_path(mysql, tmp_path):
    """RSA with the key file of --server-public-key-path (the server's public_key.pem)."""
    key = mysql.datadir / "public_key.pem"
    mysql.sql("FLUSH PRIVILEGES")
    code, err = binlogkit("-R", "-h127.0.0.1", f"-P{mysql.port}", "-urepl", f"-p{PASSWORD}",
                          "--ssl-mode=DISABLED", f"--server-public-key-path={key}", "--raw",
                          f"--result-file={tmp_path}/", "binlog.000001")
    assert code == 0, err
    mysql.sql("FLUSH PRIVILEGES")
    code, err = binlogkit("-R", "-h127.0.0.1", f"-P{mysql.port}", "-urepl", f"-p{PASSWORD}",
                          "--ssl-mode=DISABLED", "--server-public-key-path=/nonexistent.pem",
                          "--raw", f"--result-file={tmp_path}/", "binlog.000001")
    real = mysqlbinlog(["-R", "-h127.0.0.1", f"-P{mysql.port}", "-urepl", f"-p{PASSWORD}",
                        "--ssl-mode=DISABLED", "--server-public-key-path=/nonexistent.pem",
                        "binlog.000001"], text=True)
    assert code == 1 and real.returncode == 1
    assert "mysqlbinlog: [Warning] Failed to locate server public key '/nonexistent.pem'.\n" in err
    assert error_lines(err) == error_lines(real.stderr)


@needs_mysql
@needs_openssl
def test_mysql_without_tls(tmp_path):
    srv = MySQLServer(port=0, options={"tls_version": ""})
    with srv:
        srv.sql(f"CREATE USER 'repl'@'%' IDENTIFIED WITH caching_sha2_password BY '{PASSWORD}';"
                "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';")
        for options in (("--ssl-mode=REQUIRED",), ("--ssl-mode=VERIFY_CA",), ()):
            ca = make_ca(srv.basedir / "ca")["ca"] if options[-1:] == (
                "--ssl-mode=VERIFY_CA",) else None
            (code, mine, err), (real_code, theirs, real_err) = mysql_both(srv, tmp_path,
                                                                          *options, ca=ca)
            assert mine == theirs, (options, err, real_err)
            assert code == 1 and real_code == 1


# -- MariaDB ----------------------------------------------------------------------------------

needs_mariadb = pytest.mark.skipif(not server_available() or MARIADB_BINLOG is None,
                                   reason="no MariaDB server / mariadb-binlog")


def start_mariadb(certs):
    from binlogkit.lab.server import MariaDBServer
    options = {"log_bin": "mariadb-bin"}
    if certs:
        options.update(ssl_ca=certs["ca"], ssl_cert=certs["cert"], ssl_key=certs["key"])
    srv = MariaDBServer(options=options, port=0)
    srv.start()
    srv.sql(f"CREATE USER 'repl'@'%' IDENTIFIED BY '{PASSWORD}'; GRANT ALL ON *.* TO 'repl'@'%';"
            f"CREATE USER 'repl'@'localhost' IDENTIFIED BY '{PASSWORD}';"
            "GRANT ALL ON *.* TO 'repl'@'localhost'; FLUSH BINARY LOGS;")
    return srv


@pytest.fixture(scope="module")
def mariadb():
    tmp = Path(tempfile.mkdtemp(prefix="binlogkit-tls-"))
    ca, other = make_ca(tmp / "ca"), make_ca(tmp / "other")
    srv = start_mariadb(ca)
    srv.ca, srv.other = ca, other
    try:
        yield srv
    finally:
        srv.cleanup()
        shutil.rmtree(tmp, ignore_errors=True)


def mariadb_both(srv, *options):
    base = ["-R", "-h127.0.0.1", f"-P{srv.port}", "-urepl", f"-p{PASSWORD}", *options,
            "mariadb-bin.000001"]
    code, err = binlogkit(*base)
    real = subprocess.run([MARIADB_BINLOG, *base], capture_output=True, text=True, timeout=60)
    return (code, error_lines(err), err), (real.returncode, error_lines(real.stderr), real.stderr)


@needs_mariadb
@needs_openssl
@pytest.mark.parametrize("options", [
    (), ("--ssl",), ("--skip-ssl",), ("--ssl-ca={ca}",), ("--ssl-ca={other}",),
    ("--ssl-ca={ca}", "--ssl-verify-server-cert"), ("--ssl-ca={other}", "--ssl-verify-server-cert"),
    ("--ssl-verify-server-cert",),
], ids=repr)
def test_mariadb_tls_as_mariadb_binlog(mariadb, options):
    options = [o.format(ca=mariadb.ca["ca"], other=mariadb.other["ca"]) for o in options]
    (code, mine, err), (real_code, theirs, real_err) = mariadb_both(mariadb, *options)
    assert mine == theirs, (err, real_err)
    assert code == real_code, (err, real_err)
    assert PASSWORD not in err and "[Warning]" not in err     # mariadb-binlog has no warning


@needs_mariadb
@needs_openssl
def test_mariadb_which_connections_use_tls(mariadb):
    tcp = dict(host="127.0.0.1", port=mariadb.port, user="repl", password=PASSWORD)
    sock = dict(socket=str(mariadb.socket), user="repl", password=PASSWORD)
    assert cipher(ConnectOptions(**tcp))            # mariadb-binlog 10.11: --ssl on by default
    assert cipher(ConnectOptions(**sock))           # ... also over the socket
    assert not cipher(ConnectOptions(**tcp, ssl=False))
    assert cipher(ConnectOptions(**tcp, ssl_ca=mariadb.ca["ca"]))
    with pytest.raises(ServerError, match="Validation of SSL server certificate failed"):
        cipher(ConnectOptions(**tcp, ssl_ca=mariadb.ca["ca"], ssl_verify_server_cert=True))


@needs_mariadb
@needs_openssl
def test_mariadb_without_tls(tmp_path):
    srv = start_mariadb(None)
    try:
        for options in ((), ("--ssl",), ("--ssl-verify-server-cert",)):
            (code, mine, err), (real_code, theirs, real_err) = mariadb_both(srv, *options)
            assert mine == theirs and code == real_code, (options, err, real_err)
        tcp = dict(host="127.0.0.1", port=srv.port, user="repl", password=PASSWORD)
        assert not cipher(ConnectOptions(**tcp))
    finally:
        srv.cleanup()


@needs_mariadb
def test_password_from_an_option_file(mariadb, tmp_path):
    """[client] password= keeps working; not on the command line: no warning, nothing hidden."""
    cnf = tmp_path / "my.cnf"
    cnf.write_text(f"[client]\nuser=repl\npassword={PASSWORD}\n")
    cnf.chmod(0o600)
    args = [f"--defaults-file={cnf}", "-R", "-h127.0.0.1", f"-P{mariadb.port}", "mariadb-bin.000001"]
    r = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args], capture_output=True,
                       cwd=ROOT, timeout=120)
    real = subprocess.run([MARIADB_BINLOG, *args], capture_output=True, timeout=60)
    assert r.returncode == 0 and real.returncode == 0, r.stderr
    assert r.stdout == real.stdout
    assert r.stderr == b""
