"""mariadb-binlog's command line as its my_getopt reads it, turned into plain long options.

`Getopt(table, extras).parse(file_args, cmd_args)` walks the option-file arguments, then the
command line, the way mariadb-binlog 10.11.19 does (checked against it, nothing copied):
unique prefixes (with the "Info: Using unique option prefix" line), `skip-`, `disable-`,
`enable-`, `maximum-` and `loose-` prefixes, `_` for `-`, short clusters (`-vvs`, `-o3`),
boolean values (1/0/on/off/true/false, anything else ignored with a warning), unsigned numbers
with K/M/G/T/P/E suffixes, and the same messages and exit codes for unknown, ambiguous or
badly used options.  An unknown option from an option file is reported and parsing goes on (the
run then fails with its code); on the command line it stops at once; `loose-` makes either a
warning.  The result is a list of "--name", "--skip-name" and "--name=value" arguments.

`table`: MARIADB_BINLOG_OPTIONS, the real tool's options (name -> (short letter, kind)).
`extras`: the caller's own options that the real tool does not have (same shape).
"""
import sys

# kinds: "bool" (GET_BOOL), "flag" (no argument: -v counts), "str" (argument required),
# "num" (unsigned number, argument required), "opt" (optional argument), "enum" (base64-output)
# In `mariadb-binlog --help` order: ambiguous-prefix messages name the first and last match.
MARIADB_BINLOG_OPTIONS = {
    "help": ("?", "flag"), "base64-output": (None, "enum"), "character-sets-dir": (None, "str"),
    "database": ("d", "str"), "debug-check": (None, "bool"), "debug-info": (None, "bool"),
    "default-auth": (None, "str"), "disable-log-bin": ("D", "bool"), "flashback": ("B", "bool"),
    "force-if-open": ("F", "bool"), "force-read": ("f", "bool"), "hexdump": ("H", "bool"),
    "host": ("h", "str"), "local-load": ("l", "str"), "offset": ("o", "num"),
    "password": ("p", "opt"), "plugin-dir": (None, "str"), "port": ("P", "num"),
    "protocol": (None, "str"), "read-from-remote-server": ("R", "bool"), "raw": (None, "bool"),
    "result-file": ("r", "str"), "print-row-count": (None, "bool"),
    "print-row-event-positions": (None, "bool"), "ignore-domain-ids": (None, "str"),
    "do-domain-ids": (None, "str"), "ignore-server-ids": (None, "str"),
    "do-server-ids": (None, "str"), "server-id": (None, "str"), "set-charset": (None, "str"),
    "short-form": ("s", "bool"), "socket": ("S", "str"), "ssl": (None, "bool"),
    "ssl-ca": (None, "str"), "ssl-capath": (None, "str"), "ssl-cert": (None, "str"),
    "ssl-cipher": (None, "str"), "ssl-key": (None, "str"), "ssl-crl": (None, "str"),
    "ssl-crlpath": (None, "str"), "tls-version": (None, "str"),
    "ssl-verify-server-cert": (None, "bool"), "start-datetime": (None, "str"),
    "start-position": ("j", "str"), "gtid-strict-mode": (None, "bool"),
    "stop-datetime": (None, "str"), "stop-never": (None, "bool"),
    "stop-never-slave-server-id": (None, "num"), "stop-position": (None, "str"),
    "table": ("T", "str"), "to-last-log": ("t", "bool"), "user": ("u", "str"),
    "verbose": ("v", "flag"), "version": ("V", "flag"), "open-files-limit": (None, "num"),
    "binlog-row-event-max-size": (None, "num"), "verify-binlog-checksum": ("c", "bool"),
    "rewrite-db": (None, "str"), "skip-annotate-row-events": (None, "bool"),
    "print-table-metadata": (None, "bool"),
}
# mysqlbinlog 9.7.4's options (`mysqlbinlog --help`), for the MySQL flavor's command line
MYSQLBINLOG_OPTIONS = {
    "help": ("?", "flag"), "base64-output": (None, "enum"), "bind-address": (None, "str"),
    "character-sets-dir": (None, "str"), "database": ("d", "str"), "rewrite-db": (None, "str"),
    "debug": ("#", "opt"), "debug-check": (None, "flag"), "debug-info": (None, "flag"),
    "default-auth": (None, "str"), "disable-log-bin": ("D", "bool"),
    "force-if-open": ("F", "bool"), "force-read": ("f", "bool"), "hexdump": ("H", "bool"),
    "host": ("h", "str"), "idempotent": ("i", "bool"), "local-load": ("l", "str"),
    "offset": ("o", "num"), "password": ("p", "opt"), "plugin-dir": (None, "str"),
    "port": ("P", "num"), "protocol": (None, "str"), "read-from-remote-server": ("R", "bool"),
    "read-from-remote-master": (None, "str"), "read-from-remote-source": (None, "str"),
    "raw": (None, "bool"), "result-file": ("r", "str"), "server-id": (None, "num"),
    "server-id-bits": (None, "num"), "set-charset": (None, "str"), "short-form": ("s", "bool"),
    "socket": ("S", "str"), "server-public-key-path": (None, "str"),
    "get-server-public-key": (None, "bool"), "ssl-mode": (None, "str"), "ssl-ca": (None, "str"),
    "ssl-capath": (None, "str"), "ssl-cert": (None, "str"), "ssl-cipher": (None, "str"),
    "ssl-key": (None, "str"), "ssl-crl": (None, "str"), "ssl-crlpath": (None, "str"),
    "tls-version": (None, "str"), "ssl-fips-mode": (None, "str"),
    "tls-ciphersuites": (None, "str"), "ssl-session-data": (None, "str"),
    "ssl-session-data-continue-on-failed-reuse": (None, "bool"),
    "tls-sni-servername": (None, "str"), "start-datetime": (None, "str"),
    "start-position": ("j", "num"), "stop-datetime": (None, "str"), "stop-never": (None, "bool"),
    "stop-never-slave-server-id": (None, "num"), "connection-server-id": (None, "num"),
    "stop-position": (None, "num"), "to-last-log": ("t", "bool"), "user": ("u", "str"),
    "verbose": ("v", "flag"), "version": ("V", "flag"), "open-files-limit": (None, "num"),
    "verify-binlog-checksum": ("c", "bool"), "binlog-row-event-max-size": (None, "num"),
    "skip-gtids": (None, "bool"), "include-gtids": (None, "str"), "exclude-gtids": (None, "str"),
    "print-table-metadata": (None, "bool"), "compress": ("C", "bool"),
    "compression-algorithms": (None, "str"), "zstd-compression-level": (None, "num"),
    "require-row-format": (None, "bool"),
}
BASE64_OUTPUT_MODES = ("NEVER", "AUTO", "UNSPEC", "DECODE-ROWS")
SPECIAL_PREFIXES = ("skip", "disable", "enable", "maximum", "loose")
TRUE_WORDS = {"1", "on", "true"}
FALSE_WORDS = {"0", "off", "false"}
SUFFIXES = {"k": 10, "m": 20, "g": 30, "t": 40, "p": 50, "e": 60}
# my_getopt.h exit codes
EXIT_UNKNOWN_OPTION, EXIT_AMBIGUOUS_OPTION, EXIT_NO_ARGUMENT_ALLOWED = 2, 3, 4
EXIT_ARGUMENT_REQUIRED, EXIT_UNKNOWN_VARIABLE, EXIT_UNKNOWN_SUFFIX = 5, 7, 9
EXIT_ARGUMENT_INVALID = 13


class GetoptError(Exception):
    """Stop: print `lines` on stderr, exit with `code`."""

    def __init__(self, code, lines):
        super().__init__("; ".join(lines))
        self.code = code
        self.lines = lines


class Getopt:
    """my_getopt of MariaDB 10.11 (mariadb-binlog); MysqlGetopt words it as MySQL 9.7 does."""
    # the words of each message ({p}: the program name)
    MESSAGES = {
        "ambiguous": "{p}: ambiguous option '{arg}' ({first}, {last})",
        "unknown_option": "{p}: unknown option '{arg}'",
        "unknown_variable": "{p}: unknown variable '{var}'",
        "loose": "Warning: {line}",
        "unknown_short": "{p}: unknown option '-{letter}'",
        "requires_argument": "{p}: option '{shown}' requires an argument",
        "no_argument": "{p}: option '--{name}' cannot take an argument",
        "bad_bool": "Warning: {p}: ignoring option '--{name}' due to invalid value '{value}'",
        "unknown_suffix": "Unknown suffix '{suffix}' used for variable '{var}' (value '{value}'). "
                          "Legal suffix characters are: K, M, G, T, P, E",
        "setting": "{p}: Error while setting value '{value}' to '{var}'",
    }
    PREFIXES = True         # unique prefixes of option names are accepted (with an Info line)
    VARIABLE_DASHES = False     # variable names in messages keep '-' (else '_')

    def _text(self, key, **kw):
        return self.MESSAGES[key].format(p=self.progname, **kw)

    # the MariaDB clients: a port given on the command line means TCP, a socket the
    # socket (the last one given wins; option files do not switch)
    PROTOCOL_OF = {"port": "tcp", "socket": "socket"}

    def __init__(self, table=MARIADB_BINLOG_OPTIONS, extras=None, progname="mariadb-binlog",
                 stderr=None, on_version=None):
        self.table = table
        self.extras = extras or {}
        self.progname = progname
        self.stderr = stderr or sys.stderr
        self.on_version = on_version or (lambda: None)
        self.shorts = {short: name for name, (short, _) in {**self.extras, **table}.items() if short}
        self.secrets = []       # (command-line argument, password in it): cli.passwords hides them
        self._arg = None        # the command-line argument being read, None in option files

    def parse(self, file_args, cmd_args):
        """Plain long options and positional arguments, in order."""
        out, pending = [], 0
        for arg in file_args:
            try:
                self._one(arg, iter(()), out)
            except GetoptError as exc:
                self._say(exc.lines)
                pending = exc.code
        args = iter(cmd_args)
        for arg in args:
            if arg == "--":
                out.append("--")
                out.extend(args)
                break
            self._arg = arg
            self._one(arg, args, out)
        self._arg = None
        if pending:
            raise GetoptError(pending, [])
        return out

    def _say(self, lines):
        for line in lines:
            self.stderr.write(line + "\n")

    def _one(self, arg, rest, out):
        if arg.startswith("--"):
            self._long(arg, rest, out)
        elif arg.startswith("-") and arg != "-":
            self._short(arg, rest, out)
        else:
            out.append(arg)

    # -- long options --------------------------------------------------------------------
    def _long(self, arg, rest, out):
        typed, eq, value = arg[2:].partition("=")
        value = value if eq else None
        name, kind, special, loose = self._find(typed, arg, value)
        if name is None:
            self._unknown(arg, value, loose)
            return
        if special in ("skip", "disable"):
            value = "1" if value == "0" else "0"
        elif special == "enable":
            value = "0" if value == "0" else "1"
        self._apply(name, kind, value, rest, out, f"--{name}", maximum=special == "maximum")

    def _find(self, typed, arg, value):
        """(name, kind, special prefix, loose); name None for an unknown option."""
        stem, special, loose = typed, None, False
        found = self._match(stem, arg)
        while not found:
            for prefix in SPECIAL_PREFIXES:
                if stem[:len(prefix)].lower() == prefix and stem[len(prefix):len(prefix) + 1] in ("-", "_"):
                    break
            else:
                return None, None, special, loose
            stem = stem[len(prefix) + 1:]
            loose = loose or prefix == "loose"
            special = None if prefix == "loose" else prefix
            found = self._match(stem, arg)
        return found[0], found[1], special, loose

    def _match(self, stem, arg):
        key = stem.replace("_", "-").lower()
        for table in (self.table, self.extras):
            if key in table:
                return key, table[key][1]
            if not self.PREFIXES:
                continue
            found = [name for name in table if name.startswith(key)] if key else []
            if len(found) > 1:
                raise GetoptError(EXIT_AMBIGUOUS_OPTION, [
                    self._text("ambiguous", arg=arg, first=found[0], last=found[-1])])
            if found:
                self._say([f"Info: Using unique option prefix '{stem}' is error-prone and can "
                           f"break in the future. Please use the full name '{found[0]}' instead."])
                return found[0], table[found[0]][1]
        return None

    def _unknown(self, arg, value, loose):
        if value is not None:
            code, key = EXIT_UNKNOWN_VARIABLE, "unknown_variable"
        else:
            code, key = EXIT_UNKNOWN_OPTION, "unknown_option"
        line = self._text(key, arg=arg, var=arg[2:])
        if loose:
            self._say([self._text("loose", line=line)])
            return
        raise GetoptError(code, [line])

    # -- short options -------------------------------------------------------------------
    def _short(self, arg, rest, out):
        i = 1
        while i < len(arg):
            letter = arg[i]
            name = self.shorts.get(letter)
            if name is None:
                raise GetoptError(EXIT_UNKNOWN_OPTION, [self._text("unknown_short", letter=letter)])
            kind = {**self.extras, **self.table}[name][1]
            if kind in ("str", "num", "enum") or (kind == "opt" and i + 1 < len(arg)):
                value = arg[i + 1:] or None
                self._apply(name, kind, value, rest, out, f"-{letter}")
                return
            self._apply(name, kind, None, rest, out, f"-{letter}")
            i += 1

    # -- values --------------------------------------------------------------------------
    def _apply(self, name, kind, value, rest, out, shown, maximum=False):
        if kind in ("str", "num", "enum") and value is None:
            value = next(rest, None)
            if value is None:
                raise GetoptError(EXIT_ARGUMENT_REQUIRED,
                                  [self._text("requires_argument", shown=shown)])
        if maximum:
            if value is None:
                raise GetoptError(EXIT_ARGUMENT_REQUIRED,
                                  [self._text("requires_argument", shown=f"--{name}")])
            return      # the upper limit of a variable: nothing for binlogkit
        if kind == "flag":
            if value is not None:
                raise GetoptError(EXIT_NO_ARGUMENT_ALLOWED, [self._text("no_argument", name=name)])
            if name == "version":
                self.on_version()
            out.append(f"--{name}")
        elif kind == "bool":
            self._bool(name, value, out)
        elif kind == "num":
            out.append(f"--{name}={self._number(name, value)}")
        elif kind == "enum":
            out.append(f"--{name}={base64_output_mode(value)}")
        elif value is None:
            out.append(f"--{name}")
        else:
            if name == "password" and self._arg is not None:
                self.secrets.append((self._arg, value))
            out.append(f"--{name}={value}")
        if self._arg is not None and name in self.PROTOCOL_OF:
            out.append(f"--protocol={self.PROTOCOL_OF[name]}")

    def _bool(self, name, value, out):
        word = None if value is None else value.lower()
        if word is None or word in TRUE_WORDS:
            out.append(f"--{name}")
        elif word in FALSE_WORDS:
            out.append(f"--skip-{name}")
        else:
            self._say([self._text("bad_bool", name=name, value=value)])

    def _number(self, name, value):
        """eval_num_suffix for an unsigned option: the value as plain digits."""
        variable = name if self.VARIABLE_DASHES else name.replace("-", "_")
        text = value.strip()
        digits = len(text) - len(text.lstrip("+-0123456789")) if text else 0
        number_text, suffix = text[:digits], text[digits:]
        if number_text.startswith("-"):
            return self._negative(variable, value, number_text)
        shift = 0
        if suffix:
            if len(suffix) > 1 or suffix.lower() not in SUFFIXES:
                raise GetoptError(EXIT_UNKNOWN_SUFFIX, [
                    self._text("unknown_suffix", suffix=suffix[0], var=variable, value=value),
                    self._text("setting", value=value, var=variable)])
            shift = SUFFIXES[suffix.lower()]
        try:
            number = int(number_text or "0", 10)
        except ValueError:
            number = 0
        return str((number << shift) & ((1 << 64) - 1))

    def _negative(self, variable, value, number_text):
        raise GetoptError(EXIT_ARGUMENT_INVALID, [
            f"Incorrect unsigned value: '{value}' for {variable}",
            self._text("setting", value=value, var=variable)])


class MysqlGetopt(Getopt):
    """mysqlbinlog 9.7's my_getopt: whole option names only, its own words for each message."""
    PROTOCOL_OF = {}            # libmysql: localhost is the socket whatever the port
    MESSAGES = {
        "unknown_option": "{p}: [ERROR] unknown option '{arg}'.",
        "unknown_variable": "{p}: [ERROR] unknown variable '{var}'.",
        "loose": "{line}",
        "unknown_short": "{p}: [ERROR] {p}: unknown option '-{letter}'.",
        "requires_argument": "{p}: [ERROR] {p}: option '{shown}' requires an argument.",
        "no_argument": "{p}: [ERROR] {p}: option '--{name}' cannot take an argument.",
        "bad_bool": "{p}: [Warning] {p}: ignoring option '--{name}' due to invalid value '{value}'.",
        "unknown_suffix": "{p}: [ERROR] Unknown suffix '{suffix}' used for variable '{var}' "
                          "(value '{value}').",
        "setting": "{p}: [ERROR] {p}: Error while setting value '{value}' to '{var}'.",
    }
    PREFIXES = False
    VARIABLE_DASHES = True

    def _unknown(self, arg, value, loose):
        if loose:       # "[Warning]" in place of "[ERROR]", and parsing goes on
            key = "unknown_variable" if value is not None else "unknown_option"
            self._say([self._text(key, arg=arg, var=arg[2:]).replace("[ERROR]", "[Warning]", 1)])
            return
        super()._unknown(arg, value, False)

    def _negative(self, variable, value, number_text):
        """A negative number for an unsigned option: a warning, then 0."""
        self._say([f"{self.progname}: [Warning] option '{variable}': value {number_text} "
                   "adjusted to 0."])
        return "0"

    def _number(self, name, value):
        """A number option's value within its limits (MYSQL_NUMBERS), with mysqlbinlog's
        warnings for a value adjusted and its errors for one past 64 bits."""
        spec = MYSQL_NUMBERS.get(name)
        if spec is None:
            return super()._number(name, value)
        signed, low, high = spec
        variable = MYSQL_VARIABLES.get(name, name)
        text = value.strip()
        negative = text.startswith("-")
        if negative and not signed:
            return self._adjusted(variable, f"value {text}", low)
        number = int(super()._number(name, text.lstrip("-") if negative else text))
        if _past_64_bits(text):
            lines = [f"{self.progname}: [ERROR] Incorrect {'' if signed else 'unsigned '}"
                     f"integer value: '{value}'."]
            if not signed and low > 0:
                lines.append(f"{self.progname}: [Warning] option '{variable}': unsigned value 0 "
                             f"adjusted to {low}.")
            raise GetoptError(EXIT_UNKNOWN_SUFFIX, lines + [
                self._text("setting", value=value, var=variable)])
        number = -number if negative else number
        if signed and number >= 1 << 63:
            raise GetoptError(EXIT_UNKNOWN_SUFFIX, [
                f"{self.progname}: [ERROR] Incorrect integer value: '{value}'.",
                self._text("setting", value=value, var=variable)])
        kind = "signed" if signed else "unsigned"
        if number < low:
            return self._adjusted(variable, f"{kind} value {number}", low)
        if number > high:
            return self._adjusted(variable, f"{kind} value {number}", high)
        return str(number)

    def _adjusted(self, variable, what, to):
        self._say([f"{self.progname}: [Warning] option '{variable}': {what} adjusted to {to}."])
        return str(to)


def _past_64_bits(text):
    digits = text.lstrip("+-")
    digits = digits[:len(digits) - len(digits.lstrip("0123456789"))]
    return bool(digits) and int(digits) >= 1 << 64


U64 = (1 << 64) - 1
# mysqlbinlog 9.7.4's number options: (signed, lowest, highest), as its warnings show them
MYSQL_NUMBERS = {
    "offset": (False, 0, U64), "server-id": (False, 0, U64), "server-id-bits": (False, 7, 32),
    "start-position": (False, 4, U64), "stop-position": (False, 4, U64),
    "open-files-limit": (False, 8, (1 << 32) - 1),
    "binlog-row-event-max-size": (False, 256, U64), "zstd-compression-level": (False, 1, 22),
    "port": (True, 0, (1 << 31) - 1), "connection-server-id": (True, -1, (1 << 32) - 1),
    "stop-never-slave-server-id": (True, -1, (1 << 32) - 1),
}
MYSQL_VARIABLES = {"open-files-limit": "open_files_limit"}


def base64_output_mode(value):
    """mysqlbinlog's --base64-output: a case-insensitive unique prefix of its modes."""
    if not value:
        raise GetoptError(1, ["No option given to base64-output", _alternatives()])
    found = [mode for mode in BASE64_OUTPUT_MODES if mode.startswith(value.upper())]
    if value.upper() in BASE64_OUTPUT_MODES:
        found = [value.upper()]
    if len(found) != 1:
        raise GetoptError(1, [f"Unknown option to base64-output: {value}", _alternatives()])
    return found[0].lower()


def _alternatives():
    return "Alternatives are: " + ",".join(f"'{mode}'" for mode in BASE64_OUTPUT_MODES)
