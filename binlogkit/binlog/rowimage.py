"""One row image to Python values, losslessly: the reference decoder.

`decode_value(col_type, meta, data, pos)` turns the bytes of one non-NULL
column value into a Python value and says how many bytes it used;
`read_image` decodes one image, `iter_rows_reference` every row of a rows
event one value at a time, every corner of the server's format spelled out.
The compiled decoders (`rowcompile`, the C walker) are tested against it;
`rowvalues` puts them together.

Value representation (chosen so that nothing is lost, and so that the exact
mariadb-binlog text can be produced back from the value plus the column's
type and metadata):

  TINY/SHORT/INT24/LONG/LONGLONG   int, signed two's-complement reading
                                   (the unsigned reading is ``v & mask``)
  NEWDECIMAL                       decimal.Decimal with exactly `scale` digits
  FLOAT / DOUBLE                   float (FLOAT widened exactly to double)
  BIT                              Bits(value, width): big-endian int of the
                                   stored bytes and the declared bit width
  YEAR                             int: 1900 + stored byte, or 0 for YEAR 0
  DATE / NEWDATE                   Date(year, month, day), zero parts kept
  DATETIME / DATETIME2             DateTime(year, month, day, hour, minute,
                                   second, microsecond, fsp)
  TIME / TIME2                     Time(negative, hours, minute, second,
                                   microsecond, fsp); hours may exceed 23
  TIMESTAMP / TIMESTAMP2           Timestamp(seconds, microsecond, fsp)
  ENUM                             int (1-based index, 0 = '')
  SET                              int (bit i = member i)
  CHAR/VARCHAR/BLOB/TEXT/GEOMETRY/JSON   bytes, as stored (no charset decoding)
  VECTOR                           bytes, as stored (float32 little-endian)
  JSON diffs (PARTIAL_UPDATE_ROWS) json_binary.PartialJson

NULL is None; a column absent from the image (not in the columns bitmap) is
`ABSENT`.  Date/time tuples offer ``to_python()`` giving a `datetime` object,
or None for zero or otherwise invalid values.
"""
import struct

from binlogkit._record import tuple_record

from binlogkit.binlog import rows as R
from binlogkit.binlog.coltypes import FIXED_SIZES
from binlogkit.binlog.decimal import decimal_bin_size, decimal_to_text
from binlogkit.errors import CorruptRowError, UnsupportedTypeError

__all__ = [
    "ABSENT", "Bits", "Date", "DateTime", "Time", "Timestamp", "CorruptRowError",
    "UnsupportedTypeError", "resolve_type", "string_length", "decode_value",
    "read_image", "iter_rows_reference",
]


class _Absent:
    __slots__ = ()

    def __repr__(self):
        return "ABSENT"

    def __bool__(self):
        return False


ABSENT = _Absent()


class Bits(tuple_record("Bits", "value width")):
    __slots__ = ()

    def __str__(self):
        return format(self.value & ((1 << self.width) - 1), "0%db" % self.width) if self.width else ""


class Date(tuple_record("Date", "year month day")):
    __slots__ = ()

    def to_python(self):
        import datetime as _dt      # here: the printer's start-up does not need it
        try:
            return _dt.date(self.year, self.month, self.day)
        except ValueError:
            return None


class DateTime(tuple_record("DateTime", "year month day hour minute second microsecond fsp",
                            defaults=(0, 0))):
    __slots__ = ()

    def to_python(self):
        import datetime as _dt
        try:
            return _dt.datetime(self.year, self.month, self.day, self.hour, self.minute,
                                self.second, self.microsecond)
        except ValueError:
            return None


class Time(tuple_record("Time", "negative hours minute second microsecond fsp", defaults=(0, 0))):
    __slots__ = ()

    def to_python(self):
        import datetime as _dt
        delta = _dt.timedelta(hours=self.hours, minutes=self.minute, seconds=self.second,
                              microseconds=self.microsecond)
        return -delta if self.negative else delta


class Timestamp(tuple_record("Timestamp", "seconds microsecond fsp", defaults=(0, 0))):
    __slots__ = ()

    def to_python(self, tz=None):
        """An aware datetime in `tz` (default UTC)."""
        import datetime as _dt
        if not self.seconds and not self.microsecond:
            return None      # the zero TIMESTAMP '0000-00-00 00:00:00'
        if tz is None:
            tz = _dt.timezone.utc
        return (_dt.datetime.fromtimestamp(self.seconds, tz)
                + _dt.timedelta(microseconds=self.microsecond))


# -- type and metadata resolution (table_def::type) -----------------------------

def resolve_type(col_type, meta):
    """The real column type behind a TABLE_MAP type code, and its length.

    STRING columns may really be ENUM or SET (the real type is in the high
    metadata byte), and a long CHAR has two length bits hidden there too.
    Returns ``(real_type, length)``; `length` is the CHAR length for STRING,
    the VARCHAR maximum for VARCHAR, else 0.
    """
    if col_type == R.MYSQL_TYPE_STRING:
        if meta >= 256:
            byte0, byte1 = meta >> 8, meta & 0xFF
            if byte0 in (R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET):
                return byte0, byte1
            if (byte0 & 0x30) != 0x30:
                return byte0 | 0x30, byte1 | (((byte0 & 0x30) ^ 0x30) << 4)
            return col_type, byte1
        return col_type, meta
    if col_type == R.MYSQL_TYPE_DATE:
        return R.MYSQL_TYPE_NEWDATE, 0
    if col_type in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING):
        return col_type, meta
    return col_type, 0


def string_length(col_type, meta):
    return resolve_type(col_type, meta)[1]


# -- single values ----------------------------------------------------------------

_S8 = struct.Struct("<q").unpack_from
_FLT = struct.Struct("<f").unpack_from
_DBL = struct.Struct("<d").unpack_from
_INT_SIZES = {code: FIXED_SIZES[code] for code in (
    R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24, R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_LONGLONG)}
_BLOB_TYPES = frozenset({R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_TINY_BLOB, R.MYSQL_TYPE_MEDIUM_BLOB,
                         R.MYSQL_TYPE_LONG_BLOB, R.MYSQL_TYPE_JSON, R.MYSQL_TYPE_VECTOR})
_FRAC_SCALE = (1, 100000, 10000, 1000, 100, 10, 1)


def _need(data, pos, size):
    if pos + size > len(data):
        raise CorruptRowError("value truncated")


def _sbe(data, pos, size):
    return int.from_bytes(data[pos:pos + size], "big", signed=True)


def _ube(data, pos, size):
    return int.from_bytes(data[pos:pos + size], "big")


def _frac_bytes(fsp):
    return (fsp + 1) // 2


def _datetime2(data, pos, fsp):
    """my_datetime_packed_from_binary + TIME_from_longlong_datetime_packed."""
    intpart = _ube(data, pos, 5) - 0x8000000000
    nfrac = _frac_bytes(fsp)
    frac = 0
    if nfrac == 1:
        frac = _sbe(data, pos + 5, 1) * 10000
    elif nfrac == 2:
        frac = _sbe(data, pos + 5, 2) * 100
    elif nfrac == 3:
        frac = _sbe(data, pos + 5, 3)
    packed = (intpart << 24) + frac
    if packed < 0:          # never written by a server; keep the magnitude
        packed = -packed
    usec = packed % (1 << 24)
    ymdhms = packed >> 24
    ymd, hms = ymdhms >> 17, ymdhms % (1 << 17)
    ym = ymd >> 5
    return DateTime(ym // 13, ym % 13, ymd % 32, hms >> 12, (hms >> 6) % 64, hms % 64,
                    usec, fsp), 5 + nfrac


def _time2(data, pos, fsp):
    """my_time_packed_from_binary + TIME_from_longlong_time_packed."""
    nfrac = _frac_bytes(fsp)
    if nfrac == 3:
        packed = _ube(data, pos, 6) - 0x800000000000
    else:
        intpart = _ube(data, pos, 3) - 0x800000
        frac = 0
        if nfrac == 1:
            frac = data[pos + 3]
            if intpart < 0 and frac:
                intpart += 1
                frac -= 0x100
            frac *= 10000
        elif nfrac == 2:
            frac = _ube(data, pos + 3, 2)
            if intpart < 0 and frac:
                intpart += 1
                frac -= 0x10000
            frac *= 100
        packed = (intpart << 24) + frac
    negative = packed < 0
    if negative:
        packed = -packed
    hms = packed >> 24
    return Time(negative, (hms >> 12) % 1024, (hms >> 6) % 64, hms % 64,
                packed % (1 << 24), fsp), 3 + nfrac


def _timestamp2(data, pos, fsp):
    nfrac = _frac_bytes(fsp)
    usec = 0
    if nfrac == 1:
        usec = data[pos + 4] * 10000
    elif nfrac == 2:
        usec = _sbe(data, pos + 4, 2) * 100
    elif nfrac == 3:
        usec = _sbe(data, pos + 4, 3)
    return Timestamp(_ube(data, pos, 4), usec, fsp), 4 + nfrac


def decode_value(col_type, meta, data, pos=0):
    """Decode the non-NULL value at data[pos]; returns ``(value, size)``.

    `col_type` and `meta` are the TABLE_MAP column type and the metadata int
    as `rows.parse_column_metadata` computes it.  Raises CorruptRowError when
    the value runs past the end of `data`, UnsupportedTypeError for a type
    that has no defined decoding.
    """
    real, length = resolve_type(col_type, meta)
    size = _INT_SIZES.get(real)
    if size is not None:
        _need(data, pos, size)
        return int.from_bytes(data[pos:pos + size], "little", signed=True), size
    if real == R.MYSQL_TYPE_NEWDECIMAL:
        precision, scale = meta >> 8, meta & 0xFF
        size = decimal_bin_size(precision, scale)
        if not size:        # DECIMAL(0,0): the real tool stops printing the event there
            raise UnsupportedTypeError(col_type, meta)
        _need(data, pos, size)
        from decimal import Decimal     # here: the printer's start-up does not need it
        return Decimal(decimal_to_text(data[pos:pos + size], precision, scale).decode()), size
    if real == R.MYSQL_TYPE_FLOAT:
        _need(data, pos, 4)
        return _FLT(data, pos)[0], 4
    if real == R.MYSQL_TYPE_DOUBLE:
        _need(data, pos, 8)
        return _DBL(data, pos)[0], 8
    if real in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_STRING):
        if length < 256:
            _need(data, pos, 1)
            n, head = data[pos], 1
        else:
            _need(data, pos, 2)
            n, head = data[pos] | (data[pos + 1] << 8), 2
        _need(data, pos, head + n)
        return bytes(data[pos + head:pos + head + n]), head + n
    if real in _BLOB_TYPES or real == R.MYSQL_TYPE_GEOMETRY:
        if not 1 <= meta <= 4:
            raise UnsupportedTypeError(col_type, meta)
        _need(data, pos, meta)
        n = int.from_bytes(data[pos:pos + meta], "little")
        _need(data, pos, meta + n)
        return bytes(data[pos + meta:pos + meta + n]), meta + n
    if real == R.MYSQL_TYPE_BIT:
        nbits = (meta >> 8) * 8 + (meta & 0xFF)
        size = (nbits + 7) // 8
        _need(data, pos, size)
        return Bits(_ube(data, pos, size), nbits), size
    if real in (R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET):
        size = meta & 0xFF
        if real == R.MYSQL_TYPE_ENUM and size not in (1, 2):
            raise UnsupportedTypeError(col_type, meta)
        _need(data, pos, size)
        return int.from_bytes(data[pos:pos + size], "little"), size
    if real == R.MYSQL_TYPE_YEAR:
        _need(data, pos, 1)
        return (1900 + data[pos]) if data[pos] else 0, 1
    if real == R.MYSQL_TYPE_NEWDATE:
        _need(data, pos, 3)
        v = int.from_bytes(data[pos:pos + 3], "little")
        return Date(v >> 9, (v >> 5) & 15, v & 31), 3
    if real == R.MYSQL_TYPE_TIME:
        _need(data, pos, 3)
        v = int.from_bytes(data[pos:pos + 3], "little", signed=True)
        a = -v if v < 0 else v
        return Time(v < 0, a // 10000, a % 10000 // 100, a % 100, 0, 0), 3
    if real == R.MYSQL_TYPE_DATETIME:
        _need(data, pos, 8)
        v = int.from_bytes(data[pos:pos + 8], "little")
        d, t = divmod(v, 1000000)
        return DateTime(d // 10000, d % 10000 // 100, d % 100,
                        t // 10000, t % 10000 // 100, t % 100, 0, 0), 8
    if real == R.MYSQL_TYPE_TIMESTAMP:
        _need(data, pos, 4)
        return Timestamp(int.from_bytes(data[pos:pos + 4], "little"), 0, 0), 4
    if real in (R.MYSQL_TYPE_DATETIME2, R.MYSQL_TYPE_TIME2, R.MYSQL_TYPE_TIMESTAMP2) and meta > 6:
        raise UnsupportedTypeError(col_type, meta)      # no such precision
    if real == R.MYSQL_TYPE_DATETIME2:
        _need(data, pos, 5 + _frac_bytes(meta))
        return _datetime2(data, pos, meta)
    if real == R.MYSQL_TYPE_TIME2:
        _need(data, pos, 3 + _frac_bytes(meta))
        return _time2(data, pos, meta)
    if real == R.MYSQL_TYPE_TIMESTAMP2:
        _need(data, pos, 4 + _frac_bytes(meta))
        return _timestamp2(data, pos, meta)
    if real == R.MYSQL_TYPE_NULL:
        return None, 0
    raise UnsupportedTypeError(col_type, meta)


# -- row images -----------------------------------------------------------------------

def _present(bitmap, width, ncols):
    return [i for i in range(min(width, ncols, len(bitmap) * 8))
            if (bitmap[i // 8] >> (i % 8)) & 1]


def read_image(table_map, cols, width, data, pos, end=None):
    """Decode one row image at data[pos]; returns ``(values, new_pos)``.

    `values` has one entry per table column: a value, None (NULL) or ABSENT.
    Like the server, the null bitmap has one bit per column set in `cols`
    (all `width` bits of it), and a value is checked against `end` with the
    table's field size before it is read.
    """
    if end is None:
        end = len(data)
    ncols = table_map.column_count
    types, metas = table_map.column_types, table_map.column_meta
    nset = bin(int.from_bytes(cols[:(width + 7) // 8], "little") & ((1 << width) - 1)).count("1")
    null_bits = data[pos:pos + (nset + 7) // 8]
    pos += (nset + 7) // 8
    values = [ABSENT] * ncols
    for n, col in enumerate(_present(cols, width, ncols)):
        if n // 8 < len(null_bits) and (null_bits[n // 8] >> (n % 8)) & 1:
            values[col] = None
            continue
        if pos >= end:
            raise CorruptRowError("row image truncated", values, col)
        fsize = R.field_size(types[col], metas[col], data, pos)
        if fsize is None or pos + fsize > end:
            raise CorruptRowError("value runs past the end of the event", values, col)
        value, size = decode_value(types[col], metas[col], data, pos)
        values[col] = value
        pos += size
    return values, pos


def iter_rows_reference(table_map, rows_body):
    """Yield ``(before, after)`` per row with the reference decoder only.

    write -> (None, after), delete -> (before, None), update -> (before, after).
    Raises CorruptRowError at the first image that cannot be walked.
    """
    data = rows_body.rows
    end = len(data)
    pos = 0
    kind, width = rows_body.kind, rows_body.width
    while pos < end:
        row_start = pos
        first, pos = read_image(table_map, rows_body.cols, width, data, pos, end)
        if kind == "update":
            second, pos = read_image(table_map, rows_body.cols_ai, width, data, pos, end)
            _check_progress(row_start, pos, second)
            yield first, second
            continue
        _check_progress(row_start, pos, first)
        yield (None, first) if kind == "write" else (first, None)


def _check_progress(row_start, pos, values):
    """A row that takes no bytes would be read forever: the event is corrupt."""
    if pos <= row_start:
        raise CorruptRowError("row image of no bytes", values)
