"""The format description event's checksum algorithm, read from the right byte.

A checksum-aware server's FDE ends in checksum_alg + 4 bytes even when the
algorithm is OFF; those 4 bytes are not the algorithm (MySQL
Format_description_log_event::write: "(A) == 0, (V) != 0").
"""

import struct
from pathlib import Path

import pytest

from binlogkit.binlog.layout import BINLOG_CHECKSUM_ALG_CRC32, BINLOG_CHECKSUM_ALG_OFF
from binlogkit.binlog.reader import BinlogReader

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "binlog"


def _frames(path):
    with BinlogReader(str(path)) as reader:
        reader.read_magic()
        frames = [(e.pos, e.type_code, e.end) for e in reader.events()]
        return reader.fde.checksum_alg, frames


@pytest.mark.parametrize("last_byte", [0x00, 0x01, 0x02, 0xFF])
def test_checksum_off_fde_whatever_its_trailing_bytes(tmp_path, last_byte):
    src = FIXTURES / "none" / "mariadb-bin.000001"
    data = bytearray(src.read_bytes())
    fde_size = struct.unpack_from("<I", data, 4 + 9)[0]
    assert data[4 + fde_size - 5] == BINLOG_CHECKSUM_ALG_OFF
    data[4 + fde_size - 1] = last_byte          # the 4 bytes after the algorithm
    patched = tmp_path / "mariadb-bin.000001"
    patched.write_bytes(bytes(data))
    alg, frames = _frames(patched)
    assert alg == BINLOG_CHECKSUM_ALG_OFF
    assert frames == _frames(src)[1]


def test_crc32_fde_algorithm():
    alg, frames = _frames(FIXTURES / "crc32" / "mariadb-bin.000002")
    assert alg == BINLOG_CHECKSUM_ALG_CRC32
    assert len(frames) > 3
