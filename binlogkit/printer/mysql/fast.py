"""mysqlbinlog 8.0 row statements printed by the C accelerator.

`speedups.print_row_statements` (binlogkit/csrc/rows.c) prints whole row
statements -- Rows_query, Table_map(s), rows events up to the one with
STMT_END_F -- with the MySQL flavor's text when its context says so.  This
module decides when it may (`fast_rows_eligible`, `FastRows.ready`), builds
that context, and gives it the -v/-vv plans (`c_text_plan`) whose texts come
from printer/mysql/verbose.py, the reference: a column the plan does not
cover, or a value whose text the C code is not sure of, leaves the event (and
its statement) to the Python printer, which prints it the usual way.  JSON
columns and the JSON diffs of PARTIAL_UPDATE_ROWS after images (kind 3) are
printed by csrc/json.c, whose reference is printer/mysql/jsontext.py.
"""
import operator

from binlogkit._accel import speedups
from binlogkit.binlog import layout as L
from binlogkit.binlog import rows as R
from binlogkit.binlog.mysql_events import MAX_UNCOMPRESSED, _zstd_decompress
from binlogkit.binlog.rowcompile import (
    c_program, column_spec, json_spec, null_byte_count, present_columns,
)
from binlogkit.printer.driver import C_WINDOW, ReadAhead, statement_runs_past
from binlogkit.printer.mysql import events as E
from binlogkit.printer.mysql import verbose as V
from binlogkit.printer.mysql.decode import IgnorableBody, ReadError, UnknownBody, decode_body
from binlogkit.printer.mysql.events import is_trans_keyword, print_query_header
from binlogkit.printer.mysql.gtid import commit_time_parts
from binlogkit.printer.mysql.rows import prints_gipk, table_map_text
from binlogkit.printer.rowtext import COMMANDS
from binlogkit.printer.safety import comment_safe
from binlogkit.printer.state import BASE64_AUTO, BASE64_DECODE_ROWS
from binlogkit.printer.text import backtick, user_var_context

FLAVOR_MYSQL = 1
FLAVOR_MYSQL97 = 2      # the context's flavor for mysqlbinlog 9.7's text (rows flags by name)
# print_row_statements' ctx: where the transaction state sits, how long it is
# (CTX_TRX_STATE, CTX_SIZE_MYSQL in csrc/speedups.h; tests/test_speedups_enums.py)
CTX_TRX_STATE = 17
CTX_SIZE_MYSQL = 28
# bytes the C printer gets to see past its start, so that statements rarely
# straddle the end of the read buffer
_KINDS = ("write", "update", "delete", "update")   # by the C printer's kind code (3: partial)
KIND_PARTIAL_UPDATE = 3     # PARTIAL_UPDATE_ROWS_EVENT: an update whose after images may hold JSON diffs
# the types whose mysqlbinlog text the C value printer writes (mysql flag of
# csrc/text.c put_value_text; JSON: csrc/json.c); the rest (GEOMETRY, VECTOR,
# old DECIMAL...) is printed by verbose.py
_C_TYPES = frozenset({
    R.MYSQL_TYPE_JSON,
    R.MYSQL_TYPE_TINY, R.MYSQL_TYPE_SHORT, R.MYSQL_TYPE_INT24, R.MYSQL_TYPE_LONG,
    R.MYSQL_TYPE_LONGLONG, R.MYSQL_TYPE_FLOAT, R.MYSQL_TYPE_DOUBLE, R.MYSQL_TYPE_NEWDECIMAL,
    R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING, R.MYSQL_TYPE_STRING, R.MYSQL_TYPE_BLOB,
    R.MYSQL_TYPE_BIT, R.MYSQL_TYPE_SET, R.MYSQL_TYPE_ENUM, R.MYSQL_TYPE_YEAR,
    R.MYSQL_TYPE_NEWDATE, R.MYSQL_TYPE_TIME, R.MYSQL_TYPE_DATETIME, R.MYSQL_TYPE_TIMESTAMP,
    R.MYSQL_TYPE_TIME2, R.MYSQL_TYPE_DATETIME2, R.MYSQL_TYPE_TIMESTAMP2,
})


def fast_rows_eligible(opts):
    """Whether the C printer may print row statements under these options: the
    default output, -v/-vv, decode-rows, --print-table-metadata, positions and
    datetimes.  Any option that changes how Rows_query, Table_map or rows
    events print, or filters them, must keep it off."""
    return (speedups is not None and not opts.short_form and not opts.hexdump
            and opts.base64_output in (BASE64_AUTO, BASE64_DECODE_ROWS)
            and opts.database is None and not opts.server_id and not opts.verify_checksum
            and not opts.rewrite_db and not opts.require_row_format)


# -- -v / -vv plans ----------------------------------------------------------------------

def _column_texts(tm, spec, verbose):
    """The texts around one column's value ('###   @N=', the rest of the line,
    the NULL line), or None when the C value printer would read or print
    it otherwise than verbose.print_value does."""
    i = spec.index
    meta = tm.column_meta[i]
    real = V.real_type(tm.column_types[i], meta)
    if real not in _C_TYPES or real != spec.real:
        return None
    if ((real == R.MYSQL_TYPE_FLOAT and meta != 4) or (real == R.MYSQL_TYPE_DOUBLE and meta != 8)
            or (real == R.MYSQL_TYPE_BLOB and spec.prefix != meta)):
        return None
    if real in (R.MYSQL_TYPE_VARCHAR, R.MYSQL_TYPE_VAR_STRING) and spec.prefix != (1 if meta < 256 else 2):
        return None
    if real == R.MYSQL_TYPE_JSON and spec.prefix != 4:      # _p_json reads 4 length bytes
        return None
    if real == R.MYSQL_TYPE_STRING:
        length, shown = V._string_length(meta)
        if shown != R.MYSQL_TYPE_STRING or spec.prefix != (1 if length < 256 else 2):
            return None
    try:
        typestr, _ = V.print_value([], None, None, real, meta, b"", False, 0, None)
    except V.StopRow:
        return None
    prefix = b"###   @%d=" % (i + 1)
    if verbose < 2:
        return prefix, b"\n", prefix + b"NULL\n"
    comment = b" /* %s meta=%d nullable=%d is_null=%%d */" % (typestr, meta, tm.nullable(i))
    return prefix, comment % 0 + b"\n", prefix + b"NULL" + comment % 1 + b"\n"


def _build_text_plan(tm, kind, bitmaps, width, verbose):
    command, clause1, clause2 = COMMANDS[_KINDS[kind]]
    head = (b"### " + command + b" " + comment_safe(backtick(tm.db) + b"." + backtick(tm.table))
            + b"\n" + clause1)
    images = []
    for n, bitmap in enumerate(bitmaps):
        specs = _image_specs(tm, bitmap, width)
        if specs is None:
            return None
        texts = []
        for spec in specs:
            column = _column_texts(tm, spec, verbose)
            if column is None:
                return None
            texts += column
        program = c_program(specs, null_byte_count(bitmap, width), tm.column_count) + (tuple(texts),)
        if kind == KIND_PARTIAL_UPDATE and n == 1:      # the after image: value options first
            program += (tm.column_types.count(R.MYSQL_TYPE_JSON),)
        images.append(program)
    return head, clause2, images[0], images[1] if clause2 is not None else None, FLAVOR_MYSQL


def _image_specs(tm, bitmap, width):
    """The ColumnSpecs of an image's columns (rowcompile.column_spec, and json_spec for
    MySQL JSON columns, whose text csrc/json.c writes), or None if one is not covered."""
    types, metas = tm.column_types, tm.column_meta
    specs = []
    for i in present_columns(tm, bitmap, width):
        spec = column_spec(i, types[i], metas[i])
        if spec is None and types[i] == R.MYSQL_TYPE_JSON:
            spec = json_spec(i, metas[i], types[:i].count(R.MYSQL_TYPE_JSON))
        if spec is None:
            return None
        specs.append(spec)
    return specs


def c_text_plan(tm, kind, cols, cols_ai, width, verbose):
    """The -v/-vv plan of one kind of rows event, mysqlbinlog's text, or None.

    Like printer/mariadb/rows_fast.c_text_plan (kind 0 write, 1 update, 2 delete,
    and 3 for a PARTIAL_UPDATE_ROWS event, whose after-image program has a fifth
    item, the table's number of JSON columns: the bits of its partial-update
    bitmap), with a fifth item, 1, that makes the C value printer write
    mysqlbinlog's text; cached in ``tm.plans[(kind, cols, cols_ai, width, verbose, 1)]``,
    where the C printer looks first.
    """
    key = (kind, cols, cols_ai, width, verbose, FLAVOR_MYSQL)
    plans = tm.plans
    if key not in plans:
        bitmaps = (cols, cols_ai) if kind in (1, KIND_PARTIAL_UPDATE) else (cols,)
        plans[key] = _build_text_plan(tm, kind, bitmaps, width, verbose)
    return plans[key]


# -- the printer's side ------------------------------------------------------------------

class _Shadow:
    """What print_query_header needs of a printer, over a copy of its state."""

    def __init__(self, p, state):
        self.state, self.options, self.time_text = state, p.options, p.time_text


class FastRows:
    """The C row-statement printer for one MysqlPrinter.

    Besides row statements it prints, when no GTID filter, --database or
    buffered Intvar/Rand/User_var event is in the way, the GTID, BEGIN /
    COMMIT and Xid events around them (CTX_TRX_STATE), and whole
    Transaction_payload events: BEGIN and COMMIT only when printing them
    leaves the session state as it is (`_steady_query` asks
    print_query_header on a copy of the state), so that their text is the
    same every time under one state (`_queries`, per state fingerprint).
    """

    def __init__(self, printer):
        self.p = printer
        self.maps = ({}, {})        # Table_map body bytes -> entry, without / with the GIPK line
        self._contexts = {}                   # context() key -> ctx
        self._maps_format = None
        self._trx = [False, False, 0, 0]      # CTX_TRX_STATE
        self._queries = {}                    # state fingerprint -> {query key: entry}
        self.read_ahead = ReadAhead()         # what the C printer gets to see past `pos`
        self._commit_times = {}

    def _clean(self, head_ok=False):
        """No statement half printed, no filter pending that the C printer does not
        apply.  head_ok: text in the head cache is fine (a payload's header lines,
        which the first event printed inside it flushes)."""
        p = self.p
        st = p.state
        return not (p.offset or p.start_datetime or p.filter_based_on_gtids
                    or (st.head and not head_ok) or st.body
                    or st.footer or st.have_unflushed_events or st.ignored_maps
                    or not (st.printed_fd_event or p.options.base64_output == BASE64_DECODE_ROWS))

    def _trx_on(self):
        p = self.p
        return not (p.gtid_filtering or p.buffered or p.state.skipped_event_in_transaction)

    def print_statements(self, reader, pos):
        """Print the whole row statements (and transactions) at file offset `pos`;
        returns where to go on."""
        p = self.p
        fmt = p.file_format
        while True:
            buf, rel = reader.buffered(pos, self.read_ahead.size)
            if len(buf) < rel + L.LOG_EVENT_HEADER_LEN or buf[rel + 4] not in START_TYPES:
                return pos
            if (not self._clean() or fmt.permutation is not None
                    or reader.fde.event_type_permutation is not None):
                return pos
            has_crc = reader.fde.checksum_alg == L.BINLOG_CHECKSUM_ALG_CRC32
            done = self._run(buf, rel, pos, self.context(fmt, has_crc, p.stop_position, False),
                             rel + C_WINDOW)
            if done == pos:
                if not self.read_ahead.more(buf, rel, reader.fde):
                    return done
            elif done >= p.stop_position or not statement_runs_past(buf, rel + done - pos, reader.fde):
                return done
            pos = done      # stopped at a statement past the buffer: read on, go on

    def print_payload_statements(self, frames, rel, log_pos, fmt):
        """The same for the events of a Transaction_payload, re-framed as mysqlbinlog
        does (`frames`: speedups.payload_frames), from `rel` on, each printed at
        `log_pos` (the payload's end_log_pos); returns (events printed, new rel)."""
        if not self._clean(head_ok=True) or fmt.permutation is not None:
            return 0, rel
        has_crc = fmt.checksum_alg == L.BINLOG_CHECKSUM_ALG_CRC32
        count = self.p.rec_count
        rel = self._run(frames, rel, log_pos, self.context(fmt, has_crc, (1 << 64) - 1, True))
        return self.p.rec_count - count, rel

    def _run(self, buf, rel, pos, ctx, soft_end=None):
        p = self.p
        st = p.state
        trx = ctx[CTX_TRX_STATE]
        if trx is not None:
            trx[:] = (p.seen_gtid, p.in_transaction, st.immediate_server_version, st.thread_id)
        def sink(chunk):        # committed text while C works: after what was pending
            p.flush_cache(st.head)
            p.write(chunk)

        events, pos, text = speedups.print_row_statements(buf, rel, pos, ctx, sink, None, soft_end)
        if events:
            p.rec_count += events
            p.flush_cache(st.head)
            p.write(text)
            if trx is not None:
                p.seen_gtid, p.in_transaction, st.immediate_server_version = trx[0], trx[1], trx[2]
        return pos

    @staticmethod
    def frames(payload, has_crc):
        """speedups.payload_frames (b"" when it refuses the payload)."""
        return speedups.payload_frames(payload, has_crc) or b""

    def context(self, fmt, has_crc, stop_position, fixed_pos):
        """speedups.print_row_statements' ctx (kept while nothing in it changes)."""
        p = self.p
        st = p.state
        gipk = prints_gipk(st)
        trx_on = self._trx_on()
        fingerprint = _fingerprint(st) if trx_on else None
        layout = (fmt.header_len, bytes(fmt.post_header_len))     # what decoding depends on
        glob = p.glob_format
        key = (layout, has_crc, stop_position, fixed_pos, gipk, p.v9, st.delimiter, fingerprint,
               glob.header_len, bytes(glob.post_header_len), glob.checksum_alg, glob.permutation)
        ctx = self._contexts.get(key)
        if ctx is not None:
            return ctx
        opts = p.options
        if layout != self._maps_format:
            self._maps_format = layout
            self.maps[0].clear()
            self.maps[1].clear()
            self._queries.clear()
            self._contexts.clear()
        maps = self.maps[gipk]
        if len(self._queries) > 64:
            self._queries.clear()
        queries = self._queries.setdefault(fingerprint, {})
        if len(queries) > 4096:
            queries.clear()

        def table_map_miss(data, pos):
            """Decode a Table_map event as the driver does; None leaves it to process_event."""
            body = _decode(data, pos, has_crc, fmt, L.TABLE_MAP_EVENT)
            if body is None:
                return None
            if len(maps) >= 4096:
                maps.clear()
            entry = maps[bytes(body[0].payload[fmt.header_len:])] = (
                body[1].table_id, body[1], table_map_text(body[1], gipk, p.print_table_metadata))
            return entry

        def query_miss(data, pos, key):
            """The entry of a Query event C has no entry for, under C's key (the event
            from its error code on, its microseconds zeroed)."""
            decoded = _decode(data, pos, has_crc, fmt, L.QUERY_EVENT)
            if decoded is None:
                return None
            raw, body = decoded
            entry = queries[key] = _steady_query(p, raw, body)
            return entry

        if len(self._contexts) > 16:
            self._contexts.clear()
        ctx = self._contexts[key] = (has_crc, fmt.header_len, bytes(fmt.post_header_len),
                     min(max(stop_position, 0), (1 << 64) - 1),
                     min(max(opts.stop_datetime, -(1 << 63)), (1 << 63) - 1),
                     st.delimiter, p._times, p.time_text, maps, table_map_miss, st.table_maps,
                     R.image_plan, opts.base64_output != BASE64_DECODE_ROWS, opts.verbose,
                     c_text_plan if opts.verbose else None,
                     FLAVOR_MYSQL97 if p.v9 else FLAVOR_MYSQL, fixed_pos,
                     self._trx if trx_on else None, gipk, queries, query_miss,
                     self._commit_times, self._commit_time_parts,
                     _decompressors() if trx_on and self._payloads_here(layout, has_crc, fixed_pos)
                     else None, None, False, None,
                     user_var_context(E.COLLATIONS, E.charset_back(st) if p.v9 else None)
                     if trx_on else None)
        return ctx

    def _payloads_here(self, layout, has_crc, fixed_pos):
        """Whether Transaction_payload events may be printed with this context: its
        events are decoded with glob_format, which must agree with the file's."""
        glob = self.p.glob_format
        return (not fixed_pos and glob.permutation is None
                and (glob.header_len, bytes(glob.post_header_len)) == layout
                and (glob.checksum_alg == L.BINLOG_CHECKSUM_ALG_CRC32) == has_crc)

    def _commit_time_parts(self, secs):
        parts = self._commit_times[secs] = commit_time_parts(self.p.zone, secs)
        if len(self._commit_times) > 4096:
            self._commit_times.clear()
        return parts


# where the C printer may start: BEGIN/COMMIT, Xid, Table_map, Rows_query, GTIDs, payloads
START_TYPES = frozenset({L.QUERY_EVENT, L.INTVAR_EVENT, L.XID_EVENT, L.TABLE_MAP_EVENT, L.ROWS_QUERY_LOG_EVENT,
                         L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT, L.TRANSACTION_PAYLOAD_EVENT})
# what print_query_header reads of the state (and BEGIN/COMMIT must leave as it is)
_QUERY_STATE = ("db", "flags2_inited", "flags2", "sql_mode_inited", "sql_mode",
                "auto_increment_increment", "auto_increment_offset", "charset_inited", "charset",
                "time_zone", "lc_time_names_number", "charset_database_number",
                "default_collation_for_utf8mb4_number", "sql_require_primary_key",
                "default_table_encryption", "thread_id", "thread_id_printed", "delimiter")


_fingerprint = operator.attrgetter(*_QUERY_STATE)


_ZSTD = []         # zstandard and a ZstdDecompressor, once needed


def _decompress(data):
    """A zstd payload uncompressed (mysql_events._zstd_decompress, the reference:
    frames one after the other), or None.  One whole frame, the usual case, is
    read here directly: in one call when its header gives the size."""
    try:
        if not _ZSTD:
            import zstandard
            _ZSTD[:] = [zstandard, zstandard.ZstdDecompressor()]
        zstd, dctx = _ZSTD
        try:
            size = zstd.frame_content_size(data)
            if size > MAX_UNCOMPRESSED:
                return None             # a hostile frame header
            if size >= 0:               # -1: not in the frame header: the reference counts
                return dctx.decompress(data, allow_extra_data=False)
        except Exception:       # more frames, an older zstandard: the reference decides
            pass
        return _zstd_decompress(data)
    except Exception:           # zstandard.ZstdError, ValueError, ImportError: Python says which
        return None


def _one_shot(data):
    """One zstd call, which raises unless the payload is one frame that gives its size
    (zstandard is loaded with the first payload: start-up); without zstandard, as
    _decompress."""
    if not _ZSTD:
        try:
            import zstandard
        except ImportError:
            return _decompress(data)
        _ZSTD[:] = [zstandard, zstandard.ZstdDecompressor()]
    if _ZSTD[0].frame_content_size(data) > MAX_UNCOMPRESSED:
        raise ValueError("payload too large")   # a hostile frame header: _decompress says no
    return _ZSTD[1].decompress(data, allow_extra_data=False)


def _decompressors():
    """CTX_DECOMPRESS: (_one_shot, _decompress)."""
    return _one_shot, _decompress


def _decode(data, pos, has_crc, fmt, type_code):
    """(RawEvent, body) of the event in `data` as the driver decodes it, or None."""
    raw = speedups.frame(data, 0, pos, has_crc)
    if raw is None or raw.type_code != type_code:
        return None
    try:
        body = decode_body(raw, fmt)
    except (ReadError, ValueError, IndexError):
        return None
    if isinstance(body, (UnknownBody, IgnorableBody)):
        return None
    return raw, body


def _steady_query(p, raw, body):
    """The C printer's entry for a BEGIN or COMMIT whose print_query_header text
    leaves the state as it is: (from '\terror_code' on, what follows the
    timestamp's seconds, what follows the timestamp line), else None."""
    plain = body.query not in (b"BEGIN", b"COMMIT")
    if plain and is_trans_keyword(body.query):
        return None
    st = p.state
    shadow = object.__new__(type(st))       # copy.copy of the state (a record with a __dict__),
    shadow.__dict__.update(st.__dict__)     # without loading copy and weakref (start-up)
    out = []
    print_query_header(_Shadow(p, shadow), raw, body, out)
    if _fingerprint(shadow) != _fingerprint(st) or len(out) < 3:
        return None
    d = st.delimiter
    frac = b".%06d" % body.when_sec_part if body.when_sec_part else b""
    line, cut = out[1], out[1].find(b"\terror_code=")
    if (cut < 0 or not line.startswith(b"\tQuery\t")
            or out[2] != b"SET TIMESTAMP=%d%s%s\n" % (raw.when, frac, d)):
        return None
    if plain:       # a statement: C appends its text (not in its key)
        return line[cut:], frac, b"".join(out[3:])
    return line[cut:], frac, b"".join(out[3:]) + body.query + b"\n" + d + b"\n"
