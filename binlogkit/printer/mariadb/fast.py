"""The MariaDB driver's side of the C statement printer (speedups.print_row_statements).

Row statements alone: `driver.fast_rows_eligible` and `Printer._make_fast_context`.
This module adds the events between them (csrc/mariadb.c): with no GTID,
domain or server filter, C also prints GTID, Xid and Query events whose text
is the steady one -- no session line printed anew -- so that Python touches
an OLTP transaction only for what C leaves (a new thread id, a changed
sql_mode, an XA or two-phase ALTER group, an out-of-order GTID...).

The C printer needs of a Query event what print_query_header prints between
its header line and the query; `steady_query` asks print_query_header on a
copy of the state and answers only when that copy comes out unchanged, so
the text is the same for every event with the same key under the same state
(`Steady.queries`, one dict per state fingerprint).
"""
import operator

from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event, mariadb_status_view
from binlogkit.errors import BinlogError
from binlogkit.printer.mariadb import events as P
from binlogkit.printer.text import user_var_context

FLAVOR_MARIADB = 0
# csrc/speedups.h (tests/test_speedups_enums.py): where context_tail's entries start, and
# the whole ctx's length
CTX_SIZE = 15
CTX_SIZE_MYSQL = 28
# what print_query_header reads and writes of the state (db_buf apart)
_QUERY_STATE = ("delimiter", "db", "flags2_inited", "flags2", "sql_mode_inited", "sql_mode",
                "auto_increment_increment", "auto_increment_offset", "charset_inited", "charset",
                "time_zone", "lc_time_names_number", "charset_database_number", "thread_id",
                "thread_id_printed", "skip_replication")
_state_of = operator.attrgetter(*_QUERY_STATE)


def fingerprint(st):
    return _state_of(st) + (bytes(st.db_buf),)


class _Shadow:
    """What print_query_header needs of a printer, over a copy of its state."""

    def __init__(self, p, state):
        self.state, self.options, self.time_text, self._times = state, p.options, p.time_text, p._times
        self.options_written_mask, self.header_len, self.hexdump_from = p.options_written_mask, p.header_len, 0


def steady_query(p, raw, body):
    """The C printer's entry for a Query event (handle_query + print_query) whose
    print_query_header text leaves the state as it is: (from '\\terror_code' on, what
    follows the timestamp's seconds, the lines between the timestamp and the query),
    else None.  No XA group here (csrc/mariadb.c leaves those)."""
    body = mariadb_status_view(body)
    if body.gtid_flags3 and body.gtid_flags3 & P.TWO_PHASE_ALTER:
        return None
    st = p.state
    shadow = object.__new__(type(st))       # copy.copy of the state (a record with a __dict__)
    shadow.__dict__.update(st.__dict__)
    shadow.db_buf = bytearray(st.db_buf)
    shadow.gtid_ev_flags2 = 0
    if P.is_trans_keyword(body.query):
        raw.flags |= L.LOG_EVENT_SUPPRESS_USE_F
    out = []
    P.print_query_header(_Shadow(p, shadow), raw, body, out)
    if fingerprint(shadow) != fingerprint(st) or len(out) < 3:
        return None
    d = st.delimiter
    frac = b".%06d" % body.when_sec_part if body.when_sec_part and body.when_sec_part <= 999999 else b""
    line, cut = out[1], out[1].find(b"\terror_code=")
    if (cut < 0 or not line.startswith(b"\tQuery\tthread_id=%d\texec_time=%d\t" % (body.thread_id, body.exec_time))
            or out[2] != b"SET TIMESTAMP=%d%s%s\n" % (raw.when, frac, d)):
        return None
    return line[cut:], frac, b"".join(out[3:])


class Steady:
    """The transaction part of the MariaDB printer's C context: the state list C
    reads and updates (CTX_TRX_STATE) and the Query entries per state."""

    def __init__(self, printer):
        self.p = printer
        self.trx = [False, False, 0, -1, 0, 0, -1, -1, -1]
        self._queries = {}          # fingerprint -> {key: entry}
        self.state_key = None

    def on(self, fde):
        """Whether C may print GTID, Xid, Intvar and Query events (and --flashback): no
        event filter at all, a v4 log (binlog v1/v3 events are printed by legacy.py)."""
        gtids = self.p.gtids
        return (gtids.event_filter is None and self.p._server_filter is None
                and fde.binlog_version >= 4)

    def load(self):
        """The printer's state into the list C reads."""
        st = self.p.state
        self.trx[:] = (False, False, 0, st.thread_id if st.thread_id_printed else -1,
                       st.gtid_ev_flags2, st.skip_replication,
                       int(st.allow_parallel) if st.allow_parallel_printed else -1,
                       st.domain_id if st.domain_id_printed else -1,
                       st.server_id if st.server_id_printed else -1)

    def store(self):
        """What C changed back into the printer's state."""
        self.p.state.gtid_ev_flags2 = self.trx[4]

    def queries(self, key):
        """The Query entries of the state `key` (a fingerprint)."""
        if len(self._queries) > 64:
            self._queries.clear()
        queries = self._queries.setdefault(key, {})
        if len(queries) > 4096:
            queries.clear()
        return queries

    def context_tail(self, fde, has_crc, key):
        """The MariaDB entries of the ctx after CTX_SIZE (csrc/speedups.h)."""
        from binlogkit._accel import speedups
        p = self.p
        on = self.on(fde)
        queries = self.queries(key) if on else {}

        def query_miss(data, pos, qkey):
            raw = speedups.frame(data, 0, pos, has_crc)
            if raw is None or raw.type_code != L.QUERY_EVENT:
                return None
            try:
                body = decode_event(raw, fde)
            except (BinlogError, ValueError):
                return None
            entry = queries[qkey] = steady_query(p, raw, body)
            return entry

        flashback = None
        if p.flashback is not None and on:
            flashback = (p.flashback.held, flashback_steps)
        return (FLAVOR_MARIADB, False, self.trx if on else None, False, queries, query_miss,
                {}, None, None, p.gtids, bool(p.options.gtid_strict_mode or p.options.verbose >= 3),
                flashback, user_var_context(P.COLLATIONS))


def flashback_steps(table_map, cols, width):
    """The image steps C reverses a rows event's rows with (csrc/mariadb.c): those of
    rows.image_plan, when they walk what flashback.image_length walks (every column of
    the table in the event, every one printable), else None (Python's then)."""
    key = ("flashback-c", cols, width)
    plans = table_map.plans
    if key not in plans:
        from binlogkit.binlog.rows import image_plan
        from binlogkit.printer.mariadb.flashback import image_steps
        steps = None
        if width == table_map.column_count == len(table_map.column_types):
            _, columns = image_steps(table_map, cols, width)
            if all(printable for _, _, printable in columns):
                steps = image_plan(table_map, cols).steps
        plans[key] = steps
    return plans[key]
