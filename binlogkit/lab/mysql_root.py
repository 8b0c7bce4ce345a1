"""A throw-away MySQL 9.7 server, run from a Debian unstable root under chroot.

Debian's stable suite carries no MySQL; its unstable suite has mysql-server-core,
mysql-client and mysql-testsuite 9.7.  ``build_root()`` makes (once, cached) a
minimal unstable root with mmdebstrap; ``MySQLServer`` starts mysqld in it on a
fresh ``--initialize-insecure`` datadir, listening on a unix socket (and with
``port=`` on 127.0.0.1), with the same API as ``lab.server.MariaDBServer``:

    with MySQLServer(options={"log_bin": "binlog", "server_id": 1}) as srv:
        srv.sql("CREATE DATABASE d")
        files = srv.binlog_files()        # host paths
        text = mysqlbinlog([*map(str, files)], "-vv")

Paths: the server's files live in the root's /tmp; ``srv.basedir`` and every
path this module returns are host paths, ``in_root(path)`` is the same file
seen from inside the root.  Building and starting need root (chroot, mount).

    python3 -m binlogkit.lab.mysql_root build      # what .ci/run does

The root is ``$BINLOGKIT_MYSQL_ROOT`` or /var/cache/binlogkit/mysql-root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from binlogkit.lab.server import MariaDBServer, _opt

__all__ = ["MySQLServer", "build_root", "root_dir", "root_available", "mysqlbinlog",
           "in_root", "copy_into_root", "PACKAGES"]

PACKAGES = ("mysql-server-core", "mysql-client-core", "mysql-client", "mysql-testsuite", "tzdata")
_DEFAULT_ROOT = "/var/cache/binlogkit/mysql-root"
# the unstable suite's Release file on the mirror is past its Valid-Until date
_APT_OPTION = 'Acquire::Check-Valid-Until "false"'


def root_dir() -> Path:
    return Path(os.environ.get("BINLOGKIT_MYSQL_ROOT", _DEFAULT_ROOT))


def root_available(root: Path | None = None) -> bool:
    """True when the root holds mysqld and mysqlbinlog and we may chroot into it."""
    root = Path(root or root_dir())
    return (os.geteuid() == 0 and (root / "usr/sbin/mysqld").exists()
            and (root / "usr/bin/mysqlbinlog").exists())


def _host_mirror() -> str:
    """The Debian mirror the host's apt sources name (deb822 or one-line form)."""
    for src in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for line in src.read_text(errors="replace").splitlines():
            if line.startswith("URIs:") and "security" not in line:
                return line.split()[1]
    try:
        for line in Path("/etc/apt/sources.list").read_text().splitlines():
            parts = line.split()
            if parts[:1] == ["deb"] and "security" not in line:
                return next(p for p in parts[1:] if "://" in p)
    except (OSError, StopIteration):
        pass
    return "http://deb.debian.org/debian"


def build_root(root: Path | None = None, mirror: str | None = None) -> Path:
    """Make the unstable root with mmdebstrap unless it is there already."""
    root = Path(root or root_dir())
    if root_available(root):
        return root
    if shutil.which("mmdebstrap") is None:
        raise RuntimeError("mmdebstrap not found (apt-get install mmdebstrap)")
    tmp = root.with_name(root.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    root.parent.mkdir(parents=True, exist_ok=True)
    cmd = ["mmdebstrap", "--variant=apt", f"--aptopt={_APT_OPTION}",
           "--include=" + ",".join(PACKAGES), "sid", str(tmp), mirror or _host_mirror()]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError(f"mmdebstrap failed ({r.returncode}):\n{r.stderr[-3000:]}")
    shutil.rmtree(root, ignore_errors=True)
    tmp.rename(root)
    return root


def _ensure_proc(root: Path) -> None:
    """Mount /proc in the root (mysqld and the lab's LD_PRELOAD shim read /proc/self)."""
    if not (root / "proc/self").exists():
        subprocess.run(["mount", "-t", "proc", "proc", str(root / "proc")], check=True)


def in_root(path: os.PathLike | str, root: Path | None = None) -> str:
    """A host path below the root as the chroot sees it."""
    root = Path(root or root_dir()).resolve()
    rel = Path(path).resolve().relative_to(root)
    return "/" + str(rel)


def copy_into_root(paths, root: Path | None = None) -> list[str]:
    """Copy host files into a fresh directory of the root's /tmp; their chroot paths.

    Files already below the root are not copied.  The caller removes the
    directory (the parent of the returned paths) when done.
    """
    root = Path(root or root_dir()).resolve()
    out, dest = [], None
    for p in map(Path, paths):
        if root in p.resolve().parents:
            out.append(in_root(p, root))
            continue
        if dest is None:
            dest = Path(tempfile.mkdtemp(prefix="binlogkit-in-", dir=root / "tmp"))
        shutil.copyfile(p, dest / p.name)
        out.append(in_root(dest / p.name, root))
    return out


def _chroot(root: Path, *argv: str, tmpdir: str = "/tmp") -> list[str]:
    """argv to run a program of the root; its TMPDIR is one of the root's.

    The host's TMPDIR means nothing inside the root (mysqld refuses to start
    when it cannot stat it), so env sets it there rather than in the caller's env.
    """
    return ["chroot", str(root), "/usr/bin/env", f"TMPDIR={tmpdir}", *argv]


def mysqlbinlog(args, *more, root: Path | None = None, env: dict | None = None,
                **run_kw) -> subprocess.CompletedProcess:
    """Run the root's mysqlbinlog 9.7 with ``args`` (paths as the chroot sees them).

    mysqlbinlog writes a LOAD DATA statement's file (SQL_LOAD_MB-<id>-<n>) to
    --local-load, else to TMPDIR, and never removes it: without --local-load
    this run gets a TMPDIR of its own in the root's /tmp, removed when it ends
    (the output names files that are gone; pass --local-load to keep them).
    """
    root = Path(root or root_dir())
    argv = [str(a) for a in (list(args) if not isinstance(args, str) else [args])] + list(more)
    run_kw.setdefault("capture_output", True)
    env = dict(os.environ, **(env or {}))
    if any(a.startswith(("--local-load", "-l")) for a in argv):
        return subprocess.run(_chroot(root, "/usr/bin/mysqlbinlog", *argv), env=env, **run_kw)
    (root / "tmp").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="binlogkit-load-", dir=root / "tmp") as tmp:
        return subprocess.run(_chroot(root, "/usr/bin/mysqlbinlog", *argv,
                                      tmpdir=in_root(tmp, root)), env=env, **run_kw)


def mysqlbinlog_version(root: Path | None = None) -> str:
    """'mysqlbinlog  Ver 9.7.4-2 for Linux on x86_64 ((Debian))' (the recorded version line)."""
    return mysqlbinlog(["--version"], root=root, text=True).stdout.strip()


class MySQLServer(MariaDBServer):
    """mysqld 9.7 from the root on a fresh datadir; use as a context manager.

    ``options`` become mysqld options (``{"gtid_mode": "ON"}`` -> ``--gtid-mode=ON``).
    Defaults: binary logging to ``binlog`` with server id 1 (MySQL's own default),
    X plugin off, ``secure_file_priv`` empty (the packaged directory is missing).
    """

    def __init__(self, options: dict | None = None, env: dict | None = None,
                 root: Path | None = None, **kw):
        self.root = Path(root or root_dir()).resolve()
        if kw.get("basedir") is None:
            (self.root / "tmp").mkdir(exist_ok=True)
            kw["basedir"] = tempfile.mkdtemp(prefix="binlogkit-mysql-", dir=self.root / "tmp")
            own = True
        else:
            own = False
        opts = {"log_bin": "binlog", "server_id": 1}
        opts.update(options or {})
        super().__init__(options=opts, env=env, **kw)
        self._own_base = own

    def _chroot(self, *argv: str) -> list[str]:
        return _chroot(self.root, *argv, tmpdir=self.r(self.tmpdir))

    def r(self, path) -> str:
        """A host path of this server as mysqld sees it."""
        return in_root(path, self.root)

    def start(self) -> None:
        if not root_available(self.root):
            raise RuntimeError(f"no MySQL root at {self.root} (python3 -m binlogkit.lab.mysql_root build)")
        _ensure_proc(self.root)
        self.datadir.parent.mkdir(parents=True, exist_ok=True)
        self.tmpdir.mkdir(parents=True, exist_ok=True)
        if not (self.datadir / "mysql").is_dir():
            self._initialize()
        self._start_mariadbd("/usr/sbin/mysqld")

    def _initialize(self) -> None:
        r = subprocess.run(self._chroot("/usr/sbin/mysqld", "--no-defaults", "--initialize-insecure",
                                        f"--datadir={self.r(self.datadir.parent)}/data",
                                        "--user=root", f"--log-error={self.r(self.basedir)}/init.log"),
                           env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            log = (self.basedir / "init.log").read_text(errors="replace")[-3000:] \
                if (self.basedir / "init.log").exists() else ""
            raise RuntimeError(f"mysqld --initialize-insecure failed ({r.returncode}):\n{r.stderr}\n{log}")

    def _server_command(self, mysqld: str) -> list[str]:
        cmd = [mysqld, "--no-defaults", f"--datadir={self.r(self.datadir)}",
               f"--socket={self.r(self.socket)}", f"--pid-file={self.r(self.pid_file)}",
               *self._network_options(), "--user=root", f"--log-error={self.r(self.error_log)}",
               f"--tmpdir={self.r(self.tmpdir)}", "--mysqlx=OFF", "--secure-file-priv=",
               "--innodb-buffer-pool-size=32M", "--innodb-redo-log-capacity=16M",
               "--performance-schema=OFF"]
        cmd += [_opt(k, v) for k, v in self.options.items()]
        return self._chroot(*cmd)

    def sql(self, statements: str, database: str | None = None,
            extra_args: list[str] | None = None, **run_kw) -> str:
        """Run ``statements`` with the root's ``mysql`` client; return its stdout."""
        cmd = self._chroot("/usr/bin/mysql", "--no-defaults", f"--socket={self.r(self.socket)}",
                           "-u", "root", "--batch", "--skip-column-names", *(extra_args or []))
        if database:
            cmd.append(database)
        data = statements.encode() if isinstance(statements, str) else statements
        r = subprocess.run(cmd, input=data, capture_output=True, env=self.env, **run_kw)
        if r.returncode != 0:
            raise RuntimeError(f"mysql client failed ({r.returncode}): "
                               + r.stderr.decode(errors="replace"))
        return r.stdout.decode(errors="replace")

    DEFAULT_LOG_BIN = "binlog"

    def host_path(self, path: Path) -> Path:
        """A path mysqld names (absolute inside the root, or relative to its datadir) on this host."""
        return self.root / str(path).lstrip("/") if path.is_absolute() else super().host_path(path)


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"]:
        try:
            root = build_root()
        except RuntimeError as exc:
            print(f"mysql_root: {exc}", file=sys.stderr)
            return 1
        print(f"MySQL root: {root} ({mysqlbinlog_version(root)})")
        return 0
    print("usage: python3 -m binlogkit.lab.mysql_root build", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
