"""Connecting to a server as the mariadb/mysql clients do.

`ConnectOptions` holds mysqlbinlog's connection options; `connect()` opens an
authenticated pymysql connection with them: the unix socket for localhost
(or no host) unless `--protocol=TCP`, else TCP; `MYSQL_PWD` when no password
is given; TLS, auth plugins and packet sizes as remote.handshake decides them
(--ssl-mode, --ssl*, --enable-cleartext-plugin, --server-public-key-path,
--get-server-public-key).  Every read has a timeout (`read_timeout`).
"""
import errno
import getpass
import os
import socket

from binlogkit._record import record
from binlogkit.remote.protocol import ServerError, _server_error

DEFAULT_SOCKETS = ("/run/mysqld/mysqld.sock", "/var/run/mysqld/mysqld.sock", "/tmp/mysql.sock")
PROTOCOLS = ("tcp", "socket", "pipe", "memory")


@record(frozen=True, slots=False)
class ConnectOptions:
    host: str = None
    port: int = 0
    socket: str = None
    user: str = None
    password: str = None        # None: MYSQL_PWD, else none
    protocol: str = None
    ssl: bool = None            # MariaDB's --ssl / --skip-ssl; None: not given
    ssl_mode: str = None        # MySQL's --ssl-mode; None: the server flavor's default
    ssl_ca: str = None
    ssl_capath: str = None
    ssl_cert: str = None
    ssl_key: str = None
    ssl_cipher: str = None
    ssl_verify_server_cert: bool = False
    enable_cleartext_plugin: bool = False
    server_public_key_path: str = None
    get_server_public_key: bool = False
    connect_timeout: float = 30.0
    read_timeout: float = 600.0     # no byte from the server for this long: connection lost
    max_packet: int = 1 << 30       # mysqlbinlog's max_allowed_packet
    client: str = "mariadb"         # whose client rules and messages: "mariadb" or "mysql"

    @property
    def local_host(self):
        return self.host in (None, "", "localhost")

    @property
    def uses_socket(self):
        """'localhost' (or no host) means the unix socket unless --protocol=TCP.
        libmariadb uses TCP for any other host even with --protocol=SOCKET; libmysql
        takes the socket (and refuses another host: `connect`)."""
        protocol = (self.protocol or "").lower()
        if protocol == "tcp":
            return False
        if protocol == "socket" and self.client == "mysql":
            return True
        return self.local_host

    def describe(self):
        if self.uses_socket:
            return f"socket {self.socket_path()}"
        return f"{self.tcp_host()}:{self.tcp_port()}"

    def socket_path(self):
        if self.socket:
            return self.socket
        env = os.environ.get("MYSQL_UNIX_PORT")
        if env:
            return env
        for path in DEFAULT_SOCKETS:
            if os.path.exists(path):
                return path
        return DEFAULT_SOCKETS[0]

    def tcp_host(self):
        return "127.0.0.1" if self.host in (None, "", "localhost") else self.host

    def tcp_port(self):
        if self.port:
            return int(self.port)
        return int(os.environ.get("MYSQL_TCP_PORT") or 3306)

    def login(self):
        return self.user or os.environ.get("USER") or _os_user()

    def secret(self):
        if self.password is not None:
            return self.password
        return os.environ.get("MYSQL_PWD", "")

def _os_user():
    try:
        return getpass.getuser()
    except Exception:
        return ""


def connect(options, read_timeout=None, warn=None):
    """An authenticated connection (remote.handshake.Handshake), or
    ServerError('Failed on connect: ...').  `warn(text)` gets the client's warnings
    (a --server-public-key-path that cannot be read)."""
    from binlogkit.remote.handshake import Handshake
    protocol = (options.protocol or "").lower()
    if protocol and protocol not in PROTOCOLS:
        raise ServerError(f"Unknown option to protocol: {options.protocol}")
    kwargs = dict(user=options.login(), password=options.secret(),
                  connect_timeout=options.connect_timeout, autocommit=None,
                  read_timeout=read_timeout or options.read_timeout, charset="utf8mb4",
                  program_name="binlogkit", server_public_key=_public_key(options, warn),
                  binlogkit_options=options, max_packet=options.max_packet)
    if options.uses_socket:
        if options.client == "mysql" and not options.local_host:
            raise ServerError("Failed on connect: Wrong or unknown protocol", CR_CONN_UNKNOW_PROTOCOL)
        kwargs["unix_socket"] = options.socket_path()
    else:
        kwargs["host"] = options.tcp_host()
        kwargs["port"] = options.tcp_port()
    try:
        return Handshake(**kwargs)
    except Exception as exc:
        message = _connect_failure(options, getattr(exc, "original_exception", None))
        if message is not None:
            raise ServerError(f"Failed on connect: {message}", CR_CONN_HOST_ERROR) from None
        error = _server_error(exc)
        raise ServerError(f"Failed on connect: {error.message}", error.errno) from None


CR_CONN_HOST_ERROR, CR_CONN_UNKNOW_PROTOCOL = 2003, 2047
_NO_SERVER = (FileNotFoundError, ConnectionRefusedError, PermissionError)


def _connect_failure(options, cause):
    """The client library's words when no server could be reached, or None.

    libmariadb: "Can't connect to server on 'HOST' (115)" (its non-blocking
    connect reports EINPROGRESS for a refused port), "... local server through
    socket 'PATH' (2)", "Unknown server host 'HOST' (-2)"; libmysql names MySQL
    and HOST:PORT.  Names are cut as their printf formats cut them (%-.64s, %-.100s)."""
    if not isinstance(cause, (socket.gaierror,) + _NO_SERVER):
        return None
    code = cause.errno
    mysql = options.client == "mysql"
    word = " MySQL" if mysql else ""
    host = options.host or "localhost"
    if isinstance(cause, socket.gaierror):
        return f"Unknown{word} server host '{_cut(host, 100)}' ({code})"
    if options.uses_socket:
        path = _cut(options.socket_path(), 100 if mysql else 64)
        return f"Can't connect to local{word} server through socket '{path}' ({code})"
    if mysql:
        return f"Can't connect to MySQL server on '{_cut(host, 100)}:{options.tcp_port()}' ({code})"
    if code == errno.ECONNREFUSED:
        code = errno.EINPROGRESS
    return f"Can't connect to server on '{_cut(host, 64)}' ({code})"


def _cut(text, size):
    return os.fsencode(text)[:size].decode("utf-8", "replace")


def _public_key(options, warn):
    """--server-public-key-path's PEM, or None (libmysql warns and goes on without)."""
    path = options.server_public_key_path
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            return f.read(1 << 16)
    except OSError:
        if warn is not None:
            warn(f"Failed to locate server public key '{path}'.")
        return None
