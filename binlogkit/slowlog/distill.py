"""pt-query-digest's ``distill``: a query reduced to its verbs and tables.

pt-query-digest prints it as the profile's "Item" column and as
``distillate`` in its JSON output (for ``--group-by fingerprint`` it is the
distillate of each class's worst sample).  The rules, in order (learned from
pt-query-digest 3.x's documented behaviour and output; tests/test_slowlog_distill.py
checks them against the real tool):

* ``CALL proc(`` gives ``CALL proc``; ``use ...`` gives ``USE``; ``UNLOCK TABLES``
  gives ``UNLOCK``; ``XA <word>`` gives ``XA_<word>``; ``LOAD ...`` gives
  ``LOAD DATA <table after INTO TABLE>``; ``administrator command: X`` gives
  ``ADMIN X`` upper-cased;
* otherwise comments are dropped; ``SHOW`` statements keep ``SHOW`` and one or
  two words (upper-cased, without SESSION/FULL/STORAGE/ENGINE, a COUNT(...)
  and anything from FOR/FROM/LIKE/WHERE/LIMIT/IN on; SCHEMA reads DATABASE,
  KEYS/INDEXES read INDEX);
* DDL (CREATE/ALTER/TRUNCATE/DROP/RENAME) gives the statement and its object
  (``CREATE TABLE``), and the name as written is added after the tables;
* other statements give their verbs (SELECT, INSERT, UPDATE, DELETE, REPLACE,
  UNION anywhere; SHOW, FLUSH, COMMIT, ROLLBACK, BEGIN, SET, START, LOCK at the
  start), upper-cased, repeats in a row dropped, and a SELECT with anything
  after it reads ``SELECT`` or ``SELECT UNION``;
* then the tables: names after FROM, JOIN, UPDATE (not ``KEY UPDATE``), INTO
  and LOCK TABLES (string literals blanked first, ``INSERT t`` read as
  ``INSERT INTO t``, a list ``a, b AS x`` split), without back-quotes and with
  each digit run (and a ``_`` before it) turned into ``?``; repeats in a row
  dropped.

Everything works on bytes, ASCII-only, like the Perl tool.
"""

from __future__ import annotations

import re

__all__ = ["distill", "distill_bytes", "get_tables"]

_I, _S, _M = re.IGNORECASE, re.DOTALL, re.MULTILINE

_CALL = re.compile(rb"\A\s*call\s+(\S+)\(", _I)
_USE = re.compile(rb"\A\s*use\s+")
_UNLOCK = re.compile(rb"\A\s*UNLOCK TABLES", _I)
_XA = re.compile(rb"\A\s*xa\s+(\S+)", _I)
_LOAD = re.compile(rb"\A\s*LOAD", _I)
_INTO_TABLE = re.compile(rb"INTO TABLE\s+(\S+)", _I)
_ADMIN = b"administrator command:"

_ML_COMMENT = re.compile(rb"/\*[^!].*?\*/", _S)
_OL_COMMENT = re.compile(rb"(?:--|#)[^'\"\r\n]*(?=[\r\n]|\Z)")
_SHOW_VERSION_COMMENT = re.compile(rb"^(?:SHOW).*?/\*![0-9]+(.*?)\*/", _S | _M)
_VERSION_COMMENT = re.compile(rb"/\*.*?[0-9]+.*?\*/", _S)

_SHOW = re.compile(rb"\A\s*SHOW\s+", _I)
_SHOW_NOISE = re.compile(rb"\s+(?:SESSION|FULL|STORAGE|ENGINE)\b")
_SHOW_COUNT = re.compile(rb"\s+COUNT[^)]+\)")
_SHOW_TAIL = re.compile(rb"\s+(?:FOR|FROM|LIKE|WHERE|LIMIT|IN)\b.+", _S)
_SHOW_HEAD = re.compile(rb"\A(SHOW(?:\s+\S+){1,2}).*\Z", _S)
_WS = re.compile(rb"\s+")
_SHOW_ALIASES = ((b"SCHEMA", b"DATABASE"), (b"KEYS", b"INDEX"), (b"INDEXES", b"INDEX"))

_DDL = re.compile(rb"^\s*(CREATE|ALTER|TRUNCATE|DROP|RENAME)\b", _I)
_IF_EXISTS_DISTILL = re.compile(rb"\s+IF(?:\s+NOT)?\s+EXISTS", _I)
_IF_EXISTS_TABLES = re.compile(rb"IF\s+(?:NOT\s+)?EXISTS", _I)
_IDENT = rb"(?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?"
_DDL_NAME = re.compile(rb"(?:TABLE|DATABASE)\s+(" + _IDENT + rb")(\s+.*)?", _I)
_TABLE_NAME = re.compile(rb"TABLE\s+(" + _IDENT + rb")(\s+.*)?", _I)

_VERBS = re.compile(rb"\b(^SHOW|^FLUSH|^COMMIT|^ROLLBACK|^BEGIN|SELECT|INSERT|UPDATE|DELETE"
                    rb"|REPLACE|^SET|UNION|^START|^LOCK)\b", _I)

_MODIFIERS = re.compile(rb"(?:LOW_PRIORITY|IGNORE|STRAIGHT_JOIN|DELAYED)\s+", _I)
_LOCK_TABLES = re.compile(rb"^\s*LOCK TABLES\s+", _I)
_LOCK_MODES = re.compile(rb"\s+(?:READ(?:\s+LOCAL)?|WRITE)\s*", _I)
_ESC_QUOTE = re.compile(rb"\\[\"']")
_DQ = re.compile(rb'".*?"', _S)
_SQ = re.compile(rb"'.*?'", _S)
_INSERT_NO_INTO = re.compile(rb"\A\s*(?:INSERT|REPLACE)(?!\s+INTO)", _I)
_INSERT_VERB = re.compile(rb"\A\s*((?:INSERT|REPLACE))\s+", _I)
_LOAD_DATA = re.compile(rb"\A\s*LOAD DATA", _I)
_TABLES = re.compile(rb"\b(?:FROM|JOIN|(?<!KEY\s)UPDATE|INTO)\b\s*\(?(" + _IDENT
                     + rb"(?:(?:\s+(?:AS\s+)?\w+)?,\s*" + _IDENT + rb")*)", _I)
_SELECT_START = re.compile(rb"\ASELECT\b", _I)
_ONE_TABLE = re.compile(rb"\s*(" + _IDENT + rb")(\s+.*)?", _I)
_LETTER = re.compile(rb"[a-zA-Z]")
_DIGITS = re.compile(rb"(_?)[0-9]+")


def distill(query) -> str:
    """The distillate of ``query`` (str or bytes) as str (invalid UTF-8 replaced)."""
    if isinstance(query, str):
        query = query.encode("utf-8", "surrogateescape")
    return distill_bytes(query).decode("utf-8", "replace")


def distill_bytes(query: bytes) -> bytes:
    """The distillate of ``query``, bytes in, bytes out."""
    verbs, table = _verbs(query)
    if verbs.startswith(b"SHOW"):
        for word, alias in _SHOW_ALIASES:
            verbs = verbs.replace(word, alias, 1)
        return verbs
    if verbs.startswith(b"LOAD DATA"):
        return verbs
    tables = []
    for name in get_tables(query):
        if name is None:
            continue
        name = _DIGITS.sub(rb"\1?", name.replace(b"`", b""))
        tables.append(name)
    if table:
        tables.append(table)
    return b" ".join([verbs] + _no_repeats(tables))


def _no_repeats(items):
    out = []
    for item in items:
        if not out or out[-1] != item:
            out.append(item)
    return out


def _verbs(query: bytes):
    """(verbs, table named by a DDL statement or None)."""
    m = _CALL.match(query)
    if m:
        return b"CALL " + m.group(1), None
    if _USE.match(query):
        return b"USE", None
    if _UNLOCK.match(query):
        return b"UNLOCK", None
    m = _XA.match(query)
    if m:
        return b"XA_" + m.group(1), None
    if _LOAD.match(query):
        m = _INTO_TABLE.search(query)
        return b"LOAD DATA " + (m.group(1).replace(b"`", b"") if m else b""), None
    if query.startswith(_ADMIN):
        return query.replace(_ADMIN, b"ADMIN", 1).upper(), None
    query = _strip_comments(query)
    if _SHOW.match(query):
        q = _SHOW_NOISE.sub(b" ", query.upper())
        q = _SHOW_COUNT.sub(b"", q)
        q = _SHOW_TAIL.sub(b"", q, count=1)
        q = _SHOW_HEAD.sub(rb"\1", q, count=1)
        return _WS.sub(b" ", q), None
    m = _DDL.match(query)
    if m:
        dds = m.group(1)
        q = _IF_EXISTS_DISTILL.sub(b" ", query, count=1)
        obj = re.search(re.escape(dds) + rb".+(DATABASE|TABLE)\b", q, _I)
        name = _DDL_NAME.search(q)
        verbs = dds.upper() + (b" " + obj.group(1).upper() if obj else b"")
        return verbs, name.group(1) if name else None
    verbs = _no_repeats([v.upper() for v in _VERBS.findall(query)])
    if verbs[:1] == [b"SELECT"] and len(verbs) > 1:
        verbs = [b"SELECT", b"UNION"] if b"UNION" in verbs else [b"SELECT"]
    return b" ".join(verbs), None


def _strip_comments(query: bytes) -> bytes:
    query = _ML_COMMENT.sub(b"", query)
    query = _OL_COMMENT.sub(b"", query)
    m = _SHOW_VERSION_COMMENT.search(query)
    if m:
        query = _VERSION_COMMENT.sub(m.group(1).replace(b"\\", b"\\\\"), query)
    return query


def get_tables(query: bytes) -> list:
    """Table names as pt-query-digest's QueryParser finds them (as written;
    None where it finds a DDL statement without one)."""
    if not query:
        return []
    m = _DDL.match(query)
    if m:
        ddl = m.group(1)
        query = _IF_EXISTS_TABLES.sub(b"", query, count=1)
        if re.search(re.escape(ddl) + rb" DATABASE\b", query, _I):
            return []
        if ddl.upper() == b"CREATE" and re.search(re.escape(ddl) + rb"\b.+?\bSELECT\b", query, _I):
            return get_tables(re.search(rb"\b(SELECT\b.+)", query, _I | _S).group(1))
        m = _TABLE_NAME.search(query)
        return [m.group(1) if m else None]
    query = _MODIFIERS.sub(b" ", query)
    query, locked = _LOCK_TABLES.subn(b"", query, count=1)
    if locked:
        query = b"FROM " + _LOCK_MODES.sub(b"", query)
    query = _ESC_QUOTE.sub(b"", query)
    query = _DQ.sub(b"?", query)
    query = _SQ.sub(b"?", query)
    if _INSERT_NO_INTO.match(query):
        query = _INSERT_VERB.sub(rb"\1 INTO ", query, count=1)
    if _LOAD_DATA.match(query):
        m = _INTO_TABLE.search(query)
        return [m.group(1) if m else None]
    tables = []
    for group in _TABLES.findall(query):
        if _SELECT_START.match(group):
            continue
        for name in group.split(b","):
            name = _ONE_TABLE.sub(rb"\1", name)
            if _LETTER.search(name):
                tables.append(name)
    return tables
