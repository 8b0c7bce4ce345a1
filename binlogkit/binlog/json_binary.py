"""MySQL's binary JSON (the JSON column and JSON diff values in row events).

`parse_json(data)` turns the binary format of sql-common/json_binary.cc into
Python values, losslessly:

  object -> dict (keys in stored order)   array -> list
  literal -> None / True / False          int16..uint64 -> int
  double -> float                         string -> str (utf-8, surrogateescape)
  opaque DECIMAL -> decimal.Decimal (scale kept)
  opaque DATE/TIME/DATETIME/TIMESTAMP -> JsonTemporal
  any other opaque -> JsonOpaque(field_type, data)

`json_to_text(value, json_quoted)` prints a value the way Json_wrapper::
to_string does (sql-common/json_dom.cc wrapper_to_string, pretty=false),
which is what `mysqlbinlog -v` shows for a JSON column (json_quoted=False at
the top: a string document prints without double quotes; nested values are
always quoted).  Doubles follow my_gcvt(MY_GCVT_MAX_FIELD_WIDTH) plus the
".0" rule, dates print with 6 fractional digits, other opaque values as
"base64:typeN:..." with MySQL's 76-column base64 lines.

`parse_json_diffs(data)` reads the Json_diff_vector of a PARTIAL_UPDATE_ROWS
after image (sql/json_diff.cc; printed by log_event.cc print_json_diff).
"""
import base64
from decimal import Decimal
from typing import NamedTuple

from binlogkit.binlog import layout as L
from binlogkit.binlog.decimal import decimal_bin_size, decimal_to_text
from binlogkit.binlog.events import net_field_length
from binlogkit.errors import BinlogError

# json_binary.cc type bytes
JSONB_TYPE_SMALL_OBJECT = 0x0
JSONB_TYPE_LARGE_OBJECT = 0x1
JSONB_TYPE_SMALL_ARRAY = 0x2
JSONB_TYPE_LARGE_ARRAY = 0x3
JSONB_TYPE_LITERAL = 0x4
JSONB_TYPE_INT16 = 0x5
JSONB_TYPE_UINT16 = 0x6
JSONB_TYPE_INT32 = 0x7
JSONB_TYPE_UINT32 = 0x8
JSONB_TYPE_INT64 = 0x9
JSONB_TYPE_UINT64 = 0xA
JSONB_TYPE_DOUBLE = 0xB
JSONB_TYPE_STRING = 0xC
JSONB_TYPE_OPAQUE = 0xF
JSONB_NULL_LITERAL = 0x0
JSONB_TRUE_LITERAL = 0x1
JSONB_FALSE_LITERAL = 0x2

# enum_field_types used by opaque values
MYSQL_TYPE_TIMESTAMP = 7
MYSQL_TYPE_DATE = 10
MYSQL_TYPE_TIME = 11
MYSQL_TYPE_DATETIME = 12
MYSQL_TYPE_VAR_STRING = 253
MYSQL_TYPE_NEWDECIMAL = 246
TEMPORAL_TYPES = frozenset({MYSQL_TYPE_TIMESTAMP, MYSQL_TYPE_DATE, MYSQL_TYPE_TIME,
                            MYSQL_TYPE_DATETIME})

MAX_DECPT_FOR_F_FORMAT = 15                 # DBL_DIG
MY_GCVT_MAX_FIELD_WIDTH = 15 + 4 + 15       # DBL_DIG + 4 + max(5, MAX_DECPT_FOR_F_FORMAT)
_MAX_DEPTH = 1000


class JsonBinaryError(BinlogError, ValueError):
    """The bytes are not a valid binary JSON document (mysqlbinlog: 'Invalid JSON')."""


class JsonOpaque(NamedTuple):
    field_type: int
    data: bytes


class JsonTemporal(NamedTuple):
    """A DATE, TIME, DATETIME or TIMESTAMP stored in JSON (Json_datetime)."""
    field_type: int
    negative: bool
    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    microsecond: int


# -- parsing (json_binary.cc parse_binary / parse_value / Value::element / key) -------

def _offset(data, pos, large):
    if large:
        return int.from_bytes(data[pos:pos + 4], "little")
    return data[pos] | (data[pos + 1] << 8)


def _read_variable_length(data, pos, end):
    """read_variable_length(): 7 bits a byte, high bit = more, at most 5 bytes."""
    value = 0
    for i in range(5):
        if pos + i >= end:
            break
        byte = data[pos + i]
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            if value > 0xFFFFFFFF:
                break
            return value, pos + i + 1
    raise JsonBinaryError("bad variable-length string size")


def _scalar(type_byte, data, pos, end):
    if type_byte == JSONB_TYPE_LITERAL:
        if pos >= end:
            raise JsonBinaryError("literal truncated")
        literal = data[pos]
        if literal == JSONB_NULL_LITERAL:
            return None
        if literal == JSONB_TRUE_LITERAL:
            return True
        if literal == JSONB_FALSE_LITERAL:
            return False
        raise JsonBinaryError(f"bad literal {literal}")
    size = _INT_SIZES.get(type_byte)
    if size is not None:
        if pos + size > end:
            raise JsonBinaryError("number truncated")
        return int.from_bytes(data[pos:pos + size], "little", signed=type_byte in _SIGNED)
    if type_byte == JSONB_TYPE_DOUBLE:
        if pos + 8 > end:
            raise JsonBinaryError("double truncated")
        return L.DOUBLE.unpack_from(data, pos)[0]
    if type_byte == JSONB_TYPE_STRING:
        length, pos = _read_variable_length(data, pos, end)
        if pos + length > end:
            raise JsonBinaryError("string truncated")
        return bytes(data[pos:pos + length]).decode("utf-8", "surrogateescape")
    if type_byte == JSONB_TYPE_OPAQUE:
        if pos >= end:
            raise JsonBinaryError("opaque value truncated")
        field_type = data[pos]
        length, pos = _read_variable_length(data, pos + 1, end)
        if pos + length > end:
            raise JsonBinaryError("opaque value truncated")
        return _opaque(field_type, bytes(data[pos:pos + length]))
    raise JsonBinaryError(f"bad JSON type {type_byte:#x}")


_INT_SIZES = {JSONB_TYPE_INT16: 2, JSONB_TYPE_UINT16: 2, JSONB_TYPE_INT32: 4,
              JSONB_TYPE_UINT32: 4, JSONB_TYPE_INT64: 8, JSONB_TYPE_UINT64: 8}
_SIGNED = frozenset({JSONB_TYPE_INT16, JSONB_TYPE_INT32, JSONB_TYPE_INT64})


def _opaque(field_type, data):
    if field_type == MYSQL_TYPE_NEWDECIMAL:
        return _decimal(data)
    if field_type in TEMPORAL_TYPES:
        if len(data) < 8:
            raise JsonBinaryError("temporal value truncated")
        return temporal_from_packed(field_type, int.from_bytes(data[:8], "little", signed=True))
    return JsonOpaque(field_type, data)


def _decimal(data):
    """Json_decimal::convert_from_binary: precision, scale, then the binary DECIMAL."""
    if len(data) < 2:
        raise JsonBinaryError("decimal truncated")
    precision, scale = data[0], data[1]
    if len(data) - 2 != decimal_bin_size(precision, scale) or scale > precision:
        raise JsonBinaryError("bad decimal")
    return Decimal(decimal_to_text(data[2:], precision, scale).decode())


def temporal_from_packed(field_type, packed):
    """TIME_from_longlong_{time,date,datetime}_packed (mysys/my_time.cc)."""
    negative = packed < 0
    if negative:
        packed = -packed
    frac = packed % (1 << 24)
    intpart = packed >> 24
    if field_type == MYSQL_TYPE_TIME:
        return JsonTemporal(field_type, negative, 0, 0, 0, (intpart >> 12) % (1 << 10),
                            (intpart >> 6) % 64, intpart % 64, frac)
    ymd, hms = intpart >> 17, intpart % (1 << 17)
    ym = ymd >> 5
    return JsonTemporal(field_type, negative, ym // 13, ym % 13, ymd % 32, hms >> 12,
                        (hms >> 6) % 64, hms % 64, frac)


def _container(type_byte, data, pos, end, depth):
    """parse_array_or_object + Value::element/key; offsets count from `pos`."""
    large = type_byte in (JSONB_TYPE_LARGE_OBJECT, JSONB_TYPE_LARGE_ARRAY)
    is_object = type_byte in (JSONB_TYPE_SMALL_OBJECT, JSONB_TYPE_LARGE_OBJECT)
    osize = 4 if large else 2
    if end - pos < 2 * osize:
        raise JsonBinaryError("container header truncated")
    count = _offset(data, pos, large)
    size = _offset(data, pos + osize, large)
    if size > end - pos:
        raise JsonBinaryError("container larger than its document")
    key_entry = osize + 2
    value_entry = 1 + osize
    keys_at = 2 * osize
    values_at = keys_at + (count * key_entry if is_object else 0)
    if values_at + count * value_entry > size:
        raise JsonBinaryError("container header larger than the container")
    keys = []
    if is_object:
        for i in range(count):
            entry = pos + keys_at + i * key_entry
            key_offset = _offset(data, entry, large)
            key_length = data[entry + osize] | (data[entry + osize + 1] << 8)
            if key_offset < values_at + count * value_entry or key_offset + key_length > size:
                raise JsonBinaryError("bad object key")
            keys.append(bytes(data[pos + key_offset:pos + key_offset + key_length])
                        .decode("utf-8", "surrogateescape"))
    values = []
    for i in range(count):
        entry_rel = values_at + i * value_entry
        entry = pos + entry_rel
        element_type = data[entry]
        if _inlined(element_type, large):
            values.append(_scalar(element_type, data, entry + 1, entry + value_entry))
            continue
        value_offset = _offset(data, entry + 1, large)
        if size < value_offset or value_offset < entry_rel + value_entry:
            raise JsonBinaryError("bad value offset")
        values.append(_value(element_type, data, pos + value_offset, pos + size, depth + 1))
    return dict(zip(keys, values)) if is_object else values


def _inlined(type_byte, large):
    return (type_byte in (JSONB_TYPE_LITERAL, JSONB_TYPE_INT16, JSONB_TYPE_UINT16)
            or (large and type_byte in (JSONB_TYPE_INT32, JSONB_TYPE_UINT32)))


def _value(type_byte, data, pos, end, depth=0):
    if depth > _MAX_DEPTH:
        raise JsonBinaryError("JSON document nested too deeply")
    if type_byte <= JSONB_TYPE_LARGE_ARRAY:
        return _container(type_byte, data, pos, end, depth)
    return _scalar(type_byte, data, pos, end)


def parse_json(data):
    """A binary JSON document -> Python value; an empty document is JSON null."""
    if len(data) == 0:
        return None
    return _value(data[0], data, 1, len(data))


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
    text = base64.b64encode(data)
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
    if depth > _MAX_DEPTH:
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
    elif isinstance(value, Decimal):
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


def binary_to_text(data):
    """The text mysqlbinlog -v prints (inside its quotes) for a JSON column value."""
    return json_to_text(parse_json(data), json_quoted=False)


def sql_literal_kind(value):
    """How print_json_diff shows a diff value (log_event.cc json_wrapper_to_string):
    'raw' (null, numbers, booleans), 'quoted' (strings, dates, opaque) or
    'cast' (objects and arrays, as CAST('...' AS JSON))."""
    if isinstance(value, (dict, list)):
        return "cast"
    if value is None or isinstance(value, (bool, int, float, Decimal)):
        return "raw"
    return "quoted"


# -- JSON diffs (sql/json_diff.cc Json_diff_vector::read_binary) ------------------------

_DIFF_NAMES = {L.JSON_DIFF_REPLACE: "JSON_REPLACE", L.JSON_DIFF_INSERT: "JSON_INSERT",
               L.JSON_DIFF_REMOVE: "JSON_REMOVE"}


class JsonDiff(NamedTuple):
    operation: int          # JSON_DIFF_REPLACE, _INSERT or _REMOVE
    path: bytes             # e.g. b"$.a[2]"
    value: object = None    # the new value (parsed); None for REMOVE
    value_bytes: bytes = b""

    @property
    def function_name(self):
        """json_diff_operation_name(): INSERT at an array cell is JSON_ARRAY_INSERT."""
        if self.operation == L.JSON_DIFF_INSERT and self.path.endswith(b"]"):
            return "JSON_ARRAY_INSERT"
        return _DIFF_NAMES[self.operation]


def _packed(data, pos, end, what):
    value, new_pos = net_field_length(data, pos) if pos < end else (None, pos)
    if value is None or new_pos > end:
        raise JsonBinaryError(f"reading {what}")
    return value, new_pos


def parse_json_diffs(data):
    """The diffs of one partial JSON column: operation byte, path, [value]."""
    diffs = []
    pos, end = 0, len(data)
    while pos < end:
        operation = data[pos]
        if operation not in _DIFF_NAMES:
            raise JsonBinaryError("reading operation type (invalid operation code)")
        path_len, pos = _packed(data, pos + 1, end, "path length")
        if pos + path_len > end:
            raise JsonBinaryError("skipping path")
        path = bytes(data[pos:pos + path_len])
        pos += path_len
        if operation == L.JSON_DIFF_REMOVE:
            diffs.append(JsonDiff(operation, path))
            continue
        value_len, pos = _packed(data, pos, end, "value length")
        if pos + value_len > end:
            raise JsonBinaryError("skipping value")
        raw = bytes(data[pos:pos + value_len])
        pos += value_len
        diffs.append(JsonDiff(operation, path, parse_json(raw), raw))
    return diffs


class PartialJson(NamedTuple):
    """A JSON column of a PARTIAL_UPDATE_ROWS after image: the diffs, not a document."""
    diffs: list             # of JsonDiff
    data: bytes             # the diff vector as stored (after its 4-byte length)
