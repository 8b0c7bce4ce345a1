"""pymysql, imported without `cryptography` until an RSA key exchange needs it.

pymysql's `_auth` imports cryptography at once (~25-45 ms of a `print -R`
start-up, through dataclasses, inspect and the Rust bindings); only
``caching_sha2_password``'s full authentication over plain TCP and
``sha256_password`` use it (RSA-encrypting the password with the server's key).
`load()` imports pymysql with cryptography held back, then makes
``_auth.sha2_rsa_encrypt`` import it on its first call.  Where pymysql is
already imported (a test, another library), it is left as it is.
"""
import sys

__all__ = ["load"]


def load():
    """The pymysql package (see the module doc)."""
    if "pymysql" not in sys.modules and "cryptography" not in sys.modules:
        sys.modules["cryptography"] = None        # `from cryptography...` -> ImportError
        try:
            import pymysql.connections  # noqa: F401
        finally:
            del sys.modules["cryptography"]
    import pymysql
    import pymysql.connections  # noqa: F401
    auth = pymysql._auth
    if not auth._have_cryptography and not getattr(auth, "_binlogkit_lazy", False):
        auth.sha2_rsa_encrypt = _lazy(auth, auth.sha2_rsa_encrypt)
        auth._binlogkit_lazy = True
    return pymysql


def _lazy(auth, encrypt):
    def sha2_rsa_encrypt(password, salt, public_key):
        _import_cryptography(auth)
        return encrypt(password, salt, public_key)     # pymysql's own error without it
    return sha2_rsa_encrypt


def _import_cryptography(auth):
    if auth._have_cryptography:
        return
    try:
        from cryptography.hazmat.backends import default_backend
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding
    except ImportError:
        return
    auth.default_backend, auth.hashes = default_backend, hashes
    auth.serialization, auth.padding = serialization, padding
    auth._have_cryptography = True
