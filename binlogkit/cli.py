"""binlogkit's command line: a thin click layer over the library.

Exit status: 0 success, 1 error (bad input, unreadable file), 2 usage error.
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
FALSE_WORDS = {"0", "off", "false", "no"}
TRUE_WORDS = {"1", "on", "true", "yes"}


# my_load_defaults' options: binlogkit reads no option files, so they change nothing
OPTION_FILE_OPTIONS = {"no-defaults", "defaults-file", "defaults-extra-file",
                       "defaults-group-suffix"}


def normalize_args(args, long_names=()):
    """Accept mysqlbinlog spellings: underscores, --opt=0, --skip-opt, -vv, the
    option-file options, unique prefixes of long names (my_getopt's rule), and
    the password's optional value (-p / --password alone: ask)."""
    out = []
    for arg in args:
        if arg.startswith("-p") and not arg.startswith("--"):
            out.append("--password=" + arg[2:] if len(arg) > 2 else "--password-prompt")
            continue
        if arg == "--password":
            out.append("--password-prompt")
            continue
        if not arg.startswith("--") or arg == "--":
            out.append(arg)
            continue
        name, eq, value = arg[2:].partition("=")
        name = name.replace("_", "-")
        if name in OPTION_FILE_OPTIONS:
            continue
        name = _expand_prefix(name, long_names)
        if name in BOOL_OPTIONS and eq:
            word = value.lower()
            if word in FALSE_WORDS:
                out.append(f"--skip-{name}")
                continue
            if word in TRUE_WORDS:
                out.append(f"--{name}")
                continue
        out.append(f"--{name}{eq}{value}")
    return out


def _expand_prefix(name, long_names):
    """`start-pos` -> `start-position` when exactly one long option starts so."""
    if not long_names or name in long_names:
        return name
    skip = name.startswith("skip-")
    stem = name[5:] if skip else name
    found = [n for n in long_names if n.startswith(stem)]
    if len(found) != 1:
        return name
    full = ("skip-" if skip else "") + found[0]
    sys.stderr.write(f"Info: Using unique option prefix '{name}' is error-prone and can break in "
                     f"the future. Please use the full name '{full}' instead.\n")
    return full


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
        long_names = {opt[2:] for param in self.params if isinstance(param, click.Option)
                      for opt in param.opts if opt.startswith("--")}
        args = normalize_args(args, long_names)
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
@click.option("--base64-output", type=click.Choice(["auto", "never", "decode-rows", "always", "unspec"],
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


