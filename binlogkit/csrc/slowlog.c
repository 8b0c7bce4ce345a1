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
