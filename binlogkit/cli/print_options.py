"""The options of `binlogkit print`, declared once (no click here).

From this table cli.print_cmd builds the click command (for --help, and for the
errors click words), and `parse` turns a command line that cli.mysqlargs has
already normalised (option files read, my_getopt's rules applied: `--name=value`,
`--name`, `--skip-name`, file names) into the keyword dict the click command
would pass, without importing click: `binlogkit print` starts faster.

Kinds: "bool" (--name / --skip-name), "flag" (--name only), "count" (-v -v),
"str", "int", "multi" (repeatable, a tuple), "choice" (case-insensitive).
"""
from binlogkit._record import record

__all__ = ["OPTIONS", "Option", "UnparsedError", "parse", "getopt_spec"]


@record(frozen=True, slots=False)
class Option:
    decls: tuple            # ("-s", "--short-form"): a short letter and the long names
    kind: str
    default: object = None
    help: str = ""
    hidden: bool = False
    choices: tuple = ()

    @property
    def longs(self):
        return tuple(d[2:] for d in self.decls if d.startswith("--"))

    @property
    def short(self):
        return next((d[1:] for d in self.decls if len(d) == 2), None)

    @property
    def dest(self):
        return self.longs[0].replace("-", "_")


def _o(decls, kind, default=None, help="", hidden=False, choices=()):
    return Option(tuple(decls.split()), kind, default, help, hidden, choices)


OPTIONS = (
    _o("-s --short-form", "bool", False, "Just show regular queries: no extra info, no row events."),
    _o("-H --hexdump", "bool", False, "Augment output with hexadecimal and ASCII event dump."),
    _o("--base64-output", "choice", "auto", "When to print BINLOG base64 statements.",
       choices=("auto", "never", "decode-rows", "unspec")),
    _o("-v --verbose", "count", 0, "Reconstruct pseudo-SQL from row events (-vv: with types)."),
    _o("-j --start-position", "str", None,
       "Start at position N of the first file, or after a GTID list (D-S-N,...)."),
    _o("--stop-position", "str", None,
       "Stop at position N of the last file, or after a GTID list (D-S-N,...)."),
    _o("--start-datetime", "str", None, "Start at the first event at or after this local time."),
    _o("--stop-datetime", "str", None, "Stop at the first event at or after this local time."),
    _o("-d --database", "str", None, "List entries for just this database."),
    _o("-T --table", "str", None, "List entries for just this table."),
    _o("--server-id", "str", None, "Only events created by this server id."),
    _o("--do-server-ids", "str", None, "MariaDB: only events of these server ids."),
    _o("--ignore-server-ids", "str", None, "MariaDB: no events of these server ids."),
    _o("--do-domain-ids", "str", None, "MariaDB: only GTID groups of these domains."),
    _o("--ignore-domain-ids", "str", None, "MariaDB: no GTID groups of these domains."),
    _o("--gtid-strict-mode", "bool", True, "MariaDB: GTID positions and order are checked."),
    _o("--rewrite-db", "multi", (), "rewrite-db='from->to' renames a database."),
    _o("-B --flashback", "bool", None, "MariaDB: reversed row events (rollback of committed data)."),
    _o("-o --offset", "int", 0, "Skip the first N entries."),
    _o("-r --result-file", "str", None, "Write output to this file."),
    _o("-l --local-load", "str", None, "Directory for LOAD DATA temporary files."),
    _o("-F --force-if-open", "bool", True, "Force if binlog was not closed properly."),
    _o("-f --force-read", "bool", False, "Force reading unknown binlog events."),
    _o("-c --verify-binlog-checksum", "bool", False, "Verify checksum of binlog events."),
    _o("--print-row-count", "bool", None, "Print row counts for each row event."),
    _o("--print-row-event-positions", "bool", None, "Print row event positions."),
    _o("--skip-annotate-row-events", "bool", False, "Don't print Annotate_rows events."),
    _o("-D --disable-log-bin", "bool", False, "Disable binary log when piping into mysql."),
    _o("--print-table-metadata", "bool", False, "Print metadata stored in Table_map events."),
    _o("--set-charset", "str", None, "Add 'SET NAMES character_set' to the output."),
    _o("--timezone", "str", None, "Zone for event times (default: $TZ, then /etc/localtime)."),
    _o("--flavor", "choice", "auto",
       "Print like mysqlbinlog 8.0 or mariadb-binlog (default: from the log).",
       choices=("auto", "mysql", "mariadb")),
    _o("--include-gtids", "str", None, "MySQL: print only transactions of this GTID set."),
    _o("--exclude-gtids", "str", None, "MySQL: leave out transactions of this GTID set."),
    _o("--skip-gtids", "bool", False, "MySQL: print no GTID statements (and no Previous-GTIDs)."),
    _o("-i --idempotent", "bool", False,
       "MySQL: SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT before the events (STRICT after)."),
    _o("--require-row-format", "bool", False,
       "MySQL: stop at an event a require_row_format session refuses."),
    _o("--mysqlbinlog-version", "choice", "auto",
       "MySQL: print as mysqlbinlog 8.0.41 or 9.7.4 (default: 9.7 for logs of 9.x servers).",
       choices=("auto", "8.0", "9.7")),
    _o("-R --read-from-remote-server", "bool", False, "Read binlogs from a server (COM_BINLOG_DUMP)."),
    _o("--read-from-remote-source", "choice", None,
       "MySQL: -R, or a GTID dump (COM_BINLOG_DUMP_GTID) with --exclude-gtids.",
       choices=("BINLOG-DUMP-NON-GTIDS", "BINLOG-DUMP-GTIDS")),
    _o("--read-from-remote-master", "bool", False, hidden=True),
    _o("-h --host", "str", None, "Get the binlog from server."),
    _o("-P --port", "int", 0, "Port number to use for connection."),
    _o("-S --socket", "str", None, "The socket file to use for connection."),
    _o("-u --user", "str", None, "Connect to the remote server as username."),
    _o("--password", "str", None, "Password (-p alone: ask on the terminal)."),
    _o("--password-prompt", "flag", False, hidden=True),
    _o("--password-on-command-line", "flag", False, hidden=True),
    _o("--mysql-password-warning", "flag", False, hidden=True),     # mysqlbinlog's command line
    _o("--protocol", "str", None, "The protocol to use for connection (tcp, socket)."),
    _o("--ssl-mode", "str", None,
       "MySQL: DISABLED, PREFERRED (default), REQUIRED, VERIFY_CA or VERIFY_IDENTITY."),
    _o("--ssl", "bool", None, "MariaDB: TLS if the server has it (default on; --skip-ssl: off)."),
    _o("--ssl-ca", "str", None, "CA file in PEM format (implies --ssl)."),
    _o("--ssl-capath", "str", None, "CA directory (implies --ssl)."),
    _o("--ssl-cert", "str", None, "X509 cert in PEM format (implies --ssl)."),
    _o("--ssl-key", "str", None, "X509 key in PEM format (implies --ssl)."),
    _o("--ssl-cipher", "str", None, "TLS cipher to use (implies --ssl)."),
    _o("--ssl-crl", "str", None, hidden=True),
    _o("--ssl-crlpath", "str", None, hidden=True),
    _o("--tls-version", "str", None, hidden=True),
    _o("--ssl-verify-server-cert", "bool", False, "Verify the server's certificate and host name."),
    _o("--enable-cleartext-plugin", "bool", False,
       "Allow mysql_clear_password and dialog (they send the password as it is)."),
    _o("--server-public-key-path", "str", None,
       "MySQL: the server's RSA public key (PEM) for caching_sha2_password without TLS."),
    _o("--get-server-public-key", "bool", False,
       "MySQL: ask the server for its RSA public key (caching_sha2_password without TLS)."),
    _o("--default-auth", "str", None, hidden=True),
    _o("--plugin-dir", "str", None, hidden=True),
    _o("--connection-server-id --stop-never-slave-server-id", "int", None,
       "Server id to connect with (--stop-never: default 1)."),
    _o("-t --to-last-log", "bool", False, "With -R: go on to the end of the server's last binlog."),
    _o("--stop-never", "bool", False, "With -R: wait for more events instead of stopping (implies -t)."),
    _o("--raw", "bool", False,
       "With -R: write the binlog files as they are (--result-file: name prefix)."),
    _o("--connect-retries", "int", None,
       "With --raw: reconnect attempts after a lost connection "
       "(default: unlimited with --stop-never, else 0)."),
    _o("--traceback", "flag", False, hidden=True),
)

_BY_LONG = {name: option for option in OPTIONS for name in option.longs}


def getopt_spec():
    """{long name: (short letter, "bool"|"flag"|"str")}: the table mygetopt checks names against."""
    spec = {}
    for option in OPTIONS:
        kind = {"bool": "bool", "flag": "flag", "count": "flag"}.get(option.kind, "str")
        for name in option.longs:
            spec[name] = (option.short, kind)
    return spec


class UnparsedError(Exception):
    """A value only click can word the error for (a bad number or choice, no file)."""


def parse(args):
    """Normalised arguments -> (files, keyword dict as the click command gets it)."""
    kw = {option.dest: option.default for option in OPTIONS}
    files, multi = [], {}
    it = iter(args)
    for arg in it:
        if arg == "--":
            files.extend(it)
            break
        if not arg.startswith("--") or arg == "-":
            files.append(arg)
            continue
        name, eq, value = arg[2:].partition("=")
        option, on = _BY_LONG.get(name), True
        if option is None and name.startswith("skip-"):
            option, on = _BY_LONG.get(name[5:]), False
            if option is not None and option.kind != "bool":
                raise UnparsedError(arg)
        if option is None:
            raise UnparsedError(arg)
        _store(kw, multi, option, on, value if eq else None, arg)
    kw.update({dest: tuple(values) for dest, values in multi.items()})
    return files, kw


def _store(kw, multi, option, on, value, arg):
    kind = option.kind
    if kind in ("bool", "flag", "count"):
        if value is not None:
            raise UnparsedError(arg)
        kw[option.dest] = kw[option.dest] + 1 if kind == "count" else on
        return
    if value is None:
        raise UnparsedError(arg)
    if kind == "int":
        try:
            kw[option.dest] = int(value, 10)
        except ValueError:
            raise UnparsedError(arg) from None
    elif kind == "choice":
        folded = [choice for choice in option.choices if choice.lower() == value.lower()]
        if not folded:
            raise UnparsedError(arg)
        kw[option.dest] = folded[0]
    elif kind == "multi":
        multi.setdefault(option.dest, []).append(value)
    else:
        kw[option.dest] = value
