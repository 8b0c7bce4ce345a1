"""Connecting to a server as the mariadb/mysql clients do.

`ConnectOptions` holds mysqlbinlog's connection options; `connect()` opens an
authenticated pymysql connection with them: the unix socket for localhost
(or no host) unless `--protocol=TCP`, else TCP; `MYSQL_PWD` when no password
is given; TLS with --ssl/--ssl-ca/--ssl-cert/--ssl-key.
"""
import getpass
import os

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
    ssl: bool = False
    ssl_ca: str = None
    ssl_capath: str = None
    ssl_cert: str = None
    ssl_key: str = None
    ssl_cipher: str = None
    ssl_verify_server_cert: bool = False
    connect_timeout: float = 30.0
    read_timeout: float = None

    @property
    def uses_socket(self):
        """libmariadb's rule: 'localhost' (or no host) means the unix socket."""
        protocol = (self.protocol or "").lower()
        if protocol == "tcp":
            return False
        if protocol == "socket":
            return True
        return self.host in (None, "", "localhost")

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

    def ssl_args(self):
        if not (self.ssl or self.ssl_ca or self.ssl_capath or self.ssl_cert or self.ssl_key
                or self.ssl_cipher or self.ssl_verify_server_cert):
            return None
        args = {}
        for key in ("ca", "capath", "cert", "key", "cipher"):
            value = getattr(self, "ssl_" + key)
            if value:
                args[key] = value
        args["check_hostname"] = bool(self.ssl_verify_server_cert)
        if not self.ssl_verify_server_cert:
            args["verify_mode"] = 0       # ssl.CERT_NONE: encrypt, do not verify
        return args


def _os_user():
    try:
        return getpass.getuser()
    except Exception:
        return ""


def connect(options, read_timeout=None):
    """An authenticated pymysql connection, or ServerError('Failed on connect: ...')."""
    import pymysql
    protocol = (options.protocol or "").lower()
    if protocol and protocol not in PROTOCOLS:
        raise ServerError(f"Unknown option to protocol: {options.protocol}")
    kwargs = dict(user=options.login(), password=options.secret(),
                  connect_timeout=options.connect_timeout, autocommit=None,
                  read_timeout=read_timeout, charset="utf8mb4",
                  program_name="binlogkit")
    if options.uses_socket:
        kwargs["unix_socket"] = options.socket_path()
    else:
        kwargs["host"] = options.tcp_host()
        kwargs["port"] = options.tcp_port()
    ssl = options.ssl_args()
    if ssl is not None:
        kwargs["ssl"] = _ssl_context(ssl)
    try:
        return pymysql.connect(**kwargs)
    except Exception as exc:
        error = _server_error(exc)
        raise ServerError(f"Failed on connect: {error.message}", error.errno) from None


def _ssl_context(args):
    import ssl
    ctx = ssl.create_default_context(cafile=args.get("ca"), capath=args.get("capath"))
    ctx.check_hostname = args.get("check_hostname", False)
    if args.get("verify_mode") == 0:
        ctx.verify_mode = ssl.CERT_NONE
    if args.get("cert"):
        ctx.load_cert_chain(args["cert"], args.get("key"))
    if args.get("cipher"):
        ctx.set_ciphers(args["cipher"])
    return ctx
