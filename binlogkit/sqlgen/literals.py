"""Row values as SQL literals the server reads back to the same value, and quoted names.

Nothing a log holds can become live SQL: names are always in backquotes (a backquote
doubled), strings are either plain `'...'` text (printable, no backslash: the same in
every sql_mode) or hexadecimal (`X'..'`), with a character-set introducer when the
column's charset is known (`_latin1 X'e9'`, `_utf8mb4'café'`).  The session settings
the literals rely on (time_zone '+00:00', sql_mode without strictness and
NO_AUTO_VALUE_ON_ZERO, utf8mb4 names) are written once at the top (`PREAMBLE`).

Per type (values as binlog/rowimage.py decodes them):
  integers      decimal, the unsigned reading when the column is UNSIGNED
  DECIMAL       its exact text;  FLOAT/DOUBLE  the shortest round-trip text with an
                exponent (a DOUBLE literal: a FLOAT value is its exact widened double)
  BIT           b'0101' with the column's width;  YEAR  a number (0 is YEAR 0000)
  DATE/DATETIME/TIME  quoted text with the column's fraction digits
  TIMESTAMP     UTC text (time_zone is '+00:00'); the zero timestamp as zeros
  ENUM/SET      the member text when known and plain ASCII ('b', 'x,z'), else the member
                number / bit mask (exact whatever the member strings)
  strings       as above; BINARY(n) padded to n bytes (the stored value)
  JSON (MySQL)  CAST(text AS JSON), or JSON_OBJECT/JSON_ARRAY with typed members
                where text cannot say the type (DECIMAL, temporal, opaque values)
  GEOMETRY, VECTOR, MariaDB INET6/UUID   the stored bytes in hexadecimal
"""
import math

from binlogkit.binlog import coltypes as C
from binlogkit.binlog.json_binary import JsonOpaque, JsonTemporal, PartialJson, parse_json
from binlogkit.binlog.rowimage import Bits, Date, DateTime, Time, Timestamp, resolve_type

__all__ = ["quote_name", "show_name", "literal", "resolved_literal", "PREAMBLE", "POSTAMBLE",
           "partial_json_expr", "LiteralError"]

PREAMBLE = ("SET NAMES utf8mb4;\n"
            "SET @binlogkit_sql_mode = @@SESSION.sql_mode, @binlogkit_time_zone = "
            "@@SESSION.time_zone;\n"
            "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO', SESSION time_zone = '+00:00';\n")
POSTAMBLE = ("SET SESSION sql_mode = @binlogkit_sql_mode, "
             "SESSION time_zone = @binlogkit_time_zone;\n")


class LiteralError(ValueError):
    """A value no literal can give back (NaN in a FLOAT column, an undecodable type)."""


def quote_name(name):
    """`name` with backquotes doubled: an identifier, never SQL."""
    return "`" + name.replace("`", "``") + "`"


def show_name(name):
    """A quoted name for a message line: line breaks escaped, so it stays one line."""
    return quote_name(name).replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


_INT_BYTES = {C.MYSQL_TYPE_TINY: 1, C.MYSQL_TYPE_SHORT: 2, C.MYSQL_TYPE_INT24: 3,
              C.MYSQL_TYPE_LONG: 4, C.MYSQL_TYPE_LONGLONG: 8}
_ASCII_SAFE = frozenset(range(0x20, 0x7F)) - {0x5C}     # printable ASCII but backslash
_ASCII_CHARSETS = frozenset({
    "latin1", "latin2", "latin5", "latin7", "ascii", "utf8mb3", "utf8mb4", "utf8", "cp1250",
    "cp1251", "cp1256", "cp1257", "cp850", "cp852", "cp866", "dec8", "hp8", "koi8r", "koi8u",
    "greek", "hebrew", "armscii8", "geostd8", "keybcs2", "macce", "macroman", "tis620",
    "euckr", "gb2312", "gbk", "gb18030", "big5", "sjis", "cp932", "ujis", "eucjpms", "binary"})


def _hex(data):
    return "X'" + data.hex() + "'"


def string_literal(data, charset):
    """A string value: readable where that is safe, else hexadecimal; introduced by its
    character set when known."""
    if charset is None or charset == "binary":
        if data and all(b in _ASCII_SAFE for b in data):
            return "'" + data.decode("ascii").replace("'", "''") + "'"
        return _hex(data) if data else "''"
    if not data:
        return "_" + charset + "''"
    if charset in _ASCII_CHARSETS and all(b in _ASCII_SAFE for b in data):
        return "_" + charset + "'" + data.decode("ascii").replace("'", "''") + "'"
    if charset in ("utf8mb4", "utf8mb3", "utf8"):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and text.isprintable() and "\\" not in text \
                and not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
            return "_" + charset + "'" + text.replace("'", "''") + "'"
    return "_" + charset + " " + _hex(data)


def _float_literal(value):
    if math.isnan(value) or math.isinf(value):
        raise LiteralError(f"{value!r} cannot be stored in a FLOAT or DOUBLE column")
    text = repr(value)
    if "e" not in text:
        text += "E0"            # a DOUBLE literal, not a DECIMAL one
    return text


def _frac(usec, fsp):
    if not fsp:
        return ""
    return "." + ("%06d" % usec)[:fsp]


def _datetime_text(v):
    return "%04d-%02d-%02d %02d:%02d:%02d%s" % (v.year, v.month, v.day, v.hour, v.minute,
                                                v.second, _frac(v.microsecond, v.fsp))


def _timestamp_text(v):
    if not v.seconds and not v.microsecond:
        return "0000-00-00 00:00:00" + _frac(0, v.fsp)
    days, rest = divmod(v.seconds, 86400)
    import datetime as _dt
    day = _dt.date(1970, 1, 1) + _dt.timedelta(days=days)
    return "%04d-%02d-%02d %02d:%02d:%02d%s" % (day.year, day.month, day.day, rest // 3600,
                                                rest // 60 % 60, rest % 60,
                                                _frac(v.microsecond, v.fsp))


def _time_text(v):
    return "%s%02d:%02d:%02d%s" % ("-" if v.negative else "", v.hours, v.minute, v.second,
                                   _frac(v.microsecond, v.fsp))


def literal(value, col_type, meta, column):
    """The SQL literal of one value of a column (`column`: a schema.ColumnDesc)."""
    if value is None:
        return "NULL"
    real, length = resolve_type(col_type, meta)
    return resolved_literal(value, real, length, column)


def resolved_literal(value, real, length, column):
    """`literal` for a column whose real type and length (rowimage.resolve_type) are known."""
    if value is None:
        return "NULL"
    size = _INT_BYTES.get(real)
    if size is not None:
        if column.unsigned and value < 0:
            value += 1 << (8 * size)
        return str(value)
    if isinstance(value, Bits):
        return "b'" + (format(value.value, "0%db" % value.width) if value.width else "0") + "'"
    if real == C.MYSQL_TYPE_NEWDECIMAL:
        return format(value, "f")
    if real in (C.MYSQL_TYPE_FLOAT, C.MYSQL_TYPE_DOUBLE):
        return _float_literal(value)
    if real == C.MYSQL_TYPE_YEAR:
        return str(value)
    if isinstance(value, Date):
        return "'%04d-%02d-%02d'" % value
    if isinstance(value, DateTime):
        return "'" + _datetime_text(value) + "'"
    if isinstance(value, Timestamp):
        return "'" + _timestamp_text(value) + "'"
    if isinstance(value, Time):
        return "'" + _time_text(value) + "'"
    if real in (C.MYSQL_TYPE_ENUM, C.MYSQL_TYPE_SET):
        return _member_literal(value, real, column)
    if real == C.MYSQL_TYPE_JSON:
        if isinstance(value, PartialJson):
            raise LiteralError("a partial JSON update is not a value")
        return json_expr(parse_json(value))
    if real in (C.MYSQL_TYPE_GEOMETRY, C.MYSQL_TYPE_VECTOR):
        return _hex(value) if value else "''"
    if isinstance(value, bytes):
        charset = column.charset
        if real == C.MYSQL_TYPE_STRING and charset == "binary" and len(value) < length:
            value = value + b"\0" * (length - len(value))      # BINARY(n) as stored
        return string_literal(value, charset)
    raise LiteralError(f"no literal for a value of type {real}")


def _member_literal(value, real, column):
    """ENUM/SET: the member text when the log or schema gives the members and their text
    is plain ASCII (with the column's introducer), else the member number / bit mask."""
    members = column.enum_values if real == C.MYSQL_TYPE_ENUM else column.set_values
    charset = column.charset
    if not members or charset is None or charset not in _ASCII_CHARSETS:
        return str(value)
    if real == C.MYSQL_TYPE_ENUM:
        chosen = [members[value - 1]] if 0 < value <= len(members) else None
    else:
        chosen = [m for i, m in enumerate(members) if value >> i & 1]
        if value >> len(members):
            chosen = None
    if chosen is None or not all(b in _ASCII_SAFE for m in chosen for b in m):
        return str(value)
    return string_literal(b",".join(chosen), charset)


# -- JSON --------------------------------------------------------------------------------

def _plain(value):
    """True when JSON text says everything about the value (no DECIMAL, temporal, opaque)."""
    if isinstance(value, dict):
        return all(_plain(v) for v in value.values())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _json_text(value):
    import json
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _utf8(text):
    return string_literal(text.encode("utf-8", "surrogateescape"), "utf8mb4")


def json_expr(value):
    """An SQL expression of type JSON that is the document `value` (parse_json's)."""
    if _plain(value):
        return "CAST(" + _utf8(_json_text(value)) + " AS JSON)"
    return _json_member(value)


def _json_member(value):
    from decimal import Decimal
    if isinstance(value, dict):
        return "JSON_OBJECT(" + ", ".join(_utf8(k) + ", " + _json_member(v)
                                          for k, v in value.items()) + ")"
    if isinstance(value, list):
        return "JSON_ARRAY(" + ", ".join(_json_member(v) for v in value) + ")"
    if isinstance(value, Decimal):
        digits = len(value.as_tuple().digits)
        scale = max(0, -value.as_tuple().exponent)
        return "CAST('%s' AS DECIMAL(%d,%d))" % (format(value, "f"), max(digits, scale, 1), scale)
    if isinstance(value, JsonTemporal):
        return _json_temporal(value)
    if isinstance(value, JsonOpaque):
        return "CAST(" + _hex(value.data) + " AS JSON)"
    return "CAST(" + _utf8(_json_text(value)) + " AS JSON)"


def _json_temporal(v):
    frac = ".%06d" % v.microsecond
    if v.field_type == 10:
        return "CAST('%04d-%02d-%02d' AS DATE)" % (v.year, v.month, v.day)
    if v.field_type == 11:
        return "CAST('%s%02d:%02d:%02d%s' AS TIME(6))" % ("-" if v.negative else "", v.hour,
                                                           v.minute, v.second, frac)
    return "CAST('%04d-%02d-%02d %02d:%02d:%02d%s' AS DATETIME(6))" % (
        v.year, v.month, v.day, v.hour, v.minute, v.second, frac)


_DIFF_FUNCTIONS = {"JSON_REPLACE", "JSON_INSERT", "JSON_ARRAY_INSERT", "JSON_REMOVE"}


def partial_json_expr(column_sql, partial):
    """`column` with a partial JSON update's diffs applied, as nested JSON functions."""
    expr = column_sql
    for diff in partial.diffs:
        name = diff.function_name
        path = _utf8(diff.path.decode("utf-8", "surrogateescape"))
        if name == "JSON_REMOVE":
            expr = f"JSON_REMOVE({expr}, {path})"
        else:
            expr = f"{name}({expr}, {path}, {json_expr(diff.value)})"
    return expr
