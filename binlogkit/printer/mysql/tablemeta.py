"""--print-table-metadata: the `# Columns(...)` and `# Primary Key(...)` lines.

Table_map_log_event::print_columns / print_primary_key / get_type_name of
MySQL 8.0.41 (sql/log_event.cc), over the optional metadata that
binlog_row_metadata=MINIMAL|FULL servers write (rows_event.cpp
Optional_metadata_fields).  VECTOR columns (9.0+) are named like 9.x does.
"""
from binlogkit.binlog import rows as R
from binlogkit.binlog.table_metadata import CharsetIterator, OptionalMetadata, parse_optional_metadata
from binlogkit.printer.mysql.charsets import COLLATIONS
from binlogkit.printer.safety import comment_safe

MYSQL_TYPE_BOOL = 244
MYSQL_TYPE_VECTOR = 242
BINARY_COLLATION = 63
GEOMETRY_NAMES = (b"GEOMETRY", b"POINT", b"LINESTRING", b"POLYGON", b"MULTIPOINT",
                  b"MULTILINESTRING", b"MULTIPOLYGON", b"GEOMCOLLECTION")
SIGNEDNESS_TYPES = frozenset({R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24,
                              R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_LONGLONG, R.MYSQL_TYPE_YEAR,
                              R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE, R.MYSQL_TYPE_DECIMAL,
                              R.MYSQL_TYPE_NEWDECIMAL})
CHARACTER_TYPES = frozenset({R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_VARCHAR,
                             R.MYSQL_TYPE_BLOB, MYSQL_TYPE_VECTOR})
ENUM_SET = frozenset({R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET})


_PARSED = {}


def table_metadata(tm):
    """Parsed optional metadata of a TableMapBody (memoized by its bytes).

    A field that runs past the end leaves the metadata empty, as a release
    build of mysqlbinlog would find no fields to print.
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
        if col_type in R._META_1 or col_type == MYSQL_TYPE_VECTOR:
            out.append(meta & 0xFF)
        elif col_type in R._META_2_LE or col_type == R.MYSQL_TYPE_BIT:
            out += bytes((meta & 0xFF, meta >> 8))
        elif col_type in R._META_2_BE:
            out += bytes((meta >> 8, meta & 0xFF))
    return bytes(out)


def _type_name(real_type, meta, pos, cs, geometry_type, dims):
    """get_type_name: (name, new metadata position); name b'' for unknown types."""
    is_text = cs is not None and cs != BINARY_COLLATION
    maxlen = COLLATIONS.get(cs, (None, None, 1))[2] if cs is not None else 1
    if real_type == R.MYSQL_TYPE_LONG:
        return b"INT", pos
    if real_type == MYSQL_TYPE_BOOL:
        return b"BOOLEAN", pos
    simple = {R.MYSQL_TYPE_TINY: b"TINYINT", R.MYSQL_TYPE_SHORT: b"SMALLINT",
              R.MYSQL_TYPE_INT24: b"MEDIUMINT", R.MYSQL_TYPE_LONGLONG: b"BIGINT",
              R.MYSQL_TYPE_NEWDATE: b"DATE", R.MYSQL_TYPE_DATE: b"DATE", R.MYSQL_TYPE_YEAR: b"YEAR"}
    if real_type in simple:
        return simple[real_type], pos
    if real_type == R.MYSQL_TYPE_NEWDECIMAL:
        return b"DECIMAL(%d,%d)" % (meta[pos], meta[pos + 1]), pos + 2
    if real_type in (R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE):
        return (b"FLOAT" if real_type == R.MYSQL_TYPE_FLOAT else b"DOUBLE"), pos + 1
    if real_type == R.MYSQL_TYPE_BIT:
        return b"BIT(%d)" % (meta[pos] + meta[pos + 1] * 8), pos + 2
    fsp = {R.MYSQL_TYPE_TIMESTAMP2: b"TIMESTAMP", R.MYSQL_TYPE_DATETIME2: b"DATETIME",
           R.MYSQL_TYPE_TIME2: b"TIME"}.get(real_type)
    if fsp is not None:
        return (fsp + b"(%d)" % meta[pos] if meta[pos] else fsp), pos + 1
    if real_type in ENUM_SET:
        return (b"ENUM" if real_type == R.MYSQL_TYPE_ENUM else b"SET"), pos + 2
    if real_type == R.MYSQL_TYPE_BLOB:
        size = meta[pos]
        names = {1: (b"TINYBLOB", b"TINYTEXT"), 2: (b"BLOB", b"TEXT"), 3: (b"MEDIUMBLOB", b"MEDIUMTEXT"),
                 4: (b"LONGBLOB", b"LONGTEXT")}
        if size in names:
            return names[size][is_text], pos + 1
        return (b"INVALID_TEXT(%d)" if is_text else b"INVALID_BLOB(%d)") % size, pos + 1
    if real_type in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING):
        length = meta[pos] | (meta[pos + 1] << 8)
        name = b"VARCHAR(%d)" % (length // maxlen) if is_text else b"VARBINARY(%d)" % length
        return name, pos + 2
    if real_type == R.MYSQL_TYPE_STRING:
        byte0, byte1 = meta[pos], meta[pos + 1]
        length = (((byte0 & 0x30) ^ 0x30) << 4) | byte1
        return (b"CHAR(%d)" % (length // maxlen) if is_text else b"BINARY(%d)" % length), pos + 2
    if real_type == R.MYSQL_TYPE_JSON:
        return b"JSON", pos + 1
    if real_type == R.MYSQL_TYPE_GEOMETRY:
        name = (GEOMETRY_NAMES[geometry_type] if geometry_type < 8
                else b"INVALID_GEOMETRY_TYPE(%d)" % geometry_type)
        return name, pos + 1
    if real_type == MYSQL_TYPE_VECTOR:
        return b"VECTOR(%d)" % dims, pos + 1
    return b"", pos


def pretty_identifier(name):
    """pretty_print_str(..., identifier=true): backquoted, with C-like escapes."""
    out = bytearray(b"`")
    for c in name:
        out += {0x0A: b"\\n", 0x0D: b"\\r", 0x5C: b"\\\\", 0x08: b"\\b", 0x09: b"\\t",
                0x27: b"\\'", 0x00: b"\\0", 0x60: b"``"}.get(c, bytes((c,)))
    out += b"`"
    return bytes(out)


def print_columns(tm, gipk):
    """Table_map_log_event::print_columns."""
    from binlogkit.printer.events import pretty_print_str
    fields = table_metadata(tm)
    meta = raw_metadata(tm) + b"\0\0"
    charsets = CharsetIterator(fields.default_charset, fields.column_charsets, COLLATIONS)
    enum_charsets = CharsetIterator(fields.enum_and_set_default_charset,
                                    fields.enum_and_set_column_charsets, COLLATIONS)
    names, signedness = iter(fields.column_names or ()), iter(fields.signedness or ())
    set_values, enum_values = iter(fields.set_str_values or ()), iter(fields.enum_str_values or ())
    geometry, dims_it = iter(fields.geometry_types or ()), iter(fields.vector_dimensionality or ())
    visibility = iter(fields.column_visibility or ())
    out = [b"# Columns("]
    pos = 0
    ncols = len(tm.column_types)
    for i in range(ncols):
        real_type = tm.column_types[i]
        if real_type == R.MYSQL_TYPE_STRING and meta[pos] in (R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET):
            real_type = meta[pos]
        cs = None
        if real_type in CHARACTER_TYPES:
            cs = charsets.next()
        elif real_type in ENUM_SET:
            cs = enum_charsets.next()
        name = next(names, None)
        if name is not None:
            out.append(pretty_identifier(name) + b" ")
        elif i == 0 and gipk:
            out.append(b"`my_row_id` ")
        geometry_type = next(geometry, 0) if real_type == R.MYSQL_TYPE_GEOMETRY else 0
        dims = next(dims_it, 0) if real_type == MYSQL_TYPE_VECTOR else 0
        type_name, pos = _type_name(real_type, meta, pos, cs, geometry_type, dims)
        if not type_name:
            out.append(b"INVALID_TYPE(%d)" % real_type)
            continue
        out.append(type_name)
        if real_type in SIGNEDNESS_TYPES:
            flag = next(signedness, None)
            if flag is not None:
                if flag and real_type != R.MYSQL_TYPE_YEAR:
                    out.append(b" UNSIGNED")
            elif i == 0 and gipk:
                out.append(b" UNSIGNED")
        elif i == 0 and gipk:
            out.append(b" UNSIGNED")
        if not tm.nullable(i):
            out.append(b" NOT NULL")
        elif i == 0 and gipk:
            out.append(b" NOT NULL")
        values = None
        if real_type == R.MYSQL_TYPE_ENUM:
            values = next(enum_values, None)
        elif real_type == R.MYSQL_TYPE_SET:
            values = next(set_values, None)
        if values is not None:
            out.append(b"(" + b", ".join(pretty_print_str(v) for v in values) + b")")
        if cs is not None and (real_type in ENUM_SET or cs != BINARY_COLLATION):
            info = COLLATIONS.get(cs)
            if info is not None:
                out.append(b" CHARSET %s COLLATE %s" % (info[0].encode(), info[1].encode()))
        visible = next(visibility, None)
        if visible is not None:
            if not visible:
                out.append(b" INVISIBLE")
        elif i == 0 and gipk:
            out.append(b" INVISIBLE")
        if i == 0 and gipk:
            out.append(b" AUTO_INCREMENT")
        if i != ncols - 1:
            out.append(b",\n#         ")
    out.append(b")\n")
    return b"".join(out)


def print_primary_key(tm, gipk):
    if gipk:
        return b"# Primary Key(my_row_id)\n"
    fields = table_metadata(tm)
    if not fields.primary_key:
        return b""
    parts = []
    names = fields.column_names or []
    for index, prefix in fields.primary_key:
        text = comment_safe(names[index]) if index < len(names) else b"%d" % index
        if prefix:
            text += b"(%d)" % prefix
        parts.append(text)
    return b"# Primary Key(" + b", ".join(parts) + b")\n"
