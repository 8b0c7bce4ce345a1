"""``binlogkit report``: the click command (pandas is imported only when it runs)."""
from __future__ import annotations

import sys

import click

from binlogkit.cli import exits
from binlogkit.cli.slowlog import parse_bound, server_zone

__all__ = ["report"]

_MULTI = ("--binlog", "--slowlog")

HELP = """Find stalls in slow logs and say which binlog rotation caused each.

\b
  binlogkit report --binlog /var/lib/mysql/mariadb-bin.0* --slowlog slow.log
  binlogkit report --binlog b.000041 b.000042 --slowlog slow.log --server-tz Europe/Berlin \\
      --format html --output stalls.html
  binlogkit report --binlog ... --slowlog ... --state /var/lib/binlogkit/state.json   # cron

A stall is a group of statements released at one instant after waiting since
a common one (a pile-up), or several slow statements at once.  A pile-up of
writes/COMMITs starting at a binlog ROTATE event is caused by that rotation
(`binlog_rotation`).  A stretch with no commit in the binlogs is a stall when
work waited through it (a slow-log write or COMMIT across it; on MySQL, a
transaction committed long after its statement began); with nothing waiting it
is idle time, never a stall.  Other causes: `lock` (FLUSH TABLES WITH READ
LOCK, LOCK TABLES, row locks: Lock_time, or writes waiting across a stop with
no rotation), `commit_sync` (commits slowed, not stopped), `restart` (the
server was down and starting; never a rotation), `unknown`; each with what the
data show.

--binlog and --slowlog take one or more files each (also repeated).  Times are
UTC; the slow log's zone-less times (MariaDB, MySQL <= 5.6) are read in the
server offset its SET timestamp lines show, --server-tz only where none does.
With --state, only data newer than the previous run is reported.

\b
Exit status: 0 no stall of --threshold seconds or more; 3 at least one;
1 error (unreadable or mismatched inputs); 2 usage error.
"""


class _GreedyCommand(click.Command):
    """Let ``--binlog a b c`` mean ``--binlog a --binlog b --binlog c``."""

    def parse_args(self, ctx, args):
        out, current = [], None
        for arg in args:
            if arg in _MULTI:
                current = arg
            elif arg.startswith("-") and arg != "-":
                current = None
                out.append(arg)
            else:
                out += [current, arg] if current else [arg]
        return super().parse_args(ctx, out)


def _fail(exc) -> None:
    exits.fail("binlogkit report", exc)


_ASK = "\0ask"     # -p without a value


def _password(conn):
    if conn.get("password") == _ASK:
        from binlogkit.cli.remote import _ask_password     # print -p's prompt
        conn["password"] = _ask_password()



class Seconds(click.FloatRange):
    """A number of seconds: a float in the range, and finite (FloatRange lets nan through)."""
    name = "seconds"

    def convert(self, value, param, ctx):
        import math
        got = super().convert(value, param, ctx)
        if not math.isfinite(got):
            self.fail(f"{value!r} is not a finite number of seconds", param, ctx)
        return got

@click.command("report", cls=_GreedyCommand, help=HELP)
@click.option("--binlog", "binlogs", multiple=True, metavar="FILE...",
              type=click.Path(readable=False),   # unreadable, a directory: bad input, exit 1
              help="Binary log files (any order); without them, read the server's (-h/-S...).")
@click.option("--slowlog", "slowlogs", multiple=True, metavar="FILE...",
              type=click.Path(allow_dash=True, readable=False),
              help="Slow query logs (plain, .gz, .bz2, .xz); with a server: default mysql.slow_log.")
@click.option("-h", "--host", default=None, help="Read binlogs (and mysql.slow_log) from this server.")
@click.option("-P", "--port", type=int, default=0, help="Port number to use for connection.")
@click.option("-S", "--socket", default=None, help="The socket file to use for connection.")
@click.option("-u", "--user", default=None, help="User for the connection.")
@click.option("-p", "--password", default=None, is_flag=False, flag_value=_ASK,
              help="Password; -p alone asks on the terminal, as print -p (default: $MYSQL_PWD).")
@click.option("--protocol", default=None, help="tcp or socket.")
@click.option("--ssl-ca", default=None, help="CA file in PEM format (TLS).")
@click.option("--ssl-verify-server-cert", is_flag=True, help="Verify the server's certificate.")
@click.option("--start-log", default=None, metavar="NAME",
              help="With a server: the first binlog to read (default: the oldest).")
@click.option("--since", default=None, metavar="T",
              help="Report from this time (YYYY-MM-DD[ HH:MM:SS][Z|+HH:MM], or 2h, 30m...).")
@click.option("--until", default=None, metavar="T", help="Report up to this time.")
@click.option("--threshold", type=Seconds(min=0), default=1.0, show_default=True,
              metavar="SECONDS", help="Stalls at least this long make the exit status 3.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "html", "json"]),
              default="text", show_default=True)
@click.option("-o", "--output", default=None, metavar="PATH", help="Write here (default stdout).")
@click.option("--plot", default=None, metavar="PATH.png", help="Also write the timeline PNG.")
@click.option("--all-rotations", is_flag=True,
              help="List every rotation (text, markdown, html); by default a summary.")
@click.option("--state", default=None, metavar="FILE",
              help="State file for incremental (cron) runs; created when missing.")
@click.option("--server-tz", default=None, metavar="ZONE",
              help="Zone of the slow log's zone-less times (IANA name or +HH:MM); default: local.")
def report(binlogs, slowlogs, since, until, threshold, fmt, output, plot, state, server_tz,
           start_log, all_rotations, **conn):
    if conn.get("password"):
        from binlogkit.cli.passwords import hide_value
        hide_value(conn["password"], sys.argv)     # out of `ps`, as mysqlbinlog does
    zone = server_zone(server_tz)
    since_us = parse_bound(since, zone) if since else None
    until_us = parse_bound(until, zone) if until else None
    if since_us is not None and until_us is not None and until_us <= since_us:
        raise click.BadParameter("--until must be after --since", param_hint="--until")
    _password(conn)
    live = any(conn[key] for key in ("host", "socket", "port", "user", "protocol"))
    if not binlogs and not live:
        raise click.UsageError("give --binlog FILE... or a server to read them from (-h/-S/-u)")
    if not slowlogs and not live:
        raise click.UsageError("give --slowlog FILE..., or a server that logs to mysql.slow_log")
    try:
        from binlogkit.cli.outputs import refuse_input_as_output
        for target, option in ((output, "--output"), (plot, "--plot")):
            refuse_input_as_output(list(binlogs) + list(slowlogs) + ([state] if state else []),
                                   target, option)
        live_inputs = _live_inputs(live and conn, binlogs, slowlogs, start_log, since_us)
        with live_inputs as inputs:
            code = _run(*inputs, since_us, until_us, threshold, fmt, output, plot, state,
                        zone, server_tz, all_rotations, live_inputs.sync_binlog)
    except exits.HANDLED as exc:
        _fail(exc)
    sys.exit(code)


class _live_inputs:
    """(binlogs, slowlogs): the files given, or copies fetched from a server into a
    temp dir that is removed afterwards."""

    def __init__(self, conn, binlogs, slowlogs, start_log, since_us):
        self.conn, self.binlogs, self.slowlogs = conn, list(binlogs), list(slowlogs)
        self.start_log, self.since_us, self.tmp = start_log, since_us, None
        self.sync_binlog = None

    def __enter__(self):
        if not self.conn:
            return self.binlogs, self.slowlogs
        import tempfile
        from binlogkit.remote.connection import ConnectOptions, connect
        from binlogkit.remote.fetch import fetch_binlogs, fetch_slow_log
        options = ConnectOptions(**{k: v for k, v in self.conn.items() if v})

        def connector():
            return connect(options)

        self.tmp = tempfile.TemporaryDirectory(prefix="binlogkit-report-")
        binlogs = self.binlogs or fetch_binlogs(connector, self.tmp.name, self.start_log,
                                                notice=lambda m: click.echo(m, err=True))
        from binlogkit.remote.fetch import sync_binlog
        self.sync_binlog = sync_binlog(connector)
        slowlogs = self.slowlogs
        if not slowlogs:
            since = self.since_us // 1_000_000 if self.since_us is not None else None
            slowlogs = [fetch_slow_log(connector, f"{self.tmp.name}/slow_log.log", since)]
        return binlogs, slowlogs

    def __exit__(self, *exc):
        if self.tmp is not None:
            self.tmp.cleanup()


def _run(binlogs, slowlogs, since_us, until_us, threshold, fmt, output, plot, state, zone,
         server_tz, all_rotations=False, sync_binlog=None) -> int:
    from binlogkit.analysis.stallreport import build_report
    rep = build_report(list(binlogs), list(slowlogs), since_us=since_us, until_us=until_us,
                       threshold=threshold, zone=zone, server_tz=server_tz, state_path=state,
                       sync_binlog=sync_binlog)
    png = None
    if plot or fmt == "html":
        from binlogkit.analysis.plot import png_bytes, timeline_figure
        png = png_bytes(timeline_figure(rep.statements, rep.rotations, rep.stalls, threshold,
                                        title=_plot_title(rep.doc), idle=rep.idle))
        if plot:
            with open(plot, "wb") as f:
                f.write(png)
    text = _render(rep.doc, fmt, png, all_rotations)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            sys.stderr.close()
            return rep.exit_code            # not delivered: keep the state where it was
    rep.save_state()
    return rep.exit_code


def _plot_title(doc) -> str:
    stalls = doc["stalls"]
    rot = sum(1 for s in stalls if s["cause"] == "binlog_rotation")
    return (f"Statement latency, binlog rotations and stalls: {len(stalls)} stall"
            f"{'s' if len(stalls) != 1 else ''}, {rot} at rotations")


def _render(doc, fmt, png, all_rotations=False) -> str:
    from binlogkit.report import render
    if fmt == "json":
        return render.to_json(doc)
    if fmt == "markdown":
        return render.to_markdown(doc, all_rotations)
    if fmt == "html":
        from binlogkit.report.html import to_html
        return to_html(doc, png, all_rotations)
    return render.to_text(doc, all_rotations)
