"""JSON column text as mysqlbinlog 8.0 -v prints it.

`column(data)` is json_wrapper_to_string(..., json_type=true) for a JSON
column value; `diff(data, col_name)` is print_json_diff (sql/log_event.cc)
for a PARTIAL_UPDATE_ROWS after image: JSON_REPLACE / JSON_INSERT /
JSON_ARRAY_INSERT / JSON_REMOVE calls, consecutive diffs of one kind sharing
one call.  Parsing and the Json_wrapper::to_string text come from
binlogkit.binlog.json_binary; the Json_wrapper::to_string text is here.

`json_to_text(value, json_quoted)` prints a value the way Json_wrapper::
to_string does (sql-common/json_dom.cc wrapper_to_string, pretty=false),
which is what `mysqlbinlog -v` shows for a JSON column (json_quoted=False at
the top: a string document prints without double quotes; nested values are
always quoted).  Doubles follow my_gcvt(MY_GCVT_MAX_FIELD_WIDTH) plus the
".0" rule, dates print with 6 fractional digits, other opaque values as
"base64:typeN:..." with MySQL's 76-column base64 lines.
"""
import sys

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import net_field_length
from binlogkit.binlog.json_binary import (
    MAX_DEPTH, MYSQL_TYPE_DATE, MYSQL_TYPE_TIME, MYSQL_TYPE_VAR_STRING, JsonOpaque, JsonTemporal,
    parse_json,
)
from binlogkit.errors import JsonBinaryError
from binlogkit.printer.mysql.verbose import write_quoted

MAX_DECPT_FOR_F_FORMAT = 15                 # DBL_DIG
MY_GCVT_MAX_FIELD_WIDTH = 15 + 4 + 15       # DBL_DIG + 4 + max(5, MAX_DECPT_FOR_F_FORMAT)

OPERATION_NAMES = {L.JSON_DIFF_REPLACE: b"JSON_REPLACE", L.JSON_DIFF_INSERT: b"JSON_INSERT",
                   L.JSON_DIFF_REMOVE: b"JSON_REMOVE"}
SEPARATOR = b"\n###      "


def column(data):
    """A whole JSON column value, quoted for the ### line."""
    try:
        return write_quoted(binary_to_text(data))
    except (JsonBinaryError, ValueError, IndexError):
        return b"Invalid JSON\n"


def diff_value(value):
    """json_wrapper_to_string(..., json_type=false): one JSON_* function argument."""
    text = json_to_text(value, json_quoted=False)
    kind = sql_literal_kind(value)
    if kind == "raw":
        return text
    if kind == "cast":
        return b"CAST(" + write_quoted(text) + b" AS JSON)"
    return write_quoted(text)


class _DiffError(Exception):
    pass


def _length(data, pos, end, what):
    if pos >= end:
        raise _DiffError(what)
    value, new = net_field_length(data, pos)
    if value is None or new > end:
        raise _DiffError(what)
    return value, new


def _operation_names(data):
    """print_json_diff's first pass: the function name of every diff."""
    names = []
    pos, end = 0, len(data)
    while pos < end:
        op = data[pos]
        if op not in OPERATION_NAMES:
            raise _DiffError("reading operation type (invalid operation code)")
        path_len, pos = _length(data, pos + 1, end, "reading path length to skip")
        if path_len > end - pos:
            raise _DiffError("skipping path")
        pos += path_len
        name = OPERATION_NAMES[op]
        if op == L.JSON_DIFF_INSERT and data[pos - 1:pos] == b"]":
            name = b"JSON_ARRAY_INSERT"
        names.append(name)
        if op != L.JSON_DIFF_REMOVE:
            value_len, pos = _length(data, pos, end, "reading value length to skip")
            if value_len > end - pos:
                raise _DiffError("skipping value")
            pos += value_len
    return names


def diff(data, col_name):
    """print_json_diff: the text of one partially updated JSON column."""
    out = []
    try:
        names = _operation_names(data)
    except _DiffError as exc:
        return b"Error %s while printing JSON diff\n" % str(exc).encode()
    printed = False
    for i in range(len(names) - 1, -1, -1):
        if i == 0 or names[i - 1] != names[i]:
            if printed:
                out.append(SEPARATOR)
            out.append(names[i] + b"(")
            printed = True
    out.append(col_name)
    if not names:
        return b"".join(out)
    out.append(b", ")
    pos, end = 0, len(data)
    for i, name in enumerate(names):
        op = data[pos]
        path_len, pos = _length(data, pos + 1, end, "")
        out.append(write_quoted(data[pos:pos + path_len]))
        pos += path_len
        if op != L.JSON_DIFF_REMOVE:
            out.append(b", ")
            value_len, pos = _length(data, pos, end, "")
            try:
                value = parse_json(data[pos:pos + value_len])
            except (JsonBinaryError, ValueError, IndexError):
                out.append(b"Error parsing json value while printing JSON diff\n")
                return b"".join(out)
            pos += value_len
            out.append(diff_value(value))
        if pos >= end or names[i + 1] != name:
            out.append(b")")
        if pos < end:
            out.append(b"," + SEPARATOR)
    return b"".join(out)


# -- printing (json_dom.cc wrapper_to_string, double_quote; dtoa.cc my_gcvt) ----------

_ESCAPES = {0x08: b"\\b", 0x09: b"\\t", 0x0A: b"\\n", 0x0C: b"\\f", 0x0D: b"\\r",
            0x22: b'\\"', 0x5C: b"\\\\"}


def double_quote(raw):
    """json_dom.cc double_quote(): escape '"', '\\' and bytes <= 0x1f."""
    out = bytearray(b'"')
    for byte in raw:
        if byte > 0x1F and byte not in (0x22, 0x5C):
            out.append(byte)
        else:
            out += _ESCAPES.get(byte) or b"\\u00%02x" % byte
    out += b'"'
    return bytes(out)


def _shortest_digits(x):
    """dtoa(x, mode 4, ndigits >= 17): the shortest round-trip digits and decpt."""
    from decimal import Decimal     # here: only JSON doubles need it (start-up)
    sign, digits, exponent = Decimal(repr(abs(x))).as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exponent += 1
    if digits == [0]:
        return "0", 1
    return "".join(map(str, digits)), len(digits) + exponent


def format_double(x, width=MY_GCVT_MAX_FIELD_WIDTH):
    """my_gcvt(x, MY_GCVT_ARG_DOUBLE, width): 'f' or 'e' format, no exponent padding."""
    negative = x < 0 or (x == 0 and str(x).startswith("-"))
    if x < 0:
        width -= 1
    digits, decpt = _shortest_digits(x)
    length = len(digits)
    exp_len = 1 + (decpt >= 101 or decpt <= -99) + (decpt >= 11 or decpt <= -9)
    f_len = length - decpt + 2 if decpt <= 0 else (length + 1 if decpt < length else decpt)
    have_space = f_len <= width
    force_e = decpt <= 0 and width <= 2 - decpt and width >= 3 + exp_len
    use_f = ((have_space or (decpt <= width and (decpt >= -1 or (decpt == -2 and (
        length > 1 or not force_e))) and not force_e))
        and (not have_space or (decpt >= -MAX_DECPT_FOR_F_FORMAT + 1
                                and (decpt <= MAX_DECPT_FOR_F_FORMAT or length > decpt))))
    out = "-" if negative else ""
    if use_f:
        if decpt <= 0:
            out += "0." + "0" * -decpt + digits
        elif decpt < length:
            out += digits[:decpt] + "." + digits[decpt:]
        else:
            out += digits + "0" * (decpt - length)
    else:
        exponent = decpt - 1
        out += digits[0] + ("." + digits[1:] if length > 1 else "") + "e"
        out += ("-" if exponent < 0 else "") + str(abs(exponent))
    return out


def mysql_base64(data):
    """mysys/base64.cc base64_encode(): a newline after every 76 characters."""
    from binascii import b2a_base64    # here: only opaque JSON values need it (start-up)
    text = b2a_base64(data, newline=False)
    return b"\n".join(text[i:i + 76] for i in range(0, len(text), 76))


def temporal_text(value):
    """my_TIME_to_str(t, 6): DATE without time, others with 6 fractional digits."""
    if value.field_type == MYSQL_TYPE_DATE:
        return b"%04d-%02d-%02d" % (value.year, value.month, value.day)
    if value.field_type == MYSQL_TYPE_TIME:
        hours = value.day * 24 + value.hour
        return b"%s%02d:%02d:%02d.%06d" % (b"-" if value.negative else b"", hours, value.minute,
                                           value.second, value.microsecond)
    return b"%04d-%02d-%02d %02d:%02d:%02d.%06d" % (
        value.year, value.month, value.day, value.hour, value.minute, value.second,
        value.microsecond)


def json_to_text(value, json_quoted=True):
    """Json_wrapper::to_string(json_quoted): the text of one value, as bytes."""
    out = bytearray()
    _append(out, value, json_quoted, 0)
    return bytes(out)


def _append(out, value, quoted, depth):
    if depth > MAX_DEPTH:
        raise JsonBinaryError("JSON document nested too deeply")
    if value is None:
        out += b"null"
    elif value is True:
        out += b"true"
    elif value is False:
        out += b"false"
    elif isinstance(value, int):
        out += str(value).encode()
    elif isinstance(value, float):
        text = format_double(value).encode()
        out += text if (b"." in text or b"e" in text) else text + b".0"
    elif isinstance(value, str):
        raw = value.encode("utf-8", "surrogateescape")
        out += double_quote(raw) if quoted else raw
    elif isinstance(value, dict):
        out += b"{"
        for i, (key, item) in enumerate(value.items()):
            if i:
                out += b", "
            out += double_quote(key.encode("utf-8", "surrogateescape")) + b": "
            _append(out, item, True, depth + 1)
        out += b"}"
    elif isinstance(value, list):
        out += b"["
        for i, item in enumerate(value):
            if i:
                out += b", "
            _append(out, item, True, depth + 1)
        out += b"]"
    elif _is_decimal(value):
        out += format(value, "f").encode()
    elif isinstance(value, JsonTemporal):
        text = temporal_text(value)
        out += b'"' + text + b'"' if quoted else text
    elif isinstance(value, JsonOpaque):
        if value.field_type == MYSQL_TYPE_VAR_STRING:     # treated as a plain string
            out += double_quote(value.data) if quoted else value.data
        else:
            text = b"base64:type%d:" % value.field_type + mysql_base64(value.data)
            out += double_quote(text) if quoted else text
    else:
        raise TypeError(f"not a JSON value: {value!r}")


def _is_decimal(value):
    """isinstance(value, decimal.Decimal) without loading decimal (an opaque DECIMAL in a
    document loads it: binlog/json_binary.py)."""
    decimal = sys.modules.get("decimal")
    return decimal is not None and isinstance(value, decimal.Decimal)


def binary_to_text(data):
    """The text mysqlbinlog -v prints (inside its quotes) for a JSON column value."""
    return json_to_text(parse_json(data), json_quoted=False)


def sql_literal_kind(value):
    """How print_json_diff shows a diff value (log_event.cc json_wrapper_to_string):
    'raw' (null, numbers, booleans), 'quoted' (strings, dates, opaque) or
    'cast' (objects and arrays, as CAST('...' AS JSON))."""
    if isinstance(value, (dict, list)):
        return "cast"
    if value is None or isinstance(value, (bool, int, float)) or _is_decimal(value):
        return "raw"
    return "quoted"
