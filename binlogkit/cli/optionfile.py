"""Option files as mariadb-binlog reads them (mysys my_load_defaults, MariaDB 10.11).

`load_defaults(argv, groups, progname)` returns the option-file arguments ("--name[=value]", file
order) and the command-line arguments left after the leading option-file options.  Behaviour
checked against mariadb-binlog 10.11.19 (`--print-defaults`), not copied from its source:

* default files, in order: /etc/my.cnf, /etc/mysql/my.cnf, $MARIADB_HOME (or $MYSQL_HOME)/my.cnf,
  the --defaults-extra-file, ~/.my.cnf; a missing default file is skipped, a missing
  --defaults-file or --defaults-extra-file is fatal; a world-writable file is ignored with a warning.
* leading options only: `--no-defaults`, or any of `--defaults-file=`, `--defaults-extra-file=`,
  `--defaults-group-suffix=` (each once), then `--print-defaults`; the suffix also comes from
  $MYSQL_GROUP_SUFFIX and adds "<group><suffix>" for every group.
* lines: `[group]` (case-insensitive, trailing blanks dropped), `name`, `name = value`, comments
  (`#` outside quotes, `;` or `#` first), `!include FILE` (missing: ignored), `!includedir DIR`
  (its *.cnf files in name order; a missing directory is fatal); values lose one pair of
  surrounding quotes and understand \\n \\t \\r \\b \\s \\" \\' \\\\.
"""
import os
import stat
import sys

MAX_INCLUDE_DEPTH = 10
# mysqlbinlog.cc load_groups
MARIADB_BINLOG_GROUPS = ("mysqlbinlog", "mariadb-binlog", "client", "client-server", "client-mariadb")
FATAL = "Fatal error in defaults handling. Program aborted"


class DefaultsError(Exception):
    """A fatal option-file error: the message lines; mariadb-binlog exits 1."""

    exit_code = 1


class Defaults:
    """The leading option-file options of a command line (get_defaults_options)."""

    def __init__(self):
        self.no_defaults = False
        self.defaults_file = None
        self.extra_file = None
        self.group_suffix = None
        self.print_defaults = False


LEADING = (("--defaults-file=", "defaults_file"), ("--defaults-extra-file=", "extra_file"),
           ("--defaults-group-suffix=", "group_suffix"))


def split_leading(argv, found=None, prefixes=LEADING, flags=(), after_no_defaults=False):
    """(Defaults, remaining argv): only the leading option-file options count.

    `prefixes`: (option prefix, attribute) pairs, `flags`: (option, attribute) pairs, each
    taken once; mariadb-binlog reads none after a leading --no-defaults, mysqlbinlog
    goes on (`after_no_defaults`)."""
    found = Defaults() if found is None else found
    i = 0
    if argv and argv[0] == "--no-defaults":
        found.no_defaults = True
        i = 1
    if i == 0 or after_no_defaults:
        while i < len(argv) and _take_leading(found, argv[i], prefixes, flags):
            i += 1
    if i < len(argv) and argv[i] == "--print-defaults":
        found.print_defaults = True
        i += 1
    return found, list(argv[i:])


def _take_leading(found, arg, prefixes, flags):
    for flag, attr in flags:
        if arg == flag and not getattr(found, attr):
            setattr(found, attr, True)
            return True
    for prefix, attr in prefixes:
        if getattr(found, attr) is None and arg.startswith(prefix):
            setattr(found, attr, arg[len(prefix):])
            return True
    return False


def load_defaults(argv, groups=MARIADB_BINLOG_GROUPS, environ=None, warn=None):
    """(Defaults, file arguments, command-line arguments).  Raises DefaultsError."""
    environ = os.environ if environ is None else environ
    warn = warn or (lambda text: sys.stderr.write(text + "\n"))
    found, rest = split_leading(argv)
    if found.no_defaults:
        return found, [], rest
    suffix = found.group_suffix
    if suffix is None:
        suffix = environ.get("MYSQL_GROUP_SUFFIX")
    wanted = [g.lower() for g in groups]
    if suffix:
        wanted += [g.lower() + suffix.lower() for g in groups]
    reader = _Reader(set(wanted), warn)
    if found.defaults_file is not None:
        reader.read(_absolute(found.defaults_file), required=True)
        return found, reader.args, rest
    for path, required in default_files(found.extra_file, environ):
        reader.read(path, required)
    return found, reader.args, rest


def default_files(extra_file=None, environ=None):
    """[(path, required)] in the order my_load_defaults reads them."""
    environ = os.environ if environ is None else environ
    out = [("/etc/my.cnf", False), ("/etc/mysql/my.cnf", False)]
    home = environ.get("MARIADB_HOME") or environ.get("MYSQL_HOME")
    if home:
        out.append((os.path.join(home, "my.cnf"), False))
    if extra_file is not None:
        out.append((_absolute(extra_file), True))
    if environ.get("HOME"):
        out.append((os.path.join(environ["HOME"], ".my.cnf"), False))
    return out


def format_print_defaults(progname, file_args, rest):
    """--print-defaults: the argument list the program would have been started with."""
    text = f"{progname} would have been started with the following arguments:\n"
    return text + "".join(arg + " " for arg in file_args + rest) + "\n"


def _absolute(path):
    return path if os.path.isabs(path) else os.path.join(os.getcwd(), path)


class _Reader:
    def __init__(self, groups, warn):
        self.groups = groups
        self.warn = warn
        self.args = []

    def read(self, path, required=False, depth=0):
        try:
            info = os.stat(path)
        except OSError:
            if required:
                raise DefaultsError([f"Could not open required defaults file: {path}", FATAL]) from None
            return
        if stat.S_ISREG(info.st_mode) and info.st_mode & stat.S_IWOTH:
            self.warn(f"Warning: World-writable config file '{path}' is ignored")
            return
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            if required:
                raise DefaultsError([f"Could not open required defaults file: {path}", FATAL]) from None
            return
        self._parse(path, data.decode("utf-8", "surrogateescape"), depth)

    def _parse(self, path, text, depth):
        in_group = found_group = False
        for number, raw in enumerate(text.split("\n"), 1):
            line = raw.lstrip(" \t\r\v\f")
            if not line or line[0] in "#;":
                continue
            if line[0] == "!":
                self._directive(line, depth)
                continue
            if line[0] == "[":
                end = line.find("]")
                if end < 0:
                    raise DefaultsError([f"error: Wrong group definition in config file: {path} "
                                         f"at line {number}", FATAL])
                found_group = True
                in_group = line[1:end].rstrip().lower() in self.groups
                continue
            if not found_group:
                raise DefaultsError([f"error: Found option without preceding group in config file: "
                                     f"{path} at line: {number}", FATAL])
            if in_group:
                self.args.append(option_argument(line))

    def _directive(self, line, depth):
        for word, is_dir in (("includedir", True), ("include", False)):
            rest = line[1:]
            if rest.startswith(word) and rest[len(word):len(word) + 1] in (" ", "\t"):
                target = _remove_end_comment(rest[len(word):]).strip()
                break
        else:
            return
        if not target or depth + 1 >= MAX_INCLUDE_DEPTH:
            return
        if not is_dir:
            self.read(target, depth=depth + 1)
            return
        try:
            names = sorted(name for name in os.listdir(target) if name.endswith(".cnf"))
        except OSError as exc:
            raise DefaultsError([f"\amariadb-binlog: Can't read dir of '{target}' (Errcode: "
                                 f"{exc.errno} \"{exc.strerror}\")", FATAL]) from None
        for name in names:
            self.read(os.path.join(target, name), depth=depth + 1)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "s": " ", '"': '"', "'": "'", "\\": "\\"}


def option_argument(line):
    """One option line (blanks before it removed) -> "--name" or "--name=value"."""
    line = _remove_end_comment(line).rstrip(" \t\r\v\f\n")
    name, eq, value = line.partition("=")
    name = name.rstrip(" \t\r\v\f")
    if not eq:
        return "--" + name
    value = value.lstrip(" \t\r\v\f")
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        value = value[1:-1]
    out = []
    i = 0
    while i < len(value):
        char = value[i]
        if char == "\\" and i + 1 < len(value):
            i += 1
            out.append(_ESCAPES.get(value[i], "\\" + value[i]))
        else:
            out.append(char)
        i += 1
    return f"--{name}={''.join(out)}"


def _remove_end_comment(text):
    """Cut at the first '#' outside quotes."""
    quote = None
    escape = False
    for i, char in enumerate(text):
        if char in "'\"" and not escape:
            if quote is None:
                quote = char
            elif quote == char:
                quote = None
        elif quote is None and char == "#":
            return text[:i]
        escape = quote is not None and char == "\\" and not escape
    return text
