"""mysqlbinlog 8.0 -v / -vv: the `### INSERT INTO ...` text of a rows event.

Written from Rows_log_event::print_verbose, print_verbose_one_row and
log_event_print_value of MySQL 8.0.41 (sql/log_event.cc).  It differs from
mariadb-binlog in details: the quote table escapes \\b \\f \\n \\r \\t \\\\ \\'
(MariaDB only escapes control bytes), DATE is 'YYYY:MM:DD', old TIME is
unsigned, YEAR 0 is 1900, GEOMETRY is not printable, JSON is decoded, and
PARTIAL_UPDATE_ROWS after-images print JSON_REPLACE/INSERT/REMOVE calls.
VECTOR columns (9.0+) print like mysqlbinlog 9.x does.
"""
import struct

from binlogkit.binlog import layout as L
from binlogkit.binlog import rows as R
from binlogkit.binlog.coltypes import FIXED_SIZES, MYSQL_TYPE_VECTOR
from binlogkit.binlog.decimal import decimal_bin_size, decimal_to_text
from binlogkit.binlog.events import net_field_length
from binlogkit.binlog.mysql_events import parse_extra_row_info
from binlogkit.binlog.rowimage import decode_value
from binlogkit.printer.rowtext import BLOB_NAMES, COMMANDS, FRAC_DIV, INT_NAMES
from binlogkit.printer.safety import comment_safe
from binlogkit.printer.tablemeta import table_metadata
from binlogkit.printer.text import backtick

PARTIAL_JSON_UPDATES = 1
_FLOAT = struct.Struct("<f").unpack_from
_DOUBLE = struct.Struct("<d").unpack_from
# get_quote_table(): \b \f \n \r \t \\ \' by name, other bytes < 0x20 as \xNN
_QUOTE = {i: b"\\x%02x" % i for i in range(0x20)}
_QUOTE.update({0x08: b"\\b", 0x0C: b"\\f", 0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t",
               0x5C: b"\\\\", 0x27: b"\\'"})
_NEEDS_QUOTE = frozenset(_QUOTE)


def write_quoted(data):
    """my_b_write_quoted."""
    data = bytes(data)
    if not _NEEDS_QUOTE.isdisjoint(data):
        data = b"".join(_QUOTE.get(b) or bytes((b,)) for b in data)
    return b"'" + data + b"'"


def write_bits(data, nbits):
    """my_b_write_bit: the low `nbits` bits of the stored bytes, first byte first."""
    nbits8 = (nbits + 7) // 8 * 8
    value = int.from_bytes(bytes(data[:nbits8 // 8]), "big")
    return b"b'" + (format(value & ((1 << nbits) - 1), "0%db" % nbits).encode() if nbits else b"") + b"'"


def real_type(col_type, meta):
    """table_def::type(): STRING may really be ENUM or SET; DATE is NEWDATE."""
    if col_type == R.MYSQL_TYPE_STRING and (meta >> 8) in (R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET):
        return meta >> 8
    if col_type == R.MYSQL_TYPE_DATE:
        return R.MYSQL_TYPE_NEWDATE
    return col_type


def field_size(col_type, meta, data, pos):
    """table_def::calc_field_size (the size check before a value is printed)."""
    if col_type in (R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE):
        return meta
    if col_type == MYSQL_TYPE_VECTOR:
        return meta + int.from_bytes(data[pos:pos + meta], "little") if 1 <= meta <= 4 else None
    if col_type in (R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET):
        return meta & 0xFF
    return R.field_size(col_type, meta, data, pos)


class StopRow(Exception):
    """log_event_print_value returned 0: the rest of the event is not printed."""


def _frac(usec, dec):
    return b".%0*d" % (dec, usec // FRAC_DIV[dec]) if dec else b""


def _string_length(meta):
    """The CHAR length log_event_print_value derives from a STRING column's meta."""
    if meta >= 256:
        byte0, byte1 = meta >> 8, meta & 0xFF
        if (byte0 & 0x30) != 0x30:
            return byte1 | (((byte0 & 0x30) ^ 0x30) << 4), byte0 | 0x30
        return byte1, R.MYSQL_TYPE_STRING
    return meta, R.MYSQL_TYPE_STRING


def print_value(out, data, pos, col_type, meta, col_name, is_partial, dims, json_text):
    """log_event_print_value; `pos` None means NULL.  Returns (typestr, size)."""
    length = 0
    if col_type == R.MYSQL_TYPE_STRING:
        length, col_type = _string_length(meta)
    name = INT_NAMES.get(col_type)
    if name is not None:
        if pos is None:
            out.append(b"NULL")
            return name[0], 0
        width = name[1]
        value = int.from_bytes(data[pos:pos + width], "little", signed=True)
        out.append(b"%d" % value)
        if value < 0:
            out.append(b" (%d)" % (value & ((1 << (8 * width)) - 1)))
        return name[0], width
    printer = _PRINTERS.get(col_type)
    if printer is None:
        out.append(b"!! Don't know how to handle column type=%d meta=%d (%04x)\n" % (col_type, meta, meta))
        raise StopRow()
    return printer(out, data, pos, col_type, meta, length, col_name, is_partial, dims, json_text)


def _null_or(out, pos, typestr=None):
    if pos is None:
        out.append(b"NULL")
        return True
    return False


def _p_decimal(out, data, pos, t, meta, length, *_):
    precision, scale = meta >> 8, meta & 0xFF
    typestr = b"DECIMAL(%d,%d)" % (precision, scale)
    if _null_or(out, pos, typestr):
        return typestr, 0
    out.append(decimal_to_text(data[pos:], precision, scale))
    return typestr, decimal_bin_size(precision, scale)


def _p_float(out, data, pos, t, meta, *_):
    if not _null_or(out, pos, b"FLOAT"):
        out.append(c_float(b"%-20g", _FLOAT(data, pos)[0]))
    return b"FLOAT", 4


def _p_double(out, data, pos, t, meta, *_):
    if not _null_or(out, pos, b"DOUBLE"):
        out.append(c_float(b"%-.20g", struct.unpack_from("<d", data, pos)[0]))
    return b"DOUBLE", 8


def c_float(fmt, value):
    if value != value:
        return fmt.replace(b".20g", b"s").replace(b"g", b"s") % (b"-nan" if str(value)[0] == "-" else b"nan")
    return fmt % value


def _p_bit(out, data, pos, t, meta, *_):
    nbits = (meta >> 8) * 8 + (meta & 0xFF)
    if not _null_or(out, pos, None):
        out.append(write_bits(data[pos:], nbits))
    return b"BIT(%d)" % nbits, (nbits + 7) // 8


def _p_timestamp(out, data, pos, *_):
    if not _null_or(out, pos, None):
        value = int.from_bytes(data[pos:pos + 4], "little")
        out.append(b"%d" % (value - (1 << 32) if value >= 1 << 31 else value))
    return b"TIMESTAMP", 4


def _p_timestamp2(out, data, pos, t, meta, *_):
    typestr = b"TIMESTAMP(%d)" % meta
    if _null_or(out, pos, typestr):
        return typestr, 0
    value, size = decode_value(t, meta, data, pos)
    out.append(b"%d%s" % (value.seconds, _frac(value.microsecond, meta)))
    return typestr, size


def _p_datetime(out, data, pos, *_):
    if not _null_or(out, pos, None):
        v = int.from_bytes(data[pos:pos + 8], "little")
        d, t = divmod(v, 1000000)
        out.append(b"%04d-%02d-%02d %02d:%02d:%02d" % (d // 10000, d % 10000 // 100, d % 100,
                                                       t // 10000, t % 10000 // 100, t % 100))
    return b"DATETIME", 8


def _p_datetime2(out, data, pos, t, meta, *_):
    typestr = b"DATETIME(%d)" % meta
    if _null_or(out, pos, typestr):
        return typestr, 0
    v, size = decode_value(t, meta, data, pos)
    out.append(write_quoted(b"%04d-%02d-%02d %02d:%02d:%02d%s" % (
        v.year, v.month, v.day, v.hour, v.minute, v.second, _frac(v.microsecond, meta))))
    return typestr, size


def _p_time(out, data, pos, *_):
    if not _null_or(out, pos, None):
        v = int.from_bytes(data[pos:pos + 3], "little")
        out.append(b"'%02d:%02d:%02d'" % (v // 10000, v % 10000 // 100, v % 100))
    return b"TIME", 3


def _p_time2(out, data, pos, t, meta, *_):
    typestr = b"TIME(%d)" % meta
    if _null_or(out, pos, typestr):
        return typestr, 0
    v, size = decode_value(t, meta, data, pos)
    out.append(write_quoted(b"%s%02d:%02d:%02d%s" % (
        b"-" if v.negative else b"", v.hours, v.minute, v.second, _frac(v.microsecond, meta))))
    return typestr, size


def _p_date(out, data, pos, *_):
    if not _null_or(out, pos, None):
        v = int.from_bytes(data[pos:pos + 3], "little")
        year = v >> 9
        text = bytes((48 + year // 1000, 48 + year // 100 % 10, 48 + year // 10 % 10, 48 + year % 10))
        out.append(b"'%s:%02d:%02d'" % (text, (v >> 5) & 15, v & 31))
    return b"DATE", 3


def _p_year(out, data, pos, *_):
    if not _null_or(out, pos, None):
        out.append(b"%04d" % (data[pos] + 1900))
    return b"YEAR", 1


def _p_enum(out, data, pos, t, meta, *_):
    size = meta & 0xFF
    if size not in (1, 2):
        out.append(b"!! Unknown ENUM packlen=%d" % size)
        raise StopRow()
    typestr = b"ENUM(1 byte)" if size == 1 else b"ENUM(2 bytes)"
    if not _null_or(out, pos, typestr):
        out.append(b"%d" % int.from_bytes(data[pos:pos + size], "little"))
    return typestr, size


def _p_set(out, data, pos, t, meta, *_):
    size = meta & 0xFF
    if not _null_or(out, pos, None):
        out.append(write_bits(data[pos:], size * 8))
    return b"SET(%d bytes)" % size, size


def _p_blob(out, data, pos, t, meta, *_):
    typestr = BLOB_NAMES.get(meta)
    if typestr is None:
        out.append(b"!! Unknown BLOB packlen=0")
        raise StopRow()
    if _null_or(out, pos, typestr):
        return typestr, 0
    n = int.from_bytes(data[pos:pos + meta], "little")
    out.append(write_quoted(data[pos + meta:pos + meta + n]))
    return typestr, meta + n


def _quoted_with_length(out, data, pos, length):
    if length < 256:
        n, head = data[pos], 1
    else:
        n, head = int.from_bytes(data[pos:pos + 2], "little"), 2
    out.append(write_quoted(data[pos + head:pos + head + n]))
    return head + n


def _p_varchar(out, data, pos, t, meta, *_):
    typestr = b"VARSTRING(%d)" % meta
    if _null_or(out, pos, typestr):
        return typestr, 0
    return typestr, _quoted_with_length(out, data, pos, meta)


def _p_string(out, data, pos, t, meta, length, *_):
    typestr = b"STRING(%d)" % length
    if _null_or(out, pos, typestr):
        return typestr, 0
    return typestr, _quoted_with_length(out, data, pos, length)


def _p_json(out, data, pos, t, meta, length, col_name, is_partial, dims, json_text):
    if _null_or(out, pos, b"JSON"):
        return b"JSON", 0
    n = int.from_bytes(data[pos:pos + 4], "little")
    value = bytes(data[pos + 4:pos + 4 + n])
    if is_partial:
        out.append(json_text.diff(value, col_name))
    else:
        out.append(json_text.column(value))
    return b"JSON", n + meta


def _p_vector(out, data, pos, t, meta, length, col_name, is_partial, dims, json_text):
    typestr = b"VECTOR(%d)" % dims
    if _null_or(out, pos, typestr):
        return typestr, 0
    n = int.from_bytes(data[pos:pos + 4], "little")
    count = n // 4
    out.append(b"[")
    for i in range(count):
        out.append(b"%.5e%s" % (_FLOAT(data, pos + 4 + 4 * i)[0], b"]" if i == count - 1 else b","))
    return typestr, n + 4


_PRINTERS = {
    R.MYSQL_TYPE_NEWDECIMAL: _p_decimal, R.MYSQL_TYPE_FLOAT: _p_float,
    R.MYSQL_TYPE_DOUBLE: _p_double, R.MYSQL_TYPE_BIT: _p_bit,
    R.MYSQL_TYPE_TIMESTAMP: _p_timestamp, R.MYSQL_TYPE_TIMESTAMP2: _p_timestamp2,
    R.MYSQL_TYPE_DATETIME: _p_datetime, R.MYSQL_TYPE_DATETIME2: _p_datetime2,
    R.MYSQL_TYPE_TIME: _p_time, R.MYSQL_TYPE_TIME2: _p_time2,
    R.MYSQL_TYPE_NEWDATE: _p_date, R.MYSQL_TYPE_YEAR: _p_year,
    R.MYSQL_TYPE_ENUM: _p_enum, R.MYSQL_TYPE_SET: _p_set, R.MYSQL_TYPE_BLOB: _p_blob,
    R.MYSQL_TYPE_VARCHAR: _p_varchar, R.MYSQL_TYPE_VAR_STRING: _p_varchar,
    R.MYSQL_TYPE_STRING: _p_string, R.MYSQL_TYPE_JSON: _p_json,
    MYSQL_TYPE_VECTOR: _p_vector,
}


class _Bits:
    """Bit_reader: one bit at a time, least significant bit of each byte first."""
    __slots__ = ("data", "index")

    def __init__(self, data):
        self.data, self.index = data, 0

    def get(self):
        i = self.index
        self.index += 1
        byte = self.data[i >> 3] if (i >> 3) < len(self.data) else 0
        return (byte >> (i & 7)) & 1


def print_one_row(out, tm, cols, width, data, pos, end, clause, verbose, partial_ai, json_text):
    """Rows_log_event::print_verbose_one_row; returns the new position.

    A plan per (table map, columns bitmap) keeps what does not change from
    row to row (types, labels, the -vv comment); partial JSON after images,
    VECTOR tables and columns whose text does not depend on the value alone
    take the column-by-column path.
    """
    compiled = _row_plan(tm, cols, width, verbose)
    if compiled is None or partial_ai:
        return _generic_one_row(out, tm, cols, width, data, pos, end, clause, verbose, partial_ai,
                                json_text)
    nset, plan = compiled
    nbytes = (nset + 7) >> 3
    nulls = int.from_bytes(data[pos:pos + nbytes], "little")
    pos += nbytes
    out.append(clause)
    append = out.append
    for n, (col_type, meta, label, comment, printer, fixed) in enumerate(plan):
        append(label)
        if (nulls >> n) & 1:
            append(b"NULL")
            if comment:
                append(comment % 1)
            append(b"\n")
            continue
        if fixed is not None:
            fsize = fixed
        else:
            fsize = field_size(col_type, meta, data, pos) if pos < end else 0
        if fsize is None or fsize > end - pos:
            append(b"***Corrupted replication event was detected: field size is set to %d, "
                   b"but there are only %d bytes left of the event. Not printing the value***\n"
                   % ((fsize if fsize is not None else 0xFFFFFFFF) & 0xFFFFFFFF, end - pos))
            raise StopRow()
        pos += printer(out, data, pos, col_type, meta, json_text)
        if comment:
            append(comment % 0)
        append(b"\n")
    return pos


def _int_printer(width):
    mask = (1 << (8 * width)) - 1

    def print_int(out, data, pos, col_type, meta, json_text):
        value = int.from_bytes(data[pos:pos + width], "little", signed=True)
        out.append(b"%d (%d)" % (value, value & mask) if value < 0 else b"%d" % value)
        return width
    return print_int


def _print_double(out, data, pos, col_type, meta, json_text):
    value = _DOUBLE(data, pos)[0]
    out.append(b"%-.20g" % value if value == value else c_float(b"%-.20g", value))
    return 8


def _print_datetime2(out, data, pos, col_type, meta, json_text):
    """DATETIME(N): my_datetime_packed_from_binary + my_datetime_to_str, quoted."""
    intpart = int.from_bytes(data[pos:pos + 5], "big") - 0x8000000000
    nfrac = (meta + 1) // 2
    if intpart < 0:         # never written by a server: the generic path keeps the sign rules
        return _p_datetime2(out, data, pos, col_type, meta)[1]
    ymd, hms = intpart >> 17, intpart & 0x1FFFF
    ym = ymd >> 5
    text = b"%04d-%02d-%02d %02d:%02d:%02d" % (ym // 13, ym % 13, ymd & 31, hms >> 12,
                                               (hms >> 6) & 63, hms & 63)
    if meta:
        frac = int.from_bytes(data[pos + 5:pos + 5 + nfrac], "big", signed=True)
        usec = frac * (10000, 100, 1)[nfrac - 1]
        text += b".%0*d" % (meta, usec // FRAC_DIV[meta])
    out.append(b"'" + text + b"'")
    return 5 + nfrac


def _value_printer(col_type, meta):
    """A printer for non-NULL values of one column (the generic print_value underneath)."""
    if col_type in INT_NAMES:
        return _int_printer(INT_NAMES[col_type][1])
    if col_type == R.MYSQL_TYPE_DOUBLE and meta == 8:
        return _print_double
    if col_type == R.MYSQL_TYPE_DATETIME2 and meta <= 6:
        return _print_datetime2
    if col_type in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING):
        head = 1 if meta < 256 else 2

        def print_varchar(out, data, pos, col_type, meta, json_text):
            n = data[pos] if head == 1 else data[pos] | (data[pos + 1] << 8)
            out.append(write_quoted(data[pos + head:pos + head + n]))
            return head + n
        return print_varchar

    def print_any(out, data, pos, col_type, meta, json_text):
        return print_value(out, data, pos, col_type, meta, b"", False, 0, json_text)[1]
    return print_any


# calc_field_size's constant sizes (FLOAT and DOUBLE: the metadata, below), from coltypes' table
_FIXED = {code: FIXED_SIZES[code] for code in (
    R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24, R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_LONGLONG,
    R.MYSQL_TYPE_YEAR, R.MYSQL_TYPE_NEWDATE, R.MYSQL_TYPE_TIME, R.MYSQL_TYPE_TIMESTAMP,
    R.MYSQL_TYPE_DATETIME)}


def _fixed_size(col_type, meta):
    """calc_field_size of a type whose size does not depend on the value, else None."""
    if col_type in _FIXED:
        return _FIXED[col_type]
    if col_type in (R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE):
        return meta
    if col_type == R.MYSQL_TYPE_DATETIME2:
        return 5 + (meta + 1) // 2
    if col_type == R.MYSQL_TYPE_TIMESTAMP2:
        return 4 + (meta + 1) // 2
    if col_type == R.MYSQL_TYPE_TIME2:
        return 3 + (meta + 1) // 2
    return None


def _row_plan(tm, cols, width, verbose):
    """(null bits, [(type, meta, '###   @N=', -vv comment or b'', printer)]) for `cols`, or None."""
    key = ("mysql-verbose", bytes(cols), width, verbose > 1)
    plans = getattr(tm, "plans", None)
    if plans is not None and key in plans:
        return plans[key]
    types, metas = tm.column_types, tm.column_meta
    present = int.from_bytes(cols, "little") & ((1 << width) - 1)
    plan = []
    for i in range(len(types)):
        col_type, meta = real_type(types[i], metas[i]), metas[i]
        if col_type == MYSQL_TYPE_VECTOR:
            plan = None
            break
        if not (present >> i) & 1:
            continue
        try:
            typestr, _ = print_value([], None, None, col_type, meta, b"", False, 0, None)
        except StopRow:         # the text of this type does not depend on the value
            plan = None
            break
        comment = b""
        if verbose > 1:
            comment = b" /* %s meta=%d nullable=%d is_null=%%d */" % (typestr, meta, tm.nullable(i))
        plan.append((col_type, meta, b"###   @%d=" % (i + 1), comment, _value_printer(col_type, meta),
                     _fixed_size(col_type, meta)))
    compiled = None if plan is None else (bin(present).count("1"), plan)
    if plans is not None:
        plans[key] = compiled
    return compiled


def _generic_one_row(out, tm, cols, width, data, pos, end, clause, verbose, partial_ai, json_text):
    """Rows_log_event::print_verbose_one_row, column by column; returns the new position."""
    types, metas = tm.column_types, tm.column_meta
    value_options = 0
    partial_bits = None
    if partial_ai:
        try:
            value_options, pos = net_field_length(data, pos)
        except IndexError:
            value_options = None
        if value_options is None:
            out.append(b"*** Error reading binlog_row_value_options from "
                       b"Partial_update_rows_log_event\n")
            raise StopRow()
        if value_options & PARTIAL_JSON_UPDATES:
            partial_bits = _Bits(data[pos:])
            pos += (sum(1 for t in types if t == R.MYSQL_TYPE_JSON) + 7) // 8
    present = int.from_bytes(cols, "little") & ((1 << width) - 1)
    nset = bin(present).count("1")
    null_bits = _Bits(data[pos:pos + (nset + 7) // 8])
    pos += (nset + 7) // 8
    out.append(clause)
    dims_iter = iter(tm_vector_dimensions(tm))
    for i in range(len(types)):
        col_type, meta = real_type(types[i], metas[i]), metas[i]
        is_partial = (partial_bits is not None and col_type == R.MYSQL_TYPE_JSON
                      and partial_bits.get())
        dims = next(dims_iter, 0) if col_type == MYSQL_TYPE_VECTOR else 0
        if not (present >> i) & 1:
            continue
        is_null = null_bits.get()
        out.append(b"###   @%d=" % (i + 1))
        if not is_null:
            fsize = field_size(col_type, meta, data, pos) if pos < end else 0
            if fsize is None or fsize > end - pos:
                out.append(b"***Corrupted replication event was detected: field size is set to %d, "
                           b"but there are only %d bytes left of the event. Not printing the value***\n"
                           % ((fsize if fsize is not None else 0xFFFFFFFF) & 0xFFFFFFFF, end - pos))
                raise StopRow()
        typestr, size = print_value(out, data, None if is_null else pos, col_type, meta,
                                    b"@%d" % (i + 1), is_partial, dims, json_text)
        if not is_null:
            pos += size
        if verbose > 1:
            out.append(b" /* %s meta=%d nullable=%d is_null=%d */" % (
                typestr, meta, tm.nullable(i), is_null))
        out.append(b"\n")
    return pos


def tm_vector_dimensions(tm):
    if MYSQL_TYPE_VECTOR not in tm.column_types:
        return ()
    return table_metadata(tm).vector_dimensionality or ()


def print_verbose(tm, body, verbose, partial, json_text):
    """Rows_log_event::print_verbose: the ### lines for one rows event (bytes)."""
    out = []
    if body.extra_data:
        _extra_row_info(out, body)
    command, clause1, clause2 = COMMANDS[body.kind]
    if tm is None:
        out.append(b"### Row event for unknown table #%d" % body.table_id)
        return b"".join(out)
    data, end = body.rows, len(body.rows)
    if body.kind == "write" and end == 0:
        out.append(b"### INSERT INTO %s VALUES ()\n" % comment_safe(b"`%s`.`%s`" % (tm.db, tm.table)))
        return b"".join(out)
    name = comment_safe(backtick(tm.db) + b"." + backtick(tm.table))
    pos = 0
    try:
        while pos < end:
            out.append(b"### %s %s\n" % (command, name))
            start = pos
            pos = print_one_row(out, tm, body.cols, body.width, data, pos, end, clause1, verbose,
                                False, json_text)
            if pos == start:
                break
            if clause2 is not None:
                start = pos
                pos = print_one_row(out, tm, body.cols_ai, body.width, data, pos, end, clause2,
                                    verbose, partial, json_text)
                if pos == start:
                    break
    except StopRow:
        pass
    return b"".join(out)


def _extra_row_info(out, body):
    """The NDB and partition lines of a rows-v2 event's extra data (print_verbose)."""
    try:
        info = parse_extra_row_info(body.extra_data, body_type(body))
    except ValueError:
        return
    if info.ndb_info is not None:
        length = info.ndb_info[0]
        if length < 2:
            out.append(b"***Error: The number of extra_row_ndb_info is smaller"
                       b" than the minimum acceptable value.\n")
            return
        data = info.ndb_data
        out.append(b"### Extra row ndb info: data_format: %d, len: %d, data: %s\n" % (
            info.ndb_format, length - 2, b"0x" + data.hex().upper().encode() if data else b'""'))
    if info.partition_id is not None:
        if body.kind == "update":
            out.append(b"### Extra row info for partitioning: source_partition: %d"
                       b" target_partition: %d\n" % (info.source_partition_id or 0, info.partition_id))
        else:
            out.append(b"### Extra row info for partitioning: partition: %d\n" % info.partition_id)


def body_type(body):
    """A type code with the right update/partial shape for parse_extra_row_info."""
    return {"write": L.WRITE_ROWS_EVENT, "delete": L.DELETE_ROWS_EVENT}.get(body.kind, L.UPDATE_ROWS_EVENT)
