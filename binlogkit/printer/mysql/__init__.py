"""mysqlbinlog 8.0 text for MySQL binary logs (the MySQL flavor of `binlogkit print`)."""
