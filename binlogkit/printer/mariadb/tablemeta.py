"""--print-table-metadata as mariadb-binlog 10.11 prints it (sql/log_event_client.cc).

The walk is printer/tablemeta.py's; MariaDB's text differs from mysqlbinlog's
in: GEOMETRY columns count as character columns, no YEAR or visibility flags,
no JSON / BOOLEAN / VECTOR names, ENUM/SET values joined by ',' and names
quoted without doubling backticks (a primary key name ends at a NUL byte).
"""
from binlogkit.binlog import rows as R
from binlogkit.printer import tablemeta as T
from binlogkit.printer.mariadb.charsets import COLLATIONS
from binlogkit.printer.text import pretty_print_str

NUMERIC_TYPES = frozenset({R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24,
                           R.MYSQL_TYPE_LONG, R.MYSQL_TYPE_LONGLONG, R.MYSQL_TYPE_NEWDECIMAL,
                           R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE})


def _no_other_type(real_type, meta, pos, dims):
    return b"", pos


DIALECT = T.Dialect(
    collations=COLLATIONS,
    character_types=frozenset({R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_VARCHAR,
                               R.MYSQL_TYPE_BLOB, R.MYSQL_TYPE_GEOMETRY}),
    signedness_types=NUMERIC_TYPES,
    unsigned_types=NUMERIC_TYPES,
    geometry_names=(b"GEOMETRY", b"POINT", b"LINESTRING", b"POLYGON", b"MULTIPOINT",
                    b"MULTILINESTRING", b"MULTIPOLYGON", b"GEOMETRYCOLLECTION"),
    extra_type_name=_no_other_type,
    quote_name=lambda name: pretty_print_str(name, b"`"),
    value_separator=b",",
    column_visibility=False,
    primary_key_name=lambda name: name.split(b"\0")[0],
)


def print_table_metadata(tm):
    """The `# Columns(...)` and `# Primary Key(...)` lines of one table map."""
    return T.print_columns(tm, DIALECT) + T.print_primary_key(tm, DIALECT)
