"""Digest one big slow log in two processes, with the result of one.

A regular, uncompressed file of at least :data:`MIN_SPLIT` bytes is cut near
its middle, at a ``;\\n#`` (``S``).  A forked child parses from ``S`` line by
line until a clean entry boundary ``P`` where everything an entry inherits is
known from entries after ``S`` (an own ``# Time`` that reads, and an own
``use``/``Schema``); it reports ``P`` at once, then digests ``[P, end)`` with the
bulk scanner into a *mergeable* digest (every metric value kept in order, all
names) and sends it back.  Meanwhile the parent digests ``[0, S)``, then
``[S, P)``, and merges the child's digest after its own, continuing each float
sum value by value, so the result is the one a single pass gives.

The parent checks what the child assumed: that ``S`` and ``P`` are entry
boundaries in its own parse (the same lines, the same parser).  When a check
fails, when the child needed state it could not know (an entry whose end time
comes from ``SET timestamp`` depends on header lines seen before ``S``), or
when anything goes wrong in the child, the parent carries on alone from where
it is; nothing the child did is used.
"""

from __future__ import annotations

import io
import os
import pickle
import signal

from binlogkit.slowlog.digest import Digest
from binlogkit.slowlog.fingerprint import Fingerprinter
from binlogkit.slowlog.parser import LineMachine, SlowlogParser
from binlogkit.slowlog.scan import BulkScanner

__all__ = ["digest_files", "digest_file", "MIN_SPLIT"]

MIN_SPLIT = 32 << 20
_FIND_START_BYTES = 8 << 20       # the child looks this far past S for P
_COMPRESSED = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00")


def digest_files(paths, digest, zone=None, server_version=None, stats=None, workers=2):
    """Add the entries of ``paths`` (in order) to ``digest``; ``stats`` (a
    ParseStats) is filled in.  ``workers`` > 1 lets big files use two processes."""
    for path in paths:
        got = digest_file(path, digest, zone, server_version, workers)
        if stats is not None:
            stats.add(got)
    return digest


def digest_file(path, digest, zone=None, server_version=None, workers=2):
    """Add one log's entries to ``digest``; returns its ParseStats."""
    scanner = BulkScanner(path, zone=zone, server_version=server_version)
    split = _split_point(path) if workers > 1 and hasattr(os, "fork") else None
    if split is None:
        return scanner.scan(digest)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:                                  # the child never returns
        os.close(read_fd)
        _child(path, split, zone, server_version, digest, write_fd)
    os.close(write_fd)
    try:
        with os.fdopen(read_fd, "rb") as pipe:
            return _parent(scanner, path, split, digest, pipe)
    finally:
        _reap(pid)


def _parent(scanner, path, split, digest, pipe):
    scanner.scan(digest, stop=split)
    start = _receive(pipe)
    if not scanner.at_clean_boundary() or start is None:
        return scanner.scan(digest, start=split)
    scanner.scan(digest, start=split, stop=start)
    if not scanner.at_clean_boundary():
        return scanner.scan(digest, start=start)
    scanner.close_boundary(digest)
    got = _receive(pipe)
    if got is None:
        return scanner.scan(digest, start=start)
    state, child_stats = got
    digest.merge(Digest.from_state(state, group_by=digest.group_by, since_us=digest.since_us,
                                   until_us=digest.until_us))
    scanner.stats.add(child_stats)
    return scanner.stats


def _receive(pipe):
    try:
        return pickle.load(pipe)
    except (EOFError, pickle.UnpicklingError, OSError, ValueError):
        return None


def _reap(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass


def _split_point(path):
    """Offset just after a ``;\\n`` followed by ``#`` near the middle of a big
    regular uncompressed file, or None."""
    if path in (None, "-"):
        return None
    try:
        size = os.path.getsize(path)
        if size < MIN_SPLIT or not os.path.isfile(path):
            return None
        with open(path, "rb") as f:
            if f.read(6).startswith(_COMPRESSED):
                return None
            f.seek(size // 2)
            window = f.read(1 << 20)
    except OSError:
        return None
    cut = window.find(b";\n#")
    return None if cut < 0 else size // 2 + cut + 2


class _ChildParser(SlowlogParser):
    """Notes when an entry's end comes from state the child cannot know."""

    needed_parent = False

    def _end_without_time(self, attrs, qt, start):
        self.needed_parent = True
        return super()._end_without_time(attrs, qt, start)


def _child(path, split, zone, server_version, digest, write_fd):
    code = 0
    try:
        with os.fdopen(write_fd, "wb") as pipe:
            start, state = _find_start(path, split, zone, server_version)
            pickle.dump(start, pipe)
            pipe.flush()
            if start is not None:
                parser = _ChildParser(path, zone=zone, server_version=server_version)
                parser._last_ts, parser._last_end, parser._last_db = state
                scanner = BulkScanner(path, parser=parser)
                scanner.machine.pos = start
                fp = digest.fp
                mine = Digest(group_by=digest.group_by, since_us=digest.since_us,
                              until_us=digest.until_us, mergeable=True,
                              fingerprinter=Fingerprinter(fp.embedded_numbers, fp.md5_checksums))
                scanner.scan(mine, start=start)
                if not parser.needed_parent:
                    pickle.dump((mine.state(), scanner.stats), pipe, pickle.HIGHEST_PROTOCOL)
    except BaseException:                         # the parent carries on alone
        code = 1
    finally:
        os._exit(code)


def _find_start(path, split, zone, server_version):
    """The first clean boundary after ``split`` where the time and db every entry
    may inherit are known, with that state; (None, None) if none is near."""
    with open(path, "rb") as f:
        f.seek(split)
        text = f.read(_FIND_START_BYTES)
    parser = SlowlogParser(path, zone=zone, server_version=server_version)
    machine = LineMachine(parser, pos=split)
    found = []

    def known(pos):
        if (parser._last_end is not None and parser._last_db is not None
                and text[pos - split:pos - split + 1] == b"#"):
            found.append(pos)
            return True
        return False

    for _ in machine.run(io.BytesIO(text), known):
        pass
    if not found:
        return None, None
    return found[0], (parser._last_ts, parser._last_end, parser._last_db)
