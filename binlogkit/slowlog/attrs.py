"""The slow-log attribute grammar, shared by the line parser and the bulk scanner.

An attribute line is a ``#`` line whose first word is a capitalised name and a
colon (``# +[A-Z][A-Za-z_]+: \\S``); every ``Name: value`` pair on it is an
attribute (``(\\w+):\\s+(\\S+|\\Z)``), as pt-query-digest's SlowLogParser reads
them, so Percona's, MySQL 8's ``log_slow_extra`` and MariaDB's extras need no
list of names.  An empty ``Schema:`` (followed directly by the next name) is
dropped first (maatkit issue 1104).

Types follow pt-query-digest's EventAggregator (``make_handler``): a fixed
table for a few names, otherwise the first value seen decides:

* ``num``    -- digits, or digits with a decimal point (``12``, ``0.000351``,
  ``1.5E+3``); a leading ``-`` on an integer makes it a string, as in pt;
* ``bool``   -- ``Yes`` / ``No``;
* ``string`` -- anything else (``Thread_id``, ``Last_errno``, ``InnoDB_trx_id``
  and ``host``/``ip`` are always strings, ``Killed`` is always a bool).

The other entry lines both parsers read are here too: ``# User@Host:``
(:func:`user_host`) and ``SET name=value, ...;`` (:func:`set_pairs`).

Numbers carry a unit for display (:func:`unit_of`): ``time`` (names ending in
``time`` or ``wait``, seconds; MariaDB's ``Pages_read_time``/``Engine_time``
are written in milliseconds), ``size`` (bytes) or ``count``.
"""

from __future__ import annotations

import re

__all__ = ["ATTR_LINE", "ATTR", "EMPTY_SCHEMA", "attr_pairs", "attrs_of_lines", "USER_HOST",
           "user_host", "SET_META", "set_pairs",
           "NUM", "BOOL", "STRING", "FIXED_TYPES", "IGNORED", "type_of", "unit_of",
           "pt_number", "is_time_attr", "db_name"]

ATTR_LINE = re.compile(rb"# +[A-Z][A-Za-z_]+: \S")
ATTR = re.compile(rb"(\w+):\s+(\S+|\Z)")
EMPTY_SCHEMA = re.compile(rb"Schema:\s+(?=\w+: )")
# ``# User@Host: user[user] @ host [ip]  Id: N``: user, host, ip, thread id
USER_HOST = re.compile(
    rb"# User@Host: ([^\[]+|\[[^\[]+\]).*?@ (\S*) \[(.*)\]\s*(?:Id:\s*(\d+))?")
# a SET line that belongs to the entry's metadata (not its query)
SET_META = re.compile(rb"SET (?:last_insert_id|insert_id|timestamp)")
_SET = re.compile(rb"SET\s+([^;]*)")
_SET_SPLIT = re.compile(rb",|\s*=\s*")

NUM, BOOL, STRING = "num", "bool", "string"

# pt-query-digest's type_for table (bin/pt-query-digest, main: EventAggregator->new)
FIXED_TYPES = {
    b"val": STRING, b"key_print": STRING, b"Status_code": STRING, b"Statement_id": STRING,
    b"Error_no": STRING, b"Last_errno": STRING, b"Thread_id": STRING,
    b"InnoDB_trx_id": STRING, b"host": STRING, b"ip": STRING, b"port": STRING,
    b"Killed": BOOL, b"rate_limit": STRING,
}
# --ignore-attributes default: metadata, not metrics
IGNORED = frozenset({b"arg", b"cmd", b"insert_id", b"ip", b"port", b"Thread_id", b"timestamp",
                     b"exptime", b"flags", b"key", b"res", b"val", b"server_id", b"offset",
                     b"end_log_pos", b"Xid"})

_NUM_VALUE = re.compile(rb"(?:\d+|[+-]?\d+\.\d*(?:[eE][+-]?\d+)?)\Z")
_SIZE_NAME = re.compile(rb"(?:bytes|_sizes?|Bytes_\w+|Query_length)\Z", re.I)
_TIME_NAME = re.compile(rb"(?:time|wait)\Z")


def db_name(value):
    """A database name from ``use db`` or ``Schema:`` as pt-query-digest keeps it
    (``sanitize_event``: one leading and one trailing backtick dropped, so
    ``use `shop``` and ``use shop`` name the same database); None stays None."""
    if value and value[:1] == b"`":
        value = value[1:]
    if value and value[-1:] == b"`":
        value = value[:-1]
    return value


def attr_pairs(line: bytes) -> list:
    """The ``(name, value)`` pairs of one attribute line (without its newline);
    [] when it is not an attribute line."""
    if not ATTR_LINE.match(line):
        return []
    if b"Schema:" in line:
        line = EMPTY_SCHEMA.sub(b"", line)
    return ATTR.findall(line)


def attrs_of_lines(block: bytes) -> list:
    """The pairs of every attribute line of a block of ``#`` lines, in order."""
    out = []
    for line in block.split(b"\n"):
        if line[:1] == b"#":
            out += attr_pairs(line)
    return out


def user_host(text: bytes):
    """(user, host, ip, thread id or None) of a line holding ``# User@Host:``,
    or None when the line does not read as one."""
    m = USER_HOST.search(text)
    return m.groups() if m else None


def set_pairs(line: bytes) -> list:
    """The ``(name, value)`` pairs of a ``SET a=1, b=2;`` line; None when it is none."""
    m = _SET.match(line)
    if not m:
        return None
    parts = _SET_SPLIT.split(m.group(1))
    return list(zip(parts[0::2], parts[1::2]))


def type_of(name: bytes, first_value: bytes) -> str:
    """pt's type of an attribute, from its name and the first value seen."""
    got = FIXED_TYPES.get(name)
    if got is not None:
        return got
    if name.endswith(b"_crc"):
        return STRING
    if _NUM_VALUE.match(first_value):
        return NUM
    if first_value in (b"Yes", b"No"):
        return BOOL
    return STRING


def unit_of(name: bytes) -> str:
    """Display unit of a number attribute: ``time``, ``size`` or ``count``."""
    if _TIME_NAME.search(name):
        return "time"
    if _SIZE_NAME.search(name):
        return "size"
    return "count"


def is_time_attr(name: bytes) -> bool:
    """pt-query-digest's per-class JSON prints these with 6 decimals (``_time``/``_wait``)."""
    return name.endswith((b"_time", b"_wait"))


_LEADING_NUMBER = re.compile(rb"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


def pt_number(raw: bytes) -> float:
    """A value as Perl reads it as a number: its leading number, else 0."""
    try:
        return float(raw)
    except ValueError:
        m = _LEADING_NUMBER.match(raw)
        return float(m.group(1)) if m else 0.0
