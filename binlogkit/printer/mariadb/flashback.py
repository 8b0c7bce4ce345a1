"""mariadb-binlog --flashback: the binlog as statements that undo it.

What the real tool does (client/mysqlbinlog.cc, sql/log_event_client.cc):

* rows events are rewritten before they are printed: Write_rows becomes
  Delete_rows and back, the rows of an event are put in reverse order and
  an Update's two images swap places (`flashback_rows_event`).  Only the
  type byte, the STMT_END_F flag and the row bytes change; the stored
  checksum is left as it was (for a compressed event, the checksum is the
  one of the inflated event).  Rows are walked as Rows_log_event::
  print_verbose_one_row walks them, and both images of an Update with the
  *before* image's column bitmap, as the real tool does: an image it cannot
  walk stops the dump ("Error row length: 0", exit status 1).
* the events of a statement are printed last to first; the STMT_END_F flag
  moves to the statement's first event, which is printed last.
* the text of Query, Xid, GTID, XA_PREPARE and rows statements is held back
  (ev->output_buf) and printed, event by event in reverse order, after the
  last file, then "COMMIT" and the held Stop event; BEGIN prints as COMMIT,
  COMMIT and Xid as START TRANSACTION, a GTID as COMMIT.  Everything else
  (format description, Table_map and Annotate_rows headers, "# Number of
  rows", Intvar...) is printed where it is met, as usual.
"""
import struct

from binlogkit._accel import speedups
from binlogkit.binlog import layout as L
from binlogkit.binlog import rows as R
from binlogkit.errors import CorruptRowError, UnsupportedTypeError
from binlogkit.errors import EventDecodeError
from binlogkit.printer.mariadb import events as P
from binlogkit.printer.mariadb.rows_verbose import _print_image
from binlogkit.printer.mariadb.values import type_string

# the type a rows event gets in the flashback (Update keeps its type)
FLASHBACK_TYPES = {
    L.WRITE_ROWS_EVENT_V1: L.DELETE_ROWS_EVENT_V1, L.DELETE_ROWS_EVENT_V1: L.WRITE_ROWS_EVENT_V1,
    L.WRITE_ROWS_EVENT: L.DELETE_ROWS_EVENT, L.DELETE_ROWS_EVENT: L.WRITE_ROWS_EVENT,
    L.UPDATE_ROWS_EVENT_V1: L.UPDATE_ROWS_EVENT_V1, L.UPDATE_ROWS_EVENT: L.UPDATE_ROWS_EVENT,
}
# Write_rows_log_event::print names the event for what it has become; the
# compressed events and Update keep their names
FLASHBACK_NAMES = {"write": b"Delete_rows", "delete": b"Write_rows", "update": b"Update_rows"}


class RowLengthError(Exception):
    """print_verbose_one_row() gave 0: the row image cannot be walked."""

    def __init__(self, cause):
        super().__init__("Error row length: 0")
        self.cause = cause


def image_length_reference(table_map, cols, width, data, pos, end):
    """Bytes of the row image at data[pos] (print_verbose_one_row without output)."""
    try:
        new = _print_image([], table_map, cols, width, data, pos, end, b"", 1)
    except (CorruptRowError, UnsupportedTypeError) as exc:
        raise RowLengthError(exc) from None
    if new <= pos:
        raise RowLengthError(None)
    return new - pos


def image_steps(table_map, cols, width):
    """(null-bitmap bytes, [(type, meta, printable)] per column in the image)."""
    nset = bin(int.from_bytes(cols[:(width + 7) // 8], "little") & ((1 << width) - 1)).count("1")
    types, metas = table_map.column_types, table_map.column_meta
    steps = [(types[i], metas[i], type_string(types[i], metas[i]) is not None)
             for i in range(min(table_map.column_count, width, len(cols) * 8))
             if (cols[i >> 3] >> (i & 7)) & 1]
    return (nset + 7) // 8, steps


def image_length(steps, data, pos, end, field_size=R.field_size):
    """image_length_reference() without formatting the values: None where that
    would fail (the caller asks the reference for the error)."""
    null_bytes, columns = steps
    start = pos
    null_bits = data[pos:pos + null_bytes]
    pos += null_bytes
    for n, (col_type, meta, printable) in enumerate(columns):
        if n >> 3 < len(null_bits) and (null_bits[n >> 3] >> (n & 7)) & 1:
            if not printable:
                return None
            continue
        size = field_size(col_type, meta, data, pos) if pos < end else 1
        if size is None or pos + size > end or not printable:
            return None
        pos += size
    return pos - start if pos > start else None


def cached_image_steps(table_map, cols, width):
    """image_steps(), kept in the table map's plans (a rows event per statement repeats them)."""
    key = ("flashback", cols, width)
    steps = table_map.plans.get(key)
    if steps is None:
        steps = table_map.plans[key] = image_steps(table_map, cols, width)
    return steps


def reversed_rows(table_map, body):
    """change_to_flashback_event: the rows last to first, an Update's images swapped.

    Both images of an Update are walked with the before image's columns, as
    the real tool walks them."""
    data = body.rows
    end = len(data)
    update = body.kind == "update"
    steps = cached_image_steps(table_map, body.cols, body.width)
    rows = []
    pos = 0
    while pos < end:
        first = image_length(steps, data, pos, end) or image_length_reference(
            table_map, body.cols, body.width, data, pos, end)
        if update:
            second = image_length(steps, data, pos + first, end) or image_length_reference(
                table_map, body.cols, body.width, data, pos + first, end)
            rows.append(data[pos + first:pos + first + second] + data[pos:pos + first])
            pos += first + second
        else:
            rows.append(data[pos:pos + first])
            pos += first
    rows.reverse()
    return b"".join(rows)


def flashback_rows_event(data, body, table_map):
    """The bytes Log_event::print_base64 --flashback makes of a rows event.

    `data` is the whole (uncompressed) event, checksum included, `body` its
    decoded RowsBody, `table_map` the TableMapBody of its table or None (the
    rows then stay as they are).  Returns (new bytes, new RowsBody)."""
    type_code = data[L.EVENT_TYPE_OFFSET]
    new_type = FLASHBACK_TYPES.get(type_code)
    if new_type is None:
        return data, body
    kind = L.ROWS_GENERAL_KIND[new_type]
    rows = body.rows
    if table_map is not None and rows:
        rows = reversed_rows(table_map, body)
    start = body.rows_offset
    new = bytearray(data)
    new[L.EVENT_TYPE_OFFSET] = new_type
    new[start:start + len(rows)] = rows
    new_body = R.RowsBody(body.table_id, body.flags, kind, body.width, body.cols, body.cols_ai,
                          bytes(rows), body.extra_data, start, new_type)
    return bytes(new), new_body


class HeldRows:
    """A rows event kept until the end of its statement (the reader's buffer moves on)."""
    __slots__ = ("pos", "when", "type_code", "server_id", "log_pos", "flags", "data", "end",
                 "checksum", "body")

    def __init__(self, raw, body, flags, flags_pos):
        self.pos, self.when, self.type_code = raw.pos, raw.when, raw.type_code
        self.server_id, self.log_pos, self.flags = raw.server_id, raw.log_pos, raw.flags
        self.checksum, self.end = raw.checksum, raw.end
        data = bytearray(raw.data)
        L.UINT16.pack_into(data, flags_pos, flags)     # Rows_log_event::update_flags
        self.data = bytes(data)
        self.body = R.RowsBody(body.table_id, flags, body.kind, body.width, body.cols,
                               body.cols_ai, body.rows, body.extra_data, body.rows_offset,
                               body.type_code)

    @property
    def payload(self):
        return memoryview(self.data)[:self.end]


class HeldText:
    """The output each event holds back (ev->output_buf), in file order, printed last to
    first at the end: kept in one buffer, which goes to a temporary file every SPILL_AT
    bytes, so memory stays flat whatever the size of the logs (the real tool keeps it
    all in memory); `ends` has where each event's text ends (a native uint64 per event,
    counted from the first held byte).  The C printer appends to the same two
    bytearrays as append() does and calls spill() (csrc/mariadb.c held_append)."""
    SPILL_AT = 4 << 20

    def __init__(self):
        self.buf = bytearray()
        self.ends = bytearray()
        self.spool = None           # the temporary file, once the text outgrew SPILL_AT
        self.spooled = 0            # bytes in it

    def append(self, text):
        buf = self.buf
        buf += text
        self.ends += _END.pack(self.spooled + len(buf))
        if len(buf) >= self.SPILL_AT:
            self.spill()

    def spill(self):
        """buf to the temporary file; buf is emptied in place (C holds it)."""
        if self.spool is None:
            import tempfile     # only big flashbacks need it
            self.spool = tempfile.TemporaryFile(prefix="binlogkit-flashback-")
        self.spool.write(self.buf)
        self.spooled += len(self.buf)
        del self.buf[:]

    def _region(self, start, end):
        """The held bytes [start, end) (in the file, the buffer or both)."""
        if start >= self.spooled:
            return memoryview(self.buf)[start - self.spooled:end - self.spooled]
        self.spool.seek(start)
        data = self.spool.read(min(end, self.spooled) - start)
        if end > self.spooled:
            data += self.buf[:end - self.spooled]
        return memoryview(data)

    def write_reversed(self, write):
        """write() the events' texts last to first, a block of about SPILL_AT bytes at a time."""
        with memoryview(self.ends) as view, view.cast("Q") as ends:
            i = len(ends)
            while i:
                block_end = ends[i - 1]
                j = i - 1       # the events i-1, i-2 ... j of this block
                while j > 0 and block_end - ends[j - 1] < self.SPILL_AT:
                    j -= 1
                base = ends[j - 1] if j else 0
                with self._region(base, block_end) as region:
                    write(reversed_texts(region, ends, j, i, base))
                i = j
        self.buf = bytearray()
        self.ends = bytearray()
        if self.spool is not None:
            self.spool.close()
            self.spool = None
        self.spooled = 0


_END = struct.Struct("=Q")


def reversed_texts_py(region, ends, lo, hi, base):
    """The texts of the events hi-1, hi-2 ... lo of region (held from `base` on), joined."""
    return b"".join([region[(ends[k - 1] if k else 0) - base:ends[k] - base]
                     for k in range(hi - 1, lo - 1, -1)])


# csrc/mariadb.c held_reversed where built
reversed_texts = speedups.held_reversed if speedups is not None else reversed_texts_py


class Flashback:
    """The state of one --flashback run: held output, the statement's rows events."""

    def __init__(self, printer):
        self.printer = printer
        self.held = HeldText()      # the output of each event, in file order
        self.stop = b""             # the last Stop event's text
        self.event_output = []
        self.statement_events = []  # events_in_stmt
        printer.write_held = self.event_output.append

    def end_event(self, type_code):
        """End of process_event: keep what the event printed into its output_buf."""
        if self.event_output:
            text = b"".join(self.event_output)
            self.event_output.clear()
            if type_code == L.STOP_EVENT:
                self.stop = text
            else:
                self.held.append(text)

    def write_output(self, write):
        """What main() prints after the last file."""
        self.held.write_reversed(write)
        write(b"COMMIT\n/*!*/;\n" + self.stop + b"DELIMITER ;\n")

    def rows(self, reader, raw, body):
        """print_row_event() with --flashback."""
        p = self.printer
        st = p.state
        stmt_end = body.stmt_end
        flags = body.flags & ~L.STMT_END_F if stmt_end else body.flags
        if not self.statement_events:
            flags |= L.STMT_END_F       # the first event of the statement is printed last
        default = 10 if raw.type_code in L.ROWS_V2_EVENT_TYPES else 8
        post_len = reader.fde.post_header(raw.type_code, default)
        flags_pos = reader.fde.header_len + (4 if post_len == 6 else 6)
        self.statement_events.append(HeldRows(raw, body, flags, flags_pos))
        skip = body.table_id in st.ignored_maps
        if stmt_end:
            p.rows_statement_end(skip)
        if skip or not stmt_end:
            return
        events, self.statement_events = self.statement_events, []
        for event in reversed(events):
            p.require_fd_printed(reader, event)
            self.print_rows(reader, event)
        if p.options.print_row_count:
            p.write(b"# Number of rows: %d\n" % st.row_events)
        st.row_events = 0

    def print_rows(self, reader, event):
        """Rows_log_event::print_helper of an event of the flashback."""
        p = self.printer
        st, opts = p.state, p.options
        body = event.body
        if event.type_code in L.COMPRESSED_ROWS_EVENT_TYPES:
            event.data = R.uncompressed_event(event, body, reader.fde)
            names = P.COMPRESSED_ROWS_NAMES
        else:
            names = FLASHBACK_NAMES
        stmt_end = bool(body.flags & L.STMT_END_F)
        if not opts.short_form:
            P.print_header(p, event, st.head)
            st.head.append(b"\t%s: table id %d%s\n" % (
                names[body.kind], body.table_id, b" flags: STMT_END_F" if stmt_end else b""))
        if not opts.short_form or opts.print_row_count:
            table_map = st.table_maps.get(body.table_id)
            try:
                data, new_body = flashback_rows_event(event.data, body, table_map)
            except RowLengthError as exc:
                self.row_length_failed(event, exc)
            if p.encoded:
                st.body.append(P.base64_lines(data))
            p.account_rows(event, new_body)
        if stmt_end:
            parts = st.head
            if p.encoded and st.body:
                parts.append(b"\nBINLOG '\n")
                parts += st.body
                parts.append(b"'" + st.delimiter + b"\n")
            parts += st.tail
            p.write_held(b"".join(parts))
            st.head.clear()
            st.body.clear()
            st.tail.clear()

    def row_length_failed(self, event, exc):
        """exit(1) in change_to_flashback_event (after flush_for_error for a column
        type log_event_print_value has no case for)."""
        p = self.printer
        cause = exc.cause
        if getattr(cause, "flush_caches", False):
            p.flush_head()
            p.write(b"".join(p.state.body))
            p.state.body.clear()
            p.error(cause.tool_text)
        raise EventDecodeError(str(exc), path=p.current_file, offset=event.pos,
                               type_code=event.type_code)
