"""TABLE_MAP optional metadata (binlog_row_metadata=MINIMAL/FULL, MySQL 8.0.1+,
MariaDB 10.5+).

The bytes after a Table_map's null bitmap are TLV fields: a type byte, a
packed length, the value (libs/mysql/binlog/event/rows_event.cpp
Optional_metadata_fields).  `parse_optional_metadata(data)` keeps each field
as written; `column_info(table_map)` spreads them over the columns the way
mysqlbinlog's print_columns does: signedness bits go to the numeric
columns, charsets to the character columns, strings to ENUM/SET columns,
geometry types to GEOMETRY columns, dimensions to VECTOR columns, in
column order.
"""

from binlogkit._record import field, record, tuple_record
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import net_field_length

# Column types (field_types.h)
_TINY, _SHORT, _LONG, _FLOAT, _DOUBLE, _LONGLONG, _INT24 = 1, 2, 3, 4, 5, 8, 9
_VARCHAR, _NEWDECIMAL, _ENUM, _SET, _BLOB, _VAR_STRING, _STRING, _GEOMETRY = (
    15, 246, 247, 248, 252, 253, 254, 255)
NUMERIC_TYPES = frozenset({_TINY, _SHORT, _INT24, _LONG, _LONGLONG, _NEWDECIMAL, _FLOAT, _DOUBLE})
# is_character_type() of the client: MySQL 9 counts VECTOR, MariaDB counts GEOMETRY
CHARACTER_TYPES = frozenset({_STRING, _VAR_STRING, _VARCHAR, _BLOB, L.MYSQL_TYPE_VECTOR})
MARIADB_CHARACTER_TYPES = frozenset({_STRING, _VAR_STRING, _VARCHAR, _BLOB, _GEOMETRY})
ENUM_SET_TYPES = frozenset({_ENUM, _SET})


class DefaultCharset(tuple_record("DefaultCharset", "default exceptions")):
    """`default`: the collation of most columns; `exceptions`: (index among the counted
    columns, collation) pairs."""
    __slots__ = ()


@record
class OptionalMetadata:
    """The optional metadata fields as written; None for a field not present."""
    signedness: list = None                 # bools, one per numeric column (+ padding)
    default_charset: DefaultCharset = None
    column_charsets: list = None            # one collation per character column
    column_names: list = None               # bytes, one per column
    set_str_values: list = None             # per SET column: list of bytes
    enum_str_values: list = None            # per ENUM column: list of bytes
    geometry_types: list = None             # per GEOMETRY column
    primary_key: list = None                # (column index, prefix length; 0 = whole)
    primary_key_with_prefix: bool = False   # PRIMARY_KEY_WITH_PREFIX rather than SIMPLE
    enum_and_set_default_charset: DefaultCharset = None
    enum_and_set_column_charsets: list = None
    column_visibility: list = None          # bools (True = visible), one per column (+ padding)
    vector_dimensionality: list = None      # per VECTOR column
    unknown: dict = field(default_factory=dict)     # type -> bytes of unknown fields


def _packed(data, pos, end):
    if pos >= end:
        raise ValueError("optional metadata truncated")
    value, pos = net_field_length(data, pos)
    if value is None or pos > end:
        raise ValueError("bad packed integer in optional metadata")
    return value, pos


def _bits(data):
    """parse_signedness / parse_column_visibility: most significant bit first."""
    return [bool(byte & mask) for byte in data for mask in (0x80, 0x40, 0x20, 0x10, 8, 4, 2, 1)]


def _packed_list(data):
    out, pos = [], 0
    while pos < len(data):
        value, pos = _packed(data, pos, len(data))
        out.append(value)
    return out


def _default_charset(data):
    default, pos = _packed(data, 0, len(data))
    pairs = []
    while pos < len(data):
        index, pos = _packed(data, pos, len(data))
        collation, pos = _packed(data, pos, len(data))
        pairs.append((index, collation))
    return DefaultCharset(default, pairs)


def _strings(data, pos, end):
    length, pos = _packed(data, pos, end)
    if pos + length > end:
        raise ValueError("optional metadata string truncated")
    return bytes(data[pos:pos + length]), pos + length


def _names(data):
    out, pos = [], 0
    while pos < len(data):
        name, pos = _strings(data, pos, len(data))
        out.append(name)
    return out


def _str_values(data):
    out, pos = [], 0
    while pos < len(data):
        count, pos = _packed(data, pos, len(data))
        values = []
        for _ in range(count):
            value, pos = _strings(data, pos, len(data))
            values.append(value)
        out.append(values)
    return out


def _pk_pairs(data):
    values = _packed_list(data)
    if len(values) % 2:
        raise ValueError("odd PRIMARY_KEY_WITH_PREFIX field")
    return list(zip(values[::2], values[1::2]))


_PARSERS = {
    L.TM_SIGNEDNESS: ("signedness", _bits),
    L.TM_DEFAULT_CHARSET: ("default_charset", _default_charset),
    L.TM_COLUMN_CHARSET: ("column_charsets", _packed_list),
    L.TM_COLUMN_NAME: ("column_names", _names),
    L.TM_SET_STR_VALUE: ("set_str_values", _str_values),
    L.TM_ENUM_STR_VALUE: ("enum_str_values", _str_values),
    L.TM_GEOMETRY_TYPE: ("geometry_types", _packed_list),
    L.TM_SIMPLE_PRIMARY_KEY: ("primary_key", lambda d: [(i, 0) for i in _packed_list(d)]),
    L.TM_PRIMARY_KEY_WITH_PREFIX: ("primary_key", _pk_pairs),
    L.TM_ENUM_AND_SET_DEFAULT_CHARSET: ("enum_and_set_default_charset", _default_charset),
    L.TM_ENUM_AND_SET_COLUMN_CHARSET: ("enum_and_set_column_charsets", _packed_list),
    L.TM_COLUMN_VISIBILITY: ("column_visibility", _bits),
    L.TM_VECTOR_DIMENSIONALITY: ("vector_dimensionality", _packed_list),
}


def parse_optional_metadata(data):
    """Optional_metadata_fields::Optional_metadata_fields: TLV fields -> OptionalMetadata.

    Raises ValueError on a field that runs past the end (the server marks
    the whole metadata invalid then).  Unknown field types are kept raw.
    """
    meta = OptionalMetadata()
    pos, end = 0, len(data)
    while pos < end:
        field_type = data[pos]
        length, pos = _packed(data, pos + 1, end)
        if pos + length > end:
            raise ValueError("optional metadata field truncated")
        value = data[pos:pos + length]
        pos += length
        parser = _PARSERS.get(field_type)
        if parser is None:
            meta.unknown[field_type] = bytes(value)
            continue
        name, parse = parser
        setattr(meta, name, parse(value))
        if field_type == L.TM_PRIMARY_KEY_WITH_PREFIX:
            meta.primary_key_with_prefix = True
    return meta


class CharsetIterator:
    """Default_charset_iterator / Column_charset_iterator of the client's
    print_columns: `next()` is the collation id of the next character (or
    ENUM/SET) column, None when there is none or `collations` (the printing
    tool's get_charset() table, a mapping keyed by id) does not know it."""

    def __init__(self, default, per_column, collations):
        self.default = default.default if default is not None else 0
        self.pairs = list(default.exceptions) if default is not None else []
        self.per_column = list(per_column or ())
        self.collations = collations
        self.index = 0

    def next(self):
        if self.default:
            if self.pairs and self.pairs[0][0] == self.index:
                cs = self.pairs.pop(0)[1]
            else:
                cs = self.default
            self.index += 1
        else:
            cs = self.per_column.pop(0) if self.per_column else None
        return cs if cs in self.collations else None


# -- per column ---------------------------------------------------------------------

@record
class ColumnInfo:
    index: int
    type: int                   # the real type (ENUM/SET/STRING resolved from metadata)
    name: bytes = None
    unsigned: bool = None       # numeric columns, when SIGNEDNESS is present
    collation: int = None       # character, ENUM and SET columns, when charsets are present
    enum_values: list = None
    set_values: list = None
    geometry_type: int = None
    vector_dimensionality: int = None
    visible: bool = None
    primary_key_prefix: int = None      # set for primary-key columns (0 = whole column)


def real_type(col_type, meta):
    """The column type behind a TABLE_MAP type code (table_def::type + STRING meta)."""
    if col_type == _STRING and meta >= 256:
        byte0 = meta >> 8
        if byte0 in (_ENUM, _SET):
            return byte0
        return byte0 | 0x30
    return col_type


def _collations(default, per_column, count):
    """Charset list for `count` columns from DEFAULT_CHARSET or COLUMN_CHARSET."""
    if per_column is not None:
        return list(per_column[:count]) + [None] * (count - len(per_column))
    if default is None:
        return [None] * count
    out = [default.default] * count
    for index, collation in default.exceptions:
        if index < count:
            out[index] = collation
    return out


def column_info(table_map, metadata=None, mariadb=False):
    """One ColumnInfo per column of `table_map` (a rows.TableMapBody)."""
    if metadata is None:
        metadata = parse_optional_metadata(table_map.optional_metadata)
    types = [real_type(t, m) for t, m in zip(table_map.column_types, table_map.column_meta)]
    columns = [ColumnInfo(i, t) for i, t in enumerate(types)]
    char_types = MARIADB_CHARACTER_TYPES if mariadb else CHARACTER_TYPES
    groups = {
        "numeric": [c for c in columns if c.type in NUMERIC_TYPES],
        "char": [c for c in columns if c.type in char_types],
        "enumset": [c for c in columns if c.type in ENUM_SET_TYPES],
    }
    if metadata.column_names is not None:
        for col, name in zip(columns, metadata.column_names):
            col.name = name
    if metadata.signedness is not None:
        for col, bit in zip(groups["numeric"], metadata.signedness):
            col.unsigned = bit
    for group, default, per_column in (
            ("char", metadata.default_charset, metadata.column_charsets),
            ("enumset", metadata.enum_and_set_default_charset,
             metadata.enum_and_set_column_charsets)):
        cols = groups[group]
        for col, collation in zip(cols, _collations(default, per_column, len(cols))):
            col.collation = collation
    _spread(columns, _ENUM, metadata.enum_str_values, "enum_values")
    _spread(columns, _SET, metadata.set_str_values, "set_values")
    _spread(columns, _GEOMETRY, metadata.geometry_types, "geometry_type")
    _spread(columns, L.MYSQL_TYPE_VECTOR, metadata.vector_dimensionality, "vector_dimensionality")
    if metadata.column_visibility is not None:
        for col, visible in zip(columns, metadata.column_visibility):
            col.visible = visible
    for index, prefix in metadata.primary_key or ():
        if index < len(columns):
            columns[index].primary_key_prefix = prefix
    return columns


def _spread(columns, col_type, values, attribute):
    if values is None:
        return
    it = iter(values)
    for col in columns:
        if col.type == col_type:
            value = next(it, None)
            if value is None:
                return
            setattr(col, attribute, value)
