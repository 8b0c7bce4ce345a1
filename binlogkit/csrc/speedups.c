/*
 * binlogkit._speedups: optional C versions of a few hot inner loops.
 *
 * The pure-Python code is the reference (named next to each function) and
 * the fallback; binlogkit/_accel.py loads this module unless BINLOGKIT_PURE=1.
 * tests/test_speedups.py compares each function with its Python twin.
 * Everything here works on bytes-like buffers and returns new objects: no
 * I/O, and no state between calls besides what the caller passes in.
 *
 * More hot loops can be added as further sections of this module, with a
 * Python twin each.
 *
 *   RawEvent, frame(buf, rel, pos, has_crc) binlog/reader.py RawEvent, _next_buffered
 *   base64_lines(data)                      printer/text.py base64_lines
 *   header(time_text, server_id, log_pos, checksum)
 *                                           printer/text.py header_text
 *   count_rows(steps, steps_ai, data)       binlog/rows.py count_rows_py
 *   print_row_statements(buf, rel, pos, ctx)
 *                                           printer/mariadb/driver.py: process_event and the
 *                                           Annotate/Table_map/rows handlers, for
 *                                           whole row statements, default options
 *                                           and -v/-vv/decode-rows (in csrc/rows.c)
 *   rows_text(plan, data)                   printer/mariadb/rows_verbose.py _print_compiled
 *                                           (in csrc/text.c)
 *   rows_values(program, program_ai, kind, data, pos, types)
 *                                           binlog/rowvalues.py iter_rows
 *                                           (in csrc/image.c)
 *   slowlog_numbers(values, base_offset, base_log)
 *                                           slowlog/metric.py _floats_and_buckets_py
 *                                           (in csrc/slowlog.c)
 *   slowlog_stats(values, buckets, counts, start)
 *                                           slowlog/metric.py _run_stats_py
 *                                           (in csrc/slowlog.c)
 *   slowlog_entries(text, pos, cols)        slowlog/scan.py ENTRY (in csrc/slowlog.c)
 *   payload_frames(payload, has_crc)        printer/mysql/gtid.py inner_event
 *                                           (in csrc/mysql.c)
 */
#include "speedups.h"
#include <structmember.h>

/* ---- RawEvent: one event as it sits in the file (binlog/reader.py) ------------ */

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

static PyObject *frame_at(const unsigned char *h, Py_ssize_t avail, long long pos, int has_crc);

/* frame(buf, rel, pos, has_crc): the RawEvent at buf[rel:] (file offset pos)
 * when it is whole, not a format description, and long enough; else None
 * (the caller's slow path handles reading more, FDEs and errors).  buf: bytes,
 * or a read-only mapping of the file (binlog/reader.py). */
static PyObject *
frame(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "frame(buf, rel, pos, has_crc)");
        return NULL;
    }
    Py_ssize_t rel = PyLong_AsSsize_t(args[1]);
    long long pos = PyLong_AsLongLong(args[2]);
    int has_crc = PyObject_IsTrue(args[3]);
    if (PyErr_Occurred())
        return NULL;
    if (PyBytes_Check(args[0])) {
        Py_ssize_t avail = PyBytes_GET_SIZE(args[0]) - rel;
        if (rel < 0 || avail < LOG_EVENT_HEADER_LEN)
            Py_RETURN_NONE;
        return frame_at((const unsigned char *)PyBytes_AS_STRING(args[0]) + rel, avail, pos,
                        has_crc);
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *result;
    if (rel < 0 || view.len - rel < LOG_EVENT_HEADER_LEN) {
        Py_INCREF(Py_None);
        result = Py_None;
    } else {
        result = frame_at((const unsigned char *)view.buf + rel, view.len - rel, pos, has_crc);
    }
    PyBuffer_Release(&view);
    return result;
}

static PyObject *
frame_at(const unsigned char *h, Py_ssize_t avail, long long pos, int has_crc)
{
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define BK_B64_SSSE3 1
static int b64_ssse3;          /* the CPU has SSSE3 (checked once, at import) */

/* 12 input bytes -> 16 characters at a time with SSSE3 (W. Mula's method: each
 * 3-byte group spread over a 32-bit lane as [b a c b], its four 6-bit indices
 * moved into place with two masked multiplies, then one table of offsets from
 * index to character).  Only blocks whose 16-byte load stays within the n
 * input bytes; returns the bytes done (a multiple of 12). */
__attribute__((target("ssse3")))
static Py_ssize_t
b64_encode_blocks_ssse3(const unsigned char *in, Py_ssize_t n, char *out)
{
    const __m128i spread = _mm_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1);
    const __m128i high_mask = _mm_set1_epi32(0x0fc0fc00), high_mul = _mm_set1_epi32(0x04000040);
    const __m128i low_mask = _mm_set1_epi32(0x003f03f0), low_mul = _mm_set1_epi32(0x01000010);
    /* index -> character offset, by class: 0 'a'-'z' (26..51), 1..10 '0'-'9', 11 '+',
     * 12 '/', 13 'A'-'Z' (0..25) */
    const __m128i offsets = _mm_setr_epi8(71, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -19, -16,
                                          65, 0, 0);
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 12) {
        __m128i v = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(in + i)), spread);
        __m128i idx = _mm_or_si128(_mm_mulhi_epu16(_mm_and_si128(v, high_mask), high_mul),
                                   _mm_mullo_epi16(_mm_and_si128(v, low_mask), low_mul));
        __m128i cls = _mm_subs_epu8(idx, _mm_set1_epi8(51));
        cls = _mm_or_si128(cls, _mm_and_si128(_mm_cmpgt_epi8(_mm_set1_epi8(26), idx),
                                              _mm_set1_epi8(13)));
        _mm_storeu_si128((__m128i *)(out + i / 3 * 4),
                         _mm_add_epi8(_mm_shuffle_epi8(offsets, cls), idx));
    }
    return i;
}
#endif

static void
b64_init(void)
{
    for (int v = 0; v < 4096; v++) {
        b64_pairs[v][0] = b64_alphabet[v >> 6];
        b64_pairs[v][1] = b64_alphabet[v & 63];
    }
#ifdef BK_B64_SSSE3
    __builtin_cpu_init();
    b64_ssse3 = __builtin_cpu_supports("ssse3") && getenv("BINLOGKIT_NO_SIMD") == NULL;
#endif
}

/* Encode n bytes (n <= 57) into out; returns the characters written. */
static Py_ssize_t
b64_encode_line(const unsigned char *in, Py_ssize_t n, char *out)
{
    char *o = out;
    Py_ssize_t i = 0;
#ifdef BK_B64_SSSE3
    if (b64_ssse3 && n >= 16) {
        i = b64_encode_blocks_ssse3(in, n, out);
        o += i / 3 * 4;
    }
#endif
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
Py_ssize_t
bk_b64_lines_size(Py_ssize_t n)
{
    Py_ssize_t chars = (n + 2) / 3 * 4;
    Py_ssize_t lines = chars ? (chars + B64_LINE - 1) / B64_LINE : 1;
    return chars + lines;
}

/* Write base64_lines(in) to out (bk_b64_lines_size(n) bytes). */
void
bk_b64_lines_into(const unsigned char *in, Py_ssize_t n, char *out)
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
    PyObject *result = PyBytes_FromStringAndSize(NULL, bk_b64_lines_size(view.len));
    if (result != NULL)
        bk_b64_lines_into(view.buf, view.len, PyBytes_AS_STRING(result));
    PyBuffer_Release(&view);
    return result;
}

/* ---- the event header line (Log_event::print_header) ----------------------- */

/* Log_event::print_header's text; out needs 80 + tlen bytes.  Returns the end. */
char *
bk_put_header(char *o, const char *time_text, Py_ssize_t tlen, unsigned long long server_id,
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
    char *end = bk_put_header(out, PyBytes_AS_STRING(args[0]), tlen, server_id, log_pos, has_crc,
                           (uint32_t)crc);
    PyObject *result = PyBytes_FromStringAndSize(out, end - out);
    PyMem_Free(out);
    return result;
}

/* ---- row counting over a compiled plan (binlog/rows.py) ---------------------- */

/* Step kinds: keep in sync with rows.py STEP_*. */
enum { STEP_STOP = 0, STEP_FIXED = 1, STEP_LEN1 = 2, STEP_LEN2 = 3, STEP_PACKED = 4 };

/* walk_image(): length of the image at data[pos], or 0 when it cannot be walked
 * (also csrc/mariadb.c's, for --flashback). */
Py_ssize_t
bk_walk_image(const unsigned char *steps, Py_ssize_t nsteps,
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
Py_ssize_t
bk_count_image_rows(const unsigned char *steps, Py_ssize_t nsteps, const unsigned char *steps_ai,
                 Py_ssize_t nsteps_ai, const unsigned char *data, Py_ssize_t end)
{
    Py_ssize_t pos = 0, count = 0, length;
    while (pos < end) {
        count++;
        length = bk_walk_image(steps, nsteps, data, pos, end);
        if (!length)
            break;
        pos += length;
        if (steps_ai != NULL) {
            length = bk_walk_image(steps_ai, nsteps_ai, data, pos, end);
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
    Py_ssize_t count = bk_count_image_rows(
        (const unsigned char *)PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]) / 3,
        update ? (const unsigned char *)PyBytes_AS_STRING(args[1]) : NULL,
        update ? PyBytes_GET_SIZE(args[1]) / 3 : 0, view.buf, view.len);
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}

/* ---- module ------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"frame", (PyCFunction)(void (*)(void))frame, METH_FASTCALL,
     "frame(buf, rel, pos, has_crc) -> RawEvent, or None to take the slow path."},
    {"base64_lines", base64_lines, METH_O,
     "base64_lines(data) -> bytes: base64 in 76-column lines, each ending in a newline."},
    {"header", (PyCFunction)(void (*)(void))header, METH_FASTCALL,
     "header(time_text, server_id, log_pos, checksum) -> the print_header() text."},
    {"print_row_statements", (PyCFunction)(void (*)(void))bk_print_row_statements, METH_FASTCALL,
     "print_row_statements(buf, rel, pos, ctx) -> (events, new_pos, text): whole row "
     "statements in the default output."},
    {"count_rows", (PyCFunction)(void (*)(void))count_rows, METH_FASTCALL,
     "count_rows(steps, steps_ai, data) -> rows in a rows event, walked by plan."},
    {"rows_text", (PyCFunction)(void (*)(void))bk_rows_text_py, METH_FASTCALL,
     "rows_text(plan, data) -> (text, rows): the -v/-vv text of a rows event's images, "
     "or None when not handled."},
    {"rows_values", (PyCFunction)(void (*)(void))bk_rows_values, METH_FASTCALL,
     "rows_values(program, program_ai, kind, data, pos, types) -> (pairs, pos): the "
     "(before, after) values of the rows from data[pos:], as far as handled."},
    {"slowlog_numbers", (PyCFunction)(void (*)(void))bk_slowlog_numbers, METH_FASTCALL,
     "slowlog_numbers(values, base_offset, base_log) -> (floats, buckets), or None for the "
     "Python path (in csrc/slowlog.c)."},
    {"slowlog_stats", (PyCFunction)(void (*)(void))bk_slowlog_stats, METH_FASTCALL,
     "slowlog_stats(values, buckets, counts, start) -> (min, max, sum, plain, whole), or None for "
     "the Python path; bucket counts added to counts (in csrc/slowlog.c)."},
    {"slowlog_entries", (PyCFunction)(void (*)(void))bk_slowlog_entries, METH_FASTCALL,
     "slowlog_entries(text, pos, cols) -> pos: the groups of the entries from pos that "
     "match ENTRY's shape, appended to cols (in csrc/slowlog.c)."},
    {"json_text", (PyCFunction)(void (*)(void))bk_json_text_py, METH_FASTCALL,
     "json_text(data[, column]) -> a MySQL JSON column's -v text, or with a column number the "
     "print_json_diff text of a partial update; None when not handled (in csrc/json.c)."},
    {"held_reversed", (PyCFunction)(void (*)(void))bk_held_reversed, METH_FASTCALL,
     "held_reversed(region, ends, lo, hi, base) -> the held texts of events hi-1 ... lo, "
     "last to first (printer/mariadb/flashback.py HeldText.write_reversed)."},
    {"payload_frames", (PyCFunction)(void (*)(void))bk_payload_frames, METH_FASTCALL,
     "payload_frames(payload, has_crc) -> the events of a Transaction_payload re-framed "
     "as mysqlbinlog prints them, or None."},
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
    bk_crc32_init();
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
#ifndef BK_SOURCE_HASH
#define BK_SOURCE_HASH ""
#endif
    /* CRC-32 of the csrc/ files this was built from (setup.py): binlogkit/_accel.py
       leaves a build older than its sources unused */
    if (PyModule_AddStringConstant(m, "SOURCE_HASH", BK_SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
