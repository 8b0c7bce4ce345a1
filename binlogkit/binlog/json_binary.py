"""MySQL's binary JSON (the JSON column and JSON diff values in row events).

`parse_json(data)` turns the binary format of sql-common/json_binary.cc into
Python values, losslessly:

  object -> dict (keys in stored order)   array -> list
  literal -> None / True / False          int16..uint64 -> int
  double -> float                         string -> str (utf-8, surrogateescape)
  opaque DECIMAL -> decimal.Decimal (scale kept)
  opaque DATE/TIME/DATETIME/TIMESTAMP -> JsonTemporal
  any other opaque -> JsonOpaque(field_type, data)

The text mysqlbinlog -v prints for these values (Json_wrapper::to_string)
is the printer's: printer/mysql/jsontext.py.

`parse_json_diffs(data)` reads the Json_diff_vector of a PARTIAL_UPDATE_ROWS
after image (sql/json_diff.cc; printed by log_event.cc print_json_diff).
"""
from binlogkit._record import tuple_record
from binlogkit.binlog import layout as L
from binlogkit.binlog.decimal import decimal_bin_size, decimal_to_text
from binlogkit.binlog.events import net_field_length
from binlogkit.errors import JsonBinaryError

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

MAX_DEPTH = 1000


class JsonOpaque(tuple_record("JsonOpaque", "field_type data")):
    """A value of another MySQL type stored in JSON: its field type and bytes."""
    __slots__ = ()


class JsonTemporal(tuple_record("JsonTemporal",
                                "field_type negative year month day hour minute second microsecond")):
    """A DATE, TIME, DATETIME or TIMESTAMP stored in JSON (Json_datetime)."""
    __slots__ = ()


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
    from decimal import Decimal     # here: the printer's start-up does not need it
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
    if depth > MAX_DEPTH:
        raise JsonBinaryError("JSON document nested too deeply")
    if type_byte <= JSONB_TYPE_LARGE_ARRAY:
        return _container(type_byte, data, pos, end, depth)
    return _scalar(type_byte, data, pos, end)


def parse_json(data):
    """A binary JSON document -> Python value; an empty document is JSON null."""
    if len(data) == 0:
        return None
    return _value(data[0], data, 1, len(data))


# -- JSON diffs (sql/json_diff.cc Json_diff_vector::read_binary) ------------------------

_DIFF_NAMES = {L.JSON_DIFF_REPLACE: "JSON_REPLACE", L.JSON_DIFF_INSERT: "JSON_INSERT",
               L.JSON_DIFF_REMOVE: "JSON_REMOVE"}


class JsonDiff(tuple_record("JsonDiff", "operation path value value_bytes", defaults=(None, b""))):
    """operation: JSON_DIFF_REPLACE, _INSERT or _REMOVE; path: e.g. b"$.a[2]"; value: the
    new value (parsed), None for REMOVE; value_bytes: it as stored."""
    __slots__ = ()

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


class PartialJson(tuple_record("PartialJson", "diffs data")):
    """A JSON column of a PARTIAL_UPDATE_ROWS after image: the diffs (JsonDiff), not a
    document, and the diff vector as stored (after its 4-byte length)."""
    __slots__ = ()
