"""The watcher: a binlog follower and a slow-log follower feeding one online diagnosis.

Two threads read (the binlog dump blocks on its socket; the slow log is polled)
and put what they read on one queue; the caller's thread takes it from there,
feeds `OnlineDiagnosis`, counts the metrics and writes the alerts, and ticks at
least every `TICK_S` so a stall is decided within its look-ahead also when
nothing more arrives.  `stop()` (SIGTERM, SIGINT) ends the loop; `reopen()`
(SIGHUP) reopens the alert output.
"""
import queue
import threading
import time

from binlogkit.errors import BinlogkitError
from binlogkit.remote.follow import FollowStopped
from binlogkit.watch.diagnosis import OnlineDiagnosis, iso

__all__ = ["Watcher", "TICK_S"]

TICK_S = 0.2
PROBE_SQL = "/* binlogkit watch */ SHOW BINARY LOGS"    # marked: left out of the slow log's
SLOW_POLL_S = 0.2


class Watcher:
    def __init__(self, follower, alerts, *, slow=None, metrics=None, threshold=1.0,
                 describe="", clock=time.time, until_caught_up=False, probe=None):
        self.follower = follower
        self.alerts = alerts
        self.slow = slow
        self.metrics = metrics
        self.clock = clock
        self.describe = describe
        self.diag = OnlineDiagnosis(threshold=threshold, emit=self._emit)
        self.queue = queue.SimpleQueue()
        self.stopping = threading.Event()
        self.error = None
        self.hup = False
        self.last_commit_at = None
        self.threads = []
        self.until_caught_up = until_caught_up
        self.n_events = self.n_bytes = 0     # counted here, added to the metrics 20 times a second
        self.behind = 0.0
        self.probe = probe                   # query(sql) on a side connection, or None
        self.probe_arm = threading.Event()
        if hasattr(follower, "notice"):
            follower.notice = self._notice

    # -- control -------------------------------------------------------------
    def stop(self):
        self.stopping.set()
        self.follower.stop()
        self.probe_arm.set()

    def reopen(self):
        self.hup = True

    # -- threads -------------------------------------------------------------
    def _follow(self):
        try:
            self.follower.run(self.queue.put)
        except FollowStopped:
            pass
        except (BinlogkitError, OSError) as exc:
            self.queue.put(("error", exc))
        except Exception as exc:      # noqa: BLE001  (ends the watch with one line, not silence)
            self.queue.put(("error", BinlogkitError(f"{type(exc).__name__}: {exc}")))

    def _poll_slow(self):
        while not self.stopping.wait(SLOW_POLL_S):
            try:
                entries = self.slow.poll()
            except (BinlogkitError, OSError) as exc:
                self.queue.put(("notice", f"slow log: {exc}"))
                self.stopping.wait(5.0)
                continue
            except Exception as exc:  # noqa: BLE001  (a server gone: try again later)
                self.queue.put(("notice", f"slow log: {exc}"))
                self.stopping.wait(5.0)
                continue
            if entries:
                self.queue.put(("slow", entries))

    def _probe(self):
        """SHOW BINARY LOGS when the diagnosis asks (commits just stopped on a MySQL
        server): how long it blocks says whether the binlog lock is held."""
        while not self.stopping.is_set():
            if not self.probe_arm.wait(0.5):
                continue
            self.probe_arm.clear()
            started = self.clock()
            self.queue.put(("probe", started, None))
            try:
                self.probe(PROBE_SQL)
            except Exception:         # noqa: BLE001  (a server gone: the follower says so)
                pass
            self.queue.put(("probe", started, self.clock()))

    def _mysql(self):
        version = getattr(self.follower, "version", "") or ""
        return bool(version) and "mariadb" not in version.lower()

    def _notice(self, kind, message):
        self.queue.put((kind, self.clock(), message))

    # -- the loop ------------------------------------------------------------
    def run(self):
        """Watch until stop() or an error (raised)."""
        self._emit("watching", {"at": iso(self.clock()), "message": self.describe})
        if self.metrics is not None:
            self.metrics.connected.set(1)
        targets = [self._follow] + ([self._poll_slow] if self.slow is not None else []) \
            + ([self._probe] if self.probe is not None else [])
        self.threads = [threading.Thread(target=t, daemon=True, name=t.__name__) for t in targets]
        for thread in self.threads:
            thread.start()
        get = self.queue.get
        handle = self._handle
        monotonic = time.monotonic
        next_tick = 0.0
        try:
            while not self.stopping.is_set():
                try:
                    item = get(timeout=TICK_S)
                except queue.Empty:
                    item = None
                if item is not None:
                    handle(item)
                if item is None or monotonic() >= next_tick:    # busy: 20 times a second
                    next_tick = monotonic() + 0.05
                    self._flush_counts()
                    if self.hup:
                        self.hup = False
                        self.alerts.reopen()
                    now = self.clock()
                    if self.probe is not None and self._mysql() and self.diag.wants_probe(now):
                        self.probe_arm.set()
                    self.diag.tick(now)
            if self.error is not None:
                raise self.error
        finally:
            self.follower.stop()
            self.diag.flush()
            self._flush_counts()
            self._emit("stopped", {"at": iso(self.clock()), "message": self.describe})

    def _flush_counts(self):
        m = self.metrics
        if m is None:
            return
        if self.n_events:
            m.events.inc(self.n_events)
            m.bytes.inc(self.n_bytes)
            self.n_events = self.n_bytes = 0
        m.behind.set(self.behind)

    def _handle(self, item):
        if not isinstance(item, tuple):
            self._arrival(item)
            return
        kind = item[0]
        if kind == "slow":
            for entry in item[1]:
                self.diag.feed_slow(entry)
            if self.metrics is not None:
                self.metrics.slow.inc(len(item[1]))
        elif kind == "disconnect":
            self.diag.lost(item[1], item[2])
            if self.metrics is not None:
                self.metrics.connected.set(0)
            self._emit("disconnect", {"at": iso(item[1]), "message": item[2]})
        elif kind == "reconnect":
            if self.metrics is not None:
                self.metrics.reconnects.inc()
                self.metrics.connected.set(1)
            self._emit("reconnect", {"at": iso(item[1]), "message": item[2]})
        elif kind == "probe":
            self.diag.probed(item[1], item[2])
        elif kind == "notice":
            self._emit("notice", {"at": iso(self.clock()), "message": item[1]})
        elif kind == "error":
            self.error = item[1]
            self.stopping.set()

    def _arrival(self, a):
        m = self.metrics
        kind = a.kind
        if kind == "heartbeat":
            self.behind = 0.0
            if self.until_caught_up:
                self.stop()
        else:
            self.n_events += 1
            self.n_bytes += a.size
            self.behind = max(0.0, a.at - a.when - 1) if a.catchup else 0.0
            if m is not None:
                if kind == "rotate":
                    m.rotations.inc()
                elif kind == "event" and (a.is_commit or a.commit_us) and not a.catchup:
                    last = self.last_commit_at
                    m.commit(a.at, None if last is None else a.at - last)
                    self.last_commit_at = a.at
        if kind == "fde":
            rot = self.diag.timeline.pending_rotation
            self.diag.feed(a)
            if m is not None and rot is not None and rot.done_at is not None and not rot.catchup:
                m.rotation_sync.observe(rot.sync_s)
            return
        self.diag.feed(a)

    def _emit(self, kind, payload):
        if (kind == "stall" and self.metrics is not None and payload["state"] == "ended"
                and not payload.get("update")):     # a chain said again: counted once
            self.metrics.stall(payload["cause"], payload["duration_s"])
        if kind == "restart" and self.metrics is not None:
            self.metrics.restarts.inc()
        self.alerts.write(kind, payload)
