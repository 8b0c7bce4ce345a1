"""What `binlogkit sql` knows of a table: column names, signedness, character sets,
generated columns and the key its WHERE uses.

Three sources, best first (`describe`):
  1. the log itself: the Table_map's optional metadata (binlog_row_metadata=FULL
     gives names, the primary key, ENUM/SET strings; MINIMAL signedness and charsets);
  2. a `Schema` read from CREATE TABLE statements (`parse_schema`, e.g. what
     `mysqldump --no-data` writes), kept current by the DDL the log holds where
     that can be modelled (CREATE/DROP/RENAME TABLE; an ALTER TABLE is not
     modelled and says so);
  3. a live server's information_schema (`binlogkit.sqlgen.live`), which describes
     the table as it is now.
The sources are merged per column (the log wins); a model whose column count
differs from the table map's is refused rather than guessed.
"""
import re

from binlogkit._record import record
from binlogkit.binlog.table_metadata import column_info, parse_optional_metadata
from binlogkit.errors import BinlogkitError
from binlogkit.sqlgen.charsets import CHARSETS

__all__ = ["ColumnDesc", "TableDesc", "Schema", "SchemaError", "parse_schema", "describe",
           "table_name"]


class SchemaError(BinlogkitError):
    """A table the statements cannot be written for, or a schema file that does not parse."""


@record
class ColumnDesc:
    name: str = None
    unsigned: bool = None
    charset: str = None         # character set name; "binary" for binary strings
    generated: bool = False     # generated columns are never written to
    enum_values: list = None    # bytes, when known
    set_values: list = None


@record
class TableDesc:
    db: str
    name: str
    columns: list               # ColumnDesc per column, in table order
    key: list = None            # column indexes of the primary key (or a NOT NULL unique key)
    source: str = "log"


def table_name(table_map):
    """(db, table) of a table map as str: the one place names are read (bytes today, str
    once the decoder gives str)."""
    db, table = table_map.db, table_map.table
    if isinstance(db, bytes):
        db = db.decode("utf-8", "surrogateescape")
    if isinstance(table, bytes):
        table = table.decode("utf-8", "surrogateescape")
    return db, table


def _name(value):
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def from_table_map(table_map, mariadb):
    """A TableDesc from the optional metadata of a Table_map (names may be None)."""
    db, name = table_name(table_map)
    try:
        meta = parse_optional_metadata(table_map.optional_metadata)
    except ValueError:
        meta = None
    columns = []
    key = None
    if meta is not None:
        for info in column_info(table_map, meta, mariadb=mariadb):
            collation = info.collation
            columns.append(ColumnDesc(
                _name(info.name) if info.name is not None else None, info.unsigned,
                CHARSETS.get(collation) if collation is not None else None, False,
                info.enum_values, info.set_values))
        if meta.primary_key:
            key = [index for index, _prefix in meta.primary_key]
    else:
        columns = [ColumnDesc() for _ in range(table_map.column_count)]
    return TableDesc(db, name, columns, key)


def _merge(log, other):
    """The log's description completed column by column from another source."""
    columns = []
    for mine, theirs in zip(log.columns, other.columns):
        columns.append(ColumnDesc(
            mine.name if mine.name is not None else theirs.name,
            mine.unsigned if mine.unsigned is not None else theirs.unsigned,
            mine.charset if mine.charset is not None else theirs.charset,
            theirs.generated,
            mine.enum_values if mine.enum_values is not None else theirs.enum_values,
            mine.set_values if mine.set_values is not None else theirs.set_values))
    key = log.key if log.key else other.key
    return TableDesc(log.db, log.name, columns, key, other.source)


def describe(table_map, mariadb, schema=None, live=None, where=""):
    """The TableDesc `binlogkit sql` writes statements with (SchemaError if names are missing).

    `schema`: a Schema (from --schema); `live`: a callable (db, table) -> TableDesc or None.
    """
    log = from_table_map(table_map, mariadb)
    if all(c.name is not None for c in log.columns) and log.columns:
        if schema is not None or live is not None:
            other = _lookup(schema, live, log.db, log.name)
            if other is not None and len(other.columns) == len(log.columns):
                return _merge(log, other)
        return log
    other = _lookup(schema, live, log.db, log.name)
    if other is None:
        raise SchemaError(
            f"{where}no column names for {_shown(log)}: the log has no "
            "binlog_row_metadata=FULL; give --schema FILE (CREATE TABLE statements, e.g. "
            "mysqldump --no-data) or a server to ask (--host/--socket)")
    if len(other.columns) != table_map.column_count:
        why = schema.unknown.get((log.db, log.name)) if schema is not None else None
        if why is not None:
            raise SchemaError(
                f"{where}{_shown(log)} has {len(other.columns)} columns in the {other.source} "
                f"but {table_map.column_count} in the log's table map: {why}; give --schema "
                "with the table as it was here")
        raise SchemaError(
            f"{where}{_shown(log)} has {len(other.columns)} columns in the "
            f"{other.source} but {table_map.column_count} in the log's table map "
            "(the table changed in between): give the CREATE TABLE of the table as it was")
    return _merge(log, other)


def _shown(desc):
    from binlogkit.sqlgen.literals import show_name
    return show_name(desc.db) + "." + show_name(desc.name)


def _lookup(schema, live, db, name):
    if schema is not None:
        found = schema.get(db, name)
        if found is not None:
            return found
    if live is not None:
        return live(db, name)
    return None


# -- CREATE TABLE statements -----------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<space>\s+|--[ \t][^\n]*|--\n|\#[^\n]*|/\*(?!!)[\s\S]*?\*/)
  | (?P<vopen>/\*!\d*)
  | (?P<vclose>\*/)
  | (?P<bq>`(?:[^`]|``)*`)
  | (?P<str>'(?:[^'\\]|\\[\s\S]|'')*'|"(?:[^"\\]|\\[\s\S]|"")*")
  | (?P<word>[A-Za-z0-9_$@.]+)
  | (?P<punct>[(),;=])
  | (?P<other>.)
""", re.X)

_CHAR_TYPES = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set",
               "character", "nchar", "nvarchar", "long", "json"}
# binary strings; MariaDB's INET4/INET6/UUID are fixed binary strings in row images
BINARY_TYPES = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob",
                 "inet4", "inet6", "uuid"}


class _Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind, text, pos):
        self.kind, self.text, self.pos = kind, text, pos

    @property
    def word(self):
        return self.text.lower() if self.kind == "word" else None

    @property
    def ident(self):
        if self.kind == "bq":
            return self.text[1:-1].replace("``", "`")
        if self.kind == "word":
            return self.text
        if self.kind == "str" and self.text[0] == '"':
            return self.text[1:-1].replace('""', '"')
        return None


def _tokens(text):
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("space", "vopen", "vclose"):
            continue
        out.append(_Tok(kind, m.group(), m.start()))
    return out


def _statements(tokens):
    stmt = []
    for tok in tokens:
        if tok.kind == "punct" and tok.text == ";":
            if stmt:
                yield stmt
            stmt = []
        else:
            stmt.append(tok)
    if stmt:
        yield stmt


def _group(tokens, start):
    """Tokens of the parenthesized group opening at tokens[start]; (items, end index)."""
    depth, items, current = 0, [], []
    for i in range(start, len(tokens)):
        tok = tokens[i]
        if tok.kind == "punct" and tok.text == "(":
            depth += 1
            if depth == 1:
                continue
        elif tok.kind == "punct" and tok.text == ")":
            depth -= 1
            if depth == 0:
                items.append(current)
                return items, i + 1
        if depth == 1 and tok.kind == "punct" and tok.text == ",":
            items.append(current)
            current = []
        elif depth >= 1:
            current.append(tok)
    raise SchemaError("unbalanced parentheses")


def _qualified(tokens, i):
    """A [db.]name at tokens[i]: (db or None, name, next index)."""
    first = tokens[i].ident
    if first is None:
        raise SchemaError(f"a table name expected near {tokens[i].text[:20]!r}")
    if tokens[i].kind == "word" and "." in first:
        db, _, name = first.partition(".")
        return db, name, i + 1
    if i + 1 < len(tokens) and tokens[i + 1].kind == "word" and tokens[i + 1].text.startswith("."):
        rest = tokens[i + 1].text[1:]
        if rest:
            return first, rest, i + 2
        return first, tokens[i + 2].ident, i + 3
    return None, first, i + 1


def _key_columns(tokens, start):
    items, _ = _group(tokens, start)
    cols = []
    for item in items:
        if item and item[0].ident is not None:
            cols.append(item[0].ident)
    return cols


def _column(item, table_charset):
    """(name, ColumnDesc, primary key?, unique?, NOT NULL?) of a column definition."""
    name = item[0].ident
    words = [t.word for t in item[1:] if t.kind == "word"]
    texts = [t.text for t in item[1:]]
    type_name = words[0] if words else ""
    charset = None
    if type_name in BINARY_TYPES:
        charset = "binary"
    elif type_name in _CHAR_TYPES:
        charset = "utf8mb4" if type_name == "json" else table_charset
        for i, word in enumerate(words[:-1]):
            if word == "charset" or (word == "character" and words[i + 1] == "set"):
                charset = words[i + 1] if word == "charset" else words[i + 2]
                break
    generated = "generated" in words or any(
        texts[j].lower() == "as" and texts[j + 1] == "(" for j in range(len(texts) - 1))
    not_null = any(words[j] == "not" and words[j + 1] == "null" for j in range(len(words) - 1))
    is_pk = any(words[j] == "primary" and words[j + 1] == "key" for j in range(len(words) - 1))
    col = ColumnDesc(name, "unsigned" in words, charset, generated)
    if type_name in ("enum", "set"):
        members = _members(item)
        if type_name == "enum":
            col.enum_values = members
        else:
            col.set_values = members
    return name, col, is_pk, "unique" in words, not_null


_ESCAPES = {"0": "\0", "n": "\n", "r": "\r", "t": "\t", "b": "\b", "Z": "\x1a"}


def _string_value(text):
    """The value of a quoted SQL string ('it''s', 'a\\b')."""
    quote, body = text[0], text[1:-1]
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
        elif ch == quote and body[i + 1:i + 2] == quote:
            out.append(quote)
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _members(item):
    """The member strings of an ENUM(...) / SET(...) column definition, as bytes."""
    start = next((k for k, t in enumerate(item) if t.text == "("), None)
    if start is None:
        return None
    groups, _ = _group(item, start)
    members = []
    for group in groups:
        if len(group) != 1 or group[0].kind != "str":
            return None
        members.append(_string_value(group[0].text).encode("utf-8", "surrogateescape"))
    return members


def _create_table(stmt, current_db):
    i = 2
    if [t.word for t in stmt[i:i + 3]] == ["if", "not", "exists"]:
        i += 3
    db, name, i = _qualified(stmt, i)
    db = db or current_db
    if i >= len(stmt) or stmt[i].text != "(":
        return None         # CREATE TABLE ... LIKE / AS SELECT: not modelled
    items, end = _group(stmt, i)
    table_charset = None
    rest = [t.word or t.text for t in stmt[end:]]
    for j, word in enumerate(rest):
        if word in ("charset", "character") and j + 1 < len(rest):
            k = j + 1
            if rest[k] == "set":
                k += 1
            if k < len(rest) and rest[k] == "=":
                k += 1
            if k < len(rest):
                table_charset = rest[k]
                break
    columns, names, primary, uniques, required = [], [], None, [], set()
    for item in items:
        if not item:
            continue
        head = [t.word for t in item[:3]]
        if head[0] == "constraint":
            named = len(item) > 2 and item[1].word not in ("primary", "unique")
            item = item[2:] if named else item[1:]
            head = [t.word for t in item[:3]]
        if head[0] == "primary" and head[1:2] == ["key"]:
            start = next(k for k, t in enumerate(item) if t.text == "(")
            primary = _key_columns(item, start)
        elif head[0] == "unique":
            start = next(k for k, t in enumerate(item) if t.text == "(")
            uniques.append(_key_columns(item, start))
        elif head[0] in ("key", "index", "fulltext", "spatial", "foreign", "check", "period",
                         "vector", "constraint"):
            continue
        elif item[0].ident is not None:
            col_name, col, is_pk, is_unique, not_null = _column(item, table_charset)
            columns.append(col)
            names.append(col_name)
            if not_null:
                required.add(col_name)
            if is_pk:
                primary = [col_name]
            elif is_unique:
                uniques.append([col_name])
    key = [names.index(c) for c in primary if c in names] if primary else None
    if not key:     # else the first unique key of NOT NULL columns, as the server's PK rule
        for unique in uniques:
            if unique and all(c in required for c in unique):
                key = [names.index(c) for c in unique if c in names]
                break
    return TableDesc(db, name, columns, key or None, "schema")


class Schema:
    """Tables by (db, name) from CREATE TABLE statements; updated by the log's DDL."""

    def __init__(self, source="--schema"):
        self.tables = {}
        self.source = source
        self.unknown = {}       # (db, name) -> why the model no longer describes it

    def get(self, db, name):
        return self.tables.get((db, name))

    def add_sql(self, text, default_db=None):
        """Read CREATE TABLE, USE, DROP TABLE and RENAME TABLE statements of `text`;
        returns the notes on statements that change tables but are not modelled."""
        notes = []
        current = default_db
        for stmt in _statements(_tokens(text)):
            words = [t.word for t in stmt[:3]]
            if words[0] == "use" and len(stmt) > 1:
                current = stmt[1].ident
            elif words[:2] == ["create", "table"] or words[:3] == ["create", "or", "replace"]:
                if words[1] == "or":
                    stmt = stmt[:1] + stmt[3:]
                found = _create_table(stmt, current)
                if found is None:
                    notes.append("a CREATE TABLE without columns (LIKE or AS SELECT)")
                    continue
                desc = found
                self.tables[(desc.db, desc.name)] = desc
                self.unknown.pop((desc.db, desc.name), None)
            elif words[:2] == ["drop", "table"] or words[:3] == ["drop", "temporary", "table"]:
                i = 2 if words[1] == "table" else 3
                if [t.word for t in stmt[i:i + 2]] == ["if", "exists"]:
                    i += 2
                while i < len(stmt):
                    db, name, i = _qualified(stmt, i)
                    self.tables.pop((db or current, name), None)
                    if i < len(stmt) and stmt[i].text == ",":
                        i += 1
                    else:
                        break
            elif words[:2] == ["rename", "table"]:
                i = 2
                while i < len(stmt):
                    db, name, i = _qualified(stmt, i)
                    if i >= len(stmt) or stmt[i].word != "to":
                        break
                    db2, name2, i = _qualified(stmt, i + 1)
                    desc = self.tables.pop((db or current, name), None)
                    if desc is not None:
                        desc.db, desc.name = db2 or current, name2
                        self.tables[(desc.db, desc.name)] = desc
                    if i < len(stmt) and stmt[i].text == ",":
                        i += 1
                    else:
                        break
            elif words[:2] == ["alter", "table"] or words[:3] == ["alter", "online", "table"]:
                i = 2 if words[1] == "table" else 3
                if [t.word for t in stmt[i:i + 2]] == ["if", "exists"]:
                    i += 2
                db, name, _ = _qualified(stmt, i)
                key = (db or current, name)
                self.unknown[key] = "the log altered it (ALTER TABLE)"
                if key in self.tables:
                    notes.append(f"ALTER TABLE {_shown(TableDesc(key[0], key[1], []))} is not "
                                 "modelled: the columns used after it are those of "
                                 f"{self.source}, checked only by their count")
        return notes


def parse_schema(text, source="--schema"):
    """A Schema from SQL text (SchemaError when a CREATE TABLE cannot be read)."""
    schema = Schema(source)
    try:
        schema.add_sql(text)
    except (SchemaError, StopIteration, IndexError, ValueError) as exc:
        raise SchemaError(f"{source}: cannot read the CREATE TABLE statements: {exc}") from None
    return schema
