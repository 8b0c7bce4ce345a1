"""Following a slow log as the server writes it: a file, or mysql.slow_log.

`SlowFileFollower(path).poll()` returns the entries completed since the last
call.  It starts at the file's end (what was logged before the watcher started is
history, for `binlogkit report`), reads only whole lines, and follows the file
across its own rotation (logrotate renames it and the server reopens the path: a
new inode; what was left in the old file is read first) and truncation (`copytruncate`,
`> slow.log`: the file is shorter than what was read: start again at 0).  The last
entry of a burst is complete once the file has been quiet for `quiet_s`.

`SlowTableFollower(connect).poll()` reads the rows of ``mysql.slow_log`` added since
the last call (servers with ``log_output=TABLE``).

Entries are parsed by the slow-log parser's resumable line machine, so times are
what `slowlog` and `report` read: MariaDB's ``# Time`` is the statement's start,
MySQL's its end, zone-less times in the offset the ``SET timestamp`` lines show.
"""
import os
import re
import time

from binlogkit.slowlog.parser import LineMachine, SlowlogParser
from binlogkit.watch.arrivals import SlowEntry

__all__ = ["SlowFileFollower", "SlowTableFollower", "slow_entry", "statement_kind"]

READ_CHUNK = 1 << 20
_WORD = re.compile(rb"\s*(?:/\*.*?\*/\s*)*([A-Za-z]+)", re.S)
_WRITES = frozenset({b"INSERT", b"UPDATE", b"DELETE", b"REPLACE", b"LOAD", b"CREATE", b"ALTER",
                     b"DROP", b"TRUNCATE", b"RENAME", b"CALL"})
_READS = frozenset({b"SELECT", b"SHOW", b"DESCRIBE", b"DESC", b"EXPLAIN", b"WITH", b"VALUES",
                    b"TABLE", b"HANDLER"})


def statement_kind(query):
    """``write``, ``commit``, ``read`` or ``other`` from the statement's first word."""
    m = _WORD.match(query or b"")
    if not m:
        return "other"
    word = m.group(1).upper()
    if word in _WRITES:
        return "write"
    if word == b"COMMIT" or (word == b"XA" and b"COMMIT" in query[:40].upper()):
        return "commit"
    if word in _READS:
        return "read"
    return "other"


def slow_entry(entry):
    """A parsed slow-log Entry -> SlowEntry (None without a time)."""
    if entry.end_us is None:
        return None
    qt = entry.query_time or 0.0
    start_us = entry.start_us if entry.start_us is not None else entry.end_us - round(qt * 1e6)
    query = entry.query or b""
    return SlowEntry(start_us / 1e6, entry.end_us / 1e6, qt, entry.lock_time or 0.0,
                     entry.rows_examined or 0, statement_kind(query), query[:120])


class SlowFileFollower:
    def __init__(self, path, zone=None, from_start=False, quiet_s=0.3, clock=time.monotonic):
        self.path = path
        self.zone = zone
        self.quiet_s = quiet_s
        self.clock = clock
        self.fd = None
        self.ino = None
        self.pos = 0
        self.tail = b""
        self.last_data = clock()
        self.rotations = 0
        self.truncations = 0
        self.parser = SlowlogParser(path, zone=zone)
        self.machine = LineMachine(self.parser)
        self._open(at_end=not from_start)

    def _open(self, at_end):
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            self.fd = None
            return False
        st = os.fstat(fd)
        self._close()
        self.fd, self.ino = fd, (st.st_dev, st.st_ino)
        self._learn_header(fd)
        self.pos = st.st_size if at_end else 0
        self.tail = b""
        return True

    def _learn_header(self, fd):
        """The server's header line (version, MariaDB or not) from the file's start."""
        head = os.pread(fd, 4096, 0)
        for line in head.split(b"\n")[:3]:
            self.parser.is_header(line)

    def _close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def close(self):
        self._close()

    def poll(self):
        """Entries completed since the last call."""
        out = []
        if self.fd is None and not self._open(at_end=False):
            return out
        self._read_all(out)
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return out
        if (st.st_dev, st.st_ino) != self.ino:          # rotated: a new file at the path
            self.rotations += 1
            self._flush(out)
            self._open(at_end=False)
            self._read_all(out)
        elif st.st_size < self.pos:                    # truncated
            self.truncations += 1
            self._flush(out)
            self.pos, self.tail = 0, b""
            self._read_all(out)
        if self.clock() - self.last_data >= self.quiet_s and self.machine.at_boundary():
            entry = self.machine.close_boundary()
            if entry is not None:
                self._keep(entry, out)
        return out

    def _read_all(self, out):
        while True:
            data = os.pread(self.fd, READ_CHUNK, self.pos)
            if not data:
                return
            self.pos += len(data)
            self.last_data = self.clock()
            data = self.tail + data
            cut = data.rfind(b"\n") + 1
            self.tail = data[cut:]
            if cut:
                lines = data[:cut].splitlines(keepends=True)
                for entry in self.machine.run(lines):
                    self._keep(entry, out)

    def _flush(self, out):
        if self.tail:
            for entry in self.machine.run([self.tail + b"\n"]):
                self._keep(entry, out)
            self.tail = b""
        for entry in self.machine.finish():
            self._keep(entry, out)

    @staticmethod
    def _keep(entry, out):
        item = slow_entry(entry)
        if item is not None:
            out.append(item)


class SlowTableFollower:
    """Rows of mysql.slow_log newer than the last seen (log_output=TABLE).  The watcher's
    own polls (marked with a comment) are left out: with long_query_time=0 they are
    logged too."""

    MARK = "/* binlogkit watch */"
    SQL = (MARK + " SELECT UNIX_TIMESTAMP(start_time), TIME_TO_SEC(query_time), "
           "TIME_TO_SEC(lock_time), rows_examined, thread_id, sql_text FROM mysql.slow_log "
           "WHERE start_time >= FROM_UNIXTIME(%s) AND sql_text NOT LIKE '/* binlogkit watch */%%' "
           "ORDER BY start_time LIMIT 10000")

    def __init__(self, query):
        self.query = query          # callable(sql, args) -> rows
        rows = query(self.MARK + " SELECT UNIX_TIMESTAMP(MAX(start_time)) FROM mysql.slow_log",
                     None)
        last = rows[0][0] if rows else None
        self.since = float(last) if last is not None else time.time()
        self.seen = set()
        self.poll()                 # the rows at `since` itself are history

    def poll(self):
        rows = self.query(self.SQL, (f"{self.since:.6f}",))
        out = []
        seen = set()
        for start, qt, lt, examined, thread_id, sql_text in rows:
            start, qt = float(start), float(qt or 0)
            key = (start, thread_id, qt)
            seen.add(key)
            if key in self.seen:
                continue
            text = sql_text if isinstance(sql_text, bytes) else str(sql_text or "").encode()
            out.append(SlowEntry(start, start + qt, qt, float(lt or 0), int(examined or 0),
                                 statement_kind(text), text[:120]))
        if out:
            self.since = max(e.start for e in out)
        self.seen = {k for k in seen | self.seen if k[0] >= self.since}
        return out
