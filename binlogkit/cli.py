"""binlogkit's command line: a thin click layer over the library.

Exit status: 0 success, 1 error (bad input, unreadable file), 2 usage error; `print` exits
with my_getopt's codes (2 unknown option, 3 ambiguous, 4/5 argument, 7 unknown variable, 9 suffix,
13 invalid value) for option errors, as mariadb-binlog does.
"""
import sys

import click

# mariadb-binlog boolean options: "--opt", "--opt=0|1|ON|OFF", "--skip-opt"
BOOL_OPTIONS = {
    "short-form", "hexdump", "force-if-open", "force-read", "verify-binlog-checksum",
    "print-row-count", "print-row-event-positions", "skip-annotate-row-events",
    "disable-log-bin", "print-table-metadata", "skip-gtids", "flashback", "gtid-strict-mode",
    "read-from-remote-server", "read-from-remote-master", "ssl", "ssl-verify-server-cert",
    "to-last-log", "stop-never", "raw",
}
# mariadb-binlog's id lists: a later list of the same kind replaces an earlier one, and
# do/ignore conflicts are reported for the later option, so their order matters
ID_FILTER_OPTIONS = ("server-id", "do-server-ids", "ignore-server-ids",
                     "do-domain-ids", "ignore-domain-ids")
PROGNAME = "mariadb-binlog"      # the name in option messages, as scripts see it


def click_options(command):
    """{long name: (short letter, kind)} of a click command's options (mygetopt's table shape)."""
    spec = {}
    for param in command.params:
        if not isinstance(param, click.Option):
            continue
        longs = [opt[2:] for opt in param.opts if opt.startswith("--")]
        shorts = [opt[1:] for opt in param.opts if len(opt) == 2 and opt[0] == "-"]
        if param.count or (param.is_flag and not param.secondary_opts and longs[0] not in BOOL_OPTIONS):
            kind = "flag"
        elif param.is_flag or longs[0] in BOOL_OPTIONS:
            kind = "bool"
        else:
            kind = "str"
        for name in longs:
            spec[name] = (shorts[0] if shorts else None, kind)
    return spec


def normalize_args(args, known, stdout=None, stderr=None):
    """mariadb-binlog's command line -> click's: option files read (optionfile), then every
    argument parsed as its my_getopt does (mygetopt); the real tool's options that binlogkit
    does not implement (`known` lacks them) are accepted and ignored, as the real tool ignores
    them for local files.  Exits (status, messages as the real tool's) on option errors,
    --print-defaults and -V/--version."""
    from binlogkit.mygetopt import MARIADB_BINLOG_OPTIONS, Getopt, GetoptError
    from binlogkit.optionfile import DefaultsError, format_print_defaults, load_defaults
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    try:
        found, file_args, rest = load_defaults(args, warn=lambda text: stderr.write(text + "\n"))
    except DefaultsError as exc:
        stderr.write("".join(line + "\n" for line in exc.args[0]))
        sys.exit(exc.exit_code)
    if found.print_defaults:
        stdout.write(format_print_defaults(PROGNAME, file_args, rest))
        sys.exit(0)
    versions = []
    extras = {name: spec for name, spec in known.items() if name not in MARIADB_BINLOG_OPTIONS}
    getopt = Getopt(extras=extras, progname=PROGNAME, stderr=stderr,
                    on_version=lambda: versions.append(stdout.write(version_text())))
    try:
        parsed = getopt.parse(file_args, rest)
    except GetoptError as exc:
        stderr.write("".join(line + "\n" for line in exc.lines))
        stdout.flush()
        sys.exit(exc.code)
    if versions:
        stdout.flush()
        sys.exit(0)
    return _known_only(parsed, known)


def _known_only(parsed, known):
    out = []
    for i, arg in enumerate(parsed):
        if arg == "--":
            return out + parsed[i:]
        if not arg.startswith("--"):
            out.append(arg)
            continue
        if arg == "--password":         # -p / --password without a value: ask on the terminal
            out.append("--password-prompt")
            continue
        name = arg[2:].partition("=")[0]
        if name not in known and name.startswith("skip-"):
            name = name[5:]
        if name in known or name == "help":
            out.append(arg)
    return out


def version_text():
    """-V: the real tool's shape, "<name> Ver <client version> for <os> at <machine>"."""
    import platform
    from importlib.metadata import PackageNotFoundError, version
    try:
        own = version("binlogkit")
    except PackageNotFoundError:
        own = "unknown"
    return f"{PROGNAME} Ver 3.5 for binlogkit-{own} at {platform.machine()}\n"


def id_filter_order(args):
    """The id-list options in command-line order: [(name, value), ...]."""
    out = []
    it = iter(args)
    for arg in it:
        if arg == "--":
            break
        name, eq, value = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
        if name in ID_FILTER_OPTIONS:
            out.append((name, value if eq else next(it, "")))
    return out


class MysqlbinlogCommand(click.Command):
    def parse_args(self, ctx, args):
        args = normalize_args(args, click_options(self))
        ctx.meta["binlogkit.id_filters"] = id_filter_order(args)
        return super().parse_args(ctx, args)


class LazyGroup(click.Group):
    """Subcommands imported when used: `binlogkit print` loads no slowlog or pandas code."""

    LAZY = {"slowlog": ("binlogkit.slowlog.cli", "slowlog"),
            "report": ("binlogkit.report.cli", "report"),
            "export": ("binlogkit.exportcli", "export_cmd")}

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(self.LAZY))

    def get_command(self, ctx, name):
        if name in self.LAZY and name not in self.commands:
            import importlib
            module, attr = self.LAZY[name]
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-?", "--help"]})
@click.version_option(package_name="binlogkit")
def main():
    """Exact, fast tools for MySQL/MariaDB binary logs and slow query logs."""


def _bool(name, short=None, default=False, help="", hidden=False):
    decls = [f"--{name}/--skip-{name}"]
    if short:
        decls.insert(0, short)
    return click.option(*decls, default=default, help=help, hidden=hidden)


@main.command("print", cls=MysqlbinlogCommand)
@click.argument("files", nargs=-1, required=True)
@_bool("short-form", "-s", help="Just show regular queries: no extra info, no row events.")
@_bool("hexdump", "-H", help="Augment output with hexadecimal and ASCII event dump.")
@click.option("--base64-output", type=click.Choice(["auto", "never", "decode-rows", "unspec"],
              case_sensitive=False), default="auto", help="When to print BINLOG base64 statements.")
@click.option("-v", "--verbose", count=True, help="Reconstruct pseudo-SQL from row events (-vv: with types).")
@click.option("-j", "--start-position", default=None,
              help="Start at position N of the first file, or after a GTID list (D-S-N,...).")
@click.option("--stop-position", default=None,
              help="Stop at position N of the last file, or after a GTID list (D-S-N,...).")
@click.option("--start-datetime", default=None, help="Start at the first event at or after this local time.")
@click.option("--stop-datetime", default=None, help="Stop at the first event at or after this local time.")
@click.option("-d", "--database", default=None, help="List entries for just this database.")
@click.option("-T", "--table", default=None, help="List entries for just this table.")
@click.option("--server-id", default=None, help="Only events created by this server id.")
@click.option("--do-server-ids", default=None, help="MariaDB: only events of these server ids.")
@click.option("--ignore-server-ids", default=None, help="MariaDB: no events of these server ids.")
@click.option("--do-domain-ids", default=None, help="MariaDB: only GTID groups of these domains.")
@click.option("--ignore-domain-ids", default=None, help="MariaDB: no GTID groups of these domains.")
@_bool("gtid-strict-mode", default=True, help="MariaDB: GTID positions and order are checked.")
@click.option("--rewrite-db", multiple=True, help="MariaDB: rewrite-db='from->to' renames a database.")
@_bool("flashback", "-B", default=None,
       help="MariaDB: reversed row events (rollback of committed data).")
@click.option("-o", "--offset", type=int, default=0, help="Skip the first N entries.")
@click.option("-r", "--result-file", default=None, help="Write output to this file.")
@click.option("-l", "--local-load", default=None, help="Directory for LOAD DATA temporary files.")
@_bool("force-if-open", "-F", default=True, help="Force if binlog was not closed properly.")
@_bool("force-read", "-f", help="Force reading unknown binlog events.")
@_bool("verify-binlog-checksum", "-c", help="Verify checksum of binlog events.")
@_bool("print-row-count", default=None, help="Print row counts for each row event.")
@_bool("print-row-event-positions", default=None, help="Print row event positions.")
@_bool("skip-annotate-row-events", help="Don't print Annotate_rows events.")
@_bool("disable-log-bin", "-D", help="Disable binary log when piping into mysql.")
@_bool("print-table-metadata", help="Print metadata stored in Table_map events.")
@click.option("--set-charset", default=None, help="Add 'SET NAMES character_set' to the output.")
@click.option("--timezone", default=None, help="Zone for event times (default: $TZ, then /etc/localtime).")
@click.option("--flavor", type=click.Choice(["auto", "mysql", "mariadb"], case_sensitive=False),
              default="auto", help="Print like mysqlbinlog 8.0 or mariadb-binlog (default: from the log).")
@click.option("--include-gtids", default=None, help="MySQL: print only transactions of this GTID set.")
@click.option("--exclude-gtids", default=None, help="MySQL: leave out transactions of this GTID set.")
@_bool("skip-gtids", help="MySQL: print no GTID statements (and no Previous-GTIDs).")
@_bool("read-from-remote-server", "-R", help="Read binlogs from a server (COM_BINLOG_DUMP).")
@click.option("--read-from-remote-source", default=None,
              type=click.Choice(["BINLOG-DUMP-NON-GTIDS", "BINLOG-DUMP-GTIDS"], case_sensitive=False),
              help="MySQL: -R, or a GTID dump (COM_BINLOG_DUMP_GTID) with --exclude-gtids.")
@_bool("read-from-remote-master", hidden=True)
@click.option("-h", "--host", default=None, help="Get the binlog from server.")
@click.option("-P", "--port", type=int, default=0, help="Port number to use for connection.")
@click.option("-S", "--socket", default=None, help="The socket file to use for connection.")
@click.option("-u", "--user", default=None, help="Connect to the remote server as username.")
@click.option("--password", default=None, help="Password (-p alone: ask on the terminal).")
@click.option("--password-prompt", is_flag=True, hidden=True)
@click.option("--protocol", default=None, help="The protocol to use for connection (tcp, socket).")
@_bool("ssl", help="Enable TLS for the connection.")
@click.option("--ssl-ca", default=None, help="CA file in PEM format (implies --ssl).")
@click.option("--ssl-capath", default=None, help="CA directory (implies --ssl).")
@click.option("--ssl-cert", default=None, help="X509 cert in PEM format (implies --ssl).")
@click.option("--ssl-key", default=None, help="X509 key in PEM format (implies --ssl).")
@click.option("--ssl-cipher", default=None, help="TLS cipher to use (implies --ssl).")
@click.option("--ssl-crl", default=None, hidden=True)
@click.option("--ssl-crlpath", default=None, hidden=True)
@click.option("--tls-version", default=None, hidden=True)
@_bool("ssl-verify-server-cert", help="Verify the server's certificate and host name.")
@click.option("--default-auth", default=None, hidden=True)
@click.option("--plugin-dir", default=None, hidden=True)
@click.option("--connection-server-id", "--stop-never-slave-server-id", "connection_server_id",
              type=int, default=None, help="Server id to connect with (--stop-never: default 1).")
@_bool("to-last-log", "-t", help="With -R: go on to the end of the server's last binlog.")
@_bool("stop-never", help="With -R: wait for more events instead of stopping (implies -t).")
@_bool("raw", help="With -R: write the binlog files as they are (--result-file: name prefix).")
@click.option("--connect-retries", type=int, default=None,
              help="With --raw: reconnect attempts after a lost connection "
                   "(default: unlimited with --stop-never, else 0).")
@click.option("--traceback", is_flag=True, hidden=True)
def print_cmd(files, **kw):
    """Print binary logs exactly as mariadb-binlog (mysqlbinlog) does.

    FILES are binlog files in order; "-" reads standard input.  Exit status:
    0 on success, 1 on a read or format error (after printing what could be
    printed, like the real tool).
    """
    from binlogkit.printer.command import run_print
    kw["id_filter_order"] = click.get_current_context().meta.get("binlogkit.id_filters", [])
    sys.exit(run_print(files, kw))


