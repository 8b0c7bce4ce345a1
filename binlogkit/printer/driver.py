"""What both drivers (printer/mariadb/driver.py, printer/mysql/driver.py) do alike.

`PrinterBase` holds the output buffer (write / flush), the header time text,
the preamble and postamble main() prints around the files, the --database
filter and the LOAD DATA temp files.  The one stop / error convention of
both flavors: a stop condition (--stop-position, --stop-datetime, a GTID
stop) raises `StopDump`, which ends the dump quietly; bad input raises a
`BinlogError` (file, offset, event type), after whatever text the real tool
prints before its error line.
"""
import os

from binlogkit.binlog.layout import (
    ANNOTATE_ROWS_EVENT, ANONYMOUS_GTID_LOG_EVENT, BINLOG_CHECKSUM_ALG_CRC32, GTID_LOG_EVENT,
    GTID_TAGGED_LOG_EVENT, LOG_EVENT_HEADER_LEN, PARTIAL_UPDATE_ROWS_EVENT, QUERY_EVENT,
    ROWS_EVENT_TYPES, ROWS_QUERY_LOG_EVENT, STMT_END_F, TABLE_MAP_EVENT,
)

FLUSH_AT = 1 << 16
# A C printer call starts no statement (nor MySQL transaction) more than this far into
# its buffer: between calls the reader lets a mapped file's pages behind go
C_WINDOW = 4 << 20
_STATEMENT_PARTS = frozenset({ANNOTATE_ROWS_EVENT, ROWS_QUERY_LOG_EVENT, TABLE_MAP_EVENT})
_ROWS_TYPES = ROWS_EVENT_TYPES | {PARTIAL_UPDATE_ROWS_EVENT}
# MySQL: the C printer prints a transaction's GTID and BEGIN with its first statement
_MYSQL_GTIDS = frozenset({GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT})
LOAD_FILE_VERSIONS = 1000       # create_unique_file's tries: SQL_LOAD_MB-<id>-<0..3e7>


class StopDump(Exception):
    """--stop-position / --stop-datetime (or a GTID stop) reached: end quietly."""


class PrinterBase:
    """Output, time text, preamble / postamble and filters of one `print` run.

    A flavor sets PREAMBLE (its first lines) and POSTAMBLE_HEAD (what
    follows '# End of log file'), and may add to `postamble_tail`.
    """

    PREAMBLE = b""
    POSTAMBLE_HEAD = b"# End of log file\n"

    def __init__(self, out, options, zone):
        self.out = out
        self.options = options
        self.zone = zone
        self._times = {}
        self._pending = []
        self._pending_size = 0
        self.load_files = {}
        self._load_dir = options.local_load
        self.warn = self.error = _ignore

    # -- output ------------------------------------------------------------------------
    def write(self, data):
        """Queue `data` for the output; big text (the C printers' sink hands a memoryview
        valid only during the call) is written at once, never kept."""
        if len(data) >= FLUSH_AT or type(data) is memoryview:    # no copy into the pending block
            self.flush()
            self.out.write(data)
            return
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size > FLUSH_AT:
            self.flush()

    def flush(self):
        if self._pending:
            self.out.write(b"".join(self._pending))
            self._pending = []
            self._pending_size = 0

    def flush_cache(self, cache):
        """copy_event_cache_to_file_and_reinit: a cache's text to the output."""
        if cache:
            self.write(b"".join(cache))
            cache.clear()

    def time_text(self, when):
        text = self._times.get(when)
        if text is None:
            text = self._times[when] = self.zone.format_header(when).encode()
        return text

    # -- main() ------------------------------------------------------------------------
    def preamble(self):
        opts = self.options
        text = self.PREAMBLE
        if opts.disable_log_bin:
            text += b"/*!32316 SET @OLD_SQL_LOG_BIN=@@SQL_LOG_BIN, SQL_LOG_BIN=0*/;\n"
        text += b"/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;\n"
        if opts.set_charset:
            text += (b"\n/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;"
                     b"\n/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;"
                     b"\n/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;"
                     b"\n/*!40101 SET NAMES %s */;\n" % opts.set_charset.encode())
        self.write(text)

    def postamble(self):
        opts = self.options
        text = self.POSTAMBLE_HEAD + b"/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
        if opts.disable_log_bin:
            text += b"/*!32316 SET SQL_LOG_BIN=@OLD_SQL_LOG_BIN*/;\n"
        if opts.set_charset:
            text += (b"/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;\n"
                     b"/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;\n"
                     b"/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;\n")
        text += b"/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n"
        self.write(text + self.postamble_tail())

    def postamble_tail(self):
        return b""

    # -- filters -----------------------------------------------------------------------
    def shall_skip_database(self, db):
        return self.options.database is not None and db is not None and db != self.options.database

    # -- LOAD DATA ---------------------------------------------------------------------
    @property
    def load_dir(self):
        if self._load_dir is None:
            import tempfile     # only LOAD DATA events need it (start-up of every other run)
            self._load_dir = tempfile.gettempdir()
        return self._load_dir

    def load_file_base(self, file_id):
        return os.path.join(self.load_dir, f"SQL_LOAD_MB-{file_id:x}")

    def create_load_file(self, file_id, block):
        """Begin_load_query: `block` into a new SQL_LOAD_MB-<file_id>-<n> file under the
        load directory; its name, or None when every name is taken.  OSError as os.open
        raises it."""
        base = self.load_file_base(file_id)
        for version in range(LOAD_FILE_VERSIONS):
            name = f"{base}-{version:x}"
            try:
                fd = os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
            except FileExistsError:
                continue
            with os.fdopen(fd, "wb") as f:
                f.write(block)
            self.load_files[file_id] = name
            return name
        return None

    def append_load_block(self, file_id, block):
        """Append_block: `block` onto its file; False when no Begin_load_query made one."""
        name = self.load_files.get(file_id)
        if name is None:
            return False
        with open(name, "ab") as f:
            f.write(block)
        return True


def _ignore(message):
    pass


class ReadAhead:
    """How far past a position the C row-statement printers get to see.

    64 KiB covers almost every statement.  When a printer printed nothing at a row
    statement that runs past the buffer (a bulk INSERT's statement is megabytes),
    `more` says to read further: four times as much, kept for the statements that
    follow, up to 16 MiB; a longer statement is left to the Python handlers."""
    START = 1 << 16
    MAX = 1 << 24

    def __init__(self):
        self.size = self.START

    def more(self, buf, rel, fde):
        """After a printer printed nothing at buf[rel]: whether more bytes would help
        (and if so the read-ahead has grown)."""
        if (self.size >= self.MAX or len(buf) - rel < self.size     # the file has no more
                or not statement_runs_past(buf, rel, fde)):
            return False
        self.size *= 4
        return True


def _ends_in_begin(buf, end, fde):
    """Whether the Query event ending at buf[end] is a BEGIN (its text is its last bytes)."""
    end -= 4 if fde.checksum_alg == BINLOG_CHECKSUM_ALG_CRC32 else 0
    return buf[end - 5:end] == b"BEGIN"


def statement_runs_past(buf, rel, fde):
    """Whether the row statement starting at buf[rel] has no end in the buffer: no rows
    event flagged STMT_END_F before the buffer runs out.  The C printers print nothing
    for such a statement; given more read-ahead they can (a bulk INSERT's statement
    is megabytes).  Other reasons they leave a statement to Python are not helped.
    A MySQL transaction's GTID and BEGIN before the statement count as its parts."""
    end = len(buf)
    header_len = fde.header_len
    while rel + LOG_EVENT_HEADER_LEN <= end:
        type_code = buf[rel + 4]
        size = int.from_bytes(buf[rel + 9:rel + 13], "little")
        if size < LOG_EVENT_HEADER_LEN or rel + size > end:
            return True             # the next event is not all there
        if type_code in _ROWS_TYPES:
            at = rel + header_len + (4 if fde.post_header(type_code, 8) == 6 else 6)
            if at + 2 > rel + size:
                return False        # malformed: more bytes will not help
            if (buf[at] | buf[at + 1] << 8) & STMT_END_F:
                return False
        elif not (type_code in _STATEMENT_PARTS or type_code in _MYSQL_GTIDS
                  or (type_code == QUERY_EVENT and _ends_in_begin(buf, rel + size, fde))):
            return False            # not (or no longer) a row statement
        rel += size
    return True
