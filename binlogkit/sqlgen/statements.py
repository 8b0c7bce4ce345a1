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
        self._plans = {}            # id(table map) -> _Plan

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
        table = f"{show_name(desc.db)}.{show_name(desc.name)}"
        return (f"cannot undo this {what} of {table}: the log lacks the {which} values "
                f"of {names}{more} (binlog_row_image=MINIMAL or NOBLOB)")

    # -- one statement -------------------------------------------------------------

    def insert(self, desc, tm, image):
        plan = self.plan(desc, tm)
        cols = [i for i, v in enumerate(image) if v is not ABSENT and plan.writable[i]]
        names, fmt = plan.names, plan.formats
        return (f"INSERT INTO {plan.table} ({', '.join([names[i] for i in cols])}) VALUES "
                f"({', '.join([fmt[i](image[i]) for i in cols])});")

    def delete(self, desc, tm, image):
        plan = self.plan(desc, tm)
        return f"DELETE FROM {plan.table} WHERE {self.where(plan, image)} LIMIT 1;"

    def update(self, desc, tm, before, after, always=False):
        plan = self.plan(desc, tm)
        writable = plan.writable
        present = [i for i, v in enumerate(after) if v is not ABSENT and writable[i]]
        types = tm.column_types
        cols = present if always else [
            i for i in present
            if before[i] is ABSENT or before[i] != after[i] or types[i] in _AUTO_UPDATED
            or isinstance(after[i], PartialJson)]
        if not cols:
            cols = present
        sets = []
        names, fmt = plan.names, plan.formats
        for i in cols:
            value = after[i]
            if isinstance(value, PartialJson):
                sets.append(f"{names[i]} = {partial_json_expr(names[i], value)}")
            else:
                sets.append(f"{names[i]} = {fmt[i](value)}")
        return (f"UPDATE {plan.table} SET {', '.join(sets)} "
                f"WHERE {self.where(plan, before)} LIMIT 1;")

    @staticmethod
    def where(plan, image):
        key = plan.key
        if key and all(i < len(image) and image[i] is not ABSENT for i in key):
            cols = key
        else:
            cols = [i for i, v in enumerate(image) if v is not ABSENT and plan.writable[i]]
        names, fmt = plan.names, plan.formats
        terms = [f"{names[i]} IS NULL" if image[i] is None else f"{names[i]} = {fmt[i](image[i])}"
                 for i in cols]
        return " AND ".join(terms) if terms else "1"

    def plan(self, desc, tm):
        """Quoted names and one literal function per column, made once per table map."""
        found = self._plans.get(id(tm))
        if found is not None and found.tm is tm and found.desc is desc:
            return found
        found = self._plans[id(tm)] = _Plan(desc, tm)
        return found

    def value(self, desc, tm, i, value):
        return self.plan(desc, tm).formats[i](value)


class _Plan:
    __slots__ = ("desc", "tm", "table", "names", "formats", "writable", "key")

    def __init__(self, desc, tm):
        self.desc, self.tm = desc, tm
        self.table = _table(desc)
        self.names = [quote_name(c.name) if c.name is not None else None for c in desc.columns]
        self.writable = [not c.generated for c in desc.columns]
        self.key = desc.key
        self.formats = [_formatter(t, m, c) for t, m, c in
                        zip(tm.column_types, tm.column_meta, desc.columns)]


_INT_BYTES = {1: 1, 2: 2, 9: 3, 3: 4, 8: 8}


def _formatter(col_type, meta, column):
    """value -> literal for one column (None -> NULL)."""
    real, length = resolve_type(col_type, meta)
    size = _INT_BYTES.get(real)
    if size is not None:
        if column.unsigned:
            wrap = 1 << (8 * size)
            return lambda v: "NULL" if v is None else str(v + wrap if v < 0 else v)
        return lambda v: "NULL" if v is None else str(v)
    return lambda v: resolved_literal(v, real, length, column)


def _table(desc):
    return quote_name(desc.db) + "." + quote_name(desc.name)

