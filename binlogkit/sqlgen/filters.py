"""Which row changes `binlogkit sql` / `stats` keep: databases, tables (names or
shell patterns, `db.table` or `table`), DML types, and a predicate on column values.

The predicate (`--where`) is a small fixed grammar, never `eval`::

    expr   := term ("or" term)*          term := factor ("and" factor)*
    factor := "not" factor | "(" expr ")" | NAME OP VALUE | NAME "in" "(" VALUE, ... ")"
    OP     := = == != <> < <= > >=       VALUE := number | 'text' | "text"

NAME is a column of the row (its key columns are the usual choice: `id = 7`,
`id >= 100 and id < 200`, `email in ('a@x', 'b@x')`); the row is the before image
of an UPDATE or DELETE, the after image of an INSERT.  Numbers compare as numbers,
text as the value's UTF-8 text; a row without the column fails the comparison.
"""
import fnmatch
import operator
import re
from decimal import Decimal, InvalidOperation

from binlogkit.binlog.rowimage import ABSENT
from binlogkit.errors import BinlogkitError

__all__ = ["RowFilter", "FilterError", "compile_where"]


class FilterError(BinlogkitError):
    """A --where expression that does not parse."""


_KINDS = {"insert": "write", "update": "update", "delete": "delete"}


class RowFilter:
    def __init__(self, databases=(), tables=(), types=(), where=None):
        self.databases = [d for d in databases if d]
        self.tables = [t for t in tables if t]
        bad = [t for t in types if t not in _KINDS]
        if bad:
            raise FilterError(f"--type takes insert, update, delete (not {', '.join(bad)})")
        self.kinds = {_KINDS[t] for t in types}
        self.where = compile_where(where) if where else None

    def table_ok(self, db, table):
        if self.databases and not any(fnmatch.fnmatchcase(db, p) for p in self.databases):
            return False
        if self.tables:
            full = f"{db}.{table}"
            return any(fnmatch.fnmatchcase(full if "." in p else table, p) for p in self.tables)
        return True

    def kind_ok(self, kind):
        return not self.kinds or kind in self.kinds

    def row_ok(self, names, before, after):
        if self.where is None:
            return True
        image = after if before is None else before
        return self.where({n: v for n, v in zip(names, image) if v is not ABSENT and n is not None})


_TOKEN = re.compile(r"""\s*(?:
    (?P<op>==|!=|<>|<=|>=|=|<|>)
  | (?P<punct>[(),])
  | (?P<str>'(?:[^']|'')*'|"(?:[^"]|"")*")
  | (?P<num>[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>`(?:[^`]|``)+`|[A-Za-z_$][\w$]*)
)""", re.X)
_OPS = {"=": operator.eq, "==": operator.eq, "!=": operator.ne, "<>": operator.ne,
        "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _tokens(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise FilterError(f"--where: cannot read {text[pos:pos + 20]!r} "
                              f"(character {pos + 1})")
        kind = m.lastgroup
        value = m.group(kind)
        if kind == "str":
            value = value[1:-1].replace(value[0] * 2, value[0])
        elif kind == "name" and value.startswith("`"):
            value = value[1:-1].replace("``", "`")
        elif kind == "name" and value.lower() in ("and", "or", "not", "in"):
            kind = value.lower()
        out.append((kind, value))
        pos = m.end()
    out.append(("end", None))
    return out


def _number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        return value
    text = _text(value)
    try:
        return Decimal(text)
    except (InvalidOperation, TypeError, ValueError):
        return None


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _compare(name, op, kind, value):
    cmp = _OPS[op]
    if kind == "num":
        want = Decimal(value)

        def numeric(row):
            got = row.get(name)
            got = _number(got) if got is not None else None
            if got is None:
                return False
            return cmp(Decimal(str(got)) if isinstance(got, float) else got, want)
        return numeric

    def textual(row):
        got = row.get(name)
        return got is not None and cmp(_text(got), value)
    return textual


class _Parser:
    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self):
        return self.toks[self.i][0]

    def take(self, kind=None):
        tok = self.toks[self.i]
        if kind is not None and tok[0] != kind:
            raise FilterError(f"--where: expected {kind}, found {tok[1] or 'the end'}")
        self.i += 1
        return tok

    def expr(self):
        left = self.term()
        while self.peek() == "or":
            self.take()
            right = self.term()
            left = (lambda a, b: lambda row: a(row) or b(row))(left, right)
        return left

    def term(self):
        left = self.factor()
        while self.peek() == "and":
            self.take()
            right = self.factor()
            left = (lambda a, b: lambda row: a(row) and b(row))(left, right)
        return left

    def factor(self):
        kind = self.peek()
        if kind == "not":
            self.take()
            inner = self.factor()
            return lambda row: not inner(row)
        if kind == "punct" and self.toks[self.i][1] == "(":
            self.take()
            inner = self.expr()
            if self.take("punct")[1] != ")":
                raise FilterError("--where: ')' expected")
            return inner
        name = self.take("name")[1]
        if self.peek() == "in":
            self.take()
            if self.take("punct")[1] != "(":
                raise FilterError("--where: '(' expected after in")
            tests = []
            while True:
                vkind, value = self.take()
                if vkind not in ("num", "str"):
                    raise FilterError("--where: a value expected in the list")
                tests.append(_compare(name, "=", vkind, value))
                sep = self.take("punct")[1]
                if sep == ")":
                    break
            return lambda row: any(t(row) for t in tests)
        op = self.take("op")[1]
        vkind, value = self.take()
        if vkind not in ("num", "str"):
            raise FilterError(f"--where: a value expected after {name} {op}")
        return _compare(name, op, vkind, value)


def compile_where(text):
    """A predicate {column name: value} -> bool (FilterError when it does not parse)."""
    parser = _Parser(text)
    if parser.peek() == "end":
        raise FilterError("--where: empty expression")
    pred = parser.expr()
    parser.take("end")
    return pred
