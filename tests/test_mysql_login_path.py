"""--login-path and the login path file (~/.mylogin.cnf) of the MySQL flavor, against the
real mysql_config_editor and mysqlbinlog 9.7.4 of the MySQL root (cli/mysqldefaults.py)."""
import os
import pty
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mysql_server import MySQLServer, in_root, mysqlbinlog, needs_mysql, root_dir
from oracle import diff_text

pytestmark = needs_mysql
ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "fixtures" / "mysql97" / "gtid_full" / "binlog.000001"
PASSWORD = "se'cr et#1"


def config_editor(login_file, *args, password=None):
    """Run the root's mysql_config_editor on a terminal (it reads the password from one)."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("chroot", ["chroot", str(root_dir()), "/usr/bin/env",
                             f"MYSQL_TEST_LOGIN_FILE={in_root(login_file)}",
                             "/usr/bin/mysql_config_editor", *args])
    seen = b""
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        if password is not None and b"password:" in seen.lower():
            os.write(fd, password.encode() + b"\n")
            password = None
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen


@pytest.fixture(scope="module")
def login_dir():
    (Path(root_dir()) / "tmp").mkdir(exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="binlogkit-login-", dir=Path(root_dir()) / "tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def both(login_file, args, files=(LOG,)):
    """(ours, the real tool's) CompletedProcess for `args` with this login path file (paths
    below the root as each sees them; the real tool's argv[0], /usr/bin/mysqlbinlog here,
    printed as `mysqlbinlog`, its name when started from PATH)."""
    host_args = [a.replace("@ROOT@", str(root_dir())) for a in args]
    args = [a.replace("@ROOT@", "") for a in args]
    ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", *host_args,
                           *map(str, files)],
                          capture_output=True,
                          env=dict(os.environ, MYSQL_TEST_LOGIN_FILE=str(login_file),
                                   HOME=str(login_file.parent), TZ="UTC"))
    inside = [in_root(f) if Path(f).is_absolute() and str(root_dir()) in str(f) else f
              for f in map(str, files)]
    real = mysqlbinlog([*args, *inside], env={"MYSQL_TEST_LOGIN_FILE": in_root(login_file),
                                              "HOME": in_root(login_file.parent), "TZ": "UTC"})
    real.stdout = real.stdout.replace(b"/usr/bin/mysqlbinlog ", b"mysqlbinlog ")
    real.stderr = real.stderr.replace(b"/usr/bin/mysqlbinlog: ", b"mysqlbinlog: ")
    return ours, real


def test_print_defaults_as_mysqlbinlog(login_dir):
    login = login_dir / ".mylogin.cnf"
    config_editor(login, "set", "--login-path=client", "--user=cuser", "--host=h1")
    config_editor(login, "set", "--login-path=backup", "--user=buser", "--password",
                  "--socket=/s.sock", "--port=3310", password=PASSWORD)
    extra = login_dir / "my.cnf"
    extra.write_text("[mysqlbinlog]\nuser=fileuser\n[backup]\nuser=not-read-here\n")
    log = login_dir / LOG.name
    shutil.copyfile(LOG, log)
    for args in (["--print-defaults"], ["--login-path=backup", "--print-defaults"],
                 ["--login-path=nosuch", "--print-defaults"],
                 ["--no-login-paths", "--print-defaults"],
                 ["--print-defaults", "--login-path=backup"],
                 [f"--defaults-extra-file=@ROOT@{in_root(extra)}", "--login-path=backup",
                  "--print-defaults"],
                 ["--login-path=backup", "--print-defaults", "-pgiven"]):
        ours, real = both(login, args, [log])
        # the paths differ only where the two see the root differently
        want = real.stdout.replace(in_root(log).encode(), str(log).encode())
        assert ours.stdout == want, diff_text(want, ours.stdout, args)
        assert ours.returncode == real.returncode == 0


def test_a_login_file_others_can_read_is_ignored(login_dir):
    login = login_dir / "open.cnf"
    config_editor(login, "set", "--login-path=client", "--user=cuser")
    os.chmod(login, 0o644)
    log = login_dir / "open.000001"
    shutil.copyfile(LOG, log)
    ours, real = both(login, ["--print-defaults"], [log])
    assert ours.stdout.replace(str(login_dir).encode(), b"D") == \
        real.stdout.replace(in_root(login_dir).encode(), b"D")
    assert ours.stderr.replace(str(login).encode(), b"F") == \
        real.stderr.replace(in_root(login).encode(), b"F")
    assert b"should be readable/writable only by current user" in ours.stderr


def test_remote_print_with_a_login_path(login_dir):
    """The user, password, host and port of a login path connect -R as mysqlbinlog does."""
    login = login_dir / "remote.cnf"
    with MySQLServer(port=0) as srv:
        quoted = PASSWORD.replace("'", "''")
        srv.sql(f"CREATE USER 'lp'@'%' IDENTIFIED BY '{quoted}'; "
                "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'lp'@'%'; "
                "CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1);")
        config_editor(login, "set", "--login-path=repl", "--user=lp", "--password",
                      "--host=127.0.0.1", f"--port={srv.port}", password=PASSWORD)
        ours, real = both(login, ["--login-path=repl", "-R", "--ssl-mode=REQUIRED"],
                          ["binlog.000001"])
        assert real.returncode == 0, real.stderr
        assert ours.returncode == 0, ours.stderr
        assert ours.stdout == real.stdout, diff_text(real.stdout, ours.stdout, "login path -R")
        assert b"Table_map: `d`.`t`" in ours.stdout
