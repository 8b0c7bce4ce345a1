"""`binlogkit watch`: stalls reported while they happen, and metrics for Prometheus.

`remote.follow` (or `watch.localdir`) and `watch.slowtail` read; `watch.timeline`
holds the recent evidence; `watch.rules` decides causes; `watch.diagnosis` runs
them online; `watch.alerts` and `watch.metrics` say it; `watch.run` ties them.
No pandas: a watcher runs for weeks in a small, flat memory.
"""
