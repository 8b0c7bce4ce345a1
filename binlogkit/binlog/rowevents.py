"""Rows events of binlog files, with their table maps, as Python values.

    from binlogkit.binlog.rowevents import iter_rows_events

    for ev in iter_rows_events("mariadb-bin.000002"):
        for before, after in ev.rows:          # decoded here, on first use
            ...

Only the framing and the event headers are decoded while walking the file;
the row values of an event are decoded when `ev.rows` is first used (see
`rowvalues.Rows`), by code compiled once per table layout.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.binlog.reader import BinlogReader
from binlogkit.binlog.rowvalues import Rows

__all__ = ["RowsEvent", "iter_rows_events"]


class RowsEvent:
    """One WRITE/UPDATE/DELETE rows event: where it is, its table map and its rows."""
    __slots__ = ("path", "pos", "log_pos", "type_code", "when", "server_id", "table_map", "body",
                 "rows")

    def __init__(self, path, raw, table_map, body):
        self.path = path
        self.pos = raw.pos
        self.log_pos = raw.log_pos      # end_log_pos of the header: where the next event starts
        self.type_code = raw.type_code
        self.when = raw.when
        self.server_id = raw.server_id
        self.table_map = table_map      # None when no TABLE_MAP for the id was seen
        self.body = body
        self.rows = Rows(table_map, body, path, raw.pos) if table_map is not None else None

    @property
    def kind(self):
        return self.body.kind

    @property
    def db(self):
        return self.table_map.db if self.table_map is not None else None

    @property
    def table(self):
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
                table_maps[body.table_id] = body
            elif type_code in L.ROWS_EVENT_TYPES:
                body = decode_event(raw, reader.fde)
                yield RowsEvent(reader.display_name, raw, table_maps.get(body.table_id), body)
