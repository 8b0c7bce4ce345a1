"""What mysqlbinlog 8.0 takes from a format description event.

The reader's FormatDescription is MariaDB-shaped; MySQL's rules differ in
one place that matters for printing: a checksum-era FDE (server >= 5.6.1)
always ends in the algorithm byte plus four CRC bytes, also when the
algorithm is OFF (Log_event_footer::get_checksum_alg).  `mysql_format`
reads the algorithm and the number of event types the way the MySQL client
does, from the FDE's own bytes.
"""
from binlogkit._record import record
from binlogkit.binlog import layout as L
from binlogkit.binlog.reader import PRE_GA_VERSIONS, version_split

ST_COMMON_HEADER_LEN_OFFSET = 56      # 2 + 50 + 4: where header_len sits in the body
CHECKSUM_VERSION_SPLIT = (5, 6, 1)


@record
class MysqlFormat:
    binlog_version: int
    server_version: bytes
    created: int
    header_len: int
    post_header_len: bytes
    checksum_alg: int
    permutation: tuple = None     # event type ids of the 5.1 wl1012/wl2325 trees

    @property
    def version_split(self):
        return version_split(self.server_version)

    @property
    def is_mariadb(self):
        return b"MariaDB" in self.server_version

    @property
    def number_of_event_types(self):
        return len(self.post_header_len)

    def post_header(self, type_code, default=0):
        if 0 < type_code <= len(self.post_header_len):
            return self.post_header_len[type_code - 1]
        return default


def has_checksum_field(server_version):
    split = version_split(server_version)
    if b"MariaDB" in server_version or split[0] >= 10:
        return split >= (5, 3, 0)
    return split >= CHECKSUM_VERSION_SPLIT


def mysql_format(data):
    """MysqlFormat of an FDE (`data`: the whole event, CRC bytes included).

    Raises ValueError when the event is too short to be an FDE
    (Binlog_read_error::TRUNC_FD_EVENT).
    """
    size = L.UINT32.unpack_from(data, 9)[0]
    body = bytes(data[L.LOG_EVENT_HEADER_LEN:size])
    if len(body) <= ST_COMMON_HEADER_LEN_OFFSET:
        raise ValueError("Found invalid Format description event in binary log")
    binlog_version, server_version, created, header_len = \
        L.FORMAT_DESCRIPTION_HEADER.unpack_from(body)
    server_version = server_version.split(b"\0", 1)[0]
    rest = body[L.FORMAT_DESCRIPTION_HEADER.size:]
    alg = L.BINLOG_CHECKSUM_ALG_UNDEF
    if has_checksum_field(server_version) and len(rest) >= 1 + L.BINLOG_CHECKSUM_LEN:
        alg = rest[-1 - L.BINLOG_CHECKSUM_LEN]
        rest = rest[:-1 - L.BINLOG_CHECKSUM_LEN]
    permutation = None
    # servers whose event type ids were permuted (Format_description_log_event of
    # MySQL 5.1-5.7 maps them to today's ids; 8.0 no longer does)
    if server_version.startswith(PRE_GA_VERSIONS) and rest:
        permutation = L.PRE_GA_EVENT_TYPE_PERMUTATION
        permuted = bytearray(rest)
        for i in range(1, min(len(rest), len(permutation) - 1) + 1):
            permuted[permutation[i] - 1] = rest[i - 1]
        rest = bytes(permuted)
    return MysqlFormat(binlog_version, server_version, created, header_len, rest, alg, permutation)


# The format mysqlbinlog assumes before any FDE has been read (its own
# Format_description_event(BINLOG_VERSION, server_version); the post-header
# lengths are those of a real 8.0.40 FDE).
DEFAULT_FORMAT = MysqlFormat(4, b"8.0.41", 0, L.LOG_EVENT_HEADER_LEN, bytes([
    0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0,
    0, 10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0]), L.BINLOG_CHECKSUM_ALG_OFF)
