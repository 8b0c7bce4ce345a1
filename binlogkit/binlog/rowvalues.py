"""Row images to Python values, losslessly.

`decode_value(col_type, meta, data, pos)` turns the bytes of one non-NULL
column value into a Python value and says how many bytes it used;
`iter_rows(table_map, rows_body)` walks a rows event and yields one
``(before, after)`` pair of value lists per row; `Rows(table_map, body)` is
the same, decoded lazily on first use.

`decode_value` / `read_image` / `iter_rows_reference` (binlog/rowimage.py,
re-exported here) are the simple reference decoder: one value at a time, every
corner of the server's format spelled out.  `iter_rows` runs code compiled once
per image layout (`binlogkit.binlog.rowcompile`) and falls back to the reference
for any image that code does not handle; tests check both agree on every row of
every fixture.

Values are those of binlog/rowimage.py, whose docstring lists the representation
of every column type (ints, Decimal, float, Bits, Date/DateTime/Time/Timestamp
tuples, bytes, PartialJson).  NULL is None; a column absent from the image (not
in the columns bitmap) is `ABSENT`.  Date/time tuples offer ``to_python()``
giving a `datetime` object, or None for zero or otherwise invalid values.
"""
import struct
from decimal import Decimal

from binlogkit._accel import speedups
from binlogkit.binlog import rowcompile as rc
from binlogkit.binlog.mysql_rows import SPECIAL_ROWS_EVENT_TYPES, iter_special_rows
from binlogkit.binlog.rowimage import (
    ABSENT, Bits, Date, DateTime, Time, Timestamp, _check_progress, decode_value,
    iter_rows_reference, read_image, resolve_type, string_length,
)
from binlogkit.errors import BinlogError, CorruptRowError, UnsupportedTypeError

__all__ = [
    "ABSENT", "Bits", "Date", "DateTime", "Time", "Timestamp", "CorruptRowError",
    "UnsupportedTypeError", "resolve_type", "string_length", "decode_value",
    "read_image", "iter_rows", "iter_rows_reference", "Rows",
]


def iter_rows(table_map, rows_body):
    """An iterator of ``(before, after)`` per row: the missing image is None.

    write -> (None, after), delete -> (before, None), update -> (before, after).
    Images are decoded by code compiled once per layout (`rowcompile`; with
    the C accelerator, its walker over the same layouts, `speedups.rows_values`,
    goes first); an image the compiled code does not handle is decoded by the
    reference decoder (`read_image`), so the values are always the reference's.
    Raises CorruptRowError at the first image that cannot be walked (when
    the iteration reaches it).
    """
    if rows_body.type_code in SPECIAL_ROWS_EVENT_TYPES:   # partial JSON, pre-GA layouts
        return iter_special_rows(table_map, rows_body)
    data = rows_body.rows
    if not isinstance(data, bytes):
        data = bytes(data)
    if speedups is not None:
        plans = table_map.plans
        key = ("values", rows_body.kind, rows_body.cols, rows_body.cols_ai, rows_body.width)
        programs = plans.get(key)
        if programs is None:
            programs = plans[key] = _c_programs(table_map, rows_body)
        if programs:
            pairs, pos = speedups.rows_values(*programs, data, 0, C_TYPES)
            if pos >= len(data):
                return iter(pairs)
            return _iter_rows_compiled(table_map, rows_body, data, pos, pairs)
    return _iter_rows_compiled(table_map, rows_body, data, 0, ())


def _iter_rows_compiled(table_map, rows_body, data, pos, done):
    """iter_rows from data[pos] with the compiled Python, after the rows `done`."""
    yield from done
    end = len(data)
    kind, width, cols = rows_body.kind, rows_body.width, rows_body.cols
    layout, layout_ai = rc.event_layouts(table_map, kind, cols, rows_body.cols_ai, width)
    functions, nb, Bail = layout.functions, layout.null_bytes, rc.Bail
    if layout_ai is not None:
        cols_ai = rows_body.cols_ai
        functions_ai, nb_ai = layout_ai.functions, layout_ai.null_bytes
    write = kind == "write"
    while pos < end:
        row_start = pos
        bits = data[pos:pos + nb]
        fn = functions.get(bits) or layout.function(bits)
        image = None
        if fn is not None:
            try:
                pos, image = fn(data, pos + nb, end)
            except (Bail, IndexError):
                pass
        if image is None:       # no compiled code for this image, or it gave up
            image, pos = read_image(table_map, cols, width, data, pos, end)
        if layout_ai is None:
            _check_progress(row_start, pos, image)
            yield (None, image) if write else (image, None)
            continue
        bits = data[pos:pos + nb_ai]
        fn = functions_ai.get(bits) or layout_ai.function(bits)
        after = None
        if fn is not None:
            try:
                pos, after = fn(data, pos + nb_ai, end)
            except (Bail, IndexError):
                pass
        if after is None:
            after, pos = read_image(table_map, cols_ai, width, data, pos, end)
        _check_progress(row_start, pos, after)
        yield image, after


_KIND_CODES = {"write": 0, "update": 1, "delete": 2}
# the value types speedups.rows_values builds, in its order
C_TYPES = (ABSENT, Decimal, Bits, Date, DateTime, Time, Timestamp)


def _c_programs(table_map, rows_body):
    """speedups.rows_values' first arguments for this kind of event, or () when
    the compiled layouts do not cover it (cached in table_map.plans)."""
    kind = rows_body.kind
    layout, layout_ai = rc.event_layouts(table_map, kind, rows_body.cols, rows_body.cols_ai,
                                         rows_body.width)
    if layout.program is None or (layout_ai is not None and layout_ai.program is None):
        return ()
    return (layout.program, layout_ai.program if layout_ai is not None else None,
            _KIND_CODES[kind])


class Rows:
    """The rows of one rows event as Python values, decoded when first asked for.

    ``len(rows)``, ``rows[i]`` and iteration give ``(before, after)`` pairs
    (see `iter_rows`); nothing is decoded until one of them is used, and the
    decoded list is kept.  A corrupt image raises CorruptRowError then.
    """
    __slots__ = ("table_map", "body", "_rows", "path", "pos")

    def __init__(self, table_map, body, path=None, pos=None):
        self.table_map = table_map
        self.body = body
        self._rows = None
        self.path = path        # where the event is, for the errors
        self.pos = pos

    @property
    def decoded(self):
        return self._rows is not None

    def _all(self):
        if self._rows is None:
            try:
                self._rows = list(iter_rows(self.table_map, self.body))
            except BinlogError as exc:
                raise self._located(exc) from None
            except (IndexError, KeyError, TypeError, ValueError, OverflowError,
                    struct.error) as exc:
                raise self._located(CorruptRowError(f"row image cannot be decoded: {exc}")) \
                    from None
        return self._rows

    def _located(self, exc):
        if exc.path is None:
            exc.path = self.path
        if exc.offset is None:
            exc.offset = self.pos
        if exc.type_code is None:
            exc.type_code = self.body.type_code
        return exc

    def __len__(self):
        return len(self._all())

    def __getitem__(self, index):
        return self._all()[index]

    def __iter__(self):
        return iter(self._all())

    def __repr__(self):
        state = f"{len(self._rows)} rows" if self._rows is not None else "not decoded"
        return f"<Rows {self.body.kind} `{self.table_map.table.decode(errors='replace')}` {state}>"
