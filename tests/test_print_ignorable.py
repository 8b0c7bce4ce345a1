"""Any event flagged LOG_EVENT_IGNORABLE_F (known types too) is read by mariadb-binlog 10.11
as an Ignorable_log_event: `# Ignorable event type N (name)`, no filters of its real type;
a type past the format description's table is no event at all.  Each case runs the real
tool on the same bytes (skipped without it), with the C accelerator and without."""
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000001"
TINY = ROOT / "fixtures" / "binlog" / "none" / "mariadb-bin.000004"
TOOL = shutil.which("mariadb-binlog")
MASK = re.compile(rb"SQL_LOAD_MB-[0-9a-f]+-[0-9a-f]+")

pytestmark = pytest.mark.skipif(TOOL is None, reason="mariadb-binlog not installed")


def events(data):
    pos, out = 4, []
    while pos + 19 <= len(data):
        out.append((pos, data[pos + 4]))
        pos += struct.unpack_from("<I", data, pos + 9)[0]
    return out


def first_of_each_type():
    data = SOURCE.read_bytes()
    seen = {}
    for pos, type_code in events(data):
        if type_code != 15:
            seen.setdefault(type_code, pos)
    return sorted(seen.items())


def flagged(data, pos, type_code=None):
    data = bytearray(data)
    if type_code is not None:
        data[pos + 4] = type_code
    struct.pack_into("<H", data, pos + 17, struct.unpack_from("<H", data, pos + 17)[0] | 0x80)
    return bytes(data)


def both(tmp_path, data, args, pure):
    path = tmp_path / "flagged.000001"
    path.write_bytes(data)
    env = {**os.environ, "TZ": "UTC", "TMPDIR": str(tmp_path)}
    real = subprocess.run([TOOL, *args, str(path)], capture_output=True, env=env)
    if pure:
        env["BINLOGKIT_PURE"] = "1"
    ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, str(path)],
                          capture_output=True, env=env, cwd=ROOT)
    return ((MASK.sub(b"X", ours.stdout), ours.returncode),
            (MASK.sub(b"X", real.stdout), real.returncode))


@pytest.mark.parametrize("pure", [False, True], ids=["c", "pure"])
@pytest.mark.parametrize("type_code,pos", first_of_each_type(), ids=lambda v: str(v))
def test_a_known_event_flagged_ignorable(tmp_path, type_code, pos, pure):
    data = flagged(SOURCE.read_bytes(), pos)
    for args in ([], ["-vv", "--base64-output=decode-rows"]):
        ours, real = both(tmp_path, data, args, pure)
        assert ours == real, (type_code, args)
    assert b"# Ignorable event type %d (" % type_code in real[0]


@pytest.mark.parametrize("type_code", [27, 38, 42, 171, 172, 250])
def test_other_type_codes_flagged_ignorable(tmp_path, type_code):
    """Names of types this log does not hold; 172 and up are past 10.11's table."""
    data = TINY.read_bytes()
    pos = events(data)[1][0]
    ours, real = both(tmp_path, flagged(data, pos, type_code), [], False)
    assert ours == real
    assert real[1] == (1 if type_code > 171 else 0)


# -- events of any type appended, not flagged: what read_log_event builds or refuses -----

def appended(type_code, body):
    """The tiny log with one more event (no CRC in this set)."""
    data = TINY.read_bytes()
    size = 19 + len(body)
    return data + struct.pack("<IBIIIH", 1700000000, type_code, 1, size, len(data) + size, 0) + body


def _rows_v2(type_code, table_id, extra_len, rest, flags=1):
    return type_code, struct.pack("<IHHH", table_id, 0, flags, extra_len) + rest


CRAFTED = {
    # MySQL types mariadb-binlog reads as Ignorable_log_event
    "transaction_context": (36, bytes(40)), "view_change": (37, bytes(40)),
    "heartbeat_v2": (41, bytes(40)),
    # is_valid(): a file id for Exec_load, Delete_file, Execute_load_query
    "exec_load_no_file_id": (10, bytes(40)), "exec_load": (10, b"\x01" + bytes(39)),
    "delete_file_no_file_id": (11, bytes(40)), "delete_file": (11, b"\x02" + bytes(39)),
    "execute_load_query_no_file_id": (18, struct.pack("<IIBHHIIIB", 1, 0, 1, 0, 0, 0, 17, 20, 0)
                                      + b"d\0LOAD DATA INFILE 'x' INTO TABLE t"),
    "execute_load_query": (18, struct.pack("<IIBHHIIIB", 1, 0, 1, 0, 0, 7, 17, 20, 0)
                           + b"d\0LOAD DATA INFILE 'x' INTO TABLE t"),
    # rows: an extra-data length under 2; an empty write of an unmapped table counts 1 row
    "rows_extra_len_0": _rows_v2(30, 1, 0, b"\x01\x01"),
    "write_rows_empty_unmapped": _rows_v2(30, 1, 2, b"\x01\x01"),
    "write_rows_v1_empty_unmapped": (23, struct.pack("<IHH", 5, 0, 1) + b"\x01\x01"),
    "delete_rows_empty_unmapped": _rows_v2(32, 5, 2, b"\x01\x01"),
    "write_rows_unmapped": _rows_v2(30, 5, 2, b"\x01\x01\x00\x07\x00\x00\x00"),
    # Annotate_rows without a query, Start_encryption of another scheme: invalid
    "annotate_rows_empty": (160, b""), "annotate_rows": (160, b"x"),
    "start_encryption_scheme_0": (164, b"\x00\x01\x00\x00\x00" + bytes(12)),
    "start_encryption": (164, b"\x01\x01\x00\x00\x00" + bytes(12)),
    # XA_prepare: no gtrid is invalid; formatID prints unsigned (as in a GTID's XA START)
    "xa_prepare_no_gtrid": (38, struct.pack("<BIII", 0, 1, 0, 0) + bytes(20)),
    "xa_prepare_format_id_max": (38, struct.pack("<BIII", 0, 0xFFFFFFFF, 1, 0) + b"a"),
    "gtid_xa_format_id_max": (162, struct.pack("<QIBIBB", 5, 0, 64, 0xFFFFFFFF, 1, 0) + b"a"
                              + bytes(6)),
    # found by mutating the bundled logs and comparing with the real tool
    "intvar_value_signed": (5, struct.pack("<BQ", 2, (1 << 64) - 2)),
    "rand_seeds_signed": (13, struct.pack("<QQ", 1 << 63 | 5, (1 << 64) - 1)),
    "gtid_thread_id": (162, struct.pack("<QIBBQ", 5, 0, 0x0C, 0x10, 77)),     # 11.5+: not shown
    "gtid_thread_id_cut": (162, struct.pack("<QIBB", 5, 0, 0x0C, 0x10) + bytes(5)),
    "gtid_xa_gtrid_too_long": (162, struct.pack("<QIBIBB", 5, 0, 0x4C, 7, 117, 6) + b"a" * 10),
    "binlog_checkpoint": (161, struct.pack("<I", 18) + b"mariadb-bin.000002"),
    "binlog_checkpoint_name_too_long": (161, struct.pack("<I", 0x28000012) + b"mariadb-bin.000002"),
    "query_status_var_past_block": (2, struct.pack("<IIBHH", 1, 0, 1, 0, 5) + b"\x06\x68std"
                                    + b"d\0SELECT 1"),
    "query_db_with_nul": (2, struct.pack("<IIBHH", 1, 0, 3, 0, 0) + b"d\0x\0SELECT 1"),
    "query_db_starting_with_nul": (2, struct.pack("<IIBHH", 1, 0, 2, 0, 0) + b"\0x\0SELECT 1"),
    "query_db_length_too_short": (2, struct.pack("<IIBHH", 1, 0, 0, 0, 0) + b"\x18SELECT 1"),
    "query_db_length_cuts_name": (2, struct.pack("<IIBHH", 1, 0, 1, 0, 0) + b"db\0SELECT 1"),
    # User_var: a value of a type it does not print leaves only the name; a DECIMAL whose
    # digit groups bin2decimal refuses prints 0, a leading group up to 10x its range its
    # low digits
    "user_var_row_result": (14, struct.pack("<I", 3) + b"abc\0\x03" + struct.pack("<II", 33, 8)
                            + bytes(8) + b"\0"),
    "user_var_type_9": (14, struct.pack("<I", 3) + b"abc\0\x09" + struct.pack("<II", 33, 8)
                        + bytes(8) + b"\0"),
    **{f"user_var_decimal_{name}": (14, struct.pack("<I", 3) + b"abc\0\x04"
                                    + struct.pack("<II", 33, 2 + len(digits)) + bytes([p, s])
                                    + digits + b"\0")
       for name, p, s, digits in [
           ("ok", 5, 0, (99999 | 0x800000).to_bytes(3, "big")),
           ("lead_10x", 5, 0, (100000 | 0x800000).to_bytes(3, "big")),
           ("lead_past", 5, 0, (1000000 | 0x800000).to_bytes(3, "big")),
           ("group_past", 9, 0, (1000000000 | 0x80000000).to_bytes(4, "big")),
           ("frac_past", 4, 2, bytes([0x80 | 12, 100])),
           ("negative_zeroes", 4, 2, bytes([0x7F, 0xFF]))]},
    # Q_UPDATED_DB_NAMES (12) is MySQL's: mariadb-binlog reads no status variable after it
    "query_updated_db_names_first": (2, struct.pack("<IIBHH", 1, 0, 1, 0, 10) + b"\x0c\x01db\0"
                                     + b"\x00" + struct.pack("<I", 0x80000) + b"d\0SELECT 1"),
    "table_map_name_with_nul": (19, struct.pack("<IHH", 9, 0, 1) + b"\x02tz\0" + b"\x04ev\0x\0"
                                + b"\x01\x03\x00\x01"),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_an_appended_event(tmp_path, name):
    type_code, body = CRAFTED[name]
    for args in ([], ["-v"]):
        ours, real = both(tmp_path, appended(type_code, body), args, False)
        assert ours == real, (name, args)


def test_every_type_code_with_a_zeroed_body(tmp_path):
    """Each type code 0-255 with 40 zero bytes after its header, default output: what
    is printed and whether the run fails, as the real tool (one process of ours per
    type, in turn with the real tool's)."""
    differ = []
    for type_code in range(256):
        ours, real = both(tmp_path, appended(type_code, bytes(40)), [], False)
        if ours != real:
            differ.append(type_code)
    assert differ == []


def unfinished_statements():
    """(file, rows event offset) of the bundled CRC32 logs' statement ends, at most two
    per kind of event that follows them."""
    seen, cases = {}, []
    for path in sorted((ROOT / "fixtures" / "binlog" / "crc32").glob("mariadb-bin.0*")):
        data = path.read_bytes()
        evs = events(data)
        for (pos, type_code), (_, next_type) in zip(evs, evs[1:]):
            if type_code in (23, 24, 25, 30, 31, 32) and data[pos + 19 + 6] & 1:
                if seen.get(next_type, 0) < 2:
                    seen[next_type] = seen.get(next_type, 0) + 1
                    cases.append((path, pos))
    return cases


@pytest.mark.parametrize("path,pos", unfinished_statements(),
                         ids=lambda v: v.name if isinstance(v, Path) else str(v))
def test_a_row_statement_left_unfinished(tmp_path, path, pos):
    """STMT_END_F cleared (CRC32 made right): the next event's print() drops the header
    lines the statement left, its BINLOG text goes out with the next statement's."""
    import zlib
    data = bytearray(path.read_bytes())
    size = struct.unpack_from("<I", data, pos + 9)[0]
    data[pos + 19 + 6] &= 0xFE
    struct.pack_into("<I", data, pos + size - 4, zlib.crc32(bytes(data[pos:pos + size - 4])))
    for args in ([], ["-v"]):
        ours, real = both(tmp_path, bytes(data), args, False)
        assert ours == real, args


def test_an_empty_write_of_a_mapped_table(tmp_path):
    """`### INSERT INTO ... VALUES ()`: one row counted, with -v as without."""
    table_map = struct.pack("<IHH", 9, 0, 1) + b"\x02tz\0\x02ev\0\x01\x03\x00\x01"
    write = struct.pack("<IHH", 9, 0, 1) + b"\x01\x01"
    data = TINY.read_bytes()
    for type_code, body in ((19, table_map), (23, write)):
        size = 19 + len(body)
        data += struct.pack("<IBIIIH", 1700000000, type_code, 1, size, len(data) + size, 0) + body
    for args in ([], ["-v"], ["-vv", "--base64-output=decode-rows"]):
        ours, real = both(tmp_path, data, args, False)
        assert ours == real, args
    assert b"VALUES ()" in both(tmp_path, data, ["-v"], False)[1][0]
