"""A decompressed event may not exceed its declared size, nor a sane cap (issue 26):
MariaDB's zlib-compressed events and MySQL's zstd Transaction_payload, each inflated
no further than allowed (a small hostile payload cannot ask for gigabytes)."""
import zlib

import pytest

import binlogkit.binlog.mysql_events as mysql_events
from binlogkit.binlog.events import MAX_UNCOMPRESSED, uncompress_binlog
from binlogkit.binlog.mysql_events import _zstd_decompress
from binlogkit.printer.mysql.fast import _decompress, _one_shot

zstandard = pytest.importorskip("zstandard")


def mariadb_compressed(data, declared):
    size = declared.to_bytes(4, "big")
    return bytes((0x84,)) + size + zlib.compress(data)


def test_zlib_event_at_its_declared_size():
    assert uncompress_binlog(mariadb_compressed(b"x" * 5000, 5000)) == b"x" * 5000


def test_zlib_event_past_its_declared_size_is_refused():
    with pytest.raises(ValueError, match="length mismatch"):
        uncompress_binlog(mariadb_compressed(b"x" * 5000, 100))


def test_zlib_inflates_no_further_than_declared(monkeypatch):
    """A 1 MB bomb declared as 10 bytes: zlib is asked for 11 bytes, not a megabyte."""
    seen = []
    real = zlib.decompressobj

    class Spy:
        def __init__(self):
            self.inner = real()

        def decompress(self, data, max_length=0):
            seen.append(max_length)
            out = self.inner.decompress(data, max_length)
            seen.append(len(out))
            return out
    monkeypatch.setattr(zlib, "decompressobj", Spy)
    with pytest.raises(ValueError):
        uncompress_binlog(mariadb_compressed(bytes(1 << 20), 10))
    assert seen == [11, 11]


def test_zlib_declared_size_over_the_cap():
    with pytest.raises(ValueError, match="over"):
        uncompress_binlog(bytes((0x84,)) + (MAX_UNCOMPRESSED + 1).to_bytes(4, "big") + b"x")


def test_zstd_payload_past_its_declared_size():
    frame = zstandard.ZstdCompressor().compress(b"y" * 4000)
    assert _zstd_decompress(frame, 4000) == b"y" * 4000
    with pytest.raises(ValueError, match="declared size"):
        _zstd_decompress(frame, 3999)


def test_zstd_bomb_without_a_size_in_its_header(monkeypatch):
    """A frame whose header does not say its size is counted in pieces, up to the cap."""
    writer = zstandard.ZstdCompressor(write_content_size=False).compressobj()
    bomb = writer.compress(bytes(8 << 20)) + writer.flush()
    assert zstandard.frame_content_size(bomb) == -1 and len(bomb) < 4096
    monkeypatch.setattr(mysql_events, "MAX_UNCOMPRESSED", 1 << 20)
    with pytest.raises(ValueError, match="inflates past 1048576"):
        _zstd_decompress(bomb)


def test_fast_printer_refuses_a_frame_header_over_the_cap(monkeypatch):
    import binlogkit.printer.mysql.fast as fast
    frame = zstandard.ZstdCompressor().compress(bytes(2 << 20))
    monkeypatch.setattr(fast, "MAX_UNCOMPRESSED", 1 << 20)
    monkeypatch.setattr(mysql_events, "MAX_UNCOMPRESSED", 1 << 20)
    with pytest.raises(ValueError):
        _one_shot(frame)
    assert _decompress(frame) is None       # the printer's "cannot decompress" path
