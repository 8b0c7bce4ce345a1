"""Rows events of binlog files, with their table maps, as Python values.

    from binlogkit.binlog.rowevents import iter_rows_events

    for ev in iter_rows_events("mariadb-bin.000002"):
        for before, after in ev.rows:          # decoded here, on first use
            ...

Only the framing and the event headers are decoded while walking the file;
the row values of an event are decoded when `ev.rows` is first used (see
`rowvalues.Rows`), by code compiled once per table layout.
"""
from binlogkit.binlog import coltypes as C
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.binlog.rowvalues import Rows
from binlogkit.binlog.table_metadata import column_info

__all__ = ["RowsEvent", "iter_rows_events", "unsigned_columns"]

# integer types and the modulus that turns their signed reading into the unsigned one
_INT_MODULUS = {C.MYSQL_TYPE_TINY: 1 << 8, C.MYSQL_TYPE_SHORT: 1 << 16,
                C.MYSQL_TYPE_INT24: 1 << 24, C.MYSQL_TYPE_LONG: 1 << 32,
                C.MYSQL_TYPE_LONGLONG: 1 << 64}


def unsigned_columns(table_map):
    """((column index, modulus), ...) of the integer columns the table map's optional
    metadata says are UNSIGNED (empty without that metadata)."""
    if not table_map.optional_metadata:
        return ()
    try:
        columns = column_info(table_map)
    except (IndexError, ValueError):        # damaged metadata: no signedness
        return ()
    return tuple((c.index, _INT_MODULUS[c.type]) for c in columns
                 if c.unsigned and c.type in _INT_MODULUS)


class UnsignedRows(Rows):
    """Rows whose UNSIGNED integer columns read unsigned (``fixes``: unsigned_columns)."""
    __slots__ = ("fixes",)

    def __init__(self, table_map, body, path, pos, fixes):
        super().__init__(table_map, body, path, pos)
        self.fixes = fixes

    def _all(self):
        if self._rows is None:
            fixes = self.fixes
            self._rows = [(_unsigned(before, fixes), _unsigned(after, fixes))
                          for before, after in Rows._all(self)]
        return self._rows


def _unsigned(values, fixes):
    if values is None:
        return None
    for index, modulus in fixes:
        v = values[index]
        if type(v) is int and v < 0:
            values[index] = v + modulus
    return values


def _name(raw):
    """A name as the server stored it (utf8; bytes it cannot be read from kept as
    surrogates: ``raw_db``/``raw_table`` give the bytes)."""
    return raw.decode("utf-8", "surrogateescape") if raw is not None else None


class RowsEvent:
    """One WRITE/UPDATE/DELETE rows event: where it is, its table map and its rows.

    ``db`` and ``table`` are str (``raw_db``/``raw_table``: the bytes of the log).  Integer
    columns read unsigned where the log says they are UNSIGNED (the table map's optional
    metadata: MySQL 8.0+ ``binlog_row_metadata`` MINIMAL or FULL, MariaDB 10.5+
    ``binlog_row_metadata`` MINIMAL or FULL); without it they read signed, as two's
    complement (BIGINT UNSIGNED 18446744073709551615 is -1; ``v % 2**64`` gives it back;
    ``unsigned_known`` is False then)."""
    __slots__ = ("path", "pos", "log_pos", "type_code", "when", "server_id", "table_map", "body",
                 "rows", "unsigned_known")

    def __init__(self, path, raw, table_map, body, fixes=()):
        self.path = path
        self.pos = raw.pos
        self.log_pos = raw.log_pos      # end_log_pos of the header: where the next event starts
        self.type_code = raw.type_code
        self.when = raw.when
        self.server_id = raw.server_id
        self.table_map = table_map      # None when no TABLE_MAP for the id was seen
        self.body = body
        self.unsigned_known = bool(table_map is not None and table_map.optional_metadata)
        if table_map is None:
            self.rows = None
        elif fixes:
            self.rows = UnsignedRows(table_map, body, path, raw.pos, fixes)
        else:
            self.rows = Rows(table_map, body, path, raw.pos)

    @property
    def kind(self):
        return self.body.kind

    @property
    def db(self):
        return _name(self.raw_db)

    @property
    def table(self):
        return _name(self.raw_table)

    @property
    def raw_db(self):
        return self.table_map.db if self.table_map is not None else None

    @property
    def raw_table(self):
        return self.table_map.table if self.table_map is not None else None

    def __repr__(self):
        return f"<RowsEvent {self.kind} at {self.pos} table_id={self.body.table_id}>"


def iter_rows_events(path, *, start_position=L.BIN_LOG_HEADER_SIZE, verify_checksum=False):
    """Yield a RowsEvent for every rows event of the binlog at `path` ("-": stdin).

    With `start_position` (an event boundary, e.g. from SHOW MASTER STATUS)
    the walk starts there, the format description being read first.
    """
    table_maps = {}
    with BinlogReader(path, start_position=start_position,
                      verify_checksum=verify_checksum) as reader:
        reader.read_magic()
        if start_position > L.BIN_LOG_HEADER_SIZE:
            reader.probe_format()
        for raw in reader.events(start_position):
            type_code = raw.type_code
            if type_code == L.TABLE_MAP_EVENT:
                body = decode_event(raw, reader.fde)
                table_maps[body.table_id] = (body, unsigned_columns(body))
            elif type_code in L.ROWS_EVENT_TYPES:
                body = decode_event(raw, reader.fde)
                table_map, fixes = table_maps.get(body.table_id, (None, ()))
                yield RowsEvent(reader.display_name, raw, table_map, body, fixes)
