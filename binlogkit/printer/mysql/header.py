"""mysqlbinlog 8.0's event header line, --hexdump block and BINLOG base64.

Written from the format strings of Log_event::print_header and
Log_event::print_base64 (sql/log_event.cc, MySQL 8.0.41).
"""
from binlogkit.binlog.layout import LOG_EVENT_HEADER_LEN, UINT32
from binlogkit.printer.state import BASE64_DECODE_ROWS
from binlogkit.printer.text import base64_lines, header_text

HEXDUMP_TITLE = (b"# Position  Timestamp   Type   Source ID        "
                 b"Size      Source Pos    Flags \n")
# my_isalnum() over my_charset_bin: ASCII letters and digits only
_ALNUM = bytes(c if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122) else 0x2E
               for c in range(256))


def print_header(p, ev, cache):
    """'#YYMMDD HH:MM:SS server id N  end_log_pos N [CRC32 0x........ ]' (the line both
    tools print: printer/text.header_text), then the --hexdump block."""
    cache.append(header_text(p.time_text(ev.when), ev.server_id, ev.log_pos, ev.checksum))
    if p.state.hexdump_from:
        cache.append(b"\n")
        cache.append(hexdump(ev.data, p.state.hexdump_from, p.state.common_header_len))
        cache.append(b"# ")


def hexdump(data, position, common_header_len):
    """The --hexdump lines: the common header by field, then 16 bytes a line."""
    size = UINT32.unpack_from(data, 9)[0] - LOG_EVENT_HEADER_LEN
    out = []
    start = 0
    if common_header_len == LOG_EVENT_HEADER_LEN:
        out.append(HEXDUMP_TITLE)
        h = data[:LOG_EVENT_HEADER_LEN]
        out.append(b"# %08x %02x %02x %02x %02x   %02x   %02x %02x %02x %02x   "
                   b"%02x %02x %02x %02x   %02x %02x %02x %02x   %02x %02x\n"
                   % ((position & 0xFFFFFFFFFFFFFFFF,) + tuple(h)))
        start = LOG_EVENT_HEADER_LEN
        position += LOG_EVENT_HEADER_LEN
    rest = data[start:start + max(size, 0)]
    for i in range(0, len(rest), 16):
        chunk = rest[i:i + 16]
        hexpart = b"".join(b"%02x " % c for c in chunk[:8]) + b"".join(b" %02x" % c for c in chunk[8:])
        text = chunk.translate(_ALNUM)
        if len(chunk) == 16:
            out.append(b"# %08x %-48s |%16s|\n" % (position + i, hexpart, text))
        else:
            out.append(b"# %08x %s |%s|\n" % (position + i, hexpart.ljust(48), text))
    return b"".join(out)


def print_base64(p, ev, cache, more):
    """Log_event::print_base64: the whole event (CRC included) as BINLOG text."""
    if p.options.base64_output != BASE64_DECODE_ROWS:
        if not cache:
            cache.append(b"\nBINLOG '\n")
        size = UINT32.unpack_from(ev.data, 9)[0]
        cache.append(base64_lines(bytes(ev.data[:size])))
        if not more:
            cache.append(b"'%s\n" % p.state.delimiter)
