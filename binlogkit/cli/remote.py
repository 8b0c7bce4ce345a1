"""`print -R` and `print -R --raw`: connection options -> remote.connection.ConnectOptions,
then a printer.mariadb.remote.RemoteSource or a remote.backup.RawBackup run under signals."""
import getpass
import signal
import sys
import time

from binlogkit.errors import BinlogkitError
from binlogkit.cli.passwords import MYSQL_WARNING
from binlogkit.remote.connection import ConnectOptions, connect


def connect_options(kw):
    """mysqlbinlog's connection options -> ConnectOptions (-p alone asks on the terminal)."""
    password = kw.get("password")
    if kw.get("password_prompt"):
        password = _ask_password()
    ssl_mode = check_ssl_mode(kw.get("ssl_mode"))
    if ssl_mode in ("PREFERRED", "REQUIRED") and (kw.get("ssl_ca") or kw.get("ssl_capath")):
        sys.stderr.write("WARNING: no verification of server certificate will be done. "
                         "Use --ssl-mode=VERIFY_CA or VERIFY_IDENTITY.\n")
    return ConnectOptions(
        host=kw.get("host"), port=kw.get("port") or 0, socket=kw.get("socket"),
        user=kw.get("user"), password=password, protocol=kw.get("protocol"),
        ssl=kw.get("ssl"), ssl_mode=ssl_mode, ssl_ca=kw.get("ssl_ca"),
        ssl_capath=kw.get("ssl_capath"), ssl_cert=kw.get("ssl_cert"), ssl_key=kw.get("ssl_key"),
        ssl_cipher=kw.get("ssl_cipher"),
        ssl_verify_server_cert=bool(kw.get("ssl_verify_server_cert")),
        enable_cleartext_plugin=bool(kw.get("enable_cleartext_plugin")),
        server_public_key_path=kw.get("server_public_key_path"),
        get_server_public_key=bool(kw.get("get_server_public_key")),
        client="mysql" if kw.get("flavor") == "mysql" else "mariadb")


def check_ssl_mode(text):
    """--ssl-mode's value upper-cased, or mysqlbinlog's error (exit 1)."""
    if text is None:
        return None
    from binlogkit.remote.handshake import SSL_MODES
    if text.upper() not in SSL_MODES:
        raise BinlogkitError(f"Unknown option to ssl-mode: {text}\nAlternatives are: "
                             + ",".join(f"'{mode}'" for mode in SSL_MODES))
    return text.upper()


def _ask_password():
    try:
        return getpass.getpass("Enter password: ")
    except (EOFError, KeyboardInterrupt):
        return ""


def _connector(options, kw=None):
    """connect(options) as a callable; the first connection to a MySQL server with a
    password from the command line prints mysqlbinlog's warning (mariadb-binlog has none)."""
    pending = [bool(kw and kw.get("password_on_command_line"))
               and (kw.get("flavor") or "auto") != "mysql"
               and not kw.get("mysql_password_warning")]

    def connector():
        conn = connect(options, warn=_client_warning)
        if pending[0]:
            pending[0] = False
            if "mariadb" not in str(getattr(conn, "server_version", "")).lower():
                sys.stderr.write(MYSQL_WARNING + "\n")
                sys.stderr.flush()
        return conn
    return connector


def _client_warning(text):
    sys.stderr.write(f"mysqlbinlog: [Warning] {text}\n")


def remote_source(kw, print_options):
    from binlogkit.printer.mariadb.remote import RemoteSource
    start_gtids = None
    if print_options.start_gtids is not None:
        start_gtids = ",".join("%d-%d-%d" % gtid for gtid in print_options.start_gtids)
    from binlogkit.remote.greeting import greeting_version
    options = connect_options(kw)
    return RemoteSource(_connector(options, kw), to_last_log=kw.get("to_last_log"),
                        stop_never=kw.get("stop_never"), server_id=kw.get("connection_server_id") or 0,
                        skip_annotate_row_events=kw.get("skip_annotate_row_events"),
                        start_gtids=start_gtids, gtid_set=_dump_gtid_set(kw),
                        greeting=lambda: greeting_version(options))


def run_raw(files, kw):
    """-R --raw: copy the named logs (with -t / --stop-never: and all after them)."""
    from binlogkit.remote.backup import RawBackup
    connect_opts = connect_options(kw)
    gtid_set = _dump_gtid_set(kw)
    prefix = kw.get("result_file") or ""
    status = _status_line if sys.stderr.isatty() else None
    connector = _connector(connect_opts, kw)
    stop = _StopOnSignal()
    try:
        for name in (files[:1] if kw.get("to_last_log") or kw.get("stop_never") else files):
            backup = RawBackup(connector, name, prefix=prefix,
                               stop_never=kw.get("stop_never"), to_last_log=kw.get("to_last_log"),
                               server_id=kw.get("connection_server_id") or 0,
                               retries=kw.get("connect_retries"), status=status, notice=_notice,
                               gtid_set=gtid_set)
            backup.run()
    except _Stopped:
        pass
    finally:
        stop.restore()
        if status is not None:
            sys.stderr.write("\n")
    return 0


def _dump_gtid_set(kw):
    """--read-from-remote-source=BINLOG-DUMP-GTIDS: the encoded --exclude-gtids set
    (empty when not given), for COM_BINLOG_DUMP_GTID; else None."""
    if (kw.get("read_from_remote_source") or "").upper() != "BINLOG-DUMP-GTIDS":
        return None
    from binlogkit.printer.mysql.gtidset import GtidSet
    text = kw.get("exclude_gtids") or ""
    try:
        return GtidSet.parse(text).encoded()
    except ValueError:
        raise BinlogkitError(f"Could not configure --exclude-gtids '{text}'") from None


class _Stopped(BaseException):
    """SIGTERM / SIGINT.  Not an Exception: the connection code turns any Exception
    during a connect or query into a lost connection to retry, which swallowed a
    SIGTERM arriving while the backup reconnected (it went on copying)."""


class _StopOnSignal:
    """SIGTERM / SIGINT end the backup cleanly: the copy is cut back to its last
    complete group and synced (RawBackup.run's finally)."""

    def __init__(self):
        self.saved = {sig: signal.signal(sig, self._handler)
                      for sig in (signal.SIGTERM, signal.SIGINT)}

    def _handler(self, signum, frame):
        raise _Stopped()

    def restore(self):
        for sig, handler in self.saved.items():
            signal.signal(sig, handler)


def _notice(message):
    sys.stderr.write(f"binlogkit: {message}\n")
    sys.stderr.flush()


_last_status = [0.0, 0, 0.0]


def _status_line(backup):
    now = time.monotonic()
    last = _last_status
    if now - last[0] < 0.5:
        return
    rate = (backup.events - last[1]) / (now - last[0]) if last[0] else 0.0
    last[:] = [now, backup.events, rate]
    behind = max(0, int(time.time()) - getattr(backup, "last_when", int(time.time())))
    copy = backup.copy
    sys.stderr.write(f"\r{copy.name} {copy.size} {rate:.0f} events/s {behind} s behind   ")
    sys.stderr.flush()


