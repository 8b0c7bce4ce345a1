"""The server's version from its greeting packet, without logging in.

`print -R` prints the text of the server's flavor (mariadb-binlog's for MariaDB,
mysqlbinlog's for MySQL) also when it cannot log in (a wrong password): the
preamble comes before the connection error in both tools.  The first packet a
server sends (protocol 10) carries its version before any authentication.
"""
import socket

_PROTOCOL_10 = 10


def greeting_version(options, timeout=5.0):
    """The version string of the server `options` (a ConnectOptions) names, or None."""
    try:
        if options.uses_socket:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            address = options.socket_path()
        else:
            sock = socket.socket(socket.AF_INET6 if ":" in options.tcp_host() else socket.AF_INET,
                                 socket.SOCK_STREAM)
            address = (options.tcp_host(), options.tcp_port())
    except OSError:
        return None
    try:
        sock.settimeout(timeout)
        sock.connect(address)
        header = _read(sock, 4)
        payload = _read(sock, min(header[0] | header[1] << 8 | header[2] << 16, 1 << 12))
    except OSError:
        return None
    finally:
        sock.close()
    if not payload or payload[0] != _PROTOCOL_10 or b"\0" not in payload[1:]:
        return None
    return payload[1:payload.index(b"\0", 1)].decode("utf-8", "replace")


def _read(sock, size):
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise OSError("connection closed")
        data += chunk
    return data
