"""`binlogkit sql`: transactions of row changes written as SQL (or as JSON lines).

`SqlJob` is what the command line asks for; `run(job)` writes it.  Forward output
streams transaction by transaction; `--flashback` reads everything first (the undo
runs last transaction first) and writes nothing when a row cannot be undone.
"""
import datetime as _dt

from binlogkit._record import field, record
from binlogkit.sqlgen import schema as S
from binlogkit.sqlgen.literals import POSTAMBLE, PREAMBLE
from binlogkit.sqlgen.statements import RowSql
from binlogkit.sqlgen.walk import iter_transactions

__all__ = ["SqlJob", "run", "Describer"]

_DDL_WORDS = (b"CREATE", b"ALTER", b"DROP", b"RENAME", b"TRUNCATE")


@record
class SqlJob:
    paths: list
    out: object                     # a text stream
    window: object = None           # walk.Window
    row_filter: object = None       # filters.RowFilter
    flashback: bool = False
    fmt: str = "sql"                # "sql" or "jsonl"
    schema: object = None           # schema.Schema from --schema
    live: object = None             # callable (db, table) -> TableDesc or None
    warn: object = None             # callable(message): one stderr line
    header: str = ""
    warned: set = field(default_factory=set)


class Describer:
    """TableDesc per table map (cached), from the log, --schema and a server."""

    def __init__(self, job):
        self.job = job
        self.cache = {}

    def __call__(self, change):
        tm = change.table_map
        key = (tm.db, tm.table, tm.column_types, tuple(tm.column_meta), tm.optional_metadata)
        desc = self.cache.get(key)
        if desc is None:
            where = f"{change.path}: at {change.pos}: "
            desc = S.describe(tm, change.mariadb, self.job.schema, self.job.live, where)
            self.cache[key] = desc
            self._note(desc, tm)
        return desc

    def _note(self, desc, tm):
        job = self.job
        if desc.source == "server" and (desc.db, desc.name) not in job.warned:
            job.warned.add((desc.db, desc.name))
            job.warn(f"the columns of `{desc.db}`.`{desc.name}` come from the server's "
                     "information_schema: they describe the table as it is now, not "
                     "necessarily as it was when the log was written")
        ints = [c for c, t in zip(desc.columns, tm.column_types) if t in (1, 2, 3, 8, 9)]
        if any(c.unsigned is None for c in ints) and ("signed", desc.db, desc.name) not in job.warned:
            job.warned.add(("signed", desc.db, desc.name))
            job.warn(f"`{desc.db}`.`{desc.name}`: the log does not say which integer "
                     "columns are UNSIGNED (binlog_row_metadata); negative values are "
                     "written signed: give --schema for exact UNSIGNED values")


def change_filter(job, describe):
    """Yields (change, desc, rows) of a transaction that the filters keep."""
    flt = job.row_filter

    def kept(txn):
        for change in txn.changes:
            if flt is not None:
                db, table = S.table_name(change.table_map)
                if not flt.table_ok(db, table) or not flt.kind_ok(change.kind):
                    continue
            desc = describe(change)
            rows = list(change.rows)
            if flt is not None and flt.where is not None:
                names = [c.name for c in desc.columns]
                rows = [r for r in rows if flt.row_ok(names, r[0], r[1])]
                if not rows:
                    continue
            yield change, desc, rows
    return kept


def _when(seconds):
    return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _safe(text):
    """A file name or GTID for a `#` comment line: no line break can end the comment."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def _txn_comment(txn, undo):
    where = f"{_safe(txn.path)}:{txn.start_pos}"
    gtid = f" GTID {_safe(txn.gtid)}" if txn.gtid else ""
    verb = "undo of the transaction at" if undo else "at"
    return f"# {verb} {where}{gtid}, end {txn.end_pos}, {_when(txn.when)}\n"


class _Statements:
    """The statements of one transaction, with the schema model kept current."""

    def __init__(self, job):
        self.job = job
        self.describe = Describer(job)
        self.rowsql = RowSql(self.describe)
        self.kept = change_filter(job, self.describe)
        self.skipped = 0

    def ddl(self, txn):
        job = self.job
        for stmt in txn.statements:
            if job.schema is not None and stmt.query[:10].upper().lstrip().startswith(_DDL_WORDS):
                text = stmt.query.decode("utf-8", "surrogateescape")
                try:
                    notes = job.schema.add_sql(text, default_db=stmt.db or None)
                except (S.SchemaError, StopIteration, IndexError, ValueError):
                    notes = ["a DDL statement the schema model cannot read"]
                for note in notes:
                    job.warn(f"{stmt.path}: at {stmt.pos}: {note}")

    def lines(self, txn, undo):
        self.ddl(txn)
        out = []
        if txn.statements:
            self.skipped += len(txn.statements)
            for stmt in txn.statements:
                out.append(f"# at {_safe(stmt.path)}:{stmt.pos}: a statement is not written "
                           "(DDL or statement-based changes)\n")
        changes = list(self.kept(txn))
        if undo:
            changes.reverse()
        for change, desc, rows in changes:
            out.extend(self._rows(change, desc, rows, undo))
        return out, bool(changes)

    def _rows(self, change, desc, rows, undo):
        rowsql, tm, kind = self.rowsql, change.table_map, change.kind
        if undo:
            rows = rows[::-1]
        try:
            return [rowsql.row(change, desc, tm, kind, b, a, undo) + "\n" for b, a in rows]
        except ValueError as exc:   # LiteralError
            from binlogkit.sqlgen.statements import SqlError
            raise SqlError(f"{change.path}: at {change.pos}: {exc}") from None


def run(job):
    """Write the job's output; returns the number of transactions written."""
    if job.warn is None:
        job.warn = lambda message: None
    if job.fmt == "jsonl":
        from binlogkit.sqlgen.jsonl import run_jsonl
        return run_jsonl(job)
    writer = _Statements(job)
    txns = iter_transactions(job.paths, job.window)
    out = job.out
    count = 0
    if job.flashback:
        blocks = []
        for txn in txns:
            lines, has_rows = writer.lines(txn, True)
            if has_rows:
                blocks.append((txn, [line for line in lines if not line.startswith("#")]))
        out.write(job.header + PREAMBLE)
        for txn, lines in reversed(blocks):
            out.write(_txn_comment(txn, True) + "BEGIN;\n" + "".join(lines) + "COMMIT;\n")
            count += 1
        out.write(POSTAMBLE)
    else:
        out.write(job.header + PREAMBLE)
        for txn in txns:
            lines, has_rows = writer.lines(txn, False)
            if not has_rows:
                if lines:
                    out.write("".join(lines))
                continue
            out.write(_txn_comment(txn, False) + "BEGIN;\n" + "".join(lines) + "COMMIT;\n")
            count += 1
        out.write(POSTAMBLE)
    if writer.skipped:
        job.warn(f"{writer.skipped} statement(s) (DDL or statement-based changes) are not "
                 "written: `# at` comments mark where they were")
    return count
