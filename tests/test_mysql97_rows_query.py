"""Rows_query events as mysqlbinlog 9.7.4 prints them (-vv), live: a real MySQL 9.7
logs statements whose text holds backslashes, tabs, carriage returns, backspaces,
other control characters, quotes, line breaks and non-ASCII bytes; binlogkit's
text (C printer and pure Python) must be the real tool's, byte for byte.  mysqlbinlog
9.7 escapes backslash, tab, CR and backspace in these comment lines; a JSON document
sent by a client library (`{\\"a\\": 1}`) is the everyday case.
"""
import difflib
import os
import subprocess
import sys

import pytest

from mysql_server import MySQLServer, in_root, mysqlbinlog, needs_mysql

STATEMENTS = [r"INSERT INTO t (s) VALUES ('a\\b')", r"INSERT INTO t (s) VALUES ('{\"a\": 1}')",
              "INSERT INTO t (s) VALUES ('tab\there')", r"INSERT INTO t (s) VALUES ('nl\nx')",
              "INSERT INTO t (s) VALUES ('cr\rx')", "INSERT INTO t (s) VALUES ('crlf\r\nx')",
              "INSERT INTO t (s) VALUES ('bell\x07x\x08y\x0cz\x0bw\x1b\x1a\x7f')",
              "INSERT INTO t (s) VALUES ('\u00e9')", "INSERT INTO t (s) VALUES ('multi\nline')",
              "INSERT INTO t /* \\ */ (s) VALUES (\"dq'x\")", r"INSERT INTO t (s) VALUES ('\\\\')"]


def _diff(real, ours):
    return "".join(difflib.unified_diff(real.decode("latin-1").splitlines(keepends=True),
                                        ours.decode("latin-1").splitlines(keepends=True),
                                        "mysqlbinlog 9.7", "binlogkit", n=1))


@needs_mysql
def test_rows_query_text_is_mysqlbinlog_97s():
    options = {"binlog_format": "ROW", "binlog_rows_query_log_events": "ON"}
    with MySQLServer(options=options) as srv:
        conn = srv.connect(autocommit=True)
        cur = conn.cursor()
        cur.execute("CREATE DATABASE d")
        cur.execute("USE d")
        cur.execute("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, s VARBINARY(100))")
        for statement in STATEMENTS:
            cur.execute(statement)
        conn.close()
        srv.sql("FLUSH BINARY LOGS")
        path = [p for p in srv.binlog_files() if p.exists()][0]
        env = {"TZ": "UTC"}
        for args in (["-vv"], ["-vv", "--base64-output=decode-rows"]):
            real = mysqlbinlog(["--no-defaults", *args, in_root(path)], env=env)
            assert real.returncode == 0 and real.stdout.count(b"\tRows_query\n") == len(STATEMENTS)
            for pure in ("0", "1"):
                ours = subprocess.run([sys.executable, "-m", "binlogkit", "print", *args, str(path)],
                                      capture_output=True, env=dict(os.environ, BINLOGKIT_PURE=pure, **env))
                if ours.stdout != real.stdout:
                    pytest.fail(f"{args} (pure {pure}):\n{_diff(real.stdout, ours.stdout)[:4000]}",
                                pytrace=False)
