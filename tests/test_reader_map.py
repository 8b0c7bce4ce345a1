"""The reader maps a closed binlog past its first CHUNK_SIZE instead of copying it in
(binlog/reader.py), and lets the pages behind it go every MAP_RELEASE bytes.  The text
printed is the same either way; a binlog still being written (in-use flag) is read."""
import io
import tempfile
from pathlib import Path

import pytest

from binlogkit.binlog import reader as reader_mod
from binlogkit.binlog.layout import LOG_EVENT_BINLOG_IN_USE_F
from binlogkit.binlog.reader import BinlogReader
from binlogkit.printer.mariadb import driver as dump_mod
from binlogkit.printer.state import PrintOptions
from binlogkit.tz import ZoneTable

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "fixtures" / "binlog").glob("*/mariadb-bin.0*"))
ZONE = ZoneTable.from_tz("UTC")


class Watch:
    """Reader methods wrapped to see whether files were mapped and pages let go."""

    def __init__(self, mp):
        self.mapped, self.released = 0, 0
        map_file, release = BinlogReader._map_file, BinlogReader._release_before

        def counting_map(reader):
            map_file(reader)
            self.mapped += reader._map is not None

        def counting_release(reader, pos):
            before = reader._released
            release(reader, pos)
            self.released += reader._released > before
        mp.setattr(BinlogReader, "_map_file", counting_map)
        mp.setattr(BinlogReader, "_release_before", counting_release)


def printed(files, mapping, **options):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reader_mod, "CHUNK_SIZE", 4096)     # every fixture past its first chunk
        mp.setattr(reader_mod, "MAP_RELEASE", 4096)
        if not mapping:
            mp.setattr(BinlogReader, "_map_file", lambda reader: None)
        watch = Watch(mp)
        out = io.BytesIO()
        with tempfile.TemporaryDirectory() as load_dir:
            try:
                dump_mod.dump([str(f) for f in files], out,
                              PrintOptions(local_load=load_dir, force_if_open=True, **options), ZONE)
            except Exception as exc:        # the same error either way
                out.write(repr(exc).encode())
        return out.getvalue().replace(load_dir.encode(), b"LOAD_DIR"), watch


@pytest.mark.parametrize("options", [{}, {"verbose": 2}, {"start_position": 500}])
def test_mapped_files_print_the_same(options):
    mapped, watch = printed(FILES, True, **options)
    read, _ = printed(FILES, False, **options)
    assert mapped == read
    assert watch.mapped >= 3 and watch.released >= 3


def test_a_binlog_in_use_is_read_not_mapped(tmp_path):
    data = bytearray((ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000001").read_bytes())
    data[4 + 17] |= LOG_EVENT_BINLOG_IN_USE_F         # the FDE's flags: still being written
    path = tmp_path / "in-use.000001"
    path.write_bytes(bytes(data))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reader_mod, "CHUNK_SIZE", 4096)
        with BinlogReader(str(path)) as reader:
            reader.read_magic()
            events = list(reader.events())
            assert reader.in_use and reader._map is None
    assert len(events) > 10


def test_a_closed_binlog_is_mapped_and_unmapped_with_its_reader():
    path = ROOT / "fixtures" / "binlog" / "crc32" / "mariadb-bin.000002"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reader_mod, "CHUNK_SIZE", 4096)
        with BinlogReader(str(path)) as reader:
            reader.read_magic()
            ends = [event.pos + event.event_size for event in reader.events()]
            assert reader._map is not None
        assert reader._map is None and reader._buf == b""
    assert ends[-1] == path.stat().st_size


PEER = ROOT.parent / "shared" / "peer" / "mysql-binlogs"
PEER_FILES = sorted(p for p in PEER.glob("*/*") if p.is_file()) if PEER.is_dir() else []


@pytest.mark.skipif(not PEER_FILES, reason="../shared/peer/mysql-binlogs is absent")
@pytest.mark.parametrize("options", [{}, {"verbose": 2, "base64_output": "decode-rows"}])
def test_mapped_mysql_binlogs_print_the_same(options, tmp_path):
    from binlogkit.printer.mysql.driver import dump_mysql
    from binlogkit.printer.mysql.gtidset import GtidFilter
    from test_mysql_print_peer import readable

    def run(path, mapping):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(reader_mod, "CHUNK_SIZE", 4096)
            mp.setattr(reader_mod, "MAP_RELEASE", 4096)
            if not mapping:
                mp.setattr(BinlogReader, "_map_file", lambda reader: None)
            watch = Watch(mp)
            out = io.BytesIO()
            with tempfile.TemporaryDirectory() as load_dir:     # LOAD DATA file names repeat
                try:
                    dump_mysql([str(path)], out, PrintOptions(local_load=load_dir,
                                                              force_if_open=True, **options),
                               ZONE, GtidFilter())
                except Exception as exc:
                    out.write(repr(exc).encode())
                return out.getvalue().replace(load_dir.encode(), b"LOAD_DIR"), watch.mapped

    mapped_files = 0
    for path in PEER_FILES:
        path = readable(path, tmp_path)
        mapped, count = run(path, True)
        read = run(path, False)[0]
        if mapped != read:
            import difflib
            diff = "".join(difflib.unified_diff(read.decode("latin-1").splitlines(True),
                                                mapped.decode("latin-1").splitlines(True), n=2))
            pytest.fail(f"{path.name}: mapped and read differ\n{diff[:3000]}", pytrace=False)
        mapped_files += count
    assert mapped_files > 0
