"""Which tool's text to print: mariadb-binlog's or mysqlbinlog 8.0's.

The format description event names the server that wrote the log; MariaDB
versions contain "MariaDB".  `detect_flavor(path)` reads the first events
of a regular file (a leading Rotate, as relay logs have, is skipped);
standard input is peeked without being consumed (`ReplayStdin`); other
files (pipes) are not read twice and get the default unless --flavor says.
"""
import io
import os
import stat
import sys

from binlogkit.binlog.layout import (
    BINLOG_MAGIC, COMMON_HEADER, FORMAT_DESCRIPTION_EVENT, LOG_EVENT_HEADER_LEN, ROTATE_EVENT,
)

MARIADB, MYSQL = "mariadb", "mysql"
PEEK_LIMIT = 1 << 16


def flavor_of(prefix):
    """MYSQL or MARIADB from the first bytes of a binlog; None if undecidable."""
    if prefix[:4] != BINLOG_MAGIC:
        return None
    pos = 4
    while pos + LOG_EVENT_HEADER_LEN <= len(prefix):
        header = COMMON_HEADER.unpack_from(prefix, pos)
        type_code, size = header[1], header[3]
        if type_code == FORMAT_DESCRIPTION_EVENT:
            version = prefix[pos + LOG_EVENT_HEADER_LEN + 2:pos + LOG_EVENT_HEADER_LEN + 52]
            if len(version) < 50:
                return None
            return MARIADB if b"MariaDB" in version else MYSQL
        if type_code != ROTATE_EVENT or size < LOG_EVENT_HEADER_LEN:
            return None
        pos += size
    return None


def _need_more(prefix):
    return flavor_of(prefix) is None and len(prefix) < PEEK_LIMIT and _incomplete(prefix)


def _incomplete(prefix):
    """True while the bytes read so far end before the first FDE is complete."""
    if len(prefix) < 4:
        return True
    pos = 4
    while True:
        if pos + LOG_EVENT_HEADER_LEN > len(prefix):
            return True
        header = COMMON_HEADER.unpack_from(prefix, pos)
        if header[1] == FORMAT_DESCRIPTION_EVENT:
            return pos + LOG_EVENT_HEADER_LEN + 52 > len(prefix)
        if header[1] != ROTATE_EVENT or header[3] < LOG_EVENT_HEADER_LEN:
            return False
        pos += header[3]


def detect_flavor(path, default=MARIADB):
    """The flavor of a binlog file ("-": standard input, left readable in full)."""
    if path == "-":
        stdin = sys.stdin
        if not isinstance(stdin, ReplayStdin):
            stdin = sys.stdin = ReplayStdin(sys.stdin)
        return flavor_of(stdin.peek()) or default
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return default      # a pipe could not be read twice: pass --flavor for one
        with open(path, "rb") as f:
            prefix = f.read(4096)
            while _need_more(prefix):
                more = f.read(4096)
                if not more:
                    break
                prefix += more
    except OSError:
        return default
    return flavor_of(prefix) or default


class _ChainRaw(io.RawIOBase):
    def __init__(self, prefix, rest):
        self.prefix, self.rest = prefix, rest

    def readable(self):
        return True

    def readinto(self, buf):
        if self.prefix:
            n = min(len(buf), len(self.prefix))
            buf[:n] = self.prefix[:n]
            self.prefix = self.prefix[n:]
            return n
        data = self.rest.read1(len(buf)) if hasattr(self.rest, "read1") else self.rest.read(len(buf))
        buf[:len(data)] = data
        return len(data)


class ReplayStdin:
    """sys.stdin whose binary buffer first replays the bytes peeked for the flavor."""

    def __init__(self, stdin):
        self._stdin = stdin
        source = stdin.buffer
        prefix = b""
        while _need_more(prefix):
            chunk = source.read1(4096) if hasattr(source, "read1") else source.read(4096)
            if not chunk:
                break
            prefix += chunk
        self._prefix = prefix
        self.buffer = io.BufferedReader(_ChainRaw(prefix, source))

    def peek(self):
        return self._prefix

    def __getattr__(self, name):
        return getattr(self._stdin, name)
