"""A throw-away MariaDB server in a temporary directory.

    with MariaDBServer(options={"log_bin": "mariadb-bin"}, env={"TZ": "UTC"}) as srv:
        srv.sql("CREATE DATABASE d")
        files = srv.binlog_files()

The server listens only on a unix socket (``--skip-networking``), or with
``port=`` also on 127.0.0.1 (``port=0``: a free port), and is always shut down
and removed on exit, also when startup fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["MariaDBServer", "server_available", "find_binary"]

_SEARCH = ["/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin", "/usr/libexec"]


def find_binary(*names: str) -> str | None:
    """First of ``names`` found on PATH or in the usual sbin/bin dirs."""
    for name in names:
        found = shutil.which(name)
        if found:
            return found
        for d in _SEARCH:
            p = os.path.join(d, name)
            if os.access(p, os.X_OK):
                return p
    return None


def _mariadbd() -> str | None:
    return find_binary("mariadbd", "mysqld")


def _install_db() -> str | None:
    return find_binary("mariadb-install-db", "mysql_install_db")


def _client() -> str | None:
    return find_binary("mariadb", "mysql")


def server_available() -> bool:
    """True when a MariaDB server and mariadb-install-db are installed."""
    return _mariadbd() is not None and _install_db() is not None


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _opt(key: str, value) -> str:
    key = key.replace("_", "-")
    if value is True or value is None:
        return f"--{key}"
    if value is False:
        return f"--skip-{key}"
    return f"--{key}={value}"


class MariaDBServer:
    """Start ``mariadbd`` on a fresh datadir; use as a context manager."""

    def __init__(self, options: dict | None = None, env: dict | None = None,
                 basedir: str | os.PathLike | None = None,
                 startup_timeout: float = 60.0, server_env: dict | None = None,
                 port: int | None = None):
        self.options = dict(options or {})
        self.env = dict(os.environ)
        self.env.update(env or {})
        # extra variables for the mariadbd process only (e.g. LD_PRELOAD)
        self.server_env = dict(server_env or {})
        self.startup_timeout = startup_timeout
        # port: also listen on 127.0.0.1:port (0 picks a free one); None: socket only
        self.port = _free_port() if port == 0 else port
        self._own_base = basedir is None
        self.basedir = Path(basedir) if basedir else Path(tempfile.mkdtemp(prefix="binlogkit-lab-"))
        self.datadir = self.basedir / "data"
        self.socket = self.basedir / "mysqld.sock"
        self.pid_file = self.basedir / "mysqld.pid"
        self.error_log = self.basedir / "error.log"
        self.tmpdir = self.basedir / "tmp"
        self.proc: subprocess.Popen | None = None

    # -- lifecycle ---------------------------------------------------------
    def __enter__(self) -> "MariaDBServer":
        try:
            self.start()
        except BaseException:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()

    def _log_tail(self, n: int = 30) -> str:
        try:
            lines = self.error_log.read_text(errors="replace").splitlines()
        except OSError:
            return "(no error log)"
        return "\n".join(lines[-n:])

    def start(self) -> None:
        mariadbd, install_db = _mariadbd(), _install_db()
        if not (mariadbd and install_db):
            raise RuntimeError("mariadbd / mariadb-install-db not found")
        self.datadir.mkdir(parents=True, exist_ok=True)
        self.tmpdir.mkdir(parents=True, exist_ok=True)
        if not (self.datadir / "mysql").is_dir():    # a restart keeps its datadir
            self._install(install_db)
        self._start_mariadbd(mariadbd)

    def _install(self, install_db: str) -> None:
        r = subprocess.run(
            [install_db, "--no-defaults", f"--datadir={self.datadir}", "--user=root",
             "--auth-root-authentication-method=normal", "--skip-test-db",
             "--skip-name-resolve"],
            env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")

    def _server_command(self, mariadbd: str) -> list[str]:
        cmd = [mariadbd, "--no-defaults", f"--datadir={self.datadir}",
               f"--socket={self.socket}", f"--pid-file={self.pid_file}",
               *self._network_options(), "--user=root", f"--log-error={self.error_log}",
               f"--tmpdir={self.tmpdir}", "--innodb-buffer-pool-size=32M",
               "--innodb-log-file-size=16M"]
        return cmd + [_opt(k, v) for k, v in self.options.items()]

    def _start_mariadbd(self, mariadbd: str) -> None:
        self.proc = subprocess.Popen(self._server_command(mariadbd), env={**self.env, **self.server_env},
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mariadbd exited with {self.proc.returncode} during startup:\n"
                                   + self._log_tail())
            if self.socket.exists():
                try:
                    self.connect().close()
                    return
                except Exception:
                    pass
            if time.monotonic() > deadline:
                self.proc.kill()            # a server that never came up is not left running
                self.proc.wait()
                raise RuntimeError(f"mariadbd did not accept connections on {self.socket} "
                                   f"within {self.startup_timeout}s:\n" + self._log_tail())
            time.sleep(0.1)

    def _network_options(self) -> list[str]:
        if self.port is None:
            return ["--skip-networking"]
        return [f"--port={self.port}", "--bind-address=127.0.0.1"]

    def stop(self, timeout: float = 60.0) -> None:
        """Clean shutdown (the server writes a STOP event); idempotent."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            conn = self.connect()
            try:
                conn.cursor().execute("SHUTDOWN")
            finally:
                conn.close()
        except Exception:
            proc.terminate()  # SIGTERM is also a clean shutdown
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def restart(self) -> None:
        """Clean shutdown, then start again on the same datadir."""
        self.stop()
        self.start()

    def kill(self) -> None:
        """Hard kill (SIGKILL: no STOP event, the binlog keeps its in-use flag)."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()

    def cleanup(self) -> None:
        try:
            self.stop()
        finally:
            self.kill()
            if self._own_base:
                shutil.rmtree(self.basedir, ignore_errors=True)

    # -- access ------------------------------------------------------------
    def connect_args(self) -> dict:
        return {"unix_socket": str(self.socket), "user": "root", "password": ""}

    def connect(self, **kw):
        import pymysql
        args = self.connect_args()
        args.update(kw)
        return pymysql.connect(**args)

    def sql(self, statements: str, database: str | None = None,
            extra_args: list[str] | None = None, **run_kw) -> str:
        """Run ``statements`` with the ``mariadb`` client; return its stdout."""
        cmd = [_client() or "mariadb", "--no-defaults", f"--socket={self.socket}", "-u", "root",
               "--batch", "--skip-column-names"] + list(extra_args or [])
        if database:
            cmd.append(database)
        r = subprocess.run(cmd, input=statements.encode() if isinstance(statements, str) else statements,
                           capture_output=True, env=self.env, **run_kw)
        if r.returncode != 0:
            raise RuntimeError(f"mariadb client failed ({r.returncode}): "
                               + r.stderr.decode(errors="replace"))
        return r.stdout.decode(errors="replace")

    DEFAULT_LOG_BIN = "mysqld-bin"      # the base name of a bare --log-bin

    def host_path(self, path: Path) -> Path:
        """A path the server names (absolute, or relative to its datadir) on this host."""
        return path if path.is_absolute() else (self.datadir / path).resolve()

    def binlog_files(self) -> list[Path]:
        """Binlog paths in index order (empty if binary logging is off)."""
        base = self.options.get("log_bin", self.options.get("log-bin"))
        if base in (None, False):
            return []
        index = self.host_path(Path((self.DEFAULT_LOG_BIN if base is True else str(base)) + ".index"))
        if not index.exists():
            return []
        return [self.host_path(Path(line.strip()))
                for line in index.read_text().splitlines() if line.strip()]
