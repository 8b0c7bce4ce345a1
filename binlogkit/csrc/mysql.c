/*
 * binlogkit._speedups, part 5: what only the MySQL flavor needs.
 *
 *   payload_frames(payload, has_crc) -> bytes, or None
 *       the events of an uncompressed Transaction_payload as mysqlbinlog
 *       re-frames them before printing (printer/mysql/gtid.py inner_event,
 *       the reference): with CRC32, the length field grown by 4 and a fresh
 *       CRC32 appended; else the payload as it is.  None when the events do
 *       not tile the payload (mysql_events.split_payload_events refuses it).
 *       print_row_statements prints these (its fixed-position mode).
 */
#include "speedups.h"

/* CRC-32 (ISO-HDLC, zlib's crc32), slicing by 8 */
static uint32_t crc_table[8][256];

void
bk_crc32_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
}

uint32_t
bk_crc32(uint32_t crc, const unsigned char *p, Py_ssize_t n)
{
    crc = ~crc;
    while (n >= 8) {
        uint32_t a = crc ^ get_u32(p), b = get_u32(p + 4);
        crc = crc_table[7][a & 0xFF] ^ crc_table[6][(a >> 8) & 0xFF]
              ^ crc_table[5][(a >> 16) & 0xFF] ^ crc_table[4][a >> 24]
              ^ crc_table[3][b & 0xFF] ^ crc_table[2][(b >> 8) & 0xFF]
              ^ crc_table[1][(b >> 16) & 0xFF] ^ crc_table[0][b >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static inline void
put_u32(unsigned char *p, uint32_t v)
{
    p[0] = v & 0xFF;
    p[1] = (v >> 8) & 0xFF;
    p[2] = (v >> 16) & 0xFF;
    p[3] = v >> 24;
}

/* payload_frames() of n bytes: bytes, or None (a new reference), NULL on error */
static PyObject *
frame_payload(const unsigned char *in, Py_ssize_t n, int has_crc)
{
    Py_ssize_t count = 0, at = 0;
    while (at < n) {                    /* split_payload_events' checks */
        if (n - at < LOG_EVENT_HEADER_LEN)
            break;
        uint32_t size = get_u32(in + at + 9);
        if (size < LOG_EVENT_HEADER_LEN || size > n - at)
            break;
        at += size;
        count++;
    }
    if (at != n)
        Py_RETURN_NONE;
    if (!has_crc)
        return PyBytes_FromStringAndSize((const char *)in, n);
    PyObject *result = PyBytes_FromStringAndSize(NULL, n + BINLOG_CHECKSUM_LEN * count);
    if (result == NULL)
        return NULL;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(result);
    for (at = 0; at < n;) {
        uint32_t size = get_u32(in + at + 9);
        memcpy(o, in + at, size);
        put_u32(o + 9, size + BINLOG_CHECKSUM_LEN);
        put_u32(o + size, bk_crc32(0, o, size));
        o += size + BINLOG_CHECKSUM_LEN;
        at += size;
    }
    return result;
}

PyObject *
bk_payload_frames(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "payload_frames(payload, has_crc)");
        return NULL;
    }
    int has_crc = PyObject_IsTrue(args[1]);
    if (has_crc < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *result = frame_payload(view.buf, view.len, has_crc);
    PyBuffer_Release(&view);
    return result;
}

/* ---- GTID, BEGIN / COMMIT and Xid events of mysqlbinlog 8.0 ------------------------------
 *
 * With CTX_TRX_STATE, print_row_statements prints these events too, between
 * row statements: what printer/mysql/gtid.py print_gtid, events.py
 * print_query and print_xid print and driver.py handle_gtid / handle_query /
 * handle_xid do to the transaction state (Trx).  Each returns 1 printed, 0
 * leave it (and what follows) to Python, -1 error.
 */
#define QUERY_EVENT 2
#define XID_EVENT 16
#define LOG_EVENT_THREAD_SPECIFIC_F 0x4
#define LOG_EVENT_SUPPRESS_USE_F 0x8
#define ANONYMOUS_GTID_LOG_EVENT 34
#define UNDEFINED_SERVER_VERSION 999999ULL

static const char *
delim(const Fmt *f, Py_ssize_t *n)
{
    PyObject *d = f->ctx[CTX_DELIMITER];
    *n = PyBytes_GET_SIZE(d);
    return PyBytes_AS_STRING(d);
}

/* b + text + delimiter + "\n" */
static int
put_statement_end(Buf *b, const Fmt *f)
{
    Py_ssize_t n;
    const char *d = delim(f, &n);
    return buf_put(b, d, n) < 0 || BUF_LIT(b, "\n") < 0 ? -1 : 0;
}

static int
put_num(Buf *b, unsigned long long v)
{
    if (bk_buf_reserve(b, 24) < 0)
        return -1;
    b->len = put_u64(b->p + b->len, v) - b->p;
    return 0;
}

/* A (bytes, ...) tuple of `n` items from `dict`[key], or from miss(key_arg) on a
 * miss (which fills the dict); NULL with no error set: None (leave it). */
static PyObject *
cached(PyObject *dict, PyObject *key, PyObject *miss, PyObject *miss_arg, PyObject *miss_arg2,
       PyObject *miss_arg3, int n)
{
    PyObject *entry = PyDict_GetItemWithError(dict, key);      /* borrowed */
    Py_XINCREF(entry);
    if (entry == NULL && !PyErr_Occurred())
        entry = PyObject_CallFunctionObjArgs(miss, miss_arg, miss_arg2, miss_arg3, NULL);
    if (entry == NULL)
        return NULL;
    if (entry == Py_None) {
        Py_DECREF(entry);
        return NULL;
    }
    int ok = PyTuple_Check(entry) && PyTuple_GET_SIZE(entry) == n;
    for (int i = 0; ok && i < n; i++)
        ok = PyBytes_Check(PyTuple_GET_ITEM(entry, i));
    if (!ok) {
        Py_DECREF(entry);
        PyErr_SetString(PyExc_TypeError, "cached text must be a tuple of bytes");
        return NULL;
    }
    return entry;
}

#define PUT_ITEM(b, t, i) buf_put(b, PyBytes_AS_STRING(PyTuple_GET_ITEM(t, i)), \
                                  PyBytes_GET_SIZE(PyTuple_GET_ITEM(t, i)))

/* gtid.py commit_time_text(): the zone's text of the second, with ".%06d" in it */
static int
put_commit_time(Buf *b, const Fmt *f, unsigned long long micros)
{
    PyObject *secs = PyLong_FromUnsignedLongLong(micros / 1000000);
    if (secs == NULL)
        return -1;
    PyObject *parts = cached(f->ctx[CTX_COMMIT_TIMES], secs, f->ctx[CTX_COMMIT_TIME], secs, NULL, NULL, 2);
    Py_DECREF(secs);
    if (parts == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "commit time text missing");
        return -1;
    }
    int rc = -1;
    if (PUT_ITEM(b, parts, 0) == 0 && bk_buf_reserve(b, 8) == 0) {
        char *o = b->p + b->len;
        *o++ = '.';
        b->len = put_pad(o, micros % 1000000, 6) - b->p;
        rc = PUT_ITEM(b, parts, 1);
    }
    Py_DECREF(parts);
    return rc;
}

/* Gtid_log_event / Anonymous_gtid_log_event (mysql_events.decode_mysql_gtid): only
 * events with every field up to the server versions; and one whose
 * immediate_server_version changes whether Table_map lines carry the GIPK line
 * than the context's (CTX_GIPK) is left to Python. */
int
bk_mysql_gtid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
              Trx *t)
{
    static const char hex[] = "0123456789abcdef";
    Py_ssize_t p = f->header_len;
    int anonymous = ev[4] == ANONYMOUS_GTID_LOG_EVENT;
    if (p + 25 + 17 + 7 > end)
        return 0;
    int flags = ev[p];
    const unsigned char *sid = ev + p + 1;
    unsigned long long gno = get_le(ev + p + 17, 8);
    if (anonymous ? gno != 0 : (gno < 1 || gno >= 0x7FFFFFFFFFFFFFFFULL))
        return 0;
    p += 25;
    if (ev[p] != 2)                         /* LOGICAL_TIMESTAMP_TYPECODE */
        return 0;
    unsigned long long last_committed = get_le(ev + p + 1, 8), sequence = get_le(ev + p + 9, 8);
    p += 17;
    unsigned long long ict = get_le(ev + p, 7), oct, length, isv, osv;
    p += 7;
    if (ict >> 55 & 1) {
        ict &= ~(1ULL << 55);
        if (p + 7 > end)
            return 0;
        oct = get_le(ev + p, 7);
        p += 7;
    } else {
        oct = ict;
    }
    if (!bk_packed_length(ev, &p, end, &length) || p + 4 > end)
        return 0;
    isv = get_le(ev + p, 4);
    p += 4;
    if (isv >> 31 & 1) {
        isv &= ~(1ULL << 31);
        if (p + 4 > end)
            return 0;
        osv = get_le(ev + p, 4);
    } else {
        osv = isv;
    }
    int gipk = isv != UNDEFINED_SERVER_VERSION && isv >= 80030;
    if (gipk != PyObject_IsTrue(f->ctx[CTX_GIPK]))
        return 0;

    if (bk_put_event_header(out, f, ev, size) < 0
        || (anonymous ? BUF_LIT(out, "\tAnonymous_GTID") : BUF_LIT(out, "\tGTID")) < 0
        || BUF_LIT(out, "\tlast_committed=") < 0 || put_num(out, last_committed) < 0
        || BUF_LIT(out, "\tsequence_number=") < 0 || put_num(out, sequence) < 0
        || (flags & 1 ? BUF_LIT(out, "\trbr_only=no") : BUF_LIT(out, "\trbr_only=yes")) < 0
        || BUF_LIT(out, "\toriginal_committed_timestamp=") < 0 || put_num(out, oct) < 0
        || BUF_LIT(out, "\timmediate_commit_timestamp=") < 0 || put_num(out, ict) < 0
        || BUF_LIT(out, "\ttransaction_length=") < 0 || put_num(out, length) < 0
        || BUF_LIT(out, "\n") < 0
        || (!(flags & 1) && (BUF_LIT(out, "/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*/") < 0
                             || put_statement_end(out, f) < 0))
        || BUF_LIT(out, "# original_commit_timestamp=") < 0 || put_num(out, oct) < 0
        || BUF_LIT(out, " (") < 0 || put_commit_time(out, f, oct) < 0 || BUF_LIT(out, ")\n") < 0
        || BUF_LIT(out, "# immediate_commit_timestamp=") < 0 || put_num(out, ict) < 0
        || BUF_LIT(out, " (") < 0 || put_commit_time(out, f, ict) < 0 || BUF_LIT(out, ")\n") < 0
        || BUF_LIT(out, "/*!80001 SET @@session.original_commit_timestamp=") < 0
        || put_num(out, oct) < 0 || BUF_LIT(out, "*/") < 0 || put_statement_end(out, f) < 0
        || BUF_LIT(out, "/*!80014 SET @@session.original_server_version=") < 0
        || put_num(out, osv) < 0 || BUF_LIT(out, "*/") < 0 || put_statement_end(out, f) < 0
        || BUF_LIT(out, "/*!80014 SET @@session.immediate_server_version=") < 0
        || put_num(out, isv) < 0 || BUF_LIT(out, "*/") < 0 || put_statement_end(out, f) < 0
        || BUF_LIT(out, "SET @@SESSION.GTID_NEXT= '") < 0)
        return -1;
    if (anonymous) {
        if (BUF_LIT(out, "ANONYMOUS") < 0)
            return -1;
    } else {
        if (bk_buf_reserve(out, 40) < 0)
            return -1;
        char *o = out->p + out->len;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                *o++ = '-';
            *o++ = hex[sid[i] >> 4];
            *o++ = hex[sid[i] & 15];
        }
        *o++ = ':';
        out->len = o - out->p;
        if (put_num(out, gno) < 0)
            return -1;
    }
    if (BUF_LIT(out, "'") < 0 || put_statement_end(out, f) < 0)
        return -1;
    t->seen_gtid = 1;
    t->immediate_server_version = (long long)isv;
    return 1;
}

/* events.py is_trans_keyword of mysqlbinlog: BEGIN / COMMIT prefixes, SAVEPOINT,
 * ROLLBACK, XA START / END / PREPARE / COMMIT / ROLLBACK (first 11 bytes upper-cased) */
static int
mysql_trans_keyword(const unsigned char *q, Py_ssize_t n)
{
    if (n > 0 && ((n <= 5 && memcmp(q, "BEGIN", n) == 0) || (n <= 6 && memcmp(q, "COMMIT", n) == 0)))
        return 1;
    static const char *words[] = {"SAVEPOINT", "ROLLBACK", "XA START", "XA END", "XA PREPARE",
                                  "XA COMMIT", "XA ROLLBACK"};
    for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
        Py_ssize_t len = (Py_ssize_t)strlen(words[w]), i;
        for (i = 0; i < len && i < n; i++) {
            int c = q[i] >= 'a' && q[i] <= 'z' ? q[i] - 32 : q[i];
            if (c != words[w][i])
                break;
        }
        if (i == len)
            return 1;
    }
    return 0;
}

/* Where the microseconds of the status variables ev[p:end] are (MySQL's
 * Q_MICROSECONDS, or with `mariadb` MariaDB's Q_HRNOW): their index, 0 when there are
 * none, -1 when the block is not one the decoder walks plainly (a length past the
 * block; for MariaDB a MySQL-only code or Q_CHARACTER_SET_COLLATIONS): Python's then.
 * An unknown code ends the walk, as it ends the decoder's.  Also csrc/mariadb.c's. */
Py_ssize_t
bk_query_usec_at(const unsigned char *ev, Py_ssize_t p, Py_ssize_t end, int mariadb)
{
    /* fixed lengths by code; -1 variable (below), -2 unknown */
    static const signed char fixed[] = {4, 8, -1, 4, 6, -1, -1, 2, 2, 8, 4, -1, -1, 3, -2, -2,
                                        1, 8, 2, 1, 1};
    Py_ssize_t found = 0;
    while (p < end) {
        int code = ev[p++];
        int n = code < (int)sizeof(fixed) ? fixed[code] : -2;
        if (mariadb) {
            if (code >= 12 && code <= 20)   /* MYSQL_ONLY_STATUS_CODES */
                return -1;
            if (code == 128) {              /* Q_HRNOW */
                found = p;
                n = 3;
            } else if (code == 129) {       /* Q_XID */
                n = 8;
            } else if (code == 130) {       /* Q_GTID_FLAGS3 (+ sa_seq_no) */
                if (p >= end)
                    return -1;
                n = 1 + (ev[p] & (4 | 8) ? 8 : 0);
            }
        }
        if (n == -2)                        /* an unknown code: the decoder stops there too */
            return found;
        if (code == 13)
            found = p;
        if (n >= 0) {
            p += n;
        } else if (code == 2) {             /* Q_CATALOG: length, text, NUL */
            if (p >= end)
                return -1;
            p += 1 + ev[p] + 1;
        } else if (code == 11) {            /* Q_INVOKER: user, host */
            for (int i = 0; i < 2; i++) {
                if (p >= end)
                    return -1;
                p += 1 + ev[p];
            }
        } else if (code == 12) {            /* Q_UPDATED_DB_NAMES: count, NUL-ended names */
            if (p >= end)
                return -1;
            int count = ev[p++];
            if (count > 16)                 /* OVER_MAX_DBS_IN_EVENT_MTS (254) and the odd */
                return -1;
            for (int i = 0; i < count; i++) {
                const unsigned char *nul = p < end ? memchr(ev + p, 0, end - p) : NULL;
                if (nul == NULL)
                    return -1;
                p = nul - ev + 1;
            }
        } else {                            /* Q_TIME_ZONE, Q_CATALOG_NZ: length, text */
            if (p >= end)
                return -1;
            p += 1 + ev[p];
        }
    }
    return p == end ? found : -1;
}

/* A Query event whose query is BEGIN or COMMIT and whose printing leaves the
 * session state as it is (fast.py query_miss decides, per state): the header,
 * thread id, exec time and timestamp (with its microseconds) here, the rest from
 * CTX_QUERIES, whose key has the microseconds zeroed. */
int
bk_mysql_query(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
               long long pos, Trx *t)
{
    Py_ssize_t p = f->header_len, post = bk_post_header(f, QUERY_EVENT, 13);
    if (post < 13 || p + post > end)
        return 0;
    Py_ssize_t q = p + post + (ev[p + 11] | (ev[p + 12] << 8)) + ev[p + 8] + 1;
    if (q > end)
        return 0;
    int begin = end - q == 5 && memcmp(ev + q, "BEGIN", 5) == 0;
    int commit = end - q == 6 && memcmp(ev + q, "COMMIT", 6) == 0;
    /* a statement (no transaction keyword): its text is not in the key, C appends it */
    int plain = !begin && !commit && !mysql_trans_keyword(ev + q, end - q);
    if (!begin && !commit && !plain)
        return 0;
    Py_ssize_t kend = plain ? q : end;
    uint32_t thread_id = get_u32(ev + p), exec_time = get_u32(ev + p + 4);
    int eflags = ev[17] & (LOG_EVENT_THREAD_SPECIFIC_F | LOG_EVENT_SUPPRESS_USE_F);
    if ((eflags & LOG_EVENT_THREAD_SPECIFIC_F) && (long long)thread_id != t->thread_id)
        return 0;
    Py_ssize_t status = p + post, status_end = status + (ev[p + 11] | (ev[p + 12] << 8));
    Py_ssize_t usec_at = bk_query_usec_at(ev, status, status_end, 0);
    if (usec_at < 0 || usec_at + 3 > status_end)
        return 0;
    unsigned long usec = usec_at ? (unsigned long)get_le(ev + usec_at, 3) : 0;
    /* the key: the flags that matter, then all but thread id, exec time and microseconds */
    PyObject *key = PyBytes_FromStringAndSize(NULL, 1 + kend - p - 8);
    if (key == NULL)
        return -1;
    PyBytes_AS_STRING(key)[0] = (char)(eflags | (plain << 7));
    memcpy(PyBytes_AS_STRING(key) + 1, ev + p + 8, kend - p - 8);
    if (usec_at)
        memset(PyBytes_AS_STRING(key) + 1 + usec_at - p - 8, 0, 3);
    PyObject *entry = PyDict_GetItemWithError(f->ctx[CTX_QUERIES], key);     /* borrowed */
    PyObject *data = NULL, *at = NULL;
    if (entry == NULL && !PyErr_Occurred()) {      /* a miss: fast.py fills the dict */
        data = PyBytes_FromStringAndSize((const char *)ev, size);
        at = data ? PyLong_FromLongLong(pos) : NULL;
    }
    entry = at || entry ? cached(f->ctx[CTX_QUERIES], key, f->ctx[CTX_QUERY_MISS], data, at, key, 3)
                        : NULL;
    Py_XDECREF(at);
    Py_XDECREF(data);
    Py_DECREF(key);
    if (entry == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int rc = -1;
    if (bk_put_event_header(out, f, ev, size) == 0 && BUF_LIT(out, "\tQuery\tthread_id=") == 0
        && put_num(out, thread_id) == 0 && BUF_LIT(out, "\texec_time=") == 0
        && put_num(out, exec_time) == 0 && PUT_ITEM(out, entry, 0) == 0
        && BUF_LIT(out, "SET TIMESTAMP=") == 0 && put_num(out, get_u32(ev)) == 0
        && (usec == 0 || (BUF_LIT(out, ".") == 0 && bk_buf_reserve(out, 12) == 0
                          && (out->len = put_pad(out->p + out->len, usec, 6) - out->p) > 0))
        && put_statement_end(out, f) == 0
        && PUT_ITEM(out, entry, 2) == 0
        && (!plain || (buf_put(out, (const char *)ev + q, end - q) == 0 && BUF_LIT(out, "\n") == 0
                       && put_statement_end(out, f) == 0)))
        rc = 1;
    Py_DECREF(entry);
    if (rc == 1 && commit)
        t->in_transaction = t->seen_gtid = 0;
    else if (rc == 1 && begin)
        t->in_transaction = 1;
    else if (rc == 1 && !t->in_transaction)     /* handle_query: a statement outside BEGIN */
        t->seen_gtid = 0;
    return rc;
}

/* Xid_log_event: "\tXid = N" and COMMIT */
int
bk_mysql_xid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end, Trx *t)
{
    Py_ssize_t p = f->header_len + bk_post_header(f, XID_EVENT, 0);
    if (p + 8 > end)
        return 0;
    if (bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tXid = ") < 0
        || put_num(out, get_le(ev + p, 8)) < 0 || BUF_LIT(out, "\nCOMMIT") < 0
        || put_statement_end(out, f) < 0)
        return -1;
    t->in_transaction = t->seen_gtid = 0;
    return 1;
}

/* Transaction_payload_log_event (mysql_events.decode_transaction_payload, then
 * gtid.py print_transaction_payload): the TLV header, the payload (a zstd one
 * uncompressed by CTX_DECOMPRESS), its events re-framed (frame_payload) and
 * printed by the statement loop at this event's end_log_pos -- all of them, or
 * the event is left to Python.  *events: this one and those inside. */
int
bk_mysql_payload(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                 Trx *t, Py_ssize_t *events)
{
    if (f->fixed_pos || f->ctx[CTX_DECOMPRESS] == Py_None)
        return 0;
    Py_ssize_t p = f->header_len;
    unsigned long long field, length, value, fields[4] = {0, 0, 0, 0};
    int seen[4] = {0, 0, 0, 0};
    for (;;) {
        if (!bk_packed_length(ev, &p, end, &field))
            return 0;
        if (field == 0)                     /* OTW_PAYLOAD_HEADER_END_MARK */
            break;
        if (!bk_packed_length(ev, &p, end, &length))
            return 0;
        if (field <= 3) {
            if (!bk_packed_length(ev, &p, end, &value))
                return 0;
            fields[field] = value;
            seen[field] = 1;
        } else if (length > (unsigned long long)(end - p)) {
            return 0;
        } else {
            p += (Py_ssize_t)length;
        }
    }
    unsigned long long psize = fields[1], ctype = fields[2];
    if (!seen[1] || !seen[2] || psize > (unsigned long long)(end - p) || (ctype != 0 && ctype != 255))
        return 0;
    PyObject *payload;
    if (ctype == 255) {
        payload = PyBytes_FromStringAndSize((const char *)ev + p, (Py_ssize_t)psize);
    } else {
        /* CTX_DECOMPRESS: (one call for a frame that gives its size, which may raise;
         * the careful one, which answers None where it cannot) */
        PyObject *dec = f->ctx[CTX_DECOMPRESS];
        if (!PyTuple_Check(dec) || PyTuple_GET_SIZE(dec) != 2) {
            PyErr_SetString(PyExc_TypeError, "decompress must be (one_shot, careful)");
            return -1;
        }
        PyObject *packed = PyBytes_FromStringAndSize((const char *)ev + p, (Py_ssize_t)psize);
        payload = packed ? PyObject_CallOneArg(PyTuple_GET_ITEM(dec, 0), packed) : NULL;
        if (payload == NULL && packed != NULL && PyErr_ExceptionMatches(PyExc_Exception)) {
            PyErr_Clear();
            payload = PyObject_CallOneArg(PyTuple_GET_ITEM(dec, 1), packed);
        }
        Py_XDECREF(packed);
    }
    if (payload == NULL)
        return -1;
    PyObject *frames = PyBytes_Check(payload)
        ? frame_payload((const unsigned char *)PyBytes_AS_STRING(payload),
                        PyBytes_GET_SIZE(payload), f->has_crc)
        : (Py_INCREF(Py_None), Py_None);
    Py_DECREF(payload);
    if (frames == NULL)
        return -1;
    if (frames == Py_None) {
        Py_DECREF(frames);
        return 0;
    }
    Py_ssize_t start = out->len;
    int rc = -1;
    if (bk_put_event_header(out, f, ev, size) < 0
        || BUF_LIT(out, "\tTransaction_Payload\t\tpayload_size=") < 0 || put_num(out, psize) < 0
        || (ctype == 0 ? BUF_LIT(out, "\tcompression_type=ZSTD\tuncompressed_size=")
                       : BUF_LIT(out, "\tcompression_type=NONE")) < 0
        || (ctype == 0 && put_num(out, fields[3]) < 0)
        || BUF_LIT(out, "\n# Start of compressed events.\n") < 0)
        goto done;
    Fmt inner = *f;
    inner.sink = NULL;          /* the payload's text may still be taken back (below) */
    inner.soft_end = PY_SSIZE_T_MAX;
    inner.fixed_pos = 1;
    inner.at = get_u32(ev + 13);
    Trx trx = *t;
    Mark m;
    Py_ssize_t n = PyBytes_GET_SIZE(frames);
    if (bk_statements(&inner, (const unsigned char *)PyBytes_AS_STRING(frames), n, 0, inner.at,
                      out, &trx, &m) < 0)
        goto done;
    if (m.pos != n) {                       /* not all of it: Python prints the event */
        out->len = start;
        rc = 0;
        goto done;
    }
    if (BUF_LIT(out, "# End of compressed events.\n") < 0)
        goto done;
    *t = m.trx;
    *events = 1 + m.events;
    rc = 1;
done:
    Py_DECREF(frames);
    return rc;
}
