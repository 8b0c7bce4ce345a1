/* Shared by the parts of binlogkit._speedups (speedups.c, rows.c,
 * image.c, text.c, mysql.c, json.c; all in binlogkit/csrc/). */
#ifndef BINLOGKIT_SPEEDUPS_H
#define BINLOGKIT_SPEEDUPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define LOG_EVENT_HEADER_LEN 19
#define BINLOG_CHECKSUM_LEN 4
#define FORMAT_DESCRIPTION_EVENT 15

static inline uint32_t
get_u32(const unsigned char *p)
{
    return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline char *
put_u64(char *out, unsigned long long v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *out++ = digits[--n];
    return out;
}

/* v in decimal, zero-padded to at least `width` (<= 20) digits */
static inline char *
put_pad(char *out, unsigned long long v, int width)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < width)
        digits[n++] = '0';
    while (n)
        *out++ = digits[--n];
    return out;
}

static inline char *
put_str(char *out, const char *s, Py_ssize_t n)
{
    memcpy(out, s, n);
    return out + n;
}

#define PUT_LIT(out, lit) put_str(out, lit, sizeof(lit) - 1)

/* A growing output buffer: PyMem memory, or (as_bytes) a bytes object that is
 * handed out at the end without another copy (csrc/rows.c). */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
    int as_bytes;
    PyObject *bytes;
} Buf;

int bk_buf_reserve(Buf *b, Py_ssize_t extra);
PyObject *bk_buf_take_bytes(Buf *b, Py_ssize_t n);
void bk_buf_free(Buf *b);

static inline int
buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    if (bk_buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

#define BUF_LIT(b, lit) buf_put(b, lit, sizeof(lit) - 1)

/* _speedups.c */
Py_ssize_t bk_b64_lines_size(Py_ssize_t n);
void bk_b64_lines_into(const unsigned char *in, Py_ssize_t n, char *out);
char *bk_put_header(char *o, const char *time_text, Py_ssize_t tlen, unsigned long long server_id,
                    unsigned long long log_pos, int has_crc, uint32_t crc);
Py_ssize_t bk_count_image_rows(const unsigned char *steps, Py_ssize_t nsteps,
                               const unsigned char *steps_ai, Py_ssize_t nsteps_ai,
                               const unsigned char *data, Py_ssize_t end);

/* csrc/rows.c: print_row_statements(buf, rel, pos, ctx); ctx is a tuple, in this order: */
enum {
    CTX_HAS_CRC,          /* bool: events end in a CRC32 */
    CTX_HEADER_LEN,       /* int: FDE common-header length */
    CTX_POST_HEADER_LEN,  /* bytes: FDE post-header lengths, by type code - 1 */
    CTX_STOP_POSITION,    /* int: --stop-position (events at or after it are left) */
    CTX_STOP_DATETIME,    /* int: --stop-datetime */
    CTX_DELIMITER,        /* bytes: the statement delimiter */
    CTX_TIMES,            /* dict: when -> header time text */
    CTX_TIME_TEXT,        /* callable(when) -> time text (and fills CTX_TIMES) */
    CTX_MAPS,             /* dict: table-map body bytes -> (table_id, TableMapBody, text) */
    CTX_MAP_MISS,         /* callable(event bytes, pos) -> that tuple (and fills CTX_MAPS), or None */
    CTX_TABLE_MAPS,       /* dict: table_id -> TableMapBody (PrintState.table_maps) */
    CTX_IMAGE_PLAN,       /* rows.image_plan(table_map, cols) -> ImagePlan */
    CTX_ENCODED,          /* bool: the BINLOG base64 block is printed (not decode-rows) */
    CTX_VERBOSE,          /* int: 0, or -v / -vv */
    CTX_TEXT_PLAN,        /* rows_fast.c_text_plan(table_map, kind, cols, cols_ai, width,
                             verbose) -> plan or None, cached in table_map.plans under
                             (kind, cols, cols_ai, width, verbose); None without -v */
    CTX_SIZE,
    /* The MySQL flavor (printer/mysql/fast.py) adds these: */
    CTX_FLAVOR = CTX_SIZE, /* int: 1 prints mysqlbinlog 8.0's text (below), 0 mariadb-binlog's
                             with the GTID, Xid and Query events of csrc/mariadb.c */
    CTX_FIXED_POS,        /* bool: the events of a Transaction_payload: each one's "# at" is
                             `pos`, which does not move; new_pos is then the new `rel` */
    CTX_TRX_STATE,        /* list [seen_gtid, in_transaction, immediate_server_version,
                             thread_id], or None: with it GTID, BEGIN/COMMIT and Xid events
                             are printed too (csrc/mysql.c), the list updated; MariaDB adds
                             [gtid_ev_flags2, skip_replication, allow_parallel, domain_id,
                             server_id] (-1: not printed yet) */
    CTX_GIPK,             /* bool: the CTX_MAPS texts have the GIPK line */
    CTX_QUERIES,          /* dict: Query key -> (after exec time, after the timestamp, rest) */
    CTX_QUERY_MISS,       /* callable(event bytes, pos) -> that tuple or None (fills the dict) */
    CTX_COMMIT_TIMES,     /* dict: seconds -> (text before, after the ".%06d") */
    CTX_COMMIT_TIME,      /* callable(seconds) -> that tuple (and fills the dict) */
    CTX_DECOMPRESS,       /* (one_shot, careful): callables(bytes) -> a zstd payload
                             uncompressed; one_shot may raise (then careful is asked), careful
                             answers None where Python would fail; None: Transaction_payload
                             events are left to Python */
    CTX_GTID_AUDIT,       /* MariaDB: the GtidFiltering whose validator records GTIDs
                             (csrc/mariadb.c); None for MySQL */
    CTX_GTID_KEEPS,       /* MariaDB: bool, the validator is kept past the first GTID
                             (--gtid-strict-mode or -vvv) */
    CTX_FLASHBACK,        /* MariaDB: None, or (held, flashback_steps) for --flashback: held,
                             the flashback.HeldText that keeps the events' held texts (C
                             appends to its bytearrays `buf` and `ends` as its append()
                             does, and calls its spill() when buf reaches SPILL_AT),
                             flashback_steps(table_map, cols, width) -> the image steps
                             (bytes) its rows are reversed with, or None (Python's then) */
    CTX_USER_VAR,         /* None (User_var events are Python's), or (charsets, charset_miss,
                             back): charsets a dict, charset number -> (b"_utf8mb4 ",
                             b" COLLATE `...`"), what a string value prints around its hex
                             digits; charset_miss(number) -> that pair (and fills the dict) or
                             None (Python prints it); back: MySQL 9.x's charset lines after
                             the SET (bytes), None for MariaDB and 8.0 (csrc/uservar.c) */
    CTX_SIZE_MYSQL
};

/* The BINLOG block of a statement being printed: its events, base64-encoded only
 * when the statement is flushed (straight into the output, no copy between) */
typedef struct {
    const unsigned char *p;
    Py_ssize_t n;
} Span;

typedef struct {
    Span *s;
    Py_ssize_t len, cap;
} Spans;

/* Where print_row_statements hands the text of committed statements while it
 * works (its optional fifth argument): every SINK_AT bytes or so (the sixth) */
#define SINK_AT (256 * 1024)

/* --flashback's held text (CTX_FLASHBACK[0], a flashback.HeldText), taken out of it for
 * one call: csrc/mariadb.c */
typedef struct {
    PyObject *obj, *buf, *ends;  /* the HeldText, its bytearrays (new references) */
    long long spooled;           /* its spooled: bytes already in its temporary file */
    Py_ssize_t spill_at;
} Held;

/* csrc/held.c */
int bk_held_open(Held *h, PyObject *obj);
void bk_held_close(Held *h);

PyObject *bk_held_reversed(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* The context, taken out of ctx */
typedef struct {
    PyObject **ctx;
    PyObject *sink;              /* callable(memoryview) or NULL: see SINK_AT */
    Py_ssize_t sink_at;
    Py_ssize_t soft_end;         /* no statement or unit starts at or past this index of data */
    int has_crc, encoded, verbose, mysql, fixed_pos, trx;
    int flashback;               /* MariaDB --flashback (CTX_FLASHBACK): csrc/mariadb.c */
    Held *held;                  /* ... and its held text */
    long long at;                /* fixed_pos: the position every event is printed at */
    unsigned long long stop_position;
    long long stop_datetime;
    Py_ssize_t header_len;
    const unsigned char *post_header_len;
    Py_ssize_t n_post_header_len;
} Fmt;

/* the statement delimiter and a newline (the `DELIMITER` line's end of every statement) */
static inline int
put_delim_line(Buf *b, const Fmt *f)
{
    PyObject *d = f->ctx[CTX_DELIMITER];
    return buf_put(b, PyBytes_AS_STRING(d), PyBytes_GET_SIZE(d)) < 0 || BUF_LIT(b, "\n") < 0
           ? -1 : 0;
}

static inline int
put_number(Buf *b, unsigned long long v)
{
    if (bk_buf_reserve(b, 24) < 0)
        return -1;
    b->len = put_u64(b->p + b->len, v) - b->p;
    return 0;
}

/* v as a signed longlong (llstr) */
static inline int
put_signed(Buf *b, long long v)
{
    if (v < 0 && BUF_LIT(b, "-") < 0)
        return -1;
    return put_number(b, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
}

/* The MySQL flavor's transaction state (CTX_TRX_STATE), kept by csrc/mysql.c */
typedef struct {
    int seen_gtid, in_transaction;
    long long immediate_server_version, thread_id;
    /* MariaDB (csrc/mariadb.c): PrintState's gtid_ev_flags2, skip_replication and the
     * session values its GTID lines printed last (-1: none yet) */
    int gtid_flags2, skip_replication, allow_parallel;
    long long domain_id, server_id;
} Trx;
#define TRX_ITEMS_MYSQL 4
#define TRX_ITEMS_MARIADB 9

#define LOG_EVENT_SKIP_REPLICATION_F 0x8000

/* MariaDB's print_skip_replication() prints nothing when the event's flag is the one
 * it printed last (PrintState.skip_replication, kept in the Trx) */
static inline int
skip_replication_steady(const unsigned char *ev, const Trx *t)
{
    int flag = (ev[17] | (ev[18] << 8)) & LOG_EVENT_SKIP_REPLICATION_F ? 1 : 0;
    return flag == t->skip_replication;
}

/* What a statement loop has committed (printed whole) */
typedef struct {
    Py_ssize_t events, len;     /* events printed; out->len after them */
    long long pos;              /* where the next event starts (fixed_pos: its rel) */
    Trx trx;
} Mark;

PyObject *bk_print_row_statements(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
int bk_held_append(const Fmt *f, const char *p, Py_ssize_t n);
int bk_statements(const Fmt *f, const unsigned char *data, Py_ssize_t avail, Py_ssize_t rel,
                  long long pos, Buf *out, Trx *trx, Mark *m);
Py_ssize_t bk_post_header(const Fmt *f, int type_code, Py_ssize_t dflt);
int bk_put_event_header(Buf *b, const Fmt *f, const unsigned char *ev, uint32_t size);
int bk_put_at(Buf *b, long long pos);

/* csrc/image.c: column programs (rowcompile.c_program) */
/* Column ops: binlog/coltypes.py OP_* (tests/test_speedups_enums.py asserts them equal). */
enum {
    OP_INT = 1, OP_FLOAT, OP_DOUBLE, OP_DECIMAL, OP_YEAR, OP_DATE, OP_TIME, OP_DATETIME,
    OP_TIMESTAMP, OP_TIME2, OP_DATETIME2, OP_TIMESTAMP2, OP_STRING, OP_ENUM, OP_SET, OP_BIT, OP_JSON,
    OP_LAST = OP_JSON
};
#define OP_SIZE 10

typedef struct {
    int op, flag, index, size, a, b;
} Op;

/* One image layout, taken out of its program tuple. */
typedef struct {
    Py_ssize_t null_bytes, ncols, nops;
    const unsigned char *ops;
    PyObject *texts;            /* tuple of 3 * nops bytes, or NULL */
    Py_ssize_t partial_json;    /* a PARTIAL_UPDATE_ROWS after image: the table's JSON
                                   columns (bits of its partial-update bitmap); else -1 */
} Image;

/* One non-NULL value as read from the image. */
typedef struct {
    long long i;                /* INT: signed reading; TIME/TIME2: unused */
    unsigned long long u;       /* INT unsigned reading, ENUM, SET, BIT, YEAR, TIMESTAMP(2) seconds */
    unsigned long long bits;    /* SET, BIT: the stored bytes read big-endian */
    double f;                   /* FLOAT, DOUBLE */
    unsigned long long part[7]; /* year, month, day, hour, minute, second, microsecond */
    int neg;                    /* TIME, TIME2 */
    const unsigned char *s;     /* STRING */
    Py_ssize_t n;
    int tlen;                   /* DECIMAL: decimal2string() text */
    char text[80];
} Value;

static inline unsigned long long
get_le(const unsigned char *p, int n)
{
    unsigned long long v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline unsigned long long
get_be(const unsigned char *p, int n)
{
    unsigned long long v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

static inline void
op_at(const unsigned char *r, Op *op)
{
    op->op = r[0];
    op->flag = r[1];
    op->index = r[2] | (r[3] << 8);
    op->size = r[4] | (r[5] << 8);
    op->a = r[6] | (r[7] << 8);
    op->b = r[8] | (r[9] << 8);
}

int bk_image_parse(PyObject *program, Image *im, int with_texts);
int bk_decimal_text(const unsigned char *x, int size, int precision, int scale, Value *v);
Py_ssize_t bk_read_value(const Op *op, const unsigned char *d, Py_ssize_t p, Py_ssize_t end,
                         Value *v);
PyObject *bk_rows_values(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* csrc/text.c */
int bk_rows_text(Buf *out, PyObject *plan, const unsigned char *data, Py_ssize_t end,
                 Py_ssize_t *rows);
PyObject *bk_rows_text_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* csrc/json.c: MySQL JSON columns' -v text (1 printed, 0 not handled, -1 error) */
int bk_json_column(Buf *out, const unsigned char *doc, Py_ssize_t n);
int bk_json_diff(Buf *out, const unsigned char *diff, Py_ssize_t n, long column);
PyObject *bk_json_text_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

/* csrc/slowlog.c */
PyObject *bk_slowlog_numbers(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *bk_slowlog_stats(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
PyObject *bk_slowlog_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* csrc/rows.c: net_field_length(); 0 when NULL (251) or past end */
int bk_packed_length(const unsigned char *ev, Py_ssize_t *pos, Py_ssize_t end,
                     unsigned long long *value);
/* csrc/mysql.c */
void bk_crc32_init(void);
uint32_t bk_crc32(uint32_t crc, const unsigned char *p, Py_ssize_t n);
PyObject *bk_payload_frames(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
int bk_mysql_gtid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                  Trx *t);
int bk_mysql_query(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                   long long pos, Trx *t);
Py_ssize_t bk_walk_image(const unsigned char *steps, Py_ssize_t nsteps,
                         const unsigned char *data, Py_ssize_t pos, Py_ssize_t end);
int bk_flashback_statement(const Fmt *f, Buf *out, const Spans *maps, const Spans *events,
                           Trx *t);
int bk_flashback_unit(const Fmt *f, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                      Trx *t);
Py_ssize_t bk_query_usec_at(const unsigned char *ev, Py_ssize_t p, Py_ssize_t end, int mariadb);
int bk_mariadb_intvar(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                      Py_ssize_t end, Trx *t);
int bk_mariadb_rand(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                    Py_ssize_t end, Trx *t);
int bk_mariadb_user_var(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                        Py_ssize_t end, Trx *t);
int bk_mariadb_gtid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                    Py_ssize_t end, Trx *t);
int bk_mariadb_xid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                   Py_ssize_t end, Trx *t);
int bk_mariadb_query(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                     Py_ssize_t end, long long pos, Trx *t);
/* csrc/uservar.c */
int bk_mysql_context_query(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t *size,
                           Py_ssize_t avail, long long pos, Trx *t, Py_ssize_t *count);
int bk_mysql_xid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                 Trx *t);
int bk_mysql_payload(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                     Py_ssize_t end, Trx *t, Py_ssize_t *events);

#endif
