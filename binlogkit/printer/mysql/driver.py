"""The mysqlbinlog 8.0 driver: files in, text out.

`dump_mysql(paths, out, options, zone, ...)` follows client/mysqlbinlog.cc of
MySQL 8.0.41: main() (preamble, postamble), dump_multiple_logs() (one
DELIMITER block and one PRINT_EVENT_INFO for all files, end_binlog()),
dump_local_log_entries() (read_fdle before --start-position, read errors),
process_event() (offset / datetime / server-id / position filters, the GTID
filters, Intvar/Rand/User_var buffering, --database, the rows-statement
caches) and Transaction_payload_log_event::print (inner events of a
compressed transaction).  Like the real tool, an error still prints the
closing statements and the postamble before the exit status says 1.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.reader import BinlogReader
from binlogkit.errors import (
    BinlogError, ChecksumMismatchError, ReadFailedError, TruncatedEventError,
)
from binlogkit.printer.driver import PrinterBase, StopDump
from binlogkit.printer.mysql import decode as D
from binlogkit.printer.mysql import events as E
from binlogkit.printer.mysql import gtid as G
from binlogkit.printer.mysql import rows as RW
from binlogkit.printer.mysql.fast import FastRows, fast_rows_eligible
from binlogkit.printer.mysql.format import DEFAULT_FORMAT, mysql_format
from binlogkit.printer.mysql.remote import RemoteDumpError, dump_remote_log
from binlogkit.printer.mysql.rewrite import rewrite_event
from binlogkit.printer.mysql.state import MysqlState
from binlogkit.printer.state import BASE64_DECODE_ROWS, BASE64_NEVER

ROWS_TYPES = frozenset({L.WRITE_ROWS_EVENT, L.UPDATE_ROWS_EVENT, L.DELETE_ROWS_EVENT,
                        L.WRITE_ROWS_EVENT_V1, L.UPDATE_ROWS_EVENT_V1, L.DELETE_ROWS_EVENT_V1,
                        L.PARTIAL_UPDATE_ROWS_EVENT})
GTID_TYPES = frozenset({L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT, L.GTID_TAGGED_LOG_EVENT})
NEVER_FILTERED = frozenset({L.SLAVE_EVENT, L.STOP_EVENT, L.FORMAT_DESCRIPTION_EVENT,
                            L.ROTATE_EVENT, L.IGNORABLE_LOG_EVENT, L.INCIDENT_EVENT})


class MysqlPrinter(PrinterBase):
    """mysqlbinlog 8.0's globals and PRINT_EVENT_INFO for one run."""

    PREAMBLE = (b"# The proper term is pseudo_replica_mode, but we use this compatibility alias\n"
                b"# to make the statement usable on server versions 8.0.24 and older.\n"
                b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n")

    def __init__(self, out, options, zone, gtids, warn):
        super().__init__(out, options, zone)
        self.warn = warn
        self.deferred_warnings = []         # said after the error that ended the dump
        self.gtids = gtids
        self.skip_gtids = gtids.skip
        # without GTID options shall_skip_gtids() can only answer "no"
        self.gtid_filtering = bool(gtids.skip or gtids.include is not None or gtids.exclude is not None)
        self.state = MysqlState()
        self.rec_count, self.offset = 0, options.offset
        self.start_datetime = options.start_datetime
        self.stop_position = (1 << 64) - 1
        self.in_transaction = self.seen_gtid = self.filter_based_on_gtids = False
        self.is_first_fd = True
        self.buffered = []                  # buff_ev: deferred Intvar/Rand/User_var
        self.glob_format = DEFAULT_FORMAT   # glob_description_event
        self.display_name = ""
        self.print_table_metadata = options.print_table_metadata
        # mysqlbinlog 9.7's text rather than 8.0.41's; auto: the first log's server decides
        self.v9 = options.mysqlbinlog_version == "9.7"
        self.auto_version = options.mysqlbinlog_version is None
        # whole row statements through the C printer, where it may (printer/mysql/fast.py)
        self.fast = FastRows(self) if fast_rows_eligible(options) else None

    # -- output -----------------------------------------------------------------------
    def preamble(self):
        super().preamble()
        if self.options.idempotent:
            self.write(b"/*!50700 SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT*/;\n\n")
        if self.options.require_row_format:
            self.write(b"/*!80019 SET @@SESSION.REQUIRE_ROW_FORMAT=1*/;\n\n")

    def postamble_tail(self):
        return b"/*!50700 SET @@SESSION.RBR_EXEC_MODE=STRICT*/;\n" if self.options.idempotent else b""

    def flush_statement(self):
        st = self.state
        self.flush_cache(st.head)
        self.flush_cache(st.body)
        self.flush_cache(st.footer)

    # -- main() and dump_multiple_logs() ------------------------------------------------
    def dump_files(self, paths, streams=None, remote=None):
        """dump_multiple_logs; returns the BinlogError that ended it, or None.
        With `remote` (a RemoteSource) the paths are log names on a server."""
        st, opts = self.state, self.options
        self.write(b"DELIMITER /*!*/;\n")
        error = None
        start = opts.start_position
        for i, path in enumerate(paths):
            self.stop_position = opts.stop_position if i == len(paths) - 1 else (1 << 64) - 1
            try:
                if remote is not None:
                    dump_remote_log(self, remote, path, start)
                else:
                    self.dump_file(path, start, streams.get(path) if streams else None)
            except StopDump:
                break
            except (BinlogError, RemoteDumpError) as exc:
                error = exc
                break
            start = L.BIN_LOG_HEADER_SIZE
        # the real tool says its error at once: warnings of the end come after it
        warn = self.warn if error is None else self.deferred_warnings.append
        if self.buffered:
            warn("The range of printed events ends with an Intvar_event, Rand_event or "
                      "User_var_event with no matching Query_log_event. This might be because "
                      "the last statement was not fully written to the log, or because you are "
                      "using a --stop-position or --stop-datetime that refers to an event in the "
                      "middle of a statement. The event(s) from the partial statement have not "
                      "been written to output. ")
        elif st.have_unflushed_events:
            warn("The range of printed events ends with a row event or a table map event "
                      "that does not have the STMT_END_F flag set. This might be because the last "
                      "statement was not fully written to the log, or because you are using a "
                      "--stop-position or --stop-datetime that refers to an event in the middle "
                      "of a statement. The event(s) from the partial statement have not been "
                      "written to output.")
        if st.skipped_event_in_transaction:
            self.write(b"COMMIT /* added by mysqlbinlog */%s\n" % st.delimiter)
        self.end_binlog()
        self.write(b"DELIMITER ;\n")
        st.delimiter = b";"
        return error

    def end_binlog(self):
        d = self.state.delimiter
        if self.in_transaction:
            self.write(b"ROLLBACK /* added by mysqlbinlog */ %s\n" % d)
        elif self.seen_gtid and not self.skip_gtids:
            self.write(b"BEGIN /*added by mysqlbinlog */ %s\nROLLBACK /* added by mysqlbinlog */ %s\n"
                       % (d, d))
        if not self.skip_gtids:
            self.write(b"SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ %s\n" % d)
        self.seen_gtid = self.in_transaction = False

    # -- dump_local_log_entries ---------------------------------------------------------
    def dump_file(self, path, start_position, stream=None):
        reader = BinlogReader(path, start_position=start_position,
                              verify_checksum=self.options.verify_checksum, stream=stream)
        self.display_name = reader.display_name
        try:
            reader.open()
        except BinlogError:
            raise BinlogError("Could not open log file", offset=0) from None
        try:
            return self._dump_reader(reader, start_position)
        finally:
            reader.close()

    def _read_magic(self, reader):
        try:
            reader.read_magic()
        except BinlogError as exc:
            text = str(exc.message)
            if text.startswith("Failed reading header"):
                text = "I/O error reading the header from the binary log"
            elif not text.startswith("Reading encrypted"):
                text = ("Binlog has bad magic number;  It's not a binary log file "
                        "that can be used by this version of MySQL")
            raise BinlogError(text, offset=0) from None

    def _dump_reader(self, reader, start_position):
        self._read_magic(reader)
        self.file_format = DEFAULT_FORMAT
        self.file_flags = 0
        pos = L.BIN_LOG_HEADER_SIZE
        if start_position > L.BIN_LOG_HEADER_SIZE:
            fdle, pos, event_start = self.read_fdle(reader, start_position)
            if fdle is not None:
                self.process_event(*fdle, event_start)
            pos = max(pos, start_position)
        self.event_loop(reader, pos)

    def event_loop(self, reader, pos):
        """process_event() for every event the reader has from `pos` on, whole row
        statements through the C printer where it may (a file, or a batch of
        received events held by a remote.framer.ReceivedEvents)."""
        fast = self.fast
        while True:
            if fast is not None:
                pos = fast.print_statements(reader, pos)
            try:
                ev = reader.next_event(pos)
            except TruncatedEventError as exc:
                if self.file_in_use:
                    self.warn("File ends with a truncated event.")
                    return
                self.read_error(exc.offset, D.EVENT_TOO_BIG if getattr(exc, "data_len", 0)
                                > D.MAX_EVENT_SIZE else D.TRUNC_EVENT, exc.type_code)
            except ChecksumMismatchError as exc:
                self.read_error(exc.offset, D.CHECKSUM_FAILURE, exc.type_code)
            except ReadFailedError as exc:
                self.read_error(exc.offset, D.IO_ERROR, exc.type_code)
            except BinlogError as exc:
                self.read_error(exc.offset, D.BOGUS, exc.type_code)
            if ev is None:
                return
            pos += ev.event_size
            if self.options.rewrite_db:
                ev = rewrite_event(ev, self.options.rewrite_db, self.file_format)
            try:
                body = self.decode(ev, reader)
            except D.ReadError as exc:
                self.read_error(ev.pos, exc.text, ev.type_code)
            self.process_event(ev, body, ev.pos)

    def read_error(self, offset, text, type_code=None):
        raise BinlogError(f"{D.READ_ERROR.format(offset)} {text}", offset=offset, type_code=type_code)

    @property
    def file_in_use(self):
        return bool(self.file_flags & L.LOG_EVENT_BINLOG_IN_USE_F)

    def read_fdle(self, reader, offset):
        """Read the FDE (past Previous_gtids and Rotate events) before --start-position."""
        fdle, pos, event_start = None, L.BIN_LOG_HEADER_SIZE, L.BIN_LOG_HEADER_SIZE
        self.file_flags = 0
        while pos < offset:
            event_start = pos
            try:
                ev = reader.read_event_at(pos)
                if ev is None:
                    break
                body = self.decode(ev, reader)
            except (BinlogError, D.ReadError):
                break
            pos += ev.event_size
            if ev.type_code == L.FORMAT_DESCRIPTION_EVENT:
                fdle = (ev, body)
            elif ev.type_code not in (L.PREVIOUS_GTIDS_LOG_EVENT, L.ROTATE_EVENT):
                break
        return fdle, pos, event_start

    # -- deserialization (binlog_event_deserialize) ------------------------------------------
    def start_remote_log(self):
        """A dump starts: the format is the default until the server sends its own."""
        self.file_format = DEFAULT_FORMAT
        self.file_flags = 0

    def decode_remote(self, ev, reader):
        """decode() of a received event: dump_remote_log_entries' words for a refused one."""
        try:
            return self.decode(ev, reader)
        except D.ReadError as exc:
            raise RemoteDumpError(f"Could not construct log event object: {exc.text}") from None

    def decode(self, ev, reader=None):
        """The event body; D.ReadError for what mysqlbinlog 8.0 cannot deserialize."""
        t = ev.type_code
        if t == L.FORMAT_DESCRIPTION_EVENT:
            try:
                fmt = mysql_format(ev.data)
            except ValueError:
                raise D.ReadError(D.TRUNC_FD_EVENT) from None
            self.file_format = fmt
            self.file_flags = ev.flags
            return D.FormatDescriptionBody(fmt, ev.flags)
        fmt = self.file_format
        if (fmt.permutation is not None and t < len(fmt.permutation)
                and getattr(reader and reader.fde, "event_type_permutation", None) is None):
            ev.type_code = t = fmt.permutation[t]     # the reader left the ids unpermuted
        elif t > fmt.number_of_event_types:
            raise D.ReadError(D.INVALID_EVENT)
        return D.decode_body(ev, fmt, self.v9)

    # -- process_event ----------------------------------------------------------------------
    def process_event(self, ev, body, pos, skip_pos_check=False):
        try:
            return self._process(ev, body, pos, skip_pos_check)
        finally:
            self.rec_count += 1

    def _process(self, ev, body, pos, skip_pos_check):
        st, opts = self.state, self.options
        t = ev.type_code
        is_fde = t == L.FORMAT_DESCRIPTION_EVENT
        if not is_fde and not (self.rec_count >= self.offset and ev.when >= self.start_datetime):
            return
        if not is_fde:
            self.start_datetime = 0
            self.offset = 0
            if t != L.ROTATE_EVENT and opts.server_id and opts.server_id != ev.server_id:
                return
        if not skip_pos_check and pos >= self.stop_position:
            raise StopDump()
        if ev.when >= opts.stop_datetime:
            raise StopDump()
        if opts.require_row_format and violates_row_format(self, ev, body):
            raise BinlogError("Event being written violates the --require-row-format parameter "
                              "constraints.", offset=pos, type_code=t)
        if not opts.short_form:
            st.head.append(b"# at %d\n" % pos)
        st.hexdump_from = pos if opts.hexdump else 0
        if self.gtid_filtering and self.shall_skip_gtids(ev, body):
            return
        if HANDLERS.get(t, handle_default)(self, ev, body, pos):
            self.flush_cache(st.head)

    def shall_skip_gtids(self, ev, body):
        t = ev.type_code
        if t in GTID_TYPES:
            filtered = self.gtids.filters(body)
            self.filter_based_on_gtids = filtered
            return filtered or self.skip_gtids
        if t == L.PREVIOUS_GTIDS_LOG_EVENT:
            return self.skip_gtids
        if t == L.XID_EVENT:
            filtered, self.filter_based_on_gtids = self.filter_based_on_gtids, False
            return filtered
        if t == L.QUERY_EVENT:
            filtered = self.filter_based_on_gtids
            if E.ends_group(body.query):
                self.filter_based_on_gtids = False
            return filtered
        if t in NEVER_FILTERED:
            return False
        return self.filter_based_on_gtids

    def require_fd_printed(self, ev):
        opts, st = self.options, self.state
        if (st.printed_fd_event or opts.short_form or ev.type_code in (L.TABLE_MAP_EVENT, L.ROWS_QUERY_LOG_EVENT)
                or opts.base64_output == BASE64_DECODE_ROWS):
            return
        name = RW.type_name(ev.type_code)
        if opts.base64_output == BASE64_NEVER:
            msg = (f"--base64-output=never specified, but binlog contains a {name} event which "
                   "must be printed in base64.")
        else:
            msg = ("malformed binlog: it does not contain any Format_description_log_event. "
                   f"I now found a {name} event, which is not safe to process without a "
                   "Format_description_log_event.")
        raise BinlogError(msg, offset=ev.pos, type_code=ev.type_code)


# events a session with require_row_format refuses: statement-based changes and what they
# need (user variables, LOAD DATA files)
STATEMENT_ONLY_TYPES = frozenset({
    L.INTVAR_EVENT, L.RAND_EVENT, L.USER_VAR_EVENT, L.LOAD_EVENT, L.NEW_LOAD_EVENT,
    L.CREATE_FILE_EVENT, L.APPEND_BLOCK_EVENT, L.EXEC_LOAD_EVENT, L.DELETE_FILE_EVENT,
    L.BEGIN_LOAD_QUERY_EVENT, L.EXECUTE_LOAD_QUERY_EVENT})


def violates_row_format(p, ev, body):
    """--require-row-format: an event a row-format-only applier refuses (a statement that
    changes rows inside a transaction, a temporary table, LOAD DATA, user variables)."""
    if ev.type_code in STATEMENT_ONLY_TYPES:
        return True
    if ev.type_code != L.QUERY_EVENT or not hasattr(body, "query"):
        return False
    query = body.query.lstrip()
    words = query[:40].upper().split()
    if words[:2] in ([b"CREATE", b"TEMPORARY"], [b"DROP", b"TEMPORARY"]):
        return True
    return p.in_transaction and not E.is_trans_keyword(query)


# -- handlers: True = flush the head cache afterwards (process_event's `break`) ------------------

def handle_default(p, ev, body, pos):
    PRINTERS.get(ev.type_code, print_fallback)(p, ev, body)
    return True


def print_fallback(p, ev, body):
    if isinstance(body, D.IgnorableBody):
        E.print_ignorable(p, ev, body)
    else:
        E.print_unknown(p, ev, body)


def handle_payload(p, ev, body, pos):
    G.print_transaction_payload(p, ev, body)
    return True


def handle_query(p, ev, body, pos):
    st = p.state
    parent_skips = not E.is_trans_keyword(body.query) and p.shall_skip_database(body.db)
    ends, starts = E.ends_group(body.query), E.starts_group(body.query)
    buffered, p.buffered = p.buffered, []
    for bev, bbody, bpos in buffered:
        st.hexdump_from = bpos if p.options.hexdump else 0
        if not parent_skips:
            PRINTERS[bev.type_code](p, bev, bbody)
    st.hexdump_from = pos if p.options.hexdump else 0
    if parent_skips:
        if p.seen_gtid and not p.in_transaction and not starts and not ends:
            p.write(b"COMMIT /* added by mysqlbinlog */%s\n" % st.delimiter)
            st.skipped_event_in_transaction = False
            p.in_transaction = p.seen_gtid = False
        else:
            st.skipped_event_in_transaction = True
        return False
    if ends:
        p.in_transaction = False
        st.skipped_event_in_transaction = False
        p.seen_gtid = False
    elif starts:
        p.in_transaction = True
    elif not p.in_transaction:
        p.seen_gtid = False
    E.print_query(p, ev, body)
    return True


def handle_buffered(p, ev, body, pos):
    p.buffered.append((ev, body, pos))
    return True


def handle_append_block(p, ev, body, pos):
    E.print_block(p, ev, body)
    if not p.append_load_block(body.file_id, body.block):
        p.warn("Ignoring Append_block as there is no Begin_load_query_log_event for "
               f"file_id: {body.file_id}")
    return True


def handle_format_description(p, ev, body, pos):
    st = p.state
    if p.auto_version:
        p.v9 = body.format.version_split[0] >= 9
        p.auto_version = False
    if not ev.flags & L.LOG_EVENT_RELAY_LOG_F:
        p.glob_format = body.format
        if ev.log_pos > 0 and not p.is_first_fd:
            p.end_binlog()
        p.is_first_fd = False
    st.common_header_len = body.format.header_len
    E.print_format_description(p, ev, body)
    if not p.options.force_if_open and ev.flags & L.LOG_EVENT_BINLOG_IN_USE_F:
        raise BinlogError(f"Attempting to dump binlog '{p.display_name}', which was not closed "
                          "properly. Most probably, mysqld is still writing it, or it crashed. "
                          "Rerun with --force-if-open to ignore this problem.",
                          offset=pos, type_code=ev.type_code)
    return True


def handle_begin_load_query(p, ev, body, pos):
    E.print_block(p, ev, body)
    try:
        if p.create_load_file(body.file_id, body.block) is not None:
            return True
    except OSError:
        pass
    raise BinlogError(f"Could not construct local filename {p.load_dir}/SQL_LOAD_MB.", offset=pos,
                      type_code=ev.type_code)


def handle_execute_load_query(p, ev, body, pos):
    name = p.load_files.pop(body.file_id, None)
    if p.shall_skip_database(body.db):
        p.state.skipped_event_in_transaction = True
    elif name is not None:
        E.print_execute_load_query(p, ev, body, name.encode())
    else:
        p.warn("Ignoring Execute_load_query since there is no Begin_load_query event for "
               f"file_id: {body.file_id}")
    return True


def handle_table_map(p, ev, body, pos):
    if isinstance(body, (D.UnknownBody, D.IgnorableBody)):
        return handle_default(p, ev, body, pos)
    if p.shall_skip_database(body.db):
        p.state.skipped_event_in_transaction = True
        p.state.ignored_maps[body.table_id] = body
        return False
    return handle_rows(p, ev, body, pos)


def handle_rows(p, ev, body, pos):
    st = p.state
    if isinstance(body, (D.UnknownBody, D.IgnorableBody)):
        return handle_default(p, ev, body, pos)
    stmt_end, skip = False, False
    if ev.type_code in ROWS_TYPES or ev.type_code in RW.PRE_GA_ROWS_TYPES:
        stmt_end = body.stmt_end
        skip = body.table_id in st.ignored_maps
    if stmt_end:
        st.ignored_maps.clear()
        if skip:
            st.have_unflushed_events = False
            if st.body:
                st.body.append(b"'%s\n" % st.delimiter)
            p.flush_statement()
    if skip:
        st.skipped_event_in_transaction = True
        return False
    p.require_fd_printed(ev)
    RW.ROW_PRINTERS[ev.type_code](p, ev, body)
    st.have_unflushed_events = True
    if stmt_end:
        st.have_unflushed_events = False
        p.flush_statement()
        return False
    return True


def handle_gtid(p, ev, body, pos):
    st = p.state
    p.seen_gtid = True
    st.immediate_server_version = body.immediate_server_version
    if st.skipped_event_in_transaction:
        p.write(b"COMMIT /* added by mysqlbinlog */%s\n" % st.delimiter)
    st.skipped_event_in_transaction = False
    G.print_gtid(p, ev, body)
    return True


def handle_xid(p, ev, body, pos):
    p.in_transaction = False
    p.state.skipped_event_in_transaction = False
    p.seen_gtid = False
    E.print_xid(p, ev, body)
    return True


def handle_previous_gtids(p, ev, body, pos):
    if p.options.database is not None and not p.skip_gtids:
        p.warn("The option --database has been used. It may filter parts of transactions, but "
               "will include the GTIDs in any case. If you want to exclude or include "
               "transactions, you should use the options --exclude-gtids or --include-gtids, "
               "respectively, instead.")
    return handle_default(p, ev, body, pos)


HANDLERS = {
    L.TRANSACTION_PAYLOAD_EVENT: handle_payload, L.QUERY_EVENT: handle_query,
    L.INTVAR_EVENT: handle_buffered, L.RAND_EVENT: handle_buffered, L.USER_VAR_EVENT: handle_buffered,
    L.APPEND_BLOCK_EVENT: handle_append_block, L.FORMAT_DESCRIPTION_EVENT: handle_format_description,
    L.BEGIN_LOAD_QUERY_EVENT: handle_begin_load_query,
    L.EXECUTE_LOAD_QUERY_EVENT: handle_execute_load_query, L.TABLE_MAP_EVENT: handle_table_map,
    L.ROWS_QUERY_LOG_EVENT: handle_rows, L.GTID_LOG_EVENT: handle_gtid,
    L.ANONYMOUS_GTID_LOG_EVENT: handle_gtid, L.GTID_TAGGED_LOG_EVENT: handle_gtid,
    L.XID_EVENT: handle_xid, L.PREVIOUS_GTIDS_LOG_EVENT: handle_previous_gtids,
}
HANDLERS.update({t: handle_rows for t in ROWS_TYPES | RW.PRE_GA_ROWS_TYPES})

PRINTERS = {
    L.INTVAR_EVENT: E.print_intvar, L.RAND_EVENT: E.print_rand, L.USER_VAR_EVENT: E.print_user_var,
    L.ROTATE_EVENT: E.print_rotate, L.STOP_EVENT: E.print_stop, L.INCIDENT_EVENT: E.print_incident,
    L.XA_PREPARE_LOG_EVENT: E.print_xa_prepare, L.DELETE_FILE_EVENT: E.print_delete_file,
    L.PREVIOUS_GTIDS_LOG_EVENT: G.print_previous_gtids,
    L.TRANSACTION_CONTEXT_EVENT: G.print_transaction_context, L.VIEW_CHANGE_EVENT: G.print_view_change,
}


def dump_mysql(paths, out, options, zone, gtids, warn=None, error=None, streams=None,
               remote=None):
    """Print `paths` like mysqlbinlog 8.0 (with `remote`: log names on a server, as
    mysqlbinlog -R); raises BinlogError after the text on failure."""
    printer = MysqlPrinter(out, options, zone, gtids, warn or (lambda msg: None))
    printer.error = error or (lambda msg: None)
    if options.short_form:
        printer.warn("--short-form is deprecated and will be removed in a future version\n")
    printer.preamble()
    try:
        error = printer.dump_files(paths, streams, remote)
        printer.postamble()
    finally:
        printer.flush()
    if isinstance(error, RemoteDumpError):
        raise error
    if error is not None:
        exc = BinlogError(error.message, path=printer.display_name or None, offset=error.offset,
                          type_code=error.type_code)
        exc.warnings = printer.deferred_warnings
        raise exc
