"""mariadb-binlog -v / -vv: the `### INSERT INTO ...` pseudo-SQL of a rows event.

The text follows Rows_log_event::print_verbose of mariadb-binlog 10.11: one
`### <command> `db`.`table`` line per row, then `### SET` / `### WHERE`
clauses with one `###   @N=value` line per column present in the image and,
with -vv, a `/* TYPE meta=N nullable=N is_null=N */` comment.  Values are
formatted as log_event_print_value does (which is not always valid SQL:
strings only escape control bytes, DATE uses ':' separators, TIMESTAMP is
the raw epoch number, FLOAT is left-justified in 20 columns...).

`print_verbose` prints with code compiled per image layout (`rows_fast`);
`print_verbose_reference` (one value at a time: `format_value`,
`type_string`) is the reference it is tested against and falls back to for
anything unusual.  When the real tool would stop (a corrupt image, a type or
metadata it cannot print), the result carries the error: the driver then
drops the event's text and exits 1, as mariadb-binlog does.
"""
from binlogkit.binlog import rows as R
from binlogkit.binlog.rowcompile import Bail, ImageLayout, LayoutCache
from binlogkit.binlog.rowimage import decode_value, resolve_type
from binlogkit.errors import CorruptRowError, UnsupportedTypeError
from binlogkit.printer.mariadb.rows_fast import TextEmitter
from binlogkit.printer.mariadb.values import STORED_AS, format_value, type_string
from binlogkit.printer.rowtext import COMMANDS
from binlogkit.printer.safety import comment_safe
from binlogkit.printer.text import backtick

CORRUPTED = b"***Corrupted replication event was detected. Not printing the value***\n"
# The column types log_event_print_value has a case for (after the STRING remap)
_PRINT_VALUE_TYPES = frozenset({
    R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24,
    R.MYSQL_TYPE_LONGLONG, R.MYSQL_TYPE_NEWDECIMAL, R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE,
    R.MYSQL_TYPE_BIT, R.MYSQL_TYPE_TIMESTAMP, R.MYSQL_TYPE_TIMESTAMP2, R.MYSQL_TYPE_DATETIME,
    R.MYSQL_TYPE_DATETIME2, R.MYSQL_TYPE_TIME, R.MYSQL_TYPE_TIME2, R.MYSQL_TYPE_NEWDATE,
    R.MYSQL_TYPE_DATE, R.MYSQL_TYPE_YEAR, R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET, R.MYSQL_TYPE_BLOB,
    R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_GEOMETRY,
})


class UnprintableColumnError(UnsupportedTypeError):
    """A column type log_event_print_value has no case for (or the old DECIMAL).

    There mariadb-binlog flushes the event's header and base64 caches
    (PRINT_EVENT_INFO::flush_for_error), writes `tool_text` to stderr and
    stops with status 1.
    """
    flush_caches = True

    def __init__(self, col_type, meta, column, tool_text):
        super().__init__(col_type, meta, column)
        self.tool_text = tool_text


# MySQL's VECTOR (242) and JSON (245): no MariaDB type has these codes
MYSQL_ONLY_TYPES = frozenset({242, 243, 244, 245})


def _unprintable(col_type, meta, column):
    """(text written, exception) for a value log_event_print_value cannot print."""
    real, _ = resolve_type(col_type, meta)
    if real == R.MYSQL_TYPE_ENUM:
        return b"!! Unknown ENUM packlen=%d" % (meta & 0xFF), UnsupportedTypeError(col_type, meta, column)
    if real == R.MYSQL_TYPE_BLOB:
        return b"!! Unknown BLOB packlen=0", UnsupportedTypeError(col_type, meta, column)
    if real in _PRINT_VALUE_TYPES:     # a fractional precision above 6: the real tool crashes
        return b"", UnsupportedTypeError(col_type, meta, column)
    if real in MYSQL_ONLY_TYPES:        # mariadb-binlog 10.11 stops silently, caches not flushed
        return b"", UnsupportedTypeError(col_type, meta, column)
    if real == R.MYSQL_TYPE_DECIMAL:
        text = ("Found Old DECIMAL (mysql-4.1 or earlier). "
                "Not enough metadata to display the value.")
    else:
        text = f"Don't know how to handle column type: {real} meta: {meta} ({meta:04x})"
    return b"", UnprintableColumnError(col_type, meta, column, text)


class VerboseResult:
    """Text, rows counted, and the first error (None when the event printed fully)."""
    __slots__ = ("text", "rows", "error")

    def __init__(self, text, rows, error):
        self.text = text
        self.rows = rows
        self.error = error

    def error_message(self):
        """One line saying which row and column stopped the printing (None: no error).

        mariadb-binlog itself says nothing: it stops its output before the
        event and exits with status 1.
        """
        exc = self.error
        if exc is None:
            return None
        where = f"row {self.rows}"
        if getattr(exc, "column", None) is not None:
            where += f", column @{exc.column + 1}"
        if isinstance(exc, UnprintableColumnError):
            return f"{exc.tool_text} ({where})"
        if isinstance(exc, UnsupportedTypeError):
            return (f"row image not printable ({where}): column type {exc.col_type} "
                    f"with metadata {exc.meta} is unknown or corrupt")
        return f"corrupt row image ({where}): {exc}"


def _print_image(out, table_map, cols, width, data, pos, end, clause, verbose):
    """print_verbose_one_row; returns the new position or raises (after writing)."""
    types, metas = table_map.column_types, table_map.column_meta
    ncols = table_map.column_count
    nset = bin(int.from_bytes(cols[:(width + 7) // 8], "little") & ((1 << width) - 1)).count("1")
    null_bytes = (nset + 7) // 8
    null_bits = data[pos:pos + null_bytes]
    pos += null_bytes
    out.append(clause)
    n = 0
    nullable = table_map.nullable
    for col in range(min(ncols, width, len(cols) * 8)):
        if not (cols[col >> 3] >> (col & 7)) & 1:
            continue
        is_null = (null_bits[n >> 3] >> (n & 7)) & 1 if (n >> 3) < len(null_bits) else 0
        n += 1
        out.append(b"###   @%d=" % (col + 1))
        col_type, meta = types[col], metas[col]
        if not is_null:     # table_def::calc_field_size first, as the real tool does
            fsize = R.field_size(col_type, meta, data, pos) if pos < end else 1
            if fsize is None or pos + fsize > end:
                out.append(CORRUPTED)
                if fsize is None and R.field_size(col_type, meta, bytes(8), 0) is None:
                    raise CorruptRowError(f"no size is known for a value of column type "
                                          f"{col_type} (metadata {meta})", None, col)
                raise CorruptRowError("value runs past the end of the event", None, col)
        typestr = type_string(col_type, meta)
        if typestr is None:
            # log_event_print_value has no text (or only an "!! Unknown" note)
            text, exc = _unprintable(col_type, meta, col)
            out.append(text)
            raise exc
        col_type = STORED_AS.get(col_type, col_type)
        if is_null:
            out.append(b"NULL")
        else:
            value, size = decode_value(col_type, meta, data, pos)
            out.append(format_value(col_type, meta, value))
            pos += size
        if verbose > 1:
            out.append(b" /* %s meta=%d nullable=%d is_null=%d */" % (
                typestr, meta, nullable(col), is_null))
        out.append(b"\n")
    return pos


# Events printed by the compiled path / by the reference (tests check the former
# covers every well-formed fixture event).
STATS = {"compiled": 0, "reference": 0}


def print_verbose(table_map, body, verbose):
    """Rows_log_event::print_verbose for one decoded rows event.

    `table_map` is the TableMapBody for body.table_id, or None when no map was
    seen.  Returns a VerboseResult; `rows` is how many rows were started
    (what print_verbose adds to the row count), `error` is None or the
    exception that stopped the printing (the text is then partial, as the
    real tool's is).  The text comes from code compiled per image layout
    (`rows_fast`) when it can, else from the reference,
    `print_verbose_reference`.
    """
    if table_map is not None and body.rows:
        plan = event_plan(table_map, body.kind, body.cols, body.cols_ai, body.width, verbose)
        if plan.first.specs is not None:
            result = _print_compiled(plan, body.rows)
            if result is not None:
                STATS["compiled"] += 1
                return result
    STATS["reference"] += 1
    return print_verbose_reference(table_map, body, verbose)


def _print_compiled(plan, data):
    """The whole event's text with compiled layouts, or None (use the reference)."""
    if not isinstance(data, bytes):
        data = bytes(data)
    out = []
    append = out.append
    end = len(data)
    pos = rows = 0
    first, second = plan.first, plan.second
    nb1, functions1 = first.null_bytes, first.functions
    try:
        if second is None:
            while pos < end:
                rows += 1
                bits = data[pos:pos + nb1]
                fn = functions1.get(bits) or first.function(bits)
                if fn is None:
                    return None
                row_start = pos
                pos, text = fn(data, pos + nb1, end)
                if pos <= row_start:    # a row of no bytes: the reference says so
                    return None
                append(text)
        else:
            if second.specs is None:
                return None
            nb2, functions2 = second.null_bytes, second.functions
            while pos < end:
                rows += 1
                bits = data[pos:pos + nb1]
                fn = functions1.get(bits) or first.function(bits)
                if fn is None:
                    return None
                row_start = pos
                pos, text = fn(data, pos + nb1, end)
                append(text)
                bits = data[pos:pos + nb2]
                fn = functions2.get(bits) or second.function(bits)
                if fn is None:
                    return None
                pos, text = fn(data, pos + nb2, end)
                if pos <= row_start:
                    return None
                append(text)
    except (Bail, IndexError):
        return None
    return VerboseResult(out[0] if len(out) == 1 else b"".join(out), rows, None)


class EventPlan:
    """The compiled layouts of a rows event's images (the second for UPDATE only)."""
    __slots__ = ("first", "second")

    def __init__(self, first, second):
        self.first = first
        self.second = second


def _build_event_plan(table_map, kind, cols, cols_ai, width, verbose):
    command, clause1, clause2 = COMMANDS[kind]
    head = (b"### " + command + b" "
            + comment_safe(backtick(table_map.db) + b"." + backtick(table_map.table)) + b"\n")
    first = ImageLayout(table_map, cols, width, TextEmitter(table_map, head + clause1, verbose, type_string))
    second = None
    if clause2 is not None:
        second = ImageLayout(table_map, cols_ai, width, TextEmitter(table_map, clause2, verbose, type_string))
    return EventPlan(first, second)


_EVENT_PLANS = LayoutCache(_build_event_plan)


def event_plan(table_map, kind, cols, cols_ai, width, verbose):
    """The (cached) EventPlan for a rows event of `table_map`."""
    return _EVENT_PLANS.get(table_map, kind, cols, cols_ai, width, verbose)


def print_verbose_reference(table_map, body, verbose):
    """print_verbose, one value at a time (the reference for the compiled path)."""
    command, clause1, clause2 = COMMANDS[body.kind]
    empty_write = body.kind == "write" and not body.rows
    if table_map is None:       # nothing counted, not even an empty write (without -v: one)
        return VerboseResult(b"### Row event for unknown table #%d" % body.table_id, 0, None)
    name = comment_safe(backtick(table_map.db) + b"." + backtick(table_map.table))
    data = body.rows
    end = len(data)
    if empty_write:             # "VALUES ()": one row counted
        return VerboseResult(b"### INSERT INTO " + name + b" VALUES ()\n", 1, None)
    out = []
    rows = 0
    pos = 0
    head = b"### " + command + b" " + name + b"\n"
    width = body.width
    try:
        while pos < end:
            rows += 1
            out.append(head)
            row_start = pos
            pos = _print_image(out, table_map, body.cols, width, data, pos, end, clause1, verbose)
            if clause2 is not None:
                pos = _print_image(out, table_map, body.cols_ai, width, data, pos, end,
                                   clause2, verbose)
            if pos <= row_start:        # it would be printed forever
                raise CorruptRowError("row image of no bytes")
    except (CorruptRowError, UnsupportedTypeError) as exc:
        return VerboseResult(b"".join(out), rows, exc)
    return VerboseResult(b"".join(out), rows, None)
