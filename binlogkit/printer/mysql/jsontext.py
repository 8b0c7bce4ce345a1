"""JSON column text as mysqlbinlog 8.0 -v prints it.

`column(data)` is json_wrapper_to_string(..., json_type=true) for a JSON
column value; `diff(data, col_name)` is print_json_diff (sql/log_event.cc)
for a PARTIAL_UPDATE_ROWS after image: JSON_REPLACE / JSON_INSERT /
JSON_ARRAY_INSERT / JSON_REMOVE calls, consecutive diffs of one kind sharing
one call.  Parsing and the Json_wrapper::to_string text come from
binlogkit.binlog.json_binary.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import net_field_length
from binlogkit.binlog.json_binary import (
    JsonBinaryError, binary_to_text, json_to_text, parse_json, sql_literal_kind,
)
from binlogkit.printer.mysql.verbose import write_quoted

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
