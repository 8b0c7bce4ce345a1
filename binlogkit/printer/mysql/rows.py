"""mysqlbinlog 8.0 text for row-based events: Table_map, rows, Rows_query.

Table_map_log_event::print, Rows_log_event::print_helper,
Rows_query_log_event::print and the -v part of Log_event::print_base64
(sql/log_event.cc, MySQL 8.0.41).  Header lines go to the head cache, the
BINLOG base64 to the body cache, the ### lines to the footer cache; the
driver flushes the three at the end of the statement.
"""
from binlogkit.binlog import layout as L
from binlogkit.printer.mysql import jsontext
from binlogkit.printer.mysql import tablemeta
from binlogkit.printer.mysql.header import print_base64, print_header
from binlogkit.printer.mysql.state import UNDEFINED_SERVER_VERSION
from binlogkit.printer.mysql.verbose import print_verbose
from binlogkit.printer.safety import comment_safe

TM_GENERATED_INVISIBLE_PK_F = 1 << 2

# Log_event::get_type_str of MySQL 8.0
TYPE_NAMES = {
    L.WRITE_ROWS_EVENT_V1: b"Write_rows_v1", L.UPDATE_ROWS_EVENT_V1: b"Update_rows_v1",
    L.DELETE_ROWS_EVENT_V1: b"Delete_rows_v1", L.WRITE_ROWS_EVENT: b"Write_rows",
    L.UPDATE_ROWS_EVENT: b"Update_rows", L.DELETE_ROWS_EVENT: b"Delete_rows",
    L.PARTIAL_UPDATE_ROWS_EVENT: b"Update_rows_partial", L.TABLE_MAP_EVENT: b"Table_map",
    L.ROWS_QUERY_LOG_EVENT: b"Rows_query",
    # 5.1 pre-GA rows events, named as mysqlbinlog 5.x names them
    L.PRE_GA_WRITE_ROWS_EVENT: b"Write_rows_event_old", L.PRE_GA_UPDATE_ROWS_EVENT: b"Update_rows_event_old",
    L.PRE_GA_DELETE_ROWS_EVENT: b"Delete_rows_event_old",
}
PRE_GA_ROWS_TYPES = frozenset({L.PRE_GA_WRITE_ROWS_EVENT, L.PRE_GA_UPDATE_ROWS_EVENT,
                               L.PRE_GA_DELETE_ROWS_EVENT})


# Rows_log_event's flags as mysqlbinlog 9.x names them, in its order; other bits are
# printed together as UNKNOWN_FLAG(0x..)
ROWS_FLAG_NAMES = ((L.STMT_END_F, b"STMT_END_F"), (L.NO_FOREIGN_KEY_CHECKS_F, b"NO_FOREIGN_KEY_CHECKS_F"),
                   (L.RELAXED_UNIQUE_CHECKS_F, b"RELAXED_UNIQUE_CHECKS_F"),
                   (L.USE_SQL_FOREIGN_KEY_F, b"USE_SQL_FOREIGN_KEY_F"),
                   (L.COMPLETE_ROWS_F, b"COMPLETE_ROWS_F"))
KNOWN_ROWS_FLAGS = sum(bit for bit, _ in ROWS_FLAG_NAMES)


def rows_flags_text(flags, v9):
    """What follows 'table id N': 8.0 names STMT_END_F alone; 9.x names every flag."""
    if not v9:
        return b" flags: STMT_END_F" if flags & L.STMT_END_F else b""
    if not flags:
        return b""
    names = [name for bit, name in ROWS_FLAG_NAMES if flags & bit]
    if flags & ~KNOWN_ROWS_FLAGS:
        names.append(b"UNKNOWN_FLAG(0x%x)" % (flags & ~KNOWN_ROWS_FLAGS))
    return b" flags: " + b" ".join(names)


def type_name(type_code):
    return TYPE_NAMES.get(type_code, b"Unknown").decode()


def prints_gipk(st):
    """Whether Table_map lines say has_generated_invisible_primary_key (8.0.30+ sources)."""
    return (st.immediate_server_version != UNDEFINED_SERVER_VERSION
            and st.immediate_server_version >= 80030)


def table_map_text(body, gipk_line, table_metadata):
    """What Table_map_log_event::print writes after the header line."""
    text = [b"\tTable_map: %s mapped to number %d\n"
            % (comment_safe(b"`%s`.`%s`" % (body.db, body.table)), body.table_id)]
    gipk = bool(body.flags & TM_GENERATED_INVISIBLE_PK_F)
    if gipk_line:
        text.append(b"# has_generated_invisible_primary_key=%d\n" % gipk)
    if table_metadata:
        text.append(tablemeta.print_columns(body, gipk))
        text.append(tablemeta.print_primary_key(body, gipk))
    return b"".join(text)


def print_table_map(p, ev, body):
    st, opts = p.state, p.options
    if opts.short_form:
        return
    print_header(p, ev, st.head)
    st.head.append(table_map_text(body, prints_gipk(st), p.print_table_metadata))
    print_base64(p, ev, st.body, True)
    if opts.verbose:
        st.table_maps[body.table_id] = body


def print_rows(p, ev, body):
    """Rows_log_event::print_helper (and the -v part of print_base64)."""
    st, opts = p.state, p.options
    if opts.short_form:
        return
    stmt_end = body.stmt_end
    print_header(p, ev, st.head)
    st.head.append(b"\t%s: table id %d%s\n" % (TYPE_NAMES[ev.type_code], body.table_id,
                                               rows_flags_text(body.flags, p.v9)))
    print_base64(p, ev, st.body, not stmt_end)
    if opts.verbose and ev.type_code not in PRE_GA_ROWS_TYPES:
        tm = st.table_maps.get(body.table_id)
        st.footer.append(print_verbose(tm, body, opts.verbose,
                                       ev.type_code == L.PARTIAL_UPDATE_ROWS_EVENT, jsontext))


def rows_query_escaped(line):
    """A Rows_query line as mysqlbinlog 9.7.4 prints it: backslash, tab, carriage return
    and backspace escaped C-style (checked on a real 9.7: the other control characters,
    quotes and non-ASCII bytes are printed as they are; 8.0's text is raw)."""
    return (line.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\r", b"\\r")
            .replace(b"\x08", b"\\b"))


def print_rows_query(p, ev, body):
    st, opts = p.state, p.options
    if opts.short_form or opts.verbose < 2:
        return
    print_header(p, ev, st.head)
    st.head.append(b"\tRows_query\n")
    query = body.query.split(b"\0", 1)[0]
    for line in query.split(b"\n"):
        if line:
            st.head.append(b"# %s\n" % (rows_query_escaped(line) if p.v9 else line))
    print_base64(p, ev, st.body, True)


ROW_PRINTERS = {t: print_rows for t in (
    L.WRITE_ROWS_EVENT_V1, L.UPDATE_ROWS_EVENT_V1, L.DELETE_ROWS_EVENT_V1, L.WRITE_ROWS_EVENT,
    L.UPDATE_ROWS_EVENT, L.DELETE_ROWS_EVENT, L.PARTIAL_UPDATE_ROWS_EVENT, *PRE_GA_ROWS_TYPES)}
ROW_PRINTERS[L.TABLE_MAP_EVENT] = print_table_map
ROW_PRINTERS[L.ROWS_QUERY_LOG_EVENT] = print_rows_query
