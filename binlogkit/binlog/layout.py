"""Binary layouts of the MySQL/MariaDB binary log: declarations only.

Every fixed-size structure is a `struct.Struct` declared once here; sizes and
magic numbers are named after the server source (`LOG_EVENT_HEADER_LEN`,
`BINLOG_MAGIC`, ...).  Nothing in this module decodes or prints.
"""
import struct

BINLOG_MAGIC = b"\xfebin"
ENCRYPTED_BINLOG_MAGIC = b"\xfdbin"
BIN_LOG_HEADER_SIZE = 4

# timestamp, type_code, server_id, event_size, log_pos, flags
COMMON_HEADER = struct.Struct("<IBIIIH")
LOG_EVENT_HEADER_LEN = COMMON_HEADER.size  # 19
EVENT_TYPE_OFFSET = 4
EVENT_LEN_OFFSET = 9
FLAGS_OFFSET = 17
BINLOG_CHECKSUM_LEN = 4

# Format_description: binlog_version, server_version[50], create_timestamp, header_len
FORMAT_DESCRIPTION_HEADER = struct.Struct("<H50sIB")
ST_SERVER_VER_LEN = 50

# Query: thread_id, exec_time, db_len, error_code, status_vars_len
QUERY_HEADER = struct.Struct("<IIBHH")
QUERY_HEADER_MINIMAL = struct.Struct("<IIBH")
# Execute_load_query extra post-header: file_id, fn_pos_start, fn_pos_end, dup_handling
EXECUTE_LOAD_QUERY_EXTRA = struct.Struct("<IIIB")
ROTATE_HEADER = struct.Struct("<Q")
INTVAR_BODY = struct.Struct("<BQ")
RAND_BODY = struct.Struct("<QQ")
XID_BODY = struct.Struct("<Q")
UINT8 = struct.Struct("<B")
UINT16 = struct.Struct("<H")
UINT32 = struct.Struct("<I")
UINT64 = struct.Struct("<Q")
INT32 = struct.Struct("<i")
INT64 = struct.Struct("<q")
DOUBLE = struct.Struct("<d")
# MariaDB GTID: seq_no, domain_id, flags2
MARIADB_GTID_HEADER = struct.Struct("<QIB")
# MariaDB GTID_LIST element: domain_id, server_id, seq_no
MARIADB_GTID_LIST_ENTRY = struct.Struct("<IIQ")
# XID (XA): formatID, gtrid_length, bqual_length
XA_XID_HEADER = struct.Struct("<iII")

# Event flags (log_event.h)
LOG_EVENT_BINLOG_IN_USE_F = 0x1
LOG_EVENT_THREAD_SPECIFIC_F = 0x4
LOG_EVENT_SUPPRESS_USE_F = 0x8
LOG_EVENT_ARTIFICIAL_F = 0x20
LOG_EVENT_RELAY_LOG_F = 0x40
LOG_EVENT_IGNORABLE_F = 0x80
LOG_EVENT_SKIP_REPLICATION_F = 0x8000

# Checksum algorithms in the format description event
BINLOG_CHECKSUM_ALG_OFF = 0
BINLOG_CHECKSUM_ALG_CRC32 = 1
BINLOG_CHECKSUM_ALG_UNDEF = 255
CHECKSUM_NAMES = {BINLOG_CHECKSUM_ALG_OFF: b"NONE", BINLOG_CHECKSUM_ALG_CRC32: b"CRC32"}

# Event type codes (binlog_event.h / log_event.h)
UNKNOWN_EVENT = 0
START_EVENT_V3 = 1
QUERY_EVENT = 2
STOP_EVENT = 3
ROTATE_EVENT = 4
INTVAR_EVENT = 5
LOAD_EVENT = 6
SLAVE_EVENT = 7
CREATE_FILE_EVENT = 8
APPEND_BLOCK_EVENT = 9
EXEC_LOAD_EVENT = 10
DELETE_FILE_EVENT = 11
NEW_LOAD_EVENT = 12
RAND_EVENT = 13
USER_VAR_EVENT = 14
FORMAT_DESCRIPTION_EVENT = 15
XID_EVENT = 16
BEGIN_LOAD_QUERY_EVENT = 17
EXECUTE_LOAD_QUERY_EVENT = 18
TABLE_MAP_EVENT = 19
PRE_GA_WRITE_ROWS_EVENT = 20
PRE_GA_UPDATE_ROWS_EVENT = 21
PRE_GA_DELETE_ROWS_EVENT = 22
WRITE_ROWS_EVENT_V1 = 23
UPDATE_ROWS_EVENT_V1 = 24
DELETE_ROWS_EVENT_V1 = 25
INCIDENT_EVENT = 26
HEARTBEAT_LOG_EVENT = 27
IGNORABLE_LOG_EVENT = 28
ROWS_QUERY_LOG_EVENT = 29
WRITE_ROWS_EVENT = 30
UPDATE_ROWS_EVENT = 31
DELETE_ROWS_EVENT = 32
GTID_LOG_EVENT = 33
ANONYMOUS_GTID_LOG_EVENT = 34
PREVIOUS_GTIDS_LOG_EVENT = 35
TRANSACTION_CONTEXT_EVENT = 36
VIEW_CHANGE_EVENT = 37
XA_PREPARE_LOG_EVENT = 38
PARTIAL_UPDATE_ROWS_EVENT = 39
TRANSACTION_PAYLOAD_EVENT = 40
HEARTBEAT_LOG_EVENT_V2 = 41
GTID_TAGGED_LOG_EVENT = 42
ANNOTATE_ROWS_EVENT = 160
BINLOG_CHECKPOINT_EVENT = 161
GTID_EVENT = 162
GTID_LIST_EVENT = 163
START_ENCRYPTION_EVENT = 164
QUERY_COMPRESSED_EVENT = 165
WRITE_ROWS_COMPRESSED_EVENT_V1 = 166
UPDATE_ROWS_COMPRESSED_EVENT_V1 = 167
DELETE_ROWS_COMPRESSED_EVENT_V1 = 168
WRITE_ROWS_COMPRESSED_EVENT = 169
UPDATE_ROWS_COMPRESSED_EVENT = 170
DELETE_ROWS_COMPRESSED_EVENT = 171

ROWS_EVENT_TYPES = frozenset({
    WRITE_ROWS_EVENT_V1, UPDATE_ROWS_EVENT_V1, DELETE_ROWS_EVENT_V1,
    WRITE_ROWS_EVENT, UPDATE_ROWS_EVENT, DELETE_ROWS_EVENT,
    WRITE_ROWS_COMPRESSED_EVENT_V1, UPDATE_ROWS_COMPRESSED_EVENT_V1,
    DELETE_ROWS_COMPRESSED_EVENT_V1, WRITE_ROWS_COMPRESSED_EVENT,
    UPDATE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT,
    PRE_GA_WRITE_ROWS_EVENT, PRE_GA_UPDATE_ROWS_EVENT, PRE_GA_DELETE_ROWS_EVENT,
})
COMPRESSED_ROWS_EVENT_TYPES = frozenset(range(WRITE_ROWS_COMPRESSED_EVENT_V1,
                                              DELETE_ROWS_COMPRESSED_EVENT + 1))
# Rows events carrying the v2 extra-data post-header field
ROWS_V2_EVENT_TYPES = frozenset({
    WRITE_ROWS_EVENT, UPDATE_ROWS_EVENT, DELETE_ROWS_EVENT,
    WRITE_ROWS_COMPRESSED_EVENT, UPDATE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT,
    PARTIAL_UPDATE_ROWS_EVENT,
})
# The "general" kind of a rows event: write, update or delete
ROWS_GENERAL_KIND = {
    WRITE_ROWS_EVENT_V1: "write", WRITE_ROWS_EVENT: "write",
    WRITE_ROWS_COMPRESSED_EVENT_V1: "write", WRITE_ROWS_COMPRESSED_EVENT: "write",
    PRE_GA_WRITE_ROWS_EVENT: "write",
    UPDATE_ROWS_EVENT_V1: "update", UPDATE_ROWS_EVENT: "update",
    UPDATE_ROWS_COMPRESSED_EVENT_V1: "update", UPDATE_ROWS_COMPRESSED_EVENT: "update",
    PRE_GA_UPDATE_ROWS_EVENT: "update", PARTIAL_UPDATE_ROWS_EVENT: "update",
    DELETE_ROWS_EVENT_V1: "delete", DELETE_ROWS_EVENT: "delete",
    DELETE_ROWS_COMPRESSED_EVENT_V1: "delete", DELETE_ROWS_COMPRESSED_EVENT: "delete",
    PRE_GA_DELETE_ROWS_EVENT: "delete",
}

# Rows event flags
STMT_END_F = 0x1

# get_type_str() of the MariaDB client, used in a few printed lines
TYPE_NAMES = {
    START_EVENT_V3: "Start_v3", STOP_EVENT: "Stop", QUERY_EVENT: "Query",
    ROTATE_EVENT: "Rotate", INTVAR_EVENT: "Intvar", LOAD_EVENT: "Load",
    NEW_LOAD_EVENT: "New_load", SLAVE_EVENT: "Slave", CREATE_FILE_EVENT: "Create_file",
    APPEND_BLOCK_EVENT: "Append_block", DELETE_FILE_EVENT: "Delete_file",
    EXEC_LOAD_EVENT: "Exec_load", RAND_EVENT: "RAND", XID_EVENT: "Xid",
    USER_VAR_EVENT: "User var", FORMAT_DESCRIPTION_EVENT: "Format_desc",
    TABLE_MAP_EVENT: "Table_map", PRE_GA_WRITE_ROWS_EVENT: "Write_rows_event_old",
    PRE_GA_UPDATE_ROWS_EVENT: "Update_rows_event_old",
    PRE_GA_DELETE_ROWS_EVENT: "Delete_rows_event_old",
    WRITE_ROWS_EVENT_V1: "Write_rows_v1", UPDATE_ROWS_EVENT_V1: "Update_rows_v1",
    DELETE_ROWS_EVENT_V1: "Delete_rows_v1", WRITE_ROWS_EVENT: "Write_rows",
    UPDATE_ROWS_EVENT: "Update_rows", DELETE_ROWS_EVENT: "Delete_rows",
    BEGIN_LOAD_QUERY_EVENT: "Begin_load_query",
    EXECUTE_LOAD_QUERY_EVENT: "Execute_load_query", INCIDENT_EVENT: "Incident",
    ANNOTATE_ROWS_EVENT: "Annotate_rows", BINLOG_CHECKPOINT_EVENT: "Binlog_checkpoint",
    GTID_EVENT: "Gtid", GTID_LIST_EVENT: "Gtid_list",
    START_ENCRYPTION_EVENT: "Start_encryption", QUERY_COMPRESSED_EVENT: "Query_compressed",
    WRITE_ROWS_COMPRESSED_EVENT_V1: "Write_rows_compressed_v1",
    UPDATE_ROWS_COMPRESSED_EVENT_V1: "Update_rows_compressed_v1",
    DELETE_ROWS_COMPRESSED_EVENT_V1: "Delete_rows_compressed_v1",
    WRITE_ROWS_COMPRESSED_EVENT: "Write_rows_compressed",
    UPDATE_ROWS_COMPRESSED_EVENT: "Update_rows_compressed",
    DELETE_ROWS_COMPRESSED_EVENT: "Delete_rows_compressed",
    XA_PREPARE_LOG_EVENT: "XA_prepare", IGNORABLE_LOG_EVENT: "Ignorable",
    ROWS_QUERY_LOG_EVENT: "Rows_query", GTID_LOG_EVENT: "Gtid",
    ANONYMOUS_GTID_LOG_EVENT: "Anonymous_Gtid", PREVIOUS_GTIDS_LOG_EVENT: "Previous_gtids",
    HEARTBEAT_LOG_EVENT: "Heartbeat",
}

# Query event status variables (log_event.h, Q_*)
Q_FLAGS2_CODE = 0
Q_SQL_MODE_CODE = 1
Q_CATALOG_CODE = 2
Q_AUTO_INCREMENT = 3
Q_CHARSET_CODE = 4
Q_TIME_ZONE_CODE = 5
Q_CATALOG_NZ_CODE = 6
Q_LC_TIME_NAMES_CODE = 7
Q_CHARSET_DATABASE_CODE = 8
Q_TABLE_MAP_FOR_UPDATE_CODE = 9
Q_MASTER_DATA_WRITTEN_CODE = 10
Q_INVOKER = 11
Q_UPDATED_DB_NAMES = 12
Q_MICROSECONDS = 13
Q_COMMIT_TS = 14
Q_COMMIT_TS2 = 15
Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP = 16
Q_DDL_LOGGED_WITH_XID = 17
Q_DEFAULT_COLLATION_FOR_UTF8MB4 = 18
Q_SQL_REQUIRE_PRIMARY_KEY = 19
Q_DEFAULT_TABLE_ENCRYPTION = 20
Q_HRNOW = 128
Q_XID = 129
Q_GTID_FLAGS3 = 130
Q_CHARACTER_SET_COLLATIONS = 131

# thd->options bits that travel in Q_FLAGS2 (MariaDB sql_priv.h)
OPTION_AUTO_IS_NULL = 1 << 14
OPTION_NO_CHECK_CONSTRAINT_CHECKS = 1 << 15
OPTION_NOT_AUTOCOMMIT = 1 << 19
OPTION_EXPLICIT_DEF_TIMESTAMP = 1 << 24
OPTION_NO_FOREIGN_KEY_CHECKS = 1 << 26
OPTION_RELAXED_UNIQUE_CHECKS = 1 << 27
OPTION_IF_EXISTS = 1 << 28
OPTION_INSERT_HISTORY = 1 << 30

# Intvar types
INTVAR_NAMES = {1: b"LAST_INSERT_ID", 2: b"INSERT_ID"}

# User_var value types (Item_result)
STRING_RESULT = 0
REAL_RESULT = 1
INT_RESULT = 2
ROW_RESULT = 3
DECIMAL_RESULT = 4
USER_VAR_UNSIGNED_F = 0x1

# MariaDB GTID flags2
FL_STANDALONE = 1
FL_GROUP_COMMIT_ID = 2
FL_TRANSACTIONAL = 4
FL_ALLOW_PARALLEL = 8
FL_WAITED = 16
FL_DDL = 32
FL_PREPARED_XA = 64
FL_COMPLETED_XA = 128
# MariaDB GTID flags_extra
FL_EXTRA_MULTI_ENGINE_E1 = 1
FL_START_ALTER_E1 = 2
FL_COMMIT_ALTER_E1 = 4
FL_ROLLBACK_ALTER_E1 = 8
FL_EXTRA_THREAD_ID = 16

# ---------------------------------------------------------------------------
# MySQL 5.6-9.x events (libs/mysql/binlog/event/control_events.h, rows_event.h)
# ---------------------------------------------------------------------------

TYPE_NAMES.update({
    TRANSACTION_CONTEXT_EVENT: "Transaction_context", VIEW_CHANGE_EVENT: "View_change",
    PARTIAL_UPDATE_ROWS_EVENT: "Update_rows_partial",
    TRANSACTION_PAYLOAD_EVENT: "Transaction_payload", HEARTBEAT_LOG_EVENT_V2: "Heartbeat_v2",
    GTID_TAGGED_LOG_EVENT: "Gtid_tagged_log_event",
})

# Gtid_event: flags, SID, GNO (the 25-byte post-header of MySQL 5.6)
MYSQL_GTID_HEADER = struct.Struct("<B16sq")
# lt_type, last_committed, sequence_number (5.7.6+)
MYSQL_GTID_LOGICAL_CLOCK = struct.Struct("<Bqq")
GTID_FLAG_MAY_HAVE_SBR = 1
LOGICAL_TIMESTAMP_TYPECODE = 2
COMMIT_TIMESTAMP_LENGTH = 7                 # immediate/original commit timestamp
ENCODED_COMMIT_TIMESTAMP_LENGTH = 55        # bit 55: original timestamp follows
ENCODED_SERVER_VERSION_LENGTH = 31          # bit 31: original server version follows
UNDEFINED_SERVER_VERSION = 999999
COMMIT_GROUP_TICKET_LENGTH = 8
# Previous_gtids / Gtid_set encoding: n_sids (8 bytes; top byte = format),
# then per SID: uuid(16) [tag], n_intervals(8), intervals (start, end) x 8 bytes
GTID_SET_INTERVAL = struct.Struct("<qq")
GTID_FORMAT_UNTAGGED = 0
GTID_FORMAT_TAGGED = 1
UUID_LENGTH = 16
TAG_MAX_LENGTH = 32

# Transaction_context: server_uuid_len, thread_id, gtid_specified,
# encoded_snapshot_version_length, write_set_len, read_set_len
TRANSACTION_CONTEXT_HEADER = struct.Struct("<BIBIII")
# View_change: view_id[40], seq_number, cert_info_len
VIEW_CHANGE_HEADER = struct.Struct("<40sQI")
ENCODED_VIEW_ID_MAX_LEN = 40

# Transaction_payload / Heartbeat_v2 TLV field ids (codecs/binary.h)
OTW_PAYLOAD_HEADER_END_MARK = 0
OTW_PAYLOAD_SIZE_FIELD = 1
OTW_PAYLOAD_COMPRESSION_TYPE_FIELD = 2
OTW_PAYLOAD_UNCOMPRESSED_SIZE_FIELD = 3
OTW_HB_HEADER_END_MARK = 0
OTW_HB_LOG_FILENAME_FIELD = 1
OTW_HB_LOG_POSITION_FIELD = 2
# compression::type (compression/base.h)
COMPRESSION_ZSTD = 0
COMPRESSION_NONE = 255
COMPRESSION_NAMES = {COMPRESSION_ZSTD: "ZSTD", COMPRESSION_NONE: "NONE"}

# Rows v2 extra_row_info typecodes (rows_event.h enum_extra_row_info_typecode)
EXTRA_ROW_INFO_NDB = 0
EXTRA_ROW_INFO_PART = 1
EXTRA_ROW_INFO_HEADER_LENGTH = 2            # NDB: length byte + format byte
# PARTIAL_UPDATE_ROWS: binlog_row_value_options bits
PARTIAL_JSON_UPDATES = 1
# Json_diff operations (json_diff.h enum_json_diff_operation)
JSON_DIFF_REPLACE = 0
JSON_DIFF_INSERT = 1
JSON_DIFF_REMOVE = 2

# Rows event flags beyond STMT_END_F (rows_event.h enum_flag)
NO_FOREIGN_KEY_CHECKS_F = 0x2
RELAXED_UNIQUE_CHECKS_F = 0x4
COMPLETE_ROWS_F = 0x8
USE_SQL_FOREIGN_KEY_F = 0x10        # MySQL 9.x: foreign keys checked by the SQL layer

# Table_map optional metadata field types (rows_event.h Optional_metadata_field_type)
TM_SIGNEDNESS = 1
TM_DEFAULT_CHARSET = 2
TM_COLUMN_CHARSET = 3
TM_COLUMN_NAME = 4
TM_SET_STR_VALUE = 5
TM_ENUM_STR_VALUE = 6
TM_GEOMETRY_TYPE = 7
TM_SIMPLE_PRIMARY_KEY = 8
TM_PRIMARY_KEY_WITH_PREFIX = 9
TM_ENUM_AND_SET_DEFAULT_CHARSET = 10
TM_ENUM_AND_SET_COLUMN_CHARSET = 11
TM_COLUMN_VISIBILITY = 12
TM_VECTOR_DIMENSIONALITY = 13

MYSQL_TYPE_VECTOR = 242

# ---------------------------------------------------------------------------
# 5.0/5.1-era events (MySQL 5.7 libbinlogevents load_data_events.h, log_event.h)
# ---------------------------------------------------------------------------

# Start_v3 body: binlog_version, server_version[50], created
START_V3_BODY = struct.Struct("<H50sI")
# Load / New_load post-header: thread_id, exec_time, skip_lines, table_name_len,
# db_len, num_fields
LOAD_HEADER = struct.Struct("<IIIBBI")
# old_sql_ex of LOAD_EVENT: field_term, enclosed, line_term, line_start,
# escaped, opt_flags, empty_flags (one byte each)
OLD_SQL_EX = struct.Struct("<7B")
# Slave_log_event body: master_pos, master_port, then master_host\0 master_log
SLAVE_HEADER = struct.Struct("<QH")

# ---------------------------------------------------------------------------
# Binlog format v1 (3.23) and v3 (4.0-4.1): no format description event; the log
# starts with a Start_v3 event (Format_description_log_event(1|3) describes it)
# ---------------------------------------------------------------------------
OLD_HEADER = struct.Struct("<IBII")     # v1: timestamp, type_code, server_id, event_size
OLD_HEADER_LEN = OLD_HEADER.size        # 13
START_V3_HEADER_LEN = START_V3_BODY.size    # 56
# post-header lengths of types 1..14 (START_EVENT_V3..USER_VAR_EVENT) in v3; v1 has no
# Rotate position
LEGACY_POST_HEADER_LEN = bytes((START_V3_HEADER_LEN, 11, 0, 8, 0, LOAD_HEADER.size, 0, 4, 4, 4, 4,
                                LOAD_HEADER.size, 0, 0))

# Event type ids of the mysql-5.1-wl1012/wl2325 trees ("5.1.[1-5]-a_drop5p*",
# "5.2.[0-2]-a_drop6p*"), mapped to today's ids as the 5.1-5.7 servers did
# (Format_description_event: event_type_permutation).
PRE_GA_EVENT_TYPE_PERMUTATION = (
    UNKNOWN_EVENT, START_EVENT_V3, QUERY_EVENT, STOP_EVENT, ROTATE_EVENT, INTVAR_EVENT,
    LOAD_EVENT, SLAVE_EVENT, CREATE_FILE_EVENT, APPEND_BLOCK_EVENT, EXEC_LOAD_EVENT,
    DELETE_FILE_EVENT, NEW_LOAD_EVENT, RAND_EVENT, USER_VAR_EVENT, FORMAT_DESCRIPTION_EVENT,
    TABLE_MAP_EVENT, PRE_GA_WRITE_ROWS_EVENT, PRE_GA_UPDATE_ROWS_EVENT,
    PRE_GA_DELETE_ROWS_EVENT, XID_EVENT, BEGIN_LOAD_QUERY_EVENT, EXECUTE_LOAD_QUERY_EVENT,
)
