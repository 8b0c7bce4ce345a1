/*
 * binlogkit._speedups, slow-log section: numbers of a bulk run as floats and
 * pt-query-digest buckets.
 *
 *   slowlog_numbers(values, base_offset, base_log) -> (floats, buckets) or None
 *
 * Python twin: binlogkit/slowlog/metric.py _floats_and_buckets_py (float() of
 * each value, written as bytes or an int, and its bucket: 0 below 1e-6, 999 for
 * inf, else int(base_offset + log(v) / base_log) capped at 999).  None when a
 * value is neither (the caller then takes the Python path).
 */
#include "speedups.h"
#include <math.h>

#define NUM_BUCK 1000
#define MIN_BUCK 0.000001

static int
bucket_of(double v, double base_offset, double base_log)
{
    if (v != v || v < MIN_BUCK)
        return 0;
    if (isinf(v))
        return NUM_BUCK - 1;
    double idx = base_offset + log(v) / base_log;
    if (idx > NUM_BUCK - 1)
        return NUM_BUCK - 1;
    return (int)idx;
}

PyObject *
bk_slowlog_numbers(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "slowlog_numbers(values, base_offset, base_log)");
        return NULL;
    }
    double base_offset = PyFloat_AsDouble(args[1]);
    double base_log = PyFloat_AsDouble(args[2]);
    if (PyErr_Occurred())
        return NULL;
    PyObject *seq = PySequence_Fast(args[0], "values must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *floats = PyList_New(n), *buckets = PyList_New(n);
    if (floats == NULL || buckets == NULL)
        goto fail;
    char buf[64];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        double v;
        if (PyBytes_CheckExact(item)) {
            Py_ssize_t len = PyBytes_GET_SIZE(item);
            const char *s = PyBytes_AS_STRING(item);
            if (len == 0 || len >= (Py_ssize_t)sizeof(buf) || !(s[0] >= '0' && s[0] <= '9'))
                goto slow;
            for (Py_ssize_t k = 0; k < len; k++) {       /* digits and one dot only */
                char c = s[k];
                if (!((c >= '0' && c <= '9') || c == '.'))
                    goto slow;
            }
            memcpy(buf, s, len);
            buf[len] = '\0';
            char *end = NULL;
            v = PyOS_string_to_double(buf, &end, NULL);
            if (v == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                goto slow;
            }
            if (end != buf + len)
                goto slow;
        }
        else if (PyLong_CheckExact(item)) {
            v = PyLong_AsDouble(item);
            if (v == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                goto slow;
            }
        }
        else
            goto slow;
        PyObject *f = PyFloat_FromDouble(v);
        PyObject *b = PyLong_FromLong(bucket_of(v, base_offset, base_log));
        if (f == NULL || b == NULL) {
            Py_XDECREF(f);
            Py_XDECREF(b);
            goto fail;
        }
        PyList_SET_ITEM(floats, i, f);
        PyList_SET_ITEM(buckets, i, b);
    }
    Py_DECREF(seq);
    PyObject *out = PyTuple_Pack(2, floats, buckets);
    Py_DECREF(floats);
    Py_DECREF(buckets);
    return out;
slow:
    Py_DECREF(seq);
    Py_XDECREF(floats);
    Py_XDECREF(buckets);
    Py_RETURN_NONE;
fail:
    Py_DECREF(seq);
    Py_XDECREF(floats);
    Py_XDECREF(buckets);
    return NULL;
}

/*
 *   slowlog_stats(values, buckets, counts, start) -> (min, max, sum, plain) or None
 *
 * Python twin: binlogkit/slowlog/metric.py _run_stats_py.  ``values`` floats
 * (a list or tuple), ``buckets`` their bucket numbers (0..999, same length, at
 * least one); the bucket counts are added to the dict ``counts`` ({bucket:
 * count}); ``sum`` is the values added one by one to ``start`` in order,
 * ``plain`` the same from 0.0; min/max as Python's min()/max() (a NaN never
 * replaces, nor is replaced by comparison).  None when a value is not a float
 * or a bucket not an int in range (the caller then takes the Python path).
 */
PyObject *
bk_slowlog_stats(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "slowlog_stats(values, buckets, counts, start)");
        return NULL;
    }
    PyObject *counts = args[2];
    if (!PyDict_CheckExact(counts)) {
        PyErr_SetString(PyExc_TypeError, "counts must be a dict");
        return NULL;
    }
    double start = PyFloat_AsDouble(args[3]);
    if (start == -1.0 && PyErr_Occurred())
        return NULL;
    PyObject *vseq = PySequence_Fast(args[0], "values must be a sequence");
    if (vseq == NULL)
        return NULL;
    PyObject *bseq = PySequence_Fast(args[1], "buckets must be a sequence");
    if (bseq == NULL) {
        Py_DECREF(vseq);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(vseq);
    PyObject **vals = PySequence_Fast_ITEMS(vseq), **bucks = PySequence_Fast_ITEMS(bseq);
    PyObject *out = NULL;
    if (n == 0 || PySequence_Fast_GET_SIZE(bseq) != n)
        goto python;
    long tally[NUM_BUCK];
    memset(tally, 0, sizeof(tally));
    double lo = 0, hi = 0, total = start, plain = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyFloat_CheckExact(vals[i]) || !PyLong_CheckExact(bucks[i]))
            goto python;
        double v = PyFloat_AS_DOUBLE(vals[i]);
        long b = PyLong_AsLong(bucks[i]);
        if (b < 0 || b >= NUM_BUCK) {
            PyErr_Clear();
            goto python;
        }
        tally[b]++;
        if (i == 0)
            lo = hi = v;
        else {
            if (v < lo)
                lo = v;
            if (v > hi)
                hi = v;
        }
        total += v;
        plain += v;
    }
    for (int b = 0; b < NUM_BUCK; b++) {
        if (!tally[b])
            continue;
        PyObject *key = PyLong_FromLong(b);
        if (key == NULL)
            goto done;
        PyObject *old = PyDict_GetItemWithError(counts, key);
        long have = 0;
        if (old != NULL) {
            have = PyLong_AsLong(old);
            if (have == -1 && PyErr_Occurred()) {
                Py_DECREF(key);
                goto done;
            }
        }
        else if (PyErr_Occurred()) {
            Py_DECREF(key);
            goto done;
        }
        PyObject *val = PyLong_FromLong(have + tally[b]);
        if (val == NULL || PyDict_SetItem(counts, key, val) < 0) {
            Py_XDECREF(val);
            Py_DECREF(key);
            goto done;
        }
        Py_DECREF(val);
        Py_DECREF(key);
    }
    out = Py_BuildValue("(dddd)", lo, hi, total, plain);
    goto done;
python:
    out = Py_NewRef(Py_None);
done:
    Py_DECREF(vseq);
    Py_DECREF(bseq);
    return out;
}
