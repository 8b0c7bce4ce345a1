"""The column types of a row image: one table every decoder and printer reads.

One row per type code (enum_field_types of MySQL and MariaDB): its name,
how its TABLE_MAP metadata is stored, the size of a value when it does not
depend on the metadata or the data, the op of the compiled walkers
(binlog/rowcompile.py, binlogkit/csrc/image.c and text.c) and the SQL name
--print-table-metadata gives a column of it when the metadata adds nothing.
From it come rows.py's metadata and size tables, rowcompile's ops (the C
enum is asserted equal by tests/test_speedups_enums.py) and the printers'
plain type names.  A new type is one row here plus its value code (the
reference decoder's case in rowimage.decode_value, a compiled or C op if it
should be fast, and its text in the printers).
"""
from binlogkit._record import tuple_record

# ops of the compiled walkers; the C enum (csrc/speedups.h OP_*) has the same numbers
(OP_INT, OP_FLOAT, OP_DOUBLE, OP_DECIMAL, OP_YEAR, OP_DATE, OP_TIME, OP_DATETIME, OP_TIMESTAMP,
 OP_TIME2, OP_DATETIME2, OP_TIMESTAMP2, OP_STRING, OP_ENUM, OP_SET, OP_BIT, OP_JSON) = range(1, 18)
NO_OP = 0       # the reference decoder only

META_NONE = ""      # no metadata bytes
META_1 = "1"        # one byte
META_2LE = "2le"    # two bytes, little-endian
META_2BE = "2be"    # two bytes, big-endian (real type or precision first)


class ColumnType(tuple_record("ColumnType", "code name meta fixed_size op sql_name")):
    """One column type.  `name`: enum_field_types without MYSQL_TYPE_; `meta`: META_*, the
    TABLE_MAP metadata of a column of this type; `fixed_size`: bytes of a value when neither
    metadata nor data decides, else None; `op`: OP_* of the compiled walkers for the
    (resolved) type, NO_OP if none; `sql_name`: get_type_name's text when the metadata adds
    nothing, else b""."""
    __slots__ = ()


MYSQL_TYPE_DECIMAL = 0
MYSQL_TYPE_TINY = 1
MYSQL_TYPE_SHORT = 2
MYSQL_TYPE_LONG = 3
MYSQL_TYPE_FLOAT = 4
MYSQL_TYPE_DOUBLE = 5
MYSQL_TYPE_NULL = 6
MYSQL_TYPE_TIMESTAMP = 7
MYSQL_TYPE_LONGLONG = 8
MYSQL_TYPE_INT24 = 9
MYSQL_TYPE_DATE = 10
MYSQL_TYPE_TIME = 11
MYSQL_TYPE_DATETIME = 12
MYSQL_TYPE_YEAR = 13
MYSQL_TYPE_NEWDATE = 14
MYSQL_TYPE_VARCHAR = 15
MYSQL_TYPE_BIT = 16
MYSQL_TYPE_TIMESTAMP2 = 17
MYSQL_TYPE_DATETIME2 = 18
MYSQL_TYPE_TIME2 = 19
MYSQL_TYPE_BLOB_COMPRESSED = 140       # MariaDB
MYSQL_TYPE_VARCHAR_COMPRESSED = 141    # MariaDB
MYSQL_TYPE_VECTOR = 242                # MySQL 9.0+
MYSQL_TYPE_JSON = 245                  # MySQL
MYSQL_TYPE_NEWDECIMAL = 246
MYSQL_TYPE_ENUM = 247
MYSQL_TYPE_SET = 248
MYSQL_TYPE_TINY_BLOB = 249
MYSQL_TYPE_MEDIUM_BLOB = 250
MYSQL_TYPE_LONG_BLOB = 251
MYSQL_TYPE_BLOB = 252
MYSQL_TYPE_VAR_STRING = 253
MYSQL_TYPE_STRING = 254
MYSQL_TYPE_GEOMETRY = 255

_ = ColumnType
COLUMN_TYPES = (
    _(MYSQL_TYPE_DECIMAL, "DECIMAL", META_NONE, None, NO_OP, b""),
    _(MYSQL_TYPE_TINY, "TINY", META_NONE, 1, OP_INT, b"TINYINT"),
    _(MYSQL_TYPE_SHORT, "SHORT", META_NONE, 2, OP_INT, b"SMALLINT"),
    _(MYSQL_TYPE_LONG, "LONG", META_NONE, 4, OP_INT, b"INT"),
    _(MYSQL_TYPE_FLOAT, "FLOAT", META_1, 4, OP_FLOAT, b"FLOAT"),
    _(MYSQL_TYPE_DOUBLE, "DOUBLE", META_1, 8, OP_DOUBLE, b"DOUBLE"),
    _(MYSQL_TYPE_NULL, "NULL", META_NONE, 0, NO_OP, b""),
    _(MYSQL_TYPE_TIMESTAMP, "TIMESTAMP", META_NONE, 4, OP_TIMESTAMP, b""),
    _(MYSQL_TYPE_LONGLONG, "LONGLONG", META_NONE, 8, OP_INT, b"BIGINT"),
    _(MYSQL_TYPE_INT24, "INT24", META_NONE, 3, OP_INT, b"MEDIUMINT"),
    _(MYSQL_TYPE_DATE, "DATE", META_NONE, 3, OP_DATE, b"DATE"),
    _(MYSQL_TYPE_TIME, "TIME", META_NONE, 3, OP_TIME, b""),
    _(MYSQL_TYPE_DATETIME, "DATETIME", META_NONE, 8, OP_DATETIME, b""),
    _(MYSQL_TYPE_YEAR, "YEAR", META_NONE, 1, OP_YEAR, b"YEAR"),
    _(MYSQL_TYPE_NEWDATE, "NEWDATE", META_NONE, 3, OP_DATE, b"DATE"),
    _(MYSQL_TYPE_VARCHAR, "VARCHAR", META_2LE, None, OP_STRING, b""),
    _(MYSQL_TYPE_BIT, "BIT", META_2LE, None, OP_BIT, b""),
    _(MYSQL_TYPE_TIMESTAMP2, "TIMESTAMP2", META_1, None, OP_TIMESTAMP2, b""),
    _(MYSQL_TYPE_DATETIME2, "DATETIME2", META_1, None, OP_DATETIME2, b""),
    _(MYSQL_TYPE_TIME2, "TIME2", META_1, None, OP_TIME2, b""),
    _(MYSQL_TYPE_BLOB_COMPRESSED, "BLOB_COMPRESSED", META_1, None, NO_OP, b""),
    _(MYSQL_TYPE_VARCHAR_COMPRESSED, "VARCHAR_COMPRESSED", META_2LE, None, NO_OP, b""),
    _(MYSQL_TYPE_VECTOR, "VECTOR", META_1, None, NO_OP, b""),
    _(MYSQL_TYPE_JSON, "JSON", META_1, None, OP_JSON, b""),   # mysqlbinlog -v text only
    _(MYSQL_TYPE_NEWDECIMAL, "NEWDECIMAL", META_2BE, None, OP_DECIMAL, b""),
    _(MYSQL_TYPE_ENUM, "ENUM", META_2BE, None, OP_ENUM, b"ENUM"),
    _(MYSQL_TYPE_SET, "SET", META_2BE, None, OP_SET, b"SET"),
    _(MYSQL_TYPE_TINY_BLOB, "TINY_BLOB", META_1, None, NO_OP, b""),
    _(MYSQL_TYPE_MEDIUM_BLOB, "MEDIUM_BLOB", META_1, None, NO_OP, b""),
    _(MYSQL_TYPE_LONG_BLOB, "LONG_BLOB", META_1, None, NO_OP, b""),
    _(MYSQL_TYPE_BLOB, "BLOB", META_1, None, OP_STRING, b""),
    _(MYSQL_TYPE_VAR_STRING, "VAR_STRING", META_2LE, None, OP_STRING, b""),
    _(MYSQL_TYPE_STRING, "STRING", META_2BE, None, OP_STRING, b""),
    _(MYSQL_TYPE_GEOMETRY, "GEOMETRY", META_1, None, OP_STRING, b""),
)
del _

BY_CODE = {t.code: t for t in COLUMN_TYPES}


def codes(**match):
    """The type codes whose rows have the given field values (e.g. meta=META_1)."""
    return frozenset(t.code for t in COLUMN_TYPES
                     if all(getattr(t, field) == value for field, value in match.items()))


FIXED_SIZES = {t.code: t.fixed_size for t in COLUMN_TYPES if t.fixed_size is not None}
OPS = {t.code: t.op for t in COLUMN_TYPES if t.op != NO_OP}
