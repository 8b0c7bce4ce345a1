/*
 * binlogkit._speedups, part 11: the events a statement-format log puts before a
 * statement (Intvar, Rand, User_var), for both flavors.  The Python printers are the
 * reference: printer/mariadb/events.py print_rand / print_user_var, and
 * printer/mysql/events.py with driver.py handle_buffered / handle_query (mysqlbinlog
 * keeps these events until their Query and prints them just before it).
 * Each returns 1 printed, 0 leave it to Python, -1 error.
 */
#include <math.h>

#include "speedups.h"

#define QUERY_EVENT 2
#define INTVAR_EVENT 5
#define RAND_EVENT 13
#define USER_VAR_EVENT 14
#define STRING_RESULT 0                     /* Item_result */
#define REAL_RESULT 1
#define INT_RESULT 2
#define USER_VAR_UNSIGNED_F 1
#define CONTEXT_EVENTS_MAX 64               /* a longer run before a Query is Python's */


/* "SET @@RAND_SEED1=..., @@RAND_SEED2=...;" of the Rand event's body at p */
static int
put_rand(Buf *out, const Fmt *f, const unsigned char *ev, Py_ssize_t p)
{
    return BUF_LIT(out, "\tRand\nSET @@RAND_SEED1=") < 0
           || put_signed(out, (long long)get_le(ev + p, 8)) < 0 || BUF_LIT(out, ", @@RAND_SEED2=") < 0
           || put_signed(out, (long long)get_le(ev + p + 8, 8)) < 0 || put_delim_line(out, f) < 0
           ? -1 : 0;
}

/* Rand_log_event::print (MariaDB) */
int
bk_mariadb_rand(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                Trx *t)
{
    Py_ssize_t p = f->header_len + bk_post_header(f, RAND_EVENT, 0);
    if (p + 16 > end || !skip_replication_steady(ev, t))
        return 0;
    return bk_put_event_header(out, f, ev, size) < 0 || put_rand(out, f, ev, p) < 0 ? -1 : 1;
}

/* A User_var event as decode_user_var reads it */
typedef struct {
    const unsigned char *name, *value;
    uint32_t name_len, value_len, charset;
    int is_null, type, flags;
    double real;
    PyObject *pair;             /* a string's (before, after) of CTX_USER_VAR: a new reference */
} UserVar;

/* The event read into u: 1, or 0 where Python prints it (a value type or charset
 * C does not print, a damaged event: Python says what is wrong), -1 error */
static int
user_var_parse(const Fmt *f, const unsigned char *ev, Py_ssize_t end, int mysql, UserVar *u)
{
    PyObject *uv = f->ctx[CTX_USER_VAR];
    Py_ssize_t p = f->header_len + bk_post_header(f, USER_VAR_EVENT, 0);
    memset(u, 0, sizeof(*u));
    if (uv == Py_None || p + 4 > end)
        return 0;
    u->name_len = get_u32(ev + p);
    u->name = ev + p + 4;
    if ((uint64_t)u->name_len + 1 > (uint64_t)(end - p - 4) || (mysql && u->name_len == 0))
        return 0;                           /* the null byte must follow; MySQL: a name */
    p += 4 + u->name_len;
    u->is_null = ev[p] != 0;
    if (u->is_null)
        return 1;
    if (p + 10 > end)
        return 0;
    u->type = ev[p + 1];
    u->charset = get_u32(ev + p + 2);
    u->value_len = get_u32(ev + p + 6);
    if (u->value_len > (uint64_t)(end - p - 10))
        return 0;
    u->value = ev + p + 10;
    u->flags = p + 10 + (Py_ssize_t)u->value_len < end ? ev[p + 10 + u->value_len] : 0;
    if (u->type == REAL_RESULT) {           /* the first 8 bytes, zero-padded */
        unsigned char v8[8] = {0};
        memcpy(v8, u->value, u->value_len < 8 ? u->value_len : 8);
        memcpy(&u->real, v8, 8);
        return isfinite(u->real) ? 1 : 0;   /* inf, nan: Python's words */
    }
    if (u->type == INT_RESULT)
        return 1;
    if (u->type != STRING_RESULT)           /* DECIMAL_RESULT, ROW_RESULT, unknown */
        return 0;
    PyObject *key = PyLong_FromUnsignedLong(u->charset);
    if (key == NULL)
        return -1;
    PyObject *pair = PyDict_GetItemWithError(PyTuple_GET_ITEM(uv, 0), key);     /* borrowed */
    Py_XINCREF(pair);
    if (pair == NULL && !PyErr_Occurred())
        pair = PyObject_CallOneArg(PyTuple_GET_ITEM(uv, 1), key);
    Py_DECREF(key);
    if (pair == NULL)
        return -1;
    if (pair == Py_None) {                  /* an unknown charset: ":=???" */
        Py_DECREF(pair);
        return 0;
    }
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2
        || !PyBytes_Check(PyTuple_GET_ITEM(pair, 0)) || !PyBytes_Check(PyTuple_GET_ITEM(pair, 1))) {
        Py_DECREF(pair);
        PyErr_SetString(PyExc_TypeError, "user variable charset entry must be 2 bytes");
        return -1;
    }
    u->pair = pair;
    return 1;
}

/* "SET @`name`:=value;\n" (text.user_var_value: a string as X'..' (MariaDB) or 0x..
 * (MySQL) between its charset and collation) */
static int
user_var_put(Buf *out, const Fmt *f, const UserVar *u, int mysql)
{
    if (BUF_LIT(out, "SET @`") < 0)
        return -1;
    for (uint32_t i = 0; i < u->name_len; i++)     /* backtick(): ` doubled */
        if ((u->name[i] == '`' && BUF_LIT(out, "`") < 0) || buf_put(out, (const char *)u->name + i, 1) < 0)
            return -1;
    if (BUF_LIT(out, "`:=") < 0)
        return -1;
    if (u->is_null) {
        if (BUF_LIT(out, "NULL") < 0)
            return -1;
    } else if (u->type == REAL_RESULT) {
        char text[64];
        int n = snprintf(text, sizeof(text), "%.14g", u->real);
        if (n <= 0 || n >= (int)sizeof(text) || buf_put(out, text, n) < 0)
            return -1;
    } else if (u->type == INT_RESULT) {
        unsigned char v8[8] = {0};
        memcpy(v8, u->value, u->value_len < 8 ? u->value_len : 8);
        unsigned long long v = get_le(v8, 8);
        if (u->flags & USER_VAR_UNSIGNED_F ? put_number(out, v) < 0 : put_signed(out, (long long)v) < 0)
            return -1;
    } else {
        static const char hex[] = "0123456789ABCDEF";
        PyObject *pre = PyTuple_GET_ITEM(u->pair, 0), *post = PyTuple_GET_ITEM(u->pair, 1);
        if (buf_put(out, PyBytes_AS_STRING(pre), PyBytes_GET_SIZE(pre)) < 0
            || (!u->value_len ? BUF_LIT(out, "\"\"") : mysql ? BUF_LIT(out, "0x") : BUF_LIT(out, "X'")) < 0
            || bk_buf_reserve(out, 2 * (Py_ssize_t)u->value_len) < 0)
            return -1;
        for (uint32_t i = 0; i < u->value_len; i++) {
            out->p[out->len++] = hex[u->value[i] >> 4];
            out->p[out->len++] = hex[u->value[i] & 15];
        }
        if ((u->value_len && !mysql && BUF_LIT(out, "'") < 0)
            || buf_put(out, PyBytes_AS_STRING(post), PyBytes_GET_SIZE(post)) < 0)
            return -1;
    }
    return put_delim_line(out, f);
}

/* User_var_log_event::print (MariaDB) */
int
bk_mariadb_user_var(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size,
                    Py_ssize_t end, Trx *t)
{
    if (!skip_replication_steady(ev, t))
        return 0;
    UserVar u;
    int rc = user_var_parse(f, ev, end, 0, &u);
    if (rc == 1)
        rc = bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tUser_var\n") < 0
             || user_var_put(out, f, &u, 0) < 0 ? -1 : 1;
    Py_XDECREF(u.pair);
    return rc;
}

/* MySQL's text of one of the events kept for the Query (print_intvar, print_rand,
 * print_user_var; 9.x: the name read as utf8mb3, the charsets switched and back) */
static int
mysql_context_event(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end)
{
    int type = ev[4];
    Py_ssize_t p = f->header_len + bk_post_header(f, type, 0);
    if (type == INTVAR_EVENT) {
        if (p + 9 > end)
            return 0;
        int kind = ev[p];
        return bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tIntvar\nSET ") < 0
               || (kind == 1 ? BUF_LIT(out, "LAST_INSERT_ID=") : kind == 2 ? BUF_LIT(out, "INSERT_ID=")
                                                                   : BUF_LIT(out, "INVALID_INT=")) < 0
               || put_signed(out, (long long)get_le(ev + p + 1, 8)) < 0 || put_delim_line(out, f) < 0
               ? -1 : 1;
    }
    if (type == RAND_EVENT) {
        if (p + 16 > end)
            return 0;
        return bk_put_event_header(out, f, ev, size) < 0 || put_rand(out, f, ev, p) < 0 ? -1 : 1;
    }
    UserVar u;
    int rc = user_var_parse(f, ev, end, 1, &u);
    if (rc != 1)
        return rc;
    PyObject *back = PyTuple_GET_ITEM(f->ctx[CTX_USER_VAR], 2);    /* 9.x: bytes */
    rc = -1;
    if (bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tUser_var\n") < 0)
        goto done;
    if (back != Py_None) {
        unsigned long connection = u.is_null || u.type == STRING_RESULT ? 33 : u.charset;
        if (BUF_LIT(out, "/*!\\C utf8mb3 */") < 0 || put_delim_line(out, f) < 0
            || BUF_LIT(out, "SET @@session.character_set_client=33,@@session.collation_connection=") < 0
            || put_number(out, connection) < 0 || BUF_LIT(out, ",@@session.collation_server=33") < 0
            || put_delim_line(out, f) < 0)
            goto done;
    }
    if (user_var_put(out, f, &u, 1) < 0
        || (back != Py_None && buf_put(out, PyBytes_AS_STRING(back), PyBytes_GET_SIZE(back)) < 0))
        goto done;
    rc = 1;
done:
    Py_XDECREF(u.pair);
    return rc;
}

/* MySQL: the Intvar, Rand and User_var events at ev and the Query after them
 * (handle_buffered keeps them until the Query prints them first): "# at" of the
 * others and of the Query (the caller printed the first one), their texts, the
 * Query's.  *size: all their bytes, *count: how many.  0 leaves them all to Python. */
int
bk_mysql_context_query(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t *size,
                       Py_ssize_t avail, long long pos, Trx *t, Py_ssize_t *count)
{
    Py_ssize_t crc = f->has_crc ? BINLOG_CHECKSUM_LEN : 0, off = 0, n = 0;
    Py_ssize_t starts[CONTEXT_EVENTS_MAX + 1];
    const unsigned char *q;
    uint32_t qsize;
    for (;;) {                              /* the events up to the Query */
        if (avail - off < LOG_EVENT_HEADER_LEN || n > CONTEXT_EVENTS_MAX)
            return 0;
        const unsigned char *e = ev + off;
        uint32_t esize = get_u32(e + 9);
        long long epos = f->fixed_pos ? pos : pos + off;
        if (esize > avail - off || esize < LOG_EVENT_HEADER_LEN + crc || f->header_len > esize - crc
            || e[4] > f->n_post_header_len
            || (off && ((!f->fixed_pos && (unsigned long long)epos >= f->stop_position)
                        || (long long)get_u32(e) >= f->stop_datetime)))
            return 0;
        starts[n] = off;
        if (e[4] == QUERY_EVENT) {
            q = e;
            qsize = esize;
            break;
        }
        if (e[4] != INTVAR_EVENT && e[4] != RAND_EVENT && e[4] != USER_VAR_EVENT)
            return 0;
        n++;
        off += esize;
    }
    for (Py_ssize_t i = 1; i <= n; i++)
        if (bk_put_at(out, f->fixed_pos ? pos : pos + starts[i]) < 0)
            return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        const unsigned char *e = ev + starts[i];
        uint32_t esize = get_u32(e + 9);
        int rc = mysql_context_event(f, out, e, esize, esize - crc);
        if (rc <= 0)
            return rc;
    }
    int rc = bk_mysql_query(f, out, q, qsize, qsize - crc, f->fixed_pos ? pos : pos + off, t);
    if (rc > 0) {
        *size = (uint32_t)(off + qsize);
        *count = n + 1;
    }
    return rc;
}
