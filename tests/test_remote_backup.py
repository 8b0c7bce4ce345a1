"""`print -R --raw [--stop-never]`: the copy is the server's binlog, byte for byte,
through real faults: KILL of the dump thread, FLUSH BINARY LOGS, a clean
restart, SIGKILL of the server during writes, a server-id clash; and a gap
(PURGE past the copy, RESET MASTER) stops it with one line and exit 1.

One throw-away server for the module (restarted and killed by the tests), small
binlogs (max_binlog_size 32 KB: many rotations), a writer thread committing
transactions (multi-row, DDL, a big one) that survives the faults.
"""
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from binlogkit.lab.server import server_available
from remote_server import PASSWORD, USER, socket_args, start_server, stop_server, tcp_args

pytestmark = [pytest.mark.server,
              pytest.mark.skipif(not server_available(), reason="mariadbd is not installed")]

OPTIONS = {"log_bin": "mariadb-bin", "server_id": 1, "binlog_format": "ROW",
           "binlog_checksum": "CRC32", "max_binlog_size": 32768,
           "binlog_annotate_row_events": "ON"}


@pytest.fixture(scope="module")
def server():
    srv, _ = start_server(OPTIONS, tls=False)
    try:
        srv.sql("CREATE DATABASE b; CREATE TABLE b.t (id INT PRIMARY KEY AUTO_INCREMENT, "
                "v VARCHAR(200), n INT);")
        yield srv
    finally:
        stop_server(srv)


class Writer(threading.Thread):
    """Commits small transactions until stopped; reconnects through faults."""

    def __init__(self, srv, pace=0.01):
        super().__init__(daemon=True)
        self.srv, self.pace = srv, pace
        self.stop_flag = threading.Event()
        self.commits = 0

    def run(self):
        conn = None
        deadline = time.monotonic() + 300
        while not self.stop_flag.is_set() and time.monotonic() < deadline:
            try:
                if conn is None:
                    conn = self.srv.connect(autocommit=False)
                self._transaction(conn)
                self.commits += 1
            except Exception:
                conn = None
                time.sleep(0.2)
            time.sleep(self.pace)

    def _transaction(self, conn):
        with conn.cursor() as cur:
            i = self.commits
            if i % 50 == 49:
                cur.execute(f"CREATE TABLE IF NOT EXISTS b.t{i} (x INT)")     # a DDL group
                return
            rows = 30 if i % 20 == 0 else 3
            cur.executemany("INSERT INTO b.t (v, n) VALUES (%s, %s)",
                            [("x" * (i % 150), i)] * rows)
            cur.execute("UPDATE b.t SET n = n + 1 WHERE id = %s", (i,))
        conn.commit()

    def stop(self):
        self.stop_flag.set()
        self.join(30)


def start_backup(srv, target, first, *extra):
    cmd = [sys.executable, "-m", "binlogkit", "print", "-R", "--raw", "--stop-never",
           f"--result-file={target}/", *socket_args(srv), *extra, first]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stop_backup(proc):
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err, err.decode()
    return proc.returncode, err.decode()


def current_log(srv):
    return srv.sql("SHOW MASTER STATUS;").split("\t")[0]


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def wait_for_copy(srv, target, timeout=60):
    name = None
    """Until the copy holds the server's current log up to the server's end."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        name = current_log(srv)
        theirs, mine = srv.datadir / name, target / name
        if mine.exists() and mine.stat().st_size == theirs.stat().st_size:
            return name
        time.sleep(0.2)
    raise AssertionError(f"the copy did not catch up with {name}")


def check_copy(srv, target, first):
    """Every server log from `first` on: closed ones identical, the current one a prefix."""
    names = [p.name for p in srv.binlog_files()]
    names = names[names.index(first):]
    current = current_log(srv)
    for name in names:
        theirs, mine = srv.datadir / name, target / name
        assert mine.exists(), f"{name} was not copied"
        if name == current:
            data = mine.read_bytes()
            assert theirs.read_bytes()[:len(data)] == data, f"{name}: not a prefix"
        else:
            assert sha(mine) == sha(theirs), f"{name}: the copy differs: {_first_difference(mine, theirs)}"
    extra = {p.name for p in target.iterdir()} - set(names)
    assert not extra, f"copies of logs the server does not have: {extra}"
    return names


def _first_difference(mine, theirs):
    a, b = mine.read_bytes(), theirs.read_bytes()
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    where = f"byte {at}: {a[at]} (copy), {b[at]} (server)" if at < min(len(a), len(b)) else "end"
    return f"sizes {len(a)} (copy) and {len(b)} (server), first difference at {where}"


def kill_dump_threads(srv):
    ids = srv.sql("SELECT id FROM information_schema.processlist "
                  "WHERE command = 'Binlog Dump';").split()
    for thread_id in ids:
        srv.sql(f"KILL {thread_id};")
    return len(ids)


def test_raw_copy_to_last_log(server, tmp_path):
    server.sql("INSERT INTO b.t (v, n) VALUES ('a', 1); FLUSH BINARY LOGS;")
    first = server.binlog_files()[0].name
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "-R", "--raw", "-t",
                           f"--result-file={tmp_path}/", *tcp_args(server), first],
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr
    check_copy(server, tmp_path, first)
    # the log the server writes carries the in-use flag, as the server's file does
    current = tmp_path / current_log(server)
    assert current.read_bytes()[21] & 1


def test_backup_survives_faults(server, tmp_path):
    first = current_log(server)
    writer = Writer(server)
    writer.start()
    proc = start_backup(server, tmp_path, first)
    try:
        time.sleep(1.5)
        assert kill_dump_threads(server) >= 1
        time.sleep(1.0)
        server.sql("FLUSH BINARY LOGS;")
        time.sleep(1.0)
        kill_dump_threads(server)
        time.sleep(0.5)
        server.restart()                    # clean: a Stop event ends the log
        time.sleep(1.5)
        server.kill()                       # SIGKILL during writes: no Stop event
        server.start()
        time.sleep(1.5)
    finally:
        writer.stop()
    assert writer.commits > 50
    server.sql("FLUSH BINARY LOGS;")
    wait_for_copy(server, tmp_path)
    code, err = stop_backup(proc)
    assert code == 0, err
    assert "reconnecting" in err
    names = check_copy(server, tmp_path, first)
    assert len(names) >= 5


def test_backup_resumes_after_its_own_stop(server, tmp_path):
    first = current_log(server)
    writer = Writer(server)
    writer.start()
    try:
        proc = start_backup(server, tmp_path, first)
        time.sleep(1.5)
        assert stop_backup(proc)[0] == 0        # SIGTERM: the copy is cut at a group end
        time.sleep(1.0)
        proc = start_backup(server, tmp_path, first)
        time.sleep(1.5)
    finally:
        writer.stop()
    server.sql("FLUSH BINARY LOGS;")
    wait_for_copy(server, tmp_path)
    assert stop_backup(proc)[0] == 0
    check_copy(server, tmp_path, first)


def test_server_id_clash(server, tmp_path):
    """A second dump with the same server id makes the server drop the first one
    ('A slave with the same server_uuid/server_id is already connected'): the
    first backup stops with one line naming --connection-server-id (it does not
    fight back), its copy exact as far as it went; the second goes on."""
    first = current_log(server)
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    writer = Writer(server, pace=0.02)
    writer.start()
    try:
        older = start_backup(server, a, first, "--connection-server-id=4242")
        time.sleep(1.5)
        newer = start_backup(server, b, first, "--connection-server-id=4242")
        _, err = older.communicate(timeout=60)
        time.sleep(1.0)
    finally:
        writer.stop()
    assert older.returncode == 1, err
    lines = [line for line in err.decode().splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1 and "--connection-server-id" in lines[0], err.decode()
    server.sql("FLUSH BINARY LOGS;")
    try:
        wait_for_copy(server, b)
    finally:
        code, err = stop_backup(newer)
    assert code == 0, err
    check_copy(server, b, first)
    copies = sorted(p.name for p in a.iterdir())
    for name in copies:
        mine, theirs = (a / name).read_bytes(), (server.datadir / name).read_bytes()
        if name == copies[-1]:
            assert theirs.startswith(mine[:21] + theirs[21:22] + mine[22:]), name
        else:
            assert mine == theirs, name


def test_gap_purged(server, tmp_path):
    first = current_log(server)
    server.sql("INSERT INTO b.t (v, n) VALUES ('p', 1);")
    proc = start_backup(server, tmp_path, first)
    wait_for_copy(server, tmp_path)
    assert stop_backup(proc)[0] == 0
    server.sql("FLUSH BINARY LOGS; INSERT INTO b.t (v, n) VALUES ('q', 2); FLUSH BINARY LOGS;")
    server.sql(f"PURGE BINARY LOGS TO '{current_log(server)}';")
    proc = start_backup(server, tmp_path, first)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    lines = [line for line in err.decode().splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1 and "purged" in lines[0], err.decode()


def test_gap_reset_master(server, tmp_path):
    server.sql("INSERT INTO b.t (v, n) VALUES ('r', 1); FLUSH BINARY LOGS;")
    first = current_log(server)
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "-R", "--raw", "-t",
                           f"--result-file={tmp_path}/", *socket_args(server), first],
                          capture_output=True)
    assert proc.returncode == 0, proc.stderr
    server.sql("RESET MASTER; INSERT INTO b.t (v, n) VALUES ('s', 2);")
    proc = start_backup(server, tmp_path, first)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    lines = [line for line in err.decode().splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1 and ("reset" in lines[0] or "purged" in lines[0]), err.decode()


def test_reset_master_while_copying(server, tmp_path):
    """RESET MASTER while the dump waits: the server leaves the dump thread on the
    deleted file (heartbeats, never another event); the backup notices at the next
    heartbeat and stops with one line instead of copying nothing for ever."""
    server.sql("INSERT INTO b.t (v, n) VALUES ('before reset', 1);")
    proc = start_backup(server, tmp_path, current_log(server))
    wait_for_copy(server, tmp_path)
    server.sql("RESET MASTER; INSERT INTO b.t (v, n) VALUES ('after reset', 2);")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    lines = [line for line in err.decode().splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1 and "reset" in lines[0], err.decode()


def test_wrong_password_fails_at_once(server, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "-R", "--raw",
                           "--stop-never", f"--result-file={tmp_path}/", "-S", str(server.socket),
                           "-u", USER, "--password=nope", "mariadb-bin.000001"],
                          capture_output=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.decode().startswith("ERROR: Failed on connect:"), proc.stderr
    assert PASSWORD not in proc.stderr.decode()


def test_status_line_on_a_terminal(server, tmp_path):
    """On a terminal the backup keeps one status line on stderr: file, position,
    events/s, seconds behind."""
    import pty
    import re
    server.sql("INSERT INTO b.t (v, n) VALUES ('tty', 1);")
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "binlogkit", "print", "-R", "--raw", "-t",
                                 f"--result-file={tmp_path}/", *socket_args(server),
                                 current_log(server)], stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        slave = None
        text = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            text += chunk
        assert proc.wait(60) == 0, text
    finally:
        os.close(master)
        if slave is not None:
            os.close(slave)
    assert re.search(r"mariadb-bin\.\d+ \d+ \d+ events/s \d+ s behind", text.decode()), text
