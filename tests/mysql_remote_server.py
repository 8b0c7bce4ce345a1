"""A throw-away MySQL 9.7 for the -R and raw-backup tests: unix socket and
127.0.0.1, a password user, the root's mysqlbinlog 9.7.4 beside binlogkit."""
import subprocess
import sys
import tempfile
from pathlib import Path

from mysql_server import MySQLServer, in_root  # noqa: F401
from binlogkit.lab.mysql_root import root_dir

USER, PASSWORD = "rpl", "s3cret pass"


def start_mysql(options):
    srv = MySQLServer(options=options, env={"TZ": "UTC", "LC_ALL": "C"}, port=0)
    srv.__enter__()
    try:
        srv.sql(f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'; "
                f"CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{PASSWORD}'; "
                f"GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO '{USER}'@'%'; "
                f"GRANT REPLICATION SLAVE, REPLICATION CLIENT, SELECT ON *.* TO '{USER}'@'localhost';")
    except BaseException:
        srv.cleanup()
        raise
    return srv


def socket_args(srv):
    """binlogkit's (host-side) arguments for the socket."""
    return ["-S", str(srv.socket), "-u", USER, f"--password={PASSWORD}"]


def tcp_args(srv):
    return ["-h", "127.0.0.1", "-P", str(srv.port), "-u", USER, f"--password={PASSWORD}",
            "--protocol=TCP"]


def root_socket_args(srv):
    """The same for the root's mysqlbinlog (the socket as the chroot sees it)."""
    return ["-S", srv.r(srv.socket), "-u", USER, f"--password={PASSWORD}"]


def binlogkit(*args, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 120)
    return subprocess.run([sys.executable, "-m", "binlogkit", *map(str, args)], **kw)


def mysqlbinlog_popen(*args, **kw):
    """The root's mysqlbinlog running in the background (paths as the chroot sees them)."""
    return subprocess.Popen(["chroot", str(root_dir()), "/usr/bin/env", "TZ=UTC", "TMPDIR=/tmp",
                             "/usr/bin/mysqlbinlog", *map(str, args)], **kw)


def root_tempdir(prefix):
    """A fresh directory below the root's /tmp (host path), for mysqlbinlog's output."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=Path(root_dir()) / "tmp"))
