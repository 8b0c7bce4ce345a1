"""Text pieces both flavors print the same way (Log_event::print_header,
my_base64_encode, pretty_print_str, the end of print_query_header).

The header line and the base64 lines come from the C accelerator when it
is there; the `_py` functions are the reference it is tested against.
"""
from binlogkit._accel import speedups
from binlogkit.binlog import layout as L
from binlogkit.binlog.decimal import decimal_to_text, user_decimal_to_text
from binlogkit.printer.safety import comment_safe

# Incident_log_event::description_text (both tools know these two)
INCIDENT_NAMES = {0: b"NOTHING", 1: b"LOST_EVENTS"}
# pretty_print_str's C-like escapes (a quote character inside is escaped as \')
PRETTY_ESCAPES = {0x0A: b"\\n", 0x0D: b"\\r", 0x5C: b"\\\\", 0x08: b"\\b",
                  0x09: b"\\t", 0x27: b"\\'", 0x00: b"\\0"}


def signed64(value):
    """llstr(): a 64-bit value printed as a signed longlong."""
    return value - (1 << 64) if value >= 1 << 63 else value


def backtick(name):
    return b"`" + name.replace(b"`", b"``") + b"`"


def pretty_print_str(text, quote=b"'"):
    """pretty_print_str: quoted, with C-like escapes (a quote char inside is left alone)."""
    return quote + b"".join(PRETTY_ESCAPES.get(c) or bytes((c,)) for c in text) + quote


def base64_lines_py(data):
    """my_base64_encode: 76-column lines, then the caller's newline."""
    from binascii import b2a_base64     # here: the C accelerator's base64_lines is the usual one
    encoded = b2a_base64(data, newline=False)
    if len(encoded) <= 76:
        return encoded + b"\n"
    return b"\n".join([encoded[i:i + 76] for i in range(0, len(encoded), 76)]) + b"\n"


def header_text_py(time_text, server_id, log_pos, checksum):
    """Log_event::print_header: '#YYMMDD HH:MM:SS server id N  end_log_pos N [CRC32 0xN ]'."""
    if checksum is None:
        return b"#%s server id %d  end_log_pos %d " % (time_text, server_id, log_pos)
    return b"#%s server id %d  end_log_pos %d CRC32 0x%08x " % (time_text, server_id, log_pos, checksum)


# the same text from the C accelerator when it is there
base64_lines = speedups.base64_lines if speedups is not None else base64_lines_py
header_text = speedups.header if speedups is not None else header_text_py


def user_var_value(body, collations, hex_string):
    """User_var_log_event::print's text after the name: ':=' and the value (a string as
    `hex_string` % its hex digits, with its charset and collation from `collations`)."""
    if body.is_null:
        return b":=NULL"
    if body.value_type == L.REAL_RESULT:
        return b":=%.14g" % L.DOUBLE.unpack_from(body.value.ljust(8, b"\0"))[0]
    if body.value_type == L.INT_RESULT:
        return b":=%d" % int.from_bytes(body.value[:8].ljust(8, b"\0"), "little",
                                        signed=not body.flags & L.USER_VAR_UNSIGNED_F)
    if body.value_type == L.DECIMAL_RESULT:
        return b":=" + user_decimal_to_text(body.value[2:], body.value[0], body.value[1])
    if body.value_type == L.STRING_RESULT:
        info = collations.get(body.charset)
        if not info:
            return b":=???"
        value = hex_string % body.value.hex().upper().encode() if body.value else b'""'
        return b":=_%s %s COLLATE `%s`" % (info[0].encode(), value, info[1].encode())
    return b""  # ROW_RESULT: the real tools print nothing after the name


def user_var_context(collations, back=None):
    """The C printer's CTX_USER_VAR (csrc/speedups.h): what user_var_value prints around
    a string value's hex digits, per charset number, filled as C asks; `back`: what
    follows the SET (mysqlbinlog 9.x's charset lines), or None."""
    charsets = {}

    def charset_miss(number):
        info = collations.get(number)
        entry = charsets[number] = ((b"_%s " % info[0].encode(), b" COLLATE `%s`" % info[1].encode())
                                    if info else None)
        return entry
    return charsets, charset_miss, back


def print_thread_id(p, raw, body, out):
    """print_query_header's pseudo_thread_id line, the same in both tools: once, and again
    when a thread-specific event comes from another thread (--short-form hides the id)."""
    st = p.state
    if not st.thread_id_printed or (raw.flags & L.LOG_EVENT_THREAD_SPECIFIC_F
                                    and body.thread_id != st.thread_id):
        out.append(b"SET @@session.pseudo_thread_id=%d%s\n" % (
            999999999 if p.options.short_form else body.thread_id, st.delimiter))
        st.thread_id = body.thread_id
        st.thread_id_printed = True


def print_auto_increment(st, body, out):
    """print_query_header's auto_increment line, the same in both tools: when either changes."""
    if (st.auto_increment_increment != body.auto_increment_increment
            or st.auto_increment_offset != body.auto_increment_offset):
        out.append(b"SET @@session.auto_increment_increment=%d, @@session.auto_increment_offset=%d%s\n"
                   % (body.auto_increment_increment, body.auto_increment_offset, st.delimiter))
        st.auto_increment_increment = body.auto_increment_increment
        st.auto_increment_offset = body.auto_increment_offset


def print_time_zone_lc_db(st, body, out):
    """The end of print_query_header, the same in mariadb-binlog and mysqlbinlog:
    time_zone, lc_time_names and collation_database when they change."""
    d = st.delimiter
    if body.time_zone and st.time_zone != body.time_zone:
        out.append(b"SET @@session.time_zone='%s'%s\n" % (body.time_zone, d))
        st.time_zone = body.time_zone
    if body.lc_time_names != st.lc_time_names_number:
        out.append(b"SET @@session.lc_time_names=%d%s\n" % (body.lc_time_names, d))
        st.lc_time_names_number = body.lc_time_names
    if body.charset_database != st.charset_database_number:
        if body.charset_database:
            out.append(b"SET @@session.collation_database=%d%s\n" % (body.charset_database, d))
        else:
            out.append(b"SET @@session.collation_database=DEFAULT%s\n" % d)
        st.charset_database_number = body.charset_database


def start_text(p, raw, body):
    """Format_description_log_event::print after the header line, as both tools print it:
    the Start line, and the warning of a log flagged in use."""
    text = b"\tStart: binlog v %d, server v %s created %s" % (
        body.binlog_version, comment_safe(body.server_version), p.time_text(raw.when))
    if body.created:
        text += b" at startup"
    text += b"\n"
    if raw.flags & L.LOG_EVENT_BINLOG_IN_USE_F:
        text += b"# Warning: this binlog is either in use or was not closed properly.\n"
    return text
