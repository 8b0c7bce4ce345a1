"""The mariadb-binlog driver: files in, text out.

`dump(paths, out, options, zone)` reproduces mariadb-binlog's main loop:
preamble, per-file DELIMITER blocks, the event filters of `process_event`
(offset, datetimes, server id, positions, database), LOAD DATA temp files,
and the postamble.  Errors raise `BinlogError` after the partial output has
been written, so the CLI can print one line and exit 1 like the real tool.
"""

from binlogkit._accel import speedups
from binlogkit._record import replace
from binlogkit.binlog import layout as L
from binlogkit.binlog import rows as R
from binlogkit.binlog.events import decode_event, mariadb_status_view
from binlogkit.binlog.legacy_events import decode_rotate_minimal_header
from binlogkit.binlog.reader import READ_FAILS_AT, BinlogReader, PyRawEvent
from binlogkit.errors import (
    BinlogError, BinlogkitError, EventDecodeError, InvalidEventError,
)
from binlogkit.printer.driver import C_WINDOW, PrinterBase, ReadAhead, StopDump
from binlogkit.printer.mariadb import events as P
from binlogkit.printer.mariadb import legacy
from binlogkit.printer.mariadb.checkheader import (
    as_read_log_event_error, formats_before, in_use_read_error, is_read_error, read_next_event,
    refused_event,
)
from binlogkit.printer.mariadb.fast import Steady, fingerprint
from binlogkit.printer.mariadb.gtid_filter import GtidFiltering
from binlogkit.printer.mariadb.state import PrintState
from binlogkit.printer.state import (
    BASE64_ALWAYS, BASE64_AUTO, BASE64_DECODE_ROWS, BASE64_NEVER, MY_TIME_T_MAX,
    row_event_positions,
)


INCIDENT_LOST_EVENTS = 1      # the only incident MariaDB knows (INCIDENT_COUNT is 2)
# is_valid() of these needs a file id (Exec_load, Delete_file, Execute_load_query)
FILE_ID_REQUIRED = frozenset({L.EXEC_LOAD_EVENT, L.DELETE_FILE_EVENT, L.EXECUTE_LOAD_QUERY_EVENT})
# MySQL 8.0 events mariadb-binlog's read_log_event refuses, with its reason
MYSQL_REFUSED = {
    L.PARTIAL_UPDATE_ROWS_EVENT: (
        "Found incompatible MySQL 8.0 PARTIAL_UPDATE_ROWS_EVENT event. You can avoid this event "
        "by specifying 'binlog-row-value-options=\"\"' in the MySQL server"),
    L.TRANSACTION_PAYLOAD_EVENT: (
        "Found incompatible MySQL 8.0 TRANSACTION_PAYLOAD_EVENT event. You can avoid this event "
        "by specifying 'binlog_transaction_compression=0' in the MySQL server"),
}
# Events printed by the default branch of process_event()
SIMPLE_PRINTERS = {
    L.INTVAR_EVENT: P.print_intvar, L.RAND_EVENT: P.print_rand, L.XID_EVENT: P.print_xid,
    L.USER_VAR_EVENT: P.print_user_var, L.ROTATE_EVENT: P.print_rotate,
    L.STOP_EVENT: P.print_stop, L.BINLOG_CHECKPOINT_EVENT: P.print_binlog_checkpoint,
    L.GTID_LIST_EVENT: P.print_gtid_list, L.GTID_EVENT: P.print_gtid,
    L.XA_PREPARE_LOG_EVENT: P.print_xa_prepare, L.INCIDENT_EVENT: P.print_incident,
    L.START_ENCRYPTION_EVENT: P.print_start_encryption_event,
    L.DELETE_FILE_EVENT: P.print_delete_file,
}
# events whose print() adds to the header cache rather than starting it anew
_HEAD_KEEPERS = L.ROWS_EVENT_TYPES | {L.TABLE_MAP_EVENT, L.ANNOTATE_ROWS_EVENT}
# 5.1 pre-GA rows events: mariadb-binlog does not print them through print_row_event()
PRE_GA_ROWS_EVENTS = P.PRE_GA_ROWS_EVENTS
KNOWN_TYPES = frozenset(SIMPLE_PRINTERS) | L.ROWS_EVENT_TYPES | {
    L.FORMAT_DESCRIPTION_EVENT, L.QUERY_EVENT, L.QUERY_COMPRESSED_EVENT,
    L.BEGIN_LOAD_QUERY_EVENT, L.APPEND_BLOCK_EVENT, L.EXECUTE_LOAD_QUERY_EVENT,
    L.ANNOTATE_ROWS_EVENT, L.TABLE_MAP_EVENT,
} | frozenset(legacy.HANDLERS)


def fast_rows_eligible(opts):
    """Whether speedups.print_row_statements may print row statements: only
    with the options under which its text is the handlers' (the default
    output, -v/-vv, decode-rows, start/stop positions and datetimes, GTID
    windows and domain lists: their groups start at GTID events, which
    the Python path handles, and the C one never starts in a group left
    out).  Any
    option that changes how Annotate_rows, Table_map or rows events print
    must be listed here."""
    return (speedups is not None and not opts.short_form and not opts.hexdump
            and opts.base64_output in (BASE64_AUTO, BASE64_ALWAYS, BASE64_DECODE_ROWS)
            and opts.print_row_count and row_event_positions(opts)
            and not opts.skip_annotate_row_events and opts.database is None
            and opts.table is None and not opts.server_id and not opts.verify_checksum
            and not opts.print_table_metadata and not opts.flashback and not opts.rewrite_db
            and all(kind != "server" for _, kind, _ in opts.id_filters))


def fast_flashback_eligible(opts):
    """Whether the C printer may print --flashback's statements and transactions
    (csrc/mariadb.c): with the default options otherwise (no -v, no '# at' lines)."""
    return (speedups is not None and opts.flashback and not opts.short_form and not opts.hexdump
            and opts.base64_output in (BASE64_AUTO, BASE64_ALWAYS) and opts.print_row_count
            and not row_event_positions(opts) and not opts.verbose
            and not opts.skip_annotate_row_events and opts.database is None
            and opts.table is None and not opts.server_id and not opts.verify_checksum
            and not opts.print_table_metadata and not opts.rewrite_db
            and all(kind != "server" for _, kind, _ in opts.id_filters))


class Printer(PrinterBase):
    """Writes mariadb-binlog text for a sequence of binlog files."""

    PREAMBLE = (b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n"
                b"/*!40019 SET @@session.max_delayed_threads=0*/;\n")
    POSTAMBLE_HEAD = b"# End of log file\nROLLBACK /* added by mysqlbinlog */;\n"

    def __init__(self, out, options, zone, remote=None):
        super().__init__(out, options, zone)
        self.remote = remote        # printer.mariadb.remote.RemoteSource for -R, else local files
        self.state = PrintState()
        self.header_len = 0     # print_event_info->common_header_len: set by a printed FDE
        self.options_written_mask = 0
        self.rec_count = 0
        self.start_datetime = options.start_datetime
        self.offset = options.offset
        self.annotate = None
        self.hexdump_from = 0
        self.create_files = {}      # file_id -> (raw, body, local name) of a Create_file event
        # offset / start-datetime: pass nothing until the first event that qualifies
        self._skipping = bool(options.offset or options.start_datetime)
        self.encrypted = False
        self._print_at = row_event_positions(options)
        self.encoded = P.do_print_encoded(self)
        self._table_map_texts = {}
        self._fast = fast_rows_eligible(options) or fast_flashback_eligible(options)
        self._fast_context = None   # speedups.print_row_statements' ctx, per file and format
        self._fast_key = None       # ... and session state (fast.fingerprint)
        self._steady = Steady(self)
        self.read_ahead = ReadAhead()   # what the C printer gets to see past `pos`
        self.gtids = GtidFiltering(options)
        self._server_filter = self.gtids.server     # --server-id & co: checked event by event
        self.flashback = None
        self.write_held = self.write   # output mariadb-binlog keeps in the event (output_buf)
        if options.flashback:
            from binlogkit.printer.mariadb.flashback import Flashback
            self.flashback = Flashback(self)

    def table_map_text(self, body):
        """P.table_map_text, memoized: table maps repeat (and are cached by rows.py)."""
        entry = self._table_map_texts.get(id(body))
        if entry is None or entry[0] is not body:
            if len(self._table_map_texts) > 1024:
                self._table_map_texts.clear()
            entry = self._table_map_texts[id(body)] = (body, P.table_map_text(body))
        return entry[1]

    def flush_head(self):
        st = self.state
        if st.head:
            self.write(b"".join(st.head))
            st.head.clear()

    def rows_statement_end(self, skip):
        """A rows event with STMT_END_F: forget the ignored table maps and the
        annotation; for an event of an ignored table, end the BINLOG '...' block
        under way and write the caches out."""
        st = self.state
        st.ignored_maps.clear()
        self.annotate = None
        if skip:
            if st.body:
                st.body.append(b"'%s\n" % st.delimiter)
            self.flush_head()
            if st.body:
                self.write(b"".join(st.body))
                st.body.clear()

    def flush_statement(self, encoded):
        """End of a rows statement: head, the BINLOG body, tail, row count."""
        st = self.state
        parts = st.head
        if encoded and st.body:
            parts.append(b"\nBINLOG '\n")
            parts += st.body
            parts.append(b"'" + st.delimiter + b"\n")
        st.body.clear()
        if st.tail:
            parts += st.tail
            st.tail.clear()
        if self.options.print_row_count:
            parts.append(b"# Number of rows: %d\n" % st.row_events)
            st.row_events = 0
        if parts:
            self.write(b"".join(parts))
            parts.clear()

    def account_rows(self, raw, body):
        table_map = self.state.table_maps.get(body.table_id)
        if self.options.verbose:
            from binlogkit.printer.mariadb.rows_verbose import print_verbose
            result = print_verbose(table_map, body, self.options.verbose)
            if result.error is not None:
                self.verbose_failed(raw, result)
            self.state.tail.append(result.text)
            self.state.row_events += result.rows
        else:
            self.state.row_events += R.count_rows(table_map, body)

    def verbose_failed(self, raw, result):
        """print_verbose failed: mariadb-binlog drops the event's text and stops,
        exit status 1 (after flushing its header and base64 caches, for a
        column type it has no case for)."""
        if getattr(result.error, "flush_caches", False):
            self.flush_head()
            self.write(b"".join(self.state.body))
            self.state.body.clear()
        raise EventDecodeError(result.error_message(), path=self.current_file, offset=raw.pos,
                               type_code=raw.type_code)

    # -- files ---------------------------------------------------------------
    def postamble_tail(self):
        if self.gtids.any_filter:
            return (b"/*!100001 SET @@SESSION.SERVER_ID=@@GLOBAL.SERVER_ID */;\n"
                    b"/*!100001 SET @@SESSION.GTID_DOMAIN_ID=@@GLOBAL.GTID_DOMAIN_ID */;\n")
        return b""

    def dump_file(self, path, start_position, stop_position, stream=None):
        """dump_log_entries + dump_local_log_entries for one file."""
        self.state = PrintState()
        self._fast_context = None
        self.write(b"DELIMITER /*!*/;\n")
        if self.remote is None:
            reader = BinlogReader(path, start_position=start_position,
                                  verify_checksum=self.options.verify_checksum, stream=stream)
            dump_events = self._dump_events
        else:       # -R: dump_remote_log_entries
            reader = self.remote.reader(path, self.options.verify_checksum)
            dump_events = self._dump_remote_events
        self.current_file = reader.display_name
        stopped = False
        try:
            with reader:
                dump_events(reader, start_position, stop_position)
        except StopDump:
            stopped = True
        except BinlogError as exc:   # decoders know the offset, not the file
            if exc.path is None:
                exc.path = reader.display_name
            raise
        if self.flashback is None:
            self.write(b"DELIMITER ;\n")
        self.state.delimiter = b";"
        return stopped

    def _dump_events(self, reader, start_position, stop_position):
        reader.read_magic()
        reader.check_start_v3()
        if start_position > L.BIN_LOG_HEADER_SIZE:
            fde = reader.probe_format()
            if fde is not None:
                formats, error = formats_before(reader, fde, start_position)
                self.adopt_format(reader)
                if self.options.base64_output in (BASE64_AUTO, BASE64_ALWAYS):
                    for fde in formats:
                        self.process_event(reader, fde, stop_position)
                if error is not None:
                    raise error
        self.event_loop(reader, max(start_position, L.BIN_LOG_HEADER_SIZE), stop_position)

    def _dump_remote_events(self, reader, start_position, stop_position):
        return self.remote.dump_events(self, reader, start_position, stop_position)

    def event_loop(self, reader, pos, stop_position):
        """process_event() for every event the reader has from `pos` on (whole row
        statements through the C printer where it may); returns where it ended.

        A log still being written (or a crashed one) ends at its first unreadable
        event after its format description event, with read_log_event's line."""
        process = self.process_event
        try:
            while True:
                if self._fast and pos < READ_FAILS_AT:
                    pos = self._print_row_statements(reader, pos, stop_position)
                raw = read_next_event(reader, pos)
                if raw is None:
                    self.end_position = pos
                    return pos
                if raw.type_code == L.FORMAT_DESCRIPTION_EVENT:
                    self.adopt_format(reader)
                process(reader, raw, stop_position)
                pos += raw.event_size
        except BinlogError as exc:
            if not (reader.in_use and is_read_error(exc)) or exc.offset == L.BIN_LOG_HEADER_SIZE:
                if is_read_error(exc):
                    as_read_log_event_error(exc, reader)
                raise
            self.error(getattr(exc, "detail", None) or in_use_read_error(exc))
            self.end_position = pos
            return pos

    def _print_row_statements(self, reader, pos, stop_position):
        """Let the C accelerator print the whole row statements starting at
        `pos` (see speedups.print_row_statements); returns where to go on.
        It starts only from a clean state: no statement half printed."""
        st = self.state
        if (self._skipping or self.encrypted or not st.printed_fd_event or st.head or st.body or st.tail
                or st.row_events or self.annotate is not None or st.ignored_maps
                or not st.event_group_active or reader.fde.event_type_permutation is not None
                or (self.flashback is not None and (self.flashback.statement_events
                                                    or self.flashback.event_output))):
            return pos
        steady = self._steady
        on = steady.on(reader.fde)
        if self.flashback is not None and not on:
            return pos          # --flashback in C only with the transaction part
        key = fingerprint(st) if on else None
        ctx = self._fast_context
        if ctx is None or key != self._fast_key:
            ctx = self._fast_context = self._make_fast_context(reader, stop_position, key)
            self._fast_key = key
        if key is not None:
            steady.load()
        while True:
            buf, rel = reader.buffered(pos, self.read_ahead.size)
            events, new_pos, text = speedups.print_row_statements(buf, rel, pos, ctx, self.write,
                                                                  None, rel + C_WINDOW)
            if events or not self.read_ahead.more(buf, rel, reader.fde):
                break
        pos = new_pos
        if events:
            self.rec_count += events
            self.write(text)
            if key is not None:
                steady.store()
        return pos

    def _make_fast_context(self, reader, stop_position, key):
        fde, opts = reader.fde, self.options
        has_crc = fde.checksum_alg == L.BINLOG_CHECKSUM_ALG_CRC32
        maps = {}

        def table_map_miss(data, pos):
            """Decode a Table_map event the usual way; None leaves it to process_event."""
            raw = speedups.frame(data, 0, pos, has_crc)
            try:
                body = decode_event(raw, fde) if raw is not None else None
            except BinlogError:
                return None
            if body is None or raw.type_code != L.TABLE_MAP_EVENT:
                return None
            if len(maps) >= 4096:
                maps.clear()
            entry = maps[bytes(raw.payload[fde.header_len:])] = (
                body.table_id, body, self.table_map_text(body))
            return entry

        return (has_crc, fde.header_len, bytes(fde.post_header_len),
                min(max(stop_position, 0), (1 << 64) - 1),
                min(max(opts.stop_datetime, -(1 << 63)), (1 << 63) - 1),
                self.state.delimiter, self._times, self.time_text, maps, table_map_miss,
                self.state.table_maps, R.image_plan, self.encoded, opts.verbose,
                _c_text_plan() if opts.verbose else None) + self._steady.context_tail(fde, has_crc, key)

    def adopt_format(self, reader):
        fde = reader.fde
        self._fast_context = None
        self.encrypted = False      # a Start_encryption event encrypts the rest of its file
        # mariadb-binlog 10.11 takes pre-GA 5.1 event type codes literally (no renumbering)
        permutation = fde.event_type_permutation
        if permutation is not None:
            fde.post_header_len = bytes(fde.post_header_len[permutation[old] - 1]
                                        for old in range(1, len(fde.post_header_len) + 1))
            fde.event_type_permutation = None
        self.options_written_mask = options_written_mask(fde)

    # -- process_event --------------------------------------------------------
    def process_event(self, reader, raw, stop_position):
        """process_event(): the filters, '# at', then the event's printer.

        rec_count counts every event offered, printed or not."""
        opts = self.options
        handler, body = self.read_log_event(reader, raw)
        # an Ignorable_log_event says IGNORABLE_LOG_EVENT whatever type its header has
        type_code = L.IGNORABLE_LOG_EVENT if handler is handle_ignorable else raw.type_code
        if type_code == L.GTID_EVENT or type_code == L.GTID_LIST_EVENT:
            self.gtid_check(reader, raw, body)
        if not self.state.event_group_active:
            return      # a GTID filter left this event group out: not even counted
        self.rec_count += 1
        if type_code != L.FORMAT_DESCRIPTION_EVENT:
            if self._skipping:
                if not (self.rec_count > self.offset and raw.when >= self.start_datetime):
                    return
                self.start_datetime = 0
                self.offset = 0
                self._skipping = False
            if (self._server_filter is not None and type_code != L.ROTATE_EVENT
                    and self._server_filter.excludes_server(raw.server_id)):
                return
        if raw.when >= opts.stop_datetime or raw.pos >= stop_position:
            self.stops_reached.update(
                reason for reason, hit in (("datetime", raw.when >= opts.stop_datetime),
                                           ("position", raw.pos >= stop_position)) if hit)
            raise StopDump()
        if self._print_at:
            self.write(b"# at %d\n" % raw.pos)
        self.hexdump_from = raw.pos
        if type_code not in _HEAD_KEEPERS and self.state.head and self.flashback is None:
            # its print() starts on the header cache anew (Write_on_release_cache): what an
            # unfinished row statement left there is dropped (its BINLOG text is not)
            self.state.head.clear()
        if handler is not None:
            handler(self, reader, raw, body)
        else:
            self.print_skip_replication(raw)
            SIMPLE_PRINTERS.get(type_code, P.print_unknown)(self, raw, body)
        if self.flashback is not None:
            self.flashback.end_event(type_code)

    def read_log_event(self, reader, raw):
        """(handler, body): what read_log_event builds, before any filter looks at the event;
        an event it cannot build (undecryptable, refused, unknown, malformed, invalid) raises
        InvalidEventError."""
        type_code = raw.type_code
        if self.encrypted:      # binlogkit has no key: read_log_event cannot decrypt it
            raise InvalidEventError("Event decryption failure", data_len=L.UINT32.unpack_from(raw.data)[0],
                                    path=reader.display_name, offset=raw.pos, type_code=type_code)
        if type_code == L.START_ENCRYPTION_EVENT and not raw.flags & L.LOG_EVENT_IGNORABLE_F:
            self.encrypted = True   # (over -R the server decrypts and flags it ignorable)
        if type_code in MYSQL_REFUSED:
            raise self.invalid_event(reader, raw, MYSQL_REFUSED[type_code])
        # a type the FDE has no post-header for is not even an ignorable event
        beyond = beyond_format(reader.fde, type_code)
        handler = None if beyond else EVENT_HANDLERS.get(type_code)
        if not beyond and (raw.flags & L.LOG_EVENT_IGNORABLE_F
                           and type_code != L.FORMAT_DESCRIPTION_EVENT
                           or handler is None and type_code in P.MYSQL_IGNORED_TYPES):
            # any event flagged ignorable is read as Ignorable_log_event, known types too
            return handle_ignorable, None
        if (handler is None and (beyond or type_code not in KNOWN_TYPES)
                and not self.options.force_read):
            raise self.invalid_event(reader, raw, "Found invalid event in binary log")
        try:
            if type_code == L.ROTATE_EVENT:
                body = decode_rotate_minimal_header(raw.payload, raw, reader.fde)
            else:
                body = decode_event(raw, reader.fde)
        except (EventDecodeError, ValueError):
            raise self.invalid_event(reader, raw, "Found invalid event in binary log") from None
        if (type_code == L.GTID_EVENT and body.seq_no == 0          # Gtid_log_event::is_valid
                or type_code == L.INCIDENT_EVENT and body.incident != INCIDENT_LOST_EVENTS
                or type_code in FILE_ID_REQUIRED and not body.file_id
                or type_code == L.ANNOTATE_ROWS_EVENT and not body.query
                or type_code == L.START_ENCRYPTION_EVENT and body.scheme != 1
                or type_code == L.XA_PREPARE_LOG_EVENT and not body.xid.gtrid):
            raise self.invalid_event(reader, raw, "Found invalid event in binary log")
        return handler, body

    @staticmethod
    def invalid_event(reader, raw, why):
        return InvalidEventError(why, data_len=raw.event_size, path=reader.display_name,
                                 offset=raw.pos, type_code=raw.type_code)

    def gtid_check(self, reader, raw, body):
        """The GTID part of process_event: Gtid_list validation, event-group filters."""
        gtids = self.gtids
        if raw.type_code == L.GTID_LIST_EVENT:
            errors = gtids.gtid_list(body.gtids, self.warn) if raw.when else None
        else:
            stop, self.state.event_group_active, errors = gtids.gtid(
                (body.domain_id, raw.server_id, body.seq_no), self.state.event_group_active)
            if stop:
                raise StopDump()
        if errors:
            for message in errors[:-1]:
                self.error(message)
            raise BinlogError(errors[-1], path=reader.display_name, offset=raw.pos,
                              type_code=raw.type_code)

    def print_skip_replication(self, raw):
        value = 1 if raw.flags & L.LOG_EVENT_SKIP_REPLICATION_F else 0
        if value != self.state.skip_replication:
            self.write(b"/*!50521 SET skip_replication=%d*/%s\n" % (value, self.state.delimiter))
            self.state.skip_replication = value

    def require_fd_printed(self, reader, raw):
        """print_base64(): rows events need a printed Format_description first."""
        opts = self.options
        if (not self.state.printed_fd_event and not opts.short_form
                and opts.base64_output not in (BASE64_DECODE_ROWS, BASE64_NEVER)):
            name = L.TYPE_NAMES.get(raw.type_code, "Unknown")
            msg = ("malformed binlog: it does not contain any Format_description_log_event. "
                   f"I now found a {name} event, which is not safe to process without a "
                   "Format_description_log_event.")
            raise BinlogError(msg, path=reader.display_name, offset=raw.pos, type_code=raw.type_code)


def beyond_format(fde, type_code):
    """read_log_event's first check: a type past the format description's post-header
    table (number_of_event_types) is no event at all, whatever its flags say."""
    known = len(fde.post_header_len)
    return 0 < known < type_code and type_code != L.FORMAT_DESCRIPTION_EVENT


def _c_text_plan():
    from binlogkit.printer.mariadb.rows_fast import c_text_plan    # -v only
    return c_text_plan


def options_written_mask(fde):
    """Which optional Q_FLAGS2 bits the writing server put in the log."""
    mask = (L.OPTION_AUTO_IS_NULL | L.OPTION_NO_FOREIGN_KEY_CHECKS
            | L.OPTION_RELAXED_UNIQUE_CHECKS | L.OPTION_NOT_AUTOCOMMIT)
    if fde.is_mariadb and fde.version_split >= (10, 5, 2):
        mask |= L.OPTION_IF_EXISTS
    if fde.is_mariadb and fde.version_split >= (10, 10, 1):
        mask |= L.OPTION_EXPLICIT_DEF_TIMESTAMP
    # 10.11.19 prints system_versioning_insert_history for every log, MySQL ones included
    return mask | L.OPTION_INSERT_HISTORY


# -- handlers for the events process_event() treats specially -------------------

def handle_ignorable(p, reader, raw, body):
    p.print_skip_replication(raw)
    P.print_ignorable(p, raw, body)


def handle_format_description(p, reader, raw, body):
    p.header_len = reader.fde.header_len
    P.print_format_description(p, raw, body)
    if not p.options.force_if_open and raw.flags & L.LOG_EVENT_BINLOG_IN_USE_F:
        raise BinlogError(
            f"Attempting to dump binlog '{reader.display_name}', which was not closed properly. "
            "Most probably, mariadbd is still writing it, or it crashed. "
            "Rerun with --force-if-open to ignore this problem.",
            path=reader.display_name, offset=raw.pos, type_code=raw.type_code)


def handle_query(p, reader, raw, body):
    body = mariadb_status_view(body)
    is_xa = bool(p.state.gtid_ev_flags2 & (L.FL_PREPARED_XA | L.FL_COMPLETED_XA))
    if not P.is_trans_keyword(body.query, is_xa):
        if p.shall_skip_database(body.db):
            return
    else:
        raw.flags |= L.LOG_EVENT_SUPPRESS_USE_F
    print_use_stmt(p, raw, body)
    p.print_skip_replication(raw)
    P.print_query(p, raw, body)


def rewrite_db(p, db):
    """Rpl_filter::get_rewrite_db: the new name of `db`, or None."""
    for source, target in p.options.rewrite_db:
        if source == db:
            return target
    return None


def print_use_stmt(p, raw, body):
    """--rewrite-db: 'use `to`' when the default database changes to a renamed one."""
    if (not p.options.rewrite_db or raw.flags & L.LOG_EVENT_SUPPRESS_USE_F or body.db is None
            or body.db == p.state.db):
        return
    target = rewrite_db(p, body.db)
    if target is None:
        return
    p.write(b"use %s%s\n" % (P.backtick(target), p.state.delimiter))
    P.remember_db(p.state, body)    # the original name: print_query_header prints no 'use'


def handle_begin_load_query(p, reader, raw, body):
    P.print_block(p, raw, body)
    base = p.load_file_base(body.file_id)
    try:
        if p.create_load_file(body.file_id, body.block) is not None:
            return
    except OSError as exc:
        raise BinlogError(f"Could not construct local filename {base}: {exc.strerror}",
                          path=reader.display_name, offset=raw.pos) from None
    raise BinlogError(f"Could not construct local filename {base}.", path=reader.display_name,
                      offset=raw.pos)


def handle_append_block(p, reader, raw, body):
    P.print_block(p, raw, body)
    if not p.append_load_block(body.file_id, body.block):
        p.warn(f"Ignoring Append_block as there is no Create_file event for file_id: {body.file_id}")


def handle_execute_load_query(p, reader, raw, body):
    name = p.load_files.pop(body.file_id, None)
    if p.shall_skip_database(body.db):
        return
    print_use_stmt(p, raw, body)
    if name is None:
        p.warn(f"Ignoring Execute_load_query since there is no Begin_load_query event for "
               f"file_id: {body.file_id}")
        return
    p.print_skip_replication(raw)
    P.print_execute_load_query(p, raw, body, name.encode())


def handle_annotate_rows(p, reader, raw, body):
    if not p.options.skip_annotate_row_events:
        p.annotate = (raw, body)


def handle_table_map(p, reader, raw, body):
    opts = p.options
    if (p.shall_skip_database(body.db)
            or (opts.table is not None and body.table != opts.table)):
        p.state.ignored_maps[body.table_id] = body
        return
    if p.annotate is not None:
        P.print_annotate_rows(p, *p.annotate)
        p.annotate = None
    if opts.rewrite_db:
        target = rewrite_db(p, body.db)
        if target is not None:
            raw, body = rewritten_table_map(raw, body, target, reader.fde)
    p.require_fd_printed(reader, raw)
    P.print_table_map(p, raw, body)
    if p.flashback is not None:
        p.flashback.statement_events.clear()


def rewritten_table_map(raw, body, target, fde):
    """Table_map_log_event::rewrite_db: the event with another database name.

    The new name replaces the old one in the event bytes (length byte and
    event length updated); the stored checksum is kept as it was, as the
    real tool keeps it."""
    start = min(fde.header_len, L.LOG_EVENT_HEADER_LEN) + 8
    data = bytes(raw.data)
    old_len = data[start]
    new = bytearray(data[:start]) + bytes((len(target),)) + target + data[start + 1 + old_len:]
    L.UINT32.pack_into(new, L.EVENT_LEN_OFFSET, len(new))
    header = (raw.when, raw.type_code, raw.server_id, len(new), raw.log_pos, raw.flags)
    new_raw = PyRawEvent(raw.pos, header, bytes(new), raw.end + len(new) - len(data), raw.checksum)
    return new_raw, replace(body, db=target, plans={})


def handle_rows(p, reader, raw, body):
    if p.flashback is not None and raw.type_code not in PRE_GA_ROWS_EVENTS:
        p.flashback.rows(reader, raw, body)
        return
    st = p.state
    skip = body.table_id in st.ignored_maps
    if body.stmt_end:
        p.rows_statement_end(skip)
    if skip:
        return
    p.require_fd_printed(reader, raw)
    if raw.type_code in L.COMPRESSED_ROWS_EVENT_TYPES:
        raw.data = R.uncompressed_event(raw, body, reader.fde)
    P.print_rows(p, raw, body)


EVENT_HANDLERS = {
    L.FORMAT_DESCRIPTION_EVENT: handle_format_description,
    L.QUERY_EVENT: handle_query,
    L.QUERY_COMPRESSED_EVENT: handle_query,
    L.BEGIN_LOAD_QUERY_EVENT: handle_begin_load_query,
    L.APPEND_BLOCK_EVENT: handle_append_block,
    L.EXECUTE_LOAD_QUERY_EVENT: handle_execute_load_query,
    L.ANNOTATE_ROWS_EVENT: handle_annotate_rows,
    L.TABLE_MAP_EVENT: handle_table_map,
}
EVENT_HANDLERS.update({code: handle_rows for code in L.ROWS_EVENT_TYPES})
EVENT_HANDLERS.update(legacy.HANDLERS)


def unreached_stop_warnings(printer, options):
    """mariadb-binlog 10.11's warnings for a --stop-datetime / integer --stop-position that no
    event reached (an end of the last file at or after the position counts as reached)."""
    out = []
    if options.stop_datetime != MY_TIME_T_MAX and "datetime" not in printer.stops_reached:
        text = options.stop_datetime_text
        out.append(f"Did not reach stop datetime '{text}' before end of input")
    if (options.stop_gtids is None and options.stop_position != (1 << 64) - 1
            and "position" not in printer.stops_reached
            and printer.end_position < options.stop_position):
        out.append(f"Did not reach stop position {options.stop_position} before end of input")
    return out


def dump(paths, out, options, zone, warn=None, error=None, remote=None):
    """Print `paths` like mariadb-binlog; returns normally or raises BinlogError.

    `warn` and `error` get the WARNING / ERROR lines the real tool writes
    to stderr besides the one error a BinlogkitError carries.  With `remote`
    (a printer.mariadb.remote.RemoteSource) the paths are log names on a server."""
    printer = Printer(out, options, zone, remote)
    printer.warn = warn or (lambda msg: None)
    printer.error = error or (lambda msg: None)
    printer.preamble()
    printer.stops_reached = set()
    try:
        start = options.start_position
        try:
            for i, path in enumerate(paths):
                last = i == len(paths) - 1
                stop = options.stop_position if last else (1 << 64) - 1
                printer.end_position = 0
                if printer.dump_file(path, start, stop):
                    break
                start = L.BIN_LOG_HEADER_SIZE
        except BinlogkitError as exc:   # the real tool warns after its error line
            if (isinstance(exc, BinlogError) and last and exc.offset is not None
                    and not refused_event(exc)):
                printer.end_position = exc.offset       # a read there counts as reaching it
            exc.warnings = unreached_stop_warnings(printer, options)
            printer.gtids.verify_completed_state(exc.warnings.append)
            raise
        for message in unreached_stop_warnings(printer, options):
            printer.warn(message)
        printer.gtids.verify_completed_state(printer.warn)
        if printer.flashback is not None:
            printer.flashback.write_output(printer.write)
        printer.postamble()
    finally:
        printer.flush()
    errors, warnings = printer.gtids.final_report()
    for message in warnings:
        printer.warn(message)
    if errors:
        for message in errors[:-1]:
            printer.error(message)
        raise BinlogkitError(errors[-1])
