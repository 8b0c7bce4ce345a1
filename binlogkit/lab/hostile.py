"""A scripted hostile server: the client/server protocol, spoken badly on purpose.

Real servers are the reference for everything a real server does; this one is for
what none does.  `HostileServer(play)` listens on 127.0.0.1 (a free port) and runs
`play(session)` for each connection in a thread of its own; a `Session` has the
protocol's pieces (greeting, OK/ERR/EOF, result sets, the dump's events) and keeps
every byte the client sent (`received`), so a test can look for a password in it.

`Plan.random(rng)` draws one hostile session: an odd greeting (garbage, truncated,
silence, a huge length, endless pieces of one packet), an auth switch (to
mysql_clear_password, dialog, caching_sha2_password's full authentication, an
unknown plugin, several switches), bad answers to the client's queries, and a dump
whose events come from a real binlog (fixtures/binlog/crc32) with bad checksums,
wrong or huge lengths, truncated packets, endless heartbeats, error packets and
hostile Rotate names.  `run_session(plan, workdir)` points binlogkit's raw backup or
`print -R` at it and checks what must hold whatever the server does: no exception
outside binlogkit's error tree (no traceback), an end within the time limit (every
read has a timeout), nothing written outside the result directory, the password
never sent in clear, the process's memory bounded.  bench/fuzz_remote.py runs
thousands of sessions; tests/test_hostile_server.py a short seeded run.
"""
import os
import random
import socket
import struct
import threading
import zlib
from pathlib import Path

from binlogkit.binlog import layout as L

__all__ = ["HostileServer", "Session", "Plan", "run_session", "fixture_events",
           "rotate_event", "HOSTILE_NAMES", "PASSWORD"]

PASSWORD = "Hostile-S3cret!"
MARIADB_VERSION = "10.11.19-MariaDB-log"
MYSQL_VERSION = "9.7.4"
CAPABILITIES = 0x000FF7FF & ~0x0800          # everything of 4.1+ but CLIENT_SSL (0x800)
CLIENT_SSL = 0x0800
HOSTILE_NAMES = (b"../escaped.000001", b"/tmp/binlogkit-hostile-abs", b"a/b.000001", b"..", b".",
                 b"x\0y.000001", b"bad\nname.000001", b"\x1b[2Jclear.000001", b"n" * 256,
                 b"", b"sub\\dir.000001", b"ok\x7f.000001")


# -- the server ------------------------------------------------------------------------

class Session:
    """One client connection: framing, the packets a server sends, what the client said."""

    def __init__(self, sock, timeout):
        self.sock = sock
        self.sock.settimeout(timeout)
        self.seq = 0
        self.received = bytearray()
        self.sent = 0

    def send_raw(self, data):
        self.sock.sendall(data)
        self.sent += len(data)

    def send(self, payload, length=None):
        """One packet (`length` overrides the length in its header)."""
        n = len(payload) if length is None else length
        self.send_raw(struct.pack("<I", n)[:3] + bytes((self.seq & 0xFF,)) + payload)
        self.seq += 1

    def recv(self):
        """The client's next packet (its payload), or None when it went away."""
        header = self._recv_exactly(4)
        if header is None:
            return None
        self.seq = header[3] + 1
        return self._recv_exactly(header[0] | header[1] << 8 | header[2] << 16)

    def _recv_exactly(self, n):
        data = bytearray()
        while len(data) < n:
            try:
                chunk = self.sock.recv(n - len(data))
            except OSError:
                return None
            if not chunk:
                return None
            data += chunk
            self.received += chunk
        return bytes(data)

    # -- packets ----------------------------------------------------------------------
    def greeting(self, version=MARIADB_VERSION, capabilities=CAPABILITIES,
                 plugin=b"mysql_native_password", salt=b"0123456789abcdefghij"):
        caps = struct.pack("<I", capabilities)
        payload = (b"\x0a" + version.encode() + b"\0" + struct.pack("<I", 7) + salt[:8] + b"\0"
                   + caps[:2] + bytes((45,)) + struct.pack("<H", 2) + caps[2:]
                   + bytes((len(salt) + 1,)) + b"\0" * 10 + salt[8:] + b"\0" + plugin + b"\0")
        self.seq = 0
        self.send(payload)

    def ok(self):
        self.send(b"\x00\x00\x00\x02\x00\x00\x00")

    def error(self, errno=1045, message="Access denied"):
        self.send(b"\xff" + struct.pack("<H", errno) + b"#28000" + message.encode())

    def eof(self):
        self.send(b"\xfe\x00\x00\x02\x00")

    def resultset(self, columns, rows):
        self.send(_lenenc(len(columns)))
        for name in columns:
            self.send(b"".join(_lenenc_str(x) for x in (b"def", b"", b"", b"", name.encode(), b""))
                      + b"\x0c\x21\x00" + struct.pack("<I", 255) + b"\xfd\x00\x00\x00\x00\x00")
        self.eof()
        for row in rows:
            self.send(b"".join(b"\xfb" if v is None else _lenenc_str(v) for v in row))
        self.eof()


def _lenenc(n):
    if n < 251:
        return bytes((n,))
    if n < 1 << 16:
        return b"\xfc" + struct.pack("<H", n)
    if n < 1 << 24:
        return b"\xfd" + struct.pack("<I", n)[:3]
    return b"\xfe" + struct.pack("<Q", n)


def _lenenc_str(value):
    value = value if isinstance(value, bytes) else str(value).encode()
    return _lenenc(len(value)) + value


class HostileServer:
    """Listens on 127.0.0.1; `play(session)` answers each connection (a thread each)."""

    def __init__(self, play, timeout=5.0):
        self.play = play
        self.timeout = timeout
        self.sessions = []
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port = self._listener.getsockname()[1]
        self._threads = []
        self._closed = False
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self):
        self._acceptor.start()
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._closed = True
        try:
            self._listener.close()
        except OSError:
            pass
        self._acceptor.join(self.timeout + 1)
        for session in list(self.sessions):
            _close(session.sock)
        for thread in list(self._threads):
            thread.join(self.timeout + 1)

    def received(self):
        return b"".join(bytes(session.received) for session in self.sessions)

    def _accept(self):
        self._listener.settimeout(0.1)        # to see _closed: close() does not wake accept()
        while not self._closed:
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            session = Session(sock, self.timeout)
            self.sessions.append(session)
            thread = threading.Thread(target=self._serve, args=(session,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _serve(self, session):
        try:
            self.play(session)
        except OSError:
            pass                # the client went away: that is its right
        finally:
            _close(session.sock)


def _close(sock):
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


# -- events -----------------------------------------------------------------------------

def _with_crc(event):
    return event + struct.pack("<I", zlib.crc32(event) & 0xFFFFFFFF)


def rotate_event(name, position=4, when=0, crc=True):
    """A fake Rotate (timestamp 0, artificial); the one that starts a dump comes
    before any format description, without a CRC."""
    body = struct.pack("<Q", position) + name
    size = L.LOG_EVENT_HEADER_LEN + len(body) + (4 if crc else 0)
    header = struct.pack("<IBIIIH", when, L.ROTATE_EVENT, 1, size, 0, 0x20)
    return _with_crc(header + body) if crc else header + body


def heartbeat_event(name=b"mariadb-bin.000001"):
    size = L.LOG_EVENT_HEADER_LEN + len(name) + 4
    return _with_crc(struct.pack("<IBIIIH", 0, L.HEARTBEAT_LOG_EVENT, 1, size, 0, 0x20) + name)


def fixture_events(path=None):
    """The events of a real binlog (CRC32), each as bytes, from the format description on."""
    if path is None:
        path = (Path(__file__).resolve().parents[2] / "fixtures" / "binlog" / "crc32"
                / "mariadb-bin.000001")
    data = Path(path).read_bytes()
    events, pos = [], 4
    while pos + L.LOG_EVENT_HEADER_LEN <= len(data):
        size = struct.unpack_from("<I", data, pos + 9)[0]
        if size < L.LOG_EVENT_HEADER_LEN or pos + size > len(data):
            break
        events.append(data[pos:pos + size])
        pos += size
    return events


# -- one hostile session --------------------------------------------------------------------

GREETINGS = ("garbage", "truncated", "silence", "close", "huge", "endless", "protocol9",
             "ssl_offered")
AUTHS = ("error", "clear_password", "dialog", "caching_full", "caching_pubkey_garbage",
         "unknown_plugin", "two_switches", "extra_garbage", "silence", "truncated", "close")
QUERIES = ("error", "garbage", "huge", "silence", "close", "many_columns", "truncated")
DUMP_FAULTS = ("none", "bad_crc", "short_length", "long_length", "tiny_event", "huge_length",
               "truncated", "endless_heartbeats", "endless_packet", "error_packet", "error_short",
               "garbage", "hostile_rotate", "hostile_rotate", "hostile_rotate", "silence",
               "eof_early", "bit_flips", "bit_flips", "unknown_first_byte")
STAGES = ("greeting", "auth", "query", "dump")
STAGE_WEIGHTS = (15, 25, 10, 50)


class Plan:
    """What one hostile server does (a seeded draw): one stage misbehaves, the
    others go as a MariaDB (or MySQL) server's would."""

    def __init__(self, seed, greeting, auth, query, dump, client, name, at, flips):
        self.seed, self.greeting, self.auth, self.query, self.dump = seed, greeting, auth, query, dump
        self.client, self.name, self.at, self.flips = client, name, at, flips

    @classmethod
    def random(cls, seed):
        rng = random.Random(seed)
        stage = rng.choices(STAGES, STAGE_WEIGHTS)[0]
        greeting = rng.choice(GREETINGS) if stage == "greeting" else rng.choice(("normal", "mysql"))
        auth = rng.choice(AUTHS) if stage == "auth" else "ok"
        query = rng.choice(QUERIES) if stage == "query" else "ok"
        dump = rng.choice(DUMP_FAULTS) if stage == "dump" else "none"
        return cls(seed, greeting, auth, query, dump,
                   rng.choice(("raw", "raw", "raw_to_last", "print")),
                   rng.choice(HOSTILE_NAMES), rng.randrange(1, 40), rng.randrange(1, 8))

    def __repr__(self):
        return (f"Plan(seed={self.seed}, greeting={self.greeting}, auth={self.auth}, "
                f"query={self.query}, dump={self.dump}, client={self.client}, name={self.name!r})")

    # -- the server's side ------------------------------------------------------------
    def play(self, session, budget=8 << 20):
        """Serve one connection as planned."""
        if not self._greet(session, budget):
            return
        if not self._auth(session):
            return
        queries = 0
        while True:
            packet = session.recv()
            if packet is None or not packet:
                return
            command = packet[0]
            if command == 0x03:
                queries += 1
                if not self._answer(session, packet[1:].decode("utf-8", "replace"),
                                    queries == 1 + self.at % 4):
                    return
            elif command in (0x12, 0x1E):
                self._dump(session, budget)
                return
            elif command == 0x01:
                return
            else:
                session.ok()

    def _greet(self, session, budget):
        kind = self.greeting
        if kind == "silence":
            session.sock.recv(1)        # until the client gives up
            return False
        if kind == "close":
            return False
        if kind == "garbage":
            session.send_raw(random.Random(self.seed).randbytes(self.at * 7))
            return False
        if kind == "truncated":
            session.send_raw(b"\x50\x00\x00\x00\x0a10.11")
            return False
        if kind == "huge":
            session.send(b"\x0a5.5", length=0xFFFFFE)
            return False
        if kind == "endless":
            _endless(session, budget)
            return False
        if kind == "protocol9":
            session.send(b"\x095.0.0\0" + b"\0" * 30)
            return False
        version = MYSQL_VERSION if kind == "mysql" else MARIADB_VERSION
        caps = CAPABILITIES | (CLIENT_SSL if kind == "ssl_offered" else 0)
        plugin = b"caching_sha2_password" if kind == "mysql" else b"mysql_native_password"
        session.greeting(version, caps, plugin)
        response = session.recv()
        return response is not None and len(response) > 32

    def _auth(self, session):
        kind = self.auth
        if kind == "ok":
            session.ok()
            return True
        if kind == "error":
            session.error(1045, f"Access denied for user 'u' (using password: YES) {'%s' * 3}")
            return False
        if kind in ("clear_password", "dialog", "unknown_plugin"):
            plugin = {"clear_password": b"mysql_clear_password", "dialog": b"dialog",
                      "unknown_plugin": b"evil_plugin"}[kind]
            data = b"\x04Password: " if kind == "dialog" else b""
            session.send(b"\xfe" + plugin + b"\0" + data)
            answer = session.recv()
            if answer is not None:
                session.ok()
                return True
            return False
        if kind in ("caching_full", "caching_pubkey_garbage"):
            session.send(b"\xfecaching_sha2_password\0" + b"0123456789abcdefghij\0")
            if session.recv() is None:
                return False
            session.send(b"\x01\x04")               # full authentication needed
            answer = session.recv()
            if answer is None:
                return False
            if answer == b"\x02":                   # the client asks for the public key
                session.send(b"\x01" + (b"-----BEGIN PUBLIC KEY-----\ngarbage\n"
                                        if kind == "caching_pubkey_garbage" else b"\0" * 40))
                if session.recv() is None:
                    return False
            session.ok()
            return True
        if kind == "two_switches":
            session.send(b"\xfemysql_native_password\0" + b"0123456789abcdefghij\0")
            session.recv()
            session.send(b"\xfemysql_native_password\0" + b"0123456789abcdefghij\0")
            session.recv()
            session.ok()
            return True
        if kind == "extra_garbage":
            session.send(b"\x01" + b"\xff" * self.at)
            session.recv()
            return False
        if kind == "silence":
            session.sock.recv(1)
            return False
        if kind == "truncated":
            session.send_raw(b"\x07\x00\x00\x02\x00\x00")
            return False
        return False            # close

    def _answer(self, session, sql, faulty):
        kind = self.query if faulty else "ok"
        if kind == "ok":
            if sql.upper().startswith("SELECT VERSION"):
                session.resultset(["VERSION()"], [[MARIADB_VERSION]])
            elif "BINARY LOGS" in sql.upper():
                session.resultset(["Log_name", "File_size"], [[b"mariadb-bin.000001", 35496],
                                                              [self.name, 4]])
            elif sql.upper().startswith("SELECT"):
                session.resultset(["x"], [[b"1"]])
            else:
                session.ok()
            return True
        if kind == "error":
            session.error(1064, "You have an error in your SQL syntax %n%s")
            return True
        if kind == "garbage":
            session.send(random.Random(self.seed).randbytes(self.at))
            return True
        if kind == "huge":
            session.send(b"\x01", length=0xFFFFF0)
            return False
        if kind == "many_columns":
            session.send(_lenenc(1 << 40))
            return False
        if kind == "truncated":
            session.send_raw(b"\x30\x00\x00\x01\x01")
            return False
        if kind == "silence":
            session.sock.recv(1)
            return False
        return False            # close

    def _dump(self, session, budget):
        events = fixture_events()
        fault = self.dump
        name = self.name if fault == "hostile_rotate" else b"mariadb-bin.000001"
        stream = [rotate_event(name, crc=False)] + events[:self.at + 2]
        if fault == "hostile_rotate" and self.at % 2:
            stream = ([rotate_event(b"mariadb-bin.000001", crc=False)] + events[:3]
                      + [rotate_event(self.name)])
        rng = random.Random(self.seed)
        cut = min(self.at % len(stream) + 1, len(stream) - 1)
        for i, event in enumerate(stream):
            if i == cut and self._fault(session, fault, event, rng, budget):
                return
            session.send(b"\x00" + event)
        if fault != "eof_early":
            session.send(b"\xfe\x00\x00\x02\x00")

    def _fault(self, session, fault, event, rng, budget):
        """Do the dump's fault instead of sending `event`; True: the dump ends there."""
        if fault == "bad_crc":
            session.send(b"\x00" + event[:-1] + bytes((event[-1] ^ 0xFF,)))
        elif fault == "short_length":
            session.send(b"\x00" + event[:9] + struct.pack("<I", len(event) - 3) + event[13:])
        elif fault == "long_length":
            session.send(b"\x00" + event[:9] + struct.pack("<I", len(event) + 1000) + event[13:])
        elif fault == "tiny_event":
            session.send(b"\x00" + event[:7])
        elif fault == "huge_length":
            session.send(b"\x00" + event[:9] + struct.pack("<I", 0xFFFFFFF0) + event[13:])
        elif fault == "truncated":
            session.send(b"\x00" + event, length=len(event) + 500)
            return True
        elif fault == "endless_heartbeats":
            beat = heartbeat_event()
            while session.sent < budget // 8:       # ~25,000 of them
                session.send(b"\x00" + beat)
            return True
        elif fault == "endless_packet":
            _endless(session, budget)
            return True
        elif fault == "error_packet":
            session.send(b"\xff" + struct.pack("<H", rng.choice((1236, 1927, 2013, 0, 65535)))
                         + b"#HY000" + rng.randbytes(self.at))
            return True
        elif fault == "error_short":
            session.send(b"\xff" + rng.randbytes(self.at % 3))
            return True
        elif fault == "garbage":
            session.send(rng.randbytes(self.at * 5))
        elif fault == "silence":
            session.sock.recv(1)
            return True
        elif fault == "eof_early":
            session.send(b"\xfe\x00\x00\x02\x00")
            return True
        elif fault == "bit_flips":
            data = bytearray(event)
            for _ in range(self.flips):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            session.send(b"\x00" + bytes(data))
        elif fault == "unknown_first_byte":
            session.send(b"\x42" + event)
        else:
            return False
        return False


_PIECE = bytes(0xFFFFFF)


def _endless(session, budget):
    """Pieces of one packet of more than 16 MB, until the budget is spent (or the
    client hangs up, as it should once past its cap)."""
    piece = _PIECE
    session.send_raw(b"\xff\xff\xff\x00" + piece)
    seq = 1
    while session.sent < budget:
        session.send_raw(b"\xff\xff\xff" + bytes((seq & 0xFF,)) + piece)
        seq += 1


# -- the client's side -------------------------------------------------------------------

class Outcome:
    def __init__(self, plan, error=None, exit_kind="ok", problems=()):
        self.plan, self.error, self.exit_kind, self.problems = plan, error, exit_kind, list(problems)

    def __repr__(self):
        return f"Outcome({self.plan}, {self.exit_kind}, {self.error!r}, problems={self.problems})"


def run_session(plan, workdir, timeout=1.0, max_packet=4 << 20):
    """Point a binlogkit client at a hostile server playing `plan`; an Outcome whose
    `problems` list what must never happen (empty: the client behaved)."""
    import io
    from binlogkit.errors import BinlogkitError
    from binlogkit.remote.connection import ConnectOptions, connect
    workdir = Path(workdir)
    result = workdir / "result"
    result.mkdir(parents=True)
    outside_before = _listing(workdir)
    options = ConnectOptions(host="127.0.0.1", user="u", password=PASSWORD, protocol="tcp",
                             connect_timeout=timeout, read_timeout=timeout, max_packet=max_packet)
    problems, error, kind = [], None, "ok"
    with HostileServer(plan.play, timeout=timeout * 2) as server:
        options = _with_port(options, server.port)

        def connector():
            return connect(options)
        try:
            if plan.client == "print":
                _print_remote(connector, io.BytesIO())
            else:
                from binlogkit.remote.backup import RawBackup
                RawBackup(connector, "mariadb-bin.000001", prefix=str(result) + os.sep,
                          to_last_log=plan.client == "raw_to_last", retries=1,
                          sleep=lambda seconds: None).run()
        except (BinlogkitError, OSError) as exc:
            error, kind = f"{type(exc).__name__}: {exc}", "error"
            if PASSWORD in str(exc):
                problems.append("the password is in the error message")
            if "\n" in str(exc).strip():
                problems.append("the error is more than one line")
        except Exception as exc:        # noqa: BLE001 -- the one thing that must not happen
            import traceback
            error, kind = traceback.format_exc(), "traceback"
            problems.append(f"uncaught {type(exc).__name__}")
        received = server.received()
    if PASSWORD.encode() in received:
        problems.append("the password was sent in clear")
    problems.extend(_escapes(workdir, result, outside_before))
    return Outcome(plan, error, kind, problems)


def _with_port(options, port):
    from binlogkit._record import replace
    return replace(options, port=port)


def _print_remote(connector, out):
    from binlogkit.cli.print_options import parse
    from binlogkit.cli.print_run import print_job_from
    from binlogkit.printer.mariadb.remote import RemoteSource
    from binlogkit.printer.run import print_remote_job
    files, kw = parse(["--read-from-remote-server", "--to-last-log", "mariadb-bin.000001"])
    job = print_job_from(files, kw)
    remote = RemoteSource(connector, to_last_log=True)
    print_remote_job(job, out, remote, warn=lambda message: None, error=lambda message: None)


def _listing(directory):
    return sorted(str(p.relative_to(directory)) for p in Path(directory).rglob("*"))


def _escapes(workdir, result, before):
    """Anything the client made outside `result`, or a name in it that is not plain."""
    problems = []
    for path in Path(workdir).rglob("*"):
        rel = path.relative_to(workdir)
        if rel.parts[0] != result.name and str(rel) not in before:
            problems.append(f"wrote outside the result directory: {rel}")
        elif path.parent != result and path != result:
            problems.append(f"made a subdirectory in the result directory: {rel}")
    absolute = Path("/tmp/binlogkit-hostile-abs")
    if absolute.exists():
        problems.append(f"wrote {absolute}")
    return problems
