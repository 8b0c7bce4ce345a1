"""mariadb-binlog 10.11 text: what the MariaDB flavor of the printer does differently."""
