"""Text output that matches the real mysqlbinlog / mariadb-binlog.

Two flavors over one core.  The core modules here hold what both tools do
alike: `driver.py` (PrinterBase: output buffer, time text, preamble and
postamble, --database, LOAD DATA files; StopDump and BinlogError as the one
stop / error convention), `text.py` (header line, base64 lines, quoting),
`tablemeta.py` (the --print-table-metadata walker), `state.py` (options and
the session state) and `rowtext.py` (the -v words).  `mariadb/` prints as
mariadb-binlog 10.11, `mysql/` as mysqlbinlog 8.0; a flavor imports the core
and never the other flavor (tests/test_printer_imports.py).  `flavor.py`
tells which one a file needs; `command.py` / `remote_command.py` are the CLI's.
"""
