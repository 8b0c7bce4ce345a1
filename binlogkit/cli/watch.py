"""``binlogkit watch``: the click command (binlogkit.watch does the work)."""
from __future__ import annotations

import os
import signal
import sys

import click

from binlogkit.cli import exits

__all__ = ["watch"]

HELP = """Report stalls while they happen, and serve metrics Prometheus scrapes.

\b
  binlogkit watch -S /run/mysqld/mysqld.sock -u monitor --slowlog /var/log/mysql/slow.log
  binlogkit watch -h db1 -u monitor -p "$PW" --metrics 127.0.0.1:9105 -o /var/log/binlogkit.jsonl
  binlogkit watch --binlog-dir /var/lib/mysql --slowlog slow.log --exec 'page-oncall'

Follows the server's binlog over the replication protocol (event headers and a
few fields; nothing is copied), or the files in --binlog-dir, and the slow log
(a file, across its rotation and truncation, or mysql.slow_log when the server
logs to a table).  A stretch of --threshold seconds or more without a commit in
which work waited is a stall; each is written once, within about a second of
its end, with its cause: binlog_rotation (with the file, its size and how long
its sync took; a rotation still holding the commits is said while it goes on
too), lock, commit_sync, unknown.  Idle time, restarts and reconnections are not
stalls.  Rotations, restarts and lost connections are written too.

\b
Output: one JSON line per event on stdout (-o FILE: appended; SIGHUP reopens
it), one human line instead on a terminal (--format overrides).  --exec CMD
runs CMD for each stall with its JSON line on stdin.  SIGTERM/SIGINT end the
watch (exit 0); exit 1 on an error it cannot survive (wrong password, the
binlog it follows purged).
"""


def _fail(exc) -> None:
    exits.fail("binlogkit watch", exc)


@click.command("watch", help=HELP)
@click.option("--binlog-dir", default=None, type=click.Path(file_okay=False, exists=True),
              help="Follow the binlog files in this directory instead of a server.")
@click.option("--slowlog", default=None, type=click.Path(dir_okay=False),
              help="Slow log file to follow (default with a server: mysql.slow_log when it "
                   "logs to a table, else the server's slow_query_log_file if readable here).")
@click.option("--no-slowlog", is_flag=True, help="Follow no slow log.")
@click.option("-h", "--host", default=None, help="Connect to the server on this host.")
@click.option("-P", "--port", type=int, default=0, help="Port number to use for connection.")
@click.option("-S", "--socket", default=None, help="The socket file to use for connection.")
@click.option("-u", "--user", default=None, help="User for the connection.")
@click.option("-p", "--password", default=None, help="Password (default: $MYSQL_PWD).")
@click.option("--protocol", default=None, help="tcp or socket.")
@click.option("--ssl", is_flag=True, help="Connect with TLS.")
@click.option("--ssl-ca", default=None, help="CA file in PEM format.")
@click.option("--ssl-capath", default=None, help="CA directory.")
@click.option("--ssl-cert", default=None, help="Client certificate in PEM format.")
@click.option("--ssl-key", default=None, help="Client key in PEM format.")
@click.option("--ssl-cipher", default=None, help="TLS ciphers to use.")
@click.option("--ssl-verify-server-cert", is_flag=True, help="Verify the server's certificate.")
@click.option("--connection-server-id", type=click.IntRange(1, 4294967295), default=None,
              help="Server id the dump registers with (default: one derived from the pid; "
                   "give each watcher and backup of a server its own).")
@click.option("--start-log", default=None, metavar="NAME",
              help="Read from the start of this binlog (default: where the server writes now); "
                   "what was written before the watch started is counted, never alerted.")
@click.option("--threshold", type=click.FloatRange(min=0.1), default=1.0, show_default=True,
              metavar="SECONDS", help="Report stalls at least this long.")
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default=None,
              help="json (default) or text (default on a terminal).")
@click.option("-o", "--output", default=None, metavar="FILE",
              help="Append events to FILE instead of stdout (SIGHUP reopens it).")
@click.option("--exec", "exec_cmd", default=None, metavar="CMD",
              help="Run CMD (with sh) for each stall, its JSON line on stdin.")
@click.option("--metrics", default=None, metavar="[HOST:]PORT",
              help="Serve Prometheus metrics on HOST:PORT (default host 127.0.0.1).")
@click.option("--heartbeat", type=click.FloatRange(min=0.1, max=30), default=0.5,
              show_default=True, metavar="SECONDS", help="Heartbeat period asked of the server.")
@click.option("--exit-when-caught-up", is_flag=True, hidden=True,
              help="End at the first heartbeat (nothing more to read): bench/bench_watch.py.")
@click.option("--server-tz", default=None, metavar="ZONE",
              help="Zone of the slow log's zone-less times where SET timestamp does not tell.")
def watch(binlog_dir, slowlog, no_slowlog, threshold, fmt, output, exec_cmd, metrics, heartbeat,
          server_tz, connection_server_id, start_log, exit_when_caught_up, **conn):
    live = any(conn[key] for key in ("host", "socket", "port", "user", "protocol"))
    if binlog_dir and live:
        raise click.UsageError("give --binlog-dir or a server (-h/-S/-u...), not both")
    if not binlog_dir and not live:
        raise click.UsageError("give a server to follow (-h/-S/-u...) or --binlog-dir DIR")
    try:
        from binlogkit.watch.alerts import AlertWriter
        alerts = AlertWriter(output, fmt, exec_cmd, on_error=_note)
        prom = _metrics(metrics)
        if binlog_dir:
            follower, describe, query = _local(binlog_dir, start_log)
        else:
            follower, describe, query = _remote(conn, connection_server_id, heartbeat, start_log)
        slow = None if no_slowlog else _slow_source(slowlog, query, server_tz)
        code = _run(follower, alerts, slow, prom, threshold, describe, exit_when_caught_up,
                    probe=query)
    except exits.HANDLED as exc:
        _fail(exc)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--metrics") from None
    except Exception as exc:  # noqa: BLE001  (one line, never a traceback)
        _fail(f"{type(exc).__name__}: {exc}")
    sys.exit(code)


def _note(message):
    sys.stderr.write(f"binlogkit watch: {message}\n")
    sys.stderr.flush()


def _metrics(address):
    if not address:
        return None
    from binlogkit.watch.metrics import WatchMetrics, parse_address
    parse_address(address)
    prom = WatchMetrics()
    try:
        prom.serve(address)
    except OSError as exc:
        from binlogkit.errors import BinlogkitError
        raise BinlogkitError(f"--metrics {address}: {exc.strerror or exc}") from None
    return prom


def _local(directory, start_log):
    from binlogkit.watch.localdir import LocalBinlogFollower
    start = (start_log, 4) if start_log else None
    return LocalBinlogFollower(directory, start=start), f"binlog files in {directory}", None


def _remote(conn, server_id, heartbeat, start_log):
    from binlogkit.cli.remote import connect_options
    from binlogkit.remote.connection import connect
    from binlogkit.remote.follow import BinlogFollower
    from binlogkit.remote.protocol import DumpStream
    options = connect_options(conn)
    read_timeout = max(30.0, 10 * heartbeat)

    def connector():
        return connect(options, read_timeout=read_timeout)

    def query(sql, args=None):
        stream = DumpStream(connect(options))
        try:
            with stream.conn.cursor() as cur:
                cur.execute(sql, args)
                return cur.fetchall()
        finally:
            stream.close()

    if server_id is None:
        server_id = 1_000_000_000 + os.getpid() % 1_000_000
    follower = BinlogFollower(connector, server_id=server_id, heartbeat=heartbeat,
                              start=(start_log, 4) if start_log else None)
    return follower, f"server at {options.describe()}", query


def _slow_source(path, query, server_tz):
    from binlogkit.watch.slowtail import SlowFileFollower, SlowTableFollower
    if path:
        return SlowFileFollower(path, zone=server_tz)
    if query is None:
        return None
    try:
        row = query("SELECT @@log_output, @@slow_query_log, @@slow_query_log_file")[0]
    except Exception as exc:  # noqa: BLE001  (a server that refuses: go on without)
        _note(f"cannot read the slow-log settings ({exc}); following no slow log")
        return None
    output, on, file = str(row[0]).upper(), int(row[1] or 0), row[2]
    if not on:
        _note("the server's slow log is off (slow_query_log=0); following no slow log")
        return None
    if "TABLE" in output:
        return SlowTableFollower(query)
    if file and os.access(file, os.R_OK):
        return SlowFileFollower(file, zone=server_tz)
    _note(f"the slow log {file} is not readable here: give --slowlog FILE; following none")
    return None


def _run(follower, alerts, slow, prom, threshold, describe, until_caught_up=False, probe=None):
    from binlogkit.watch.run import Watcher
    watcher = Watcher(follower, alerts, slow=slow, metrics=prom, threshold=threshold,
                      describe=describe, until_caught_up=until_caught_up, probe=probe)
    saved = {}

    def stop(signum, frame):
        watcher.stop()

    def hup(signum, frame):
        watcher.reopen()

    for sig, handler in ((signal.SIGTERM, stop), (signal.SIGINT, stop), (signal.SIGHUP, hup)):
        saved[sig] = signal.signal(sig, handler)
    try:
        watcher.run()
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
        alerts.close()
        if prom is not None:
            prom.close()
        if slow is not None and hasattr(slow, "close"):
            slow.close()
    return exits.EXIT_OK
