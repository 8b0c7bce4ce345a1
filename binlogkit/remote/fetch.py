"""What `binlogkit report` reads from a live server whose files it cannot reach.

`fetch_binlogs` copies the server's binlogs over the replication protocol (the
raw backup's dump, so the copies are the server's files byte for byte, the one
being written up to its last complete event group); the analysis then reads the
copies exactly as it reads files.  `fetch_slow_log` writes the server's slow
log as a slow-log file: from ``mysql.slow_log`` when the server logs to a table
(``log_output`` includes TABLE), in the text the server itself writes to its
file (MariaDB: ``# Time`` in server time when the second changes, the
statement start in ``SET timestamp``; MySQL: ``# Time`` as UTC end time).
"""
import os

from binlogkit.errors import BinlogkitError
from binlogkit.remote.backup import RawBackup
from binlogkit.remote.localcopy import check_log_name
from binlogkit.remote.protocol import DumpStream


class NoSlowLog(BinlogkitError):
    """The server keeps no slow log binlogkit can read."""


def server_binlogs(connect):
    """The server's binlog names in index order (SHOW BINARY LOGS)."""
    stream = DumpStream(connect())
    try:
        return [row[0] for row in stream.query("SHOW BINARY LOGS")]
    finally:
        stream.close()


def fetch_binlogs(connect, directory, first=None, notice=None):
    """Copy the server's binlogs (from `first`, default the oldest) into `directory`;
    returns the copies' paths in order."""
    names = [check_log_name(_text(name)) for name in server_binlogs(connect)]
    if not names:
        raise BinlogkitError("the server has no binary logs (log_bin is off)")
    if first is not None:
        if first not in names:
            raise BinlogkitError(f"{first} is not among the server's binary logs")
        names = names[names.index(first):]
    prefix = os.path.join(directory, "")
    RawBackup(connect, names[0], prefix=prefix, to_last_log=True, notice=notice).run()
    return [prefix + name for name in names if os.path.exists(prefix + name)]


# -- the slow log ---------------------------------------------------------------------

_COLUMNS = ("UNIX_TIMESTAMP(start_time), user_host, TIME_TO_SEC(query_time), "
            "TIME_TO_SEC(lock_time), rows_sent, rows_examined, db, thread_id, sql_text")
_MARIADB_EXTRA = ", rows_affected"


def slow_log_settings(connect):
    stream = DumpStream(connect())
    try:
        row = stream.query("SELECT @@log_output, @@slow_query_log, @@slow_query_log_file, "
                           "VERSION(), @@hostname")[0]
    finally:
        stream.close()
    return {"log_output": str(row[0]).upper(), "on": bool(int(row[1])), "file": row[2],
            "version": str(row[3]), "hostname": row[4]}


def fetch_slow_log(connect, path, since=None):
    """Write the server's slow log (table) to `path` as slow-log text; returns path.

    `since`: epoch seconds; older entries are left out."""
    settings = slow_log_settings(connect)
    if "TABLE" not in settings["log_output"]:
        where = settings["file"] if "FILE" in settings["log_output"] else "nowhere"
        raise NoSlowLog(f"the server logs slow queries to {where} (log_output="
                        f"{settings['log_output']}), not to mysql.slow_log: give --slowlog FILE "
                        "(a copy of that file), or SET GLOBAL log_output='FILE,TABLE'")
    mariadb = "mariadb" in settings["version"].lower()
    stream = DumpStream(connect())
    try:
        sql = (f"SELECT {_COLUMNS}{_MARIADB_EXTRA if mariadb else ''}, "
               "DATE_FORMAT(start_time, '%y%m%d'), HOUR(start_time), "
               "DATE_FORMAT(start_time, '%i:%s') FROM mysql.slow_log")
        if since is not None:
            sql += f" WHERE start_time >= FROM_UNIXTIME({int(since)})"
        rows = stream.query(sql + " ORDER BY start_time")
    finally:
        stream.close()
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as out:
        out.write(_header(settings))
        write = _write_mariadb if mariadb else _write_mysql
        write(out, rows)
    return path


def _header(settings):
    name = "mariadbd" if "mariadb" in settings["version"].lower() else "mysqld"
    return (f"/usr/sbin/{name}, Version: {settings['version']} (binlogkit: from mysql.slow_log). "
            "started with:\nTcp port: 0  Unix socket: \nTime                 Id Command    Argument\n")


def _text(value):
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return "" if value is None else str(value)


def _write_mariadb(out, rows):
    last_second = None
    db = None
    for row in rows:
        (start, user_host, query_time, lock_time, rows_sent, rows_examined, schema, thread_id,
         sql_text, rows_affected, day, hour, minute_second) = row
        start = float(start)
        second = int(start)
        if second != last_second:
            out.write(f"# Time: {day} {int(hour):2d}:{minute_second}\n")
            last_second = second
        schema = _text(schema)
        out.write(f"# User@Host: {_text(user_host)}\n"
                  f"# Thread_id: {thread_id}  Schema: {schema}  QC_hit: No\n"
                  f"# Query_time: {float(query_time):.6f}  Lock_time: {float(lock_time):.6f}  "
                  f"Rows_sent: {rows_sent}  Rows_examined: {rows_examined}\n"
                  f"# Rows_affected: {rows_affected}  Bytes_sent: 0\n")
        if schema and schema != db:
            out.write("use `%s`;\n" % schema.replace("`", "``"))
            db = schema
        out.write(f"SET timestamp={second};\n{_statement(sql_text)}\n")


def _write_mysql(out, rows):
    import datetime
    db = None
    for row in rows:
        (start, user_host, query_time, lock_time, rows_sent, rows_examined, schema, thread_id,
         sql_text, _day, _hour, _ms) = row
        end = float(start) + float(query_time)
        stamp = datetime.datetime.fromtimestamp(end, datetime.timezone.utc)
        schema = _text(schema)
        out.write(f"# Time: {stamp.strftime('%Y-%m-%dT%H:%M:%S.%f')}Z\n"
                  f"# User@Host: {_text(user_host)}  Id: {thread_id}\n"
                  f"# Query_time: {float(query_time):.6f}  Lock_time: {float(lock_time):.6f} "
                  f"Rows_sent: {rows_sent}  Rows_examined: {rows_examined}\n")
        if schema and schema != db:
            out.write(f"use {schema};\n")
            db = schema
        out.write(f"SET timestamp={int(float(start))};\n{_statement(sql_text)}\n")


def _statement(sql_text):
    text = _text(sql_text).rstrip()
    return text if text.endswith(";") else text + ";"
