"""binlog_event_deserialize as mysqlbinlog 8.0 runs it: which events it reads,
their is_valid() checks, and the Binlog_read_error texts it prints.

Shared by the driver, the Transaction_payload printer (inner events) and the
C path's fallbacks (printer/mysql/fast.py).
"""

from binlogkit._record import record
from binlogkit.binlog import layout as L
from binlogkit.binlog.events import decode_event
from binlogkit.errors import EventDecodeError

# Binlog_read_error::get_str()
TRUNC_EVENT = "binlog truncated in the middle of event; consider out of disk space"
BOGUS = "corrupted data in log event"
IO_ERROR = "I/O error reading log event"
EVENT_TOO_BIG = "Event too big"
MAX_EVENT_SIZE = 1 << 30        # mysqlbinlog's max_allowed_packet: a longer event is "too big"
TRUNC_FD_EVENT = "Found invalid Format description event in binary log"
CHECKSUM_FAILURE = "Event crc check failed! Most likely there is event corruption."
INVALID_EVENT = "Found invalid event in binary log"
READ_ERROR = "Could not read entry at offset {}: Error in log format or read error 1."

# the events binlog_event_deserialize builds (others: ignorable ones, else an error)
DECODABLE = frozenset({
    L.QUERY_EVENT, L.ROTATE_EVENT, L.APPEND_BLOCK_EVENT, L.DELETE_FILE_EVENT, L.STOP_EVENT,
    L.INTVAR_EVENT, L.XID_EVENT, L.RAND_EVENT, L.USER_VAR_EVENT, L.WRITE_ROWS_EVENT_V1,
    L.UPDATE_ROWS_EVENT_V1, L.DELETE_ROWS_EVENT_V1, L.TABLE_MAP_EVENT, L.BEGIN_LOAD_QUERY_EVENT,
    L.EXECUTE_LOAD_QUERY_EVENT, L.INCIDENT_EVENT, L.WRITE_ROWS_EVENT, L.UPDATE_ROWS_EVENT,
    L.DELETE_ROWS_EVENT, L.XA_PREPARE_LOG_EVENT, L.PARTIAL_UPDATE_ROWS_EVENT,
    # only reachable through the 5.1 wl2325 type permutation (5.x mysqlbinlog prints them)
    L.PRE_GA_WRITE_ROWS_EVENT, L.PRE_GA_UPDATE_ROWS_EVENT, L.PRE_GA_DELETE_ROWS_EVENT,
    # GTID era
    L.ROWS_QUERY_LOG_EVENT, L.GTID_LOG_EVENT, L.ANONYMOUS_GTID_LOG_EVENT,
    L.PREVIOUS_GTIDS_LOG_EVENT, L.TRANSACTION_CONTEXT_EVENT, L.VIEW_CHANGE_EVENT,
    L.TRANSACTION_PAYLOAD_EVENT, L.GTID_TAGGED_LOG_EVENT,
})


class ReadError(Exception):
    """A Binlog_read_error while reading or deserializing an event."""

    def __init__(self, text):
        super().__init__(text)
        self.text = text


@record
class FormatDescriptionBody:
    format: object          # MysqlFormat
    flags: int

    @property
    def binlog_version(self):
        return self.format.binlog_version

    @property
    def server_version(self):
        return self.format.server_version

    @property
    def created(self):
        return self.format.created


@record
class UnknownBody:
    type_code: int


@record
class IgnorableBody:
    type_code: int


# -- is_valid() checks ------------------------------------------------------------------

def _valid_query(ev, body, fmt):
    if not body.query:
        raise ValueError("empty query")
    status_len = L.UINT16.unpack_from(ev.data, fmt.header_len + 11)[0]
    if status_len > ev.end - fmt.header_len - fmt.post_header(ev.type_code):
        raise ValueError("Invalid status vars length in Query event")


def _valid_rows(ev, body, fmt):
    if body.width == 0:
        raise ValueError("Invalid m_width")


def _valid_table_map(ev, body, fmt):
    if body.column_count == 0:
        raise ValueError("no columns")


def _valid_user_var(ev, body, fmt):
    if not body.name:
        raise ValueError("Invalid name length")


VALIDATORS = {L.QUERY_EVENT: _valid_query, L.EXECUTE_LOAD_QUERY_EVENT: _valid_query,
              L.TABLE_MAP_EVENT: _valid_table_map, L.USER_VAR_EVENT: _valid_user_var}
VALIDATORS.update({t: _valid_rows for t in (
    L.WRITE_ROWS_EVENT_V1, L.UPDATE_ROWS_EVENT_V1, L.DELETE_ROWS_EVENT_V1, L.WRITE_ROWS_EVENT,
    L.UPDATE_ROWS_EVENT, L.DELETE_ROWS_EVENT, L.PARTIAL_UPDATE_ROWS_EVENT)})


def check_valid(ev, body, fmt):
    """The is_valid() checks of the MySQL classes that binlogkit's decoders accept."""
    validate = VALIDATORS.get(ev.type_code)
    if validate is not None:
        validate(ev, body, fmt)


# what mysqlbinlog 9.x no longer reads: the 5.1 rows events (v1)
NOT_IN_9X = frozenset({L.WRITE_ROWS_EVENT_V1, L.UPDATE_ROWS_EVENT_V1, L.DELETE_ROWS_EVENT_V1})
INCIDENT_COUNT = 2          # NONE, LOST_EVENTS: 9.x refuses an incident number past them


def decode_body(ev, fmt, v9=False):
    """binlog_event_deserialize's switch for one non-FDE event (`v9`: mysqlbinlog 9.7's)."""
    t = ev.type_code
    if v9 and t in NOT_IN_9X:
        raise ReadError(INVALID_EVENT)
    if t in DECODABLE:
        try:
            body = decode_event(ev, fmt)
            check_valid(ev, body, fmt)
            if v9 and t == L.INCIDENT_EVENT and body.incident >= INCIDENT_COUNT:
                raise ValueError("unknown incident")
            return body
        except (EventDecodeError, ValueError, IndexError):
            raise ReadError(INVALID_EVENT) from None
    if ev.flags & L.LOG_EVENT_IGNORABLE_F:
        return IgnorableBody(t)
    raise ReadError(INVALID_EVENT)
