"""The -v / -vv row text both flavors share: the statement words of each kind
of rows event, the integer and BLOB type names of the -vv comment, and the
divisors that cut microseconds to a column's fractional precision."""
from binlogkit.binlog import rows as R
from binlogkit.binlog.coltypes import FIXED_SIZES

COMMANDS = {
    "write": (b"INSERT INTO", b"### SET\n", None),
    "delete": (b"DELETE FROM", b"### WHERE\n", None),
    "update": (b"UPDATE", b"### WHERE\n", b"### SET\n"),
}
# log_event_print_value's typestr of the integer types, and their size in bytes
INT_NAMES = {code: (name, FIXED_SIZES[code]) for code, name in (
    (R.MYSQL_TYPE_TINY, b"TINYINT"), (R.MYSQL_TYPE_SHORT, b"SHORTINT"),
    (R.MYSQL_TYPE_INT24, b"MEDIUMINT"), (R.MYSQL_TYPE_LONG, b"INT"), (R.MYSQL_TYPE_LONGLONG, b"LONGINT"))}
# ... of a BLOB by its length-prefix size (the metadata)
BLOB_NAMES = {1: b"TINYBLOB/TINYTEXT", 2: b"BLOB/TEXT", 3: b"MEDIUMBLOB/MEDIUMTEXT",
              4: b"LONGBLOB/LONGTEXT"}
# microseconds // FRAC_DIV[fsp]: the fsp digits a TIME2 / DATETIME2 / TIMESTAMP2 prints
FRAC_DIV = (1000000, 100000, 10000, 1000, 100, 10, 1)
