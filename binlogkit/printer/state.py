"""The print options of both flavors, and the cross-event state they share
(mysqlbinlog's PRINT_EVENT_INFO; each flavor's state.py adds its own fields)."""
from binlogkit._record import field, record

BASE64_NEVER = "never"
BASE64_AUTO = "auto"
BASE64_ALWAYS = "always"
BASE64_DECODE_ROWS = "decode-rows"
ILLEGAL_CHARSET_INFO_NUMBER = 0xFFFFFFFF
MY_TIME_T_MAX = (1 << 63) - 1


@record(slots=False)
class PrintOptions:
    """The mysqlbinlog/mariadb-binlog options that shape the text."""
    short_form: bool = False
    hexdump: bool = False
    base64_output: str = BASE64_AUTO
    verbose: int = 0
    start_position: int = 4
    stop_position: int = (1 << 64) - 1
    start_datetime: int = 0
    stop_datetime: int = MY_TIME_T_MAX
    stop_datetime_text: str = None      # as given, for "Did not reach stop datetime '...'"
    database: bytes = None
    table: bytes = None
    server_id: int = 0
    offset: int = 0
    local_load: str = None
    force_if_open: bool = True
    force_read: bool = False
    verify_checksum: bool = False
    print_row_count: bool = True
    print_row_event_positions: bool = None      # None: on unless --short-form or --flashback
    skip_annotate_row_events: bool = False
    disable_log_bin: bool = False
    set_charset: str = None
    print_table_metadata: bool = False
    # MySQL: whose text, "8.0" (mysqlbinlog 8.0.41) or "9.7" (9.7.4); None: the first log's
    # server says (9.x -> 9.7, older -> 8.0)
    mysqlbinlog_version: str = None
    idempotent: bool = False        # MySQL: -i, SET @@SESSION.RBR_EXEC_MODE=IDEMPOTENT first
    require_row_format: bool = False    # MySQL: stop at what a row-format-only apply refuses
    # MariaDB 10.11 only (see gtid_filter.py, flashback.py)
    flashback: bool = False
    rewrite_db: tuple = ()          # ((from, to), ...) bytes pairs; the first match wins
    start_gtids: tuple = None       # --start-position given as a GTID list
    stop_gtids: tuple = None        # --stop-position given as a GTID list
    gtid_strict_mode: bool = True
    id_filters: tuple = ()          # (("do"|"ignore", "server"|"domain", ids), ...) in option order


def row_event_positions(opts):
    """Whether '# at N' lines are printed (mariadb-binlog turns them off for --short-form
    and --flashback unless --print-row-event-positions is given)."""
    if opts.print_row_event_positions is None:
        return not (opts.short_form or opts.flashback)
    return opts.print_row_event_positions


@record(slots=False)
class SessionState:
    """PRINT_EVENT_INFO as both tools keep it: the session variables last printed
    (a Query event prints only what changed), the table maps, and the caches
    a rows statement is collected in (`head`, `body`; each flavor adds its third)."""
    delimiter: bytes = b"/*!*/;"
    db: bytes = b""
    flags2_inited: bool = False
    flags2: int = 0
    sql_mode_inited: bool = False
    sql_mode: int = 0
    auto_increment_increment: int = 0
    auto_increment_offset: int = 0
    charset_inited: bool = False
    charset: bytes = b"\0" * 6
    time_zone: bytes = b""
    lc_time_names_number: int = 0xFFFFFFFF
    charset_database_number: int = ILLEGAL_CHARSET_INFO_NUMBER
    thread_id: int = 0
    thread_id_printed: bool = False
    printed_fd_event: bool = False
    table_maps: dict = field(default_factory=dict)
    ignored_maps: dict = field(default_factory=dict)
    head: list = field(default_factory=list)
    body: list = field(default_factory=list)
