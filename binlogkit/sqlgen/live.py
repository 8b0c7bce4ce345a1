"""Column names and keys from a live server's information_schema (the last resort of
`binlogkit sql`: it describes the table as it is now, and the command says so)."""
from binlogkit.remote.connection import connect
from binlogkit.sqlgen.schema import BINARY_TYPES, ColumnDesc, TableDesc

__all__ = ["LiveSchema"]

_COLUMNS = ("SELECT COLUMN_NAME, COLUMN_TYPE, CHARACTER_SET_NAME, EXTRA, DATA_TYPE "
            "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
            "ORDER BY ORDINAL_POSITION")
_KEYS = ("SELECT INDEX_NAME, COLUMN_NAME, NULLABLE FROM information_schema.STATISTICS "
         "WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s AND NON_UNIQUE = 0 "
         "ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX")


def _text(value):
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


class LiveSchema:
    """A callable (db, table) -> TableDesc or None over one connection (opened when first
    needed; `options`: a remote.connection.ConnectOptions)."""

    def __init__(self, options):
        self.options = options
        self.conn = None
        self.cache = {}

    def __call__(self, db, table):
        if (db, table) not in self.cache:
            self.cache[(db, table)] = self._fetch(db, table)
        return self.cache[(db, table)]

    def _fetch(self, db, table):
        if self.conn is None:
            self.conn = connect(self.options)
        with self.conn.cursor() as cur:
            cur.execute(_COLUMNS, (db, table))
            rows = cur.fetchall()
            if not rows:
                return None
            cur.execute(_KEYS, (db, table))
            keys = cur.fetchall()
        names = [_text(r[0]) for r in rows]
        columns = []
        for name, col_type, charset, extra, data_type in rows:
            col_type, extra = _text(col_type).lower(), _text(extra or "").lower()
            charset = _text(charset) if charset else None
            if charset is None and _text(data_type).lower() in BINARY_TYPES:
                charset = "binary"
            columns.append(ColumnDesc(_text(name), "unsigned" in col_type, charset,
                                      "generated" in extra or "virtual" in extra
                                      or "persistent" in extra or "stored" in extra))
        key = None
        groups = {}
        for index, column, nullable in keys:
            groups.setdefault(_text(index), []).append((_text(column), _text(nullable or "")))
        for index, cols in groups.items():
            if all(not nullable for _, nullable in cols):
                key = [names.index(c) for c, _ in cols if c in names]
                break
        return TableDesc(db, table, columns, key or None, "server")

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None
