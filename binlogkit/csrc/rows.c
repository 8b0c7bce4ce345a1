/*
 * binlogkit._speedups, part 2: whole row statements.
 * (Module, framing, base64, header and row counting: _speedups.c; the -v
 * text of row images: csrc/image.c.)
 */
#include "speedups.h"

/* ---- whole row statements (printer/mariadb/driver.py) --------------------------------------
 *
 * print_row_statements(buf, rel, pos, ctx[, sink[, sink_at[, soft_end]]])
 *     -> (events, new_pos, text)
 *
 * buf: bytes, or a read-only mapping of the file.  sink: a callable handed the text of
 * the statements printed so far, as a memoryview of the output buffer valid during the
 * call, whenever it holds sink_at bytes (SINK_AT by default); `text` is then what is
 * left.  soft_end: no statement or transaction starts at or past this index of buf (a
 * mapped file is printed window by window, so the pages behind can be let go).
 *
 * What the MariaDB driver's process_event + handle_annotate_rows / handle_table_map /
 * handle_rows print for whole row statements -- Annotate_rows, Table_map(s),
 * rows events, the last one with STMT_END_F -- with the default options, or
 * with -v/-vv and/or --base64-output=decode-rows (dump.fast_rows_eligible),
 * for as many statements as follow each other in buf[rel:] (pos: the file
 * offset of buf[rel]).  The -v text comes from csrc/image.c over the
 * plans of printer/mariadb/rows_fast.py c_text_plan; a rows event that code does
 * not handle (an unknown table, no rows, an odd value...) is left to Python
 * like any other event it cannot print.  Only whole statements are printed: at the first event that
 * is not part of one (or cannot be handled here: an incomplete event, the
 * stop position or datetime, a compressed rows event, an odd post-header...)
 * the statement in progress is dropped and `new_pos` is where it began; the
 * Python path then prints those events itself, the same way.  The printer
 * state is therefore clean (no pending annotate, head, body or row count)
 * before and after a call.
 *
 * ctx is a tuple built by printer/mariadb/driver.py (Printer._fast_context), in this order:
 */
/* (the ctx entries: CTX_* in csrc/speedups.h) */

/* mysqlbinlog 8.0 (printer/mysql/driver.py handle_rows and printer/mysql/rows.py)
 * prints a row statement like mariadb-binlog but for: Rows_query events (-vv:
 * "# <line>" lines and the event in the BINLOG block; else only "# at") instead
 * of Annotate_rows; rows events named "..._v1" for v1 events and their header
 * lines printed as they come (its head cache is flushed after each event, which
 * is the same bytes, as only whole statements are printed here); no "# Number
 * of rows" line; PARTIAL_UPDATE_ROWS events ("Update_rows_partial", kind 3: an update
 * whose after images may hold JSON diffs); the -v text of printer/mysql/verbose.py
 * (plans of printer/mysql/fast.py c_text_plan; JSON from csrc/json.c); an event type past the format's number
 * of event types, a rows event of no columns or, with -v, one with extra row
 * info is left to Python, like everything else it cannot print the same way. */

#define TABLE_MAP_EVENT 19
#define ROWS_QUERY_LOG_EVENT 29
#define PARTIAL_UPDATE_ROWS_EVENT 39
#define ANNOTATE_ROWS_EVENT 160
#define LOG_EVENT_IGNORABLE_F 0x80    /* in the header's flags (byte 17) */
#define STMT_END_F 1

/* Buf (csrc/speedups.h): make room for `extra` more bytes; -1 with an exception set. */
int
bk_buf_reserve(Buf *b, Py_ssize_t extra)
{
    if (b->len + extra <= b->cap)
        return 0;
    Py_ssize_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra)
        cap *= 2;
    if (b->as_bytes) {
        if (b->bytes == NULL)
            b->bytes = PyBytes_FromStringAndSize(NULL, cap);
        else
            _PyBytes_Resize(&b->bytes, cap);      /* NULL on failure */
        if (b->bytes == NULL)
            return -1;
        b->p = PyBytes_AS_STRING(b->bytes);
    } else {
        char *p = PyMem_Realloc(b->p, cap);
        if (p == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->p = p;
    }
    b->cap = cap;
    return 0;
}

/* The first n bytes of an as_bytes buffer, as bytes (the buffer is used up). */
PyObject *
bk_buf_take_bytes(Buf *b, Py_ssize_t n)
{
    PyObject *result = b->bytes;
    b->bytes = NULL;
    b->p = NULL;
    b->len = b->cap = 0;
    if (result == NULL)
        return PyBytes_FromStringAndSize("", 0);
    if (_PyBytes_Resize(&result, n) < 0)
        return NULL;
    return result;
}

void
bk_buf_free(Buf *b)
{
    if (b->as_bytes)
        Py_CLEAR(b->bytes);
    else
        PyMem_Free(b->p);
    b->p = NULL;
}

/* "# at <pos>\n" */
int
bk_put_at(Buf *b, long long pos)
{
    if (bk_buf_reserve(b, 32) < 0)
        return -1;
    char *o = PUT_LIT(b->p + b->len, "# at ");
    o = put_u64(o, (unsigned long long)pos);
    *o++ = '\n';
    b->len = o - b->p;
    return 0;
}

/* The event (CRC included) into the statement's BINLOG block (print_base64):
 * remembered here, encoded by put_spans when the statement is flushed */
static int
put_base64(Spans *b, const unsigned char *ev, Py_ssize_t size)
{
    if (b->len == b->cap) {
        Py_ssize_t cap = b->cap ? 2 * b->cap : 64;
        Span *s = PyMem_Realloc(b->s, cap * sizeof(Span));
        if (s == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        b->s = s;
        b->cap = cap;
    }
    b->s[b->len].p = ev;
    b->s[b->len].n = size;
    b->len++;
    return 0;
}

/* Hand out[0:len] to the sink (a memoryview valid during the call) and empty out */
static int
sink_out(const Fmt *f, Buf *out)
{
    if (out->len == 0)
        return 0;
    PyObject *view = PyMemoryView_FromMemory(out->p, out->len, PyBUF_READ);
    if (view == NULL)
        return -1;
    PyObject *r = PyObject_CallOneArg(f->sink, view);
    /* the view is released whatever the sink did; its error (a closed pipe...) is kept */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *released = PyObject_CallMethod(view, "release", NULL);
    Py_DECREF(view);
    if (released == NULL) {     /* the sink kept an export of the view */
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        Py_XDECREF(r);
        return -1;
    }
    Py_DECREF(released);
    if (r == NULL) {
        PyErr_Restore(type, value, tb);
        return -1;
    }
    Py_DECREF(r);
    out->len = 0;
    return 0;
}

/* base64_lines() of each event of the block, into out (to the sink as it fills) */
static int
put_spans(const Fmt *f, Buf *out, const Spans *b)
{
    for (Py_ssize_t i = 0; i < b->len; i++) {
        Py_ssize_t n = bk_b64_lines_size(b->s[i].n);
        if (bk_buf_reserve(out, n) < 0)
            return -1;
        bk_b64_lines_into(b->s[i].p, b->s[i].n, out->p + out->len);
        out->len += n;
        if (f->sink != NULL && out->len >= f->sink_at && sink_out(f, out) < 0)
            return -1;
    }
    return 0;
}


/* FormatDescription.post_header(type_code, default) */
Py_ssize_t
bk_post_header(const Fmt *f, int type_code, Py_ssize_t dflt)
{
    if (type_code > 0 && type_code <= f->n_post_header_len)
        return f->post_header_len[type_code - 1];
    return dflt;
}

/* print_header() for the event at ev into b; -1 with an exception set on error */
int
bk_put_event_header(Buf *b, const Fmt *f, const unsigned char *ev, uint32_t size)
{
    PyObject *when = PyLong_FromUnsignedLong(get_u32(ev));
    if (when == NULL)
        return -1;
    PyObject *text = PyDict_GetItemWithError(f->ctx[CTX_TIMES], when);   /* borrowed */
    Py_XINCREF(text);
    if (text == NULL && !PyErr_Occurred())
        text = PyObject_CallOneArg(f->ctx[CTX_TIME_TEXT], when);
    Py_DECREF(when);
    if (text == NULL)
        return -1;
    if (!PyBytes_Check(text)) {
        Py_DECREF(text);
        PyErr_SetString(PyExc_TypeError, "time text must be bytes");
        return -1;
    }
    Py_ssize_t tlen = PyBytes_GET_SIZE(text);
    if (bk_buf_reserve(b, tlen + 80) < 0) {
        Py_DECREF(text);
        return -1;
    }
    /* a payload's events are printed with the payload's end_log_pos (print_transaction_payload) */
    unsigned long long log_pos = f->fixed_pos ? (unsigned long long)f->at : get_u32(ev + 13);
    char *o = bk_put_header(b->p + b->len, PyBytes_AS_STRING(text), tlen, get_u32(ev + 5),
                            log_pos, f->has_crc, get_u32(ev + size - BINLOG_CHECKSUM_LEN));
    b->len = o - b->p;
    Py_DECREF(text);
    return 0;
}

/* print_annotate_rows(): header, then the query's non-empty lines ('\r' also
 * ends a line) each as "#Q> line\n" */
static int
put_annotate(Buf *b, const Fmt *f, const unsigned char *ev, uint32_t size, Py_ssize_t end)
{
    if (bk_put_event_header(b, f, ev, size) < 0 || BUF_LIT(b, "\tAnnotate_rows:\n") < 0)
        return -1;
    Py_ssize_t q = f->header_len + bk_post_header(f, ANNOTATE_ROWS_EVENT, 0);
    while (q < end) {
        Py_ssize_t e = q;
        while (e < end && ev[e] != '\n' && ev[e] != '\r')
            e++;
        if (e > q && (BUF_LIT(b, "#Q> ") < 0 || buf_put(b, (const char *)ev + q, e - q) < 0
                      || BUF_LIT(b, "\n") < 0))
            return -1;
        q = e + 1;
    }
    return 0;
}

/* Rows_query_log_event::print with -vv: header, "\tRows_query\n", the query (up to
 * a NUL) in "# line\n" lines (empty lines left out); the event goes to the BINLOG
 * block.  Without -vv nothing but "# at".  1 printed, 0 leave it to Python, -1 error. */
/* One line of a Rows_query event: mysqlbinlog 9.7 escapes \\, tab, CR and backspace
 * (printer/mysql/rows.py rows_query_escaped), 8.0 prints it as it is */
static int
put_query_line(const Fmt *f, Buf *out, const unsigned char *s, Py_ssize_t n)
{
    if (f->mysql != 2)
        return buf_put(out, (const char *)s, n);
    if (bk_buf_reserve(out, 2 * n) < 0)
        return -1;
    char *o = out->p + out->len;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        char e = c == '\\' ? '\\' : c == '\t' ? 't' : c == '\r' ? 'r' : c == 8 ? 'b' : 0;
        if (e) {
            *o++ = '\\';
            *o++ = e;
        } else {
            *o++ = (char)c;
        }
    }
    out->len = o - out->p;
    return 0;
}

static int
rows_query_event(const Fmt *f, Buf *out, Spans *body, const unsigned char *ev, uint32_t size,
                 Py_ssize_t end)
{
    Py_ssize_t q = f->header_len + bk_post_header(f, ROWS_QUERY_LOG_EVENT, 0) + 1;
    if (q > end)
        return 0;
    if (f->verbose < 2)
        return 1;
    if (bk_put_event_header(out, f, ev, size) < 0 || BUF_LIT(out, "\tRows_query\n") < 0)
        return -1;
    const unsigned char *nul = memchr(ev + q, 0, end - q);
    Py_ssize_t qend = nul ? nul - ev : end;
    while (q <= qend) {
        Py_ssize_t e = q;
        while (e < qend && ev[e] != '\n')
            e++;
        if (e > q && (BUF_LIT(out, "# ") < 0 || put_query_line(f, out, ev + q, e - q) < 0
                      || BUF_LIT(out, "\n") < 0))
            return -1;
        q = e + 1;
    }
    if (f->encoded && put_base64(body, ev, size) < 0)
        return -1;
    return 1;
}

/* The rows counted for one rows event (Printer.account_rows / rows.count_rows);
 * -1 with an exception set on error. */
static Py_ssize_t
event_rows(const Fmt *f, PyObject *table_map, int update, int write,
           const unsigned char *cols, const unsigned char *cols_ai, Py_ssize_t nbytes,
           const unsigned char *rows, Py_ssize_t nrows)
{
    if (write && nrows == 0)
        return 1;
    PyObject *steps[2] = {NULL, NULL};
    const unsigned char *bitmaps[2] = {cols, cols_ai};
    Py_ssize_t result = -1;
    for (int i = 0; i < 1 + update; i++) {
        PyObject *key = PyBytes_FromStringAndSize((const char *)bitmaps[i], nbytes);
        PyObject *plans = key ? PyObject_GetAttrString(table_map, "plans") : NULL;
        PyObject *plan = plans ? PyDict_GetItemWithError(plans, key) : NULL;   /* borrowed */
        Py_XINCREF(plan);
        if (plan == NULL && plans != NULL && !PyErr_Occurred())
            plan = PyObject_CallFunctionObjArgs(f->ctx[CTX_IMAGE_PLAN], table_map, key, NULL);
        steps[i] = plan ? PyObject_GetAttrString(plan, "steps") : NULL;
        Py_XDECREF(plan);
        Py_XDECREF(plans);
        Py_XDECREF(key);
        if (steps[i] == NULL)
            goto done;
        if (!PyBytes_Check(steps[i])) {
            PyErr_SetString(PyExc_TypeError, "plan steps must be bytes");
            goto done;
        }
    }
    result = bk_count_image_rows(
        (const unsigned char *)PyBytes_AS_STRING(steps[0]), PyBytes_GET_SIZE(steps[0]) / 3,
        update ? (const unsigned char *)PyBytes_AS_STRING(steps[1]) : NULL,
        update ? PyBytes_GET_SIZE(steps[1]) / 3 : 0, rows, nrows);
done:
    Py_XDECREF(steps[0]);
    Py_XDECREF(steps[1]);
    return result;
}

/* net_field_length(); 0 when it is NULL (251) or runs past end (also used by
 * csrc/mysql.c) */
int
bk_packed_length(const unsigned char *ev, Py_ssize_t *pos, Py_ssize_t end, unsigned long long *value)
{
    Py_ssize_t p = *pos;
    if (p >= end || ev[p] == 251)
        return 0;
    int n = ev[p] < 251 ? 0 : ev[p] == 252 ? 2 : ev[p] == 253 ? 3 : 8;
    if (p + 1 + n > end)
        return 0;
    unsigned long long v = n ? 0 : ev[p];
    for (int i = n; i > 0; i--)
        v = (v << 8) | ev[p + i];
    *value = v;
    *pos = p + 1 + n;
    return 1;
}

/* One Table_map event: 1 printed, 0 leave it to Python, -1 error. */
static int
table_map_event(const Fmt *f, Buf *out, Buf *head, Spans *body, const unsigned char *ev,
                uint32_t size, Py_ssize_t end, long long pos, const unsigned char **annotate)
{
    PyObject *key = PyBytes_FromStringAndSize((const char *)ev + f->header_len, end - f->header_len);
    if (key == NULL)
        return -1;
    PyObject *entry = PyDict_GetItemWithError(f->ctx[CTX_MAPS], key);     /* borrowed */
    Py_XINCREF(entry);
    Py_DECREF(key);
    if (entry == NULL && !PyErr_Occurred()) {
        PyObject *data = PyBytes_FromStringAndSize((const char *)ev, size);
        PyObject *at = data ? PyLong_FromLongLong(pos) : NULL;
        entry = at ? PyObject_CallFunctionObjArgs(f->ctx[CTX_MAP_MISS], data, at, NULL) : NULL;
        Py_XDECREF(at);
        Py_XDECREF(data);
    }
    if (entry == NULL)
        return -1;
    int rc = 0;
    if (entry == Py_None)
        goto done;
    rc = -1;
    if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 3
        || !PyBytes_Check(PyTuple_GET_ITEM(entry, 2))) {
        PyErr_SetString(PyExc_TypeError, "table map entry must be (table_id, body, text)");
        goto done;
    }
    /* head += [annotate], header, text; then flush_head(): straight to out */
    if (head != out && buf_put(out, head->p, head->len) < 0)
        goto done;
    if (head != out)
        head->len = 0;
    if (*annotate != NULL) {
        const unsigned char *a = *annotate;
        uint32_t asize = get_u32(a + 9);
        if (put_annotate(out, f, a, asize, asize - (f->has_crc ? BINLOG_CHECKSUM_LEN : 0)) < 0)
            goto done;
        *annotate = NULL;
    }
    PyObject *text = PyTuple_GET_ITEM(entry, 2);
    if (bk_put_event_header(out, f, ev, size) < 0
        || buf_put(out, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text)) < 0
        || (f->encoded && put_base64(body, ev, size) < 0)
        || PyDict_SetItem(f->ctx[CTX_TABLE_MAPS], PyTuple_GET_ITEM(entry, 0),
                          PyTuple_GET_ITEM(entry, 1)) < 0)
        goto done;
    rc = 1;
done:
    Py_DECREF(entry);
    return rc;
}

/* The -v text of a rows event into tail (Printer.account_rows with -v):
 * 1 printed, 0 leave it to Python, -1 error. */
static int
verbose_rows(const Fmt *f, Buf *tail, PyObject *table_map, int kind, const unsigned char *cols,
             const unsigned char *cols_ai, Py_ssize_t nbytes, unsigned long long width,
             const unsigned char *data, Py_ssize_t n, Py_ssize_t *rows)
{
    if (n == 0)             /* "VALUES ()" or nothing: the Python printer's case */
        return 0;
    /* the MySQL flavor's plans are cached apart: (..., verbose, 1) */
    PyObject *key = f->mysql
        ? Py_BuildValue("(iy#y#Kii)", kind, (const char *)cols, nbytes, (const char *)cols_ai,
                        nbytes, width, f->verbose, 1)
        : Py_BuildValue("(iy#y#Ki)", kind, (const char *)cols, nbytes, (const char *)cols_ai,
                        nbytes, width, f->verbose);
    PyObject *plans = key ? PyObject_GetAttrString(table_map, "plans") : NULL;
    PyObject *plan = plans ? PyDict_GetItemWithError(plans, key) : NULL;   /* borrowed */
    Py_XINCREF(plan);
    if (plan == NULL && plans != NULL && !PyErr_Occurred())
        plan = PyObject_CallFunction(f->ctx[CTX_TEXT_PLAN], "OiOOOi", table_map, kind,
                                     PyTuple_GET_ITEM(key, 1), PyTuple_GET_ITEM(key, 2),
                                     PyTuple_GET_ITEM(key, 3), f->verbose);
    Py_XDECREF(plans);
    Py_XDECREF(key);
    if (plan == NULL)
        return -1;
    Py_ssize_t count = 0;
    int rc = plan == Py_None ? 0 : bk_rows_text(tail, plan, data, n, &count);
    Py_DECREF(plan);
    if (rc > 0)
        *rows += count;
    return rc;
}

/* mysqlbinlog 9.x: every flag of a rows event by name (printer/mysql/rows.py
 * rows_flags_text, the reference), nothing for none; at most ~120 bytes */
static char *
put_rows_flags(char *o, int flags)
{
    static const struct { int bit; const char *name; } known[] = {
        {0x1, "STMT_END_F"}, {0x2, "NO_FOREIGN_KEY_CHECKS_F"}, {0x4, "RELAXED_UNIQUE_CHECKS_F"},
        {0x10, "USE_SQL_FOREIGN_KEY_F"}, {0x8, "COMPLETE_ROWS_F"}};
    if (!flags)
        return o;
    o = PUT_LIT(o, " flags:");
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (flags & known[i].bit) {
            *o++ = ' ';
            o = put_str(o, known[i].name, strlen(known[i].name));
        }
    if (flags & ~0x1f)
        o += sprintf(o, " UNKNOWN_FLAG(0x%x)", flags & ~0x1f);
    return o;
}

/* One Write/Update/Delete_rows (v1 or v2) event: 1 printed, 0 leave it to
 * Python, -1 error.  *rows accumulates the statement's row count. */
static int
rows_event(const Fmt *f, Buf *head, Spans *body, Buf *tail, const unsigned char *ev, uint32_t size,
           Py_ssize_t end, int *stmt_end, Py_ssize_t *rows)
{
    int type = ev[4];
    int v2 = type >= 30;
    /* 0 write, 1 update, 2 delete; 3 MySQL's PARTIAL_UPDATE_ROWS (an update whose after
     * images may hold JSON diffs: printer/mysql/fast.py c_text_plan's kind 3) */
    int kind = type == PARTIAL_UPDATE_ROWS_EVENT ? 3 : type - (v2 ? 30 : 23);
    static const char *names[] = {"Write_rows", "Update_rows", "Delete_rows", "Update_rows_partial",
                                  "Write_rows_v1", "Update_rows_v1", "Delete_rows_v1"};
    if (f->mysql == 2 && !v2)   /* mysqlbinlog 9.x reads no v1 rows events: Python's error */
        return 0;
    const char *name = names[kind + (f->mysql && !v2 ? 4 : 0)];
    Py_ssize_t post_len = bk_post_header(f, type, v2 ? 10 : 8);
    Py_ssize_t pos = f->header_len;
    if (post_len != 8 && post_len != 10)
        return 0;
    if (pos + 8 > end)
        return 0;
    unsigned long long table_id = 0;
    for (int i = 5; i >= 0; i--)
        table_id = (table_id << 8) | ev[pos + i];
    int flags = ev[pos + 6] | (ev[pos + 7] << 8);
    pos += 8;
    if (post_len == 10) {
        if (pos + 2 > end)
            return 0;
        Py_ssize_t extra_len = ev[pos] | (ev[pos + 1] << 8);
        if (extra_len < 2 || pos + extra_len > end || (f->mysql && f->verbose && extra_len > 2))
            return 0;
        pos += extra_len;
    }
    unsigned long long width;
    if (!bk_packed_length(ev, &pos, end, &width) || width > (unsigned long long)(end - pos) * 8
        || (f->mysql && width == 0))
        return 0;
    Py_ssize_t nbytes = (Py_ssize_t)((width + 7) / 8);
    const unsigned char *cols = ev + pos, *cols_ai = cols;
    pos += nbytes;
    if (kind == 1 || kind == 3) {
        cols_ai = ev + pos;
        pos += nbytes;
    }
    if (pos > end)
        return 0;

    *stmt_end = flags & STMT_END_F;
    if (bk_put_event_header(head, f, ev, size) < 0 || BUF_LIT(head, "\t") < 0
        || buf_put(head, name, strlen(name)) < 0
        || BUF_LIT(head, ": table id ") < 0 || bk_buf_reserve(head, 192) < 0)
        return -1;
    char *o = put_u64(head->p + head->len, table_id);
    if (f->mysql == 2)
        o = put_rows_flags(o, flags);
    else if (*stmt_end)
        o = PUT_LIT(o, " flags: STMT_END_F");
    *o++ = '\n';
    head->len = o - head->p;
    if (f->encoded && put_base64(body, ev, size) < 0)
        return -1;
    if (f->mysql && !f->verbose)        /* nothing more: no row count in mysqlbinlog */
        return 1;

    PyObject *id = PyLong_FromUnsignedLongLong(table_id);
    if (id == NULL)
        return -1;
    PyObject *table_map = PyDict_GetItemWithError(f->ctx[CTX_TABLE_MAPS], id);   /* borrowed */
    Py_DECREF(id);
    if (table_map == NULL) {    /* no map: an "unknown table" line for -v (Python's) */
        if (PyErr_Occurred())
            return -1;
        if (f->verbose)
            return 0;
        if (kind == 0 && pos == end)    /* an empty write counts one row, mapped or not */
            *rows += 1;
        return 1;
    }
    Py_INCREF(table_map);
    if (f->verbose) {
        int rc = verbose_rows(f, tail, table_map, kind, cols, cols_ai, nbytes, width, ev + pos,
                              end - pos, rows);
        Py_DECREF(table_map);
        return rc;
    }
    Py_ssize_t n = event_rows(f, table_map, kind == 1, kind == 0, cols, cols_ai, nbytes,
                              ev + pos, end - pos);
    Py_DECREF(table_map);
    if (n < 0)
        return -1;
    *rows += n;
    return 1;
}

/* The statement loop over data[rel:] (file offset pos, or every event at f->at
 * in fixed_pos mode), appending to out; m: what is committed (out is cut back
 * to it).  0, or -1 with an exception set. */
int
bk_statements(const Fmt *f, const unsigned char *data, Py_ssize_t avail, Py_ssize_t rel,
              long long pos, Buf *out, Trx *trx, Mark *m)
{
    PyObject *delim = f->ctx[CTX_DELIMITER];
    unsigned long long stop_position = f->stop_position;
    Py_ssize_t min_size = LOG_EVENT_HEADER_LEN + (f->has_crc ? BINLOG_CHECKSUM_LEN : 0);
    Buf head = {0}, tail = {0};
    Spans body = {0}, fbev = {0};       /* fbev: --flashback's rows events of the statement */
    const unsigned char *annotate = NULL;    /* the pending Annotate_rows event */
    Py_ssize_t rows = 0, events = 0;
    int failed = 0;
    Buf *hdr = f->mysql ? out : &head;      /* where rows events' header lines go */
    m->events = 0;
    m->pos = f->fixed_pos ? rel : pos;
    m->len = out->len;
    m->trx = *trx;

    while (rel >= 0 && avail - rel >= LOG_EVENT_HEADER_LEN) {
        if (rel >= f->soft_end && events == m->events)    /* nothing begun: the caller's window ends */
            break;
        const unsigned char *ev = data + rel;
        int type = ev[4];
        uint32_t size = get_u32(ev + 9);
        if (size > avail - rel || size < min_size || f->header_len < LOG_EVENT_HEADER_LEN)
            break;
        Py_ssize_t end = size - (f->has_crc ? BINLOG_CHECKSUM_LEN : 0);
        if ((!f->fixed_pos && (unsigned long long)pos >= stop_position)
            || (long long)get_u32(ev) >= f->stop_datetime || f->header_len > end)
            break;
        int known = type == TABLE_MAP_EVENT || (type >= 23 && type <= 25)
                    || (type >= 30 && type <= 32)
                    || type == (f->mysql ? ROWS_QUERY_LOG_EVENT : ANNOTATE_ROWS_EVENT)
                    || (f->mysql && type == PARTIAL_UPDATE_ROWS_EVENT);
        int unit = f->trx && (f->mysql ? type == 2 || type == 5 || type == 16 || type == 33
                                         || type == 34 || type == 40 || type == 13 || type == 14
                                       : type == 2 || type == 5 || type == 16 || type == 162
                                         || type == 13 || type == 14);
        known |= unit;
        if (f->mysql && type > f->n_post_header_len)     /* "Found invalid event" */
            known = 0;
        if (!f->mysql && (ev[17] & LOG_EVENT_IGNORABLE_F))   /* read as Ignorable_log_event */
            known = 0;
        if (unit && events != m->events)                /* inside a row statement */
            known = 0;
        if (type == ANNOTATE_ROWS_EVENT && !f->mysql
            && end <= f->header_len + bk_post_header(f, ANNOTATE_ROWS_EVENT, 0))
            known = 0;                                  /* no query: not a valid event */
        if (!known || (!f->flashback && bk_put_at(out, pos) < 0))    /* no "# at" in a flashback */
            break;
        int rc = 1, stmt_end = 0;
        Py_ssize_t count = 1;
        if (type == ANNOTATE_ROWS_EVENT)
            annotate = ev;
        else if (type == ROWS_QUERY_LOG_EVENT)
            rc = rows_query_event(f, out, &body, ev, size, end);
        else if (unit && f->flashback && (type == 16 || type == 162))
            rc = bk_flashback_unit(f, ev, size, end, trx);
        else if (unit && !f->mysql) /* csrc/mariadb.c */
            rc = type == 2 ? bk_mariadb_query(f, out, ev, size, end, pos, trx)
                 : type == 16 ? bk_mariadb_xid(f, out, ev, size, end, trx)
                 : type == 5 ? bk_mariadb_intvar(f, out, ev, size, end, trx)
                 : type == 13 ? bk_mariadb_rand(f, out, ev, size, end, trx)
                 : type == 14 ? bk_mariadb_user_var(f, out, ev, size, end, trx)
                 : bk_mariadb_gtid(f, out, ev, size, end, trx);
        else if (unit && (type == 5 || type == 13 || type == 14))   /* these and their Query */
            rc = bk_mysql_context_query(f, out, ev, &size, avail - rel, pos, trx, &count); else if (unit)            /* one event, printed whole: committed below */
            rc = type == 2 ? bk_mysql_query(f, out, ev, size, end, pos, trx)
                 : type == 16 ? bk_mysql_xid(f, out, ev, size, end, trx)
                 : type == 40 ? bk_mysql_payload(f, out, ev, size, end, trx, &count)
                 : bk_mysql_gtid(f, out, ev, size, end, trx);
        else if (type == TABLE_MAP_EVENT) {
            rc = table_map_event(f, out, hdr, &body, ev, size, end, pos, &annotate);
            fbev.len = 0;           /* handle_table_map: events_in_stmt starts anew */
        } else if (f->flashback) {  /* kept until the statement ends */
            Py_ssize_t at = f->header_len + 6;
            rc = at + 2 <= end && put_base64(&fbev, ev, size) == 0 ? 1 : at + 2 <= end ? -1 : 0;
            stmt_end = rc > 0 && (ev[at] & STMT_END_F);
        } else {
            rc = rows_event(f, hdr, &body, &tail, ev, size, end, &stmt_end, &rows);
        }
        if (rc <= 0) {
            failed = rc < 0;
            break;
        }
        events += count;
        rel += size;
        if (!f->fixed_pos)
            pos += size;
        if (stmt_end && f->flashback) {     /* csrc/mariadb.c */
            int r = bk_flashback_statement(f, out, &body, &fbev, trx);
            if (r <= 0) {
                failed = r < 0;
                break;
            }
            body.len = fbev.len = 0;
        }
        if (stmt_end || unit) {             /* flush_statement() */
            char line[48], *o = line;
            if (!f->mysql && !unit && !f->flashback) {
                o = PUT_LIT(line, "# Number of rows: ");
                o = put_u64(o, (unsigned long long)rows);
                *o++ = '\n';
            }
            int encoded = f->encoded && body.len;
            if ((hdr == &head && buf_put(out, head.p, head.len) < 0)
                || (encoded && (BUF_LIT(out, "\nBINLOG '\n") < 0
                                || put_spans(f, out, &body) < 0 || BUF_LIT(out, "'") < 0
                                || buf_put(out, PyBytes_AS_STRING(delim),
                                           PyBytes_GET_SIZE(delim)) < 0
                                || BUF_LIT(out, "\n") < 0))
                || buf_put(out, tail.p, tail.len) < 0 || buf_put(out, line, o - line) < 0) {
                failed = 1;
                break;
            }
            head.len = body.len = tail.len = 0;
            rows = 0;
            annotate = NULL;
            m->events = events;
            m->pos = f->fixed_pos ? rel : pos;
            m->trx = *trx;
            if (f->sink != NULL && out->len >= f->sink_at && sink_out(f, out) < 0) {
                failed = 1;
                break;
            }
            m->len = out->len;
        }
    }
    out->len = m->len;
    bk_buf_free(&head);
    PyMem_Free(body.s);
    PyMem_Free(fbev.s);
    bk_buf_free(&tail);
    return failed ? -1 : 0;
}

PyObject *
bk_print_row_statements(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 4 || nargs > 7 || !PyTuple_Check(args[3])
        || (PyTuple_GET_SIZE(args[3]) != CTX_SIZE
            && PyTuple_GET_SIZE(args[3]) != CTX_SIZE_MYSQL)
        || (nargs >= 5 && args[4] != Py_None && !PyCallable_Check(args[4]))) {
        PyErr_SetString(PyExc_TypeError, "print_row_statements(buf, rel, pos, ctx: tuple"
                                         "[, sink: callable[, sink_at: int[, soft_end: int]]])");
        return NULL;
    }
    Fmt f;
    f.ctx = &PyTuple_GET_ITEM(args[3], 0);
    f.sink = nargs >= 5 && args[4] != Py_None ? args[4] : NULL;
    f.sink_at = nargs >= 6 && args[5] != Py_None ? PyLong_AsSsize_t(args[5]) : SINK_AT;
    if (f.sink_at < 1)
        f.sink_at = 1;
    f.soft_end = nargs == 7 && args[6] != Py_None ? PyLong_AsSsize_t(args[6]) : PY_SSIZE_T_MAX;
    PyObject *post = f.ctx[CTX_POST_HEADER_LEN], *delim = f.ctx[CTX_DELIMITER];
    if (!PyBytes_Check(post) || !PyBytes_Check(delim) || !PyDict_Check(f.ctx[CTX_TIMES])
        || !PyDict_Check(f.ctx[CTX_MAPS]) || !PyDict_Check(f.ctx[CTX_TABLE_MAPS])) {
        PyErr_SetString(PyExc_TypeError, "print_row_statements(): bad context");
        return NULL;
    }
    f.post_header_len = (const unsigned char *)PyBytes_AS_STRING(post);
    f.n_post_header_len = PyBytes_GET_SIZE(post);
    f.has_crc = PyObject_IsTrue(f.ctx[CTX_HAS_CRC]);
    f.encoded = PyObject_IsTrue(f.ctx[CTX_ENCODED]);
    f.verbose = PyLong_AsLong(f.ctx[CTX_VERBOSE]);
    f.header_len = PyLong_AsSsize_t(f.ctx[CTX_HEADER_LEN]);
    f.stop_position = PyLong_AsUnsignedLongLong(f.ctx[CTX_STOP_POSITION]);
    f.stop_datetime = PyLong_AsLongLong(f.ctx[CTX_STOP_DATETIME]);
    f.mysql = f.fixed_pos = f.trx = f.flashback = 0;
    f.held = NULL;
    PyObject *trx_list = NULL;
    Trx trx = {0};
    if (PyTuple_GET_SIZE(args[3]) == CTX_SIZE_MYSQL) {
        f.mysql = (int)PyLong_AsLong(f.ctx[CTX_FLAVOR]);     /* 1: 8.0's text, 2: 9.7's */
        f.fixed_pos = PyObject_IsTrue(f.ctx[CTX_FIXED_POS]);
        if (!f.mysql && f.ctx[CTX_FLASHBACK] != Py_None) {
            if (!PyTuple_Check(f.ctx[CTX_FLASHBACK]) || PyTuple_GET_SIZE(f.ctx[CTX_FLASHBACK]) != 2) {
                PyErr_SetString(PyExc_TypeError, "print_row_statements(): bad flashback context");
                return NULL;
            }
            f.flashback = 1;
        }
        if (f.ctx[CTX_TRX_STATE] != Py_None) {
            trx_list = f.ctx[CTX_TRX_STATE];
            if (!PyList_Check(trx_list)
                || PyList_GET_SIZE(trx_list) != (f.mysql ? TRX_ITEMS_MYSQL : TRX_ITEMS_MARIADB)
                || !PyDict_Check(f.ctx[CTX_QUERIES])
                || (f.mysql && !PyDict_Check(f.ctx[CTX_COMMIT_TIMES]))) {
                PyErr_SetString(PyExc_TypeError, "print_row_statements(): bad transaction context");
                return NULL;
            }
            f.trx = 1;
            trx.seen_gtid = PyObject_IsTrue(PyList_GET_ITEM(trx_list, 0));
            trx.in_transaction = PyObject_IsTrue(PyList_GET_ITEM(trx_list, 1));
            trx.immediate_server_version = PyLong_AsLongLong(PyList_GET_ITEM(trx_list, 2));
            trx.thread_id = PyLong_AsLongLong(PyList_GET_ITEM(trx_list, 3));
            if (!f.mysql) {
                trx.gtid_flags2 = (int)PyLong_AsLong(PyList_GET_ITEM(trx_list, 4));
                trx.skip_replication = (int)PyLong_AsLong(PyList_GET_ITEM(trx_list, 5));
                trx.allow_parallel = (int)PyLong_AsLong(PyList_GET_ITEM(trx_list, 6));
                trx.domain_id = PyLong_AsLongLong(PyList_GET_ITEM(trx_list, 7));
                trx.server_id = PyLong_AsLongLong(PyList_GET_ITEM(trx_list, 8));
            }
        }
    }
    Py_ssize_t rel = PyLong_AsSsize_t(args[1]);
    long long pos = PyLong_AsLongLong(args[2]);
    if (PyErr_Occurred())
        return NULL;
    f.at = pos;

    Held held;
    if (f.flashback) {
        if (bk_held_open(&held, PyTuple_GET_ITEM(f.ctx[CTX_FLASHBACK], 0)) < 0)
            return NULL;
        f.held = &held;
    }
    Py_buffer data;             /* bytes, or a read-only mapping of the file (binlog/reader.py) */
    if (PyObject_GetBuffer(args[0], &data, PyBUF_SIMPLE) < 0) {
        if (f.held)
            bk_held_close(f.held);
        return NULL;
    }
    Buf out = {0};
    out.as_bytes = 1;
    /* room for the usual text (base64: 4/3 of the events, plus the header lines) at once,
     * or with a sink, for what it is handed at a time */
    Py_ssize_t avail = data.len - rel;
    Py_ssize_t room = (f.verbose ? 8 : 2) * avail + 4096;
    if (f.sink != NULL && room > f.sink_at + (f.sink_at >> 2) + 4096)
        room = f.sink_at + (f.sink_at >> 2) + 4096;
    if (avail > 0 && bk_buf_reserve(&out, room) < 0) {
        PyBuffer_Release(&data);
        if (f.held)
            bk_held_close(f.held);
        return NULL;
    }
    Mark m;
    int failed = bk_statements(&f, (const unsigned char *)data.buf, data.len, rel, pos, &out,
                               &trx, &m) < 0;
    PyBuffer_Release(&data);
    if (f.held)
        bk_held_close(f.held);
    if (!failed && trx_list && m.events) {
        PyObject *items[TRX_ITEMS_MARIADB] = {PyBool_FromLong(m.trx.seen_gtid),
                              PyBool_FromLong(m.trx.in_transaction),
                              PyLong_FromLongLong(m.trx.immediate_server_version),
                              PyLong_FromLongLong(m.trx.thread_id),
                              PyLong_FromLong(m.trx.gtid_flags2)};
        int n = f.mysql ? TRX_ITEMS_MYSQL : 5;     /* MariaDB: only gtid_ev_flags2 changes */
        for (int i = 0; i < n; i++)
            if (items[i] == NULL || PyList_SetItem(trx_list, i, items[i]) < 0)
                failed = 1;
        for (int i = n; i < 5; i++)
            Py_XDECREF(items[i]);
    }
    PyObject *result = NULL, *text = failed ? NULL : bk_buf_take_bytes(&out, m.len);
    if (text != NULL)
        result = Py_BuildValue("(nLN)", m.events, m.pos, text);
    bk_buf_free(&out);
    return result;
}
