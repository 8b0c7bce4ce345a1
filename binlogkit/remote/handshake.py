"""The connection phase as mysqlbinlog / mariadb-binlog go through it, on pymysql.

`Handshake` is a pymysql Connection that decides what pymysql would decide on
its own (or not at all) the way the real clients do:

* TLS: after the server's greeting, when the server's flavor is known
  (`tls_policy`): MySQL's --ssl-mode (default PREFERRED: TLS over TCP when the
  server offers it, none over a unix socket; --ssl-ca alone means VERIFY_CA),
  MariaDB's --ssl (on by default in mariadb-binlog 10.11, also over the socket),
  --ssl-ca (checks the CA, not the host name) and --ssl-verify-server-cert
  (CA and host name, TLS required).  Failures in the real clients' words.
* Auth plugins: a switch to `mysql_clear_password` or `dialog` (both send the
  password as it is) is refused unless --enable-cleartext-plugin (or
  LIBMYSQL_ENABLE_CLEARTEXT_PLUGIN) says otherwise; `caching_sha2_password`'s
  full authentication sends the password only over TLS or a unix socket, or
  RSA-encrypted with the key of --server-public-key-path or, with
  --get-server-public-key, the key the server sends.
* Every packet is capped (`max_packet`, mysqlbinlog's max_allowed_packet,
  1 GiB): a server that announces or streams more ends the connection with an
  error, it does not fill the memory.
"""
import os
import struct

from binlogkit.remote import _pymysql

pymysql = _pymysql.load()

from pymysql import err  # noqa: E402
from pymysql.connections import MysqlPacket  # noqa: E402
from pymysql.constants import CLIENT  # noqa: E402

CR_SSL_CONNECTION_ERROR = 2026
CR_AUTH_PLUGIN_CANNOT_LOAD = 2059
CR_AUTH_PLUGIN_ERR = 2061
CR_NET_PACKET_TOO_LARGE = 2020
MAX_PACKET_LEN = 0xFFFFFF
SSL_MODES = ("DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY")
CLEARTEXT_PLUGINS = (b"mysql_clear_password", b"dialog")
KNOWN_PLUGINS = (b"mysql_native_password", b"caching_sha2_password", b"sha256_password",
                 b"client_ed25519", b"mysql_old_password", *CLEARTEXT_PLUGINS)


class TlsPolicy:
    """What a connection does about TLS: `use` is "off", "try" or "require"."""

    def __init__(self, use, verify_ca=False, verify_host=False, mariadb=False):
        self.use, self.verify_ca, self.verify_host = use, verify_ca, verify_host
        self.mariadb = mariadb

    def __repr__(self):
        return f"TlsPolicy({self.use!r}, verify_ca={self.verify_ca}, verify_host={self.verify_host})"


def tls_policy(options, mariadb):
    """The TLS policy of `options` (remote.connection.ConnectOptions) against a server
    of this flavor.  --ssl-mode (MySQL's option) rules when given; else each
    flavor's client: mysqlbinlog 9.7 for a MySQL server, mariadb-binlog 10.11 for
    a MariaDB one."""
    mode = (options.ssl_mode or "").upper()
    has_ca = bool(options.ssl_ca or options.ssl_capath)
    if mode:
        return _mysql_mode(mode, options, mariadb)
    if mariadb:
        if options.ssl is False and not has_ca:
            return TlsPolicy("off", mariadb=True)
        if options.ssl_verify_server_cert:
            return TlsPolicy("require", True, True, mariadb=True)
        # on by default, also over the socket; a CA is checked, the host name not;
        # a server without TLS is talked to in the clear (as mariadb-binlog does)
        return TlsPolicy("try", verify_ca=has_ca, mariadb=True)
    if options.ssl is False:
        return TlsPolicy("off")
    if options.ssl_verify_server_cert:
        return _mysql_mode("VERIFY_IDENTITY", options, mariadb)
    if has_ca:
        return _mysql_mode("VERIFY_CA", options, mariadb)
    return _mysql_mode("REQUIRED" if options.ssl else "PREFERRED", options, mariadb)


def _mysql_mode(mode, options, mariadb):
    if mode == "DISABLED":
        return TlsPolicy("off", mariadb=mariadb)
    if mode == "PREFERRED":
        return TlsPolicy("off" if options.uses_socket else "try", mariadb=mariadb)
    if mode == "REQUIRED":
        return TlsPolicy("require", mariadb=mariadb)
    return TlsPolicy("require", True, mode == "VERIFY_IDENTITY", mariadb=mariadb)


def ssl_error(policy, text):
    prefix = "TLS/SSL error: " if policy.mariadb else "SSL connection error: "
    return err.OperationalError(CR_SSL_CONNECTION_ERROR, prefix + text)


class Handshake(pymysql.connections.Connection):
    """pymysql's Connection with the real clients' TLS and auth-plugin rules.

    `binlogkit_options`: the ConnectOptions; pymysql's own TLS is off (ssl_disabled)
    and set up here once the greeting says which server answers."""

    def __init__(self, *args, binlogkit_options=None, max_packet=1 << 30, **kwargs):
        self._bk = binlogkit_options
        self._max_packet = max_packet
        self._public_key = None
        self.tls_policy = None
        kwargs["ssl_disabled"] = True
        super().__init__(*args, **kwargs)

    def connect(self, sock=None):
        """pymysql's connect, the greeting and authentication under connect_timeout
        (pymysql reads them with read_timeout, which may be None: a server that
        accepts and says nothing would hang the client)."""
        saved = self._read_timeout
        self._read_timeout = self.connect_timeout
        try:
            super().connect(sock)
        finally:
            self._read_timeout = saved
        if self._sock is not None:
            self._sock.settimeout(saved)
            self._current_timeout = saved

    # -- the server's RSA key (caching_sha2_password, sha256_password) ---------------
    @property
    def server_public_key(self):
        """pymysql asks the server for its key when it has none: only with
        --get-server-public-key, as libmysql."""
        if self._public_key is None and not (self._bk and self._bk.get_server_public_key):
            raise err.OperationalError(
                CR_AUTH_PLUGIN_ERR, f"Authentication plugin '{self._plugin_in_use()}' "
                "reported error: Authentication requires secure connection.")
        return self._public_key

    @server_public_key.setter
    def server_public_key(self, value):
        self._public_key = value or None

    def _plugin_in_use(self):
        name = getattr(self, "_current_plugin", None) or self._auth_plugin_name or ""
        return name.decode("ascii", "replace") if isinstance(name, bytes) else name

    # -- TLS, decided after the greeting ------------------------------------------------
    def _request_authentication(self):
        options = self._bk
        mariadb = "mariadb" in (self.server_version or "").lower()
        policy = tls_policy(options, mariadb)
        self.tls_policy = policy
        self._current_plugin = self._auth_plugin_name
        if policy.use == "off":
            return super()._request_authentication()
        if policy.verify_ca and not (options.ssl_ca or options.ssl_capath) and not mariadb:
            raise ssl_error(policy, "CA certificate is required if ssl-mode is VERIFY_CA "
                                    "or VERIFY_IDENTITY")
        if not self.server_capabilities & CLIENT.SSL:
            if policy.use == "require":
                raise ssl_error(policy, "SSL is required, but the server does not support it"
                                if mariadb else "SSL is required but the server doesn't support it")
            return super()._request_authentication()
        self.ssl = True
        self._ssl_required = True
        self.client_flag |= CLIENT.SSL
        self.ctx = _Context(_ssl_context(options, policy), policy)
        return super()._request_authentication()

    # -- auth plugins ---------------------------------------------------------------------
    def _process_auth(self, plugin_name, auth_packet, handler=None):
        name = plugin_name if isinstance(plugin_name, bytes) else str(plugin_name).encode()
        self._current_plugin = name
        if name in CLEARTEXT_PLUGINS and not self._cleartext_allowed():
            raise err.OperationalError(
                CR_AUTH_PLUGIN_CANNOT_LOAD, f"Authentication plugin '{name.decode()}' cannot be "
                "loaded: plugin not enabled (binlogkit sends a password in clear only with "
                "--enable-cleartext-plugin)")
        if name not in KNOWN_PLUGINS and handler is None:
            from binlogkit.remote.protocol import printable
            raise err.OperationalError(
                CR_AUTH_PLUGIN_CANNOT_LOAD, "Authentication plugin "
                f"'{printable(name.decode('utf-8', 'replace'))}' cannot be loaded: "
                "not a plugin binlogkit has")
        return super()._process_auth(plugin_name, auth_packet, handler)

    def _cleartext_allowed(self):
        if self._bk is not None and self._bk.enable_cleartext_plugin:
            return True
        return os.environ.get("LIBMYSQL_ENABLE_CLEARTEXT_PLUGIN", "")[:1] in ("1", "Y", "y")

    # -- packets, capped ------------------------------------------------------------------
    def _read_packet(self, packet_type=MysqlPacket):
        """pymysql's packet reader with a cap on the whole packet (its pieces add up)."""
        if getattr(self, "_current_timeout", -1) != self._read_timeout:    # (PyMySQL < 1.1)
            self._sock.settimeout(self._read_timeout)
            self._current_timeout = self._read_timeout
        parts, total = [], 0
        while True:
            header = self._read_bytes(4)
            low, high, number = struct.unpack("<HBB", header)
            length = low + (high << 16)
            if number != self._next_seq_id:
                self._force_close()
                if number == 0:
                    raise err.OperationalError(2013, "Lost connection to server during query")
                raise err.InternalError(f"Packet sequence number wrong - got {number} "
                                        f"expected {self._next_seq_id}")
            self._next_seq_id = (self._next_seq_id + 1) % 256
            total += length
            if total > self._max_packet:
                self._force_close()
                raise err.OperationalError(CR_NET_PACKET_TOO_LARGE,
                                           f"Got packet bigger than 'max_allowed_packet' bytes "
                                           f"({self._max_packet})")
            parts.append(self._read_bytes(length))
            if length < MAX_PACKET_LEN:
                break
        packet = packet_type(b"".join(parts), self.encoding)
        if packet.is_error_packet():
            if self._result is not None and self._result.unbuffered_active is True:
                self._result.unbuffered_active = False
            packet.raise_for_error()
        return packet


class _Context:
    """An SSLContext whose handshake failures are the real client's errors."""

    def __init__(self, ctx, policy):
        self.ctx, self.policy = ctx, policy

    def wrap_socket(self, sock, server_hostname=None):
        import ssl
        hostname = server_hostname if self.policy.verify_host else None
        try:
            return self.ctx.wrap_socket(sock, server_hostname=hostname)
        except ssl.SSLCertVerificationError as exc:
            raise ssl_error(self.policy, _verify_text(exc, self.policy)) from None
        except (ssl.SSLError, OSError) as exc:
            raise ssl_error(self.policy, _ssl_text(exc)) from None


def _verify_text(exc, policy):
    message = getattr(exc, "verify_message", "") or ""
    if policy.mariadb:
        if message.lower().startswith("hostname mismatch") or "ip address mismatch" in message.lower():
            return "Validation of SSL server certificate failed"
        return message or "certificate verify failed"
    return "error:0A000086:SSL routines::certificate verify failed"


def _ssl_text(exc):
    reason = getattr(exc, "reason", None)
    if reason:
        return reason.lower().replace("_", " ")
    return str(exc) or type(exc).__name__


def _ssl_context(options, policy):
    import ssl
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = bool(policy.verify_host)
    if policy.verify_ca:
        try:
            if options.ssl_ca or options.ssl_capath:
                ctx.load_verify_locations(cafile=options.ssl_ca, capath=options.ssl_capath)
            else:
                ctx.load_default_certs()
        except (OSError, ssl.SSLError) as exc:
            raise ssl_error(policy, f"{options.ssl_ca or options.ssl_capath}: "
                                    f"{getattr(exc, 'strerror', None) or exc}") from None
        ctx.verify_mode = ssl.CERT_REQUIRED
    else:
        ctx.verify_mode = ssl.CERT_NONE
    # the servers' generated certificates (MySQL's auto_generate_certs) are not strict X.509
    ctx.verify_flags &= ~getattr(ssl, "VERIFY_X509_STRICT", 0)
    try:
        if options.ssl_cert:
            ctx.load_cert_chain(options.ssl_cert, options.ssl_key)
        if options.ssl_cipher:
            ctx.set_ciphers(options.ssl_cipher)
    except (OSError, ssl.SSLError) as exc:
        raise ssl_error(policy, str(getattr(exc, "strerror", None) or exc)) from None
    return ctx
