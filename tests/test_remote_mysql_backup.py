"""`print -R --raw --stop-never` against a real MySQL 9.7: the copy is the server's
binlog, byte for byte, through KILL of the dump thread, FLUSH BINARY LOGS, idle
periods longer than the heartbeat period, a clean restart and SIGKILL during
writes; PURGE past the reader and RESET BINARY LOGS AND GTIDS stop it with one
line and exit 1.  The root's mysqlbinlog 9.7.4 runs its own --raw --stop-never
backup beside it as the anchor: every file it finished is identical to ours.

MySQL's dump differs from MariaDB's: flag 2 asks for v2 heartbeats (type 41),
heartbeats come as type 27 otherwise, the fake Rotate and a resumed dump's
Format_description carry LOG_EVENT_ARTIFICIAL_F or log_pos 0: none of it may
reach the copy.
"""
import hashlib
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

from mysql_server import needs_mysql
from mysql_remote_server import (
    mysqlbinlog_popen, root_socket_args, root_tempdir, socket_args, start_mysql, tcp_args,
)

pytestmark = [needs_mysql]

OPTIONS = {"gtid_mode": "ON", "enforce_gtid_consistency": "ON", "max_binlog_size": 32768,
           "binlog_format": "ROW"}


@pytest.fixture(scope="module")
def server():
    srv = start_mysql(OPTIONS)
    try:
        srv.sql("CREATE DATABASE b; CREATE TABLE b.t (id INT PRIMARY KEY AUTO_INCREMENT, "
                "v VARCHAR(200), n INT);")
        yield srv
    finally:
        srv.cleanup()


class Writer(threading.Thread):
    """Small transactions, a big one now and then, DDL; survives the faults."""

    def __init__(self, srv, pace=0.01):
        super().__init__(daemon=True)
        self.srv, self.pace = srv, pace
        self.stop_flag = threading.Event()
        self.pause = threading.Event()
        self.commits = 0

    def run(self):
        conn = None
        deadline = time.monotonic() + 300
        while not self.stop_flag.is_set() and time.monotonic() < deadline:
            if self.pause.is_set():
                time.sleep(0.05)
                continue
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
                cur.execute(f"CREATE TABLE IF NOT EXISTS b.t{i} (x INT PRIMARY KEY)")
                return
            rows = 30 if i % 20 == 0 else 3
            cur.executemany("INSERT INTO b.t (v, n) VALUES (%s, %s)",
                            [("x" * (i % 150), i)] * rows)
            cur.execute("UPDATE b.t SET n = n + 1 WHERE id = %s", (i,))
        conn.commit()

    def stop(self):
        self.stop_flag.set()
        self.join(30)


def current_log(srv):
    return srv.sql("SHOW BINARY LOG STATUS;").split("\t")[0]


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def start_backup(srv, target, first, *extra, remote_option="-R"):
    cmd = [sys.executable, "-m", "binlogkit", "print", *filter(None, [remote_option]), "--raw",
           "--stop-never",
           f"--result-file={target}/", *socket_args(srv), *extra, first]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stop_backup(proc):
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err, err.decode()
    return proc.returncode, err.decode()


def wait_for_copy(srv, target, timeout=60):
    """Until the copy holds the server's current log up to the server's end."""
    name = None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        name = current_log(srv)
        theirs, mine = srv.datadir / name, target / name
        if mine.exists() and mine.stat().st_size == theirs.stat().st_size:
            return name
        time.sleep(0.2)
    raise AssertionError(f"the copy did not catch up with {name}")


def check_copy(srv, target, first):
    """Every server log from `first` on: closed ones identical, the current one a
    prefix ending at an event boundary."""
    names = [p.name for p in srv.binlog_files()]
    names = names[names.index(first):]
    current = current_log(srv)
    for name in names:
        theirs, mine = srv.datadir / name, target / name
        assert mine.exists(), f"{name} was not copied"
        if name == current:
            data = mine.read_bytes()
            assert theirs.read_bytes()[:len(data)] == data, f"{name}: not a prefix"
            assert_event_boundary(mine)
        else:
            assert sha(mine) == sha(theirs), f"{name}: the copy differs: {first_difference(mine, theirs)}"
    extra = {p.name for p in target.iterdir()} - set(names)
    assert not extra, f"copies of logs the server does not have: {extra}"
    return names


def assert_event_boundary(path):
    """The events' lengths lead exactly to the end of the file."""
    data = path.read_bytes()
    pos = 4
    while pos < len(data):
        size = int.from_bytes(data[pos + 9:pos + 13], "little")
        assert size >= 19, f"{path.name}: bad event length at {pos}"
        pos += size
    assert pos == len(data), f"{path.name}: ends inside an event"


def first_difference(mine, theirs):
    a, b = mine.read_bytes(), theirs.read_bytes()
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    where = f"byte {at}: {a[at]} (copy), {b[at]} (server)" if at < min(len(a), len(b)) else "end"
    return f"sizes {len(a)} (copy) and {len(b)} (server), first difference at {where}"


def dump_threads(srv):
    return srv.sql("SELECT id FROM information_schema.processlist "
                   "WHERE command LIKE 'Binlog Dump%';").split()


def wait_for_dumps(srv, count, timeout=60.0):
    """Until `count` dump threads run (a client started on a loaded machine takes a while)."""
    deadline = time.monotonic() + timeout
    while len(dump_threads(srv)) < count and time.monotonic() < deadline:
        time.sleep(0.1)


def kill_dump_threads(srv):
    ids = srv.sql("SELECT id FROM information_schema.processlist "
                  "WHERE command LIKE 'Binlog Dump%';").split()
    for thread_id in ids:
        try:
            srv.sql(f"KILL {thread_id};")
        except RuntimeError:
            pass        # gone already
    return len(ids)


@pytest.fixture
def root_dirs():
    """Directories below the root's /tmp for mysqlbinlog's copies, removed afterwards."""
    made = []
    yield lambda prefix: made.append(root_tempdir(prefix)) or made[-1]
    for path in made:
        shutil.rmtree(path, ignore_errors=True)


def start_anchor(srv, first, target):
    """mysqlbinlog 9.7.4's own --raw --stop-never backup (server id 3) into `target`."""
    proc = mysqlbinlog_popen("-R", "--raw", "--stop-never", "--connection-server-id=3",
                             *root_socket_args(srv), f"--result-file={srv.r(target)}/", first,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc, target


def check_anchor(srv, anchor, target):
    """Every file the real tool finished (all but its last) is the server's and ours."""
    names = sorted(p.name for p in anchor.iterdir())
    assert names, "the real mysqlbinlog copied nothing"
    for name in names[:-1]:
        assert (anchor / name).read_bytes() == (srv.datadir / name).read_bytes(), name
        assert (target / name).read_bytes() == (anchor / name).read_bytes(), name
    return len(names) - 1


def test_backup_survives_faults(server, tmp_path, root_dirs):
    first = current_log(server)
    writer = Writer(server)
    writer.start()
    proc = start_backup(server, tmp_path, first, "--connection-server-id=2")
    anchor, anchor_dir = start_anchor(server, first, root_dirs("binlogkit-anchor-"))
    try:
        wait_for_dumps(server, 2)
        time.sleep(0.5)
        server.sql("FLUSH BINARY LOGS;")
        writer.pause.set()
        time.sleep(7.0)                     # idle longer than the heartbeat period (5 s)
        writer.pause.clear()
        time.sleep(1.0)
        assert proc.poll() is None, proc.communicate()[1].decode()
        assert anchor.poll() is None, anchor.communicate()[1].decode()
        assert kill_dump_threads(server) >= 2      # the anchor stops here, the backup goes on
        time.sleep(1.5)
        restart_then_crash(server)
    finally:
        writer.stop()
        anchor.wait(60)
    assert writer.commits > 50
    server.sql("FLUSH BINARY LOGS;")
    wait_for_copy(server, tmp_path)
    code, err = stop_backup(proc)
    assert code == 0, err
    assert "reconnecting" in err
    names = check_copy(server, tmp_path, first)
    assert len(names) >= 5
    assert check_anchor(server, anchor_dir, tmp_path) >= 1


def test_raw_copy_to_last_log_over_tcp(server, tmp_path):
    server.sql("INSERT INTO b.t (v, n) VALUES ('a', 1); FLUSH BINARY LOGS; "
               "INSERT INTO b.t (v, n) VALUES ('b', 2);")
    first = server.binlog_files()[0].name
    proc = subprocess.run([sys.executable, "-m", "binlogkit", "print", "-R", "--raw", "-t",
                           f"--result-file={tmp_path}/", *tcp_args(server), "--ssl-mode=REQUIRED", first],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    check_copy(server, tmp_path, first)
    # the log the server writes carries the in-use flag, as the server's file does
    assert (tmp_path / current_log(server)).read_bytes()[21] & 1


def restart_then_crash(srv):
    """A clean restart (a Stop event ends the log), then a SIGKILL during writes (no Stop
    event), the server started again; writes go on across both."""
    srv.restart()
    time.sleep(1.5)
    srv.kill()
    srv.start()
    time.sleep(1.5)


def gtid_backup_through(server, tmp_path, faults):
    """A GTID-mode backup (COM_BINLOG_DUMP_GTID) while a writer commits and `faults(server)`
    runs; then the copies must be the server's files.  Returns the names checked."""
    first = current_log(server)
    writer = Writer(server)
    writer.start()
    proc = start_backup(server, tmp_path, first, "--read-from-remote-source=BINLOG-DUMP-GTIDS",
                        remote_option=None)
    try:
        wait_for_dumps(server, 1)
        faults(server)
    finally:
        writer.stop()
    assert writer.commits > 20
    server.sql("FLUSH BINARY LOGS;")
    wait_for_copy(server, tmp_path)
    code, err = stop_backup(proc)
    assert code == 0, err
    assert "reconnecting" in err
    return check_copy(server, tmp_path, first)


def test_gtid_mode_backup_resumes(server, tmp_path):
    """--read-from-remote-source=BINLOG-DUMP-GTIDS (COM_BINLOG_DUMP_GTID): after a
    KILL of its dump thread it asks for what is neither excluded nor copied; with
    no --exclude-gtids the copies are the server's files."""
    def faults(srv):
        time.sleep(0.5)
        assert kill_dump_threads(srv) >= 1
        time.sleep(1.0)
        srv.sql("FLUSH BINARY LOGS;")
        time.sleep(1.0)
        kill_dump_threads(srv)
        time.sleep(1.0)
    gtid_backup_through(server, tmp_path, faults)


def test_gtid_mode_backup_through_restarts(server, tmp_path):
    """COM_BINLOG_DUMP_GTID through a clean restart and a SIGKILL during writes: the
    copies are still the server's files (closed ones identical, the current one a prefix)."""
    def faults(srv):
        time.sleep(1.0)
        restart_then_crash(srv)
    assert len(gtid_backup_through(server, tmp_path, faults)) >= 4


def test_gap_purged_past_the_reader(server, tmp_path):
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


def test_purge_while_copying(server, tmp_path):
    """PURGE of the log the dump waits in (after a rotation): the backup copies the
    rest through the Rotate or stops with one line; never a silent stop."""
    server.sql("INSERT INTO b.t (v, n) VALUES ('before purge', 1);")
    first = current_log(server)
    proc = start_backup(server, tmp_path, first)
    wait_for_copy(server, tmp_path)
    server.sql("FLUSH BINARY LOGS;")
    server.sql(f"PURGE BINARY LOGS TO '{current_log(server)}'; "
               "INSERT INTO b.t (v, n) VALUES ('after purge', 2);")
    wait_for_copy(server, tmp_path)
    code, err = stop_backup(proc)
    assert code == 0, err
    assert (tmp_path / first).exists()


def test_reset_while_copying(server, tmp_path):
    """RESET BINARY LOGS AND GTIDS while the dump waits: the backup notices at the
    next heartbeat and stops with one line instead of copying nothing for ever."""
    server.sql("INSERT INTO b.t (v, n) VALUES ('before reset', 1);")
    proc = start_backup(server, tmp_path, current_log(server))
    wait_for_copy(server, tmp_path)
    server.sql("RESET BINARY LOGS AND GTIDS; INSERT INTO b.t (v, n) VALUES ('after reset', 2);")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    lines = [line for line in err.decode().splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1 and ("reset" in lines[0] or "purged" in lines[0]), err.decode()


def test_gtid_mode_backup_with_excluded_gtids_matches_mysqlbinlog(server, tmp_path, root_dirs):
    """BINLOG-DUMP-GTIDS with --exclude-gtids: the copies lack the excluded
    transactions, so they are not the server's files; through KILLs of the dump
    thread, a FLUSH and a stop and start of the backup itself, every closed copy is
    the one mysqlbinlog 9.7.4 makes in the same mode without faults."""
    uuid = server.sql("SELECT @@server_uuid").strip()
    executed = server.sql("SELECT @@gtid_executed").strip().replace("\n", "")
    last = int(executed.split(":")[-1].split("-")[-1])
    # every tenth transaction from now on: each copy lacks some, wherever the faults fall
    exclude = f"{uuid}:" + ":".join(f"{gno}-{gno + 1}" for gno in range(last + 3, last + 3000, 10))
    first = current_log(server)
    gtid_args = ["--read-from-remote-source=BINLOG-DUMP-GTIDS", f"--exclude-gtids={exclude}"]
    writer = Writer(server, pace=0.02)
    writer.start()
    proc = start_backup(server, tmp_path, first, *gtid_args, remote_option=None)
    try:
        wait_for_dumps(server, 1)
        time.sleep(0.5)
        assert kill_dump_threads(server) >= 1
        time.sleep(1.0)
        server.sql("FLUSH BINARY LOGS;")
        time.sleep(1.0)
        kill_dump_threads(server)
        time.sleep(1.0)
        code, first_err = stop_backup(proc)     # and a new run goes on from its copies
        assert code == 0 and "reconnecting" in first_err, first_err
        time.sleep(1.0)
        proc = start_backup(server, tmp_path, first, *gtid_args, remote_option=None)
        time.sleep(2.0)
    finally:
        writer.stop()
    assert writer.commits > 60
    server.sql("FLUSH BINARY LOGS;")
    time.sleep(2.0)
    code, err = stop_backup(proc)
    assert code == 0, err
    anchor = root_dirs("binlogkit-gtid-anchor-")
    real = mysqlbinlog_popen(*gtid_args, "--raw", "--to-last-log", *root_socket_args(server),
                             f"--result-file={server.r(anchor)}/", first,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, real_err = real.communicate(timeout=120)
    assert real.returncode == 0, real_err
    closed = sorted(p.name for p in anchor.iterdir())[:-1]
    assert len(closed) >= 2
    for name in closed:
        theirs, mine = anchor / name, tmp_path / name
        assert mine.read_bytes() == theirs.read_bytes(), f"{name}: {first_difference(mine, theirs)}"
    assert any(len((anchor / name).read_bytes()) < len((server.datadir / name).read_bytes())
               for name in closed), "nothing was excluded"
