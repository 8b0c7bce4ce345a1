"""The text mariadb-binlog's log_event_print_value writes for one value (-v / -vv).

`type_string` is the typestr of the -vv comment, `format_value` the value
text; both the reference printer (rows_verbose.py) and the compiled one
(rows_fast.py) use them.
"""
import math

from binlogkit.binlog import rows as R
from binlogkit.binlog.rowimage import resolve_type
from binlogkit.errors import UnsupportedTypeError
from binlogkit.printer.rowtext import BLOB_NAMES, FRAC_DIV, INT_NAMES

_FSP_TYPES = frozenset({R.MYSQL_TYPE_TIME2, R.MYSQL_TYPE_DATETIME2, R.MYSQL_TYPE_TIMESTAMP2})

# my_b_write_quoted: bytes < 0x20 become \xNN; everything else (', \ and
# bytes >= 0x80 included) is copied as is.
_QUOTE_TABLE = {i: b"\\x%02x" % i for i in range(0x20)}


def quote_bytes(data):
    if any(b < 0x20 for b in data):
        data = b"".join(_QUOTE_TABLE.get(b) or bytes((b,)) for b in data)
    return b"'" + data + b"'"


# MariaDB's compressed columns: log_event_print_value prints the stored bytes (the compression
# header byte, then raw or zlib data) as it prints a VARCHAR / BLOB of the same metadata
STORED_AS = {R.MYSQL_TYPE_VARCHAR_COMPRESSED: R.MYSQL_TYPE_VARCHAR,
             R.MYSQL_TYPE_BLOB_COMPRESSED: R.MYSQL_TYPE_BLOB}


def type_string(col_type, meta):
    """The typestr log_event_print_value fills in (the -vv comment's first word)."""
    if col_type == R.MYSQL_TYPE_VARCHAR_COMPRESSED:
        return b"VARSTRING(%d) COMPRESSED" % meta
    if col_type == R.MYSQL_TYPE_BLOB_COMPRESSED:
        name = BLOB_NAMES.get(meta)
        return name + b" COMPRESSED" if name else None
    real, length = resolve_type(col_type, meta)
    name = INT_NAMES.get(real)
    if name is not None:
        return name[0]
    if real == R.MYSQL_TYPE_NEWDECIMAL:
        return b"DECIMAL(%d,%d)" % (meta >> 8, meta & 0xFF)
    if real == R.MYSQL_TYPE_FLOAT:
        return b"FLOAT"
    if real == R.MYSQL_TYPE_DOUBLE:
        return b"DOUBLE"
    if real == R.MYSQL_TYPE_BIT:
        return b"BIT(%d)" % ((meta >> 8) * 8 + (meta & 0xFF))
    if real == R.MYSQL_TYPE_TIMESTAMP:
        return b"TIMESTAMP"
    if real in _FSP_TYPES and meta > 6:
        return None         # no such precision: a corrupt table map
    if real == R.MYSQL_TYPE_TIMESTAMP2:
        return b"TIMESTAMP(%d)" % meta
    if real == R.MYSQL_TYPE_DATETIME:
        return b"DATETIME"
    if real == R.MYSQL_TYPE_DATETIME2:
        return b"DATETIME(%d)" % meta
    if real == R.MYSQL_TYPE_TIME:
        return b"TIME"
    if real == R.MYSQL_TYPE_TIME2:
        return b"TIME(%d)" % meta
    if real in (R.MYSQL_TYPE_NEWDATE, R.MYSQL_TYPE_DATE):
        return b"DATE"
    if real == R.MYSQL_TYPE_YEAR:
        return b"YEAR"
    if real == R.MYSQL_TYPE_ENUM:
        n = meta & 0xFF
        return {1: b"ENUM(1 byte)", 2: b"ENUM(2 bytes)"}.get(n)
    if real == R.MYSQL_TYPE_SET:
        return b"SET(%d bytes)" % (meta & 0xFF)
    if real == R.MYSQL_TYPE_BLOB:
        return BLOB_NAMES.get(meta)
    if real in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING):
        return b"VARSTRING(%d)" % length
    if real == R.MYSQL_TYPE_STRING:
        return b"STRING(%d)" % length
    if real == R.MYSQL_TYPE_GEOMETRY:
        return b"GEOMETRY"
    return None


def _c_float(fmt, value):
    """printf %g family as glibc does it (Python's matches except NaN's sign)."""
    if math.isnan(value):
        text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
        return (fmt.replace(".20g", "s").replace("g", "s") % text).encode()
    return (fmt % value).encode()


def _frac(microsecond, fsp):
    if not fsp:
        return b""
    return b".%0*d" % (fsp, microsecond // FRAC_DIV[fsp])


def format_value(col_type, meta, value):
    """The text log_event_print_value writes for a non-NULL decoded value."""
    real, _ = resolve_type(col_type, meta)
    name = INT_NAMES.get(real)
    if name is not None:
        if value < 0:
            return b"%d (%d)" % (value, value & ((1 << 8 * name[1]) - 1))
        return b"%d" % value
    if real == R.MYSQL_TYPE_NEWDECIMAL:
        return format(value, "f").encode()
    if real == R.MYSQL_TYPE_FLOAT:
        return _c_float("%-20g", value)
    if real == R.MYSQL_TYPE_DOUBLE:
        return _c_float("%-.20g", value)
    if real in (R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING,
                R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_GEOMETRY):
        return quote_bytes(value)
    if real == R.MYSQL_TYPE_BIT:
        return b"b'%s'" % str(value).encode()
    if real == R.MYSQL_TYPE_SET:
        n = meta & 0xFF
        bits = int.from_bytes(value.to_bytes(n, "little"), "big")
        return b"b'%s'" % (format(bits, "0%db" % (n * 8)).encode() if n else b"")
    if real == R.MYSQL_TYPE_ENUM:
        return b"%d" % value
    if real == R.MYSQL_TYPE_YEAR:
        return b"%04d" % (value or 1900)
    if real == R.MYSQL_TYPE_NEWDATE:
        if col_type == R.MYSQL_TYPE_NEWDATE and value.year > 9999:
            # the NEWDATE case writes digits as '0' + n: the thousands may not be a digit
            return b"'%c%03d:%02d:%02d'" % (48 + value.year // 1000, value.year % 1000,
                                            value.month, value.day)
        return b"'%04d:%02d:%02d'" % (value.year, value.month, value.day)
    if real == R.MYSQL_TYPE_TIME:
        return b"'%s%02d:%02d:%02d'" % (b"-" if value.negative else b"", value.hours,
                                        value.minute, value.second)
    if real == R.MYSQL_TYPE_TIME2:
        return b"'%s%02d:%02d:%02d%s'" % (b"-" if value.negative else b"", value.hours,
                                          value.minute, value.second,
                                          _frac(value.microsecond, meta))
    if real == R.MYSQL_TYPE_DATETIME:
        return b"'%04d-%02d-%02d %02d:%02d:%02d'" % value[:6]
    if real == R.MYSQL_TYPE_DATETIME2:
        return b"'%04d-%02d-%02d %02d:%02d:%02d%s'" % (*value[:6], _frac(value.microsecond, meta))
    if real == R.MYSQL_TYPE_TIMESTAMP:
        seconds = value.seconds
        return b"%d" % (seconds - (1 << 32) if seconds >= 1 << 31 else seconds)
    if real == R.MYSQL_TYPE_TIMESTAMP2:
        return b"%d%s" % (value.seconds, _frac(value.microsecond, meta))
    raise UnsupportedTypeError(col_type, meta)
