"""mysqlbinlog 8.0's PRINT_EVENT_INFO: options plus state kept across events.

One `MysqlState` lives for the whole run (mysqlbinlog keeps a single
PRINT_EVENT_INFO across all the files it prints).  The three caches are lists
of byte strings that the driver copies to the output where mysqlbinlog calls
copy_event_cache_to_file_and_reinit().
"""

from binlogkit._record import field, record
from binlogkit.printer.state import ILLEGAL_CHARSET_INFO_NUMBER, SessionState

UNDEFINED_SERVER_VERSION = 999999
INVALID_XID = 0xFFFFFFFFFFFFFFFF


@record(slots=False)
class MysqlState(SessionState):
    default_collation_for_utf8mb4_number: int = ILLEGAL_CHARSET_INFO_NUMBER
    sql_require_primary_key: int = 0xFF
    default_table_encryption: int = 0xFF
    have_unflushed_events: bool = False
    skipped_event_in_transaction: bool = False
    common_header_len: int = 0
    hexdump_from: int = 0
    immediate_server_version: int = UNDEFINED_SERVER_VERSION
    footer: list = field(default_factory=list)
