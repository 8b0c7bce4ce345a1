"""mariadb-binlog's (or mysqlbinlog's) command line in front of click: option files read as
it reads them (optionfile), every argument parsed as its my_getopt does (mygetopt), then handed
to the click command in print_cmd.  Option errors exit with my_getopt's codes (2 unknown option,
3 ambiguous, 4/5 argument, 7 unknown variable, 9 suffix, 13 invalid value), as the real tool does.

Whose command line it is follows the log: a MySQL binlog as the first file (or --flavor=mysql,
--mysqlbinlog-version) gets mysqlbinlog 9.7's options and messages, anything else
mariadb-binlog's (--flashback, which only mariadb-binlog has, keeps it).
"""
import io
import sys

from binlogkit.cli.mygetopt import (
    MARIADB_BINLOG_OPTIONS, MYSQLBINLOG_OPTIONS, Getopt, GetoptError, MysqlGetopt,
)
from binlogkit.cli.optionfile import DefaultsError, format_print_defaults, load_defaults

# mariadb-binlog's id lists: a later list of the same kind replaces an earlier one, and
# do/ignore conflicts are reported for the later option, so their order matters
ID_FILTER_OPTIONS = ("server-id", "do-server-ids", "ignore-server-ids",
                     "do-domain-ids", "ignore-domain-ids")
PROGNAME = "mariadb-binlog"      # the name in option messages, as scripts see it
MYSQL_PROGNAME = "mysqlbinlog"
# options only mysqlbinlog has that mariadb-binlog calls unknown (binlogkit's own MySQL
# options, --skip-gtids and the GTID sets, stay: they say which flavor they need)
MYSQL_ONLY = frozenset({"idempotent", "require-row-format"})
MYSQLBINLOG_VERSIONS = {"8.0": "8.0.41", "9.7": "9.7.4"}


def normalize_args(args, known, stdout=None, stderr=None):
    """mariadb-binlog's command line -> click's: option files read (optionfile), then every
    argument parsed as its my_getopt does (mygetopt); the real tool's options that binlogkit
    does not implement (`known`, print_options.getopt_spec(), lacks them) are accepted and ignored, as the real tool ignores
    them for local files.  Exits (status, messages as the real tool's) on option errors,
    --print-defaults and -V/--version."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    try:
        found, file_args, rest = load_defaults(args, warn=lambda text: stderr.write(text + "\n"))
    except DefaultsError as exc:
        stderr.write("".join(line + "\n" for line in exc.args[0]))
        sys.exit(exc.exit_code)
    mysql = _login_path_given(args) or mysql_command_line(file_args, rest, known)
    if mysql:       # mysqlbinlog's option files: its groups, the login path file
        from binlogkit.cli.mysqldefaults import format_mysql_print_defaults, load_mysql_defaults
        try:
            found, file_args, rest = load_mysql_defaults(
                args, warn=lambda text: stderr.write(text + "\n"))
        except DefaultsError as exc:
            stderr.write("".join(line + "\n" for line in exc.args[0]))
            sys.exit(exc.exit_code)
        if found.print_defaults:
            stdout.write(format_mysql_print_defaults(file_args, rest))
            sys.exit(0)
    elif found.print_defaults:
        stdout.write(format_print_defaults(PROGNAME, file_args, rest))
        sys.exit(0)
    versions = []
    if mysql:       # binlogkit's own options stay; mariadb-binlog's are unknown to mysqlbinlog
        extras = {name: spec for name, spec in known.items()
                  if name not in MYSQLBINLOG_OPTIONS and name not in MARIADB_BINLOG_OPTIONS}
        getopt = MysqlGetopt(table=MYSQLBINLOG_OPTIONS, extras=extras, progname=MYSQL_PROGNAME,
                             stderr=stderr, on_version=lambda: versions.append(
                                 stdout.write(mysql_version_text(file_args + rest))))
    else:
        extras = {name: spec for name, spec in known.items()
                  if name not in MARIADB_BINLOG_OPTIONS and name not in MYSQL_ONLY}
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
    if mysql and any(arg.startswith("--stop-never-slave-server-id=") for arg in parsed):
        stderr.write("WARNING: --stop-never-slave-server-id is deprecated and will be removed in "
                     "a future version. Use --connection-server-id instead.\n\n")
    if mysql and "--compress" in parsed:
        stderr.write("WARNING: --compress is deprecated and will be removed in a future version. "
                     "Use --compression-algorithms instead.\n\n")
    if getopt.secrets:
        # as the real tools: the password leaves the process's command line (ps) at once
        from binlogkit.cli.passwords import hide
        hide(getopt.secrets)
        parsed.append("--password-on-command-line")
        if mysql:       # mysqlbinlog warns as it reads its options
            parsed.append("--mysql-password-warning")
    return _known_only(parsed, known)


def _login_path_given(args):
    """A leading --login-path (mysqlbinlog's rule for leading options): only mysqlbinlog has
    it (mariadb-binlog calls it unknown).  The module is loaded only when one is there."""
    if not any(arg.startswith("--login-path=") for arg in args):
        return False
    from binlogkit.cli.mysqldefaults import split_leading
    return split_leading(args)[0].login_path is not None


def mysql_command_line(file_args, cmd_args, known):
    """True when mysqlbinlog's command line is the one to read: --flavor=mysql or
    --mysqlbinlog-version, a MySQL binlog as the first local file (no --flashback), or
    with -R a MySQL server."""
    table = {**MARIADB_BINLOG_OPTIONS, **MYSQLBINLOG_OPTIONS}
    quiet = Getopt(table=table, extras={k: v for k, v in known.items() if k not in table},
                   stderr=io.StringIO())
    try:
        parsed = quiet.parse(file_args, cmd_args)
    except GetoptError:         # the real parse says what is wrong: a rough look here
        parsed = [arg for arg in file_args + list(cmd_args) if not arg.startswith("-")
                  or arg == "-" or arg.startswith(("--flavor=", "--mysqlbinlog-version", "--flashback"))]
    flavor, files, remote, connection = None, [], False, {}
    for i, arg in enumerate(parsed):
        if arg == "--":
            files += parsed[i + 1:]
            break
        name, _, value = arg[2:].partition("=") if arg.startswith("--") else ("", "", "")
        if not arg.startswith("--") or arg == "-":
            files.append(arg)
        elif name == "flavor":
            flavor = value.lower()
        elif name == "flashback":
            return False
        elif name == "mysqlbinlog-version" and flavor is None:
            flavor = "mysql"
        elif name in ("read-from-remote-server", "read-from-remote-master",
                      "read-from-remote-source"):
            remote = True
        elif name in _CONNECTION:
            connection[name] = value
    if flavor in ("mysql", "mariadb"):
        return flavor == "mysql"
    if remote:      # the server's flavor, from its greeting (no login)
        return _server_is_mysql(connection)
    if not files:
        return False
    from binlogkit.printer.flavor import MYSQL, detect_flavor
    return detect_flavor(files[0], default=None) == MYSQL


_CONNECTION = ("host", "port", "socket", "protocol")


def _server_is_mysql(connection):
    """-R: a MySQL server gets mysqlbinlog's command line, a MariaDB server (or none
    that answers) mariadb-binlog's."""
    from binlogkit.remote.connection import ConnectOptions
    from binlogkit.remote.greeting import greeting_version
    try:
        port = int(connection.get("port") or 0)
    except ValueError:
        return False        # the real parse says what is wrong
    version = greeting_version(ConnectOptions(
        host=connection.get("host"), port=port, socket=connection.get("socket"),
        protocol=connection.get("protocol")), timeout=2.0)
    return version is not None and "mariadb" not in version.lower()


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
    import platform     # lazy: importlib.metadata alone costs start-up ~10 ms
    from importlib.metadata import PackageNotFoundError, version
    try:
        own = version("binlogkit")
    except PackageNotFoundError:
        own = "unknown"
    return f"{PROGNAME} Ver 3.5 for binlogkit-{own} at {platform.machine()}\n"


def mysql_version_text(args):
    """-V on mysqlbinlog's command line: which mysqlbinlog's text binlogkit prints."""
    import platform
    chosen = next((arg.partition("=")[2] for arg in reversed(args)
                   if arg.startswith("--mysqlbinlog-version=")), None)
    version = MYSQLBINLOG_VERSIONS.get(chosen)
    own = _own_version()
    if version:
        return f"{MYSQL_PROGNAME}  Ver {version} for binlogkit-{own} on {platform.machine()}\n"
    return (f"{MYSQL_PROGNAME}  Ver 9.7.4 for binlogkit-{own} on {platform.machine()} "
            "(logs of 9.x servers print as mysqlbinlog 9.7.4, older ones as 8.0.41; "
            "--mysqlbinlog-version=8.0|9.7 chooses)\n")


def _own_version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("binlogkit")
    except PackageNotFoundError:
        return "unknown"


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
