"""Live servers: the replication protocol's dump (protocol.py, connection.py), events
received from it (framer.py), the raw backup that survives faults (backup.py,
localcopy.py, groups.py) and what the report fetches from a server (fetch.py).

Below the printers and the analysis: this package imports binlogkit.binlog only."""
