/*
 * binlogkit._speedups, part 3: row images walked over compiled column programs:
 * reading values, and the Python values (the -v text: csrc/text.c).
 *
 * A column program (binlog/rowcompile.py c_program, built from the same
 * ColumnSpecs as the compiled Python code, so it covers exactly the columns
 * that code covers) is a tuple (null_bytes, ncols, ops[, texts]) for one
 * image layout: `ops` holds one OP_SIZE-byte record per column present in
 * the image -- op, flag, column index, size, a, b (u8, u8, then little-endian
 * u16s) -- and `texts`, for the -v text, three bytes per column: the
 * "###   @N=" prefix, the rest of the line after a value (the -vv comment and
 * the newline) and the whole NULL text.  One value reader feeds two emitters:
 *
 *   rows_text(plan, data) -> (text, rows), or None     (csrc/text.c)
 *       the -v / -vv text of a rows event's images: printer/mariadb/rows_fast.py
 *       (c_text_plan builds the plan) and rows_verbose._print_compiled are
 *       its twins; print_row_statements uses it for whole statements.
 *   rows_values(program, program_ai, kind, data, pos, types) -> (pairs, pos)
 *       rowvalues.iter_rows' (before, after) pairs from data[pos:], as many
 *       rows as it handles; `pos` is where the first row it left starts.
 *
 * Like the compiled Python code they handle well-formed images only: at
 * anything unusual (a value past the end, a DECIMAL digit group out of
 * range, a negative DATETIME2, a NEWDATE year past 9999 in text...) they
 * stop, and the Python code, whose reference decoder knows every corner,
 * takes over.
 */
#include "speedups.h"

/* rows_values' types tuple, in this order (rowvalues.C_TYPES) */
enum { T_ABSENT, T_DECIMAL, T_BITS, T_DATE, T_DATETIME, T_TIME, T_TIMESTAMP, T_SIZE };

/* Unpack a program tuple; -1 with an exception set when it is malformed. */
int
bk_image_parse(PyObject *program, Image *im, int with_texts)
{
    if (!PyTuple_Check(program) || PyTuple_GET_SIZE(program) < 3 + with_texts
        || PyTuple_GET_SIZE(program) > 3 + 2 * with_texts
        || !PyBytes_Check(PyTuple_GET_ITEM(program, 2))) {
        PyErr_SetString(PyExc_TypeError,
                        "column program must be (null_bytes, ncols, ops[, texts[, partial_json]])");
        return -1;
    }
    im->null_bytes = PyLong_AsSsize_t(PyTuple_GET_ITEM(program, 0));
    im->ncols = PyLong_AsSsize_t(PyTuple_GET_ITEM(program, 1));
    if (PyErr_Occurred())
        return -1;
    PyObject *ops = PyTuple_GET_ITEM(program, 2);
    im->ops = (const unsigned char *)PyBytes_AS_STRING(ops);
    im->nops = PyBytes_GET_SIZE(ops) / OP_SIZE;
    im->texts = NULL;
    im->partial_json = -1;
    if (PyTuple_GET_SIZE(program) == 5) {
        im->partial_json = PyLong_AsSsize_t(PyTuple_GET_ITEM(program, 4));
        if (im->partial_json < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "bad column program: partial_json < 0");
            return -1;
        }
    }
    if (im->null_bytes < 0 || im->ncols < 0 || 8 * im->null_bytes < im->nops) {
        PyErr_SetString(PyExc_ValueError, "bad column program: null bitmap too short");
        return -1;
    }
    if (with_texts) {
        im->texts = PyTuple_GET_ITEM(program, 3);
        if (!PyTuple_Check(im->texts) || PyTuple_GET_SIZE(im->texts) != 3 * im->nops) {
            PyErr_SetString(PyExc_TypeError, "column program texts must be 3 bytes per column");
            return -1;
        }
        for (Py_ssize_t i = 0; i < 3 * im->nops; i++)
            if (!PyBytes_Check(PyTuple_GET_ITEM(im->texts, i))) {
                PyErr_SetString(PyExc_TypeError, "column program texts must be bytes");
                return -1;
            }
    }
    for (Py_ssize_t k = 0; k < im->nops; k++) {
        Op op;
        op_at(im->ops + OP_SIZE * k, &op);
        if (op.op < OP_INT || op.op > OP_LAST || op.index >= im->ncols || op.size > 64
            || (op.op == OP_STRING && (op.a < 1 || op.a > 4))
            || (op.op == OP_JSON && (!with_texts || op.a != 4 || op.size != 0
                                     || (im->partial_json >= 0 && op.b >= im->partial_json)))
            || ((op.op == OP_TIME2 || op.op == OP_DATETIME2 || op.op == OP_TIMESTAMP2) && op.a > 6)
            || (op.op != OP_STRING && op.op != OP_JSON && op.size < 1) || (op.op == OP_BIT && op.a > 64)
            || ((op.op == OP_INT || op.op == OP_SET || op.op == OP_BIT) && op.size > 8)
            || (op.op == OP_DECIMAL && (op.a > 65 || op.b > 30 || op.b > op.a || op.size > 32))) {
            PyErr_SetString(PyExc_ValueError, "bad column program");
            return -1;
        }
    }
    return 0;
}

/* ---- reading one value --------------------------------------------------------- */

static const unsigned long long FRAC_SCALE[4] = {1, 10000, 100, 1};   /* by fraction bytes */

/* decimal2string() of a packed DECIMAL(precision, scale) (rowcompile.decimal_text_code):
 * no leading zeros, exactly `scale` fraction digits, no sign on zero.  0 when a
 * digit group is out of range (never written by a server) or precision > 65.
 * (Also csrc/json.c's, for DECIMALs in JSON.) */
int
bk_decimal_text(const unsigned char *x, int size, int precision, int scale, Value *v)
{
    static const int dig2bytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
    static const unsigned long long pow10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000,
                                                 10000000, 100000000, 1000000000};
    unsigned char mag[64];
    if (size > 64 || size < 1 || precision > 65 || scale > precision)
        return 0;
    unsigned char mask = (x[0] & 0x80) ? 0 : 0xFF;
    int nonzero = 0;
    for (int i = 0; i < size; i++) {
        mag[i] = x[i] ^ mask;
        nonzero |= (i ? mag[i] : mag[i] ^ 0x80);
    }
    mag[0] ^= 0x80;
    int intg = precision - scale;
    /* groups, most significant first: (bytes, digits, is_int) */
    int nbytes[16], ndigits[16], isint[16], ng = 0;
    if (dig2bytes[intg % 9]) {
        nbytes[ng] = dig2bytes[intg % 9]; ndigits[ng] = intg % 9; isint[ng++] = 1;
    }
    for (int i = 0; i < intg / 9; i++) {
        nbytes[ng] = 4; ndigits[ng] = 9; isint[ng++] = 1;
    }
    for (int i = 0; i < scale / 9; i++) {
        nbytes[ng] = 4; ndigits[ng] = 9; isint[ng++] = 0;
    }
    if (dig2bytes[scale % 9]) {
        nbytes[ng] = dig2bytes[scale % 9]; ndigits[ng] = scale % 9; isint[ng++] = 0;
    }
    int total = 0;
    for (int g = 0; g < ng; g++)
        total += nbytes[g];
    if (total != size)
        return 0;
    char *o = v->text;
    if (mask && nonzero)
        *o++ = '-';
    int at = 0, leading = 1, dot = 0;
    for (int g = 0; g < ng; g++) {
        unsigned long long d = get_be(mag + at, nbytes[g]);
        at += nbytes[g];
        if (d >= pow10[ndigits[g]])
            return 0;
        if (isint[g]) {
            if (leading && d == 0)
                continue;
            o = leading ? put_u64(o, d) : put_pad(o, d, ndigits[g]);
            leading = 0;
            continue;
        }
        if (!dot) {
            if (leading)
                *o++ = '0';
            *o++ = '.';
            dot = leading = 1;
        }
        o = put_pad(o, d, ndigits[g]);
    }
    if (leading && !dot)
        *o++ = '0';
    v->tlen = (int)(o - v->text);
    return 1;
}

/* Read the non-NULL value at d[p]: its size, or 0 when it is not handled here. */
Py_ssize_t
bk_read_value(const Op *op, const unsigned char *d, Py_ssize_t p, Py_ssize_t end, Value *v)
{
    if (op->op == OP_STRING || op->op == OP_JSON) {      /* JSON: 4-byte length, document */
        int k = op->a;
        if (k > end - p)
            return 0;
        unsigned long long n = get_le(d + p, k);
        if (n > (unsigned long long)(end - p - k))
            return 0;
        v->s = d + p + k;
        v->n = (Py_ssize_t)n;
        return k + (Py_ssize_t)n;
    }
    int size = op->size;
    if (size > end - p)
        return 0;
    const unsigned char *x = d + p;
    unsigned long long u;
    long long s;
    int nfrac = (op->a + 1) / 2;
    switch (op->op) {
    case OP_INT:
        u = get_le(x, size);
        if (size < 8 && (u >> (8 * size - 1)) & 1)
            u |= ~0ULL << (8 * size);          /* sign-extend */
        v->i = (long long)u;
        v->u = size < 8 ? u & ((1ULL << (8 * size)) - 1) : u;
        break;
    case OP_FLOAT: {
        uint32_t w = (uint32_t)get_le(x, 4);
        float fl;
        memcpy(&fl, &w, 4);
        v->f = fl;
        break;
    }
    case OP_DOUBLE: {
        unsigned long long w = get_le(x, 8);
        memcpy(&v->f, &w, 8);
        break;
    }
    case OP_DECIMAL:
        if (!bk_decimal_text(x, size, op->a, op->b, v))
            return 0;
        break;
    case OP_YEAR: case OP_ENUM: case OP_SET: case OP_TIMESTAMP:
        v->u = get_le(x, size);
        v->bits = get_be(x, size);
        break;
    case OP_BIT:
        v->u = v->bits = get_be(x, size);
        break;
    case OP_DATE:
        u = get_le(x, 3);
        v->part[0] = u >> 9;
        v->part[1] = (u >> 5) & 15;
        v->part[2] = u & 31;
        break;
    case OP_TIME:
        s = (long long)get_le(x, 3);
        if (s & 0x800000)
            s -= 0x1000000;
        v->neg = s < 0;
        u = (unsigned long long)(s < 0 ? -s : s);
        v->part[3] = u / 10000;
        v->part[4] = u % 10000 / 100;
        v->part[5] = u % 100;
        v->part[6] = 0;
        break;
    case OP_DATETIME: {
        u = get_le(x, 8);
        unsigned long long dd = u / 1000000, t = u % 1000000;
        v->part[0] = dd / 10000;
        v->part[1] = dd % 10000 / 100;
        v->part[2] = dd % 100;
        v->part[3] = t / 10000;
        v->part[4] = t % 10000 / 100;
        v->part[5] = t % 100;
        v->part[6] = 0;
        break;
    }
    case OP_DATETIME2: {             /* rowcompile.temporal2_code */
        s = (long long)get_be(x, 5) - 0x8000000000LL;
        u = get_be(x + 5, nfrac);
        if (s < 0 || (nfrac && (u >> (8 * nfrac - 1)) & 1))
            return 0;
        unsigned long long ymd = (unsigned long long)s >> 17, hms = s & 0x1FFFF;
        v->part[0] = (ymd >> 5) / 13;
        v->part[1] = (ymd >> 5) % 13;
        v->part[2] = ymd & 31;
        v->part[3] = hms >> 12;
        v->part[4] = (hms >> 6) & 63;
        v->part[5] = hms & 63;
        v->part[6] = u * FRAC_SCALE[nfrac];
        break;
    }
    case OP_TIMESTAMP2:
        v->u = get_be(x, 4);
        u = get_be(x + 4, nfrac);
        if (nfrac > 1 && (u >> (8 * nfrac - 1)) & 1)
            return 0;
        v->part[6] = u * FRAC_SCALE[nfrac];
        break;
    case OP_TIME2: {                 /* rowimage._time2 */
        long long packed;
        if (nfrac == 3) {
            packed = (long long)get_be(x, 6) - 0x800000000000LL;
        } else {
            long long intpart = (long long)get_be(x, 3) - 0x800000, frac = 0;
            if (nfrac == 1) {
                frac = x[3];
                if (intpart < 0 && frac) {
                    intpart += 1;
                    frac -= 0x100;
                }
                frac *= 10000;
            } else if (nfrac == 2) {
                frac = (long long)get_be(x + 3, 2);
                if (intpart < 0 && frac) {
                    intpart += 1;
                    frac -= 0x10000;
                }
                frac *= 100;
            }
            packed = intpart * (1LL << 24) + frac;
        }
        v->neg = packed < 0;
        u = (unsigned long long)(packed < 0 ? -packed : packed);
        unsigned long long hms = u >> 24;
        v->part[3] = (hms >> 12) % 1024;
        v->part[4] = (hms >> 6) % 64;
        v->part[5] = hms % 64;
        v->part[6] = u % (1ULL << 24);
        break;
    }
    default:
        return 0;
    }
    return size;
}

/* ---- Python values (rowvalues.decode_value) ------------------------------------- */

/* An instance of a tuple subclass (the value namedtuples) holding items,
 * whose references it takes -- as tuple.__new__(type, items) does. */
static PyObject *
new_record(PyObject *type, int n, PyObject **items)
{
    PyTypeObject *t = (PyTypeObject *)type;
    PyObject *r = t->tp_alloc(t, n);
    int failed = r == NULL;
    for (int i = 0; i < n; i++) {
        if (items[i] == NULL)
            failed = 1;
        if (r != NULL)
            PyTuple_SET_ITEM(r, i, items[i]);
        else
            Py_XDECREF(items[i]);
    }
    if (failed) {
        Py_XDECREF(r);
        return NULL;
    }
    return r;
}

#define U(x) PyLong_FromUnsignedLongLong(x)

static PyObject *
make_value(const Op *op, const Value *v, PyObject **types)
{
    const unsigned long long *pt = v->part;
    PyObject *items[8];
    switch (op->op) {
    case OP_INT:
        return PyLong_FromLongLong(v->i);
    case OP_FLOAT: case OP_DOUBLE:
        return PyFloat_FromDouble(v->f);
    case OP_DECIMAL: {
        PyObject *text = PyUnicode_FromStringAndSize(v->text, v->tlen);
        if (text == NULL)
            return NULL;
        PyObject *r = PyObject_CallOneArg(types[T_DECIMAL], text);
        Py_DECREF(text);
        return r;
    }
    case OP_YEAR:
        return U(v->u ? 1900 + v->u : 0);
    case OP_ENUM: case OP_SET:
        return U(v->u);
    case OP_TIMESTAMP:
        items[0] = U(v->u), items[1] = U(0), items[2] = U(0);
        return new_record(types[T_TIMESTAMP], 3, items);
    case OP_BIT:
        items[0] = U(v->u), items[1] = U(op->a);
        return new_record(types[T_BITS], 2, items);
    case OP_DATE:
        items[0] = U(pt[0]), items[1] = U(pt[1]), items[2] = U(pt[2]);
        return new_record(types[T_DATE], 3, items);
    case OP_TIME: case OP_TIME2:
        items[0] = PyBool_FromLong(v->neg);
        for (int i = 1; i < 5; i++)
            items[i] = U(pt[i + 2]);
        items[5] = U(op->op == OP_TIME2 ? op->a : 0);
        return new_record(types[T_TIME], 6, items);
    case OP_DATETIME: case OP_DATETIME2:
        for (int i = 0; i < 7; i++)
            items[i] = U(pt[i]);
        items[7] = U(op->op == OP_DATETIME2 ? op->a : 0);
        return new_record(types[T_DATETIME], 8, items);
    case OP_TIMESTAMP2:
        items[0] = U(v->u), items[1] = U(pt[6]), items[2] = U(op->a);
        return new_record(types[T_TIMESTAMP], 3, items);
    case OP_STRING:
        return PyBytes_FromStringAndSize((const char *)v->s, v->n);
    }
    PyErr_SetString(PyExc_ValueError, "bad column op");
    return NULL;
}

/* One image as a list of ncols values (ABSENT, None or a value); NULL with
 * *failed = 0 when not handled, NULL with *failed = 1 on error. */
static PyObject *
image_values(const Image *im, PyObject **types, const unsigned char *d, Py_ssize_t *pos,
             Py_ssize_t end, int *failed)
{
    Py_ssize_t p = *pos;
    *failed = 0;
    if (im->null_bytes > end - p)
        return NULL;
    const unsigned char *nulls = d + p;
    p += im->null_bytes;
    PyObject *list = PyList_New(im->ncols);
    if (list == NULL) {
        *failed = 1;
        return NULL;
    }
    for (Py_ssize_t i = 0; i < im->ncols; i++) {
        Py_INCREF(types[T_ABSENT]);
        PyList_SET_ITEM(list, i, types[T_ABSENT]);
    }
    for (Py_ssize_t k = 0; k < im->nops; k++) {
        Op op;
        Value v;
        op_at(im->ops + OP_SIZE * k, &op);
        PyObject *value;
        if ((nulls[k >> 3] >> (k & 7)) & 1) {
            value = Py_None;
            Py_INCREF(value);
        } else {
            Py_ssize_t size = op.op == OP_JSON ? 0 : bk_read_value(&op, d, p, end, &v);
            if (size == 0) {
                Py_DECREF(list);
                return NULL;
            }
            p += size;
            value = make_value(&op, &v, types);
            if (value == NULL) {
                *failed = 1;
                Py_DECREF(list);
                return NULL;
            }
        }
        PyObject *old = PyList_GET_ITEM(list, op.index);
        PyList_SET_ITEM(list, op.index, value);
        Py_DECREF(old);
    }
    *pos = p;
    return list;
}

/* rows_values(program, program_ai, kind, data, pos, types) -> (pairs, pos):
 * kind 0 write -> (None, after), 1 update -> (before, after), 2 delete ->
 * (before, None); program_ai is used (and needed) for updates only. */
PyObject *
bk_rows_values(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyTuple_Check(args[5]) || PyTuple_GET_SIZE(args[5]) != T_SIZE) {
        PyErr_SetString(PyExc_TypeError,
                        "rows_values(program, program_ai, kind, data, pos, types)");
        return NULL;
    }
    PyObject **types = &PyTuple_GET_ITEM(args[5], 0);
    for (int i = T_BITS; i < T_SIZE; i++)
        if (!PyType_Check(types[i]) || !PyType_IsSubtype((PyTypeObject *)types[i], &PyTuple_Type)) {
            PyErr_SetString(PyExc_TypeError, "rows_values(): value types must be tuple subclasses");
            return NULL;
        }
    long kind = PyLong_AsLong(args[2]);
    Py_ssize_t pos = PyLong_AsSsize_t(args[4]);
    if (PyErr_Occurred())
        return NULL;
    if (kind < 0 || kind > 2) {
        PyErr_SetString(PyExc_ValueError, "rows_values(): kind must be 0, 1 or 2");
        return NULL;
    }
    Image im[2];
    if (bk_image_parse(args[0], &im[0], 0) < 0 || (kind == 1 && bk_image_parse(args[1], &im[1], 0) < 0))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(args[3], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *d = view.buf;
    Py_ssize_t end = view.len;
    PyObject *pairs = PyList_New(0);
    int failed = pairs == NULL;
    while (!failed && pos >= 0 && pos < end) {
        Py_ssize_t p = pos;
        PyObject *first = image_values(&im[0], types, d, &p, end, &failed), *second = NULL;
        if (first == NULL)
            break;
        if (kind == 1) {
            second = image_values(&im[1], types, d, &p, end, &failed);
            if (second == NULL) {
                Py_DECREF(first);
                break;
            }
        }
        if (p <= pos) {         /* an image of no bytes: the caller reports it */
            Py_DECREF(first);
            Py_XDECREF(second);
            break;
        }
        PyObject *pair = kind == 0 ? PyTuple_Pack(2, Py_None, first)
                         : kind == 1 ? PyTuple_Pack(2, first, second)
                         : PyTuple_Pack(2, first, Py_None);
        Py_DECREF(first);
        Py_XDECREF(second);
        if (pair == NULL || PyList_Append(pairs, pair) < 0)
            failed = 1;
        Py_XDECREF(pair);
        pos = p;
    }
    PyBuffer_Release(&view);
    if (failed) {
        Py_XDECREF(pairs);
        return NULL;
    }
    return Py_BuildValue("(Nn)", pairs, pos);
}
