"""mysqlbinlog 8.0's PRINT_EVENT_INFO: options plus state kept across events.

One `MysqlState` lives for the whole run (mysqlbinlog keeps a single
PRINT_EVENT_INFO across all the files it prints).  The three caches are lists
of byte strings that the driver copies to the output where mysqlbinlog calls
copy_event_cache_to_file_and_reinit().
"""
from dataclasses import dataclass, field

ILLEGAL_CHARSET_INFO_NUMBER = 0xFFFFFFFF
UNDEFINED_SERVER_VERSION = 999999
INVALID_XID = 0xFFFFFFFFFFFFFFFF


@dataclass
class MysqlState:
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
    default_collation_for_utf8mb4_number: int = ILLEGAL_CHARSET_INFO_NUMBER
    sql_require_primary_key: int = 0xFF
    default_table_encryption: int = 0xFF
    thread_id: int = 0
    thread_id_printed: bool = False
    printed_fd_event: bool = False
    have_unflushed_events: bool = False
    skipped_event_in_transaction: bool = False
    common_header_len: int = 0
    hexdump_from: int = 0
    immediate_server_version: int = UNDEFINED_SERVER_VERSION
    table_maps: dict = field(default_factory=dict)      # m_table_map (filled with -v)
    ignored_maps: dict = field(default_factory=dict)    # m_table_map_ignored
    head: list = field(default_factory=list)
    body: list = field(default_factory=list)
    footer: list = field(default_factory=list)
