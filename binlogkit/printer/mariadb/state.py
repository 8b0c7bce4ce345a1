"""mariadb-binlog's PRINT_EVENT_INFO: the shared session state plus MariaDB's own."""
from binlogkit._record import field, record

from binlogkit.printer.state import SessionState

FN_REFLEN = 512


@record(slots=False)
class PrintState(SessionState):
    """State carried from event to event within one binlog file."""
    server_id: int = 0
    server_id_printed: bool = False
    domain_id: int = 0
    domain_id_printed: bool = False
    allow_parallel: bool = True
    allow_parallel_printed: bool = False
    skip_replication: int = 0
    event_group_active: bool = True     # GTID filters: is the current event group printed?
    gtid_ev_flags2: int = 0
    row_events: int = 0
    # print_event_info->db: the buffer a Query event's name is compared with and copied into
    db_buf: bytearray = field(default_factory=lambda: bytearray(FN_REFLEN))
    tail: list = field(default_factory=list)
