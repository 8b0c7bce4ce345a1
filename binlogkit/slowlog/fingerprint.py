"""Query fingerprints, query IDs and distillates compatible with pt-query-digest 3.x.

The fingerprint abstracts a query so that statements differing only in
literal values fall into one class.  The rules (documented in the
pt-query-digest and pt-fingerprint manuals) are applied in this order on the
raw bytes, ASCII-only, like the Perl tool:

1. whole-query special cases: mysqldump's ``SELECT /*!40001 SQL_NO_CACHE */ *
   FROM``, percona-toolkit checksum queries, ``administrator command:``,
   ``CALL proc(`` (reduced to ``call proc``); a multi-row
   ``INSERT/REPLACE ... VALUES (...), (...)`` keeps only its first tuple;
2. comments go, except ``/*!version */``; ``use db`` becomes ``use ?``;
3. quoted strings, ``true``/``false`` and anything that starts like a number
   (also digits inside identifiers: ``t_2009`` -> ``t_?``) become ``?``;
4. whitespace collapses, everything is lower-cased, ``null`` becomes ``?``,
   ``IN (...)``/``VALUES (...)`` lists become ``(?+)``, repeated ``UNION``
   selects collapse, ``LIMIT ?, ?`` becomes ``limit ?`` and ``ASC`` after
   ``ORDER BY`` is dropped.

The query ID is the MD5 of the fingerprint, 32 upper-case hex digits
(pt-query-digest 3.x prints it as ``0x`` + 32 hex); :func:`short_id` gives
the right-most 16 (percona/go-mysql, PMM and pt 2.x reports).
"""

from __future__ import annotations

import hashlib
import re

from binlogkit.slowlog.distill import distill  # noqa: F401  (re-exported)

__all__ = ["fingerprint", "query_id", "short_id", "distill", "Fingerprinter"]

_I, _S = re.IGNORECASE, re.DOTALL

_MYSQLDUMP = re.compile(rb"SELECT /\*!40001 SQL_NO_CACHE \*/ \* FROM `")
_MYSQLDUMP_SKELETON = re.compile(rb"SELECT /\*!0 SQL_NO_CACHE \*/ \* FROM `")
_DIGIT_RUN = re.compile(rb"[0-9]+")
_ZERO_RUN = re.compile(rb"00+")
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")
_PT_CHECKSUM = re.compile(rb"/\*\w+\.\w+:[0-9]/[0-9]\*/")
_CALL = re.compile(rb"\s*(call\s+\S+)\(", _I)
_MULTI_INSERT = re.compile(
    rb"((?:INSERT|REPLACE)(?: IGNORE)?\s+INTO.+?VALUES\s*\(.*?\))\s*,\s*\(", _I | _S)
_ML_COMMENT = re.compile(rb"/\*[^!].*?\*/", _S)
_OL_COMMENT = re.compile(rb"(?:--|#)[^'\"\r\n]*(?=[\r\n]|\Z)")
_USE = re.compile(rb"\Ause \S+(?=\n?\Z)", _I)
_ESC_QUOTE = re.compile(rb"\\[\"']")
_DQ = re.compile(rb'".*?"', _S)
_SQ = re.compile(rb"'.*?'", _S)
_BOOL = re.compile(rb"\bfalse\b|\btrue\b", _I)
_NUMBER = re.compile(rb"[0-9+-][0-9a-f.xb+-]*")
_NUMBER_EMBEDDED = re.compile(rb"\b[0-9+-][0-9a-f.xb+-]*")
_NUM_LEFTOVER = re.compile(rb"[xb.+-]\?")
_NUM_LEFTOVER_MD5 = re.compile(rb"[xb+-]\?")
_MD5_LITERAL = re.compile(rb"([._-])[a-f0-9]{32}")
_LEADING_WS = re.compile(rb"\A\s+")
_WS_RUN = re.compile(rb"[ \n\t\r\f]+")
_NULL = re.compile(rb"\bnull\b")
_LISTS = re.compile(rb"\b(in|values?)(?:[\s,]*\([\s?,]*\))+")
_UNION = re.compile(rb"\b(select\s.*?)(?:(\sunion(?:\sall)?)\s\1)+")
_LIMIT = re.compile(rb"\blimit \?(?:, ?\?| offset \?)?")
_ORDER_BY = re.compile(rb"\bORDER BY ", _I)
_ASC = re.compile(rb"(.+?)\s+ASC", _I)


class Fingerprinter:
    """Fingerprint function with pt's two options and a bounded memo."""

    def __init__(self, embedded_numbers=False, md5_checksums=False, memo_size=20000):
        self.embedded_numbers = embedded_numbers
        self.md5_checksums = md5_checksums
        self._memo = {}
        self._skel = {}       # skeleton -> fingerprint, or False (special case)
        self._zeroed = {}     # query with digits as 0 -> the same
        self._memo_size = memo_size

    def __call__(self, query: bytes) -> bytes:
        memo = self._memo
        got = memo.get(query)
        if got is None:
            got = self.compute(query)
            if len(memo) >= self._memo_size:
                memo.clear()
            memo[query] = got
        return got

    def keys(self, queries) -> list:
        """The fingerprints of many queries at once (a list, same order).

        Queries that differ only in their digits share a fingerprint: every
        rule but the special cases is blind to the length and value of a digit
        run (the number rule ``[0-9+-][0-9a-f.xb+-]*`` swallows whole runs and
        leaves no digit behind; no other rule names a digit, and a shorter run
        is still a word character for ``\\b``), so a query's fingerprint is
        that of its *skeleton*, the query with each digit run replaced by
        ``0``.  Each distinct skeleton is fingerprinted once; skeletons a special
        case could apply to (CALL, administrator commands, mysqldump and
        percona-toolkit comments, whose output keeps digits) fall back to
        :meth:`__call__`.  A batch is looked up by its queries with every digit
        turned into ``0`` (one ``bytes.translate`` of the joined batch; runs not
        yet shortened), a cheap first key that maps to the skeleton's result.
        """
        if self.embedded_numbers or self.md5_checksums:
            return [self(q) for q in queries]
        n = len(queries)
        blob = b"\0".join(queries)
        if blob.count(b"\0") != n - 1:
            return [self._by_skeleton(_DIGIT_RUN.sub(b"0", q)) or self(q) for q in queries]
        first = blob.translate(_DIGITS_TO_ZERO).split(b"\0")
        memo = self._zeroed
        out = list(map(memo.get, first))
        if None in out:
            if len(memo) > self._memo_size:
                memo.clear()
            for z in set(first).difference(memo):
                memo[z] = self._by_skeleton(_ZERO_RUN.sub(b"0", z))
            out = list(map(memo.__getitem__, first))
        if False in out:      # a special case: fingerprint each such query itself
            for i, fp in enumerate(out):
                if fp is False:
                    out[i] = self(queries[i])
        return out

    def _by_skeleton(self, skel):
        """The fingerprint shared by all queries with skeleton ``skel``, or False
        when a special case may apply (then each query has its own)."""
        memo = self._skel
        got = memo.get(skel)
        if got is None:
            if len(memo) > self._memo_size:
                memo.clear()
            got = memo[skel] = False if _skeleton_special(skel) else self.compute(skel)
        return got

    def compute(self, q: bytes) -> bytes:
        special = _special_case(q)
        if special is not None:
            return special
        q = _strip(q)
        q, n = _USE.subn(b"use ?", q, count=1) if q[:4].lower() == b"use " else (q, 0)
        if n:
            return q
        return self._literals_and_shape(q)

    def _literals_and_shape(self, q: bytes) -> bytes:
        if b"\\" in q:
            q = _ESC_QUOTE.sub(b"", q)
        if b'"' in q:
            q = _DQ.sub(b"?", q)
        if b"'" in q:
            q = _SQ.sub(b"?", q)
        q = _BOOL.sub(b"?", q)
        if self.md5_checksums:
            q = _MD5_LITERAL.sub(rb"\1?", q)
        q = (_NUMBER_EMBEDDED if self.embedded_numbers else _NUMBER).sub(b"?", q)
        q = (_NUM_LEFTOVER_MD5 if self.md5_checksums else _NUM_LEFTOVER).sub(b"?", q)
        q = _LEADING_WS.sub(b"", q)
        if q[-1:] == b"\n":
            q = q[:-1]
        q = _WS_RUN.sub(b" ", q).lower()
        q = _NULL.sub(b"?", q)
        q = _LISTS.sub(rb"\1(?+)", q)
        if b"union" in q:
            q = _UNION.sub(rb"\1 /*repeat\2*/", q)
        q = _LIMIT.sub(b"limit ?", q, count=1)
        if b"order by " in q:
            q = _drop_order_by_asc(q)
        return q


def _special_case(q: bytes):
    if q.startswith(b"SELECT /*!40001") and _MYSQLDUMP.match(q):
        return b"mysqldump"
    if b"/*" in q and _PT_CHECKSUM.search(q):
        return b"percona-toolkit"
    if q.startswith(b"administrator command: "):
        return q
    m = _CALL.match(q)
    if m:
        return m.group(1).lower()
    return None


def _strip(q: bytes) -> bytes:
    """The first tuple of a multi-row INSERT/REPLACE, comments removed."""
    m = _MULTI_INSERT.match(q)
    if m:
        q = m.group(1)
    if b"/*" in q:
        q = _ML_COMMENT.sub(b"", q)
    if b"--" in q or b"#" in q:
        q = _OL_COMMENT.sub(b"", q)
    return q


def _skeleton_special(s: bytes) -> bool:
    """True when some query with skeleton ``s`` may hit a special case."""
    return _special_case(s) is not None or (
        s.startswith(b"SELECT /*!0 ") and _MYSQLDUMP_SKELETON.match(s) is not None)


def _drop_order_by_asc(q: bytes) -> bytes:
    """Remove each ``ASC`` in the contiguous run of ``... ASC`` after ORDER BY."""
    m = _ORDER_BY.search(q)
    if not m:
        return q
    pos = m.end()
    out = [q[:pos]]
    while True:
        a = _ASC.match(q, pos)
        if not a:
            break
        out.append(a.group(1))
        pos = a.end()
    if len(out) == 1:
        return q
    out.append(q[pos:])
    return b"".join(out)


_DEFAULT = Fingerprinter()


def fingerprint(query, embedded_numbers=False, md5_checksums=False):
    """The fingerprint of ``query`` (str in, str out; bytes in, bytes out)."""
    fp = Fingerprinter(embedded_numbers, md5_checksums) if (
        embedded_numbers or md5_checksums) else _DEFAULT
    if isinstance(query, str):
        return fp(query.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")
    return fp(query)


def query_id(fp) -> str:
    """MD5 of a fingerprint as 32 upper-case hex digits (pt-query-digest 3.x)."""
    if isinstance(fp, str):
        fp = fp.encode("utf-8", "surrogateescape")
    return hashlib.md5(fp).hexdigest().upper()


def short_id(fp) -> str:
    """The right-most 16 hex digits of :func:`query_id` (go-mysql / PMM style)."""
    return query_id(fp)[16:]
