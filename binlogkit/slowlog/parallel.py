"""Digest a big slow log in two processes, with the result of one.

A regular, uncompressed file of at least :data:`MIN_SPLIT` bytes is read in
windows of at most :data:`WINDOW` bytes, each cut at a ``;\\n#`` into two
halves.  For each window a forked child parses from the middle ``S`` line by
line until a clean entry boundary ``P`` where everything an entry inherits is
known from entries after ``S`` (an own ``# Time`` that reads, an own
``use``/``Schema``); it reports ``P`` at once, then digests ``[P, window end)``
with the bulk scanner into a *mergeable* digest (the Query_time and Lock_time
values in order, all names) and sends it back with its parser state at the
end.  Meanwhile the parent digests the first half and ``[S, P)``, merges the
child's digest after its own, continuing each float sum value by value, and
goes on from the window's end with the child's state.  The result is the one a
single pass gives; memory stays bounded by the window.

The parent checks what the child assumed: that ``S`` and ``P`` are entry
boundaries in its own parse (the same lines, the same parser), that the server
version and flavour the header lines gave at ``P`` are the ones the child
started with (those of the window's start), that the window's end is an entry
boundary in the child's parse, and that the row-count sums can be continued
exactly.  When a check fails or anything goes wrong in the child, the parent
parses the rest of the window itself; nothing the child did is used.
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

__all__ = ["digest_files", "digest_file", "MIN_SPLIT", "WINDOW"]

MIN_SPLIT = 32 << 20
WINDOW = 192 << 20
_FIND_START_BYTES = 8 << 20       # the child looks this far past S for P
_ANY = "any"                      # a child's start offset that did not matter
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
    two = workers > 1 and hasattr(os, "fork") and (os.cpu_count() or 1) > 1
    size = _splittable_size(path) if two else None
    pos = 0
    while size is not None and size - pos >= MIN_SPLIT:
        end = size if size - pos <= WINDOW * 3 // 2 else _cut_after(path, pos + WINDOW)
        split = _cut_after(path, pos + (end - pos) // 2)
        if end is None or split is None or split >= end:
            break
        _window(scanner, digest, pos, split, None if end == size else end)
        if end == size:
            return scanner.stats
        pos = end
    return scanner.scan(digest, start=pos)


def _window(scanner, digest, start, split, end):
    """Digest [start, end) (end None: the end of the file) with a child for
    the second half; the scanner is left at ``end``."""
    flags = _flags_after_leading_headers(scanner.parser, start)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:                                  # the child never returns
        os.close(read_fd)
        _child(scanner.parser, flags, split, end, digest, write_fd)
    os.close(write_fd)
    try:
        with os.fdopen(read_fd, "rb") as pipe:
            scanner.scan(digest, start=start, stop=split)
            at = _receive(pipe)
            if at is None or not scanner.at_clean_boundary():
                return scanner.scan(digest, start=split, stop=end)
            scanner.scan(digest, start=split, stop=at)
            if not scanner.at_clean_boundary() or flags != (scanner.parser.server_version,
                                                            scanner.parser.mariadb):
                return scanner.scan(digest, start=at, stop=end)
            scanner.close_boundary(digest)
            got = _receive(pipe)
            # the child began with the server offset its own look-ahead derived
            if got is not None and got[3] not in (_ANY, scanner.parser.clock_offset):
                return scanner.scan(digest, start=at, stop=end)
            if got is None or not digest.merge(Digest.from_state(
                    got[0], group_by=digest.group_by, since_us=digest.since_us,
                    until_us=digest.until_us)):
                return scanner.scan(digest, start=at, stop=end)
            state, stats, lines = got[1], got[2], got[2].lines
            scanner.parser.restore(state)
            scanner.stats.add(stats)
            scanner.machine.pos = end if end is not None else scanner.machine.pos
            scanner.machine.lineno += lines
            return scanner.stats
    finally:
        _reap(pid)


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


def _splittable_size(path):
    """The size of a regular uncompressed file worth splitting, else None."""
    if path in (None, "-"):
        return None
    try:
        if not os.path.isfile(path):
            return None
        size = os.path.getsize(path)
        if size < MIN_SPLIT:
            return None
        with open(path, "rb") as f:
            if f.read(6).startswith(_COMPRESSED):
                return None
    except OSError:
        return None
    return size


def _cut_after(path, offset):
    """Offset just after the first ``;\\n`` followed by ``#`` at or after ``offset``."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            window = f.read(1 << 20)
    except OSError:
        return None
    cut = window.find(b";\n#")
    return None if cut < 0 else offset + cut + 2


def _flags_after_leading_headers(parser, offset):
    """(server_version, mariadb) once the server header lines that may open the
    text at ``offset`` (a log starts with them) are read; the parent checks at P
    that nothing else changed them."""
    scratch = SlowlogParser(parser.path, zone=parser.zone, server_version=parser.server_version)
    scratch.mariadb = parser.mariadb
    with open(parser.path, "rb") as f:
        f.seek(offset)
        for raw in io.BytesIO(f.read(1 << 16)):
            if raw.startswith(b"#") or not scratch.is_header(raw):
                break
    return scratch.server_version, scratch.mariadb


def _child(parent_parser, flags, split, end, digest, write_fd):
    code = 0
    try:
        with os.fdopen(write_fd, "wb") as pipe:
            path, zone = parent_parser.path, parent_parser.zone
            start, state = _find_start(path, split, zone)
            pickle.dump(start, pipe)
            pipe.flush()
            if start is not None:
                parser = SlowlogParser(path, zone=zone)
                parser.restore({**state, "server_version": flags[0], "mariadb": flags[1]})
                scanner = BulkScanner(path, parser=parser)
                scanner.machine.pos = start
                fp = digest.fp
                mine = Digest(group_by=digest.group_by, since_us=digest.since_us,
                              until_us=digest.until_us, mergeable=True,
                              fingerprinter=Fingerprinter(fp.embedded_numbers, fp.md5_checksums))
                scanner.scan(mine, start=start, stop=end)
                if end is not None:
                    if not scanner.at_clean_boundary():
                        return
                    scanner.close_boundary(mine)
                # the offset it began with matters only if used before one was derived
                start_offset = state["clock_offset"] if parser.clock.used_unlearned else _ANY
                state = parser.state()
                pickle.dump((mine.state(), state, scanner.stats, start_offset), pipe,
                            pickle.HIGHEST_PROTOCOL)
    except BaseException:                         # the parent carries on alone
        code = 1
    finally:
        os._exit(code)


def _find_start(path, split, zone):
    """The first clean boundary after ``split`` where the time and db every entry
    may inherit are known, with that state; (None, None) if none is near."""
    with open(path, "rb") as f:
        f.seek(split)
        text = f.read(_FIND_START_BYTES)
    parser = SlowlogParser(path, zone=zone)
    machine = LineMachine(parser, pos=split)
    found = []

    def known(pos):
        if (parser.inherited.end is not None and parser.inherited.db is not None
                and text[pos - split:pos - split + 1] == b"#"):
            found.append(pos)
            return True
        return False

    for _ in machine.run(io.BytesIO(text), known):
        pass
    if not found:
        return None, None
    return found[0], parser.state()
