"""--print-table-metadata: the `# Columns(...)` and `# Primary Key(...)` lines.

Table_map_log_event::print_columns / print_primary_key / get_type_name, as
mariadb-binlog 10.11 (sql/log_event_client.cc) and mysqlbinlog 8.0.41
(sql/log_event.cc) both walk the optional metadata that
binlog_row_metadata=MINIMAL|FULL servers write (parsed by
binlog/table_metadata.py).  What the two tools print differently -- the
collation table, which types take a charset or a signedness flag, the type
names only one of them knows, how a name is quoted -- is a `Dialect` each
flavor defines (printer/mariadb/tablemeta.py, printer/mysql/tablemeta.py).
"""
from binlogkit._record import record

from binlogkit.binlog import coltypes as C
from binlogkit.binlog import rows as R
from binlogkit.binlog.table_metadata import CharsetIterator, OptionalMetadata, parse_optional_metadata
from binlogkit.printer.safety import comment_safe
from binlogkit.printer.text import pretty_print_str

BINARY_COLLATION = 63
ENUM_SET = frozenset({R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET})
_META_LENGTH = {C.META_NONE: 0, C.META_1: 1, C.META_2LE: 2, C.META_2BE: 2}
# the types whose name says all: (name, metadata bytes to step over), from coltypes' table
_PLAIN_NAMES = {t.code: (t.sql_name, _META_LENGTH[t.meta]) for t in C.COLUMN_TYPES if t.sql_name}
_FSP_NAMES = {R.MYSQL_TYPE_TIMESTAMP2: b"TIMESTAMP", R.MYSQL_TYPE_DATETIME2: b"DATETIME",
              R.MYSQL_TYPE_TIME2: b"TIME"}
_BLOB_NAMES = {1: (b"TINYBLOB", b"TINYTEXT"), 2: (b"BLOB", b"TEXT"),
               3: (b"MEDIUMBLOB", b"MEDIUMTEXT"), 4: (b"LONGBLOB", b"LONGTEXT")}


@record(frozen=True, slots=False)
class Dialect:
    """What one tool's print_columns does its own way."""
    collations: dict                # collation id -> (charset, collation, maxlen)
    character_types: frozenset      # columns that take the next column charset
    signedness_types: frozenset     # columns that take the next signedness flag
    unsigned_types: frozenset       # ... and print UNSIGNED for a set flag
    geometry_names: tuple
    extra_type_name: object         # (real_type, meta, pos, dims) -> (name, pos), b"" if unknown
    quote_name: object              # column name -> quoted bytes
    value_separator: bytes          # between ENUM / SET values
    column_visibility: bool         # prints INVISIBLE from the visibility field
    primary_key_name: object        # column name -> text in '# Primary Key(...)'


_PARSED = {}


def table_metadata(tm):
    """Parsed optional metadata of a TableMapBody (memoized by its bytes).

    A field that runs past the end leaves the metadata empty, as a release
    build of the real tools would find no fields to print.
    """
    key = tm.optional_metadata or b""
    fields = _PARSED.get(key)
    if fields is None:
        if len(_PARSED) > 1024:
            _PARSED.clear()
        try:
            fields = parse_optional_metadata(key)
        except ValueError:
            fields = OptionalMetadata()
        _PARSED[key] = fields
    return fields


def raw_metadata(tm):
    """The TABLE_MAP metadata bytes, rebuilt from the per-column values."""
    out = bytearray()
    for col_type, meta in zip(tm.column_types, tm.column_meta):
        layout = C.BY_CODE[col_type].meta if col_type in C.BY_CODE else C.META_NONE
        if layout == C.META_1:
            out.append(meta & 0xFF)
        elif layout == C.META_2LE:
            out += bytes((meta & 0xFF, meta >> 8))
        elif layout == C.META_2BE:
            out += bytes((meta >> 8, meta & 0xFF))
    return bytes(out)


def type_name(dialect, real_type, meta, pos, cs, geometry_type, dims):
    """get_type_name: (name, position after the column's metadata); b'' when unknown."""
    plain = _PLAIN_NAMES.get(real_type)
    if plain is not None:
        return plain[0], pos + plain[1]
    is_text = cs is not None and cs != BINARY_COLLATION
    maxlen = dialect.collations[cs][2] if cs is not None else 1
    if real_type == R.MYSQL_TYPE_NEWDECIMAL:
        return b"DECIMAL(%d,%d)" % (meta[pos], meta[pos + 1]), pos + 2
    if real_type == R.MYSQL_TYPE_BIT:
        return b"BIT(%d)" % (meta[pos] + meta[pos + 1] * 8), pos + 2
    fsp = _FSP_NAMES.get(real_type)
    if fsp is not None:
        return (fsp + b"(%d)" % meta[pos] if meta[pos] else fsp), pos + 1
    if real_type == R.MYSQL_TYPE_BLOB:
        size = meta[pos]
        if size in _BLOB_NAMES:
            return _BLOB_NAMES[size][is_text], pos + 1
        return (b"INVALID_TEXT(%d)" if is_text else b"INVALID_BLOB(%d)") % size, pos + 1
    if real_type in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING):
        length = meta[pos] | (meta[pos + 1] << 8)
        return (b"VARCHAR(%d)" % (length // maxlen) if is_text
                else b"VARBINARY(%d)" % length), pos + 2
    if real_type == R.MYSQL_TYPE_STRING:
        byte0, byte1 = meta[pos], meta[pos + 1]
        length = (((byte0 & 0x30) ^ 0x30) << 4) | byte1
        return (b"CHAR(%d)" % (length // maxlen) if is_text else b"BINARY(%d)" % length), pos + 2
    if real_type == R.MYSQL_TYPE_GEOMETRY:
        names = dialect.geometry_names
        name = (names[geometry_type] if geometry_type < len(names)
                else b"INVALID_GEOMETRY_TYPE(%d)" % geometry_type)
        return name, pos + 1
    return dialect.extra_type_name(real_type, meta, pos, dims)


class _Fields:
    """The per-column iterators of print_columns over one table's metadata."""

    def __init__(self, fields, collations):
        self.charsets = CharsetIterator(fields.default_charset, fields.column_charsets, collations)
        self.enum_charsets = CharsetIterator(fields.enum_and_set_default_charset,
                                             fields.enum_and_set_column_charsets, collations)
        self.names = iter(fields.column_names or ())
        self.signedness = iter(fields.signedness or ())
        self.set_values = iter(fields.set_str_values or ())
        self.enum_values = iter(fields.enum_str_values or ())
        self.geometry = iter(fields.geometry_types or ())
        self.dims = iter(fields.vector_dimensionality or ())
        self.visibility = iter(fields.column_visibility or ())


def print_columns(tm, dialect, gipk=False):
    """Table_map_log_event::print_columns.  `gipk`: mysqlbinlog prints the
    generated invisible primary key column it knows from the table map flags."""
    it = _Fields(table_metadata(tm), dialect.collations)
    meta = raw_metadata(tm) + b"\0\0"
    out = [b"# Columns("]
    pos = 0
    ncols = len(tm.column_types)
    for i in range(ncols):
        is_gipk = gipk and i == 0
        real_type = tm.column_types[i]
        if real_type == R.MYSQL_TYPE_STRING and meta[pos] in ENUM_SET:
            real_type = meta[pos]
        cs = None
        if real_type in dialect.character_types:
            cs = it.charsets.next()
        elif real_type in ENUM_SET:
            cs = it.enum_charsets.next()
        name = next(it.names, None)
        if name is not None:
            out.append(dialect.quote_name(name) + b" ")
        elif is_gipk:
            out.append(b"`my_row_id` ")
        geometry_type = next(it.geometry, 0) if real_type == R.MYSQL_TYPE_GEOMETRY else 0
        dims = next(it.dims, 0) if real_type == R.MYSQL_TYPE_VECTOR else 0
        text, pos = type_name(dialect, real_type, meta, pos, cs, geometry_type, dims)
        if not text:
            out.append(b"INVALID_TYPE(%d)" % real_type)
            continue                    # (no separator either, as in the real tools)
        out.append(text)
        _column_flags(out, tm, i, real_type, cs, it, dialect, is_gipk)
        if i != ncols - 1:
            out.append(b",\n#         ")
    out.append(b")\n")
    return b"".join(out)


def _column_flags(out, tm, i, real_type, cs, it, dialect, is_gipk):
    """What follows a column's type: UNSIGNED, NOT NULL, values, charset, visibility."""
    flag = next(it.signedness, None) if real_type in dialect.signedness_types else None
    if flag is not None:
        if flag and real_type in dialect.unsigned_types:
            out.append(b" UNSIGNED")
    elif is_gipk:
        out.append(b" UNSIGNED")
    if not tm.nullable(i) or is_gipk:
        out.append(b" NOT NULL")
    values = None
    if real_type == R.MYSQL_TYPE_ENUM:
        values = next(it.enum_values, None)
    elif real_type == R.MYSQL_TYPE_SET:
        values = next(it.set_values, None)
    if values is not None:
        out.append(b"(" + dialect.value_separator.join(pretty_print_str(v) for v in values) + b")")
    if cs is not None and (real_type in ENUM_SET or cs != BINARY_COLLATION):
        charset, collation = dialect.collations[cs][:2]
        out.append(b" CHARSET %s COLLATE %s" % (charset.encode(), collation.encode()))
    visible = next(it.visibility, None) if dialect.column_visibility else None
    if visible is not None:
        if not visible:
            out.append(b" INVISIBLE")
    elif is_gipk:
        out.append(b" INVISIBLE")
    if is_gipk:
        out.append(b" AUTO_INCREMENT")


def print_primary_key(tm, dialect, gipk=False):
    """Table_map_log_event::print_primary_key: names (or indexes) and prefix lengths."""
    if gipk:
        return b"# Primary Key(my_row_id)\n"
    fields = table_metadata(tm)
    if not fields.primary_key:
        return b""
    names = fields.column_names or []
    parts = []
    for index, prefix in fields.primary_key:
        text = comment_safe(dialect.primary_key_name(names[index])) if index < len(names) else b"%d" % index
        if prefix:
            text += b"(%d)" % prefix
        parts.append(text)
    return b"# Primary Key(" + b", ".join(parts) + b")\n"
