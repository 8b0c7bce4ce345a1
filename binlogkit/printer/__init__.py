"""Text output that matches the real mysqlbinlog / mariadb-binlog."""
