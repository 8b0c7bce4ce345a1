"""Per-event text, byte for byte as mariadb-binlog 10.11 prints it.

One `print_<event>` function per `Log_event::print()` of the MariaDB client,
named after it.  Each writes bytes into the printer's caches (`head`, `body`,
`tail`) or straight to its output, exactly where the real tool does.
"""
from binlogkit.binlog import layout as L
from binlogkit.printer.mariadb.charsets import COLLATIONS
from binlogkit.printer.safety import comment_safe
from binlogkit.printer.state import BASE64_DECODE_ROWS, BASE64_NEVER
from binlogkit.printer.text import (
    INCIDENT_NAMES, backtick, base64_lines, header_text, pretty_print_str, print_auto_increment,
    print_thread_id, print_time_zone_lc_db, signed64, start_text,
    user_var_value as shared_user_var_value,
)

TM_BIT_HAS_TRIGGERS_F = 1 << 14
LOAD_DUP_REPLACE = 2


# events whose get_header_len() is 19 (they are read from offset 19 whatever the header length)
HEXDUMP_MINIMAL_HEADER = frozenset({L.FORMAT_DESCRIPTION_EVENT, L.START_EVENT_V3, L.ROTATE_EVENT})


def print_header(p, raw, cache):
    """Log_event::print_header, plus the --hexdump block."""
    when = raw.when
    cache.append(header_text(p._times.get(when) or p.time_text(when), raw.server_id,
                             raw.log_pos, raw.checksum))
    if p.options.hexdump:     # get_header_len(): 19 for FDE / Start_v3, else the last FDE's
        cache.append(b"\n")
        header_len = (L.LOG_EVENT_HEADER_LEN if raw.type_code in HEXDUMP_MINIMAL_HEADER
                      else p.header_len)
        cache.append(hexdump(raw.data, p.hexdump_from, header_len))
        cache.append(b"# Event: ")


def hexdump(data, pos, header_len):
    """The --hexdump block: common header by field, then 'hexdump -C' lines."""
    h = data[:19]
    out = [b"# Position\n",
           b"#           |Timestamp   |Type |Master ID   |Size        |Master Pos  |Flags\n",
           b"# %8x  |%02x %02x %02x %02x |%02x   |%02x %02x %02x %02x |%02x %02x %02x %02x "
           b"|%02x %02x %02x %02x |%02x %02x\n#\n" % ((pos,) + tuple(h))]
    start = pos + header_len
    rest = data[header_len:]
    for i in range(0, len(rest), 16):
        chunk = rest[i:i + 16]
        hexpart = b" ".join(b"%02x" % c for c in chunk[:8])
        if len(chunk) > 8:
            hexpart += b"  " + b" ".join(b"%02x" % c for c in chunk[8:])
        hexpart += b" "
        text = bytes(c if 0x20 <= c < 0x7F else 0x2E for c in chunk)
        out.append(b"# %8x  %s |%s|\n" % (start + i, hexpart.ljust(49), text))
    if rest:
        out.append(b"#\n")
    return b"".join(out)


def write_base64(p, raw, cache):
    """Log_event::print_base64 with do_print_encoded: the whole event, CRC included."""
    cache.append(base64_lines(raw.data))


def do_print_encoded(p):
    mode = p.options.base64_output
    return mode != BASE64_NEVER and mode != BASE64_DECODE_ROWS and not p.options.short_form


# -- format description --------------------------------------------------------

def print_format_description(p, raw, body):
    st, out = p.state, []
    if not p.options.short_form:
        print_header(p, raw, out)
        out.append(start_text(p, raw, body))
    if not raw.flags & L.LOG_EVENT_ARTIFICIAL_F and body.created:
        out.append(b"ROLLBACK%s\n" % st.delimiter)
    if p.options.base64_output != BASE64_NEVER and not p.options.short_form:
        if p.options.base64_output != BASE64_DECODE_ROWS:
            out.append(b"BINLOG '\n")
            write_base64(p, raw, out)
            out.append(b"'%s\n" % st.delimiter)
        st.printed_fd_event = True
    p.write(b"".join(out))


# -- query family ------------------------------------------------------------------

def is_trans_keyword(query, is_xa=False):
    q = query
    return (b"BEGIN".startswith(q) and q != b"" or b"COMMIT".startswith(q) and q != b""
            or q[:9].upper() == b"SAVEPOINT" or q[:8].upper() == b"ROLLBACK"
            or (is_xa and q[:3].upper() == b"XA "))


def _set_option(parts, changed, option, flags, name):
    if changed & option:
        parts.append(b"%s=%d" % (name, 1 if flags & option else 0))


def print_flags2(p, body, out):
    st = p.state
    changed = (st.flags2 ^ body.flags2) if st.flags2_inited else 0xFFFFFFFF
    st.flags2_inited = True
    if not changed:
        return
    flags2, inverse = body.flags2, ~body.flags2
    mask = p.options_written_mask
    parts = []
    _set_option(parts, changed, L.OPTION_NO_FOREIGN_KEY_CHECKS, inverse, b"@@session.foreign_key_checks")
    _set_option(parts, changed, L.OPTION_AUTO_IS_NULL, flags2, b"@@session.sql_auto_is_null")
    _set_option(parts, changed, L.OPTION_RELAXED_UNIQUE_CHECKS, inverse, b"@@session.unique_checks")
    _set_option(parts, changed, L.OPTION_NOT_AUTOCOMMIT, inverse, b"@@session.autocommit")
    _set_option(parts, changed, L.OPTION_NO_CHECK_CONSTRAINT_CHECKS, inverse,
                b"@@session.check_constraint_checks")
    _set_option(parts, changed, mask & L.OPTION_IF_EXISTS, flags2, b"@@session.sql_if_exists")
    _set_option(parts, changed, mask & L.OPTION_EXPLICIT_DEF_TIMESTAMP, flags2,
                b"@@session.explicit_defaults_for_timestamp")
    _set_option(parts, changed, mask & L.OPTION_INSERT_HISTORY, flags2,
                b"@@session.system_versioning_insert_history")
    out.append(b"SET " + b", ".join(parts) + st.delimiter + b"\n")
    st.flags2 = body.flags2


def print_charset(p, body, out):
    st = p.state
    if body.charset is None or (st.charset_inited and st.charset == body.charset):
        return
    client = int.from_bytes(body.charset[0:2], "little")
    info = COLLATIONS.get(client)
    if info:
        out.append(b"/*!\\C %s */%s\n" % (info[0].encode(), st.delimiter))
    else:
        out.append(b"# Ignored (Unknown charset) ")
    out.append(b"SET @@session.character_set_client=%s,@@session.collation_connection=%d,"
               b"@@session.collation_server=%d%s\n" % (
                   info[0].encode() if info else b"Unknown",
                   int.from_bytes(body.charset[2:4], "little"),
                   int.from_bytes(body.charset[4:6], "little"), st.delimiter))
    st.charset = body.charset
    st.charset_inited = True


def db_key(body):
    """The db_len + 1 bytes at an event's database name (its NUL included): what the
    tools compare with print_event_info->db and copy into it."""
    key = getattr(body, "db_key", None)
    return key if key is not None else body.db + b"\0"


def db_differs(st, key):
    """memcmp(print_event_info->db, db, db_len + 1) (a damaged length compares more or
    fewer bytes than the name has)."""
    return st.db_buf[:len(key)] != key


def remember_db(st, body):
    """The name copied into print_event_info->db."""
    key = db_key(body)
    st.db_buf[:len(key)] = key
    st.db = body.db


def print_query_header(p, raw, body, out):
    """Query_log_event::print_query_header."""
    st, d = p.state, p.state.delimiter
    if not p.options.short_form:
        print_header(p, raw, out)
        out.append(b"\t%s\tthread_id=%d\texec_time=%d\terror_code=%d\txid=%d\n" % (
            L.TYPE_NAMES[raw.type_code].encode(), body.thread_id, body.exec_time,
            body.error_code, body.xid))
    if raw.flags & L.LOG_EVENT_SUPPRESS_USE_F:
        if not is_trans_keyword(body.query, bool(st.gtid_ev_flags2 & (L.FL_PREPARED_XA | L.FL_COMPLETED_XA))):
            st.db = b""
            st.db_buf[0] = 0
    elif db_differs(st, db_key(body)):
        remember_db(st, body)
        if body.db:
            out.append(b"use %s%s\n" % (backtick(body.db), d))
    if body.when_sec_part and body.when_sec_part <= 999999:
        out.append(b"SET TIMESTAMP=%d.%06d%s\n" % (raw.when, body.when_sec_part, d))
    else:
        out.append(b"SET TIMESTAMP=%d%s\n" % (raw.when, d))
    print_thread_id(p, raw, body, out)
    if body.flags2 is not None:
        print_flags2(p, body, out)
    if body.sql_mode is not None and (not st.sql_mode_inited or st.sql_mode != body.sql_mode):
        out.append(b"SET @@session.sql_mode=%d%s\n" % (body.sql_mode, d))
        st.sql_mode, st.sql_mode_inited = body.sql_mode, True
    print_auto_increment(st, body, out)
    print_charset(p, body, out)
    print_time_zone_lc_db(st, body, out)


TWO_PHASE_ALTER = L.FL_START_ALTER_E1 | L.FL_COMMIT_ALTER_E1 | L.FL_ROLLBACK_ALTER_E1


def print_two_phase_alter(p, raw, body, out):
    """A START / COMMIT / ROLLBACK ALTER Query (binlog_alter_two_phase): the real tool prints
    the event as BINLOG base64 (in a 10.6 comment for START and ROLLBACK), never its text;
    -v adds the query as a ### line."""
    d = p.state.delimiter
    if do_print_encoded(p):
        comment = body.gtid_flags3 & (L.FL_START_ALTER_E1 | L.FL_ROLLBACK_ALTER_E1)
        out.append(b"/*!100600 BINLOG '\n" if comment else b"BINLOG '\n")
        write_base64(p, raw, out)
        out.append(b"' */%s\n" % d if comment else b"'%s\n" % d)
    if p.options.verbose:
        out.append(b"### %s\n" % body.query)


def print_query(p, raw, body):
    out = []
    print_query_header(p, raw, body, out)
    if body.gtid_flags3 and body.gtid_flags3 & TWO_PHASE_ALTER and not p.options.flashback:
        print_two_phase_alter(p, raw, body, out)
    elif not p.options.flashback:
        out.append(body.query + b"\n" + p.state.delimiter + b"\n")
    elif body.query == b"BEGIN":        # --flashback: the transaction runs backwards
        out.append(b"COMMIT\n" + p.state.delimiter + b"\n")
    elif body.query == b"COMMIT":
        out.append(b"START TRANSACTION\n" + p.state.delimiter + b"\n")
    p.write_held(b"".join(out))


def print_execute_load_query(p, raw, body, local_fname):
    out = []
    print_query_header(p, raw, body, out)
    q = body.query
    if local_fname is not None:
        out.append(q[:body.fn_pos_start] + b" LOCAL INFILE " + pretty_print_str(local_fname))
        if body.dup_handling == LOAD_DUP_REPLACE:
            out.append(b" REPLACE")
        out.append(b" INTO" + q[body.fn_pos_end:] + b"\n" + p.state.delimiter + b"\n")
    else:
        out.append(q + b"\n" + p.state.delimiter + b"\n")
    if not p.options.short_form:
        out.append(b"# file_id: %d \n" % body.file_id)
    p.write(b"".join(out))


def _header_only(p, raw, text):
    if p.options.short_form:
        return
    out = []
    print_header(p, raw, out)
    out.append(text)
    p.write(b"".join(out))


def print_block(p, raw, body):
    """Append_block / Begin_load_query: a comment with file_id and length."""
    _header_only(p, raw, b"\n#%s: file_id: %d  block_len: %d\n" % (
        L.TYPE_NAMES[raw.type_code].encode(), body.file_id, len(body.block)))


def print_delete_file(p, raw, body):
    _header_only(p, raw, b"\n#Delete_file: file_id=%d\n" % body.file_id)


# -- small statement-context events ---------------------------------------------------

def _simple(p, raw, tag, statement):
    out = []
    if not p.options.short_form:
        print_header(p, raw, out)
        out.append(tag)
    out.append(statement)
    p.write(b"".join(out))


def print_intvar(p, raw, body):
    name = L.INTVAR_NAMES.get(body.type, b"INVALID_INT")
    _simple(p, raw, b"\tIntvar\n", b"SET %s=%d%s\n" % (name, signed64(body.value),
                                                        p.state.delimiter))


def print_rand(p, raw, body):
    _simple(p, raw, b"\tRand\n", b"SET @@RAND_SEED1=%d, @@RAND_SEED2=%d%s\n" % (
        signed64(body.seed1), signed64(body.seed2), p.state.delimiter))


def print_xid(p, raw, body):
    out = []
    if not p.options.short_form:
        print_header(p, raw, out)
        out.append(b"\tXid = %d\n" % body.xid)
    out.append(b"%s%s\n" % (b"START TRANSACTION" if p.options.flashback else b"COMMIT",
                            p.state.delimiter))
    p.write_held(b"".join(out))


def user_var_value(body):
    return shared_user_var_value(body, COLLATIONS, b"X'%s'")


def print_user_var(p, raw, body):
    text = user_var_value(body)
    # a value of no type it prints (ROW_RESULT, or damaged): nothing after the name at all
    end = b"" if not text else p.state.delimiter + b"\n"
    _simple(p, raw, b"\tUser_var\n", b"SET @" + backtick(body.name) + text + end)


# -- control events ----------------------------------------------------------------------

def print_rotate(p, raw, body):
    position = body.position - (1 << 64) if body.position >= 1 << 63 else body.position   # llstr
    _header_only(p, raw, b"\tRotate to %s  pos: %d\n" % (comment_safe(body.new_log_ident), position))


def print_stop(p, raw, body):
    if not p.options.short_form:
        out = []
        print_header(p, raw, out)
        out.append(b"\tStop\n")
        p.write_held(b"".join(out))


def print_binlog_checkpoint(p, raw, body):
    _header_only(p, raw, b"\tBinlog checkpoint %s\n" % comment_safe(body.file_name))


def print_gtid_list(p, raw, body):
    items = b",\n# ".join(b"%d-%d-%d" % g for g in sorted(body.gtids, key=lambda g: (g[0], g[2])))
    _header_only(p, raw, b"\tGtid list [%s]\n" % items)


def print_incident(p, raw, body):
    name = INCIDENT_NAMES.get(body.incident, b"UNKNOWN")
    _header_only(p, raw, b"\n# Incident: %s\nRELOAD DATABASE; # Shall generate syntax error\n" % name)


# get_type_str of mariadb-binlog 10.11 for the events it reads as Ignorable_log_event
# Log_event::get_type_str of 10.11, the name an Ignorable_log_event prints (what
# mariadb-binlog 10.11.19 prints for each type code flagged LOG_EVENT_IGNORABLE_F)
IGNORABLE_NAMES = {
    1: b"Start_v3", 2: b"Query", 3: b"Stop", 4: b"Rotate", 5: b"Intvar", 6: b"Load",
    8: b"Create_file", 9: b"Append_block", 10: b"Exec_load", 11: b"Delete_file", 12: b"New_load",
    13: b"RAND", 14: b"User var", 16: b"Xid", 17: b"Begin_load_query",
    18: b"Execute_load_query", 19: b"Table_map", 20: b"Write_rows_event_old",
    21: b"Update_rows_event_old", 22: b"Delete_rows_event_old", 23: b"Write_rows_v1",
    24: b"Update_rows_v1", 25: b"Delete_rows_v1", 26: b"Incident", 27: b"Heartbeat",
    28: b"Ignorable log event", 29: b"MySQL Rows_query", 30: b"Write_rows", 31: b"Update_rows",
    32: b"Delete_rows", 33: b"MySQL Gtid", 34: b"MySQL Anonymous_Gtid",
    35: b"MySQL Previous_gtids", 36: b"Transaction_context", 37: b"View_change",
    38: b"XA_prepare", 39: b"MySQL Update_rows_partial", 40: b"MySQL Transaction_payload",
    41: b"MySQL Heartbeat", 160: b"Annotate_rows", 161: b"Binlog_checkpoint", 162: b"Gtid",
    163: b"Gtid_list", 164: b"Start_encryption", 165: b"Query_compressed",
    166: b"Write_rows_compressed_v1", 167: b"Update_rows_compressed_v1",
    168: b"Delete_rows_compressed_v1", 169: b"Write_rows_compressed",
    170: b"Update_rows_compressed", 171: b"Delete_rows_compressed",
}
# MySQL's GTID events: ignorable whatever their flags say
# MySQL types mariadb-binlog reads as Ignorable_log_event: GTID, Anonymous_GTID,
# Previous_GTIDs, Transaction_context, View_change, Heartbeat_v2
MYSQL_IGNORED_TYPES = frozenset({33, 34, 35, 36, 37, 41})


def print_ignorable(p, raw, body):
    """Ignorable_log_event::print: MySQL GTID events, and any event flagged ignorable."""
    name = IGNORABLE_NAMES.get(raw.type_code, b"Unknown")
    _header_only(p, raw, b"\tIgnorable\n# Ignorable event type %d (%s)\n" % (raw.type_code, name))


def print_unknown(p, raw, body):
    _header_only(p, raw, b"\n# Unknown event\n")


def print_start_encryption(p, raw, body):
    p.write(b"# Encryption scheme: %d, key_version: %d, nonce: %s\n"
            b"# The rest of the binlog is encrypted!\n" % (
                body.scheme, body.key_version, body.nonce.hex().encode()))


def serialize_xid(xid):
    """XID::serialize: formatID as the unsigned 32-bit number it was read as (uint4korr)."""
    return b"X'%s',X'%s',%d" % (xid.gtrid.hex().encode(), xid.bqual.hex().encode(),
                                xid.format_id & 0xFFFFFFFF)


def print_xa_prepare(p, raw, body):
    xid = serialize_xid(body.xid)
    out = []
    if not p.options.short_form:
        print_header(p, raw, out)
        out.append(b"\tXID = %s\n" % xid)
    out.append(b"XA PREPARE %s\n%s\n" % (xid, p.state.delimiter))
    p.write_held(b"".join(out))


def print_gtid(p, raw, body):
    """Gtid_log_event::print (MariaDB GTID, type 162)."""
    st, d, out = p.state, p.state.delimiter, []
    f2 = body.flags2
    flashback = p.options.flashback
    if not p.options.short_form and not flashback:
        print_header(p, raw, out)
        out.append(b"\tGTID %d-%d-%d" % (body.domain_id, raw.server_id, body.seq_no))
        if f2 & L.FL_GROUP_COMMIT_ID:
            out.append(b" cid=%d" % body.commit_id)
        for flag, word in ((L.FL_DDL, b" ddl"), (L.FL_TRANSACTIONAL, b" trans"),
                           (L.FL_WAITED, b" waited")):
            if f2 & flag:
                out.append(word)
        out.append(_gtid_extra_text(body))
        out.append(b"\n")
        allow_parallel = bool(f2 & L.FL_ALLOW_PARALLEL)
        if not st.allow_parallel_printed or st.allow_parallel != allow_parallel:
            out.append(b"/*M!100101 SET @@session.skip_parallel_replication=%d*/%s\n"
                       % (not allow_parallel, d))
            st.allow_parallel, st.allow_parallel_printed = allow_parallel, True
        if not st.domain_id_printed or st.domain_id != body.domain_id:
            out.append(b"/*M!100001 SET @@session.gtid_domain_id=%d*/%s\n" % (body.domain_id, d))
            st.domain_id, st.domain_id_printed = body.domain_id, True
        if not st.server_id_printed or st.server_id != raw.server_id:
            out.append(b"/*M!100001 SET @@session.server_id=%d*/%s\n" % (raw.server_id, d))
            st.server_id, st.server_id_printed = raw.server_id, True
        out.append(b"/*M!100001 SET @@session.gtid_seq_no=%d*/%s\n" % (body.seq_no, d))
    if f2 & L.FL_PREPARED_XA and not flashback:
        out.append(b"XA START %s%s\n" % (serialize_xid(body.xid), d))
    elif not f2 & L.FL_STANDALONE:
        out.append(b"%s\n%s\n" % (b"COMMIT" if flashback else b"START TRANSACTION", d))
    st.gtid_ev_flags2 = f2
    p.write_held(b"".join(out))


def _gtid_extra_text(body):
    fe = body.flags_extra
    text = b""
    if fe & L.FL_START_ALTER_E1:
        text += b" START ALTER"
    if fe & L.FL_COMMIT_ALTER_E1:
        text += b" COMMIT ALTER id= %d" % body.sa_seq_no
    if fe & L.FL_ROLLBACK_ALTER_E1:
        text += b" ROLLBACK ALTER id= %d" % body.sa_seq_no
    return text         # (a thread id, MariaDB 11.5+, is not shown by mariadb-binlog 10.11)


# -- row-based replication ---------------------------------------------------------------

def print_annotate_rows(p, raw, body):
    head = p.state.head
    if not p.options.short_form:
        print_header(p, raw, head)
        head.append(b"\tAnnotate_rows:\n")
    else:
        head.append(b"# Annotate_rows:\n")
    query = body.query
    if b"\n" not in query and b"\r" not in query:
        if query:
            head.append(b"#Q> " + query + b"\n")
        return
    for line in query.replace(b"\r", b"\n").split(b"\n"):
        if line:
            head.append(b"#Q> " + line + b"\n")


def table_map_text(body):
    """The text after a Table_map event's header."""
    return b"\tTable_map: %s mapped to number %d%s\n" % (
        comment_safe(backtick(body.db) + b"." + backtick(body.table)), body.table_id,
        b" (has triggers)" if body.flags & TM_BIT_HAS_TRIGGERS_F else b"")


def print_table_map(p, raw, body):
    st, opts = p.state, p.options
    if not opts.short_form:
        print_header(p, raw, st.head)
        st.head.append(p.table_map_text(body))
    if not opts.short_form or opts.print_row_count:
        if opts.print_table_metadata:
            # --print-table-metadata only: its modules stay out of every other run's start-up
            from binlogkit.printer.mariadb.tablemeta import print_table_metadata
            st.head.append(print_table_metadata(body))
        if p.encoded:
            st.body.append(base64_lines(raw.data))
        if opts.verbose or opts.print_row_count or opts.flashback:
            st.table_maps[body.table_id] = body
        p.flush_head()


ROWS_EVENT_NAMES = {
    "write": b"Write_rows", "update": b"Update_rows", "delete": b"Delete_rows",
}
# Write/Update/Delete_rows_log_event_old (types 20-22 of the 5.1 betas): mariadb-binlog names
# them so, prints their base64 and never decodes nor counts their rows (-v prints no ### lines)
OLD_ROWS_NAMES = {
    "write": b"Write_rows_old", "update": b"Update_rows_old", "delete": b"Delete_rows_old",
}
PRE_GA_ROWS_EVENTS = frozenset({L.PRE_GA_WRITE_ROWS_EVENT, L.PRE_GA_UPDATE_ROWS_EVENT,
                                L.PRE_GA_DELETE_ROWS_EVENT})
COMPRESSED_ROWS_NAMES = {
    "write": b"Write_compressed_rows", "update": b"Update_compressed_rows",
    "delete": b"Delete_compressed_rows",
}


def print_rows(p, raw, body):
    """Rows_log_event::print_helper."""
    st, opts = p.state, p.options
    encoded = p.encoded
    if not opts.short_form:
        old = raw.type_code in PRE_GA_ROWS_EVENTS
        names = COMPRESSED_ROWS_NAMES if raw.type_code in L.COMPRESSED_ROWS_EVENT_TYPES else (
            OLD_ROWS_NAMES if old else ROWS_EVENT_NAMES)
        print_header(p, raw, st.head)
        # an old event's header says STMT_END_F with its base64 whatever its flags, and
        # never without (as mariadb-binlog 10.11 prints them: tests/test_print_legacy.py)
        end = encoded if old else body.flags & L.STMT_END_F
        st.head.append(b"\t%s: table id %d%s\n" % (
            names[body.kind], body.table_id, b" flags: STMT_END_F" if end else b""))
    if not opts.short_form or opts.print_row_count:
        if encoded:
            st.body.append(base64_lines(raw.data))
        if raw.type_code not in PRE_GA_ROWS_EVENTS:
            p.account_rows(raw, body)
    if body.flags & L.STMT_END_F:
        p.flush_statement(encoded)


def print_start_encryption_event(p, raw, body):
    """A Start_encryption event as a file holds it, or as a server sends it over
    the dump: flagged ignorable (the events after it come decrypted), which
    mariadb-binlog -R prints as an Ignorable_log_event."""
    if raw.flags & L.LOG_EVENT_IGNORABLE_F:
        print_ignorable(p, raw, body)
    else:
        print_start_encryption(p, raw, body)
