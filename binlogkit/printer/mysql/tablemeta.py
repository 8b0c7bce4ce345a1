"""--print-table-metadata as mysqlbinlog 8.0.41 prints it (sql/log_event.cc).

The walk is printer/tablemeta.py's; MySQL's text adds BOOLEAN, JSON and
VECTOR(n) names (VECTOR as 9.x names it), YEAR's signedness flag (never
printed), column visibility, names quoted with doubled backticks, ENUM/SET
values joined by ', ', and the generated invisible primary key.
"""
from binlogkit.binlog import rows as R
from binlogkit.printer import tablemeta as T
from binlogkit.printer.mysql.charsets import COLLATIONS
from binlogkit.printer.text import PRETTY_ESCAPES

MYSQL_TYPE_BOOL = 244
SIGNEDNESS_TYPES = frozenset({R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24,
                              R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_LONGLONG, R.MYSQL_TYPE_YEAR,
                              R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE, R.MYSQL_TYPE_DECIMAL,
                              R.MYSQL_TYPE_NEWDECIMAL})
_IDENTIFIER_ESCAPES = {**PRETTY_ESCAPES, 0x60: b"``"}


def pretty_identifier(name):
    """pretty_print_str(..., identifier=true): backquoted, with C-like escapes."""
    return b"`" + b"".join(_IDENTIFIER_ESCAPES.get(c) or bytes((c,)) for c in name) + b"`"


def _mysql_type_name(real_type, meta, pos, dims):
    """The get_type_name cases mariadb-binlog does not have."""
    if real_type == MYSQL_TYPE_BOOL:
        return b"BOOLEAN", pos
    if real_type == R.MYSQL_TYPE_JSON:
        return b"JSON", pos + 1
    if real_type == R.MYSQL_TYPE_VECTOR:
        return b"VECTOR(%d)" % dims, pos + 1
    return b"", pos


DIALECT = T.Dialect(
    collations=COLLATIONS,
    character_types=frozenset({R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_VARCHAR,
                               R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_VECTOR}),
    signedness_types=SIGNEDNESS_TYPES,
    unsigned_types=SIGNEDNESS_TYPES - {R.MYSQL_TYPE_YEAR},
    geometry_names=(b"GEOMETRY", b"POINT", b"LINESTRING", b"POLYGON", b"MULTIPOINT",
                    b"MULTILINESTRING", b"MULTIPOLYGON", b"GEOMCOLLECTION"),
    extra_type_name=_mysql_type_name,
    quote_name=pretty_identifier,
    value_separator=b", ",
    column_visibility=True,
    primary_key_name=lambda name: name,
)


def print_columns(tm, gipk):
    return T.print_columns(tm, DIALECT, gipk)


def print_primary_key(tm, gipk):
    return T.print_primary_key(tm, DIALECT, gipk)
