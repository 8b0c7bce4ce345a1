"""``binlogkit sql`` (row changes as SQL a DBA can run, or undo) and ``binlogkit stats``."""
import datetime as _dt
import io
import os
import sys

import click

from binlogkit.cli import exits

__all__ = ["sql_cmd", "stats_cmd"]

PREFIX = "binlogkit sql"


def _epoch(text, name):
    """--start/stop-datetime: 'YYYY-MM-DD HH:MM:SS[.f]' in the local zone (TZ), or with
    an offset / Z."""
    try:
        when = _dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter(f"not a date and time: {text!r}", param_hint=name) from None
    return when.timestamp()


def _window(start_position, stop_position, start_datetime, stop_datetime, include_gtids,
            exclude_gtids):
    from binlogkit.sqlgen.walk import GtidSet, Window
    try:
        include = GtidSet(include_gtids) if include_gtids else None
        exclude = GtidSet(exclude_gtids) if exclude_gtids else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--include-gtids/--exclude-gtids") from None
    return Window(start_position, stop_position,
                  _epoch(start_datetime, "--start-datetime") if start_datetime else None,
                  _epoch(stop_datetime, "--stop-datetime") if stop_datetime else None,
                  include, exclude)


def _split(values):
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def _check_output(output, files):
    if output in (None, "-"):
        return
    try:
        st = os.stat(output)
    except OSError:
        return
    for path in files:
        try:
            other = os.stat(path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (other.st_dev, other.st_ino):
            raise click.UsageError(f"--output {output} is one of the input files")


def window_options(fn):
    for decorator in reversed([
        click.option("--start-position", type=click.IntRange(min=0), default=None,
                     help="First event offset (in the first file)."),
        click.option("--stop-position", type=click.IntRange(min=0), default=None,
                     help="Stop at this event offset (in the last file)."),
        click.option("--start-datetime", default=None, metavar="TIME",
                     help="Transactions from this time (local zone of TZ, or with an offset)."),
        click.option("--stop-datetime", default=None, metavar="TIME",
                     help="Transactions before this time."),
        click.option("--include-gtids", default=None, metavar="SET",
                     help="Only these GTIDs (uuid:1-5 or MariaDB domain-server-seq)."),
        click.option("--exclude-gtids", default=None, metavar="SET",
                     help="Not these GTIDs."),
        click.option("-d", "--database", "databases", multiple=True, metavar="NAME",
                     help="Only tables of these databases (comma list or repeated; shell "
                          "patterns)."),
        click.option("-t", "--table", "tables", multiple=True, metavar="NAME",
                     help="Only these tables: table or db.table, shell patterns."),
        click.option("--type", "types", multiple=True, metavar="TYPES",
                     help="Only these changes: insert,update,delete."),
    ]):
        fn = decorator(fn)
    return fn


def _row_filter(databases, tables, types, where=None):
    from binlogkit.sqlgen.filters import RowFilter
    return RowFilter(_split(databases), _split(tables), _split(types), where)


def _open_output(output):
    if output in (None, "-"):
        return io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", errors="surrogateescape",
                                newline="\n", write_through=False), False
    return open(output, "w", encoding="utf-8", errors="surrogateescape", newline="\n"), True


def _warn(prefix):
    def warn(message):
        sys.stderr.write(f"{prefix}: warning: {message}\n")
    return warn


@click.command("sql")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-B", "--flashback", is_flag=True,
              help="The undo: every change inverted, last transaction first.")
@click.option("--format", "fmt", type=click.Choice(["sql", "jsonl"]), default="sql",
              show_default=True, help="SQL statements, or change events as JSON lines.")
@click.option("--schema", "schema_file", type=click.Path(dir_okay=False), default=None,
              help="CREATE TABLE statements (mysqldump --no-data) for logs without "
                   "binlog_row_metadata=FULL.")
@click.option("-h", "--host", default=None, help="Ask this server's information_schema "
              "for column names the log and --schema lack.")
@click.option("-P", "--port", type=int, default=0, help="The server's TCP port.")
@click.option("-S", "--socket", default=None, help="The server's unix socket.")
@click.option("-u", "--user", default=None, help="User for the server.")
@click.option("-p", "--password", default=None,
              help="Password for the server (MYSQL_PWD is read when not given).")
@window_options
@click.option("--where", default=None, metavar="EXPR",
              help="Only rows whose values match, e.g. \"id = 7\" or \"id >= 100 and id < 200\".")
@click.option("-o", "--output", default="-", show_default=True, help="Output file.")
def sql_cmd(files, flashback, fmt, schema_file, host, port, socket, user, password,
            start_position, stop_position, start_datetime, stop_datetime, include_gtids,
            exclude_gtids, databases, tables, types, where, output):
    """Row changes of binlogs as SQL: INSERT, UPDATE/DELETE ... WHERE key LIMIT 1, one
    BEGIN/COMMIT per transaction with its GTID and position; --flashback gives the undo."""
    from binlogkit.sqlgen.run import SqlJob, run
    from binlogkit.sqlgen.schema import parse_schema
    _check_output(output, files)
    window = _window(start_position, stop_position, start_datetime, stop_datetime,
                     include_gtids, exclude_gtids)
    if flashback and fmt != "sql":
        raise click.UsageError("--flashback writes SQL (not --format jsonl)")
    with exits.reported(PREFIX, output):
        row_filter = _row_filter(databases, tables, types, where)
        schema = None
        if schema_file:
            with open(schema_file, encoding="utf-8", errors="surrogateescape") as f:
                schema = parse_schema(f.read(), schema_file)
        live = None
        if host or socket or user:
            from binlogkit.remote.connection import ConnectOptions
            from binlogkit.sqlgen.live import LiveSchema
            live = LiveSchema(ConnectOptions(host=host, port=port, socket=socket, user=user,
                                             password=password))
        out, close = _open_output(output)
        header = ("-- binlogkit sql" + (" --flashback" if flashback else "") + ": "
                  + ", ".join(os.path.basename(f).replace("\n", "?") for f in files) + "\n")
        job = SqlJob(list(files), out, window, row_filter, flashback, fmt, schema, live,
                     _warn(PREFIX), header if fmt == "sql" else "")
        try:
            run(job)
        finally:
            out.flush()
            if close:
                out.close()
            if live is not None:
                live.close()


@click.command("stats")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown"]),
              default="table", show_default=True)
@click.option("--top", type=click.IntRange(min=0), default=10, show_default=True,
              help="How many of the biggest and longest transactions to list.")
@window_options
@click.option("-o", "--output", default="-", show_default=True, help="Output file.")
def stats_cmd(files, fmt, top, start_position, stop_position, start_datetime, stop_datetime,
              include_gtids, exclude_gtids, databases, tables, types, output):
    """Which tables and transactions wrote these binlogs: rows and bytes per table and
    DML type, per file, and the biggest and longest transactions."""
    from binlogkit.sqlgen.stats import collect, render
    _check_output(output, files)
    window = _window(start_position, stop_position, start_datetime, stop_datetime,
                     include_gtids, exclude_gtids)
    with exits.reported("binlogkit stats", output):
        doc = collect(list(files), window, _row_filter(databases, tables, types), top)
        out, close = _open_output(output)
        try:
            out.write(render(doc, fmt))
        finally:
            out.flush()
            if close:
                out.close()
