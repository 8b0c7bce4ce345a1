"""TABLE_MAP and rows events: layouts, column metadata and row-image walking.

The walker computes where each row image starts and ends (as the server's
`calc_row_event_length` does), which is enough to count rows and to split an
event into images; turning the column bytes into values is `rowvalues`' job.
"""
import struct

from binlogkit._accel import speedups
from binlogkit._record import field, record
from binlogkit.binlog import coltypes as C
from binlogkit.binlog import layout as L
from binlogkit.binlog.coltypes import (  # noqa: F401  (rows.MYSQL_TYPE_* is the usual spelling)
    MYSQL_TYPE_DECIMAL, MYSQL_TYPE_TINY, MYSQL_TYPE_SHORT, MYSQL_TYPE_LONG, MYSQL_TYPE_FLOAT,
    MYSQL_TYPE_DOUBLE, MYSQL_TYPE_NULL, MYSQL_TYPE_TIMESTAMP, MYSQL_TYPE_LONGLONG,
    MYSQL_TYPE_INT24, MYSQL_TYPE_DATE, MYSQL_TYPE_TIME, MYSQL_TYPE_DATETIME, MYSQL_TYPE_YEAR,
    MYSQL_TYPE_NEWDATE, MYSQL_TYPE_VARCHAR, MYSQL_TYPE_BIT, MYSQL_TYPE_TIMESTAMP2,
    MYSQL_TYPE_DATETIME2, MYSQL_TYPE_TIME2, MYSQL_TYPE_VARCHAR_COMPRESSED,
    MYSQL_TYPE_BLOB_COMPRESSED, MYSQL_TYPE_VECTOR, MYSQL_TYPE_JSON, MYSQL_TYPE_NEWDECIMAL,
    MYSQL_TYPE_ENUM, MYSQL_TYPE_SET, MYSQL_TYPE_TINY_BLOB, MYSQL_TYPE_MEDIUM_BLOB,
    MYSQL_TYPE_LONG_BLOB, MYSQL_TYPE_BLOB, MYSQL_TYPE_VAR_STRING, MYSQL_TYPE_STRING,
    MYSQL_TYPE_GEOMETRY,
)
from binlogkit.binlog.decimal import decimal_bin_size
from binlogkit.binlog.events import net_field_length, register, uncompress_binlog

# Column types: binlog/coltypes.py's table; metadata layouts and fixed sizes derive from it
_META_1 = C.codes(meta=C.META_1)
_META_2_LE = C.codes(meta=C.META_2LE)
_META_2_BE = C.codes(meta=C.META_2BE)
_FIXED_SIZE = C.FIXED_SIZES


def parse_column_metadata(types, meta_bytes):
    """Per-column metadata ints from the TABLE_MAP metadata block (table_def)."""
    metas = []
    pos = 0
    for col_type in types:
        if col_type in _META_1:
            metas.append(meta_bytes[pos])
            pos += 1
        elif col_type in _META_2_LE:
            metas.append(meta_bytes[pos] | (meta_bytes[pos + 1] << 8))
            pos += 2
        elif col_type in _META_2_BE:
            metas.append((meta_bytes[pos] << 8) | meta_bytes[pos + 1])
            pos += 2
        else:
            metas.append(0)
    return metas


@record
class TableMapBody:
    table_id: int
    flags: int
    db: bytes
    table: bytes
    column_types: bytes
    column_meta: list
    null_bits: bytes
    optional_metadata: bytes
    # compiled row-walking plans, keyed by columns bitmap (see image_plan)
    plans: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def column_count(self):
        return len(self.column_types)

    def nullable(self, index):
        return (self.null_bits[index // 8] >> (index % 8)) & 1

    @property
    def metadata(self):
        """The optional metadata, parsed (table_metadata.OptionalMetadata)."""
        # API only: the module stays out of start-up (table_metadata does not import rows)
        from binlogkit.binlog.table_metadata import parse_optional_metadata
        return parse_optional_metadata(self.optional_metadata)


def _table_id(data, pos, post_len):
    if post_len == 6:
        return L.UINT32.unpack_from(data, pos)[0], pos + 4
    return int.from_bytes(data[pos:pos + 6], "little"), pos + 6


# Decoded table maps by (header length, post-header length, body bytes): a
# binlog repeats the same few table maps before every rows statement.
_TABLE_MAP_CACHE = {}
_TABLE_MAP_CACHE_MAX = 1024


@register(L.TABLE_MAP_EVENT)
def decode_table_map(data, raw, fde):
    post_len = fde.post_header(L.TABLE_MAP_EVENT, 8)
    key = (fde.header_len, post_len, bytes(data[fde.header_len:]))
    body = _TABLE_MAP_CACHE.get(key)
    if body is None:
        body = _decode_table_map(data, fde.header_len, post_len)
        if len(_TABLE_MAP_CACHE) >= _TABLE_MAP_CACHE_MAX:
            _TABLE_MAP_CACHE.clear()
        _TABLE_MAP_CACHE[key] = body
    return body


def _packed_count(data, pos):
    """A packed length; 251 (NULL) is no length at all: a malformed event."""
    value, pos = net_field_length(data, pos)
    if value is None:
        raise ValueError("NULL where a length belongs")
    return value, pos


def _decode_table_map(data, header_len, post_len):
    table_id, pos = _table_id(data, header_len, post_len)
    flags = L.UINT16.unpack_from(data, pos)[0]
    pos = header_len + post_len
    # the names as both tools use them: C strings, up to a NUL inside the counted bytes
    db_len = data[pos]
    db = bytes(data[pos + 1:pos + 1 + db_len]).split(b"\0", 1)[0]
    pos += db_len + 2
    tbl_len = data[pos]
    table = bytes(data[pos + 1:pos + 1 + tbl_len]).split(b"\0", 1)[0]
    pos += tbl_len + 2
    ncols, pos = _packed_count(data, pos)
    types = bytes(data[pos:pos + ncols])
    pos += ncols
    if pos == len(data) and len(types) == ncols:
        # pre-GA 5.1 table maps end with the types: no metadata, no null bitmap
        return TableMapBody(table_id, flags, db, table, types, [0] * ncols,
                            b"\xff" * ((ncols + 7) // 8), b"")
    meta_len, pos = _packed_count(data, pos)
    meta = bytes(data[pos:pos + meta_len])
    pos += meta_len
    nbytes = (ncols + 7) // 8
    null_bits = bytes(data[pos:pos + nbytes])
    if len(types) != ncols or len(meta) != meta_len or len(null_bits) != nbytes:
        raise ValueError("table map truncated")
    return TableMapBody(table_id, flags, db, table, types,
                        parse_column_metadata(types, meta), null_bits,
                        bytes(data[pos + nbytes:]))


@record
class RowsBody:
    table_id: int
    flags: int
    kind: str               # "write", "update" or "delete"
    width: int
    cols: bytes             # columns present in the (before) image
    cols_ai: bytes          # columns present in the after image (update)
    rows: bytes             # the row images, uncompressed
    extra_data: bytes = None
    rows_offset: int = 0    # where the (possibly compressed) rows start in the event
    type_code: int = 0      # the event's type (PARTIAL_UPDATE_ROWS, pre-GA: mysql_rows)

    @property
    def stmt_end(self):
        return bool(self.flags & L.STMT_END_F)


_ID_FLAGS = struct.Struct("<IHH")     # table id (low 4 and high 2 bytes), flags
_ID6_FLAGS = struct.Struct("<IH")     # 5.1 pre-GA post-header: 4-byte table id, flags
_ROWS_V2_TYPES = L.ROWS_V2_EVENT_TYPES


def _rows_post_header(data, raw, fde):
    type_code = raw.type_code
    lengths = fde.post_header_len       # fde.post_header(), inline: this runs per rows event
    if 0 < type_code <= len(lengths):
        post_len = lengths[type_code - 1]
    else:
        post_len = 10 if type_code in _ROWS_V2_TYPES else 8
    pos = fde.header_len
    if post_len == 6:
        table_id, flags = _ID6_FLAGS.unpack_from(data, pos)
        pos += 6
    else:
        low, high, flags = _ID_FLAGS.unpack_from(data, pos)
        table_id = low | high << 32
        pos += 8
    extra = None
    if post_len == 10:
        extra_len = L.UINT16.unpack_from(data, pos)[0]
        if extra_len < 2:       # the length counts its own two bytes
            raise ValueError("rows event with an extra-data length under 2")
        extra = bytes(data[pos + 2:pos + extra_len]) if extra_len > 2 else b""
        pos += extra_len
    return table_id, flags, extra, pos


@register(*L.ROWS_EVENT_TYPES, L.PARTIAL_UPDATE_ROWS_EVENT)
def decode_rows(data, raw, fde):
    table_id, flags, extra, pos = _rows_post_header(data, raw, fde)
    width = data[pos]
    if width < 251:
        pos += 1
    else:
        width, pos = net_field_length(data, pos)
        if width is None:
            raise ValueError("rows event without a column count")
    nbytes = (width + 7) >> 3
    cols = bytes(data[pos:pos + nbytes])
    pos += nbytes
    type_code = raw.type_code
    kind = L.ROWS_GENERAL_KIND[type_code]
    cols_ai = cols
    if kind == "update" and type_code != L.PRE_GA_UPDATE_ROWS_EVENT:  # one bitmap
        cols_ai = bytes(data[pos:pos + nbytes])
        pos += nbytes
    if len(cols) != nbytes or len(cols_ai) != nbytes:
        raise ValueError("rows event truncated")
    rows = data[pos:]
    if raw.type_code in L.COMPRESSED_ROWS_EVENT_TYPES:
        rows = uncompress_binlog(rows)
    return RowsBody(table_id, flags, kind, width, cols, cols_ai, bytes(rows), extra, pos,
                    raw.type_code)


def uncompressed_event(raw, body, fde):
    """The plain rows event a compressed one stands for (row_log_event_uncompress).

    Same header and post-header, the type made uncompressed, the rows data
    inflated, the length updated and, with CRC32, a fresh checksum.
    """
    type_code = raw.type_code
    plain_type = type_code - (143 if type_code <= L.DELETE_ROWS_COMPRESSED_EVENT_V1 else 139)
    prefix = bytearray(raw.payload[:body.rows_offset])
    new_len = len(prefix) + len(body.rows) + (L.BINLOG_CHECKSUM_LEN if raw.checksum is not None else 0)
    prefix[L.EVENT_TYPE_OFFSET] = plain_type
    L.UINT32.pack_into(prefix, L.EVENT_LEN_OFFSET, new_len)
    data = bytes(prefix) + body.rows
    if raw.checksum is not None:
        import zlib     # only compressed rows events need it (start-up of every other run)
        data += L.UINT32.pack(zlib.crc32(data))
    return data


def _length2(data, pos):
    """A value behind a 2-byte length; None when the length itself is cut off."""
    if pos + 2 > len(data):
        return None
    return 2 + (data[pos] | (data[pos + 1] << 8))


def field_size(col_type, meta, data, pos):
    """Bytes used by one non-NULL value at data[pos] (table_def::calc_field_size)."""
    size = _FIXED_SIZE.get(col_type)
    if size is not None:
        return size
    if col_type == MYSQL_TYPE_NEWDECIMAL:
        return decimal_bin_size(meta >> 8, meta & 0xFF)
    if col_type in (MYSQL_TYPE_VARCHAR, MYSQL_TYPE_VARCHAR_COMPRESSED, MYSQL_TYPE_VAR_STRING):
        if meta > 255:
            return _length2(data, pos)
        return 1 + data[pos]
    if col_type == MYSQL_TYPE_STRING:
        real_type = meta >> 8
        if real_type in (MYSQL_TYPE_SET, MYSQL_TYPE_ENUM):
            return meta & 0xFF
        max_len = (((meta >> 4) & 0x300) ^ 0x300) + (meta & 0xFF)
        if max_len > 255:
            return _length2(data, pos)
        return 1 + data[pos]
    if col_type in (MYSQL_TYPE_ENUM, MYSQL_TYPE_SET):
        return meta & 0xFF
    if col_type in (MYSQL_TYPE_BLOB, MYSQL_TYPE_BLOB_COMPRESSED, MYSQL_TYPE_GEOMETRY,
                    MYSQL_TYPE_JSON, MYSQL_TYPE_TINY_BLOB, MYSQL_TYPE_MEDIUM_BLOB,
                    MYSQL_TYPE_LONG_BLOB, MYSQL_TYPE_VECTOR):
        return meta + int.from_bytes(data[pos:pos + meta], "little")
    if col_type == MYSQL_TYPE_BIT:
        return ((meta >> 8) & 0xFF) + (1 if meta & 0xFF else 0)
    if col_type == MYSQL_TYPE_TIME2:
        return 3 + (meta + 1) // 2
    if col_type == MYSQL_TYPE_DATETIME2:
        return 5 + (meta + 1) // 2
    if col_type == MYSQL_TYPE_TIMESTAMP2:
        return 4 + (meta + 1) // 2
    return None


# Types the client's calc_field_event_length() has no case for: a row holding a
# non-NULL value of one of them ends the walk (and the row count) there.
NO_EVENT_LENGTH = frozenset({MYSQL_TYPE_GEOMETRY, MYSQL_TYPE_VARCHAR_COMPRESSED,
                             MYSQL_TYPE_BLOB_COMPRESSED, MYSQL_TYPE_DECIMAL, MYSQL_TYPE_NULL,
                             MYSQL_TYPE_JSON, MYSQL_TYPE_TINY_BLOB, MYSQL_TYPE_MEDIUM_BLOB,
                             MYSQL_TYPE_LONG_BLOB, MYSQL_TYPE_VECTOR})


def image_length(table_map, cols, data, pos, end, client_rules=False):
    """Length of one row image at data[pos], or 0 when it cannot be walked.

    With client_rules, types mariadb-binlog cannot size also give 0, as
    in its calc_row_event_length().
    """
    start = pos
    present = [i for i in range(min(table_map.column_count, len(cols) * 8))
               if (cols[i // 8] >> (i % 8)) & 1]
    null_bytes = (len(present) + 7) // 8
    null_bits = data[pos:pos + null_bytes]
    pos += null_bytes
    if pos > end:
        return 0
    types, metas = table_map.column_types, table_map.column_meta
    for n, col in enumerate(present):
        if (null_bits[n // 8] >> (n % 8)) & 1:
            continue
        if pos >= end:
            return 0
        col_type = types[col]
        if client_rules and (col_type in NO_EVENT_LENGTH or (
                col_type == MYSQL_TYPE_BLOB and not 1 <= metas[col] <= 4)):
            return 0
        size = field_size(col_type, metas[col], data, pos)
        if not size or size < 0 or pos + size > end:
            return 0
        pos += size
    return pos - start


# -- compiled row walking ------------------------------------------------------------
#
# count_rows() runs for every rows event printed by default (the "# Number of
# rows:" line), so image_length()'s per-column type dispatch is compiled once
# per (table map, columns bitmap) into a plan: one step per present column.
# A plan is bytes, 3 per step (kind, then a 16-bit little-endian argument), so
# the optional C accelerator walks exactly the same plan.

STEP_STOP = 0     # calc_field_event_length() cannot size it: the walk ends
STEP_FIXED = 1    # arg bytes
STEP_LEN1 = 2     # 1-byte length prefix, then that many bytes
STEP_LEN2 = 3     # 2-byte length prefix, then that many bytes
STEP_PACKED = 4   # arg-byte length prefix (BLOB packlen 1..4), then that many bytes


def column_step(col_type, meta):
    """(kind, arg): how mariadb-binlog sizes one non-NULL value of this column."""
    if col_type in NO_EVENT_LENGTH:
        return STEP_STOP, 0
    if col_type == MYSQL_TYPE_BLOB:
        return (STEP_PACKED, meta) if 1 <= meta <= 4 else (STEP_STOP, 0)
    if col_type in (MYSQL_TYPE_VARCHAR, MYSQL_TYPE_VAR_STRING):
        return (STEP_LEN2, 0) if meta > 255 else (STEP_LEN1, 0)
    if col_type == MYSQL_TYPE_STRING and (meta >> 8) not in (MYSQL_TYPE_SET, MYSQL_TYPE_ENUM):
        max_len = (((meta >> 4) & 0x300) ^ 0x300) + (meta & 0xFF)
        return (STEP_LEN2, 0) if max_len > 255 else (STEP_LEN1, 0)
    # every other type has a size that depends on the metadata alone
    size = field_size(col_type, meta, b"", 0)
    if not size or size < 0 or size > 0xFFFF:
        return STEP_STOP, 0
    return STEP_FIXED, size


class ImagePlan:
    """How to walk one row image: null-bitmap size and a step per present column."""
    __slots__ = ("null_bytes", "steps", "fixed", "lengths")

    def __init__(self, steps):
        self.steps = steps
        self.null_bytes = (len(steps) // 3 + 7) // 8
        # fixed-width images: the length follows from the null bitmap alone
        self.fixed = all(steps[i] in (STEP_FIXED, STEP_STOP) for i in range(0, len(steps), 3))
        self.lengths = {}


def image_plan(table_map, cols):
    """The (cached) ImagePlan of `table_map` for a columns-present bitmap."""
    plan = table_map.plans.get(cols)
    if plan is None:
        types, metas = table_map.column_types, table_map.column_meta
        steps = bytearray()
        for i in range(min(len(types), len(cols) * 8)):
            if (cols[i // 8] >> (i % 8)) & 1:
                kind, arg = column_step(types[i], metas[i])
                steps += bytes((kind, arg & 0xFF, arg >> 8))
        plan = table_map.plans[cols] = ImagePlan(bytes(steps))
    return plan


def _fixed_length(plan, null_bits):
    """Length of a fixed-width image with this null bitmap (0: cannot be walked)."""
    steps = plan.steps
    length = plan.null_bytes
    for n in range(len(steps) // 3):
        if (null_bits[n // 8] >> (n % 8)) & 1:
            continue
        if steps[3 * n] == STEP_STOP:
            return 0
        length += steps[3 * n + 1] | (steps[3 * n + 2] << 8)
    return length


def walk_image(plan, data, pos, end):
    """image_length(..., client_rules=True) over a compiled plan."""
    nb = plan.null_bytes
    if pos + nb > end:
        return 0
    null_bits = data[pos:pos + nb]
    if plan.fixed:
        length = plan.lengths.get(null_bits)
        if length is None:
            if len(plan.lengths) >= 4096:
                plan.lengths.clear()
            length = plan.lengths[null_bits] = _fixed_length(plan, null_bits)
        return length if pos + length <= end else 0
    start = pos
    pos += nb
    steps = plan.steps
    for n in range(len(steps) // 3):
        if (null_bits[n >> 3] >> (n & 7)) & 1:
            continue
        if pos >= end:
            return 0
        kind = steps[3 * n]
        if kind == STEP_FIXED:
            size = steps[3 * n + 1] | (steps[3 * n + 2] << 8)
        elif kind == STEP_LEN1:
            size = 1 + data[pos]
        elif kind == STEP_LEN2:
            if pos + 2 > end:
                return 0
            size = 2 + (data[pos] | (data[pos + 1] << 8))
        elif kind == STEP_PACKED:
            width = steps[3 * n + 1]
            if pos + width > end:
                return 0
            size = width + int.from_bytes(data[pos:pos + width], "little")
        else:
            return 0
        if pos + size > end:
            return 0
        pos += size
    return pos - start


def count_rows_py(plan, plan_ai, data):
    """Rows in `data` (plan_ai: the after-image plan of an update, else None)."""
    end = len(data)
    count = 0
    pos = 0
    while pos < end:
        count += 1
        length = walk_image(plan, data, pos, end)
        if not length:
            break
        pos += length
        if plan_ai is not None:
            length = walk_image(plan_ai, data, pos, end)
            if not length:
                break
            pos += length
    return count


def count_rows(table_map, rows_body):
    """Number of rows in a rows event, counted the way mariadb-binlog does."""
    data = rows_body.rows
    if rows_body.kind == "write" and not data:
        return 1                # also for a table the log never mapped
    if table_map is None:
        return 0
    plan = image_plan(table_map, rows_body.cols)
    if rows_body.kind != "update":
        if speedups is not None:
            return speedups.count_rows(plan.steps, None, data)
        return count_rows_py(plan, None, data)
    plan_ai = image_plan(table_map, rows_body.cols_ai)
    if speedups is not None:
        return speedups.count_rows(plan.steps, plan_ai.steps, data)
    return count_rows_py(plan, plan_ai, data)


def count_rows_reference(table_map, rows_body):
    """count_rows() by image_length(), column by column: the plans' reference."""
    data = rows_body.rows
    end = len(data)
    if rows_body.kind == "write" and end == 0:
        return 1
    count = 0
    pos = 0
    while pos < end:
        count += 1
        length = image_length(table_map, rows_body.cols, data, pos, end, True)
        if not length:
            break
        pos += length
        if rows_body.kind == "update":
            length = image_length(table_map, rows_body.cols_ai, data, pos, end, True)
            if not length:
                break
            pos += length
    return count
