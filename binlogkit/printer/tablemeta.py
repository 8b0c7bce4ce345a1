"""--print-table-metadata (MariaDB): the `# Columns(...)` and `# Primary Key(...)` lines.

Table_map_log_event::print_columns / print_primary_key / get_type_name of
mariadb-binlog 10.11 (sql/log_event_client.cc) over the optional metadata
that binlog_row_metadata=MINIMAL|FULL servers write (the layout MySQL
defined; parsed by binlog/table_metadata.py).  The MariaDB text differs from
mysqlbinlog's: GEOMETRY columns count as character columns, no YEAR or
visibility flags, ENUM/SET values joined by ',' and names quoted without
doubling backticks.
"""
from binlogkit.binlog import rows as R
from binlogkit.binlog.charsets import COLLATIONS
from binlogkit.binlog.table_metadata import CharsetIterator
from binlogkit.printer.mysql.tablemeta import raw_metadata, table_metadata
from binlogkit.printer.safety import comment_safe

BINARY_COLLATION = 63
GEOMETRY_NAMES = (b"GEOMETRY", b"POINT", b"LINESTRING", b"POLYGON", b"MULTIPOINT",
                  b"MULTILINESTRING", b"MULTIPOLYGON", b"GEOMETRYCOLLECTION")
NUMERIC_TYPES = frozenset({R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24,
                           R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_LONGLONG, R.MYSQL_TYPE_NEWDECIMAL,
                           R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE})
CHARACTER_TYPES = frozenset({R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_VARCHAR,
                             R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_GEOMETRY})
ENUM_SET = frozenset({R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_SET})
_SIMPLE_NAMES = {R.MYSQL_TYPE_LONG: b"INT", R.MYSQL_TYPE_TINY: b"TINYINT",
                 R.MYSQL_TYPE_SHORT: b"SMALLINT", R.MYSQL_TYPE_INT24: b"MEDIUMINT",
                 R.MYSQL_TYPE_LONGLONG: b"BIGINT", R.MYSQL_TYPE_NEWDATE: b"DATE",
                 R.MYSQL_TYPE_DATE: b"DATE", R.MYSQL_TYPE_YEAR: b"YEAR"}
_FSP_NAMES = {R.MYSQL_TYPE_TIMESTAMP2: b"TIMESTAMP", R.MYSQL_TYPE_DATETIME2: b"DATETIME",
              R.MYSQL_TYPE_TIME2: b"TIME"}
_BLOB_NAMES = {1: (b"TINYBLOB", b"TINYTEXT"), 2: (b"BLOB", b"TEXT"),
               3: (b"MEDIUMBLOB", b"MEDIUMTEXT"), 4: (b"LONGBLOB", b"LONGTEXT")}
_ESCAPES = {0x0A: b"\\n", 0x0D: b"\\r", 0x5C: b"\\\\", 0x08: b"\\b", 0x09: b"\\t",
            0x27: b"\\'", 0x00: b"\\0"}


def pretty_print_str(text, quote=b"'"):
    """pretty_print_str: quoted, with C-like escapes (a quote char inside is left alone)."""
    return quote + b"".join(_ESCAPES.get(c) or bytes((c,)) for c in text) + quote


def type_name(real_type, meta, pos, cs, geometry_type):
    """get_type_name: (name, position after the column's metadata); b'' when unknown."""
    name = _SIMPLE_NAMES.get(real_type)
    if name is not None:
        return name, pos
    is_text = cs is not None and cs != BINARY_COLLATION
    maxlen = COLLATIONS[cs][2] if cs is not None else 1
    if real_type == R.MYSQL_TYPE_NEWDECIMAL:
        return b"DECIMAL(%d,%d)" % (meta[pos], meta[pos + 1]), pos + 2
    if real_type in (R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE):
        return (b"FLOAT" if real_type == R.MYSQL_TYPE_FLOAT else b"DOUBLE"), pos + 1
    if real_type == R.MYSQL_TYPE_BIT:
        return b"BIT(%d)" % (meta[pos] + meta[pos + 1] * 8), pos + 2
    fsp = _FSP_NAMES.get(real_type)
    if fsp is not None:
        return (fsp + b"(%d)" % meta[pos] if meta[pos] else fsp), pos + 1
    if real_type in ENUM_SET:
        return (b"ENUM" if real_type == R.MYSQL_TYPE_ENUM else b"SET"), pos + 2
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
        name = (GEOMETRY_NAMES[geometry_type] if geometry_type < 8
                else b"INVALID_GEOMETRY_TYPE(%d)" % geometry_type)
        return name, pos + 1
    return b"", pos


def print_columns(tm):
    """Table_map_log_event::print_columns."""
    fields = table_metadata(tm)
    meta = raw_metadata(tm) + b"\0\0"
    charsets = CharsetIterator(fields.default_charset, fields.column_charsets, COLLATIONS)
    enum_charsets = CharsetIterator(fields.enum_and_set_default_charset,
                                    fields.enum_and_set_column_charsets, COLLATIONS)
    names, signedness = iter(fields.column_names or ()), iter(fields.signedness or ())
    set_values, enum_values = iter(fields.set_str_values or ()), iter(fields.enum_str_values or ())
    geometry = iter(fields.geometry_types or ())
    out = [b"# Columns("]
    pos = 0
    ncols = len(tm.column_types)
    for i in range(ncols):
        real_type = tm.column_types[i]
        if real_type == R.MYSQL_TYPE_STRING and meta[pos] in ENUM_SET:
            real_type = meta[pos]
        cs = None
        if real_type in CHARACTER_TYPES:
            cs = charsets.next()
        elif real_type in ENUM_SET:
            cs = enum_charsets.next()
        name = next(names, None)
        if name is not None:
            out.append(pretty_print_str(name, b"`") + b" ")
        geometry_type = next(geometry, 0) if real_type == R.MYSQL_TYPE_GEOMETRY else 0
        text, pos = type_name(real_type, meta, pos, cs, geometry_type)
        if not text:
            out.append(b"INVALID_TYPE(%d)" % real_type)
            continue                    # (no separator either, as in the real tool)
        out.append(text)
        if real_type in NUMERIC_TYPES:
            flag = next(signedness, None)
            if flag:
                out.append(b" UNSIGNED")
        if not tm.nullable(i):
            out.append(b" NOT NULL")
        values = None
        if real_type == R.MYSQL_TYPE_ENUM:
            values = next(enum_values, None)
        elif real_type == R.MYSQL_TYPE_SET:
            values = next(set_values, None)
        if values is not None:
            out.append(b"(" + b",".join(pretty_print_str(v) for v in values) + b")")
        if cs is not None and (real_type in ENUM_SET or cs != BINARY_COLLATION):
            charset, collation = COLLATIONS[cs][:2]
            out.append(b" CHARSET %s COLLATE %s" % (charset.encode(), collation.encode()))
        if i != ncols - 1:
            out.append(b",\n#         ")
    out.append(b")\n")
    return b"".join(out)


def print_primary_key(tm):
    """Table_map_log_event::print_primary_key: names (or indexes) and prefix lengths."""
    fields = table_metadata(tm)
    if not fields.primary_key:
        return b""
    names = fields.column_names or []
    parts = []
    for index, prefix in fields.primary_key:
        text = comment_safe(names[index].split(b"\0")[0]) if index < len(names) else b"%d" % index
        if prefix:
            text += b"(%d)" % prefix
        parts.append(text)
    return b"# Primary Key(" + b", ".join(parts) + b")\n"
