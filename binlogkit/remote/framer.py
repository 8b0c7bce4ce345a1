"""Framing of events received from a server: BinlogReader's rules for bytes in hand.

The dump sends one event per packet; `ReceivedEvents.frame(data, pos)` checks
the length in its header, splits off the CRC32 as the current format
description event says (checking it when asked) and adopts each new format
description event, exactly as the file reader does.  It offers the reader
interface the printers use (display_name, fde, in_use); `hold()` lends it a
batch of received events to walk as the file reader walks its buffer.
"""
from binlogkit.binlog import layout as L
from binlogkit.binlog.reader import BinlogReader
from binlogkit.errors import BinlogError

_unpack_header = L.COMMON_HEADER.unpack_from


class ReceivedEvents(BinlogReader):
    def __init__(self, logname, verify_checksum=False):
        super().__init__(logname, verify_checksum=verify_checksum)

    def open(self):
        return self

    def close(self):
        pass

    def hold(self, data, pos):
        """Make `data` (events received one after another, the first at offset `pos`)
        the reader's buffer, so that a file's event loop can walk it."""
        self._buf, self._buf_pos, self._eof = data, pos, True

    def frame(self, data, pos):
        """A RawEvent at offset `pos` (of the file, or as the real tool numbers it)."""
        if len(data) < L.LOG_EVENT_HEADER_LEN:
            raise BinlogError(f"Event too short ({len(data)} bytes) from server", path=self.path,
                              offset=pos)
        header = _unpack_header(data, 0)
        if header[3] != len(data):
            raise BinlogError(f"Event length {header[3]} in the header, {len(data)} bytes "
                              "received", path=self.path, offset=pos, type_code=header[1])
        return self._frame(pos, header, data)
