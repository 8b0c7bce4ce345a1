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
 *   slowlog_stats(values, buckets, counts, start) -> (min, max, sum, plain, whole) or None
 *
 * Python twin: binlogkit/slowlog/metric.py _run_stats_py.  ``values`` floats
 * (a list or tuple), ``buckets`` their bucket numbers (0..999, same length, at
 * least one); the bucket counts are added to the dict ``counts`` ({bucket:
 * count}); ``sum`` is the values added one by one to ``start`` in order,
 * ``plain`` the same from 0.0; min/max as Python's min()/max() (a NaN never
 * replaces, nor is replaced by comparison); ``whole``: every value an integer.  None when a value is not a float
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
    int whole = 1;
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
        if (whole && !(isfinite(v) && v == floor(v)))
            whole = 0;
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
    out = Py_BuildValue("(ddddO)", lo, hi, total, plain, whole ? Py_True : Py_False);
    goto done;
python:
    out = Py_NewRef(Py_None);
done:
    Py_DECREF(vseq);
    Py_DECREF(bseq);
    return out;
}

/*
 *   slowlog_entries(text, pos, cols) -> pos
 *
 * Python twin: binlogkit/slowlog/scan.py ENTRY (its first alternative).  From
 * ``pos`` (a line start), appends to the 13 lists of ``cols`` the 12 groups
 * ENTRY.match(text, pos).groups(b"") would give (ts, uh, x1, qt, lt, rs, rx,
 * x2, db, set, q, junk) and the row's start, for each consecutive entry of the
 * shape it can match exactly as the regex does, and returns the offset where
 * it stopped: len(text), or the start of a row it leaves to the regex (a junk
 * line, or anything where the regex could backtrack into another reading).
 */

static inline int
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static inline int
starts(const char *s, Py_ssize_t i, Py_ssize_t n, const char *lit, Py_ssize_t len)
{
    return n - i >= len && memcmp(s + i, lit, len) == 0;
}

#define STARTS(s, i, n, lit) starts((s), (i), (n), (lit), (Py_ssize_t)sizeof(lit) - 1)

static inline Py_ssize_t
line_end(const char *s, Py_ssize_t i, Py_ssize_t n)
{
    const char *p = memchr(s + i, '\n', (size_t)(n - i));
    return p ? p - s : n;
}

/* \d{6}\ [ \d]\d:\d\d:\d\d(?:\.\d+)?  |  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?
   over all of p[0:len] */
static int
time_value(const char *p, Py_ssize_t len)
{
    Py_ssize_t k;
    if (len >= 15 && is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3])
        && is_digit(p[4]) && is_digit(p[5]) && p[6] == ' ' && (p[7] == ' ' || is_digit(p[7]))
        && is_digit(p[8]) && p[9] == ':' && is_digit(p[10]) && is_digit(p[11]) && p[12] == ':'
        && is_digit(p[13]) && is_digit(p[14])) {
        k = 15;
    }
    else if (len >= 19 && is_digit(p[0]) && is_digit(p[1]) && is_digit(p[2]) && is_digit(p[3])
             && p[4] == '-' && is_digit(p[5]) && is_digit(p[6]) && p[7] == '-' && is_digit(p[8])
             && is_digit(p[9]) && p[10] == 'T' && is_digit(p[11]) && is_digit(p[12])
             && p[13] == ':' && is_digit(p[14]) && is_digit(p[15]) && p[16] == ':'
             && is_digit(p[17]) && is_digit(p[18])) {
        k = 19;
        if (k < len && p[k] == '.') {
            Py_ssize_t d = k + 1;
            while (d < len && is_digit(p[d]))
                d++;
            if (d == k + 1)
                return 0;
            k = d;
        }
        if (k < len && p[k] == 'Z')
            k++;
        else if (len - k >= 6 && (p[k] == '+' || p[k] == '-') && is_digit(p[k + 1])
                 && is_digit(p[k + 2]) && p[k + 3] == ':' && is_digit(p[k + 4])
                 && is_digit(p[k + 5]))
            k += 6;
        return k == len;
    }
    else
        return 0;
    if (k < len && p[k] == '.') {           /* the first form's fraction */
        Py_ssize_t d = k + 1;
        while (d < len && is_digit(p[d]))
            d++;
        if (d == k + 1)
            return 0;
        k = d;
    }
    return k == len;
}

/* \d+(?:\.\d+)? at s[*k] (before e); the span in a[0], a[1] */
static int
plain_number(const char *s, Py_ssize_t *k, Py_ssize_t e, Py_ssize_t *a)
{
    Py_ssize_t i = *k;
    a[0] = i;
    while (i < e && is_digit(s[i]))
        i++;
    if (i == a[0])
        return 0;
    if (i < e && s[i] == '.' && i + 1 < e && is_digit(s[i + 1])) {
        i++;
        while (i < e && is_digit(s[i]))
            i++;
    }
    a[1] = *k = i;
    return 1;
}

/* \d{1,15} followed by a non-digit (or e) */
static int
count_number(const char *s, Py_ssize_t *k, Py_ssize_t e, Py_ssize_t *a)
{
    Py_ssize_t i = *k;
    a[0] = i;
    while (i < e && is_digit(s[i]))
        i++;
    if (i == a[0] || i - a[0] > 15)
        return 0;
    a[1] = *k = i;
    return 1;
}

/* \ +NAME at s[*k] */
static int
spaces_then(const char *s, Py_ssize_t *k, Py_ssize_t e, const char *lit, Py_ssize_t len)
{
    Py_ssize_t i = *k;
    if (i >= e || s[i] != ' ')
        return 0;
    while (i < e && s[i] == ' ')
        i++;
    if (!starts(s, i, e, lit, len))
        return 0;
    *k = i + len;
    return 1;
}

/* the "# Query_time: ..." line [i, e): spans of qt, lt, rs, rx and where x2 starts */
static int
query_time_line(const char *s, Py_ssize_t i, Py_ssize_t e, Py_ssize_t g[][2], Py_ssize_t *x2)
{
    Py_ssize_t k = i;
    if (!STARTS(s, k, e, "# Query_time: "))
        return 0;
    k += 14;
    if (!plain_number(s, &k, e, g[0]) || !spaces_then(s, &k, e, "Lock_time: ", 11)
        || !plain_number(s, &k, e, g[1]) || !spaces_then(s, &k, e, "Rows_sent: ", 11)
        || !count_number(s, &k, e, g[2]) || !spaces_then(s, &k, e, "Rows_examined: ", 15)
        || !count_number(s, &k, e, g[3]))
        return 0;
    if (k < e && s[k] != ' ' && s[k] != '\t')
        return 0;
    *x2 = k;
    return 1;
}

static int
meta_set(const char *s, Py_ssize_t i, Py_ssize_t n)
{
    return STARTS(s, i, n, "SET last_insert_id") || STARTS(s, i, n, "SET insert_id")
        || STARTS(s, i, n, "SET timestamp");
}

/* one entry at p; 1 with the 12 spans (-1: no group) and its end, 0 if left to the regex */
static int
one_entry(const char *s, Py_ssize_t p, Py_ssize_t n, Py_ssize_t g[12][2], Py_ssize_t *end)
{
    Py_ssize_t i = p, e;
    for (int k = 0; k < 12; k++)
        g[k][0] = g[k][1] = -1;
    if (STARTS(s, i, n, "# Time: ")) {
        e = line_end(s, i, n);
        if (e == n || !time_value(s + i + 8, e - i - 8))
            return 0;
        g[0][0] = i + 8;
        g[0][1] = e;
        i = e + 1;
    }
    if (!STARTS(s, i, n, "# User@Host: "))
        return 0;
    e = line_end(s, i, n);
    if (e == n)
        return 0;
    g[1][0] = i + 13;
    g[1][1] = e;
    i = e + 1;
    g[2][0] = i;                        /* x1: the "#" lines before the first Query_time line */
    Py_ssize_t x2 = 0;
    for (;;) {
        if (i >= n || s[i] != '#')
            return 0;
        e = line_end(s, i, n);
        if (e == n)
            return 0;
        if (query_time_line(s, i, e, &g[3], &x2))
            break;
        i = e + 1;
    }
    g[2][1] = i;
    g[7][0] = x2;                       /* x2: the rest of that line and the "#" lines after */
    i = e + 1;
    while (i < n && s[i] == '#') {
        e = line_end(s, i, n);
        if (e == n)
            break;
        i = e + 1;
    }
    g[7][1] = i;
    if (STARTS(s, i, n, "use ")) {
        Py_ssize_t j = i + 4;
        while (j < n && s[j] != ';' && s[j] != '\n')
            j++;
        if (j == i + 4 || j + 1 >= n || s[j] != ';' || s[j + 1] != '\n')
            return 0;
        g[8][0] = i + 4;
        g[8][1] = j;
        i = j + 2;
    }
    if (meta_set(s, i, n)) {
        e = line_end(s, i, n);
        if (e == n)
            return 0;
        g[9][0] = i;
        g[9][1] = e + 1;
        i = e + 1;
    }
    if (STARTS(s, i, n, "use ") || meta_set(s, i, n) || STARTS(s, i, n, "Tcp")
        || STARTS(s, i, n, "TCP") || STARTS(s, i, n, "Time") || STARTS(s, i, n, "administrator"))
        return 0;
    if (i >= n || s[i] == '#' || s[i] == '\n')
        return 0;
    Py_ssize_t q = i, first = 1;
    for (;;) {
        e = line_end(s, i, n);
        if (e == n)
            return 0;
        if (s[e - 1] == ';' && e - 1 >= (first ? q + 1 : i)
            && (e + 1 == n || s[e + 1] == '#')) {
            g[10][0] = q;
            g[10][1] = e - 1;
            *end = e + 1;
            return 1;
        }
        i = e + 1;
        if (i >= n || s[i] == '#' || STARTS(s, i, n, "Tcp") || STARTS(s, i, n, "TCP")
            || STARTS(s, i, n, "Time"))
            return 0;
        first = 0;
    }
}

PyObject *
bk_slowlog_entries(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyBytes_Check(args[0]) || !PyList_Check(args[2])
        || PyList_GET_SIZE(args[2]) != 13) {
        PyErr_SetString(PyExc_TypeError, "slowlog_entries(text: bytes, pos, cols: 13 lists)");
        return NULL;
    }
    const char *s = PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    Py_ssize_t p = PyLong_AsSsize_t(args[1]);
    if (p == -1 && PyErr_Occurred())
        return NULL;
    if (p < 0 || p > n) {
        PyErr_SetString(PyExc_ValueError, "pos out of range");
        return NULL;
    }
    PyObject *cols[13];
    for (int k = 0; k < 13; k++) {
        cols[k] = PyList_GET_ITEM(args[2], k);
        if (!PyList_Check(cols[k])) {
            PyErr_SetString(PyExc_TypeError, "cols must hold lists");
            return NULL;
        }
    }
    PyObject *empty = PyBytes_FromStringAndSize(NULL, 0);
    if (empty == NULL)
        return NULL;
    Py_ssize_t g[12][2], end;
    while (p < n && one_entry(s, p, n, g, &end)) {
        PyObject *start = PyLong_FromSsize_t(p);
        if (start == NULL || PyList_Append(cols[12], start) < 0) {
            Py_XDECREF(start);
            Py_DECREF(empty);
            return NULL;
        }
        Py_DECREF(start);
        for (int k = 0; k < 12; k++) {
            PyObject *v;
            if (g[k][0] < 0 || g[k][1] == g[k][0]) {
                v = empty;
                Py_INCREF(v);
            }
            else
                v = PyBytes_FromStringAndSize(s + g[k][0], g[k][1] - g[k][0]);
            if (v == NULL || PyList_Append(cols[k], v) < 0) {
                Py_XDECREF(v);
                Py_DECREF(empty);
                return NULL;
            }
            Py_DECREF(v);
        }
        p = end;
    }
    Py_DECREF(empty);
    return PyLong_FromSsize_t(p);
}
