"""Row images beyond the plain v1/v2 layout: PARTIAL_UPDATE_ROWS and pre-GA rows.

`rowvalues.iter_rows` hands these events here (by RowsBody.type_code).

PARTIAL_UPDATE_ROWS (MySQL 8.0.3+, binlog_row_value_options=PARTIAL_JSON):
the before image is a normal image; the after image starts with the packed
binlog_row_value_options and, when PARTIAL_JSON_UPDATES is set, one bit per
JSON column of the table (present or not) saying whether that column holds
a Json_diff_vector instead of a document (log_event.cc print_verbose_one_row,
rpl_record.cc unpack_row).  Such a column decodes to json_binary.PartialJson.

Pre-GA rows events (types 20-22, the mysql-5.1-wl2325 "5.2.2-a_drop6p13"
trees) carry the table's *record* null bytes and every listed column packed
with Field::pack, NULL or not (5.1 pack_row); their TABLE_MAP has no column
metadata and no null bitmap.  The record null-byte count is not in the log:
it is taken as the smallest count for which every image of the event walks
exactly, NULL bits as one per column after the reserved first bit (MyISAM
fixed-length records), CHAR/VARCHAR lengths as one byte.  Columns whose size
needs metadata (DECIMAL, BLOB, ENUM, SET, BIT, GEOMETRY) are not decodable
and raise UnsupportedTypeError.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog import rows as R
from binlogkit.binlog import rowimage as V
from binlogkit.binlog.events import net_field_length
from binlogkit.binlog.json_binary import JsonBinaryError, PartialJson, parse_json_diffs

PRE_GA_ROWS_EVENT_TYPES = frozenset({L.PRE_GA_WRITE_ROWS_EVENT, L.PRE_GA_UPDATE_ROWS_EVENT,
                                     L.PRE_GA_DELETE_ROWS_EVENT})
SPECIAL_ROWS_EVENT_TYPES = PRE_GA_ROWS_EVENT_TYPES | {L.PARTIAL_UPDATE_ROWS_EVENT}


def iter_special_rows(table_map, rows_body):
    if rows_body.type_code == L.PARTIAL_UPDATE_ROWS_EVENT:
        return iter_partial_rows(table_map, rows_body)
    return iter_pre_ga_rows(table_map, rows_body)


# -- PARTIAL_UPDATE_ROWS -----------------------------------------------------------------

def iter_partial_rows(table_map, rows_body):
    data = rows_body.rows
    end = len(data)
    pos = 0
    width = rows_body.width
    json_columns = [i for i, t in enumerate(table_map.column_types) if t == R.MYSQL_TYPE_JSON]
    while pos < end:
        before, pos = V.read_image(table_map, rows_body.cols, width, data, pos, end)
        after, pos = read_partial_after_image(table_map, rows_body.cols_ai, width, data, pos,
                                              end, json_columns)
        yield before, after


def read_partial_after_image(table_map, cols, width, data, pos, end, json_columns):
    """value_options, partial bits, then the image with diffs in partial JSON columns."""
    if pos >= end:
        raise V.CorruptRowError("binlog_row_value_options truncated")
    options, pos = net_field_length(data, pos)
    if options is None or pos > end:
        raise V.CorruptRowError("bad binlog_row_value_options")
    partial = set()
    if options & L.PARTIAL_JSON_UPDATES:
        nbytes = (len(json_columns) + 7) // 8
        if pos + nbytes > end:
            raise V.CorruptRowError("partial bits truncated")
        bits = data[pos:pos + nbytes]
        pos += nbytes
        partial = {col for k, col in enumerate(json_columns) if (bits[k // 8] >> (k % 8)) & 1}
    if not partial:
        return V.read_image(table_map, cols, width, data, pos, end)
    return _read_image_with_diffs(table_map, cols, width, data, pos, end, partial)


def _read_image_with_diffs(table_map, cols, width, data, pos, end, partial):
    ncols = table_map.column_count
    types, metas = table_map.column_types, table_map.column_meta
    present = [i for i in range(min(width, ncols, len(cols) * 8)) if (cols[i // 8] >> (i % 8)) & 1]
    nset = bin(int.from_bytes(cols[:(width + 7) // 8], "little") & ((1 << width) - 1)).count("1")
    null_bits = data[pos:pos + (nset + 7) // 8]
    pos += (nset + 7) // 8
    values = [V.ABSENT] * ncols
    for n, col in enumerate(present):
        if n // 8 < len(null_bits) and (null_bits[n // 8] >> (n % 8)) & 1:
            values[col] = None
            continue
        size = R.field_size(types[col], metas[col], data, pos) if pos < end else None
        if size is None or pos + size > end:
            raise V.CorruptRowError("value runs past the end of the event", values, col)
        if col in partial:
            head = metas[col]
            raw = bytes(data[pos + head:pos + size])
            try:
                values[col] = PartialJson(parse_json_diffs(raw), raw)
            except JsonBinaryError as exc:
                raise V.CorruptRowError(f"bad JSON diff: {exc}", values, col) from None
        else:
            values[col], size = V.decode_value(types[col], metas[col], data, pos)
        pos += size
    return values, pos


# -- pre-GA rows -------------------------------------------------------------------------

_PRE_GA_FIXED = {R.MYSQL_TYPE_TINY: 1, R.MYSQL_TYPE_SHORT: 2, R.MYSQL_TYPE_INT24: 3,
                 R.MYSQL_TYPE_LONG: 4, R.MYSQL_TYPE_LONGLONG: 8, R.MYSQL_TYPE_FLOAT: 4,
                 R.MYSQL_TYPE_DOUBLE: 8, R.MYSQL_TYPE_YEAR: 1, R.MYSQL_TYPE_DATE: 3,
                 R.MYSQL_TYPE_NEWDATE: 3, R.MYSQL_TYPE_TIME: 3, R.MYSQL_TYPE_DATETIME: 8,
                 R.MYSQL_TYPE_TIMESTAMP: 4, R.MYSQL_TYPE_NULL: 0}
_PRE_GA_STRINGS = frozenset({R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING})


def _pre_ga_value(col_type, data, pos, end):
    """(value, size) of one Field::pack'ed value of a metadata-less column."""
    size = _PRE_GA_FIXED.get(col_type)
    if size is None and col_type not in _PRE_GA_STRINGS:
        raise V.UnsupportedTypeError(col_type, 0)
    if size is None:
        if pos >= end:
            raise V.CorruptRowError("value truncated")
        size = 1 + data[pos]
    if pos + size > end:
        raise V.CorruptRowError("value runs past the end of the event")
    if col_type in _PRE_GA_STRINGS:
        return bytes(data[pos + 1:pos + size]), size
    return V.decode_value(col_type, 0, data, pos)


def _pre_ga_image(table_map, cols, width, null_bytes, data, pos, end):
    ncols = table_map.column_count
    null_bits = data[pos:pos + null_bytes]
    if len(null_bits) < null_bytes:
        raise V.CorruptRowError("record null bytes truncated")
    pos += null_bytes
    shift = 1 if null_bytes * 8 > ncols else 0         # the reserved first bit
    values = [V.ABSENT] * ncols
    for col in range(min(width, ncols, len(cols) * 8)):
        if not (cols[col // 8] >> (col % 8)) & 1:
            continue
        value, size = _pre_ga_value(table_map.column_types[col], data, pos, end)
        bit = col + shift
        is_null = bit // 8 < null_bytes and (null_bits[bit // 8] >> (bit % 8)) & 1
        values[col] = None if is_null else value
        pos += size
    return values, pos


def _pre_ga_walk(table_map, rows_body, null_bytes):
    data = rows_body.rows
    end = len(data)
    pos = 0
    out = []
    while pos < end:
        row_start = pos
        first, pos = _pre_ga_image(table_map, rows_body.cols, rows_body.width, null_bytes,
                                   data, pos, end)
        if rows_body.kind == "update":
            second, pos = _pre_ga_image(table_map, rows_body.cols_ai, rows_body.width,
                                        null_bytes, data, pos, end)
        if pos <= row_start:        # a row of no bytes would be read forever
            raise V.CorruptRowError("row image of no bytes")
        if rows_body.kind == "update":
            out.append((first, second))
        elif rows_body.kind == "write":
            out.append((None, first))
        else:
            out.append((first, None))
    return out


def iter_pre_ga_rows(table_map, rows_body):
    """Rows of a pre-GA event, with the smallest record null-byte count that walks."""
    most = (table_map.column_count + 1 + 7) // 8
    error = None
    for null_bytes in range(most + 1):
        try:
            return iter(_pre_ga_walk(table_map, rows_body, null_bytes))
        except V.CorruptRowError as exc:
            error = exc
    raise error
