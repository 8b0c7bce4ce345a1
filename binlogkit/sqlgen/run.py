"""`binlogkit sql`: transactions of row changes written as SQL (or as JSON lines).

`SqlJob` is what the command line asks for; `run(job)` writes it.  Forward output
streams transaction by transaction; `--flashback` reads everything first (the undo
runs last transaction first) and writes nothing when a row cannot be undone.
"""
import datetime as _dt

from binlogkit._record import field, record
from binlogkit.sqlgen.literals import POSTAMBLE, PREAMBLE
from binlogkit.sqlgen.tables import Describer, change_filter, track_ddl
from binlogkit.sqlgen.statements import RowSql
from binlogkit.sqlgen.walk import iter_transactions

__all__ = ["SqlJob", "run"]

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


_WHEN = {}


def _when(seconds):
    text = _WHEN.get(seconds)
    if text is None:
        if len(_WHEN) > 4096:
            _WHEN.clear()
        text = _WHEN[seconds] = _dt.datetime.fromtimestamp(
            seconds, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    return text


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

    def lines(self, txn, undo):
        track_ddl(self.job, txn, self.describe)
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
        started = False
        for txn in txns:
            lines, has_rows = writer.lines(txn, False)
            if not started and (lines or has_rows):
                out.write(job.header + PREAMBLE)      # after the first event read well
                started = True
            if not has_rows:
                if lines:
                    out.write("".join(lines))
                continue
            out.write(_txn_comment(txn, False) + "BEGIN;\n" + "".join(lines) + "COMMIT;\n")
            count += 1
        if not started:
            out.write(job.header + PREAMBLE)
        out.write(POSTAMBLE)
    if writer.skipped:
        job.warn(f"{writer.skipped} statement(s) (DDL or statement-based changes) are not "
                 "written: `# at` comments mark where they were")
    return count
