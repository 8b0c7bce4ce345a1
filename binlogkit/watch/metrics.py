"""Prometheus metrics of `binlogkit watch` (prometheus_client, its own registry).

Names and units follow Prometheus' conventions (base units: seconds, bytes;
counters end in ``_total``):

=============================================  =========  ==========================================
binlogkit_binlog_rotations_total               counter    rotations seen (live and caught up)
binlogkit_rotation_sync_seconds                histogram  Rotate event to the next file's first event
                                                          (the old file's close and sync)
binlogkit_commit_gap_seconds                   histogram  gaps of 0.1 s or more between live commits
binlogkit_stalls_total{cause}                  counter    stalls reported, by cause
binlogkit_stall_seconds_total{cause}           counter    their summed duration
binlogkit_binlog_bytes_total                   counter    binlog bytes written (events received)
binlogkit_binlog_events_total                  counter    binlog events written
binlogkit_slow_statements_total                counter    slow-log entries read
binlogkit_reconnects_total                     counter    connections lost and made again
binlogkit_restarts_total                       counter    server restarts seen
binlogkit_seconds_behind                       gauge      how far the watcher is behind the server
binlogkit_seconds_since_last_commit            gauge      time since the last live commit
binlogkit_connected                            gauge      1 while the dump connection is up
=============================================  =========  ==========================================
"""
import time

__all__ = ["WatchMetrics", "SYNC_BUCKETS"]

SYNC_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
GAP_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
CAUSES = ("binlog_rotation", "lock", "commit_sync", "unknown")


class WatchMetrics:
    def __init__(self):
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
        self.registry = reg = CollectorRegistry(auto_describe=True)
        self.rotations = Counter("binlogkit_binlog_rotations", "Binlog rotations seen",
                                 registry=reg)
        self.rotation_sync = Histogram(
            "binlogkit_rotation_sync_seconds", "Time from a Rotate event to the next binlog's "
            "first event: the old file's close and sync, with the binlog lock held",
            buckets=SYNC_BUCKETS, registry=reg)
        self.commit_gap = Histogram("binlogkit_commit_gap_seconds",
                                    "Gaps of 0.1 s or more between live commits",
                                    buckets=GAP_BUCKETS, registry=reg)
        self.stalls = Counter("binlogkit_stalls", "Stalls reported, by cause", ["cause"],
                              registry=reg)
        self.stall_seconds = Counter("binlogkit_stall_seconds", "Summed duration of the stalls "
                                     "reported, by cause", ["cause"], registry=reg)
        for cause in CAUSES:
            self.stalls.labels(cause)
            self.stall_seconds.labels(cause)
        self.bytes = Counter("binlogkit_binlog_bytes", "Binlog bytes written", registry=reg)
        self.events = Counter("binlogkit_binlog_events", "Binlog events written", registry=reg)
        self.slow = Counter("binlogkit_slow_statements", "Slow-log entries read", registry=reg)
        self.reconnects = Counter("binlogkit_reconnects", "Connections to the server lost and "
                                  "made again", registry=reg)
        self.restarts = Counter("binlogkit_restarts", "Server restarts seen", registry=reg)
        self.behind = Gauge("binlogkit_seconds_behind", "Seconds the watcher is behind the "
                            "server (0 when it has all the server wrote)", registry=reg)
        self.since_commit = Gauge("binlogkit_seconds_since_last_commit",
                                  "Seconds since the last live commit arrived", registry=reg)
        self.connected = Gauge("binlogkit_connected", "1 while the binlog dump connection is up",
                               registry=reg)
        self._last_commit = None
        self.since_commit.set_function(self._since_commit)
        self.server = None

    def _since_commit(self):
        last = self._last_commit
        return 0.0 if last is None else max(0.0, time.time() - last)

    def commit(self, at, gap):
        self._last_commit = at
        if gap is not None and gap >= 0.1:
            self.commit_gap.observe(gap)

    def stall(self, cause, seconds):
        self.stalls.labels(cause).inc()
        self.stall_seconds.labels(cause).inc(seconds)

    def serve(self, address):
        """Serve /metrics on HOST:PORT (a port alone means 127.0.0.1)."""
        from prometheus_client import start_http_server
        host, port = parse_address(address)
        result = start_http_server(port, addr=host, registry=self.registry)
        self.server = result[0] if isinstance(result, tuple) else None
        return host, port

    def close(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


def parse_address(address):
    host, sep, port = str(address).rpartition(":")
    if not sep:
        host = "127.0.0.1"
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port)
    except ValueError:
        raise ValueError(f"--metrics wants HOST:PORT, not {address!r}") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"--metrics: port {port} out of range")
    return host, port
