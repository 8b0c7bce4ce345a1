"""The one exception tree of binlogkit.

Every error carries where it happened (file name, byte offset) and, for
binlog events, the event type code, so the CLI can print one factual line.
"""


class BinlogkitError(Exception):
    """Base of every error binlogkit raises on bad input."""


class BinlogError(BinlogkitError):
    """A binary log could not be read or decoded."""

    def __init__(self, message, *, path=None, offset=None, type_code=None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.offset = offset
        self.type_code = type_code

    def __str__(self):
        where = []
        if self.path is not None:
            where.append(str(self.path))
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        if self.type_code is not None:
            where.append(f"event type {self.type_code}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class BadMagicError(BinlogError):
    """The file does not start with the binlog magic bytes."""


class TruncatedEventError(BinlogError):
    """The file ends in the middle of an event."""


class ReadFailedError(BinlogError):
    """The system could not read the file at this offset (a --start-position past what a
    file offset can be: the real tools' seek fails and they print it as a negative number)."""

    read_error = True


class UnreadableFileError(BinlogError):
    """A binlog the system would not let binlogkit read (permissions, a directory).
    The message says why ("cannot read: Permission denied"); ``tool_message`` is what
    mysqlbinlog says instead (``print`` prints that), ``detail`` its line before it."""

    def __init__(self, message, *, tool_message, detail=None, path=None, offset=None):
        super().__init__(message, path=path, offset=offset)
        self.tool_message = tool_message
        self.detail = detail

    def tool_text(self):
        """str(self) with mysqlbinlog's words."""
        return str(BinlogError(self.tool_message, path=self.path, offset=self.offset))


class ChecksumMismatchError(BinlogError):
    """An event's CRC32 does not match its bytes."""


class EventDecodeError(BinlogError):
    """An event body is malformed for its type."""


class InvalidEventError(BinlogError):
    """An event mariadb-binlog's read_log_event rejects (an invalid GTID, an incompatible
    MySQL event, an event it cannot decrypt).  `detail` is the real tool's first error line;
    the message is its second ("Could not read entry at offset N: ...")."""

    def __init__(self, why, *, data_len, path=None, offset=None, type_code=None):
        super().__init__(f"Could not read entry at offset {offset}: Error in log format or read error.",
                         path=path, offset=offset, type_code=type_code)
        self.detail = (f"Error in Log_event::read_log_event(): '{why}', data_len: {data_len}, "
                       f"event_type: {type_code}")


class CorruptRowError(BinlogError, ValueError):
    """A value runs past the end of the rows data (or cannot be sized).

    A BinlogError (binlog.rowvalues.Rows fills in path and offset); still a ValueError
    for the callers that catch decoding errors as such."""

    def __init__(self, message, values=None, column=None, **where):
        BinlogError.__init__(self, message, **where)
        self.values = values      # the values decoded before the bad column
        self.column = column      # 0-based index of the bad column


class UnsupportedTypeError(BinlogError, ValueError):
    """A column type mariadb-binlog cannot print either (old DECIMAL, compressed...)."""

    def __init__(self, col_type, meta, column=None, **where):
        BinlogError.__init__(self, f"unsupported column type {col_type} meta {meta}", **where)
        self.col_type = col_type
        self.meta = meta
        self.column = column      # 0-based index of the column, when known


class JsonBinaryError(BinlogError, ValueError):
    """The bytes are not a valid binary JSON document (mysqlbinlog: 'Invalid JSON')."""


class SlowlogError(BinlogkitError):
    """A slow query log could not be read or decoded: ``path``, the byte
    ``offset`` (of the uncompressed text) and ``line`` where it happened, when known."""

    def __init__(self, message, *, path=None, offset=None, line=None):
        super().__init__(message)
        self.message = message
        self.path = path
        self.offset = offset
        self.line = line

    def __str__(self):
        where = [] if self.path is None else [str(self.path)]
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        if self.line is not None:
            where.append(f"line {self.line}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message
