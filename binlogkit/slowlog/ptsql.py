"""The SQL helpers of pt-query-digest's reports: the Tables statements and "as select".

* :func:`table_statements` -- ``SHOW TABLE STATUS [FROM `db`] LIKE 'tbl'\\G`` and
  ``SHOW CREATE TABLE `db`.`tbl`\\G`` for each table of a query (pt's
  QueryParser ``extract_tables``: the tables :func:`~binlogkit.slowlog.distill.get_tables`
  finds, once each, unqualified ones in the sample's database);
* :func:`as_select` -- a data-changing statement rewritten as a SELECT over
  the same rows, for EXPLAIN (pt's QueryRewriter ``convert_to_select``:
  UPDATE, INSERT/REPLACE ... VALUES, INSERT ... SET, DELETE).
"""

from __future__ import annotations

import re

from binlogkit.slowlog.distill import get_tables

__all__ = ["table_statements", "as_select", "split_unquote"]

_X = re.I | re.S
_END = rb"(?=\n?\Z)"       # Perl's \Z
_SUBSELECT = re.compile(rb"=\s*\(\s*SELECT ", re.I)
_UPDATE = re.compile(rb"\A.*?update(?:\s+(?:low_priority|ignore))?\s+(.*?)\s+set\b(.*?)"
                     rb"(?:\s*where\b(.*?))?(limit\s*[0-9]+(?:\s*,\s*[0-9]+)?)?" + _END, _X)
_INSERT = re.compile(rb"\A.*?(?:insert(?:\s+ignore)?|replace)\s+.*?\binto\b(.*?)\(([^\)]+)\)\s*"
                     rb"values?\s*(\(.*?\))\s*(?:\blimit\b|on\s+duplicate\s+key.*)?\s*" + _END, _X)
_INSERT_SET = re.compile(rb"\A.*?(?:insert(?:\s+ignore)?|replace)\s+(?:.*?\binto)\b(.*?)\s*"
                         rb"set\s+(.*?)\s*(?:\blimit\b|on\s+duplicate\s+key.*)?\s*" + _END, _X)
_DELETE = re.compile(rb"\A.*?delete\s+(.*?)\bfrom\b(.*)" + _END, _X)
_ON_DUP = re.compile(rb"\s*on\s+duplicate\s+key\s+update.*" + _END, _X)
_TO_SELECT = re.compile(rb"\A.*?(?=\bSELECT\s*\b)", _X)
_JOIN = re.compile(rb"\bjoin\b")
_QUOTED = re.compile(rb""""(?:(?!(?<!\\)").)*"|'(?:(?!(?<!\\)').)*'""")


def split_unquote(db_tbl: bytes, default_db=None):
    parts = db_tbl.split(b".")
    db, tbl = parts[0], (parts[1] if len(parts) > 1 else None)
    if not tbl or tbl == b"0":
        db, tbl = default_db, db
    out = []
    for v in (db, tbl):
        if v:
            if v.startswith(b"`"):
                v = v[1:]
            if v.endswith(b"`"):
                v = v[:-1]
            v = v.replace(b"``", b"`")
        out.append(v)
    return out[0], out[1]


def _quote(*vals):
    return b".".join(b"`" + v.replace(b"`", b"``") + b"`" for v in vals)


def table_statements(query: bytes, default_db=None):
    """[(status statement, create statement)] for the tables of ``query``."""
    seen = set()
    out = []
    for name in get_tables(query):
        if not name or name in seen:
            continue
        seen.add(name)
        db, tbl = split_unquote(name)
        db = db or default_db
        status = b"SHOW TABLE STATUS" + (b" FROM `" + db + b"`" if db else b"") + \
            b" LIKE '" + (tbl or b"") + b"'\\G"
        create = b"SHOW CREATE TABLE " + _quote(*[v for v in (db, tbl) if v]) + b"\\G"
        out.append((status, create))
    return out


def _balanced_end(s: bytes, j: int):
    """End of the balanced parenthesised group starting at s[j] == '(' (or -1)."""
    depth = 0
    for k in range(j, len(s)):
        c = s[k:k + 1]
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return k + 1
    return -1


def _values(vals: bytes):
    """The values of a VALUES tuple, as pt's quote / balanced-parens / plain alternatives."""
    out = []
    pos, n = 0, len(vals)
    while pos < n:
        m = _QUOTED.match(vals, pos)
        if m:
            out.append(m.group(0))
            pos = m.end()
            continue
        comma = vals.find(b",", pos)
        stop = n if comma < 0 else comma
        got = None
        for j in range(stop - 1, pos - 1, -1):      # [^,]* ( balanced ) [^,]*, greedy
            if vals[j:j + 1] == b"(":
                k = _balanced_end(vals, j)
                if k > 0:
                    nxt = vals.find(b",", k)
                    got = n if nxt < 0 else nxt
                    break
        if got is None and stop > pos:
            got = stop
        if got is None:
            pos += 1
            continue
        out.append(vals[pos:got])
        pos = got
    return out


def _insert_select(tbl, cols, vals):
    cols = cols.split(b",")
    vals = re.sub(rb"^\(|\)$", b"", vals)
    values = _values(vals)
    if len(cols) == len(values):
        return b"select * from " + tbl + b" where " + b" and ".join(
            c + b"=" + v for c, v in zip(cols, values))
    return b"select * from " + tbl + b" limit 1"


def as_select(query: bytes):
    """pt's convert_to_select: the statement as a SELECT (or as it was), None for none."""
    if not query or _SUBSELECT.search(query):
        return None
    m = _UPDATE.match(query)
    if m:
        frm, st, where, limit = m.groups()
        where = b"where " + where if where and where != b"0" else b""
        query = (b"select " + st + b" from " + frm + b" " + where
                 + (b" " + limit + b" " if limit else b"")) + query[m.end():]
    else:
        m = _INSERT.match(query)
        if m:
            query = _insert_select(*m.groups()) + query[m.end():]
        else:
            m = _INSERT_SET.match(query)
            if m:
                query = b"select * from " + m.group(1) + b" where " + \
                    m.group(2).replace(b",", b" and ") + b" " + query[m.end():]
            else:
                m = _DELETE.match(query)
                if m:
                    join = m.group(2)
                    query = (b"select 1 from " if _JOIN.search(join) else b"select * from ") + \
                        join + query[m.end():]
    query = _ON_DUP.sub(b"", query, count=1)
    query = _TO_SELECT.sub(b"", query, count=1)
    return query
