"""`binlogkit watch`: stalls reported while they happen, and metrics for Prometheus.

`remote.follow` (or `watch.localdir`) and `watch.slowtail` read; `watch.arrivals`
holds what arrived lately; `watch.diagnosis` turns it into the evidence timeline
and runs the cause rules `binlogkit report` runs (`binlogkit.diagnosis`) online,
with `watch.shaping`'s online-only candidates; `watch.alerts` and
`watch.metrics` say it; `watch.run` ties them.
No pandas: a watcher runs for weeks in a small, flat memory.
"""
