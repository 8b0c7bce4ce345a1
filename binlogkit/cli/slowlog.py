"""``binlogkit slowlog digest|events``: click layer over the slowlog package."""

from __future__ import annotations

import csv
import json
import re
import sys
import time

import click

from binlogkit.cli import exits
from binlogkit.errors import BinlogkitError, SlowlogError
from binlogkit.slowlog.digest import GROUP_BY, Digest
from binlogkit.slowlog.parser import ParseStats, parse_slowlog
from binlogkit.slowlog.timeparse import ServerZone, parse_time_value

__all__ = ["slowlog", "parse_bound", "server_zone"]

_REL = re.compile(r"(\d+)([smhd]?)")
_DATE_ONLY = re.compile(r"(\d{4}-\d\d-\d\d|\d{6})")


def parse_bound(value: str, zone: ServerZone, now=None) -> int:
    """--since/--until value to epoch microseconds.

    ``N[smhd]`` is relative to now; ``YYYY-MM-DD[ HH:MM:SS[.f]][Z|+HH:MM]``,
    ``...THH:MM:SS`` and ``YYMMDD[ H:MM:SS]`` are absolute; without a zone
    suffix they are server-local (``--server-tz``), like the log's own times.
    """
    v = value.strip()
    m = _REL.fullmatch(v)
    if m and not _DATE_ONLY.fullmatch(v):
        n = int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
        return int(((now or time.time()) - n) * 1_000_000)
    if _DATE_ONLY.fullmatch(v):
        v += " 00:00:00" if "-" in v else " 0:00:00"
    got = parse_time_value(v.encode(), zone)
    if got is None:
        raise click.BadParameter(f"cannot read time {value!r}")
    return got


def server_zone(server_tz):
    try:
        return ServerZone(server_tz)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--server-tz") from None


def _fail(exc):
    exits.fail("binlogkit slowlog", exc)


# no checks here: a missing, unreadable or directory input is bad input (exit 1), not usage
_files = click.argument("files", nargs=-1, required=True,
                        type=click.Path(allow_dash=True, readable=False))
_tz = click.option("--server-tz", default=None, metavar="ZONE",
                   help="Zone of times without one (IANA name or +HH:MM); default: local.")


@click.group()
def slowlog():
    """Parse and digest MySQL/MariaDB slow query logs."""


@slowlog.command()
@_files
@_tz
@click.option("--since", default=None, help="Only entries ending at or after this time.")
@click.option("--until", default=None, help="Only entries ending at or before this time.")
@click.option("--group-by", type=click.Choice(GROUP_BY), default="fingerprint", show_default=True)
@click.option("--limit", default="95%:20", show_default=True, metavar="N|P%|P%:N",
              help="Classes to report: N worst (0 = all), or the worst making up P% of the "
                   "--order-by total, at most N (pt-query-digest's --limit).")
@click.option("--order-by", default="Query_time:sum", show_default=True, metavar="ATTR:FUNC",
              help="Rank classes by an attribute's sum, max, min or cnt.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "csv", "pt-json"]),
              default="text", show_default=True,
              help="pt-json: pt-query-digest --output json's structure and values.")
@click.option("-o", "--output", default="-", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the report here (default: stdout).")
@click.option("--filter", "filter_expr", default=None, metavar="EXPR",
              help="Only entries matching EXPR, e.g. 'Query_time > 1 and db == shop' "
                   "(comparisons == != < <= > >= =~ !~, and/or/not, parentheses).")
@click.option("--jobs", type=click.IntRange(1, 2), default=2, show_default=True,
              help="Processes for one big uncompressed file (the result is the same).")
def digest(files, server_tz, since, until, group_by, limit, order_by, fmt, output, filter_expr,
           jobs):
    """A pt-query-digest-like report of the query classes in FILES (.gz/.bz2/.xz, - = stdin).

    Exit status: 0 success; 1 bad input (a missing or unreadable file, not a slow log:
    one line naming it); 2 usage error."""
    from binlogkit.slowlog import report
    from binlogkit.slowlog.parallel import digest_files
    from binlogkit.slowlog.filterexpr import FilterError, compile_filter_names
    limit_spec = parse_limit(limit)
    order_spec = parse_order_by(order_by)
    try:
        entry_filter, filter_names = (compile_filter_names(filter_expr) if filter_expr is not None
                                      else (None, ()))
    except FilterError as exc:
        raise click.BadParameter(str(exc), param_hint="--filter") from None
    out = _open_output(output, files)
    zone = server_zone(server_tz)
    since_us = parse_bound(since, zone) if since else None
    until_us = parse_bound(until, zone) if until else None
    stats = ParseStats()
    dg = Digest(group_by=group_by, since_us=since_us, until_us=until_us, entry_filter=entry_filter)
    try:
        if entry_filter is None:
            digest_files(list(files), dg, zone=zone, stats=stats, workers=jobs)
        else:       # the filter looks at whole entries: the line parser
            seen = set()
            dg.add_all(_noting_attributes(parse_slowlog(list(files), zone=zone, stats=stats),
                                          seen if filter_names else None))
    except BinlogkitError as exc:
        _fail(exc)
    if stats.recognized == 0 and stats.bytes > 0 and not stats.header_lines:
        _fail(SlowlogError("not a slow log (no slow-log entries found)", path=", ".join(
            str(f) for f in files)))
    names = [str(f) for f in files]
    if fmt == "pt-json":
        from binlogkit.slowlog.ptjson import pt_json
        text = pt_json(dg, names, order_spec, limit_spec) if dg.by_key else ""
    else:
        render = {"text": report.to_text, "json": report.to_json, "csv": report.to_csv}[fmt]
        text = render(dg, stats, names, limit_spec, order_spec)
    _write(text, out)
    _parse_warnings(stats)
    _zone_warnings(stats, server_tz)
    if filter_names:
        from binlogkit.slowlog.filterexpr import unknown_attributes
        for name in unknown_attributes(filter_names, seen):
            click.echo(f"binlogkit slowlog: warning: --filter: no entry has an attribute "
                       f"{name} (names are case-sensitive, as the log writes them); "
                       f"comparisons with it are false", err=True)
    if dg.by_key and dg.global_.stat(order_spec[0]) is None:
        click.echo(f"binlogkit slowlog: warning: --order-by: no entry has an attribute "
                   f"{order_spec[0].decode()} (names are case-sensitive, as the log writes "
                   f"them); no class is ranked, all are in MISC", err=True)


def _noting_attributes(entries, seen):
    """``entries``, adding the attribute names of each to ``seen`` (None: as they are)."""
    if seen is None:
        yield from entries
        return
    for ev in entries:
        seen.update(ev.attrs)
        yield ev


def _parse_warnings(stats):
    if stats.skipped_lines or stats.bad_times or stats.bad_values:
        first = ""
        if stats.first_skipped is not None:
            first = " (the first: {} line {})".format(*stats.first_skipped)
        click.echo(f"binlogkit slowlog: skipped {stats.skipped_lines} unparseable lines{first}, "
                   f"{stats.bad_times} bad times, {stats.bad_values} bad values", err=True)


def _zone_warnings(stats, server_tz):
    from binlogkit.slowlog.clock import zone_warnings
    for line in zone_warnings(stats, server_tz):
        click.echo(f"binlogkit slowlog: warning: {line}", err=True)


@slowlog.command()
@_files
@_tz
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv", "parquet"]), default="jsonl",
              show_default=True)
@click.option("-o", "--output", default="-", type=click.Path(dir_okay=False, allow_dash=True),
              help="Output file (required for parquet).")
def events(files, server_tz, fmt, output):
    """Write every parsed entry of FILES (one row each, times in UTC).

    Exit status: 0 success; 1 bad input (a missing or unreadable file, not a slow log:
    one line naming it); 2 usage error."""
    from binlogkit.slowlog.fields import BASE_COLUMNS, attrs_text, entry_row
    zone = server_zone(server_tz)
    stats = ParseStats()
    entries = parse_slowlog(list(files), zone=zone, stats=stats)
    try:
        if fmt == "parquet":
            if output == "-":
                raise click.UsageError("--format parquet needs -o FILE")
            _refuse_input(files, output)
            from binlogkit.analysis.slowlog_frame import entries_frame    # pandas: only here
            try:
                entries_frame(entries).to_parquet(output, index=False)
            except ImportError as exc:
                _fail(SlowlogError(f"parquet output needs pyarrow ({exc})"))
            return
        out = _open_output(output, files)
        try:
            if fmt == "jsonl":
                for ev in entries:
                    out.write(json.dumps(entry_row(ev)) + "\n")
            else:
                w = csv.writer(out, lineterminator="\n")
                w.writerow(BASE_COLUMNS + ["attrs"])
                for ev in entries:
                    row = entry_row(ev)
                    row["attrs"] = attrs_text(row["attrs"])
                    w.writerow([row[c] for c in BASE_COLUMNS + ["attrs"]])
        finally:
            if out is not sys.stdout:
                out.close()
    except BinlogkitError as exc:
        _fail(exc)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(0)
    _zone_warnings(stats, server_tz)


def _open_output(output, files=()):
    """The report's stream; an unwritable path, or one of the inputs, is one line and
    exit 1, before any work."""
    if output == "-":
        return sys.stdout
    _refuse_input(files, output)
    try:
        return open(output, "w", encoding="utf-8", newline="")
    except OSError as exc:
        _fail(SlowlogError(f"cannot write: {exc.strerror or exc}", path=output))


def _refuse_input(files, output):
    from binlogkit.cli.outputs import refuse_input_as_output
    try:
        refuse_input_as_output(files, output, "-o")
    except BinlogkitError as exc:
        _fail(exc)


def _write(text, out=None):
    out = out or sys.stdout
    try:
        out.write(text)
        out.flush()
        if out is not sys.stdout:
            out.close()
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(0)
    except OSError as exc:
        _fail(SlowlogError(f"write error: {exc.strerror or exc}", path=getattr(out, "name", "-")))


_LIMIT = re.compile(r"(?:(\d+(?:\.\d+)?)%)?(?::?(\d+))?")


def parse_limit(value):
    """``N``, ``P%`` or ``P%:N`` to (percent or None, count or 0)."""
    m = _LIMIT.fullmatch(value.strip())
    if not m or not value.strip():
        raise click.BadParameter(f"{value!r} is not N, P% or P%:N", param_hint="--limit")
    pct, count = m.groups()
    return (float(pct) if pct is not None else None), int(count or 0)


def parse_order_by(value):
    """``ATTR:sum|max|min|cnt`` to (bytes name, func)."""
    name, _, func = value.partition(":")
    func = func or "sum"
    if not re.fullmatch(r"\w+", name) or func not in ("sum", "max", "min", "cnt"):
        raise click.BadParameter(f"{value!r} is not ATTR:sum|max|min|cnt", param_hint="--order-by")
    return name.encode(), func

