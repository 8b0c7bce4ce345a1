"""Binlog files as transactions of row changes: what `binlogkit sql`, `--format jsonl`
and `binlogkit stats` read.

`iter_transactions(paths, window)` yields one `Transaction` per event group of
both flavors (MariaDB GTID ... XID/COMMIT, a standalone DDL; MySQL GTID or anonymous
GTID ... XID, compressed Transaction_payload events opened), holding its row events
(`Change`: the table map and the lazily decoded rows) and its statements (DDL or
statement-based DML: `Statement`).  Events outside any group make a transaction of
their own.  `Window` filters by position, time and GTID like `binlogkit print`.
"""
from binlogkit._record import record
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.binlog.rowvalues import Rows
from binlogkit.errors import BinlogError, TruncatedEventError

__all__ = ["Change", "Statement", "Transaction", "Window", "iter_transactions", "GtidSet"]

_MYSQL_GTIDS = frozenset({L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT, L.GTID_TAGGED_LOG_EVENT})
_QUERIES = frozenset({L.QUERY_EVENT, L.QUERY_COMPRESSED_EVENT})
_BEGIN = (b"BEGIN", b"XA START", b"START TRANSACTION")
_END = (b"COMMIT", b"XA COMMIT", b"ROLLBACK", b"XA ROLLBACK", b"XA END", b"XA PREPARE")


class Change:
    """One rows event: its table map, kind and rows (decoded when first used)."""
    __slots__ = ("path", "pos", "end_pos", "when", "table_map", "body", "rows", "size",
                 "mariadb", "server_id")

    def __init__(self, path, raw, table_map, body, mariadb=False):
        self.mariadb = mariadb
        self.server_id = raw.server_id
        self.path = path
        self.pos = raw.pos
        self.end_pos = raw.log_pos
        self.when = raw.when
        self.size = raw.event_size
        self.table_map = table_map
        self.body = body
        self.rows = Rows(table_map, body, path, raw.pos)

    @property
    def kind(self):
        return self.body.kind


@record
class Statement:
    path: str
    pos: int
    db: str
    query: bytes


@record
class Transaction:
    path: str
    start_pos: int
    end_pos: int = 0
    gtid: str = None
    when: int = 0               # the first event's timestamp (s)
    commit_when: int = 0        # the last event's timestamp (s)
    commit_us: int = 0          # MySQL's immediate commit timestamp (µs), 0 if none
    mariadb: bool = False
    changes: list = None
    statements: list = None
    size: int = 0               # bytes of its events
    closed: bool = False


class GtidSet:
    """--include-gtids / --exclude-gtids: MySQL 'uuid[:tag]:1-5:7,uuid2:3' or MariaDB
    'domain-server-seq' items (a MariaDB item 'd-s-n1-n2' is a range of seq_no)."""

    def __init__(self, text):
        self.mysql = {}         # "uuid" or "uuid:tag" -> [(lo, hi)]
        self.mariadb = {}       # (domain, server) -> [(lo, hi)]
        for item in (p.strip() for p in text.replace("\n", ",").split(",")):
            if not item:
                continue
            if ":" in item:
                parts = item.split(":")
                uuid = parts[0].lower()
                tag = None
                ranges = []
                for part in parts[1:]:
                    if part and not part[0].isdigit():
                        tag = part.lower()
                        continue
                    lo, _, hi = part.partition("-")
                    ranges.append((int(lo), int(hi or lo)))
                key = uuid if tag is None else f"{uuid}:{tag}"
                self.mysql.setdefault(key, []).extend(ranges)
            else:
                nums = [int(x) for x in item.split("-")]
                if len(nums) not in (3, 4):
                    raise ValueError(f"not a GTID: {item}")
                hi = nums[3] if len(nums) == 4 else nums[2]
                self.mariadb.setdefault((nums[0], nums[1]), []).append((nums[2], hi))

    def __contains__(self, gtid):
        if gtid is None:
            return False
        if ":" in gtid:
            key, _, gno = gtid.rpartition(":")
            ranges = self.mysql.get(key.lower(), ())
        else:
            d, s, gno = gtid.split("-")
            ranges = self.mariadb.get((int(d), int(s)), ())
        gno = int(gno)
        return any(lo <= gno <= hi for lo, hi in ranges)


@record
class Window:
    start_position: int = None      # in the first file
    stop_position: int = None       # in the last file
    start_time: float = None        # epoch seconds, inclusive
    stop_time: float = None         # exclusive
    include_gtids: GtidSet = None
    exclude_gtids: GtidSet = None

    def admits(self, txn, first, last):
        if first and self.start_position is not None and txn.start_pos < self.start_position:
            return False
        if last and self.stop_position is not None and txn.start_pos >= self.stop_position:
            return False
        if self.start_time is not None and txn.when < self.start_time:
            return False
        if self.stop_time is not None and txn.when >= self.stop_time:
            return False
        if self.include_gtids is not None and txn.gtid not in self.include_gtids:
            return False
        if self.exclude_gtids is not None and txn.gtid in self.exclude_gtids:
            return False
        return True

    def past_stop(self, pos, last):
        return last and self.stop_position is not None and pos >= self.stop_position


def _mariadb_gtid(raw, body):
    return f"{body.domain_id}-{raw.server_id}-{body.seq_no}"


class _FileWalk:
    """The state of one file's walk: table maps and the open transaction."""

    def __init__(self, reader, path):
        self.reader = reader
        self.path = path
        self.table_maps = {}
        self.txn = None
        self.standalone = False
        self.mariadb = reader.fde.is_mariadb if reader.fde is not None else False

    def open(self, raw, gtid=None):
        self.txn = Transaction(self.path, raw.pos, gtid=gtid, when=raw.when,
                               mariadb=self.mariadb, changes=[], statements=[])
        return self.txn

    def close(self, raw):
        txn = self.txn
        self.txn = None
        txn.end_pos = raw.log_pos
        txn.commit_when = raw.when
        txn.closed = True
        return txn

    def event(self, raw, outer=True):
        """Feed one event (`outer`: in the file, not inside a payload event); returns a
        finished Transaction or None."""
        code = raw.type_code
        txn = self.txn
        size = raw.event_size if outer else 0
        if txn is not None:
            txn.size += size
        if code == L.TABLE_MAP_EVENT:
            body = self.decode(raw)
            self.table_maps[body.table_id] = body
            if txn is None:
                txn = self.open(raw)
                txn.size = size
            return None
        if code in L.ROWS_EVENT_TYPES or code == L.PARTIAL_UPDATE_ROWS_EVENT:
            body = self.decode(raw)
            table_map = self.table_maps.get(body.table_id)
            if table_map is None:
                raise BinlogError(f"rows event for table id {body.table_id} without its "
                                  "Table_map", self.path, raw.pos, code)
            if txn is None:
                txn = self.open(raw)
            txn.changes.append(Change(self.path, raw, table_map, body, self.mariadb))
            return None
        if code == L.GTID_EVENT:
            body = self.decode(raw)
            self.mariadb = True
            done = self.close(raw) if txn is not None else None
            new = self.open(raw, _mariadb_gtid(raw, body))
            new.size = size
            self.standalone = bool(body.flags2 & L.FL_STANDALONE)
            return done
        if code in _MYSQL_GTIDS:
            body = self.decode(raw)
            done = self.close(raw) if txn is not None else None
            new = self.open(raw, None if body.is_anonymous else body.gtid)
            new.size = size
            new.commit_us = body.immediate_commit_timestamp
            self.standalone = False
            return done
        if code in _QUERIES:
            body = self.decode(raw)
            query = bytes(body.query).strip()
            word = query[:20].upper()
            if word.startswith(_BEGIN):
                if txn is None:
                    self.open(raw)
                return None
            if word.startswith(_END):
                return self.close(raw) if txn is not None else None
            if txn is None:
                txn = self.open(raw)
                txn.size = size
            db = bytes(body.db).decode("utf-8", "surrogateescape")
            txn.statements.append(Statement(self.path, raw.pos, db, query))
            if self.standalone or not txn.changes:
                # DDL (MariaDB: a standalone GTID group; MySQL: the GTID then the statement)
                if self.standalone or word.startswith((b"CREATE", b"ALTER", b"DROP", b"RENAME",
                                                       b"TRUNCATE", b"GRANT", b"REVOKE")):
                    self.standalone = False
                    return self.close(raw)
            return None
        if code == L.XID_EVENT or code == L.XA_PREPARE_LOG_EVENT:
            return self.close(raw) if txn is not None else None
        return None

    def decode(self, raw):
        try:
            return decode_event(raw, self.reader.fde, path=self.reader.display_name)
        except BinlogError as exc:
            if exc.path is None:
                exc.path = self.reader.display_name
            raise


def _file_transactions(path):
    reader = BinlogReader(path)
    with reader:
        reader.read_magic()
        walk = _FileWalk(reader, reader.display_name)
        try:
            for raw in reader.events():
                if raw.type_code == L.TRANSACTION_PAYLOAD_EVENT:
                    body = walk.decode(raw)
                    for n, inner in enumerate(body.events):
                        done = walk.event(inner, outer=False)
                        if n == 0 and walk.txn is not None:
                            walk.txn.size += raw.event_size
                        if done is not None:
                            done.end_pos = raw.log_pos
                            yield done
                    continue
                if raw.type_code == L.FORMAT_DESCRIPTION_EVENT:
                    walk.mariadb = reader.fde.is_mariadb
                done = walk.event(raw)
                if done is not None:
                    yield done
        except TruncatedEventError:
            if not reader.in_use:       # a log still written may end mid-event
                raise
        if walk.txn is not None and (walk.txn.changes or walk.txn.statements):
            yield walk.txn             # not closed: the log ends inside it


def iter_transactions(paths, window=None):
    """Transactions of `paths` in order, those `window` admits."""
    paths = list(paths)
    for n, path in enumerate(paths):
        first, last = n == 0, n == len(paths) - 1
        for txn in _file_transactions(path):
            if window is not None:
                if window.past_stop(txn.start_pos, last):
                    break
                if not window.admits(txn, first, last):
                    continue
            yield txn
