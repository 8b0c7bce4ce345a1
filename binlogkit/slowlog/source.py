"""Open slow-log inputs read-only: plain, gzip, bzip2, xz or stdin ("-").

The compression is detected from the first bytes, not the file name, so a
renamed ``.gz`` still works.  Every failure becomes a one-line
:class:`~binlogkit.errors.SlowlogError` naming the file.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
import zlib

from binlogkit.errors import SlowlogError

__all__ = ["open_slowlog", "display_name"]

_MAGIC = (
    (b"\x1f\x8b", lambda f: gzip.GzipFile(fileobj=f, mode="rb")),
    (b"BZh", lambda f: bz2.BZ2File(f, mode="rb")),
    (b"\xfd7zXZ\x00", lambda f: lzma.LZMAFile(f, mode="rb")),
)
_BUFSIZE = 1 << 20


def display_name(path) -> str:
    return "<stdin>" if path in (None, "-") else os.fspath(path)


def open_slowlog(path):
    """A binary, buffered, read-only stream over ``path`` (``-`` = stdin)."""
    name = display_name(path)
    if path in (None, "-"):
        raw = sys.stdin.buffer
    else:
        try:
            raw = open(path, "rb", buffering=_BUFSIZE)
        except OSError as exc:
            raise SlowlogError(f"cannot open: {exc.strerror or exc}", path=name) from None
        if os.path.isdir(path):
            raw.close()
            raise SlowlogError("is a directory", path=name)
    if not isinstance(raw, io.BufferedReader):
        raw = io.BufferedReader(raw, _BUFSIZE)
    try:
        head = raw.peek(6)[:6]
    except OSError as exc:
        raise SlowlogError(f"cannot read: {exc.strerror or exc}", path=name) from None
    for magic, opener in _MAGIC:
        if head.startswith(magic):
            return io.BufferedReader(_Checked(opener(raw), name), _BUFSIZE)
    return raw


class _Checked(io.RawIOBase):
    """Wrap a decompressor so corrupt data raises SlowlogError, not EOFError."""

    def __init__(self, inner, name):
        self._inner = inner
        self._name = name
        self._pos = 0           # uncompressed bytes delivered so far

    def readable(self):
        return True

    def readinto(self, b):
        try:
            data = self._inner.read(len(b))
        except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
            raise SlowlogError(f"corrupt compressed data: {exc}", path=self._name,
                               offset=self._pos) from None
        n = len(data)
        self._pos += n
        b[:n] = data
        return n

    def close(self):
        try:
            self._inner.close()
        finally:
            super().close()
