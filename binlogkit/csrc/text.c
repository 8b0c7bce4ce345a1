/*
 * binlogkit._speedups, part 4: the -v / -vv text of row images, over the
 * column programs of csrc/image.c (which reads the values).
 *
 *   rows_text(plan, data) -> (text, rows), or None when not handled
 *
 * plan (printer/mariadb/rows_fast.py c_text_plan) is (head, clause2, image,
 * image_ai[, flavor]): the "### INSERT INTO `db`.`t`" line with its first
 * clause, the UPDATE's "### SET" (else None), per image its column program with
 * the texts around each value, and 1 for mysqlbinlog's text (plans of
 * printer/mysql/fast.py c_text_plan; put_value_text says where it differs).  The text is mariadb/values.format_value's
 * (the reference; rows_verbose._print_compiled is the compiled Python twin).
 * MySQL plans may have JSON columns (OP_JSON, text from csrc/json.c) and, for a
 * PARTIAL_UPDATE_ROWS event, an after image with its binlog_row_value_options and
 * partial-update bits (the program's fifth item; verbose._generic_one_row).
 */
#include "speedups.h"

/* ---- -v / -vv text (mariadb/values.format_value) ----------------------------------- */

static const unsigned long long FRAC_DIV[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
#define PARTIAL_JSON_UPDATES 1      /* binlog_row_value_options */

static inline char *
put_frac(char *o, unsigned long long usec, int fsp)
{
    if (!fsp)
        return o;
    *o++ = '.';
    return put_pad(o, usec / FRAC_DIV[fsp], fsp);
}

static inline char *
put_2(char *o, unsigned long long v, char sep)
{
    o = put_pad(o, v, 2);
    if (sep)
        *o++ = sep;
    return o;
}

/* MySQL's my_b_write_quoted (get_quote_table): these by name, other bytes < 0x20 as \xNN */
static char
mysql_escape(unsigned char c)
{
    switch (c) {
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    case '\\': return '\\';
    case '\'': return '\'';
    }
    return 0;
}

/* log_event_print_value's text for one value: 1, 0 when not handled, -1 error.
 * mysql: mysqlbinlog 8.0's text (printer/mysql/verbose.py) where it differs:
 * its quote table, an unquoted old DATETIME; an old TIME below zero, a DATE
 * past the year 9999 and a NaN are left to Python. */
static int
put_value_text(Buf *b, const Op *op, const Value *v, int mysql)
{
    static const char hex[] = "0123456789abcdef";
    if (op->op == OP_STRING) {              /* my_b_write_quoted: bytes < 0x20 as \xNN */
        if (bk_buf_reserve(b, 4 * v->n + 2) < 0)
            return -1;
        char *o = b->p + b->len;
        *o++ = '\'';
        for (Py_ssize_t i = 0; i < v->n; i++) {
            unsigned char c = v->s[i];
            char named = mysql && (c < 0x20 || c == '\\' || c == '\'') ? mysql_escape(c) : 0;
            if (named) {
                *o++ = '\\';
                *o++ = named;
            } else if (c >= 0x20) {
                *o++ = (char)c;
            } else {
                *o++ = '\\';
                *o++ = 'x';
                *o++ = hex[c >> 4];
                *o++ = hex[c & 15];
            }
        }
        *o++ = '\'';
        b->len = o - b->p;
        return 1;
    }
    if (bk_buf_reserve(b, 160) < 0)
        return -1;
    char *o = b->p + b->len;
    const unsigned long long *pt = v->part;
    switch (op->op) {
    case OP_INT:
        if (v->i < 0) {
            *o++ = '-';
            o = put_u64(o, 0 - (unsigned long long)v->i);
            o = PUT_LIT(o, " (");
            o = put_u64(o, v->u);
            *o++ = ')';
        } else {
            o = put_u64(o, (unsigned long long)v->i);
        }
        break;
    case OP_FLOAT:
        if (mysql && v->f != v->f)
            return 0;
        o += snprintf(o, 120, "%-20g", v->f);
        break;
    case OP_DOUBLE:
        if (mysql && v->f != v->f)
            return 0;
        o += snprintf(o, 120, "%-.20g", v->f);
        break;
    case OP_DECIMAL:
        o = put_str(o, v->text, v->tlen);
        break;
    case OP_YEAR:
        o = put_u64(o, 1900 + v->u);
        break;
    case OP_ENUM:
        o = put_u64(o, v->u);
        break;
    case OP_SET: case OP_BIT: {             /* SET: the stored bytes in order, high bit first */
        int nbits = op->op == OP_SET ? 8 * op->size : op->a;
        o = PUT_LIT(o, "b'");
        for (int i = nbits - 1; i >= 0; i--)
            *o++ = (char)('0' + ((v->bits >> i) & 1));
        *o++ = '\'';
        break;
    }
    case OP_DATE:
        if ((op->flag || mysql) && pt[0] > 9999)   /* the NEWDATE case's odd thousands digit */
            return 0;
        *o++ = '\'';
        o = put_pad(o, pt[0], 4);
        *o++ = ':';
        o = put_2(o, pt[1], ':');
        o = put_2(o, pt[2], '\'');
        break;
    case OP_TIME: case OP_TIME2:
        if (mysql && op->op == OP_TIME && v->neg)  /* mysqlbinlog reads it unsigned */
            return 0;
        *o++ = '\'';
        if (v->neg)
            *o++ = '-';
        o = put_2(o, pt[3], ':');
        o = put_2(o, pt[4], ':');
        o = put_2(o, pt[5], 0);
        o = put_frac(o, pt[6], op->op == OP_TIME2 ? op->a : 0);
        *o++ = '\'';
        break;
    case OP_DATETIME: case OP_DATETIME2: {
        int quoted = !(mysql && op->op == OP_DATETIME);
        if (quoted)
            *o++ = '\'';
        o = put_pad(o, pt[0], 4);
        *o++ = '-';
        o = put_2(o, pt[1], '-');
        o = put_2(o, pt[2], ' ');
        o = put_2(o, pt[3], ':');
        o = put_2(o, pt[4], ':');
        o = put_2(o, pt[5], 0);
        o = put_frac(o, pt[6], op->op == OP_DATETIME2 ? op->a : 0);
        if (quoted)
            *o++ = '\'';
        break;
    }
    case OP_TIMESTAMP:                      /* printed as a signed 32-bit number */
        if (v->u >= 0x80000000ULL) {
            *o++ = '-';
            o = put_u64(o, 0x100000000ULL - v->u);
        } else {
            o = put_u64(o, v->u);
        }
        break;
    case OP_TIMESTAMP2:
        o = put_u64(o, v->u);
        o = put_frac(o, pt[6], op->a);
        break;
    default:
        return 0;
    }
    b->len = o - b->p;
    return 1;
}

#define TEXT(im, k, i) PyTuple_GET_ITEM((im)->texts, 3 * (k) + (i))
#define PUT_BYTES(b, obj) buf_put(b, PyBytes_AS_STRING(obj), PyBytes_GET_SIZE(obj))

/* One image's lines: 1, 0 when not handled, -1 error; *pos moves past it. */
static int
image_text(Buf *out, const Image *im, const unsigned char *d, Py_ssize_t *pos, Py_ssize_t end,
           int mysql)
{
    Py_ssize_t p = *pos;
    const unsigned char *partial = NULL;    /* the partial-update bits of the JSON columns */
    if (im->partial_json >= 0) {            /* verbose._generic_one_row's partial_ai */
        unsigned long long options;
        if (!bk_packed_length(d, &p, end, &options))
            return 0;   /* "*** Error reading binlog_row_value_options": Python's */
        if (options & PARTIAL_JSON_UPDATES) {
            if ((im->partial_json + 7) / 8 > end - p)
                return 0;
            partial = d + p;
            p += (im->partial_json + 7) / 8;
        }
    }
    if (im->null_bytes > end - p)
        return 0;
    const unsigned char *nulls = d + p;
    p += im->null_bytes;
    for (Py_ssize_t k = 0; k < im->nops; k++) {
        if ((nulls[k >> 3] >> (k & 7)) & 1) {
            if (PUT_BYTES(out, TEXT(im, k, 2)) < 0)
                return -1;
            continue;
        }
        Op op;
        Value v;
        op_at(im->ops + OP_SIZE * k, &op);
        Py_ssize_t size = bk_read_value(&op, d, p, end, &v);
        if (size == 0)
            return 0;
        p += size;
        if (PUT_BYTES(out, TEXT(im, k, 0)) < 0)
            return -1;
        int rc;
        if (op.op != OP_JSON)
            rc = put_value_text(out, &op, &v, mysql);
        else if (partial != NULL && (partial[op.b >> 3] >> (op.b & 7)) & 1)
            rc = bk_json_diff(out, v.s, v.n, op.index + 1);
        else
            rc = bk_json_column(out, v.s, v.n);
        if (rc <= 0)
            return rc;
        if (PUT_BYTES(out, TEXT(im, k, 1)) < 0)
            return -1;
    }
    *pos = p;
    return 1;
}

/* The -v text of a rows event's images (plan: rows_fast.c_text_plan) appended
 * to out; *rows: the rows printed.  1 done, 0 not handled (out unchanged),
 * -1 error. */
int
bk_rows_text(Buf *out, PyObject *plan, const unsigned char *d, Py_ssize_t end, Py_ssize_t *rows)
{
    if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) < 4 || PyTuple_GET_SIZE(plan) > 5
        || !PyBytes_Check(PyTuple_GET_ITEM(plan, 0))) {
        PyErr_SetString(PyExc_TypeError, "text plan must be (head, clause2, image, image2[, flavor])");
        return -1;
    }
    int mysql = PyTuple_GET_SIZE(plan) == 5 && PyLong_AsLong(PyTuple_GET_ITEM(plan, 4)) == 1;
    if (PyErr_Occurred())
        return -1;
    PyObject *head = PyTuple_GET_ITEM(plan, 0), *clause2 = PyTuple_GET_ITEM(plan, 1);
    int update = PyTuple_GET_ITEM(plan, 3) != Py_None;
    Image im[2];
    if (bk_image_parse(PyTuple_GET_ITEM(plan, 2), &im[0], 1) < 0
        || (update && (bk_image_parse(PyTuple_GET_ITEM(plan, 3), &im[1], 1) < 0)))
        return -1;
    if (update && !PyBytes_Check(clause2)) {
        PyErr_SetString(PyExc_TypeError, "text plan: clause2 must be bytes");
        return -1;
    }
    Py_ssize_t start = out->len, pos = 0, n = 0;
    int rc = end > 0;
    while (rc > 0 && pos < end) {
        Py_ssize_t row_start = pos;
        n++;
        if (PUT_BYTES(out, head) < 0)
            return -1;
        rc = image_text(out, &im[0], d, &pos, end, mysql);
        if (rc > 0 && update) {
            if (PUT_BYTES(out, clause2) < 0)
                return -1;
            rc = image_text(out, &im[1], d, &pos, end, mysql);
        }
        if (rc > 0 && pos <= row_start)
            rc = 0;     /* a row of no bytes: the Python printer says what the real tool does */
    }
    if (rc <= 0) {
        out->len = start;
        return rc;
    }
    *rows = n;
    return 1;
}

/* rows_text(plan, data) -> (text, rows), or None when not handled */
PyObject *
bk_rows_text_py(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "rows_text(plan, data)");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Buf out = {0};
    out.as_bytes = 1;
    Py_ssize_t rows = 0;
    PyObject *result = NULL;
    int rc = bk_rows_text(&out, args[0], view.buf, view.len, &rows);
    PyBuffer_Release(&view);
    if (rc == 0) {
        result = Py_None;
        Py_INCREF(result);
    } else if (rc > 0) {
        PyObject *text = bk_buf_take_bytes(&out, out.len);
        if (text != NULL)
            result = Py_BuildValue("(Nn)", text, rows);
    }
    bk_buf_free(&out);
    return result;
}

