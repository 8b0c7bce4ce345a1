"""The compiled row paths agree with the simple reference decoder.

Values (`rowvalues.iter_rows`) and -v text (`rows_verbose.print_verbose`) come
from code compiled once per image layout (for values, the C accelerator's
walker over the same layouts first, when it is built); `iter_rows_reference`
/ `print_verbose_reference` decode one value at a time.  Checked on every
row of every fixture binlog (where the compiled code must also be the one
that ran), and on generated images, well-formed and damaged, with and
without the C walker.  (tests/test_speedups.py compares the C walker itself.)
"""
import glob
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlogkit.binlog import rows as R
from binlogkit.binlog import rowcompile, rowvalues
from binlogkit.binlog.decimal import decimal_bin_size
from binlogkit.binlog.rowevents import iter_rows_events
from binlogkit.binlog.rows import RowsBody, TableMapBody
from binlogkit.binlog.rowvalues import (
    CorruptRowError, UnsupportedTypeError, iter_rows, iter_rows_reference, read_image,
)
from binlogkit.printer.mariadb import rows_verbose
from binlogkit.printer.mariadb.rows_verbose import print_verbose, print_verbose_reference

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_BINLOGS = sorted(glob.glob(str(ROOT / "fixtures" / "binlog" / "*" / "mariadb-bin.*")))


def _rows_events(path):
    try:
        yield from iter_rows_events(path)
    except Exception as exc:       # the in-use file of the crc32 set may end mid-event
        if "truncated" not in str(exc).lower() and "end" not in str(exc).lower():
            raise


def _images(table_map, body):
    """(cols, start) of every image of an event, walked with the reference decoder."""
    data, pos, out = body.rows, 0, []
    while pos < len(data):
        for cols in ((body.cols, body.cols_ai) if body.kind == "update" else (body.cols,)):
            out.append((cols, pos))
            _, pos = read_image(table_map, cols, body.width, data, pos)
    return out


def test_fixtures_have_rows():
    events = [ev for path in FIXTURE_BINLOGS for ev in _rows_events(path)]
    assert len(FIXTURE_BINLOGS) >= 12 and len(events) > 100
    assert sum(len(list(iter_rows_reference(ev.table_map, ev.body))) for ev in events) > 500


@pytest.mark.parametrize("path", FIXTURE_BINLOGS, ids=lambda p: "/".join(Path(p).parts[-2:]))
def test_values_compiled_equal_reference(path, monkeypatch):
    """Every image of every rows event: compiled values == reference values, same types."""
    checked = 0
    for ev in _rows_events(path):
        reference = list(iter_rows_reference(ev.table_map, ev.body))
        fallbacks = []
        monkeypatch.setattr(rowvalues, "read_image", lambda *a: fallbacks.append(a) or read_image(*a))
        assert repr(list(ev.rows)) == repr(reference), f"{path} at {ev.pos}"
        monkeypatch.setattr(rowvalues, "speedups", None)        # the compiled Python alone
        assert repr(list(iter_rows(ev.table_map, ev.body))) == repr(reference), f"{path} at {ev.pos}"
        monkeypatch.undo()
        assert not fallbacks, f"{path} at {ev.pos}: iter_rows used the reference decoder"
        for cols, start in _images(ev.table_map, ev.body):
            layout = rowcompile.value_layout(ev.table_map, cols, ev.body.width)
            got = rowcompile.read_image_fast(layout, ev.body.rows, start, len(ev.body.rows))
            assert got is not None, f"{path} at {ev.pos}: the compiled path gave up on an image"
            want = read_image(ev.table_map, cols, ev.body.width, ev.body.rows, start)
            assert repr(got) == repr(want)
            checked += 1
    assert checked or "000001" in path or "000004" in path


@pytest.mark.parametrize("path", FIXTURE_BINLOGS, ids=lambda p: "/".join(Path(p).parts[-2:]))
@pytest.mark.parametrize("verbose", [1, 2])
def test_text_compiled_equal_reference(path, verbose):
    """-v / -vv text of every rows event: compiled == reference, and compiled did it."""
    for ev in _rows_events(path):
        before = dict(rows_verbose.STATS)
        got = print_verbose(ev.table_map, ev.body, verbose)
        want = print_verbose_reference(ev.table_map, ev.body, verbose)
        assert (got.text, got.rows, got.error) == (want.text, want.rows, want.error), \
            f"{path} at {ev.pos}"
        if ev.table_map is not None and ev.body.rows:
            assert rows_verbose.STATS["compiled"] == before["compiled"] + 1, \
                f"{path} at {ev.pos}: printed by the reference, not the compiled path"


def test_same_layout_other_table_gets_its_own_name():
    def table_map(db, name):
        return TableMapBody(9, 0, db, name, bytes([R.MYSQL_TYPE_LONG]), [0], b"\x01", b"")
    body = RowsBody(9, R.L.STMT_END_F, "write", 1, b"\x01", b"\x01", b"\x00\x05\x00\x00\x00")
    first = print_verbose(table_map(b"a", b"t"), body, 1).text
    second = print_verbose(table_map(b"b", b"t"), body, 1).text
    assert first.startswith(b"### INSERT INTO `a`.`t`\n") and second.startswith(b"### INSERT INTO `b`.`t`\n")


def test_lazy_rows_decode_on_first_use():
    ev = next(ev for ev in _rows_events(FIXTURE_BINLOGS[4]) if ev.table_map is not None)
    assert not ev.rows.decoded
    assert len(ev.rows) == len(list(iter_rows_reference(ev.table_map, ev.body)))
    assert ev.rows.decoded and ev.rows[0] == list(ev.rows)[0]


# -- generated images ------------------------------------------------------------------

def _fixed(col_type, meta, size):
    return (col_type, meta, st.binary(min_size=size, max_size=size))


def _var(col_type, meta, prefix, max_len=40):
    def enc(content):
        return len(content).to_bytes(prefix, "little") + content
    return (col_type, meta, st.binary(max_size=max_len).map(enc))


def _dec(precision, scale):
    return _fixed(R.MYSQL_TYPE_NEWDECIMAL, (precision << 8) | scale, decimal_bin_size(precision, scale))


COLUMN_KINDS = [
    _fixed(R.MYSQL_TYPE_TINY, 0, 1), _fixed(R.MYSQL_TYPE_SHORT, 0, 2),
    _fixed(R.MYSQL_TYPE_INT24, 0, 3), _fixed(R.MYSQL_TYPE_LONG, 0, 4),
    _fixed(R.MYSQL_TYPE_LONGLONG, 0, 8), _fixed(R.MYSQL_TYPE_FLOAT, 4, 4),
    _fixed(R.MYSQL_TYPE_DOUBLE, 8, 8), _fixed(R.MYSQL_TYPE_YEAR, 0, 1),
    _fixed(R.MYSQL_TYPE_DATE, 0, 3), _fixed(R.MYSQL_TYPE_NEWDATE, 0, 3),
    _fixed(R.MYSQL_TYPE_TIME, 0, 3),
    _fixed(R.MYSQL_TYPE_DATETIME, 0, 8), _fixed(R.MYSQL_TYPE_TIMESTAMP, 0, 4),
    _dec(1, 0), _dec(10, 2), _dec(12, 3), _dec(18, 9), _dec(9, 9), _dec(20, 0), _dec(65, 30),
    *[_fixed(R.MYSQL_TYPE_TIME2, fsp, 3 + (fsp + 1) // 2) for fsp in range(7)],
    *[_fixed(R.MYSQL_TYPE_DATETIME2, fsp, 5 + (fsp + 1) // 2) for fsp in range(7)],
    *[_fixed(R.MYSQL_TYPE_TIMESTAMP2, fsp, 4 + (fsp + 1) // 2) for fsp in range(7)],
    _fixed(R.MYSQL_TYPE_BIT, 1, 1), _fixed(R.MYSQL_TYPE_BIT, (1 << 8) | 5, 2),
    _fixed(R.MYSQL_TYPE_BIT, 8 << 8, 8),
    _fixed(R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_ENUM << 8) | 1, 1),
    _fixed(R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_ENUM << 8) | 2, 2),
    *[_fixed(R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_SET << 8) | n, n) for n in (1, 3, 8)],
    _var(R.MYSQL_TYPE_VARCHAR, 20, 1), _var(R.MYSQL_TYPE_VARCHAR, 300, 2),
    _var(R.MYSQL_TYPE_STRING, 0xFE28, 1),
    _var(R.MYSQL_TYPE_STRING, ((0xFE ^ 0x10) << 8) | 0x2C, 2),      # CHAR(300) utf8
    *[_var(R.MYSQL_TYPE_BLOB, m, m) for m in (1, 2, 3, 4)],
    _var(R.MYSQL_TYPE_GEOMETRY, 4, 4),
    # left to the reference decoder
    _fixed(R.MYSQL_TYPE_TIME2, 7, 7), _var(R.MYSQL_TYPE_BLOB, 0, 1),
    _var(R.MYSQL_TYPE_STRING, 5, 1), _fixed(R.MYSQL_TYPE_STRING, (R.MYSQL_TYPE_ENUM << 8) | 3, 3),
    _fixed(R.MYSQL_TYPE_BIT, 9, 2), _var(R.MYSQL_TYPE_JSON, 4, 4), _fixed(R.MYSQL_TYPE_NULL, 0, 0),
    _var(R.MYSQL_TYPE_TINY_BLOB, 1, 1), _fixed(R.MYSQL_TYPE_DECIMAL, 0, 2), _fixed(200, 0, 1),
]


@st.composite
def rows_events(draw):
    kinds = draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=1, max_size=6))
    ncols = len(kinds)
    nullable = draw(st.integers(0, (1 << ncols) - 1))
    table_map = TableMapBody(5, 0, b"d", b"t", bytes(k[0] for k in kinds), [k[1] for k in kinds],
                             nullable.to_bytes((ncols + 7) // 8, "little"), b"")
    kind = draw(st.sampled_from(["write", "update", "delete"]))
    width = draw(st.sampled_from([ncols, ncols, ncols + 3, max(ncols - 1, 0)]))
    nbytes = (width + 7) // 8

    def bitmap():
        return draw(st.integers(0, (1 << (8 * nbytes)) - 1)).to_bytes(nbytes, "little")

    cols = bitmap()
    cols_ai = bitmap() if kind == "update" else cols
    data = b""
    for _ in range(draw(st.integers(1, 3)) * (2 if kind == "update" else 1)):
        image_cols = cols if kind != "update" or not len(data) % 2 else cols_ai
        present = rowcompile.present_columns(table_map, image_cols, width)
        nulls = draw(st.integers(0, 255 ** 2))
        null_bytes = rowcompile.null_byte_count(image_cols, width)
        data += (nulls & ((1 << (8 * null_bytes)) - 1)).to_bytes(null_bytes, "little")
        for n, col in enumerate(present):
            if not (nulls >> n) & 1:
                data += draw(kinds[col][2])
    damage = draw(st.sampled_from(["none", "none", "truncate", "flip"]))
    if damage == "truncate" and data:
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif damage == "flip" and data:
        i = draw(st.integers(0, len(data) - 1))
        data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1:]
    return table_map, RowsBody(5, R.L.STMT_END_F, kind, width, cols, cols_ai, data)


def _collect(gen):
    out = []
    try:
        for row in gen:
            out.append(row)
    except (CorruptRowError, UnsupportedTypeError) as exc:
        return repr(out), type(exc)
    return repr(out), None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows_events())
def test_generated_images_compiled_equal_reference(event):
    table_map, body = event
    for verbose in (1, 2):
        got = print_verbose(table_map, body, verbose)     # never raises
        want = print_verbose_reference(table_map, body, verbose)
        assert (got.text, got.rows, type(got.error)) == (want.text, want.rows, type(want.error))
    want = _collect(iter_rows_reference(table_map, body))
    assert _collect(iter_rows(table_map, body)) == want
    with pytest.MonkeyPatch.context() as mp:     # the compiled Python alone
        mp.setattr(rowvalues, "speedups", None)
        assert _collect(iter_rows(table_map, body)) == want
