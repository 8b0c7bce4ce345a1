/*
 * binlogkit._speedups: optional C versions of a few hot inner loops.
 *
 * The pure-Python code is the reference (named next to each function) and
 * the fallback; binlogkit/_accel.py loads this module unless BINLOGKIT_PURE=1.
 * tests/test_speedups.py compares each function with its Python twin.
 * Everything here works on bytes-like buffers and returns new objects: no
 * I/O, and no state between calls besides what the caller passes in.
 *
 * More hot loops (e.g. -v row values over rows.py's compiled plans) can be
 * added as further sections of this module, with a Python twin each.
 *
 *   RawEvent, frame(buf, rel, pos, has_crc) binlog/reader.py RawEvent, _next_buffered
 *   base64_lines(data)                      printer/events.py base64_lines
 *   header(time_text, server_id, log_pos, checksum)
 *                                           printer/events.py print_header
 *   count_rows(steps, steps_ai, data)       binlog/rows.py count_rows_py
 *   print_row_statements(buf, rel, pos, ctx)
 *                                           printer/dump.py: process_event and the
 *                                           Annotate/Table_map/rows handlers, for
 *                                           whole row statements, default options
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

/* ---- RawEvent: one event as it sits in the file (binlog/reader.py) ------------ */

#define LOG_EVENT_HEADER_LEN 19
#define BINLOG_CHECKSUM_LEN 4
#define FORMAT_DESCRIPTION_EVENT 15

typedef struct {
    PyObject_HEAD
    long long pos;
    unsigned int when;
    unsigned char type_code;
    unsigned int server_id;
    unsigned int event_size;
    unsigned int log_pos;
    unsigned short flags;
    Py_ssize_t end;          /* length of the event without its CRC */
    PyObject *data;          /* the whole event as in the file, CRC included */
    PyObject *checksum;      /* stored CRC32 value, or None */
} RawEventObject;

static PyTypeObject RawEvent_Type;

static uint32_t
get_u32(const unsigned char *p)
{
    return p[0] | (p[1] << 8) | (p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* RawEvent(pos, header, data, end, checksum); header is the COMMON_HEADER tuple */
static int
RawEvent_init(RawEventObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"pos", "header", "data", "end", "checksum", NULL};
    PyObject *data, *checksum;
    long long pos;
    Py_ssize_t end;
    unsigned int when, server_id, event_size, log_pos;
    unsigned char type_code;
    unsigned short flags;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "L(IbIIIH)OnO", kwlist, &pos, &when, &type_code,
                                     &server_id, &event_size, &log_pos, &flags, &data, &end,
                                     &checksum))
        return -1;
    self->pos = pos;
    self->when = when;
    self->type_code = type_code;
    self->server_id = server_id;
    self->event_size = event_size;
    self->log_pos = log_pos;
    self->flags = flags;
    self->end = end;
    Py_INCREF(data);
    Py_XSETREF(self->data, data);
    Py_INCREF(checksum);
    Py_XSETREF(self->checksum, checksum);
    return 0;
}

static void
RawEvent_dealloc(RawEventObject *self)
{
    Py_XDECREF(self->data);
    Py_XDECREF(self->checksum);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* payload: the event without its trailing checksum, memoryview(data)[:end] */
static PyObject *
RawEvent_payload(RawEventObject *self, void *closure)
{
    PyObject *view = PyMemoryView_FromObject(self->data);
    if (view == NULL)
        return NULL;
    PyObject *result = PySequence_GetSlice(view, 0, self->end);
    Py_DECREF(view);
    return result;
}

static PyObject *
RawEvent_repr(RawEventObject *self)
{
    return PyUnicode_FromFormat("RawEvent(pos=%lld, type_code=%u, server_id=%u, event_size=%u, "
                                "log_pos=%u)", self->pos, (unsigned)self->type_code,
                                self->server_id, self->event_size, self->log_pos);
}

static PyMemberDef RawEvent_members[] = {
    {"pos", T_LONGLONG, offsetof(RawEventObject, pos), 0, NULL},
    {"when", T_UINT, offsetof(RawEventObject, when), 0, NULL},
    {"type_code", T_UBYTE, offsetof(RawEventObject, type_code), 0, NULL},
    {"server_id", T_UINT, offsetof(RawEventObject, server_id), 0, NULL},
    {"event_size", T_UINT, offsetof(RawEventObject, event_size), 0, NULL},
    {"log_pos", T_UINT, offsetof(RawEventObject, log_pos), 0, NULL},
    {"flags", T_USHORT, offsetof(RawEventObject, flags), 0, NULL},
    {"end", T_PYSSIZET, offsetof(RawEventObject, end), 0, NULL},
    {"data", T_OBJECT, offsetof(RawEventObject, data), 0, NULL},
    {"checksum", T_OBJECT, offsetof(RawEventObject, checksum), 0, NULL},
    {NULL},
};

static PyGetSetDef RawEvent_getset[] = {
    {"payload", (getter)RawEvent_payload, NULL, "The event without its trailing checksum.", NULL},
    {NULL},
};

static PyTypeObject RawEvent_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "binlogkit._speedups.RawEvent",
    .tp_doc = "One event as it sits in the file: header fields plus its bytes.",
    .tp_basicsize = sizeof(RawEventObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)RawEvent_init,
    .tp_dealloc = (destructor)RawEvent_dealloc,
    .tp_repr = (reprfunc)RawEvent_repr,
    .tp_members = RawEvent_members,
    .tp_getset = RawEvent_getset,
};

/* frame(buf, rel, pos, has_crc): the RawEvent at buf[rel:] (file offset pos)
 * when it is whole, not a format description, and long enough; else None
 * (the caller's slow path handles reading more, FDEs and errors). */
static PyObject *
frame(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "frame(buf: bytes, rel, pos, has_crc)");
        return NULL;
    }
    Py_ssize_t rel = PyLong_AsSsize_t(args[1]);
    long long pos = PyLong_AsLongLong(args[2]);
    int has_crc = PyObject_IsTrue(args[3]);
    if (PyErr_Occurred())
        return NULL;
    Py_ssize_t avail = PyBytes_GET_SIZE(args[0]) - rel;
    if (rel < 0 || avail < LOG_EVENT_HEADER_LEN)
        Py_RETURN_NONE;
    const unsigned char *h = (const unsigned char *)PyBytes_AS_STRING(args[0]) + rel;
    uint32_t size = get_u32(h + 9);
    Py_ssize_t min_size = LOG_EVENT_HEADER_LEN + (has_crc ? BINLOG_CHECKSUM_LEN : 0);
    if (h[4] == FORMAT_DESCRIPTION_EVENT || size > (uint64_t)avail || size < (uint64_t)min_size)
        Py_RETURN_NONE;
    RawEventObject *ev = PyObject_New(RawEventObject, &RawEvent_Type);
    if (ev == NULL)
        return NULL;
    ev->data = PyBytes_FromStringAndSize((const char *)h, size);
    ev->checksum = NULL;
    if (ev->data == NULL) {
        Py_DECREF(ev);
        return NULL;
    }
    ev->pos = pos;
    ev->when = get_u32(h);
    ev->type_code = h[4];
    ev->server_id = get_u32(h + 5);
    ev->event_size = size;
    ev->log_pos = get_u32(h + 13);
    ev->flags = h[17] | (h[18] << 8);
    if (has_crc) {
        ev->end = size - BINLOG_CHECKSUM_LEN;
        ev->checksum = PyLong_FromUnsignedLong(get_u32(h + ev->end));
        if (ev->checksum == NULL) {
            Py_DECREF(ev);
            return NULL;
        }
    } else {
        ev->end = size;
        Py_INCREF(Py_None);
        ev->checksum = Py_None;
    }
    return (PyObject *)ev;
}

/* ---- base64 in 76-column lines (MariaDB my_base64_encode) ------------------ */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#define B64_LINE 76            /* characters per output line */
#define B64_LINE_IN 57         /* input bytes per full line: 76 / 4 * 3 */

/* Two base64 characters for every 12-bit value: half the lookups. */
static char b64_pairs[4096][2];

static void
b64_init(void)
{
    for (int v = 0; v < 4096; v++) {
        b64_pairs[v][0] = b64_alphabet[v >> 6];
        b64_pairs[v][1] = b64_alphabet[v & 63];
    }
}

/* Encode n bytes (n <= 57) into out; returns the characters written. */
static Py_ssize_t
b64_encode_line(const unsigned char *in, Py_ssize_t n, char *out)
{
    char *o = out;
    Py_ssize_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = ((uint32_t)in[i] << 16) | ((uint32_t)in[i + 1] << 8) | in[i + 2];
        memcpy(o, b64_pairs[v >> 12], 2);
        memcpy(o + 2, b64_pairs[v & 0xFFF], 2);
        o += 4;
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        *o++ = b64_alphabet[(v >> 18) & 63];
        *o++ = b64_alphabet[(v >> 12) & 63];
        *o++ = '=';
        *o++ = '=';
    } else if (n - i == 2) {
        uint32_t v = ((uint32_t)in[i] << 16) | ((uint32_t)in[i + 1] << 8);
        *o++ = b64_alphabet[(v >> 18) & 63];
        *o++ = b64_alphabet[(v >> 12) & 63];
        *o++ = b64_alphabet[(v >> 6) & 63];
        *o++ = '=';
    }
    return o - out;
}

/* Size of base64_lines() output for n input bytes. */
static Py_ssize_t
b64_lines_size(Py_ssize_t n)
{
    Py_ssize_t chars = (n + 2) / 3 * 4;
    Py_ssize_t lines = chars ? (chars + B64_LINE - 1) / B64_LINE : 1;
    return chars + lines;
}

/* Write base64_lines(in) to out (b64_lines_size(n) bytes). */
static void
b64_lines_into(const unsigned char *in, Py_ssize_t n, char *out)
{
    if (n == 0) {
        *out = '\n';
        return;
    }
    for (Py_ssize_t i = 0; i < n; i += B64_LINE_IN) {
        Py_ssize_t chunk = n - i < B64_LINE_IN ? n - i : B64_LINE_IN;
        out += b64_encode_line(in + i, chunk, out);
        *out++ = '\n';
    }
}

static PyObject *
base64_lines(PyObject *self, PyObject *arg)
{
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *result = PyBytes_FromStringAndSize(NULL, b64_lines_size(view.len));
    if (result != NULL)
        b64_lines_into(view.buf, view.len, PyBytes_AS_STRING(result));
    PyBuffer_Release(&view);
    return result;
}

/* ---- the event header line (Log_event::print_header) ----------------------- */

static char *
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

static char *
put_str(char *out, const char *s, Py_ssize_t n)
{
    memcpy(out, s, n);
    return out + n;
}

#define PUT_LIT(out, lit) put_str(out, lit, sizeof(lit) - 1)

/* Log_event::print_header's text; out needs 80 + tlen bytes.  Returns the end. */
static char *
put_header(char *o, const char *time_text, Py_ssize_t tlen, unsigned long long server_id,
           unsigned long long log_pos, int has_crc, uint32_t crc)
{
    static const char hex[] = "0123456789abcdef";
    *o++ = '#';
    o = put_str(o, time_text, tlen);
    o = PUT_LIT(o, " server id ");
    o = put_u64(o, server_id);
    o = PUT_LIT(o, "  end_log_pos ");
    o = put_u64(o, log_pos);
    *o++ = ' ';
    if (has_crc) {
        o = PUT_LIT(o, "CRC32 0x");
        for (int i = 7; i >= 0; i--)
            *o++ = hex[(crc >> (4 * i)) & 15];
        *o++ = ' ';
    }
    return o;
}

/* header(time_text, server_id, log_pos, checksum):
 *   b"#%s server id %d  end_log_pos %d " % (time_text, server_id, log_pos)
 *   + (b"CRC32 0x%08x " % checksum if checksum is not None else b"") */
static PyObject *
header(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "header() takes 4 arguments");
        return NULL;
    }
    if (!PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "header(): time_text must be bytes");
        return NULL;
    }
    unsigned long long server_id = PyLong_AsUnsignedLongLong(args[1]);
    unsigned long long log_pos = PyLong_AsUnsignedLongLong(args[2]);
    unsigned long long crc = 0;
    int has_crc = args[3] != Py_None;
    if (has_crc)
        crc = PyLong_AsUnsignedLongLong(args[3]);
    if (PyErr_Occurred())
        return NULL;
    Py_ssize_t tlen = PyBytes_GET_SIZE(args[0]);
    char *out = PyMem_Malloc(tlen + 80);
    if (out == NULL)
        return PyErr_NoMemory();
    char *end = put_header(out, PyBytes_AS_STRING(args[0]), tlen, server_id, log_pos, has_crc,
                           (uint32_t)crc);
    PyObject *result = PyBytes_FromStringAndSize(out, end - out);
    PyMem_Free(out);
    return result;
}

/* ---- row counting over a compiled plan (binlog/rows.py) ---------------------- */

/* Step kinds: keep in sync with rows.py STEP_*. */
enum { STEP_STOP = 0, STEP_FIXED = 1, STEP_LEN1 = 2, STEP_LEN2 = 3, STEP_PACKED = 4 };

/* walk_image(): length of the image at data[pos], or 0 when it cannot be walked. */
static Py_ssize_t
walk_image(const unsigned char *steps, Py_ssize_t nsteps,
           const unsigned char *data, Py_ssize_t pos, Py_ssize_t end)
{
    Py_ssize_t null_bytes = (nsteps + 7) / 8;
    if (pos + null_bytes > end)
        return 0;
    const unsigned char *null_bits = data + pos;
    Py_ssize_t start = pos;
    pos += null_bytes;
    for (Py_ssize_t n = 0; n < nsteps; n++) {
        if ((null_bits[n >> 3] >> (n & 7)) & 1)
            continue;
        if (pos >= end)
            return 0;
        const unsigned char *step = steps + 3 * n;
        Py_ssize_t arg = step[1] | (step[2] << 8), size;
        switch (step[0]) {
        case STEP_FIXED:
            size = arg;
            break;
        case STEP_LEN1:
            size = 1 + data[pos];
            break;
        case STEP_LEN2:
            if (pos + 2 > end)
                return 0;
            size = 2 + (data[pos] | (data[pos + 1] << 8));
            break;
        case STEP_PACKED:
            if (arg < 1 || arg > 4 || pos + arg > end)
                return 0;
            size = 0;
            for (Py_ssize_t i = arg - 1; i >= 0; i--)
                size = (size << 8) | data[pos + i];
            size += arg;
            break;
        default:
            return 0;
        }
        if (size <= 0 || size > end - pos)
            return 0;
        pos += size;
    }
    return pos - start;
}

/* count_rows_py(): rows in data, alternating before/after images for updates. */
static Py_ssize_t
count_image_rows(const unsigned char *steps, Py_ssize_t nsteps, const unsigned char *steps_ai,
                 Py_ssize_t nsteps_ai, const unsigned char *data, Py_ssize_t end)
{
    Py_ssize_t pos = 0, count = 0, length;
    while (pos < end) {
        count++;
        length = walk_image(steps, nsteps, data, pos, end);
        if (!length)
            break;
        pos += length;
        if (steps_ai != NULL) {
            length = walk_image(steps_ai, nsteps_ai, data, pos, end);
            if (!length)
                break;
            pos += length;
        }
    }
    return count;
}

static PyObject *
count_rows(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "count_rows() takes 3 arguments");
        return NULL;
    }
    int update = args[1] != Py_None;
    if (!PyBytes_Check(args[0]) || (update && !PyBytes_Check(args[1]))) {
        PyErr_SetString(PyExc_TypeError, "count_rows(): plans must be bytes");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[2], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t count = count_image_rows(
        (const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]) / 3,
        update ? (const unsigned char *)PyBytes_AS_STRING(args[1]) : NULL,
        update ? PyBytes_GET_SIZE(args[1]) / 3 : 0, view.buf, view.len);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}

/* ---- row statements in the default output (printer/dump.py) ------------------
 *
 * print_row_statements(buf, rel, pos, ctx) -> (events, new_pos, text)
 *
 * What dump.py's process_event + handle_annotate_rows / handle_table_map /
 * handle_rows print for whole row statements -- Annotate_rows, Table_map(s),
 * rows events, the last one with STMT_END_F -- with the default options, for
 * as many statements as follow each other in buf[rel:] (pos: the file offset
 * of buf[rel]).  Only whole statements are printed: at the first event that
 * is not part of one (or cannot be handled here: an incomplete event, the
 * stop position or datetime, a compressed rows event, an odd post-header...)
 * the statement in progress is dropped and `new_pos` is where it began; the
 * Python path then prints those events itself, the same way.  The printer
 * state is therefore clean (no pending annotate, head, body or row count)
 * before and after a call.
 *
 * ctx is a tuple built by dump.py (Printer._fast_context), in this order:
 */
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
    CTX_SIZE
};

#define TABLE_MAP_EVENT 19
#define ANNOTATE_ROWS_EVENT 160
#define STMT_END_F 1

/* A growing output buffer: PyMem memory, or (as_bytes) a bytes object that is
 * handed out at the end without another copy. */
typedef struct {
    char *p;
    Py_ssize_t len, cap;
    int as_bytes;
    PyObject *bytes;
} Buf;

static int
buf_reserve(Buf *b, Py_ssize_t extra)
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
static PyObject *
buf_take_bytes(Buf *b, Py_ssize_t n)
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

static void
buf_free(Buf *b)
{
    if (b->as_bytes)
        Py_CLEAR(b->bytes);
    else
        PyMem_Free(b->p);
    b->p = NULL;
}

static int
buf_put(Buf *b, const char *s, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    if (buf_reserve(b, n) < 0)
        return -1;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

#define BUF_LIT(b, lit) buf_put(b, lit, sizeof(lit) - 1)

/* "# at <pos>\n" */
static int
put_at(Buf *b, long long pos)
{
    if (buf_reserve(b, 32) < 0)
        return -1;
    char *o = PUT_LIT(b->p + b->len, "# at ");
    o = put_u64(o, (unsigned long long)pos);
    *o++ = '\n';
    b->len = o - b->p;
    return 0;
}

/* base64_lines() of the whole event, CRC included (print_base64) */
static int
put_base64(Buf *b, const unsigned char *ev, Py_ssize_t size)
{
    Py_ssize_t n = b64_lines_size(size);
    if (buf_reserve(b, n) < 0)
        return -1;
    b64_lines_into(ev, size, b->p + b->len);
    b->len += n;
    return 0;
}

typedef struct {
    PyObject **ctx;
    int has_crc;
    Py_ssize_t header_len;
    const unsigned char *post_header_len;
    Py_ssize_t n_post_header_len;
} Fmt;

/* FormatDescription.post_header(type_code, default) */
static Py_ssize_t
post_header(const Fmt *f, int type_code, Py_ssize_t dflt)
{
    if (type_code > 0 && type_code <= f->n_post_header_len)
        return f->post_header_len[type_code - 1];
    return dflt;
}

/* print_header() for the event at ev into b; -1 with an exception set on error */
static int
put_event_header(Buf *b, const Fmt *f, const unsigned char *ev, uint32_t size)
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
    if (buf_reserve(b, tlen + 80) < 0) {
        Py_DECREF(text);
        return -1;
    }
    char *o = put_header(b->p + b->len, PyBytes_AS_STRING(text), tlen, get_u32(ev + 5),
                         get_u32(ev + 13), f->has_crc, get_u32(ev + size - BINLOG_CHECKSUM_LEN));
    b->len = o - b->p;
    Py_DECREF(text);
    return 0;
}

/* print_annotate_rows(): header, then the query's non-empty lines ('\r' also
 * ends a line) each as "#Q> line\n" */
static int
put_annotate(Buf *b, const Fmt *f, const unsigned char *ev, uint32_t size, Py_ssize_t end)
{
    if (put_event_header(b, f, ev, size) < 0 || BUF_LIT(b, "\tAnnotate_rows:\n") < 0)
        return -1;
    Py_ssize_t q = f->header_len + post_header(f, ANNOTATE_ROWS_EVENT, 0);
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
    result = count_image_rows(
        (const unsigned char *)PyBytes_AS_STRING(steps[0]), PyBytes_GET_SIZE(steps[0]) / 3,
        update ? (const unsigned char *)PyBytes_AS_STRING(steps[1]) : NULL,
        update ? PyBytes_GET_SIZE(steps[1]) / 3 : 0, rows, nrows);
done:
    Py_XDECREF(steps[0]);
    Py_XDECREF(steps[1]);
    return result;
}

/* net_field_length(); 0 when it is NULL (251) or runs past end */
static int
packed_length(const unsigned char *ev, Py_ssize_t *pos, Py_ssize_t end, unsigned long long *value)
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
table_map_event(const Fmt *f, Buf *out, Buf *head, Buf *body, const unsigned char *ev,
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
    if (buf_put(out, head->p, head->len) < 0)
        goto done;
    head->len = 0;
    if (*annotate != NULL) {
        const unsigned char *a = *annotate;
        uint32_t asize = get_u32(a + 9);
        if (put_annotate(out, f, a, asize, asize - (f->has_crc ? BINLOG_CHECKSUM_LEN : 0)) < 0)
            goto done;
        *annotate = NULL;
    }
    PyObject *text = PyTuple_GET_ITEM(entry, 2);
    if (put_event_header(out, f, ev, size) < 0
        || buf_put(out, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text)) < 0
        || put_base64(body, ev, size) < 0
        || PyDict_SetItem(f->ctx[CTX_TABLE_MAPS], PyTuple_GET_ITEM(entry, 0),
                          PyTuple_GET_ITEM(entry, 1)) < 0)
        goto done;
    rc = 1;
done:
    Py_DECREF(entry);
    return rc;
}

/* One Write/Update/Delete_rows (v1 or v2) event: 1 printed, 0 leave it to
 * Python, -1 error.  *rows accumulates the statement's row count. */
static int
rows_event(const Fmt *f, Buf *head, Buf *body, const unsigned char *ev, uint32_t size,
           Py_ssize_t end, int *stmt_end, Py_ssize_t *rows)
{
    int type = ev[4];
    int v2 = type >= 30;
    int kind = (type - (v2 ? 30 : 23));            /* 0 write, 1 update, 2 delete */
    static const char *names[] = {"Write_rows", "Update_rows", "Delete_rows"};
    Py_ssize_t post_len = post_header(f, type, v2 ? 10 : 8);
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
        if (extra_len < 2 || pos + extra_len > end)
            return 0;
        pos += extra_len;
    }
    unsigned long long width;
    if (!packed_length(ev, &pos, end, &width) || width > (unsigned long long)(end - pos) * 8)
        return 0;
    Py_ssize_t nbytes = (Py_ssize_t)((width + 7) / 8);
    const unsigned char *cols = ev + pos, *cols_ai = cols;
    pos += nbytes;
    if (kind == 1) {
        cols_ai = ev + pos;
        pos += nbytes;
    }
    if (pos > end)
        return 0;

    *stmt_end = flags & STMT_END_F;
    if (put_event_header(head, f, ev, size) < 0 || BUF_LIT(head, "\t") < 0
        || buf_put(head, names[kind], strlen(names[kind])) < 0
        || BUF_LIT(head, ": table id ") < 0 || buf_reserve(head, 64) < 0)
        return -1;
    char *o = put_u64(head->p + head->len, table_id);
    if (*stmt_end)
        o = PUT_LIT(o, " flags: STMT_END_F");
    *o++ = '\n';
    head->len = o - head->p;
    if (put_base64(body, ev, size) < 0)
        return -1;

    PyObject *id = PyLong_FromUnsignedLongLong(table_id);
    if (id == NULL)
        return -1;
    PyObject *table_map = PyDict_GetItemWithError(f->ctx[CTX_TABLE_MAPS], id);   /* borrowed */
    Py_DECREF(id);
    if (table_map == NULL)
        return PyErr_Occurred() ? -1 : 1;      /* no map: nothing to count */
    Py_INCREF(table_map);
    Py_ssize_t n = event_rows(f, table_map, kind == 1, kind == 0, cols, cols_ai, nbytes,
                              ev + pos, end - pos);
    Py_DECREF(table_map);
    if (n < 0)
        return -1;
    *rows += n;
    return 1;
}

static PyObject *
print_row_statements(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyTuple_Check(args[3])
        || PyTuple_GET_SIZE(args[3]) != CTX_SIZE) {
        PyErr_SetString(PyExc_TypeError, "print_row_statements(buf: bytes, rel, pos, ctx: tuple)");
        return NULL;
    }
    Fmt f;
    f.ctx = &PyTuple_GET_ITEM(args[3], 0);
    PyObject *post = f.ctx[CTX_POST_HEADER_LEN], *delim = f.ctx[CTX_DELIMITER];
    if (!PyBytes_Check(post) || !PyBytes_Check(delim) || !PyDict_Check(f.ctx[CTX_TIMES])
        || !PyDict_Check(f.ctx[CTX_MAPS]) || !PyDict_Check(f.ctx[CTX_TABLE_MAPS])) {
        PyErr_SetString(PyExc_TypeError, "print_row_statements(): bad context");
        return NULL;
    }
    f.post_header_len = (const unsigned char *)PyBytes_AS_STRING(post);
    f.n_post_header_len = PyBytes_GET_SIZE(post);
    f.has_crc = PyObject_IsTrue(f.ctx[CTX_HAS_CRC]);
    f.header_len = PyLong_AsSsize_t(f.ctx[CTX_HEADER_LEN]);
    unsigned long long stop_position = PyLong_AsUnsignedLongLong(f.ctx[CTX_STOP_POSITION]);
    long long stop_datetime = PyLong_AsLongLong(f.ctx[CTX_STOP_DATETIME]);
    Py_ssize_t rel = PyLong_AsSsize_t(args[1]);
    long long pos = PyLong_AsLongLong(args[2]);
    if (PyErr_Occurred())
        return NULL;

    const unsigned char *data = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t avail = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t min_size = LOG_EVENT_HEADER_LEN + (f.has_crc ? BINLOG_CHECKSUM_LEN : 0);
    Buf out = {0}, head = {0}, body = {0};
    out.as_bytes = 1;
    const unsigned char *annotate = NULL;    /* the pending Annotate_rows event */
    Py_ssize_t rows = 0, events = 0, committed_events = 0, committed_len = 0;
    long long committed_pos = pos;
    int failed = 0;

    while (rel >= 0 && avail - rel >= LOG_EVENT_HEADER_LEN) {
        const unsigned char *ev = data + rel;
        int type = ev[4];
        uint32_t size = get_u32(ev + 9);
        if (size > avail - rel || size < min_size || f.header_len < LOG_EVENT_HEADER_LEN)
            break;
        Py_ssize_t end = size - (f.has_crc ? BINLOG_CHECKSUM_LEN : 0);
        if ((unsigned long long)pos >= stop_position || (long long)get_u32(ev) >= stop_datetime
            || f.header_len > end)
            break;
        int known = type == ANNOTATE_ROWS_EVENT || type == TABLE_MAP_EVENT
                    || (type >= 23 && type <= 25) || (type >= 30 && type <= 32);
        if (!known || put_at(&out, pos) < 0)
            break;
        int rc = 1, stmt_end = 0;
        if (type == ANNOTATE_ROWS_EVENT)
            annotate = ev;
        else if (type == TABLE_MAP_EVENT)
            rc = table_map_event(&f, &out, &head, &body, ev, size, end, pos, &annotate);
        else
            rc = rows_event(&f, &head, &body, ev, size, end, &stmt_end, &rows);
        if (rc <= 0) {
            failed = rc < 0;
            break;
        }
        events++;
        rel += size;
        pos += size;
        if (stmt_end) {             /* flush_statement() */
            char count[48];
            char *o = PUT_LIT(count, "# Number of rows: ");
            o = put_u64(o, (unsigned long long)rows);
            *o++ = '\n';
            if (buf_put(&out, head.p, head.len) < 0 || BUF_LIT(&out, "\nBINLOG '\n") < 0
                || buf_put(&out, body.p, body.len) < 0 || BUF_LIT(&out, "'") < 0
                || buf_put(&out, PyBytes_AS_STRING(delim), PyBytes_GET_SIZE(delim)) < 0
                || BUF_LIT(&out, "\n") < 0 || buf_put(&out, count, o - count) < 0) {
                failed = 1;
                break;
            }
            head.len = body.len = 0;
            rows = 0;
            annotate = NULL;
            committed_events = events;
            committed_pos = pos;
            committed_len = out.len;
        }
    }
    PyObject *result = NULL, *text = failed ? NULL : buf_take_bytes(&out, committed_len);
    if (text != NULL)
        result = Py_BuildValue("(nLN)", committed_events, committed_pos, text);
    buf_free(&out);
    buf_free(&head);
    buf_free(&body);
    return result;
}

/* ---- module ------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"frame", (PyCFunction)(void (*)(void))frame, METH_FASTCALL,
     "frame(buf, rel, pos, has_crc) -> RawEvent, or None to take the slow path."},
    {"base64_lines", base64_lines, METH_O,
     "base64_lines(data) -> bytes: base64 in 76-column lines, each ending in a newline."},
    {"header", (PyCFunction)(void (*)(void))header, METH_FASTCALL,
     "header(time_text, server_id, log_pos, checksum) -> the print_header() text."},
    {"print_row_statements", (PyCFunction)(void (*)(void))print_row_statements, METH_FASTCALL,
     "print_row_statements(buf, rel, pos, ctx) -> (events, new_pos, text): whole row "
     "statements in the default output."},
    {"count_rows", (PyCFunction)(void (*)(void))count_rows, METH_FASTCALL,
     "count_rows(steps, steps_ai, data) -> rows in a rows event, walked by plan."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "binlogkit._speedups",
    "Optional C versions of binlogkit's hot inner loops.", -1, methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    b64_init();
    if (PyType_Ready(&RawEvent_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&RawEvent_Type);
    if (PyModule_AddObject(m, "RawEvent", (PyObject *)&RawEvent_Type) < 0) {
        Py_DECREF(&RawEvent_Type);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
