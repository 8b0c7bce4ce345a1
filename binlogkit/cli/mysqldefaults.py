"""Option files as mysqlbinlog 9.7 reads them, with the login path file (~/.mylogin.cnf).

`load_mysql_defaults(argv)` is `optionfile.load_defaults` for the MySQL flavor's command line.
Behaviour checked against mysqlbinlog 9.7.4 and mysql_config_editor 9.7.4 (`--print-defaults`),
nothing copied from their source:

* leading options: `--no-defaults` (first only), then any of `--defaults-file=`,
  `--defaults-extra-file=`, `--defaults-group-suffix=`, `--login-path=`, `--no-login-paths`
  (each once), then `--print-defaults`;
* option files: /etc/my.cnf, /etc/mysql/my.cnf, $MYSQL_HOME/my.cnf, the --defaults-extra-file,
  ~/.my.cnf (or only the --defaults-file), groups [mysqlbinlog] and [client] (and with the
  group suffix);
* then the login path file ($MYSQL_TEST_LOGIN_FILE, else ~/.mylogin.cnf), read even with
  --no-defaults, skipped with --no-login-paths: groups [client], [mysqlbinlog] and the
  --login-path (default client), in file order; a file others may read is ignored with
  mysqlbinlog's warning, an unreadable one silently;
* --print-defaults shows passwords as `*****`.

The login path file as mysql_config_editor writes it: 4 unused bytes, 20 bytes of key
material (folded by XOR into a 16-byte AES-128 key), then per line a 4-byte little-endian
length and that many bytes of AES-128-ECB ciphertext (PKCS#7 padding) of one option-file line.
"""
import os
import stat
import sys

from binlogkit.cli import optionfile
from binlogkit.cli.optionfile import LEADING, Defaults, DefaultsError, _absolute, _Reader

__all__ = ["load_mysql_defaults", "format_mysql_print_defaults", "read_login_file",
           "MYSQLBINLOG_GROUPS"]

MYSQLBINLOG_GROUPS = ("mysqlbinlog", "client")
PROGNAME = "mysqlbinlog"
_PREFIXES = LEADING + (("--login-path=", "login_path"),)
_KEY_AT, _KEY_LEN, _LINES_AT = 4, 20, 24


class MysqlDefaults(Defaults):
    def __init__(self):
        super().__init__()
        self.login_path = None
        self.no_login_paths = False


def split_leading(argv):
    """(MysqlDefaults, remaining argv) (module doc)."""
    return optionfile.split_leading(argv, MysqlDefaults(), _PREFIXES,
                                    (("--no-login-paths", "no_login_paths"),),
                                    after_no_defaults=True)


def load_mysql_defaults(argv, environ=None, warn=None):
    """(MysqlDefaults, file arguments, command-line arguments).  Raises DefaultsError."""
    environ = os.environ if environ is None else environ
    warn = warn or (lambda text: sys.stderr.write(text + "\n"))
    found, rest = split_leading(argv)
    suffix = found.group_suffix if found.group_suffix is not None else environ.get(
        "MYSQL_GROUP_SUFFIX")
    groups = {g for g in MYSQLBINLOG_GROUPS}
    if suffix:
        groups |= {g + suffix.lower() for g in MYSQLBINLOG_GROUPS}
    reader = _Reader(groups, warn)
    if not found.no_defaults:
        if found.defaults_file is not None:
            reader.read(_absolute(found.defaults_file), required=True)
        else:
            for path, required in mysql_default_files(found.extra_file, environ):
                reader.read(path, required)
    if not found.no_login_paths:
        login = (found.login_path or "client").lower()
        reader.args += read_login_file(login_file_path(environ), groups | {login}, warn)
    return found, reader.args, rest


def mysql_default_files(extra_file=None, environ=None):
    """[(path, required)] in the order mysqlbinlog reads them."""
    environ = os.environ if environ is None else environ
    out = [("/etc/my.cnf", False), ("/etc/mysql/my.cnf", False)]
    if environ.get("MYSQL_HOME"):
        out.append((os.path.join(environ["MYSQL_HOME"], "my.cnf"), False))
    if extra_file is not None:
        out.append((_absolute(extra_file), True))
    if environ.get("HOME"):
        out.append((os.path.join(environ["HOME"], ".my.cnf"), False))
    return out


def login_file_path(environ=None):
    environ = os.environ if environ is None else environ
    if environ.get("MYSQL_TEST_LOGIN_FILE"):
        return environ["MYSQL_TEST_LOGIN_FILE"]
    return os.path.join(environ.get("HOME") or "", ".mylogin.cnf")


def read_login_file(path, groups, warn):
    """The option arguments of `groups` in the login path file (module doc); [] without one."""
    try:
        info = os.stat(path)
    except OSError:
        return []
    if not stat.S_ISREG(info.st_mode):
        return []
    if info.st_mode & (stat.S_IXUSR | stat.S_IRWXG | stat.S_IRWXO):
        warn(f"{PROGNAME}: [Warning] {path} should be readable/writable only by current user.")
        return []
    try:
        with open(path, "rb") as f:
            text = decrypt_login_file(f.read())
    except (OSError, ValueError):
        return []
    reader = _Reader(set(groups), warn)
    try:
        reader._parse(path, text, 0)
    except DefaultsError:
        return []
    return reader.args


def decrypt_login_file(data):
    """The option-file text of a login path file; ValueError when it is not one."""
    if len(data) < _LINES_AT:
        raise ValueError("too short")
    key = bytearray(16)
    for i, byte in enumerate(data[_KEY_AT:_KEY_AT + _KEY_LEN]):
        key[i % 16] ^= byte
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    cipher = Cipher(algorithms.AES(bytes(key)), modes.ECB())
    lines, pos = [], _LINES_AT
    while pos + 4 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], "little")
        chunk = data[pos + 4:pos + 4 + size]
        if size == 0 or size % 16 or len(chunk) != size:
            raise ValueError("truncated")
        plain = cipher.decryptor().update(chunk)
        pad = plain[-1]
        if not 1 <= pad <= 16 or plain[-pad:] != bytes([pad]) * pad:
            raise ValueError("bad padding")
        lines.append(plain[:-pad])
        pos += 4 + size
    return b"".join(lines).decode("utf-8", "surrogateescape")


def format_mysql_print_defaults(file_args, rest):
    """--print-defaults as mysqlbinlog prints it: every --password... as --password=*****."""
    shown = ["--password=*****" if a.startswith("--password") else a for a in file_args + rest]
    text = f"{PROGNAME} would have been started with the following arguments:\n"
    return text + "".join(arg + " " for arg in shown) + "\n"
