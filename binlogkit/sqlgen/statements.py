"""Row changes as SQL statements: INSERT / UPDATE ... WHERE key LIMIT 1 / DELETE ...,
and their undo (`--flashback`).

`RowSql(describe)` turns one row of a Change into a statement; `undo=True` gives
the statement that reverts it (INSERT <-> DELETE, an UPDATE's images swapped).  The
WHERE names the key columns (primary key, else a NOT NULL unique key) when the
image holds them, else every column of the image.  An undo that needs values the
log does not hold (binlog_row_image=MINIMAL or NOBLOB) raises CannotUndo rather
than writing a statement that would be wrong.
"""
from binlogkit.binlog import coltypes as C
from binlogkit.binlog.json_binary import PartialJson
from binlogkit.binlog.rowimage import ABSENT, resolve_type
from binlogkit.errors import BinlogkitError
from binlogkit.sqlgen.literals import (
    LiteralError, partial_json_expr, quote_name, resolved_literal, show_name,
)

__all__ = ["RowSql", "CannotUndo", "SqlError"]

# columns an UPDATE may change by itself (ON UPDATE CURRENT_TIMESTAMP): always SET
_AUTO_UPDATED = frozenset({C.MYSQL_TYPE_TIMESTAMP, C.MYSQL_TYPE_TIMESTAMP2,
                           C.MYSQL_TYPE_DATETIME, C.MYSQL_TYPE_DATETIME2})


class SqlError(BinlogkitError):
    """A row that cannot be written as SQL (one line: file, offset, why)."""


class CannotUndo(SqlError):
    """--flashback needs values the row images do not hold."""


def _located(cls, change, message):
    return cls(f"{change.path}: at {change.pos}: {message}")


class RowSql:
    """Statements for the rows of Changes; `describe(change)` gives the TableDesc."""

    def __init__(self, describe):
        self.describe = describe
        self._resolved = {}         # id(table map) -> (table map, [(real type, length)])

    def statements(self, change, undo=False):
        """The statements of every row of a Change (in reverse for an undo)."""
        desc = self.describe(change)
        tm = change.table_map
        kind = change.kind
        out = []
        try:
            for before, after in change.rows:
                out.append(self.row(change, desc, tm, kind, before, after, undo))
        except LiteralError as exc:
            raise _located(SqlError, change, str(exc)) from None
        if undo:
            out.reverse()
        return out

    def row(self, change, desc, tm, kind, before, after, undo):
        if kind == "update" and any(isinstance(a, PartialJson) for a in after):
            # a partial JSON column without diffs (PARTIAL_JSON logs every JSON column of
            # the image so) is the old document
            after = [b if isinstance(a, PartialJson) and not a.diffs else a
                     for b, a in zip(before, after)]
        if not undo:
            if kind == "write":
                return self.insert(desc, tm, after)
            if kind == "delete":
                return self.delete(desc, tm, before)
            return self.update(desc, tm, before, after)
        if kind == "write":
            return self.delete(desc, tm, after)
        if kind == "delete":
            missing = [i for i, v in enumerate(before)
                       if v is ABSENT and not desc.columns[i].generated]
            if missing:
                raise _located(CannotUndo, change, self._lacks("DELETE", desc, missing, "row"))
            return self.insert(desc, tm, before)
        changed = [i for i, v in enumerate(after) if v is not ABSENT]
        missing = [i for i in changed if before[i] is ABSENT and not desc.columns[i].generated]
        if missing:
            raise _located(CannotUndo, change, self._lacks("UPDATE", desc, missing, "old"))
        current = [ABSENT if isinstance(a, PartialJson) else a if a is not ABSENT else b
                   for b, a in zip(before, after)]
        key = desc.key
        if len(current) != len(after) or (
                any(isinstance(a, PartialJson) for a in after)
                and not (key and all(current[i] is not ABSENT for i in key))):
            raise _located(CannotUndo, change, "a partial JSON update of a table without a "
                           "key: the new document is not in the log "
                           "(binlog_row_value_options=PARTIAL_JSON), so no WHERE can find the row")
        types = tm.column_types
        differ = {i for i in changed if before[i] != after[i] or types[i] in _AUTO_UPDATED
                  or isinstance(after[i], PartialJson)}
        changed = differ or set(changed)
        target = [before[i] if i in changed else ABSENT for i in range(len(before))]
        return self.update(desc, tm, current, target, always=True)

    @staticmethod
    def _lacks(what, desc, missing, which):
        names = ", ".join(show_name(desc.columns[i].name) for i in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        return (f"cannot undo this {what} of {show_name(desc.db)}.{show_name(desc.name)}: the log lacks the {which} values "
                f"of {names}{more} (binlog_row_image=MINIMAL or NOBLOB)")

    # -- one statement -------------------------------------------------------------

    def insert(self, desc, tm, image):
        cols = [i for i, v in enumerate(image) if v is not ABSENT and not desc.columns[i].generated]
        names = ", ".join(quote_name(desc.columns[i].name) for i in cols)
        values = ", ".join(self.value(desc, tm, i, image[i]) for i in cols)
        return f"INSERT INTO {_table(desc)} ({names}) VALUES ({values});"

    def delete(self, desc, tm, image):
        return f"DELETE FROM {_table(desc)} WHERE {self.where(desc, tm, image)} LIMIT 1;"

    def update(self, desc, tm, before, after, always=False):
        present = [i for i, v in enumerate(after)
                   if v is not ABSENT and not desc.columns[i].generated]
        types = tm.column_types
        cols = present if always else [
            i for i in present
            if before[i] is ABSENT or before[i] != after[i] or types[i] in _AUTO_UPDATED
            or isinstance(after[i], PartialJson)]
        if not cols:
            cols = present
        sets = []
        for i in cols:
            name = quote_name(desc.columns[i].name)
            value = after[i]
            if isinstance(value, PartialJson):
                sets.append(f"{name} = {partial_json_expr(name, value)}")
            else:
                sets.append(f"{name} = {self.value(desc, tm, i, value)}")
        return (f"UPDATE {_table(desc)} SET {', '.join(sets)} "
                f"WHERE {self.where(desc, tm, before)} LIMIT 1;")

    def where(self, desc, tm, image):
        key = desc.key
        if key and all(i < len(image) and image[i] is not ABSENT for i in key):
            cols = key
        else:
            cols = [i for i, v in enumerate(image)
                    if v is not ABSENT and not desc.columns[i].generated]
        terms = []
        for i in cols:
            name = quote_name(desc.columns[i].name)
            if image[i] is None:
                terms.append(f"{name} IS NULL")
            else:
                terms.append(f"{name} = {self.value(desc, tm, i, image[i])}")
        return " AND ".join(terms) if terms else "1"

    def value(self, desc, tm, i, value):
        if value is None:
            return "NULL"
        resolved = self._resolved.get(id(tm))
        if resolved is None or resolved[0] is not tm:
            resolved = self._resolved[id(tm)] = (tm, [
                resolve_type(t, m) for t, m in zip(tm.column_types, tm.column_meta)])
        real, length = resolved[1][i]
        return resolved_literal(value, real, length, desc.columns[i])


def _table(desc):
    return quote_name(desc.db) + "." + quote_name(desc.name)

