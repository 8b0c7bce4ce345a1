"""`watch --binlog-dir DIR`: the server's binlog files followed where they are written.

The files are read as they grow (polled every `poll_s`; files opened read-only),
from the end of the newest file in the index (`*.index`, else the highest
numbered file) on.  A Rotate event moves on to the file it names; a file that
ends without one while the index lists a newer file (a crash) is left for the
newer one.  Each event becomes an `Arrival` as from a live server, its arrival
time the moment it was first seen (so within `poll_s` of its writing).
"""
import glob
import os
import time

from binlogkit.binlog import layout as L
from binlogkit.binlog.reader import BinlogReader
from binlogkit.errors import BinlogError
from binlogkit.remote.follow import Arrival, FollowStopped, is_before, arrival_of
from binlogkit.remote.framer import ReceivedEvents

__all__ = ["LocalBinlogFollower", "binlog_names"]

_unpack_header = L.COMMON_HEADER.unpack_from
READ_CHUNK = 4 << 20


def binlog_names(directory):
    """The binlog names in index order: the index file's lines, else numbered files."""
    indexes = sorted(glob.glob(os.path.join(directory, "*.index")))
    for index in indexes:
        with open(index, encoding="utf-8", errors="replace") as f:
            names = [os.path.basename(line.strip()) for line in f if line.strip()]
        if names:
            return names
    found = [os.path.basename(p) for p in glob.glob(os.path.join(directory, "*.[0-9]*"))
             if os.path.basename(p).rpartition(".")[2].isdigit()]
    return sorted(found, key=lambda n: (n.rpartition(".")[0], int(n.rpartition(".")[2])))


class LocalBinlogFollower:
    def __init__(self, directory, *, poll_s=0.1, start=None, clock=time.time, sleep=time.sleep):
        self.directory = directory
        self.poll_s = poll_s
        self.start = start
        self.clock = clock
        self.sleep = sleep
        self.stopping = False
        self.file = None
        self.pos = 0
        self.fd = None
        self.framer = None
        self.reconnects = 0
        self.version = ""
        self.waiting_for = None
        self.live_from = None           # (file, size) when the watch began: older is history

    def stop(self):
        self.stopping = True

    def run(self, sink):
        self._begin()
        try:
            while not self.stopping:
                if not self._step(sink):
                    sink(Arrival(self.clock(), "heartbeat", L.HEARTBEAT_LOG_EVENT, 0, self.file,
                                 self.pos, 0, False))
                    self.sleep(self.poll_s)
        finally:
            self._close()
        raise FollowStopped()

    def _begin(self):
        names = binlog_names(self.directory)
        if not names:
            raise BinlogError(f"no binlog files in {self.directory}", path=self.directory)
        last = names[-1]
        self.live_from = (last, os.path.getsize(os.path.join(self.directory, last)))
        if self.start is not None:
            name, pos = self.start
        else:
            name = names[-1]
            pos = os.path.getsize(os.path.join(self.directory, name))
        self._open(name)
        self.pos = max(pos, L.BIN_LOG_HEADER_SIZE)

    def _open(self, name):
        self._close()
        path = os.path.join(self.directory, name)
        self.fd = os.open(path, os.O_RDONLY)
        self.file = name
        self.framer = ReceivedEvents(name)
        self.pos = L.BIN_LOG_HEADER_SIZE
        # the format description first: checksums and header lengths
        head = os.pread(self.fd, 4096, L.BIN_LOG_HEADER_SIZE)
        if len(head) >= L.LOG_EVENT_HEADER_LEN:
            size = _unpack_header(head, 0)[3]
            if len(head) >= size and head[4] == L.FORMAT_DESCRIPTION_EVENT:
                self.framer.frame(head[:size], L.BIN_LOG_HEADER_SIZE)

    def _close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _step(self, sink):
        """Read what was added; False when nothing was."""
        if self.waiting_for is not None:        # a Rotate named it: the server creates it next
            if not os.path.exists(os.path.join(self.directory, self.waiting_for)):
                return False
            self._open(self.waiting_for)
            self.waiting_for = None
        data = os.pread(self.fd, READ_CHUNK, self.pos)
        at = self.clock()
        got = False
        offset = 0
        while len(data) - offset >= L.LOG_EVENT_HEADER_LEN:
            header = _unpack_header(data, offset)
            size = header[3]
            if size < L.LOG_EVENT_HEADER_LEN:
                raise BinlogError(f"event length {size} too small", path=self.file,
                                  offset=self.pos)
            if len(data) - offset < size:
                break
            raw = self.framer.frame(data[offset:offset + size], self.pos)
            catchup = self.live_from is not None and is_before(self.file, self.pos, self.live_from)
            if not catchup:
                self.live_from = None
            arrival = arrival_of(at, raw, self.framer.fde, self.file, self.pos, catchup)
            self.pos += size
            offset += size
            arrival.end = self.pos
            got = True
            sink(arrival)
            if arrival.kind == "rotate":
                self.waiting_for = arrival.next_file
                return True
        if not got and self._abandoned():
            return True
        return got

    def _abandoned(self):
        """The index lists a file after this one although no Rotate ended it (a crash)."""
        names = binlog_names(self.directory)
        if self.file in names and names.index(self.file) < len(names) - 1:
            if os.path.getsize(os.path.join(self.directory, self.file)) <= self.pos:
                self._open(names[names.index(self.file) + 1])
                return True
        return False
