/*
 * binlogkit._speedups, part 8: the MariaDB flavor's events between row statements.
 *
 * With CTX_TRX_STATE, print_row_statements (csrc/rows.c) prints for the MariaDB
 * flavor the GTID, Xid and Query events of an OLTP log too: what
 * printer/mariadb/driver.py process_event + events.py print_gtid / print_xid /
 * print_query print, in the state the Python printer left (Trx) -- only where that
 * text is the steady one: no session line printed anew, no filter, no XA, no
 * two-phase ALTER.  Anything else is left to Python (0), which prints it and
 * calls again.  Each returns 1 printed, 0 leave it, -1 error.
 */
#include "speedups.h"

#define QUERY_EVENT 2
#define INTVAR_EVENT 5
#define XID_EVENT 16
#define GTID_EVENT 162
#define LOG_EVENT_THREAD_SPECIFIC_F 0x4
#define LOG_EVENT_SUPPRESS_USE_F 0x8
#define FL_STANDALONE 1
#define FL_GROUP_COMMIT_ID 2
#define FL_TRANSACTIONAL 4
#define FL_ALLOW_PARALLEL 8
#define FL_WAITED 16
#define FL_DDL 32
#define FL_XA (64 | 128)                    /* FL_PREPARED_XA | FL_COMPLETED_XA */
#define FL_EXTRA_MULTI_ENGINE_E1 1
#define FL_EXTRA_ALTER (2 | 4 | 8)          /* START / COMMIT / ROLLBACK ALTER */


/* GtidFiltering.gtid() without filters (the context has none): the validator's
 * record() of an in-order GTID; 0 when Python must see it (a first GTID of its
 * domain, an out-of-order one, a validator about to be dropped). */
static int
record_gtid(const Fmt *f, unsigned long domain, unsigned long server, unsigned long long seq)
{
    PyObject *validator = PyObject_GetAttrString(f->ctx[CTX_GTID_AUDIT], "validator");
    if (validator == NULL)
        return -1;
    if (validator == Py_None) {
        Py_DECREF(validator);
        return 1;
    }
    int rc = 0;
    PyObject *domains = NULL, *key = NULL, *audit = NULL, *start = NULL, *last = NULL, *gtid = NULL;
    if (!PyObject_IsTrue(f->ctx[CTX_GTID_KEEPS]))   /* gtid() drops it at the first GTID */
        goto done;
    rc = -1;
    domains = PyObject_GetAttrString(validator, "domains");
    key = domains ? PyLong_FromUnsignedLong(domain) : NULL;
    if (key == NULL)
        goto done;
    if (!PyDict_Check(domains)) {
        PyErr_SetString(PyExc_TypeError, "validator domains must be a dict");
        goto done;
    }
    audit = PyDict_GetItemWithError(domains, key);     /* borrowed */
    if (audit == NULL) {
        rc = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    Py_INCREF(audit);
    start = PyObject_GetAttrString(audit, "start");
    last = start ? PyObject_GetAttrString(audit, "last") : NULL;
    if (last == NULL)
        goto done;
    if (!PyTuple_Check(start) || PyTuple_GET_SIZE(start) != 3 || !PyTuple_Check(last)
        || PyTuple_GET_SIZE(last) != 3) {
        PyErr_SetString(PyExc_TypeError, "GTIDs must be 3-tuples");
        goto done;
    }
    unsigned long long s = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(start, 2));
    unsigned long long l = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(last, 2));
    if (PyErr_Occurred())
        goto done;
    if (s <= seq && seq <= l) {         /* out of order: Python reports it */
        rc = 0;
        goto done;
    }
    gtid = Py_BuildValue("(kkK)", domain, server, seq);
    if (gtid == NULL || PyObject_SetAttrString(audit, "last", gtid) < 0)
        goto done;
    rc = 1;
done:
    Py_XDECREF(gtid);
    Py_XDECREF(last);
    Py_XDECREF(start);
    Py_XDECREF(audit);
    Py_XDECREF(key);
    Py_XDECREF(domains);
    Py_DECREF(validator);
    return rc;
}

/* Gtid_log_event::print of a GTID whose session lines (skip_parallel_replication,
 * gtid_domain_id, server_id) are those last printed: the header line, gtid_seq_no,
 * START TRANSACTION unless standalone. */
int
bk_mariadb_gtid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                Trx *t)
{
    Py_ssize_t p = f->header_len;
    if (p + 13 > end || !skip_replication_steady(ev, t))
        return 0;
    unsigned long long seq = get_le(ev + p, 8);
    unsigned long domain = (unsigned long)get_le(ev + p + 8, 4);
    unsigned long server = (unsigned long)get_u32(ev + 5);
    int f2 = ev[p + 12];
    if (seq == 0 || (f2 & FL_XA))          /* invalid, or XA: Python */
        return 0;
    Py_ssize_t q = p + 13;
    unsigned long long cid = 0;
    if (f2 & FL_GROUP_COMMIT_ID) {
        if (q + 8 > end)
            return 0;
        cid = get_le(ev + q, 8);
        q += 8;
    }
    if (q < end) {                          /* flags_extra */
        int fe = ev[q];
        if ((fe & FL_EXTRA_ALTER) || ((fe & FL_EXTRA_MULTI_ENGINE_E1) && q + 1 >= end))
            return 0;
    }
    int parallel = f2 & FL_ALLOW_PARALLEL ? 1 : 0;
    if (t->allow_parallel != parallel || t->domain_id != (long long)domain
        || t->server_id != (long long)server)
        return 0;
    int recorded = record_gtid(f, domain, server, seq);
    if (recorded <= 0)
        return recorded;
    if (bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tGTID ") < 0
        || put_number(out, domain) < 0 || BUF_LIT(out, "-") < 0 || put_number(out, server) < 0
        || BUF_LIT(out, "-") < 0 || put_number(out, seq) < 0
        || ((f2 & FL_GROUP_COMMIT_ID) && (BUF_LIT(out, " cid=") < 0 || put_number(out, cid) < 0))
        || ((f2 & FL_DDL) && BUF_LIT(out, " ddl") < 0)
        || ((f2 & FL_TRANSACTIONAL) && BUF_LIT(out, " trans") < 0)
        || ((f2 & FL_WAITED) && BUF_LIT(out, " waited") < 0)
        || BUF_LIT(out, "\n/*M!100001 SET @@session.gtid_seq_no=") < 0
        || put_number(out, seq) < 0 || BUF_LIT(out, "*/") < 0 || put_delim_line(out, f) < 0
        || (!(f2 & FL_STANDALONE)
            && (BUF_LIT(out, "START TRANSACTION\n") < 0 || put_delim_line(out, f) < 0)))
        return -1;
    t->gtid_flags2 = f2;
    return 1;
}

/* Intvar_log_event::print: "\tIntvar" and SET INSERT_ID / LAST_INSERT_ID (values signed) */
int
bk_mariadb_intvar(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                  Trx *t)
{
    Py_ssize_t p = f->header_len + bk_post_header(f, INTVAR_EVENT, 0);
    if (p + 9 > end || !skip_replication_steady(ev, t))
        return 0;
    int type = ev[p];
    long long value = (long long)get_le(ev + p + 1, 8);
    if (bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tIntvar\nSET ") < 0
        || (type == 1 ? BUF_LIT(out, "LAST_INSERT_ID=") : type == 2 ? BUF_LIT(out, "INSERT_ID=")
                                                             : BUF_LIT(out, "INVALID_INT=")) < 0
        || put_signed(out, value) < 0
        || put_delim_line(out, f) < 0)
        return -1;
    return 1;
}

/* Xid_log_event::print: "\tXid = N" and COMMIT */
int
bk_mariadb_xid(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
               Trx *t)
{
    Py_ssize_t p = f->header_len + bk_post_header(f, XID_EVENT, 0);
    if (p + 8 > end || !skip_replication_steady(ev, t))
        return 0;
    if (bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tXid = ") < 0
        || put_number(out, get_le(ev + p, 8)) < 0 || BUF_LIT(out, "\nCOMMIT") < 0
        || put_delim_line(out, f) < 0)
        return -1;
    return 1;
}

/* is_trans_keyword() of the query (no XA here: GTIDs with XA flags are Python's) */
static int
trans_keyword(const unsigned char *q, Py_ssize_t n)
{
    if (n > 0 && ((n <= 5 && memcmp(q, "BEGIN", n) == 0) || (n <= 6 && memcmp(q, "COMMIT", n) == 0)))
        return 1;
    static const char sp[] = "SAVEPOINT", rb[] = "ROLLBACK";
    Py_ssize_t i;
    for (i = 0; i < 9 && i < n && (q[i] & ~0x20) == sp[i]; i++)
        ;
    if (i == 9)
        return 1;
    for (i = 0; i < 8 && i < n && (q[i] & ~0x20) == rb[i]; i++)
        ;
    return i == 8;
}

/* Query_log_event::print of a query whose printing leaves the session state as it is
 * (driver.py steady_query decides, once per state and key): the header, thread id,
 * exec time and timestamp here, the lines between from CTX_QUERIES, then the query.
 * The key: the flags that matter, whether it is a transaction keyword, then the
 * event from its error code up to the query. */
int
bk_mariadb_query(const Fmt *f, Buf *out, const unsigned char *ev, uint32_t size, Py_ssize_t end,
                 long long pos, Trx *t)
{
    Py_ssize_t p = f->header_len, post = bk_post_header(f, QUERY_EVENT, 13);
    if (post < 13 || p + post > end || (t->gtid_flags2 & FL_XA) || !skip_replication_steady(ev, t))
        return 0;
    Py_ssize_t q = p + post + (ev[p + 11] | (ev[p + 12] << 8)) + ev[p + 8] + 1;
    if (q > end)
        return 0;
    uint32_t thread_id = get_u32(ev + p), exec_time = get_u32(ev + p + 4);
    int eflags = ev[17] & (LOG_EVENT_THREAD_SPECIFIC_F | LOG_EVENT_SUPPRESS_USE_F);
    if ((eflags & LOG_EVENT_THREAD_SPECIFIC_F) && (long long)thread_id != t->thread_id)
        return 0;
    Py_ssize_t status = p + post, status_end = status + (ev[p + 11] | (ev[p + 12] << 8));
    Py_ssize_t usec_at = bk_query_usec_at(ev, status, status_end, 1);
    if (usec_at < 0 || usec_at + 3 > status_end)
        return 0;
    unsigned long usec = usec_at ? (unsigned long)get_le(ev + usec_at, 3) : 0;
    int trans = trans_keyword(ev + q, end - q);
    /* Q_HRNOW's value zeroed: C prints it (entry[1], the fraction, is the first event's) */
    PyObject *key = PyBytes_FromStringAndSize(NULL, 1 + q - p - 8);
    if (key == NULL)
        return -1;
    PyBytes_AS_STRING(key)[0] = (char)(eflags | (trans << 7));
    memcpy(PyBytes_AS_STRING(key) + 1, ev + p + 8, q - p - 8);
    if (usec_at)
        memset(PyBytes_AS_STRING(key) + 1 + usec_at - p - 8, 0, 3);
    PyObject *entry = PyDict_GetItemWithError(f->ctx[CTX_QUERIES], key);     /* borrowed */
    Py_XINCREF(entry);
    if (entry == NULL && !PyErr_Occurred()) {      /* a miss: the driver fills the dict */
        PyObject *data = PyBytes_FromStringAndSize((const char *)ev, size);
        PyObject *at = data ? PyLong_FromLongLong(pos) : NULL;
        entry = at ? PyObject_CallFunctionObjArgs(f->ctx[CTX_QUERY_MISS], data, at, key, NULL) : NULL;
        Py_XDECREF(at);
        Py_XDECREF(data);
    }
    Py_DECREF(key);
    if (entry == NULL)
        return -1;
    if (entry == Py_None) {
        Py_DECREF(entry);
        return 0;
    }
    int rc = -1;
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3
        || !PyBytes_Check(PyTuple_GET_ITEM(entry, 0)) || !PyBytes_Check(PyTuple_GET_ITEM(entry, 1))
        || !PyBytes_Check(PyTuple_GET_ITEM(entry, 2))) {
        PyErr_SetString(PyExc_TypeError, "query entry must be a tuple of 3 bytes");
        goto done;
    }
    /* --flashback: the text is held (in `held`), BEGIN and COMMIT turn around, a statement's
     * own text is left out (print_query) */
    Buf held = {0};
    Buf *keep = out;
    if (f->flashback)
        out = &held;
#define ITEM(i) PyBytes_AS_STRING(PyTuple_GET_ITEM(entry, i)), PyBytes_GET_SIZE(PyTuple_GET_ITEM(entry, i))
    if (bk_put_event_header(out, f, ev, size) == 0 && BUF_LIT(out, "\tQuery\tthread_id=") == 0
        && put_number(out, thread_id) == 0 && BUF_LIT(out, "\texec_time=") == 0
        && put_number(out, exec_time) == 0 && buf_put(out, ITEM(0)) == 0
        && BUF_LIT(out, "SET TIMESTAMP=") == 0 && put_number(out, get_u32(ev)) == 0
        && (usec == 0 || usec > 999999
            || (BUF_LIT(out, ".") == 0 && bk_buf_reserve(out, 8) == 0
                && (out->len = put_pad(out->p + out->len, usec, 6) - out->p) > 0))
        && put_delim_line(out, f) == 0 && buf_put(out, ITEM(2)) == 0) {
        if (!f->flashback)
            rc = buf_put(out, (const char *)ev + q, end - q) == 0 && BUF_LIT(out, "\n") == 0
                 && put_delim_line(out, f) == 0 ? 1 : -1;
        else if (end - q == 5 && memcmp(ev + q, "BEGIN", 5) == 0)
            rc = BUF_LIT(out, "COMMIT\n") == 0 && put_delim_line(out, f) == 0 ? 1 : -1;
        else if (end - q == 6 && memcmp(ev + q, "COMMIT", 6) == 0)
            rc = BUF_LIT(out, "START TRANSACTION\n") == 0 && put_delim_line(out, f) == 0 ? 1 : -1;
        else
            rc = 1;
        if (rc == 1 && f->flashback && bk_held_append(f, held.p ? held.p : "", held.len) < 0)
            rc = -1;
    }
#undef ITEM
    bk_buf_free(&held);
    out = keep;
done:
    Py_DECREF(entry);
    return rc;
}

/* ---- --flashback (printer/mariadb/flashback.py is the reference) ---------------------------
 *
 * With CTX_FLASHBACK the statement loop prints what --flashback prints where it meets
 * it (Annotate_rows and Table_map headers, "# Number of rows") and hands the text an
 * event holds back (ev->output_buf: GTID, Xid, the rows statement) to held_append, in
 * file order, each when its event or statement is committed.  The rows events of a
 * statement are kept (their spans) until the statement ends, then rewritten as
 * flashback_rows_event does: Write and Delete swap types, STMT_END_F moves to the
 * first event, which is printed last, rows go last to first and an Update's images
 * swap places, both walked with the before image's columns. */

#define STMT_END_F 1

/* A GTID (held: COMMIT unless standalone) or Xid (held: its header and START
 * TRANSACTION) of --flashback; 1 done, 0 leave it to Python, -1 error */
int
bk_flashback_unit(const Fmt *f, const unsigned char *ev, uint32_t size, Py_ssize_t end, Trx *t)
{
    if (!skip_replication_steady(ev, t))
        return 0;
    Py_ssize_t p = f->header_len;
    if (ev[4] == XID_EVENT) {
        p += bk_post_header(f, XID_EVENT, 0);
        if (p + 8 > end)
            return 0;
        Buf b = {0};
        int rc = -1;
        if (bk_put_event_header(&b, f, ev, size) == 0 && BUF_LIT(&b, "\tXid = ") == 0
            && put_number(&b, get_le(ev + p, 8)) == 0 && BUF_LIT(&b, "\nSTART TRANSACTION") == 0
            && put_delim_line(&b, f) == 0 && bk_held_append(f, b.p, b.len) == 0)
            rc = 1;
        bk_buf_free(&b);
        return rc;
    }
    if (ev[4] != GTID_EVENT || p + 13 > end)
        return 0;
    unsigned long long seq = get_le(ev + p, 8);
    unsigned long domain = (unsigned long)get_le(ev + p + 8, 4);
    int f2 = ev[p + 12];
    if (seq == 0 || (f2 & FL_XA))
        return 0;
    Py_ssize_t q = p + 13 + (f2 & FL_GROUP_COMMIT_ID ? 8 : 0);
    if (q > end || (q < end && ((ev[q] & FL_EXTRA_ALTER)
                                || ((ev[q] & FL_EXTRA_MULTI_ENGINE_E1) && q + 1 >= end))))
        return 0;
    int recorded = record_gtid(f, domain, (unsigned long)get_u32(ev + 5), seq);
    if (recorded <= 0)
        return recorded;
    if (!(f2 & FL_STANDALONE)) {
        Buf b = {0};
        int rc = BUF_LIT(&b, "COMMIT\n") == 0 && put_delim_line(&b, f) == 0
                 && bk_held_append(f, b.p, b.len) == 0;
        bk_buf_free(&b);
        if (!rc)
            return -1;
    }
    t->gtid_flags2 = f2;
    return 1;
}

/* The image steps flashback_steps gives for (table_map, cols, width): a new reference,
 * or NULL with no error set (None: Python's). */
static PyObject *
flashback_steps(const Fmt *f, PyObject *table_map, const unsigned char *cols, Py_ssize_t nbytes,
                unsigned long long width)
{
    PyObject *r = PyObject_CallFunction(PyTuple_GET_ITEM(f->ctx[CTX_FLASHBACK], 1), "Oy#K",
                                        table_map, (const char *)cols, nbytes, width);
    if (r == Py_None) {
        Py_DECREF(r);
        return NULL;
    }
    if (r != NULL && !PyBytes_Check(r)) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_TypeError, "flashback steps must be bytes");
        return NULL;
    }
    return r;
}

/* One rows event of the statement, rewritten into e (a copy of it); *rows: the rows
 * count_rows gives the rewritten event.  1 done, 0 Python's, -1 error. */
static int
flashback_event(const Fmt *f, Buf *e, const unsigned char *ev, Py_ssize_t size, int first,
                Py_ssize_t *rows, unsigned long long *table_id, int *kind_out)
{
    Py_ssize_t end = size - (f->has_crc ? BINLOG_CHECKSUM_LEN : 0);
    int type = ev[4], v2 = type >= 30;
    int kind = type - (v2 ? 30 : 23);       /* 0 write, 1 update, 2 delete */
    Py_ssize_t post_len = bk_post_header(f, type, v2 ? 10 : 8), pos = f->header_len;
    if ((post_len != 8 && post_len != 10) || pos + 8 > end)
        return 0;
    unsigned long long id = get_le(ev + pos, 6);
    Py_ssize_t flags_at = pos + 6;
    int flags = ev[flags_at] | (ev[flags_at + 1] << 8);
    pos += 8;
    if (post_len == 10) {
        if (pos + 2 > end)
            return 0;
        Py_ssize_t extra_len = ev[pos] | (ev[pos + 1] << 8);
        if (extra_len < 2 || pos + extra_len > end)
            return 0;
        pos += extra_len;
    }
    unsigned long long width;
    if (!bk_packed_length(ev, &pos, end, &width) || width > (unsigned long long)(end - pos) * 8)
        return 0;
    Py_ssize_t nbytes = (Py_ssize_t)((width + 7) / 8);
    const unsigned char *cols = ev + pos;
    pos += nbytes * (kind == 1 ? 2 : 1);
    if (pos > end || (kind == 1 && memcmp(cols, cols + nbytes, nbytes) != 0))
        return 0;                           /* count_rows would walk the after images apart */
    PyObject *key = PyLong_FromUnsignedLongLong(id);
    if (key == NULL)
        return -1;
    PyObject *table_map = PyDict_GetItemWithError(f->ctx[CTX_TABLE_MAPS], key);  /* borrowed */
    Py_DECREF(key);
    if (table_map == NULL)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *steps = flashback_steps(f, table_map, cols, nbytes, width);
    if (steps == NULL)
        return PyErr_Occurred() ? -1 : 0;
    const unsigned char *st = (const unsigned char *)PyBytes_AS_STRING(steps);
    Py_ssize_t nsteps = PyBytes_GET_SIZE(steps) / 3;
    e->len = 0;
    int rc = -1;
    if (buf_put(e, (const char *)ev, size) < 0)
        goto done;
    unsigned char *o = (unsigned char *)e->p;
    o[4] = (unsigned char)(kind == 1 ? type : kind == 0 ? type + 2 : type - 2);
    int new_flags = (flags & ~STMT_END_F) | (first ? STMT_END_F : 0);
    o[flags_at] = new_flags & 0xFF;
    o[flags_at + 1] = (new_flags >> 8) & 0xFF;
    /* the rows last to first (written from the end of the rows backwards) */
    Py_ssize_t at = pos, count = 0, out_end = end;
    while (at < end) {
        Py_ssize_t a = bk_walk_image(st, nsteps, ev, at, end), b = 0;
        if (a && kind == 1)
            b = bk_walk_image(st, nsteps, ev, at + a, end);
        if (!a || (kind == 1 && !b)) {
            rc = 0;                         /* an image it cannot walk: Python's error */
            goto done;
        }
        out_end -= a + b;
        if (kind == 1) {                    /* after image first */
            memcpy(o + out_end, ev + at + a, b);
            memcpy(o + out_end + b, ev + at, a);
        } else {
            memcpy(o + out_end, ev + at, a);
        }
        at += a + b;
        count++;
    }
    /* count_rows of the rewritten event: an empty Write (a Delete's flashback) counts one */
    *rows += (kind == 2 && pos == end) ? 1 : count;
    *table_id = id;
    *kind_out = kind;
    rc = 1;
done:
    Py_DECREF(steps);
    return rc;
}

/* The end of a statement (its rows events in `events`, the table maps' in `maps`):
 * the held text (the events' header lines last to first, then the BINLOG block of
 * the table maps and the rewritten events) to held_append, "# Number of rows" to
 * out.  1 done, 0 Python's (nothing written), -1 error. */
int
bk_flashback_statement(const Fmt *f, Buf *out, const Spans *maps, const Spans *events, Trx *t)
{
    static const char *names[] = {"Delete_rows", "Update_rows", "Write_rows"};
    Buf head = {0}, body = {0}, e = {0};
    Py_ssize_t rows = 0;
    int rc = -1;
    for (Py_ssize_t i = 0; i < maps->len; i++) {
        Py_ssize_t n = bk_b64_lines_size(maps->s[i].n);
        if (bk_buf_reserve(&body, n) < 0)
            goto done;
        bk_b64_lines_into(maps->s[i].p, maps->s[i].n, body.p + body.len);
        body.len += n;
    }
    for (Py_ssize_t i = events->len - 1; i >= 0; i--) {
        const unsigned char *ev = events->s[i].p;
        unsigned long long id = 0;
        int kind = 0;
        int r = flashback_event(f, &e, ev, events->s[i].n, i == 0, &rows, &id, &kind);
        if (r <= 0) {
            rc = r;
            goto done;
        }
        if (bk_put_event_header(&head, f, ev, (uint32_t)events->s[i].n) < 0
            || BUF_LIT(&head, "\t") < 0 || buf_put(&head, names[kind], strlen(names[kind])) < 0
            || BUF_LIT(&head, ": table id ") < 0 || put_number(&head, id) < 0
            || (i == 0 && BUF_LIT(&head, " flags: STMT_END_F") < 0) || BUF_LIT(&head, "\n") < 0)
            goto done;
        Py_ssize_t n = bk_b64_lines_size(e.len);
        if (bk_buf_reserve(&body, n) < 0)
            goto done;
        bk_b64_lines_into((const unsigned char *)e.p, e.len, body.p + body.len);
        body.len += n;
    }
    if ((body.len && (BUF_LIT(&head, "\nBINLOG '\n") < 0 || buf_put(&head, body.p, body.len) < 0
                      || BUF_LIT(&head, "'") < 0 || put_delim_line(&head, f) < 0))
        || bk_held_append(f, head.p ? head.p : "", head.len) < 0
        || BUF_LIT(out, "# Number of rows: ") < 0 || put_number(out, rows) < 0
        || BUF_LIT(out, "\n") < 0)
        goto done;
    rc = 1;
done:
    bk_buf_free(&head);
    bk_buf_free(&body);
    bk_buf_free(&e);
    return rc;
}
