"""The tables of a job's row changes: their descriptions (cached per table map, with the
warnings a user should see once) and the changes the filters keep."""
from binlogkit.sqlgen import schema as S
from binlogkit.sqlgen.literals import show_name

__all__ = ["Describer", "change_filter", "track_ddl"]

_DDL_WORDS = (b"CREATE", b"ALTER", b"DROP", b"RENAME")


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
            job.warn(f"the columns of {_shown(desc)} come from the server's "
                     "information_schema: they describe the table as it is now, not "
                     "necessarily as it was when the log was written")
        ints = [c for c, t in zip(desc.columns, tm.column_types) if t in (1, 2, 3, 8, 9)]
        unknown = any(c.unsigned is None for c in ints)
        if unknown and ("signed", desc.db, desc.name) not in job.warned:
            job.warned.add(("signed", desc.db, desc.name))
            job.warn(f"{_shown(desc)}: the log does not say which integer "
                     "columns are UNSIGNED (binlog_row_metadata); negative values are "
                     "written signed: give --schema for exact UNSIGNED values")


def _shown(desc):
    return show_name(desc.db) + "." + show_name(desc.name)


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


def track_ddl(job, txn, describe):
    """Keep the job's schema model current with the DDL of a transaction: CREATE TABLE
    statements in the log give names even without --schema; what cannot be modelled
    (ALTER TABLE) is said once, with where it is."""
    for stmt in txn.statements:
        if not stmt.query[:12].upper().lstrip().startswith(_DDL_WORDS):
            continue
        if job.schema is None:
            if not stmt.query[:40].upper().split(b" TABLE")[0].strip().startswith(b"CREATE"):
                continue        # nothing to keep current yet
            job.schema = S.Schema("the log's CREATE TABLE")
        text = stmt.query.decode("utf-8", "surrogateescape")
        try:
            notes = job.schema.add_sql(text, default_db=stmt.db or None)
        except (S.SchemaError, StopIteration, IndexError, ValueError):
            notes = ["a DDL statement the schema model cannot read"]
        describe.cache.clear()
        for note in notes:
            job.warn(f"{stmt.path}: at {stmt.pos}: {note}")
