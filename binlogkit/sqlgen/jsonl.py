"""Row changes as JSON lines in the shape of Debezium's MySQL connector change events.

One object per row::

    {"before": {...} | null, "after": {...} | null, "op": "c" | "u" | "d",
     "ts_ms": commit time (ms),
     "source": {"version", "connector": "mysql" | "mariadb", "name": "binlogkit",
                "ts_ms", "snapshot": "false", "db", "table", "server_id", "gtid",
                "file", "pos", "row", "thread": null, "query": null},
     "transaction": {"id", "total_order", "data_collection_order"}}

Values as Debezium writes them by default (decimal.handling.mode=string,
binary.handling.mode=base64, time.precision.mode=adaptive_time_microseconds):
integers as numbers (UNSIGNED read unsigned), DECIMAL as its exact text, FLOAT/DOUBLE
numbers, BIT(1) a boolean and longer BITs base64 of the little-endian bytes, DATE
days since 1970-01-01, DATETIME milliseconds (fsp 0-3) or microseconds (fsp 4-6)
since the epoch, TIMESTAMP ISO-8601 UTC text, TIME microseconds, YEAR a number,
zero dates null, text decoded by the column's character set (bytes that set cannot
decode are replaced, U+FFFD), binary strings base64, ENUM / SET their member text
when the log or --schema gives the members (else the number), JSON its text,
GEOMETRY {"wkb": base64, "srid": n}, VECTOR a list of floats.  A column absent from
a MINIMAL image is absent from the object.  Strict JSON: no NaN.
"""
import base64
import json
import struct

from binlogkit.binlog import coltypes as C
from binlogkit.binlog.json_binary import PartialJson, parse_json
from binlogkit.binlog.rowimage import ABSENT, Bits, Date, DateTime, Time, Timestamp, resolve_type
from binlogkit.sqlgen import schema as S
from binlogkit.sqlgen.tables import Describer, change_filter, track_ddl
from binlogkit.sqlgen.walk import iter_transactions

__all__ = ["run_jsonl", "row_values"]

_OPS = {"write": "c", "update": "u", "delete": "d"}
_CODECS = {"utf8mb4": "utf-8", "utf8mb3": "utf-8", "utf8": "utf-8", "latin1": "cp1252",
           "ascii": "ascii", "ucs2": "utf-16-be", "utf16": "utf-16-be", "utf16le": "utf-16-le",
           "utf32": "utf-32-be", "sjis": "shift_jis", "cp932": "cp932", "ujis": "euc_jp",
           "eucjpms": "euc_jp", "gbk": "gbk", "gb2312": "gb2312", "gb18030": "gb18030",
           "big5": "big5", "euckr": "euc_kr", "latin2": "iso8859_2", "latin5": "iso8859_9",
           "latin7": "iso8859_13", "greek": "iso8859_7", "hebrew": "iso8859_8",
           "koi8r": "koi8_r", "koi8u": "koi8_u", "cp1250": "cp1250", "cp1251": "cp1251",
           "cp1256": "cp1256", "cp1257": "cp1257", "cp850": "cp850", "cp852": "cp852",
           "cp866": "cp866", "tis620": "tis_620", "macroman": "mac_roman", "macce": "mac_latin2"}
_INT_BYTES = {C.MYSQL_TYPE_TINY: 1, C.MYSQL_TYPE_SHORT: 2, C.MYSQL_TYPE_INT24: 3,
              C.MYSQL_TYPE_LONG: 4, C.MYSQL_TYPE_LONGLONG: 8}


def _b64(data):
    return base64.b64encode(data).decode("ascii")


def _epoch_days(y, m, d):
    import datetime as _dt
    try:
        return (_dt.date(y, m, d) - _dt.date(1970, 1, 1)).days
    except ValueError:
        return None


def _json_default(value):
    from decimal import Decimal
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def _json_doc(value):
    return json.dumps(parse_json(value), ensure_ascii=False, default=_json_default,
                      allow_nan=False)


def value_json(value, col_type, meta, column):
    """One column value as Debezium writes it."""
    if value is None:
        return None
    real, _length = resolve_type(col_type, meta)
    size = _INT_BYTES.get(real)
    if size is not None:
        return value + (1 << 8 * size) if column.unsigned and value < 0 else value
    if isinstance(value, Bits):
        if value.width == 1:
            return bool(value.value)
        return _b64(value.value.to_bytes((value.width + 7) // 8, "little"))
    if real == C.MYSQL_TYPE_NEWDECIMAL:
        return format(value, "f")
    if isinstance(value, float):
        return value
    if isinstance(value, Date):
        return _epoch_days(*value)
    if isinstance(value, DateTime):
        days = _epoch_days(value.year, value.month, value.day)
        if days is None:
            return None
        us = ((days * 86400 + value.hour * 3600 + value.minute * 60 + value.second) * 10**6
              + value.microsecond)
        return us if value.fsp > 3 else us // 1000
    if isinstance(value, Timestamp):
        if not value.seconds and not value.microsecond:
            return None
        import datetime as _dt
        when = _dt.datetime.fromtimestamp(value.seconds, _dt.timezone.utc)
        text = when.strftime("%Y-%m-%dT%H:%M:%S")
        if value.fsp:
            text += "." + ("%06d" % value.microsecond)[:value.fsp]
        return text + "Z"
    if isinstance(value, Time):
        us = ((value.hours * 3600 + value.minute * 60 + value.second) * 10**6
              + value.microsecond)
        return -us if value.negative else us
    if real == C.MYSQL_TYPE_YEAR:
        return value
    if real == C.MYSQL_TYPE_ENUM:
        members = column.enum_values
        if members is not None:
            if 0 < value <= len(members):
                return members[value - 1].decode("utf-8", "replace")
            return ""
        return value
    if real == C.MYSQL_TYPE_SET:
        members = column.set_values
        if members is not None:
            return ",".join(m.decode("utf-8", "replace") for i, m in enumerate(members)
                            if value >> i & 1)
        return value
    if real == C.MYSQL_TYPE_JSON:
        if isinstance(value, PartialJson):
            return {"partial": [{"op": d.function_name, "path": d.path.decode("utf-8", "replace"),
                                 "value": None if d.value_bytes == b"" else json.loads(
                                     _json_doc(d.value_bytes))} for d in value.diffs]}
        return _json_doc(value)
    if real == C.MYSQL_TYPE_GEOMETRY:
        return {"wkb": _b64(value[4:]), "srid": int.from_bytes(value[:4], "little")}
    if real == C.MYSQL_TYPE_VECTOR:
        return [x for (x,) in struct.iter_unpack("<f", value[:len(value) // 4 * 4])]
    if isinstance(value, bytes):
        if real == C.MYSQL_TYPE_STRING and column.charset == "binary" and len(value) < _length:
            value += b"\0" * (_length - len(value))       # BINARY(n) as stored
        codec = _CODECS.get(column.charset) if column.charset not in (None, "binary") else None
        if codec is None:
            return _b64(value)
        return value.decode(codec, "replace")
    return str(value)


def row_values(desc, tm, image):
    """{column name: value} of one image (absent columns left out), or None."""
    if image is None:
        return None
    types, metas = tm.column_types, tm.column_meta
    return {col.name: value_json(v, types[i], metas[i], col)
            for i, (col, v) in enumerate(zip(desc.columns, image)) if v is not ABSENT}


def _version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("binlogkit")
    except PackageNotFoundError:
        return "unknown"


def run_jsonl(job):
    describe = Describer(job)
    kept = change_filter(job, describe)
    out = job.out
    count = 0
    dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False,
                             separators=(",", ":")).encode
    version = _version()
    for txn in iter_transactions(job.paths, job.window):
        track_ddl(job, txn, describe)
        txn_id = txn.gtid or f"{txn.path}:{txn.start_pos}"
        commit_ms = txn.commit_us // 1000 if txn.commit_us else txn.commit_when * 1000
        order = 0
        per_table = {}
        for change, desc, rows in kept(txn):
            db, table = S.table_name(change.table_map)
            tm = change.table_map
            source = {"version": version, "connector": "mariadb" if change.mariadb else "mysql",
                      "name": "binlogkit", "ts_ms": change.when * 1000, "snapshot": "false",
                      "db": db, "table": table, "server_id": change.server_id, "gtid": txn.gtid,
                      "file": change.path, "pos": change.pos, "row": 0, "thread": None,
                      "query": None}
            for n, (before, after) in enumerate(rows):
                order += 1
                per_table[(db, table)] = per_table.get((db, table), 0) + 1
                source = dict(source, row=n)
                event = {"before": row_values(desc, tm, before),
                         "after": row_values(desc, tm, after),
                         "source": source, "op": _OPS[change.kind], "ts_ms": commit_ms,
                         "transaction": {"id": txn_id, "total_order": order,
                                         "data_collection_order": per_table[(db, table)]}}
                out.write(dumps(event) + "\n")
                count += 1
    return count
