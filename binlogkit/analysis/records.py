"""Per-file binlog walks that produce plain row tuples (no pandas here).

`event_rows(path)` yields one tuple per event (fields in `EVENT_FIELDS`),
`transaction_rows(path)` one per transaction (`TRANSACTION_FIELDS`).  Both
stream: memory does not grow with the file.  `binlogkit.analysis.frames`
turns chunks of these tuples into typed DataFrames; the export workers and
the Dask example run the same per-file functions.

Times are integers: microseconds since the Unix epoch (UTC).  Bodies are
decoded only where a column needs them (Query, Table_map, rows, GTID, Xid).
"""
from __future__ import annotations

import os
from itertools import islice

from binlogkit.binlog import layout as L
from binlogkit.binlog import rows as R
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.errors import BinlogError, BinlogkitError, TruncatedEventError

__all__ = ["EVENT_FIELDS", "TRANSACTION_FIELDS", "event_rows", "transaction_rows",
           "chunked", "MYSQL_GTID_EVENTS"]

EVENT_FIELDS = (
    "pos", "end_pos", "timestamp", "type_code", "server_id", "bytes", "db", "table",
    "rows", "gtid", "xid", "exec_time", "thread_id", "error_code",
    "original_commit_timestamp", "immediate_commit_timestamp", "transaction_length",
    "query",
)
TRANSACTION_FIELDS = (
    "start_pos", "end_pos", "start", "commit", "kind", "gtid", "domain_id", "server_id",
    "seq_no", "events", "rows", "bytes", "tables", "xid", "thread_id", "exec_time",
    "original_commit_timestamp", "immediate_commit_timestamp", "transaction_length",
)

MYSQL_GTID_EVENTS = frozenset({L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT,
                               L.GTID_TAGGED_LOG_EVENT})
QUERY_EVENTS = frozenset({L.QUERY_EVENT, L.QUERY_COMPRESSED_EVENT, L.EXECUTE_LOAD_QUERY_EVENT})

# Where an event stands in its transaction (the `mark` of an event row)
INSIDE, BEGINS, ENDS = 0, 1, 2

_BEGIN_WORDS = (b"BEGIN", b"XA START", b"START TRANSACTION")
_COMMIT_WORDS = (b"COMMIT", b"XA COMMIT")
_ROLLBACK_WORDS = (b"ROLLBACK", b"XA ROLLBACK")


def chunked(iterable, size):
    """Lists of at most `size` items from `iterable`.  On a BinlogkitError the
    items read before it are yielded first, then the error is raised."""
    it = iter(iterable)
    while True:
        chunk = []
        try:
            chunk.extend(islice(it, size))
        except BinlogkitError:
            if chunk:
                yield chunk
            raise
        if not chunk:
            return
        yield chunk


def _text(raw_bytes):
    return raw_bytes.decode("utf-8", "replace")


def _statement_word(query):
    """The query's leading keywords, upper-cased (b'BEGIN', b'XA COMMIT' ...)."""
    return bytes(query[:24]).lstrip().upper()


class _Walk:
    """State carried from event to event within one file."""

    __slots__ = ("reader", "table_maps", "map_cache", "gtid", "open", "standalone",
                 "with_query")

    def __init__(self, reader, with_query):
        self.reader = reader
        self.with_query = with_query
        self.table_maps = {}      # table_id -> (TableMapBody, db text, table text)
        self.map_cache = {}       # table map body bytes -> the same
        self.gtid = None          # text of the open transaction's GTID
        self.open = False         # inside a transaction
        # False, or how the open group ends: "ddl"/"statement" after its one
        # statement, PENDING when the next Query decides (MySQL GTID events)
        self.standalone = False


PENDING = "pending"


def _detail(db=None, table=None, rows=None, gtid=None, xid=None, exec_time=None,
            thread_id=None, error_code=None, oct_us=None, ict_us=None, trx_len=None,
            query=None, usec=0, mark=INSIDE, extra=None):
    return (db, table, rows, gtid, xid, exec_time, thread_id, error_code, oct_us,
            ict_us, trx_len, query, usec, mark, extra)


DETAILS = {}        # type code -> fn(raw, body, walk) -> _detail(...)
NEEDS_BODY = set()  # type codes whose body is decoded before calling DETAILS


def detail_for(*type_codes, body=True):
    def wrap(fn):
        for code in type_codes:
            DETAILS[code] = fn
            if body:
                NEEDS_BODY.add(code)
        return fn
    return wrap


def _query_mark(word, walk):
    """(mark, kind) of a Query event, updating the walk's transaction state."""
    if not walk.open:
        if word.startswith(_BEGIN_WORDS):
            walk.open, walk.standalone = True, False
            return BEGINS, None
        return BEGINS | ENDS, "statement"
    if walk.standalone == PENDING:
        if word.startswith(_BEGIN_WORDS):
            walk.standalone = False
            return INSIDE, None
        return ENDS, "ddl"
    if walk.standalone:
        return ENDS, walk.standalone
    if word.startswith(_COMMIT_WORDS):
        return ENDS, "commit"
    if word.startswith(_ROLLBACK_WORDS) and b"TO" not in word.split()[1:3]:
        return ENDS, "rollback"     # ROLLBACK [WORK] TO SAVEPOINT stays inside
    return INSIDE, None


def _close(walk):
    """The open transaction's GTID; the walk is left outside any transaction."""
    gtid = walk.gtid
    walk.gtid, walk.open, walk.standalone = None, False, False
    return gtid


@detail_for(*QUERY_EVENTS)
def _query_detail(raw, body, walk):
    mark, kind = _query_mark(_statement_word(body.query), walk)
    gtid = _close(walk) if mark & ENDS else walk.gtid
    return _detail(db=_text(body.db) or None, gtid=gtid, xid=body.xid or None,
                   exec_time=body.exec_time, thread_id=body.thread_id,
                   error_code=body.error_code,
                   query=_text(body.query) if walk.with_query else None,
                   usec=body.when_sec_part, mark=mark, extra=kind)


@detail_for(L.GTID_EVENT)
def _mariadb_gtid_detail(raw, body, walk):
    gtid = f"{body.domain_id}-{raw.server_id}-{body.seq_no}"
    walk.gtid, walk.open, walk.standalone = gtid, True, False
    if body.flags2 & L.FL_STANDALONE:
        walk.standalone = "ddl" if body.flags2 & L.FL_DDL else "statement"
    return _detail(gtid=gtid, thread_id=body.thread_id or None, mark=BEGINS,
                   extra=(body.domain_id, body.seq_no))


def _us(value):
    """A MySQL 8 commit timestamp (microseconds) or None when absent/zero."""
    return int(value) if value else None


def _sid_text(sid):
    if isinstance(sid, (bytes, bytearray)) and len(sid) == 16:
        h = sid.hex()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
    return sid.decode("ascii", "replace") if isinstance(sid, (bytes, bytearray)) else sid


@detail_for(*MYSQL_GTID_EVENTS)
def _mysql_gtid_detail(raw, body, walk):
    """MySQL 5.7/8 GTID events; columns are filled when the decoder provides them."""
    sid = _sid_text(getattr(body, "sid", None) or getattr(body, "uuid", None))
    gno = getattr(body, "gno", None)
    tag = getattr(body, "tag", None)
    if tag:
        sid = f"{sid}:{_sid_text(tag)}"
    anonymous = raw.type_code == L.ANONYMOUS_GTID_LOG_EVENT
    gtid = f"{sid}:{gno}" if sid and gno and not anonymous else None
    walk.gtid, walk.open, walk.standalone = gtid, True, PENDING
    return _detail(gtid=gtid, oct_us=_us(getattr(body, "original_commit_timestamp", None)),
                   ict_us=_us(getattr(body, "immediate_commit_timestamp", None)),
                   trx_len=getattr(body, "transaction_length", None) or None,
                   mark=BEGINS, extra=(None, gno))


@detail_for(L.XID_EVENT)
def _xid_detail(raw, body, walk):
    return _detail(gtid=_close(walk), xid=body.xid, mark=ENDS, extra="commit")


@detail_for(L.XA_PREPARE_LOG_EVENT)
def _xa_prepare_detail(raw, body, walk):
    return _detail(gtid=_close(walk), mark=ENDS, extra="xa_prepare")


@detail_for(L.TRANSACTION_PAYLOAD_EVENT, body=False)
def _payload_detail(raw, body, walk):
    """MySQL 8 compressed transaction: the payload carries the body up to the commit."""
    return _detail(gtid=_close(walk), mark=ENDS, extra="commit")


@detail_for(L.TABLE_MAP_EVENT, body=False)
def _table_map_detail(raw, body, walk):
    """Table maps repeat byte for byte in every transaction: decode each once."""
    key = bytes(raw.payload[L.LOG_EVENT_HEADER_LEN:])
    entry = walk.map_cache.get(key)
    if entry is None:
        body = _decode(raw, walk)
        if len(walk.map_cache) > 4096:
            walk.map_cache.clear()
        entry = walk.map_cache[key] = (body, _text(body.db), _text(body.table))
    walk.table_maps[entry[0].table_id] = entry
    return _detail(db=entry[1], table=entry[2], gtid=walk.gtid)


@detail_for(*L.ROWS_EVENT_TYPES, L.PARTIAL_UPDATE_ROWS_EVENT)
def _rows_detail(raw, body, walk):
    entry = walk.table_maps.get(body.table_id)
    if entry is None:
        return _detail(gtid=walk.gtid)
    return _detail(db=entry[1], table=entry[2], gtid=walk.gtid,
                   rows=R.count_rows(entry[0], body))


@detail_for(L.ANNOTATE_ROWS_EVENT, L.ROWS_QUERY_LOG_EVENT, body=False)
def _annotate_detail(raw, body, walk):
    """Annotate_rows / Rows_query: the statement text, decoded only when asked for."""
    query = None
    if walk.with_query:
        query = _text(getattr(_decode(raw, walk), "query", b""))
    return _detail(gtid=walk.gtid, query=query)


def _in_group_detail(raw, body, walk):
    return _detail(gtid=walk.gtid)


def _decode(raw, walk):
    try:
        return decode_event(raw, walk.reader.fde)
    except BinlogError as exc:
        if exc.path is None:
            exc.path = walk.reader.display_name
        raise


def _walk_file(path, with_query):
    """(RawEvent, detail) for each event of one file; bodies decoded on demand."""
    reader = BinlogReader(path, exact_v1=True)
    walk = _Walk(reader, with_query)
    details, needs_body = DETAILS, NEEDS_BODY
    with reader:
        reader.read_magic()
        reader.check_start_v3()     # a 3.23-4.1 log (v1/v3) starts with Start_v3
        try:
            for raw in reader.events():
                fn = details.get(raw.type_code, _in_group_detail)
                body = _decode(raw, walk) if raw.type_code in needs_body else None
                yield raw, fn(raw, body, walk)
        except TruncatedEventError:
            if not reader.in_use:     # a log still being written may end mid-event
                raise


def event_rows(path, *, query=False, progress=None):
    """One tuple per event of binlog `path`: EVENT_FIELDS, then the event's place
    in its transaction (INSIDE/BEGINS/ENDS bits) and what ends or starts it (the
    kind for an end, (domain_id, seq_no) for a GTID event).

    Times are epoch microseconds.  `progress(nbytes)` is called now and then
    with the bytes read since the last call.
    """
    done = 0
    for raw, d in _walk_file(path, query):
        end = raw.pos + raw.event_size
        if progress is not None and end - done >= 1 << 22:
            progress(end - done)
            done = end
        yield (raw.pos, end, raw.when * 1_000_000 + d[12], raw.type_code, raw.server_id,
               raw.event_size, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9],
               d[10], d[11], d[13], d[14])
    if progress is not None:
        progress(_file_size(path) - done)


def _file_size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


class _Trx:
    __slots__ = ("start_pos", "end_pos", "start", "commit", "kind", "gtid", "domain_id",
                 "server_id", "seq_no", "events", "rows", "bytes", "tables", "xid",
                 "thread_id", "exec_time", "oct", "ict", "trx_len")

    def __init__(self, row):
        self.start_pos, self.start, self.server_id = row[0], row[2], row[4]
        self.gtid, self.kind, self.domain_id, self.seq_no = row[9], "incomplete", None, None
        self.events = self.bytes = 0
        self.rows = self.xid = self.thread_id = self.exec_time = None
        self.oct, self.ict, self.trx_len = row[14], row[15], row[16]
        self.tables = {}
        self.end_pos = self.commit = None
        if isinstance(row[19], tuple):
            self.domain_id, self.seq_no = row[19]

    def add(self, row):
        self.events += 1
        self.bytes += row[5]
        self.end_pos, self.commit = row[1], row[2]
        if row[8] is not None:
            self.rows = (self.rows or 0) + row[8]
        if row[7] is not None:
            self.tables[f"{row[6]}.{row[7]}"] = None
        if row[12] is not None and self.thread_id is None:
            self.thread_id = row[12]
        if row[11] is not None:
            self.exec_time = max(self.exec_time or 0, row[11])
        if row[10] is not None:
            self.xid = row[10]

    def row(self):
        return (self.start_pos, self.end_pos, self.start, self.commit, self.kind, self.gtid,
                self.domain_id, self.server_id, self.seq_no, self.events, self.rows,
                self.bytes, ",".join(self.tables) or None, self.xid, self.thread_id,
                self.exec_time, self.oct, self.ict, self.trx_len)


def transaction_rows(path, *, progress=None):
    """One tuple per transaction of binlog `path` (TRANSACTION_FIELDS order).

    A transaction starts at a GTID event (or a BEGIN, or a lone statement in
    logs without GTIDs) and ends at its Xid, COMMIT/ROLLBACK, XA prepare, or
    its single statement for DDL.  One still open at the end of the file (or
    cut by the next GTID) is reported with kind ``incomplete``.
    """
    trx = None
    for row in event_rows(path, progress=progress):
        mark = row[18]
        if mark & BEGINS:
            if trx is not None:
                yield trx.row()
            trx = _Trx(row)
        if trx is None:
            continue
        trx.add(row)
        if mark & ENDS:
            trx.kind = row[19]
            yield trx.row()
            trx = None
    if trx is not None:
        yield trx.row()
