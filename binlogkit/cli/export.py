"""``binlogkit export``: click layer over `binlogkit.analysis.export`.

pandas and pyarrow are imported inside the command, so registering it costs
`binlogkit print` nothing.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import warnings

import click

from binlogkit.cli import exits
from binlogkit.cli.slowlog import server_zone

__all__ = ["export_cmd"]

SUFFIX_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv",
                  ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl"}


def _format(fmt, output):
    if fmt:
        return fmt
    suffix = os.path.splitext(output)[1].lower() if output != "-" else ""
    if suffix and suffix not in SUFFIX_FORMATS:    # e.g. x.xlsx: not JSON lines under that name
        raise click.UsageError(f"cannot tell the format from '{output}': give --format "
                               "parquet, csv or jsonl (or name it .parquet, .csv, .jsonl)")
    return SUFFIX_FORMATS.get(suffix, "jsonl")


def _check_output(fmt, output, files):
    if fmt == "parquet" and output == "-":
        raise click.UsageError("--format parquet needs --output FILE")
    from binlogkit.cli.outputs import refuse_input_as_output
    from binlogkit.errors import BinlogkitError
    try:        # by device and inode: another spelling, a symlink or a hard link too
        refuse_input_as_output(files, output, "--output")
    except BinlogkitError as exc:
        raise click.UsageError(str(exc)) from None


@click.command("export")
@click.argument("files", nargs=-1, required=True, type=click.Path(readable=False))
@click.option("--what", type=click.Choice(["events", "transactions", "slowlog"]),
              default="events", show_default=True,
              help="Rows to write: binlog events, binlog transactions, or slow-log entries.")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv", "jsonl"]), default=None,
              help="Output format (default: from the --output suffix, else jsonl).")
@click.option("-o", "--output", default="-", show_default=True,
              help="Output file; - is standard output (csv and jsonl only).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Decode files in N parallel processes (output order is kept).")
@click.option("--query/--no-query", default=False,
              help="events: add the statement text column.")
@click.option("--server-tz", default=None, metavar="ZONE",
              help="slowlog: zone of times without one (IANA name or +HH:MM).")
@click.option("--chunk-size", type=click.IntRange(min=1), default=50_000, show_default=True,
              help="Rows decoded and written at a time (bounds memory per process).")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@click.option("--stats", is_flag=True,
              help="Print rows written and each worker's peak RSS as JSON on stderr.")
def export_cmd(files, what, fmt, output, jobs, query, server_tz, chunk_size, progress, stats):
    """Write binlog events/transactions or slow-log entries of FILES as Parquet, CSV or JSONL.

    Columns and types are those of binlogkit.frames (see the README).  Exit
    status: 0 success; 1 bad input (rows read before the error are written,
    then one error line naming the file and byte offset); 2 usage error.
    """
    fmt = _format(fmt, output)
    _check_output(fmt, output, files)
    from binlogkit.analysis.export import export
    if what == "slowlog" and server_tz is not None:
        server_zone(server_tz)      # a bad zone is a usage error before any work
    target = sys.stdout.buffer if output == "-" else output
    with exits.reported("binlogkit export", output_name=output), _zone_warnings_to_stderr():
        result = export(files, target, what=what, fmt=fmt, jobs=jobs, query=query,
                        chunk_size=chunk_size, progress=progress, server_tz=server_tz)
    if stats:
        click.echo(json.dumps(result.as_dict()), err=True)


@contextlib.contextmanager
def _zone_warnings_to_stderr():
    """Slow-log zone assumptions as one ``warning:`` line each (not Python's format)."""
    from binlogkit.slowlog.clock import ZoneWarning
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always", ZoneWarning)
        try:
            yield
        finally:
            for w in got:
                if issubclass(w.category, ZoneWarning):
                    click.echo(f"binlogkit export: warning: {w.message}", err=True)
                else:
                    warnings.showwarning(w.message, w.category, w.filename, w.lineno)
