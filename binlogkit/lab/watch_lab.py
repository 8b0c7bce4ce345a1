"""A live stall lab for `binlogkit watch`: a throw-away server with slow binlog syncs,
a workload, and stalls injected while a watcher follows it.

    with LiveLab(LabConfig(seconds_per_mb=3.0)) as lab:      # MariaDB; flavor="mysql": 9.7
        lab.workload(20)                     # paced writers; rotations stall ~3 s each
        lab.episode("ftwrl", 3.0)            # FLUSH TABLES WITH READ LOCK held 3 s under load
        lab.idle(5)                          # nothing runs
        lab.restart()                        # clean shutdown and start
        truth = lab.truth()                  # injected delays and episodes, epoch seconds

The server is the stall lab's (`binlogkit.lab.stall_lab`: the LD_PRELOAD shim makes
the sync of a finished binlog slow in proportion to its size and records each delay)
on a unix socket; `lab.socket` is what a watcher connects to.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from binlogkit.lab import stall_lab as S

__all__ = ["LiveLab"]


class LiveLab:
    def __init__(self, cfg: S.LabConfig | None = None, flavor: str = "mariadb"):
        self.cfg = cfg or S.LabConfig()
        self.flavor = flavor
        self.episodes = []
        self.server = None
        self.scratch = None

    # -- set-up --------------------------------------------------------------
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self._cleanup()
            raise
        return self

    def __exit__(self, *exc):
        self._cleanup()

    def _start(self):
        cfg = self.cfg
        if self.flavor == "mysql":
            from binlogkit.lab.mysql_root import MySQLServer, root_dir
            base = Path(root_dir()) / "tmp"
            base.mkdir(exist_ok=True)
            import tempfile
            self.scratch = Path(tempfile.mkdtemp(prefix="binlogkit-watch-lab-", dir=base))
            self.inside = lambda p: "/" + str(Path(p).relative_to(root_dir()))
            basename = "binlog"
        else:
            self.scratch = S._scratch_dir()
            self.inside = str
            basename = S.BINLOG_BASENAME
        shim = S.build_shim(self.scratch)
        self.shim_log, self.armed = self.scratch / "shim.log", self.scratch / "armed"
        self.slowlog = self.scratch / "slow.log"
        env = {"LD_PRELOAD": self.inside(shim), "BINLOGKIT_SLOWSYNC_PATTERN": f"{basename}.[0-9]*",
               "BINLOGKIT_SLOWSYNC_SEC_PER_MB": repr(float(cfg.seconds_per_mb)),
               "BINLOGKIT_SLOWSYNC_MIN_BYTES": str(cfg.min_delay_bytes),
               "BINLOGKIT_SLOWSYNC_LOG": self.inside(self.shim_log),
               "BINLOGKIT_SLOWSYNC_ARMED": self.inside(self.armed)}
        options = S._server_options(cfg, Path(self.inside(self.slowlog)))
        options["log_bin"] = basename
        if self.flavor == "mysql":
            from binlogkit.lab.mysql_root import MySQLServer
            for key in ("log_slow_verbosity",):
                options.pop(key, None)
            self.server = MySQLServer(options=options, env={"TZ": cfg.time_zone},
                                      basedir=self.scratch / "server", server_env=env)
        else:
            from binlogkit.lab.server import MariaDBServer
            self.server = MariaDBServer(options=options, env={"TZ": cfg.time_zone},
                                        basedir=self.scratch / "server", server_env=env)
        self.server.__enter__()
        self.server.sql("CREATE DATABASE lab;\nUSE lab;\n" + S.TABLE_SQL + ";\n")
        self.armed.touch()

    def _cleanup(self):
        if self.server is not None:
            self.server.__exit__(None, None, None)
            self.server = None
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None

    @property
    def socket(self):
        return str(self.server.socket)

    # -- what happens ----------------------------------------------------------
    def workload(self, seconds, episodes=()):
        """Run the paced workload for `seconds`; `episodes`: (kind, at_s, hold_s)."""
        cfg = S.LabConfig(**{**self.cfg.__dict__, "episodes": tuple(episodes)})
        work = S._Workload(self.server, cfg)
        eps = S._Episodes(self.server, cfg, work.stop)
        if episodes:
            eps.thread.start()
        work.run(seconds)
        if episodes:
            eps.thread.join(60)
            if eps.errors:
                raise S.LabError("confounder failed: " + eps.errors[0])
        self.episodes.extend(eps.done)
        return dict(work.counts)

    def episode(self, kind, hold_s, lead_s=2.0, tail_s=2.0):
        """A confounder under load: the workload runs `lead_s`, the hold, `tail_s`."""
        return self.workload(lead_s + hold_s + tail_s, [(kind, lead_s, hold_s)])

    def idle(self, seconds):
        time.sleep(seconds)

    def flush_logs(self):
        self.server.sql("FLUSH BINARY LOGS")

    def restart(self, kill=False):
        """Clean shutdown and start (kill=True: SIGKILL first)."""
        self.armed.unlink()
        try:
            if kill:
                self.server.kill()
                self.server.start()
            else:
                self.server.restart()
        finally:
            self.armed.touch()

    # -- ground truth ------------------------------------------------------------
    def truth(self):
        """{'delays': [{start, end, file, size}], 'episodes': [{kind, cause, start, end}]}
        with epoch seconds."""
        delays = [{"start": s["start_us"] / 1e6, "end": s["end_us"] / 1e6, "file": s["file"],
                   "size": s["size"], "duration_s": (s["end_us"] - s["start_us"]) / 1e6}
                  for s in S.read_shim_log(self.shim_log) if s["delay_us"] > 0]
        eps = [{"kind": e["kind"], "cause": e["cause"], "start": _epoch(e["start"]),
                "end": _epoch(e["end"]), "duration_s": e["duration_s"]} for e in self.episodes]
        return {"delays": delays, "episodes": eps}


def _epoch(text):
    import datetime
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
