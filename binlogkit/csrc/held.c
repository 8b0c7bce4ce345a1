/*
 * binlogkit._speedups, part 10: --flashback's held text (printer/mariadb/flashback.py
 * HeldText is the reference and the owner): what every event holds back
 * (ev->output_buf in mariadb-binlog), appended by the C printer straight into the
 * HeldText's bytearrays, and read back last to first at the end.
 */
#include "speedups.h"

/* The held text of the run (flashback.HeldText: its bytearrays buf and ends, a native
 * uint64 per event, where its text ends counted from the first held byte) */
int
bk_held_open(Held *h, PyObject *obj)
{
    memset(h, 0, sizeof(*h));
    PyObject *spooled = NULL, *spill_at = NULL;
    h->buf = PyObject_GetAttrString(obj, "buf");
    h->ends = h->buf ? PyObject_GetAttrString(obj, "ends") : NULL;
    spooled = h->ends ? PyObject_GetAttrString(obj, "spooled") : NULL;
    spill_at = spooled ? PyObject_GetAttrString(obj, "SPILL_AT") : NULL;
    if (spill_at != NULL) {
        h->spooled = PyLong_AsLongLong(spooled);
        h->spill_at = PyLong_AsSsize_t(spill_at);
    }
    Py_XDECREF(spooled);
    Py_XDECREF(spill_at);
    if (spill_at == NULL || PyErr_Occurred())
        goto fail;
    if (!PyByteArray_CheckExact(h->buf) || !PyByteArray_CheckExact(h->ends) || h->spooled < 0) {
        PyErr_SetString(PyExc_TypeError, "held text: buf and ends must be bytearrays");
        goto fail;
    }
    Py_INCREF(obj);
    h->obj = obj;
    return 0;
fail:
    bk_held_close(h);
    return -1;
}

void
bk_held_close(Held *h)
{
    Py_CLEAR(h->buf);
    Py_CLEAR(h->ends);
    Py_CLEAR(h->obj);
}

/* HeldText.append(text) */
int
bk_held_append(const Fmt *f, const char *p, Py_ssize_t n)
{
    Held *h = f->held;
    Py_ssize_t len = PyByteArray_GET_SIZE(h->buf), nends = PyByteArray_GET_SIZE(h->ends);
    if (PyByteArray_Resize(h->buf, len + n) < 0 || PyByteArray_Resize(h->ends, nends + 8) < 0)
        return -1;
    if (n)
        memcpy(PyByteArray_AS_STRING(h->buf) + len, p, n);
    uint64_t end = (uint64_t)h->spooled + (uint64_t)(len + n);
    memcpy(PyByteArray_AS_STRING(h->ends) + nends, &end, 8);
    if (len + n < h->spill_at)
        return 0;
    /* spill() writes buf to the temporary file and empties it (the same bytearray) */
    PyObject *r = PyObject_CallMethod(h->obj, "spill", NULL);
    if (r == NULL)
        return -1;
    Py_DECREF(r);
    PyObject *spooled = PyObject_GetAttrString(h->obj, "spooled");
    if (spooled == NULL)
        return -1;
    h->spooled = PyLong_AsLongLong(spooled);
    Py_DECREF(spooled);
    if (PyErr_Occurred())
        return -1;
    if (PyByteArray_GET_SIZE(h->buf) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "held text: spill() left its buffer full");
        return -1;
    }
    return 0;
}

/* held_reversed(region, ends, lo, hi, base) -> bytes: HeldText.write_reversed's block,
 * the texts of events hi-1, hi-2 ... lo (event k: region[ends[k-1] - base:ends[k] - base],
 * ends[-1] = 0; ends a buffer of native uint64) */
PyObject *
bk_held_reversed(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "held_reversed(region, ends, lo, hi, base)");
        return NULL;
    }
    Py_ssize_t lo = PyLong_AsSsize_t(args[2]), hi = PyLong_AsSsize_t(args[3]);
    long long base = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer region, ends;
    if (PyObject_GetBuffer(args[0], &region, PyBUF_SIMPLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(args[1], &ends, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&region);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t nends = ends.len / 8;
    if (lo < 0 || hi < lo || hi > nends) {
        PyErr_SetString(PyExc_ValueError, "held_reversed(): events out of range");
        goto done;
    }
    const unsigned char *e = ends.buf;
    uint64_t first, last;
    if (lo)
        memcpy(&first, e + 8 * (lo - 1), 8);
    else
        first = 0;
    if (hi)
        memcpy(&last, e + 8 * (hi - 1), 8);
    else
        last = first;
    if (first < (uint64_t)base || last < first || last - (uint64_t)base > (uint64_t)region.len) {
        PyErr_SetString(PyExc_ValueError, "held_reversed(): the texts are not in the region");
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(last - first));
    if (result == NULL)
        goto done;
    char *o = PyBytes_AS_STRING(result);
    uint64_t stop = last;
    for (Py_ssize_t k = hi - 1; k >= lo; k--) {
        uint64_t start;
        if (k)
            memcpy(&start, e + 8 * (k - 1), 8);
        else
            start = 0;
        if (start > stop || start < first) {
            Py_CLEAR(result);
            PyErr_SetString(PyExc_ValueError, "held_reversed(): ends out of order");
            goto done;
        }
        memcpy(o, (const char *)region.buf + (start - base), stop - start);
        o += stop - start;
        stop = start;
    }
done:
    PyBuffer_Release(&ends);
    PyBuffer_Release(&region);
    return result;
}
