"""``slowlog digest --filter``: a small, safe expression language over entry attributes.

pt-query-digest's ``--filter`` runs Perl code; this is a fixed grammar, parsed
here and evaluated by closures (nothing is ever passed to ``eval``)::

    expr       := term ("or" term)*
    term       := factor ("and" factor)*
    factor     := "not" factor | "(" expr ")" | comparison
    comparison := NAME OP VALUE        OP: == != < <= > >= =~ (regex search) !~
    VALUE      := number | 'text' | "text" | word

NAME is any attribute of the entry as the log writes it (``Query_time``,
``Rows_examined``, ``Full_scan``, ``Bytes_sent``, ``InnoDB_IO_r_ops``, ...) or
``db``, ``user``, ``host``, ``ip``, ``arg`` (the query), ``fingerprint``,
``cmd``.  A number VALUE compares numerically, anything else as text
(``Full_scan == Yes``); an entry without the attribute fails the comparison
(and passes its ``not``).  Examples::

    --filter 'Query_time > 1 and db == shop'
    --filter 'Rows_examined >= 1000 or Full_scan == Yes'
    --filter 'arg =~ "^select" and not user == root'
"""

from __future__ import annotations

import operator
import re

from binlogkit.slowlog.attrs import pt_number
from binlogkit.slowlog.fingerprint import fingerprint

__all__ = ["compile_filter", "compile_filter_names", "unknown_attributes", "FilterError"]


class FilterError(ValueError):
    """A --filter expression that does not parse (the message says where)."""


_TOKEN = re.compile(r"""\s*(?:
    (?P<op>==|!=|<=|>=|=~|!~|<|>|=)
   |(?P<paren>[()])
   |(?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
   |(?P<num>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![\w.]))
   |(?P<word>[A-Za-z_][\w.@-]*)
)""", re.X)
_CMP = {"==": operator.eq, "=": operator.eq, "!=": operator.ne, "<": operator.lt,
        "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_FIELDS = {"Query_time": "query_time", "Lock_time": "lock_time", "Rows_sent": "rows_sent",
           "Rows_examined": "rows_examined"}
_TEXT_FIELDS = {"db": "db", "user": "user", "host": "host", "ip": "ip", "cmd": "cmd",
                "arg": "query", "query": "query"}


def _tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise FilterError(f"cannot read the filter at character {pos + 1}: "
                              f"{text[pos:pos + 20]!r}")
        kind = m.lastgroup
        value = m.group(kind)
        if kind == "str":
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        out.append((kind, value, m.start(kind)))
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0
        self.names = []         # the attribute names compared, in order

    def peek(self):
        return self.toks[self.i]

    def take(self, kind=None, value=None):
        tok = self.toks[self.i]
        if (kind and tok[0] != kind) or (value and tok[1] != value):
            want = value or kind
            raise FilterError(f"expected {want} at character {tok[2] + 1}, "
                              f"got {tok[1] or 'the end'!r}")
        self.i += 1
        return tok

    def expr(self):
        left = self.term()
        while self.peek()[0] == "word" and self.peek()[1].lower() == "or":
            self.take()
            right = self.term()
            left = (lambda a, b: lambda ev: a(ev) or b(ev))(left, right)
        return left

    def term(self):
        left = self.factor()
        while self.peek()[0] == "word" and self.peek()[1].lower() == "and":
            self.take()
            right = self.factor()
            left = (lambda a, b: lambda ev: a(ev) and b(ev))(left, right)
        return left

    def factor(self):
        tok = self.peek()
        if tok[0] == "word" and tok[1].lower() == "not":
            self.take()
            inner = self.factor()
            return lambda ev: not inner(ev)
        if tok == ("paren", "(", tok[2]):
            self.take()
            inner = self.expr()
            self.take("paren", ")")
            return inner
        return self.comparison()

    def comparison(self):
        name = self.take("word")[1]
        if name not in self.names:
            self.names.append(name)
        op = self.take("op")[1]
        kind, value, at = self.take()
        if kind not in ("num", "str", "word"):
            raise FilterError(f"expected a value at character {at + 1}")
        return _compare(name, op, kind, value)


def _getter(name):
    if name in _FIELDS:
        attr = _FIELDS[name]
        raw = name.encode()
        return lambda ev: getattr(ev, attr) if getattr(ev, attr) is not None else ev.attrs.get(raw)
    if name in _TEXT_FIELDS:
        attr = _TEXT_FIELDS[name]
        return lambda ev: getattr(ev, attr)
    if name == "fingerprint":
        return lambda ev: ev.fingerprint if ev.fingerprint is not None else fingerprint(ev.query)
    raw = name.encode()
    return lambda ev: ev.attrs.get(raw)


def _compare(name, op, kind, value):
    get = _getter(name)
    if op in ("=~", "!~"):
        try:
            rx = re.compile(value.encode(), re.I)
        except re.error as exc:
            raise FilterError(f"bad regular expression {value!r}: {exc}") from None
        want = op == "=~"

        def match(ev):
            got = get(ev)
            if got is None:
                return False
            if not isinstance(got, bytes):
                got = repr(got).encode()
            return bool(rx.search(got)) == want
        return match
    cmp = _CMP[op]
    if kind == "num":
        number = float(value)

        def numeric(ev):
            got = get(ev)
            if got is None:
                return False
            return cmp(got if isinstance(got, (int, float)) else pt_number(got), number)
        return numeric
    text = value.encode()

    def textual(ev):
        got = get(ev)
        if got is None:
            return False
        if not isinstance(got, bytes):
            got = repr(got).encode()
        return cmp(got, text)
    return textual


def compile_filter(text: str):
    """A predicate ``entry -> bool`` for a --filter expression (FilterError if bad)."""
    return compile_filter_names(text)[0]


def compile_filter_names(text: str):
    """(predicate, the log attributes it names): the names other than the entry's own
    fields (``db``, ``user``, ``arg``...: :func:`unknown_attributes` checks the rest)."""
    p = _Parser(text)
    if p.peek()[0] == "end":
        raise FilterError("empty filter")
    pred = p.expr()
    p.take("end")
    own = set(_FIELDS) | set(_TEXT_FIELDS) | {"fingerprint"}
    return pred, [n for n in p.names if n not in own]


def unknown_attributes(names, seen):
    """The ``names`` no entry had (``seen``: the attribute names, bytes, of the entries)."""
    return [n for n in names if n.encode() not in seen]
